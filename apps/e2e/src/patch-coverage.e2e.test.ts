// Proven patch coverage against diff-cover 7.4 (/usr/bin/diff-cover), the tool that counts the changed
// lines a coverage report covers. A real pytest project in a temp git repository, src layout, measured by
// `--cov=pkg` (a package name: coverage.py's Cobertura report has the package folder as its <source>): a
// base commit, then a head commit that edits src/pkg/calc.py (a line only the frozen test runs among the
// changes), renames src/pkg/fmt.py to src/pkg/textfmt.py with edits, and touches a test and a README.
//
// - Rerun mode, the proof run writing Cobertura XML: `check --run` reads the very file diff-cover reads;
//   coverable, covered and the uncovered lines of each file must be diff-cover's, line for line.
// - Single run (`--cov-context=test`, the frozen test's contexts dropped): proven must equal diff-cover on
//   a proof run's XML (the frozen test deselected), raw (uncovered minus frozen-only) diff-cover on
//   `coverage xml` of the full run's own data file.
//
// The agreed definition is diff-cover's on a base that is an ancestor of the head (it diffs
// `base...HEAD` and adds the work tree's changes unless told not to: --ignore-staged --ignore-unstaged).
// Its total percentage is truncated to a whole number, and 100 when nothing is coverable; proofgate's
// keeps the fraction and is n/a then. Those are compared as counts, not as its rounded figure.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyFiles,
  check,
  cleanEnv,
  git,
  AGENT,
  CALC,
  COLLECT,
  FROZEN,
  ledger,
  PY,
  type CheckRun,
} from "./check-project.js";

const DIFF_COVER = "/usr/bin/diff-cover";

const FMT = `"""Formatting."""


def money(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def pad(text, width):
    if len(text) >= width:
        return text
    return text + " " * (width - len(text))


def shout(text):
    return text.upper() + "!"
`;

const TESTS = `import pytest

from pkg.calc import label, total
from pkg.fmt import money, shout


def test_frozen():
    assert label(5000) == "big"


def test_total():
    assert total([1, 2, 3]) == 6


def test_negative():
    with pytest.raises(ValueError):
        total([-1])


def test_label():
    assert label(1) == "small"


def test_money():
    assert money(-1234) == "-12.34"


def test_shout():
    assert shout("a") == "A!"
`;

// The head: total() rewritten (run), label()'s big branch grown (only the frozen test runs it), clamp()
// added (its def runs at import, its body never), fmt.py renamed with shout() changed (run) and
// whisper() added (its body never run), a comment and a blank line (no statement).
const HEAD_CALC = CALC.replace("        result += p\n", "        result = result + p\n").replace(
  '        return "big"  # only the frozen test\n',
  '        size = "big"  # only the frozen test\n        return size\n',
).concat(`

# Bounds.
def clamp(n, low, high):
    if n < low:
        return low
    return min(n, high)
`);
const HEAD_FMT = FMT.replace('return text.upper() + "!"', 'return text.upper() + "!" * 2').concat(`

def whisper(text):
    return text.lower()
`);
const HEAD_TESTS = TESTS.replace("from pkg.fmt import", "from pkg.textfmt import").replace('== "A!"', '== "A!!"');

const PYTEST = `${PY} -m pytest -p no:cacheprovider -q tests`;

function proofgateToml(coverage: string, proof: string): string {
  return `[coverage]
${coverage}
min_proven = 10
min_patch_proven = 90

[results]
junit = ["results.xml"]

[fixtures]
enabled = false

[properties]
enabled = false

[commands]
collect = ${JSON.stringify(COLLECT.replace(" --ignore=tests/properties", ""))}
proof = ${JSON.stringify(proof)}
`;
}

const RERUN = proofgateToml(
  'reports = ["coverage.xml"]',
  `${PYTEST} --cov=pkg --cov-report=xml:coverage.xml -o junit_family=xunit1 --junitxml=results.xml`,
);
const SINGLE = proofgateToml(
  'reports = ["full.json"]\ncontexts = ".coverage"',
  `${PYTEST} --cov=pkg --cov-context=test --cov-report= -o junit_family=xunit1 --junitxml=results.xml; s=$?; ${PY} -m coverage json -q -o full.json; exit $s`,
);

interface Repo {
  dir: string;
  base: string;
  head: string;
}

const made: string[] = [];

function makeRepo(config: string): Repo {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-patch-"));
  made.push(dir);
  git(dir, ["init", "-q", "-b", "main", "."]);
  applyFiles(dir, {
    ".gitignore":
      "collected.txt\ncoverage.xml\nresults.xml\n.coverage\n.coverage.*\nfull.json\n*.cobertura.xml\ndiff-cover-*.json\nproofgate-evidence.json\nproofgate-report/\n__pycache__/\n",
    "pytest.ini": "[pytest]\npythonpath = src\n",
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": CALC,
    "src/pkg/fmt.py": FMT,
    "tests/test_a.py": TESTS,
    "freeze.toml": ledger(),
    "proofgate.toml": config,
  });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Base"]);
  const base = git(dir, ["rev-parse", "HEAD"]).trim();
  git(dir, ["checkout", "-q", "-b", "patch"]);
  applyFiles(dir, {
    "src/pkg/calc.py": HEAD_CALC,
    "src/pkg/fmt.py": null,
    "src/pkg/textfmt.py": HEAD_FMT,
    "tests/test_a.py": HEAD_TESTS,
    "README.md": "# pkg\n",
  });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Clamp, whisper, and fmt is textfmt"], AGENT);
  return { dir, base, head: git(dir, ["rev-parse", "HEAD"]).trim() };
}

function run(cmd: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 120_000, env: cleanEnv(env) });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.error ?? ""}${r.stdout}${r.stderr}`);
  return r.stdout;
}

interface DiffCover {
  total_num_lines: number;
  total_num_violations: number;
  src_stats: Record<string, { violation_lines: number[] }>;
}

/** diff-cover on a Cobertura report, against the base, the committed patch only. */
function diffCover(repo: Repo, xml: string, name: string): DiffCover {
  const out = `diff-cover-${name}.json`;
  run(
    DIFF_COVER,
    [xml, `--compare-branch=${repo.base}`, "--ignore-staged", "--ignore-unstaged", "--json-report", out, "-q"],
    repo.dir,
  );
  return JSON.parse(readFileSync(join(repo.dir, out), "utf8")) as DiffCover;
}

interface PatchFile {
  path: string;
  old_path: string | null;
  coverable: number;
  covered: number;
  uncovered: number[];
  frozen_only: number[] | null;
}

interface Patch {
  coverable: number;
  covered: number;
  percent: number | null;
  not_applicable: string | null;
  raw: { covered: number; percent: number | null } | null;
  min_patch_proven: number | null;
  files: PatchFile[];
}

const patchOf = (r: CheckRun): Patch => (r.report.coverage as { patch: Patch }).patch;

/** What diff-cover says per file: the uncovered lines of each file with a coverable changed line. */
const violations = (d: DiffCover): Record<string, number[]> =>
  Object.fromEntries(Object.entries(d.src_stats).map(([path, s]) => [path, s.violation_lines]));

/** The line numbers at head of the lines holding `text` in `source`. */
const linesOf = (source: string, text: string): number[] =>
  source.split("\n").flatMap((line, i) => (line.includes(text) ? [i + 1] : []));

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("proven patch coverage equals diff-cover's, line for line", () => {
  describe("rerun mode: the proof run's Cobertura report", () => {
    let repo: Repo;
    let r: CheckRun;
    beforeAll(async () => {
      repo = makeRepo(RERUN);
      r = await check(repo.dir, ["--run", "--base", repo.base, "--format", "json"]);
    }, 240_000);

    it("counts what diff-cover counts on the same report and diff", () => {
      const patch = patchOf(r);
      expect(r.report.errors, r.stderr).toEqual([]);
      const dc = diffCover(repo, "coverage.xml", "proof");
      expect(patch.coverable).toBe(dc.total_num_lines);
      expect(patch.coverable - patch.covered).toBe(dc.total_num_violations);
      expect(Object.fromEntries(patch.files.map((f) => [f.path, f.uncovered]))).toEqual(violations(dc));
      // The rename is followed: the new path, its old one named, only its changed lines counted.
      expect(patch.files.find((f) => f.path === "src/pkg/textfmt.py")).toMatchObject({
        old_path: "src/pkg/fmt.py",
        uncovered: linesOf(HEAD_FMT, "return text.lower()"),
      });
      // The test file and the README are not measured source: neither tool lists them.
      expect(patch.files.map((f) => f.path)).toEqual(["src/pkg/calc.py", "src/pkg/textfmt.py"]);
      // No full run's report: the raw side and the frozen-only lines are unknown, not zero.
      expect(patch.raw).toBeNull();
      expect(patch.files.every((f) => f.frozen_only === null)).toBe(true);
    });

    it("below min_patch_proven: patch_unproven, one finding per file naming its unproven lines", () => {
      const patch = patchOf(r);
      expect(patch.percent).toBeCloseTo((100 * patch.covered) / patch.coverable, 10);
      expect(patch.min_patch_proven).toBe(90);
      expect(r.report.reasons).toEqual(["patch_unproven"]);
      expect(r.status).toBe(1);
      expect(r.report.details.map((d) => [d.reason, d.file, d.line])).toEqual(
        patch.files.map((f) => ["patch_unproven", f.path, f.uncovered[0]]),
      );
      const row = r.report.signals.find((s) => s.id === "patch_coverage")!;
      expect(row).toMatchObject({ result: "fail", reasons: ["patch_unproven"] });
      expect(row.value).toContain(`${patch.covered} of ${patch.coverable} changed statements proven`);
    });
  });

  describe("single run: the frozen test's contexts dropped; raw from the same run", () => {
    let repo: Repo;
    let r: CheckRun;
    let proof: DiffCover;
    let full: DiffCover;
    beforeAll(async () => {
      repo = makeRepo(SINGLE);
      r = await check(repo.dir, ["--run", "--base", repo.base, "--format", "json"]);
      // The full run, as coverage.py reports its own data file.
      run(PY, ["-m", "coverage", "xml", "-q", "-o", "full.cobertura.xml"], repo.dir);
      // A proof run: the same suite with the frozen test deselected, its data elsewhere.
      run(
        PY,
        [
          "-m",
          "pytest",
          "-p",
          "no:cacheprovider",
          "-q",
          "tests",
          "--deselect",
          FROZEN,
          "--cov=pkg",
          "--cov-report=xml:proof.cobertura.xml",
        ],
        repo.dir,
        { COVERAGE_FILE: join(repo.dir, ".coverage.proof") },
      );
      proof = diffCover(repo, "proof.cobertura.xml", "proof");
      full = diffCover(repo, "full.cobertura.xml", "full");
    }, 240_000);

    it("proven equals diff-cover on the proof run's report", () => {
      expect(r.report.errors, r.stderr).toEqual([]);
      const patch = patchOf(r);
      expect(patch.coverable).toBe(proof.total_num_lines);
      expect(patch.coverable - patch.covered).toBe(proof.total_num_violations);
      expect(Object.fromEntries(patch.files.map((f) => [f.path, f.uncovered]))).toEqual(violations(proof));
    });

    it("raw equals diff-cover on the full run's report; the difference is the frozen-only lines", () => {
      const patch = patchOf(r);
      expect(full.total_num_lines).toBe(patch.coverable);
      expect(patch.raw!.covered).toBe(full.total_num_lines - full.total_num_violations);
      const rawUncovered = Object.fromEntries(
        patch.files.map((f) => [f.path, f.uncovered.filter((l) => !f.frozen_only!.includes(l))]),
      );
      expect(rawUncovered).toEqual(violations(full));
      // The frozen test alone runs label()'s grown big branch: both of its changed lines.
      const calc = patch.files.find((f) => f.path === "src/pkg/calc.py")!;
      expect(calc.frozen_only).toEqual([...linesOf(HEAD_CALC, 'size = "big"'), ...linesOf(HEAD_CALC, "return size")]);
      expect(patch.files.find((f) => f.path === "src/pkg/textfmt.py")!.frozen_only).toEqual([]);
      expect(r.report.details.find((d) => d.file === "src/pkg/calc.py")!.message).toContain("only frozen tests run");
    });
  });
});

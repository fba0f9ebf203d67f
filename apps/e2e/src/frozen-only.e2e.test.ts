// Issue 22, the oracle for "what the frozen tests hide", against the real pytest 7.2, pytest-cov 4.0,
// coverage.py 6.5 and git. A suite of independent tests (no state shared), two of them frozen: one runs
// lines and arcs no other test runs, one shares some of them. coverage.py itself says what only the frozen
// tests run: (a) the full run (`--cov-branch --cov-context=test`, `coverage json`) minus (b) the rerun
// without the frozen tests (deselected, `coverage json`), `executed_lines` and `executed_branches` file by
// file. proofgate's `coverage.frozen_only` must be exactly that, line for line and arc for arc, in both
// modes: single run (`[coverage] contexts`, through `check --run` and `decide --contexts`) and rerun
// (`[coverage] full_report` = (a)'s JSON beside (b)'s). `coverage.raw` is (a)'s totals, and
// `hidden_debt_points` is raw minus proven. The documented disagreement of the two modes (a frozen test
// that leaves state behind) is contexts.e2e.test.ts's; here the tests are independent, so the modes agree.
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PY,
  check,
  config,
  makeCheckProject,
  proofCommand,
  record,
  type CheckRun,
  type FileChange,
  type Project,
} from "./check-project.js";
import { makeProject, proofgate, pytest, python, writeText } from "./helpers.js";

const ALONE = "tests/test_shapes.py::test_frozen_alone";
const SHARED = "tests/test_shapes.py::test_frozen_shared";

/**
 * Only the frozen tests reach the circle (both of them), a negative value in `scale`, `checksum` and
 * `pkg/lazy.py` (test_frozen_alone) and the digit loop of `spell` (test_frozen_shared); the square is
 * reached by test_frozen_shared and by kept tests alike.
 */
const SHAPES = `"""Shapes and numbers: some of it only frozen tests reach."""


def area(kind, a, b=None):
    if kind == "square":
        return a * a
    if kind == "rect":
        if b is None:
            raise ValueError("rect needs two sides")
        return a * b
    if kind == "circle":
        return round(3.14159 * a * a, 2)
    raise ValueError(kind)


def scale(values, factor):
    out = []
    for v in values:
        if v < 0:
            out.append(0)
        else:
            out.append(v * factor)
    return out


def spell(n):
    parts = []
    while n > 0:
        parts.append(str(n % 10))
        n //= 10
    return "-".join(reversed(parts)) or "zero"


def checksum(values):
    total = 0
    for i, v in enumerate(values):
        total += (i + 1) * v
    return total % 97
`;

/** A module that only test_frozen_alone imports: every line of it is frozen-only. */
const LAZY = `LIMIT = 3


def clamp(n):
    return min(n, LIMIT)
`;

const TESTS = `import pytest

from pkg.shapes import area, checksum, scale, spell


def test_frozen_alone():
    from pkg.lazy import clamp

    assert area("circle", 2) == 12.57
    assert scale([1, -1], 3) == [3, 0]
    assert checksum([1, 2]) == 5
    assert clamp(9) == 3


def test_frozen_shared():
    assert area("circle", 1) == 3.14
    assert area("square", 2) == 4
    assert spell(12) == "1-2"


def test_square():
    assert area("square", 3) == 9


def test_rect():
    assert area("rect", 2, 5) == 10


def test_rect_needs_two_sides():
    with pytest.raises(ValueError):
        area("rect", 2)


def test_unknown_kind():
    with pytest.raises(ValueError):
        area("hexagon", 1)


def test_scale():
    assert scale([1, 2], 2) == [2, 4]


def test_spell_zero():
    assert spell(0) == "zero"
`;

const LEASES = `version = 1
max_active_leases = 3

[[leases]]
nodeid = "${ALONE}"
owner = "ada"
reason = "flaky on CI"
expires = "2099-12-31"

[[leases]]
nodeid = "${SHARED}"
owner = "ada"
reason = "slow"
expires = "2099-12-31"
`;

const FULL_JSON = "full_coverage.json";
/** The CI job that runs the whole suite, frozen tests included, with per-test contexts: (a). */
const FULL_RUN = `${PY} -m pytest -p no:cacheprovider -q tests --ignore=tests/properties --cov=pkg --cov-branch --cov-context=test --cov-report=; s=$?; ${PY} -m coverage json -q -o ${FULL_JSON}; exit $s`;

const GITIGNORE =
  "collected.txt\nproven_coverage.json\nfull_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-evidence.json\nproofgate-report/\n__pycache__/\n";

/** Single run: the proof step is the full run with contexts; its `coverage json` is the same run's. */
const SINGLE_CONFIG = config({ minProven: 10, proof: proofCommand({ pytestArgs: "--cov-context=test" }) }).replace(
  "[coverage]\n",
  '[coverage]\ncontexts = ".coverage"\n',
);
/** Rerun: the proof step runs without the frozen tests; the full run's report is `full_report`. */
const rerunConfig = (full: boolean): string =>
  config({ minProven: 10 }).replace("[coverage]\n", `[coverage]\n${full ? `full_report = "${FULL_JSON}"\n` : ""}`);

interface CoverageJsonFile {
  executed_lines: number[];
  missing_lines: number[];
  executed_branches: [number, number][];
  missing_branches: [number, number][];
}
interface CoverageJson {
  files: Record<string, CoverageJsonFile>;
  totals: {
    percent_covered: number;
    num_statements: number;
    covered_lines: number;
    num_branches: number;
    covered_branches: number;
  };
}

interface FrozenOnly {
  lines: number;
  branches: number;
  attributed: boolean;
  files: {
    path: string;
    lines: number;
    branches: number;
    ranges: { start: number; end: number; lines: number; tests: string[] | null }[];
    branch_list: { line: number; branch: string; tests: string[] | null }[];
  }[];
}
interface CoverageSection {
  source: string;
  proven_coverage_percent: number;
  raw: {
    percent_covered: number;
    num_statements: number;
    covered_lines: number;
    num_branches: number;
    covered_branches: number;
  } | null;
  raw_not_measured: string | null;
  hidden_debt_points: number | null;
  frozen_only: FrozenOnly | null;
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(proofgateToml: string): Project {
  const p = makeCheckProject({
    base: {
      ".gitignore": GITIGNORE,
      "pkg/shapes.py": SHAPES,
      "pkg/lazy.py": LAZY,
      "tests/test_shapes.py": TESTS,
      "freeze.toml": LEASES,
      "proofgate.toml": proofgateToml,
    } satisfies Record<string, FileChange>,
  });
  made.push(p.dir);
  return p;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

const sectionOf = (r: CheckRun | { coverage?: unknown }): CoverageSection =>
  ("report" in r ? r.report.coverage : r.coverage) as unknown as CoverageSection;

/** `(a) - (b)` per file, from coverage.py's own JSON: the lines and the arcs (`"from>to"`) only (a) ran. */
function oracle(a: CoverageJson, b: CoverageJson): Map<string, { lines: number[]; arcs: string[] }> {
  const out = new Map<string, { lines: number[]; arcs: string[] }>();
  for (const [path, fa] of Object.entries(a.files)) {
    const fb = b.files[path];
    const ranLines = new Set(fb?.executed_lines ?? []);
    const ranArcs = new Set((fb?.executed_branches ?? []).map(([x, y]) => `${x}>${y}`));
    const lines = fa.executed_lines.filter((l) => !ranLines.has(l)).sort((x, y) => x - y);
    const arcs = fa.executed_branches.map(([x, y]) => `${x}>${y}`).filter((k) => !ranArcs.has(k));
    if (lines.length > 0 || arcs.length > 0) out.set(path, { lines, arcs: arcs.sort() });
  }
  return out;
}

/** proofgate's frozen-only lines per file (its ranges expanded to the statements of (a)) and arcs. */
function frozenOnlyOf(f: FrozenOnly, a: CoverageJson): Map<string, { lines: number[]; arcs: string[] }> {
  const out = new Map<string, { lines: number[]; arcs: string[] }>();
  for (const file of f.files) {
    const statements = new Set([...a.files[file.path]!.executed_lines, ...a.files[file.path]!.missing_lines]);
    const lines: number[] = [];
    for (const r of file.ranges) {
      const inRange = [...statements].filter((l) => l >= r.start && l <= r.end);
      expect(inRange, `${file.path} ${r.start}-${r.end}`).toHaveLength(r.lines);
      lines.push(...inRange);
    }
    expect(lines).toHaveLength(file.lines);
    expect(file.branch_list).toHaveLength(file.branches);
    for (const b of file.branch_list) expect(b.branch.startsWith(`${b.line}>`)).toBe(true);
    out.set(file.path, {
      lines: lines.sort((x, y) => x - y),
      arcs: file.branch_list.map((b) => b.branch).sort(),
    });
  }
  return out;
}

/** The checks every mode must pass: frozen_only = (a) - (b); raw = (a)'s totals; hidden = raw - proven. */
function expectOracle(c: CoverageSection, a: CoverageJson, b: CoverageJson): void {
  expect(c.frozen_only).not.toBeNull();
  const expected = oracle(a, b);
  const got = frozenOnlyOf(c.frozen_only!, a);
  expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
  let lines = 0;
  let arcs = 0;
  for (const e of expected.values()) {
    lines += e.lines.length;
    arcs += e.arcs.length;
  }
  expect(c.frozen_only!.lines).toBe(lines);
  expect(c.frozen_only!.branches).toBe(arcs);
  expect(c.raw).toEqual({
    percent_covered: a.totals.percent_covered,
    num_statements: a.totals.num_statements,
    covered_lines: a.totals.covered_lines,
    num_branches: a.totals.num_branches,
    covered_branches: a.totals.covered_branches,
  });
  expect(c.raw_not_measured).toBeNull();
  expect(c.hidden_debt_points).toBe(c.raw!.percent_covered - c.proven_coverage_percent);
  // And proven is what coverage.py says of the rerun: on independent tests, the modes agree.
  expect(c.proven_coverage_percent).toBe(b.totals.percent_covered);
}

/** (b) by hand in `dir`: the rerun without the frozen tests (deselect --format plugin), to other file names. */
function rerunByHand(dir: string): CoverageJson {
  const plugin = proofgate(
    [
      "deselect",
      "--freeze",
      "freeze.toml",
      "--collected",
      "collected.txt",
      "--format",
      "plugin",
      "--out",
      "oracle-plugin/proofgate_frozen.py",
    ],
    dir,
  );
  expect(plugin.status, plugin.stderr).toBe(0);
  const env = { PYTHONPATH: join(dir, "oracle-plugin"), COVERAGE_FILE: ".coverage.oracle-rerun" };
  const run = pytest(
    [
      "-p",
      "proofgate_frozen",
      "-q",
      "tests",
      "--ignore=tests/properties",
      "--cov=pkg",
      "--cov-branch",
      "--cov-report=",
    ],
    dir,
    env,
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toContain("2 deselected");
  const json = python(["-m", "coverage", "json", "-q", "-o", "oracle-rerun.json"], dir, env);
  expect(json.status, json.stderr).toBe(0);
  return readJson<CoverageJson>(join(dir, "oracle-rerun.json"));
}

/** (a) by hand: the full run with contexts, to other file names. */
function fullByHand(dir: string): CoverageJson {
  const env = { COVERAGE_FILE: ".coverage.oracle-full" };
  const run = pytest(
    ["-q", "tests", "--ignore=tests/properties", "--cov=pkg", "--cov-branch", "--cov-context=test", "--cov-report="],
    dir,
    env,
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const json = python(["-m", "coverage", "json", "-q", "-o", "oracle-full.json"], dir, env);
  expect(json.status, json.stderr).toBe(0);
  return readJson<CoverageJson>(join(dir, "oracle-full.json"));
}

let single: { p: Project; r: CheckRun; a: CoverageJson; b: CoverageJson };
let rerun: { p: Project; r: CheckRun; a: CoverageJson; b: CoverageJson };

beforeAll(async () => {
  const s = project(SINGLE_CONFIG);
  const q = project(rerunConfig(true));
  // The rerun's full run is the CI's own test job: `proofgate record` binds its report to the commit.
  const full = record(q.dir, ["--writes", FULL_JSON, "--", FULL_RUN]);
  expect(full.status, full.stderr).toBe(0);
  const [rs, rq] = await Promise.all([
    check(s.dir, ["--run", "--base", s.base, "--format", "json"]),
    check(q.dir, ["--run", "--base", q.base, "--format", "json"]),
  ]);
  expect(rs.status, explain(rs)).toBe(0);
  expect(rq.status, explain(rq)).toBe(0);
  // Single run: (a) is what the proof step wrote (proofgate read exactly these files); (b) by hand.
  single = { p: s, r: rs, a: readJson(join(s.dir, "proven_coverage.json")), b: rerunByHand(s.dir) };
  // Rerun: (a) is the recorded full run's report, (b) the proof step's (the frozen tests deselected).
  rerun = { p: q, r: rq, a: readJson(join(q.dir, FULL_JSON)), b: readJson(join(q.dir, "proven_coverage.json")) };
});

describe("frozen_only is coverage.py's (a) full run minus (b) rerun without the frozen tests", () => {
  it("the scenario: both frozen tests hide lines and arcs, in two files", () => {
    const expected = oracle(rerun.a, rerun.b);
    expect([...expected.keys()].sort()).toEqual(["pkg/lazy.py", "pkg/shapes.py"]);
    expect(expected.get("pkg/shapes.py")!.lines.length).toBeGreaterThan(5);
    expect(expected.get("pkg/shapes.py")!.arcs.length).toBeGreaterThan(3);
    expect(rerun.a.totals.percent_covered).toBeGreaterThan(rerun.b.totals.percent_covered);
  });

  it("single run (check --run, [coverage] contexts): line for line, arc for arc, raw and hidden debt", () => {
    const c = sectionOf(single.r);
    expect(c.source).toBe("contexts");
    expectOracle(c, single.a, single.b);
    expect(c.frozen_only!.attributed).toBe(true);
  });

  it("single run names the frozen tests that run each range and arc; one runs lines no other test runs, one shares", () => {
    const f = sectionOf(single.r).frozen_only!;
    const testsOf = new Map<string, string[]>();
    for (const file of f.files) {
      for (const r of file.ranges) testsOf.set(`${file.path}:${r.start}`, r.tests!);
      for (const b of file.branch_list) testsOf.set(`${file.path}:${b.branch}`, b.tests!);
    }
    const lineOf = (text: string): number => SHAPES.split("\n").findIndex((l) => l.includes(text)) + 1;
    // The circle: both frozen tests; the negative value and checksum: test_frozen_alone; spell's loop: shared.
    expect(testsOf.get(`pkg/shapes.py:${lineOf("return round(3.14159")}`)).toEqual([ALONE, SHARED]);
    expect(testsOf.get(`pkg/shapes.py:${lineOf("out.append(0)")}`)).toEqual([ALONE]);
    expect(testsOf.get(`pkg/shapes.py:${lineOf("total = 0")}`)).toEqual([ALONE]);
    expect(testsOf.get(`pkg/shapes.py:${lineOf("parts.append")}`)).toEqual([SHARED]);
    expect(testsOf.get("pkg/lazy.py:1")).toEqual([ALONE]);
    expect(testsOf.get(`pkg/shapes.py:${lineOf("while n > 0")}>${lineOf("parts.append")}`)).toEqual([SHARED]);
    // The square is shared with kept tests: not frozen-only.
    expect(testsOf.has(`pkg/shapes.py:${lineOf("return a * a")}`)).toBe(false);
    // Every name is a frozen test.
    for (const tests of testsOf.values()) for (const t of tests) expect([ALONE, SHARED]).toContain(t);
  });

  it("single run, decide --contexts on the same files: the same coverage section", () => {
    const r = proofgate(
      [
        "decide",
        "--freeze",
        "freeze.toml",
        "--collected",
        "collected.txt",
        "--contexts",
        ".coverage",
        "--report",
        "proven_coverage.json",
      ],
      single.p.dir,
    );
    expect(r.stdout, r.stderr).toMatch(/^\{/);
    const c = sectionOf(JSON.parse(r.stdout) as { coverage: unknown });
    expectOracle(c, single.a, single.b);
    // Patch coverage is check's alone: decide reads no git diff, so its patch is not measured.
    const { patch, patch_not_measured: why, ...rest } = c as unknown as Record<string, unknown>;
    expect(patch).toBeNull();
    expect(why).toMatch(/diff/);
    const fromCheck = { ...(sectionOf(single.r) as unknown as Record<string, unknown>) };
    delete fromCheck.patch;
    delete fromCheck.patch_not_measured;
    expect(rest).toEqual(fromCheck);
  });

  it("rerun (check --run, [coverage] full_report = (a)'s JSON): line for line, arc for arc, raw and hidden debt", () => {
    const c = sectionOf(rerun.r);
    expect(c.source).toBe("report");
    expectOracle(c, rerun.a, rerun.b);
    expect(c.frozen_only!.attributed).toBe(false);
    for (const f of c.frozen_only!.files) {
      for (const r of f.ranges) expect(r.tests).toBeNull();
      for (const b of f.branch_list) expect(b.tests).toBeNull();
    }
    // The full report is an input, bound by the record's stamp.
    expect(rerun.r.report.inputs).toContainEqual(expect.objectContaining({ role: "full_coverage", path: FULL_JSON }));
  });

  it("both modes agree: the same lines, arcs, raw and proven figures", () => {
    const s = sectionOf(single.r);
    const q = sectionOf(rerun.r);
    const strip = (f: FrozenOnly) =>
      f.files.map((x) => ({
        ...x,
        ranges: x.ranges.map((r) => ({ ...r, tests: null })),
        branch_list: x.branch_list.map((b) => ({ ...b, tests: null })),
      }));
    expect(strip(s.frozen_only!)).toEqual(strip(q.frozen_only!));
    expect(s.raw).toEqual(q.raw);
    expect(s.proven_coverage_percent).toBe(q.proven_coverage_percent);
    expect(s.hidden_debt_points).toBe(q.hidden_debt_points);
    // And coverage.py says the same of both projects: (a) - (b) is one answer, whichever run wrote which side.
    expect(oracle(single.a, single.b)).toEqual(oracle(rerun.a, rerun.b));
  });
});

describe("the rerun without a usable full report", () => {
  it("no full_report: raw is null and the report says why", async () => {
    const p = project(rerunConfig(false));
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(0);
    const c = sectionOf(r);
    expect(c.raw).toBeNull();
    expect(c.hidden_debt_points).toBeNull();
    expect(c.frozen_only).toBeNull();
    expect(c.raw_not_measured).toBe("the proof run is a rerun and [coverage] full_report names no full run's report");
  });

  it("a full report of other code (one statement more) is exit 2 coverage_invalid naming the report and the file", async () => {
    // The full run of other code: shapes.py with one statement more. Bound to no commit, so the check reads
    // it only with the documented opt-out (`[evidence] bound = false`); a stamp would have said stale first.
    const p = project(`${rerunConfig(true)}\n[evidence]\nbound = false\n`);
    // The head's work tree, then one statement more in shapes.py: the full run of other code.
    const other = makeProject({});
    cpSync(p.dir, other, { recursive: true });
    writeText(
      join(other, "pkg/shapes.py"),
      SHAPES.replace("    out = []\n", "    out = []\n    factor = factor or 1\n"),
    );
    made.push(other);
    const a = fullByHand(other);
    expect(a.files["pkg/shapes.py"]!.executed_lines.length + a.files["pkg/shapes.py"]!.missing_lines.length).toBe(
      rerun.a.files["pkg/shapes.py"]!.executed_lines.length + rerun.a.files["pkg/shapes.py"]!.missing_lines.length + 1,
    );
    cpSync(join(other, "oracle-full.json"), join(p.dir, FULL_JSON));
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "coverage_invalid",
        file: FULL_JSON,
        message: expect.stringContaining("pkg/shapes.py"),
      }),
    ]);
    expect(r.stderr).toContain(FULL_JSON);
  });
});

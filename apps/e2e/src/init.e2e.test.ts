// `proofgate init` on three real layouts, then `check --run` twice, unedited, as a new user would:
// each project is a human's git repository; init writes the config for what it finds (with the real
// pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3, reached as `python` through a
// PATH shim, as a venv would), a human commits it, a human patch follows, and `check --run --base`
// must say MERGE both times. Python writes its bytecode caches as it does for users, so the ignore
// entries init adds must cover everything a run leaves.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyFiles, check, cleanEnv, git, HUMAN, type CheckRun } from "./check-project.js";
import { PROOFGATE, PYTHON } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) {
    spawnSync("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A folder whose `python` is Debian's, first on PATH. */
const shim = mkdtempSync(join(tmpdir(), "proofgate-python-shim-"));
made.push(shim);
symlinkSync(PYTHON, join(shim, "python"));
/** The user's shell: their `python` first, and Python writing its caches (__pycache__/) as it does by default. */
const USER_ENV = { PATH: `${shim}:${process.env.PATH ?? "/usr/bin:/bin"}`, PYTHONDONTWRITEBYTECODE: "" };

const CORE = `def total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result


def receipt(prices):
    return "\\n".join(f"{p:>6.2f}" for p in prices) + f"\\n{total(prices):>6.2f}\\n"


def encode(text):
    return text.encode("utf-8").hex()


def decode(data):
    return bytes.fromhex(data).decode("utf-8")
`;

interface LayoutCase {
  name: string;
  files: Record<string, string>;
  /** What init prints about the layout and the CI. */
  says: string[];
  /** The [commands] init writes. */
  commands: { collect: string; proof: string; properties?: string };
  /** The human patch on top of the adoption commit. */
  patch: Record<string, string>;
  /** The decision table's results, in order. */
  rows: string[];
  collected: number;
}

const PROOF_TAIL = "; s=$?; python -m coverage json -q -o proven_coverage.json; exit $s";

const cases: LayoutCase[] = [
  {
    name: "src layout, pytest and coverage.py configured in pyproject.toml, golden files, seeds, GitHub Actions",
    files: {
      "pyproject.toml": `[project]
name = "calc"
version = "0.1.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
addopts = "-ra"

[tool.coverage.run]
source = ["calc"]
branch = true
`,
      ".github/workflows/test.yml": "on: push\njobs: {}\n",
      "src/calc/__init__.py": "",
      "src/calc/core.py": CORE,
      "tests/test_core.py": `from pathlib import Path

import pytest

from calc.core import receipt, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert total([100], discount=10) == 90


def test_negative():
    with pytest.raises(ValueError):
        total([-1])


def test_receipt_golden():
    golden = Path(__file__).parent / "fixtures" / "receipt.txt"
    assert receipt([1.5, 2]) == golden.read_text()
`,
      "tests/fixtures/receipt.txt": "  1.50\n  2.00\n  3.50\n",
      "tests/properties/test_roundtrip.py": `from pathlib import Path

from calc.core import decode, encode


def test_roundtrip_on_seeds():
    seeds = sorted((Path(__file__).parent / "seeds").glob("*.txt"))
    assert seeds
    for seed in seeds:
        text = seed.read_text(encoding="utf-8")
        assert decode(encode(text)) == text, seed.name
`,
      "tests/properties/seeds/ascii.txt": "hello\n",
      "tests/properties/seeds/unicode.txt": "héllo €\n",
    },
    says: [
      "  pytest settings: pyproject.toml [tool.pytest.ini_options] (testpaths tests)\n",
      "  coverage source: calc (source in pyproject.toml [tool.coverage.run])\n",
      "  golden files: tests/fixtures\n",
      "  seeds: tests/properties/seeds\n  property suite: tests/properties\n",
      "wrote fixtures.lock: 1 fixture file(s) from tests/fixtures\n",
      "\nGitHub Actions (found .github/workflows/), in .github/workflows/proofgate.yml:\n",
    ],
    commands: {
      collect: "python -m pytest --collect-only -q > collected.txt",
      proof: `python -m pytest --cov=calc --cov-branch -o junit_family=xunit1 --junitxml=results.xml${PROOF_TAIL}`,
      properties: "python -m pytest tests/properties -o junit_family=xunit1 --junitxml=properties.xml",
    },
    patch: {
      "src/calc/core.py": `${CORE}

def describe(items):
    if not items:
        return "empty"
    return f"{len(items)} items"
`,
      "tests/test_describe.py": `from calc.core import describe


def test_describe():
    assert describe([]) == "empty"
    assert describe([1, 2]) == "2 items"
`,
    },
    rows: [
      "pass",
      "off", // coverage drop: init leaves max_drop commented out
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
      // Patch coverage: no [coverage] min_patch_proven in the template, only commented.
      "off",
      "pass",
      "off",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
    ],
    collected: 6,
  },
  {
    name: "tests inside the package (toolz), settings in setup.cfg, coverage.py's fail_under, GitLab CI",
    files: {
      "setup.cfg": `[metadata]
name = shapes

[tool:pytest]
testpaths = shapes
addopts = -q --strict-markers

[coverage:run]
source = shapes
omit =
    shapes/tests/*

[coverage:report]
fail_under = 90
`,
      ".gitlab-ci.yml": "test:\n  script: [pytest]\n",
      "shapes/__init__.py": "from shapes.area import circle, square\n",
      "shapes/area.py": `import math


def square(side):
    if side < 0:
        raise ValueError("negative side")
    return side * side


def circle(radius):
    return math.pi * radius * radius
`,
      "shapes/tests/__init__.py": "",
      "shapes/tests/test_area.py": `import math

import pytest

from shapes import circle, square


def test_square():
    assert square(3) == 9


def test_square_negative():
    with pytest.raises(ValueError):
        square(-1)


def test_circle():
    assert circle(1) == math.pi
`,
    },
    says: [
      "  pytest settings: setup.cfg [tool:pytest] (testpaths shapes)\n",
      "  tests: shapes/tests\n",
      "  coverage source: shapes (source in setup.cfg [coverage:run])\n",
      "  golden files: none found, so [fixtures] enabled = false\n",
      "  seeds: none found, so [properties] enabled = false\n",
      "\nGitLab CI (found .gitlab-ci.yml), in .gitlab-ci.yml:\n",
    ],
    commands: {
      // addopts has -q already: one more would print counts per file instead of ids.
      collect: "python -m pytest --collect-only > collected.txt",
      proof: `python -m pytest --cov=shapes --cov-branch --cov-fail-under=0 -o junit_family=xunit1 --junitxml=results.xml${PROOF_TAIL}`,
    },
    patch: {
      "shapes/area.py": `import math


def square(side):
    if side < 0:
        raise ValueError("negative side")
    return side * side


def circle(radius):
    return math.pi * radius * radius


def ring(outer, inner):
    return circle(outer) - circle(inner)
`,
      "shapes/tests/test_ring.py": `import math

from shapes.area import ring


def test_ring():
    assert ring(2, 1) == 3 * math.pi
`,
    },
    rows: [
      "pass",
      "off", // coverage drop: init leaves max_drop commented out
      "pass",
      "pass",
      "off",
      "off",
      "pass",
      "pass",
      "pass",
      // Patch coverage: no [coverage] min_patch_proven in the template, only commented.
      "off",
      "pass",
      "off",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
    ],
    collected: 4,
  },
  {
    name: "a flat package with a pyproject.toml of [project] alone, no CI",
    files: {
      "pyproject.toml": `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "textkit"
version = "0.1.0"
`,
      "textkit/__init__.py": "from textkit.words import count_words\n",
      "textkit/words.py": `def count_words(text):
    words = text.split()
    if not words:
        return 0
    return len(words)
`,
      "tests/test_words.py": `from textkit import count_words


def test_count():
    assert count_words("a b c") == 3


def test_empty():
    assert count_words("   ") == 0
`,
    },
    says: [
      "  pytest settings: none found (pytest's defaults)\n",
      "  tests: tests\n",
      "  coverage source: textkit (the package folder(s) at the root)\n",
      "\na git pre-push hook (no CI detected), in .git/hooks/pre-push",
    ],
    commands: {
      collect: "python -m pytest --collect-only -q tests > collected.txt",
      proof: `python -m pytest tests --cov=textkit --cov-branch -o junit_family=xunit1 --junitxml=results.xml${PROOF_TAIL}`,
    },
    patch: {
      "textkit/words.py": `def count_words(text):
    words = text.split()
    if not words:
        return 0
    return len(words)


def longest(text):
    return max(text.split(), key=len, default="")
`,
      "tests/test_longest.py": `from textkit.words import longest


def test_longest():
    assert longest("a bbb cc") == "bbb"
    assert longest("") == ""
`,
    },
    rows: [
      "pass",
      "off", // coverage drop: init leaves max_drop commented out
      "pass",
      "pass",
      "off",
      "off",
      "pass",
      "pass",
      "pass",
      // Patch coverage: no [coverage] min_patch_proven in the template, only commented.
      "off",
      "pass",
      "off",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
    ],
    collected: 3,
  },
];

// Plain `init`: it appends the run's files to .gitignore by default, so the second run below finds no
// untracked file it did not expect.
function initIn(dir: string, flags: string[] = []): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PROOFGATE, "init", ...flags], {
    cwd: dir,
    encoding: "utf8",
    env: cleanEnv(USER_ENV),
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function explain(r: CheckRun): string {
  return `exit ${r.status}\n${r.stdout}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-4000)}`;
}

describe("proofgate init, then check --run twice, unedited", () => {
  it.each(cases)("$name", async (c) => {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-init-e2e-"));
    made.push(dir);
    git(dir, ["init", "-q", "-b", "main", "."]);
    applyFiles(dir, c.files);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "-m", "The project before proofgate"]);

    const init = initIn(dir);
    expect(init.status, `${init.stdout}\n${init.stderr}`).toBe(0);
    for (const line of c.says) expect(init.stdout).toContain(line);
    expect(init.stdout).toContain(
      "  python: `python` (Python 3.11.2, pytest 7.2.1, pytest-cov 4.0.0, coverage 6.5.0): `coverage json` writes the JSON report (pytest-cov before 4.1 has none)\n",
    );
    expect(init.stdout).not.toContain("warning:");
    // The floor is the project's own: the proof run init ran once, rounded down (the check below at the
    // base runs the same suite on the same code).
    const measured = /\n {2}floor: min_proven = (\d+): the proof run, run once by init, covered (\d+\.\d\d)%\n/.exec(
      init.stdout,
    );
    expect(measured, init.stdout).not.toBeNull();
    expect(Number(measured![1])).toBe(Math.floor(Number(measured![2])));
    const toml = readFileSync(join(dir, "proofgate.toml"), "utf8");
    expect(toml).toContain(`\nmin_proven = ${measured![1]}.0\n`);
    expect(toml).toContain(`\ncollect = ${JSON.stringify(c.commands.collect)}\n`);
    expect(toml).toContain(`\nproof = ${JSON.stringify(c.commands.proof)}\n`);
    if (c.commands.properties) expect(toml).toContain(`\nproperties = ${JSON.stringify(c.commands.properties)}\n`);
    else expect(toml).toMatch(/^# properties = /m);
    expect(toml).toContain('\njunit = ["results.xml"]\n');
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toContain(
      "# proofgate check --run writes these\ncollected.txt\nproven_coverage.json\nresults.xml\n",
    );

    // The adoption commit: a human's, with the trailer a protected path needs.
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "-m", "Adopt proofgate\n\nGate-Change: human\n"], HUMAN);
    const base = git(dir, ["rev-parse", "HEAD"]).trim();
    // A clean human patch on top.
    applyFiles(dir, c.patch);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "-m", "A small feature"], HUMAN);
    const head = git(dir, ["rev-parse", "HEAD"]).trim();

    for (const run of [1, 2]) {
      const r = await check(dir, ["--run", "--base", base], USER_ENV);
      expect(r.status, `run ${run}: ${explain(r)}`).toBe(0);
      expect(r.report).toMatchObject({ decision: "MERGE", reasons: [], base, head, collected_tests: c.collected });
      expect(r.report.errors).toEqual([]);
      expect(r.report.signals.map((s) => s.result)).toEqual(c.rows);
      expect(r.report.accounting).toMatchObject({ collected: c.collected, proven: c.collected, failed: 0, missing: 0 });
      // The head's steps (the base's, in its worktree, are listed too: `base collect`, ...), in the order they
      // ended: init turns on collect_beside_proof, so the collection and the proof run end in either order.
      const headSteps = r.report.commands?.filter((x) => !x.step.startsWith("base "));
      expect(r.report.commands?.map((x) => `${x.step}:${x.exit_code}`)).toContain("base collect:0");
      expect(headSteps?.map((x) => `${x.step}:${x.exit_code}`).sort()).toEqual([
        "collect:0",
        "proof:0",
        ...(c.commands.properties ? ["properties:0"] : []),
      ]);
      // Proven coverage is coverage.py's own total of the proof run.
      const totals = (
        JSON.parse(readFileSync(join(dir, "proven_coverage.json"), "utf8")) as { totals: { percent_covered: number } }
      ).totals;
      expect(r.report.proven_coverage_percent).toBe(totals.percent_covered);
      expect(r.report.min_proven_coverage_percent).toBe(Number(measured![1]));
      // Everything the run left is ignored (Python's caches among it): the next run finds the work tree clean.
      expect(git(dir, ["status", "--porcelain", "--untracked-files=all"]), `run ${run}`).toBe("");
      expect(git(dir, ["status", "--porcelain", "--ignored"])).toMatch(/^!! (.*\/)?__pycache__\/$/m);
      expect(git(dir, ["status", "--porcelain", "--ignored"])).toMatch(/^!! \.coverage$/m);
    }
  });
});

describe("proofgate init and .gitignore", () => {
  it("--no-gitignore only lists the run's files; --gitignore (kept for old scripts) appends them, as plain init does", () => {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-init-e2e-"));
    made.push(dir);
    git(dir, ["init", "-q", "-b", "main", "."]);
    applyFiles(dir, cases[0]?.files ?? {});
    const listed = initIn(dir, ["--no-gitignore"]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("`check --run` writes files git does not ignore yet");
    expect(listed.stdout).toContain("  collected.txt\n");
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
    const added = initIn(dir, ["--gitignore"]);
    expect(added.status, added.stderr).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toContain(
      "# proofgate check --run writes these\ncollected.txt\n",
    );
  });
});

describe("proofgate init runs the collect command it wrote once, and says what fails", () => {
  function project(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-init-e2e-"));
    made.push(dir);
    git(dir, ["init", "-q", "-b", "main", "."]);
    applyFiles(dir, {
      "calc/__init__.py": "",
      "calc/core.py": CORE,
      "tests/test_core.py": "from calc.core import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
      ...files,
    });
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "-m", "The project before proofgate"]);
    return dir;
  }

  it("pytest settings that turn warnings into errors, and a coverage.py setting coverage 6.5 does not know: exit 2 naming both", () => {
    const dir = project({
      "pyproject.toml": `[project]
name = "calc"
version = "0.1.0"

[tool.pytest.ini_options]
filterwarnings = ["error"]

[tool.coverage.report]
exclude_also = ["if TYPE_CHECKING:"]
`,
    });
    const init = initIn(dir);
    expect(init.status, `${init.stdout}\n${init.stderr}`).toBe(2);
    // The files are written, and the try left nothing behind.
    expect(readFileSync(join(dir, "proofgate.toml"), "utf8")).toContain("--cov=calc");
    expect(init.stdout).toContain(
      "ran [commands] collect once with the proof run's coverage flags: it exited with 1 (below)",
    );
    expect(init.stderr).toContain(
      "proofgate: error: pyproject.toml:9: [tool.coverage.report] exclude_also is a setting coverage.py 6.5.0 (the one `python` runs) does not know",
    );
    expect(init.stderr).toMatch(
      /proofgate: error: proofgate\.toml: \[commands\] collect \(`python -m pytest --collect-only -q tests > collected\.txt`\), run once by init with the proof run's coverage flags \(PYTEST_ADDOPTS=--cov=calc --cov-branch --cov-report=\), exited with 1; its output ended: .*CoverageWarning: Unrecognized option '\[tool\.coverage\.report\] exclude_also=' in config file pyproject\.toml/,
    );
    expect(init.stderr).not.toContain("    at ");
    expect(git(dir, ["status", "--porcelain", "--untracked-files=all"]).split("\n")).not.toContain("?? collected.txt");
  });

  it("coverage.py's source lists the tests: they are not measured as source, init says so, and the collect works", () => {
    const dir = project({ ".coveragerc": "[run]\nsource =\n    calc\n    tests\n" });
    const init = initIn(dir);
    expect(init.status, `${init.stdout}\n${init.stderr}`).toBe(0);
    const toml = readFileSync(join(dir, "proofgate.toml"), "utf8");
    expect(toml).toMatch(/\nproof = ".* --cov=calc --cov-branch /);
    expect(toml).not.toContain("--cov=tests");
    expect(init.stdout).toContain(
      "warning: coverage.py's source in .coveragerc [run] lists tests: test code is not source",
    );
    expect(init.stdout).toContain("ran [commands] collect once with the proof run's coverage flags: it works");
  });
});

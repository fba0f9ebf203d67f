// Proven coverage two ways, against the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of
// /usr/bin/python3: (a) the rerun without the frozen test (deselect --format plugin), (b) one
// `--cov-context=test` run minus the frozen test's contexts (`proofgate coverage --contexts`), which must
// equal coverage.py's own `coverage json --contexts=<regex>` to the last digit. On a clean suite (a)
// equals (b); with state that leaks from the frozen test into a later one, they differ.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeProject, proofgate, pytest, python, writeText, type Run } from "./helpers.js";

const FROZEN = "tests/test_calc.py::test_frozen";

const FREEZE = `version = 1
max_active_leases = 3

[[leases]]
nodeid = "${FROZEN}"
owner = "e2e"
reason = "flaky on CI"
expires = "2099-12-31"
`;

/** A suite where the frozen test alone reaches `return x * 2` and the `x > 0` branch into it. */
const CLEAN = {
  "pkg/__init__.py": '"""The package."""\n',
  "pkg/calc.py": `"""Arithmetic, some of it reached only by the frozen test."""


def double_or_negate(x):
    """Docstrings are not statements."""
    if x > 0:
        return x * 2  # only the frozen test
    return -x


def add(a,
        b):
    total = (a +
             b)
    return total


def classify(n):
    kind = "even" if n % 2 == 0 else "odd"
    for _ in range(2):
        if n < 0:
            return "negative " + kind
    return kind
`,
  "tests/test_calc.py": `from pkg.calc import add, classify, double_or_negate


def test_frozen():
    assert double_or_negate(3) == 6


def test_negate():
    assert double_or_negate(-2) == 2


def test_add():
    assert add(1, 2) == 3


def test_classify():
    assert classify(4) == "even"
    assert classify(-3) == "negative odd"
`,
};

/**
 * State that leaks between tests: the frozen test fills a module-level cache, and a later test takes
 * the cache-hit branch only because of that. Without the frozen test (the rerun), it takes the miss path.
 */
const LEAKY = {
  "pkg/__init__.py": "",
  "pkg/calc.py": `_CACHE = {}


def remember(key, value):
    _CACHE[key] = value


def lookup(key):
    if key in _CACHE:
        return _CACHE[key]  # a hit: only after the frozen test filled the cache
    value = len(key)
    _CACHE[key] = value
    return value
`,
  "tests/test_calc.py": `from pkg.calc import lookup, remember


def test_frozen():
    remember("k", 1)
    assert lookup("k") == 1


def test_lookup():
    assert lookup("k") in (1, len("k"))
`,
};

interface Totals {
  covered_lines: number;
  num_statements: number;
  num_branches: number;
  covered_branches: number;
  percent_covered: number;
}

interface Proven {
  proven_coverage_percent: number;
  num_statements: number;
  covered_lines: number;
  num_branches: number;
  covered_branches: number;
  line_rate: number;
  branch_rate: number;
  source: string;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function ok(r: Run, what: string): Run {
  expect(r.status, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

/** The numbers `proofgate coverage` prints, in coverage.py's terms. */
const asTotals = (p: Proven): Totals => ({
  covered_lines: p.covered_lines,
  num_statements: p.num_statements,
  num_branches: p.num_branches,
  covered_branches: p.covered_branches,
  percent_covered: p.proven_coverage_percent,
});
const pick = (t: Totals): Totals => ({
  covered_lines: t.covered_lines,
  num_statements: t.num_statements,
  num_branches: t.num_branches,
  covered_branches: t.covered_branches,
  percent_covered: t.percent_covered,
});

interface Measured {
  dir: string;
  /** (a) coverage.py's totals of the proof run, and proofgate's reading of that report. */
  rerun: Totals;
  rerunProofgate: Proven;
  /** (b) coverage.py's `coverage json --contexts=<regex>`, and proofgate's `coverage --contexts`. */
  single: Totals;
  singleProofgate: Proven;
}

/** Both ways on one project. */
function measure(files: Record<string, string>): Measured {
  const dir = makeProject({ ...files, "freeze.toml": FREEZE });
  dirs.push(dir);
  writeText(join(dir, "collected.txt"), ok(pytest(["--collect-only", "-q"], dir), "collect").stdout);

  // (a) The rerun: the proof run without the frozen test, through the exact plugin.
  ok(
    proofgate(
      [
        "deselect",
        "--freeze",
        "freeze.toml",
        "--collected",
        "collected.txt",
        "--format",
        "plugin",
        "--out",
        "plugin/proofgate_frozen.py",
      ],
      dir,
    ),
    "deselect plugin",
  );
  const proof = ok(
    pytest(["-p", "proofgate_frozen", "--cov=pkg", "--cov-branch", "-rA"], dir, { PYTHONPATH: join(dir, "plugin") }),
    "proof run",
  );
  expect(proof.stdout).toContain("1 deselected");
  ok(python(["-m", "coverage", "json", "-o", "proven_coverage.json"], dir), "coverage json (rerun)");
  const rerunProofgate = JSON.parse(
    ok(
      proofgate(["coverage", "--report", "proven_coverage.json", "--format", "json"], dir),
      "proofgate coverage --report",
    ).stdout,
  ) as Proven;
  rmSync(join(dir, ".coverage"));

  // (b) One full run with per-test contexts.
  ok(pytest(["--cov=pkg", "--cov-branch", "--cov-context=test"], dir), "single run");
  ok(python(["-m", "coverage", "json", "-o", "full.json"], dir), "coverage json (full)");
  const regex = ok(
    proofgate(
      ["deselect", "--freeze", "freeze.toml", "--collected", "collected.txt", "--format", "contexts-regex"],
      dir,
    ),
    "contexts-regex",
  ).stdout.trim();
  ok(python(["-m", "coverage", "json", `--contexts=${regex}`, "-o", "ctx.json"], dir), "coverage json --contexts");
  const single = ok(
    proofgate(
      [
        "coverage",
        "--freeze",
        "freeze.toml",
        "--collected",
        "collected.txt",
        "--contexts",
        ".coverage",
        "--report",
        "full.json",
        "--format",
        "json",
      ],
      dir,
    ),
    "proofgate coverage --contexts",
  );
  expect(single.stderr).toBe("");
  return {
    dir,
    rerun: pick(readJson<{ totals: Totals }>(join(dir, "proven_coverage.json")).totals),
    rerunProofgate,
    single: pick(readJson<{ totals: Totals }>(join(dir, "ctx.json")).totals),
    singleProofgate: JSON.parse(single.stdout) as Proven,
  };
}

describe("proven coverage on a clean suite", () => {
  let m: Measured;
  it("(a) rerun: proofgate coverage --report prints coverage.py's totals of the proof run", () => {
    m = measure(CLEAN);
    expect(m.rerunProofgate.source).toBe("report");
    expect(asTotals(m.rerunProofgate)).toEqual(m.rerun);
    // The frozen test's line and branch are missing from the proof run.
    const file = readJson<{ files: Record<string, { missing_lines: number[]; missing_branches: number[][] }> }>(
      join(m.dir, "proven_coverage.json"),
    ).files["pkg/calc.py"]!;
    expect(file.missing_lines).toEqual([7]);
    expect(file.missing_branches).toEqual([[6, 7]]);
  });

  it("(b) single run: proofgate coverage --contexts equals coverage json --contexts to the last digit", () => {
    expect(m.singleProofgate.source).toBe("contexts");
    expect(asTotals(m.singleProofgate)).toEqual(m.single);
    expect(m.singleProofgate.line_rate).toBe(m.single.covered_lines / m.single.num_statements);
    expect(m.singleProofgate.branch_rate).toBe(m.single.covered_branches / m.single.num_branches);
    // And the full run had more: the frozen test's contexts were really dropped.
    const full = readJson<{ totals: Totals }>(join(m.dir, "full.json")).totals;
    expect(full.covered_lines).toBe(m.single.covered_lines + 1);
    expect(full.covered_branches).toBe(m.single.covered_branches + 1);
  });

  it("(a) equals (b)", () => {
    expect(m.single).toEqual(m.rerun);
    expect(asTotals(m.singleProofgate)).toEqual(asTotals(m.rerunProofgate));
  });
});

describe("proven coverage when the frozen test leaks state into a later test", () => {
  it("single run credits what the later test did with the frozen test's cache (the hit), not what it does in the merge's run (the miss)", () => {
    const m = measure(LEAKY);
    // Each way still agrees with coverage.py.
    expect(asTotals(m.rerunProofgate)).toEqual(m.rerun);
    expect(asTotals(m.singleProofgate)).toEqual(m.single);
    // Same universe, different answers: here single run is lower (the miss path is three lines, the hit one).
    expect(m.single.num_statements).toBe(m.rerun.num_statements);
    expect(m.single.num_branches).toBe(m.rerun.num_branches);
    expect(m.single.covered_lines).toBe(m.rerun.covered_lines - 2);
    expect(m.single.percent_covered).toBeLessThan(m.rerun.percent_covered);
    const files = (name: string) =>
      readJson<{ files: Record<string, { missing_lines: number[] }> }>(join(m.dir, name)).files["pkg/calc.py"]!
        .missing_lines;
    // Single run: `remember`'s body (only the frozen test calls it) and the miss path, which test_lookup
    // never took because the cache was already full. Rerun: the hit line, never reached without the frozen test.
    expect(files("ctx.json")).toEqual([5, 11, 12, 13]);
    expect(files("proven_coverage.json")).toEqual([5, 10]);
  });
});

describe("proofgate coverage --contexts: bad data files", () => {
  let dir = "";
  const run = (args: string[]): Run =>
    proofgate(["coverage", "--freeze", "freeze.toml", "--report", "full.json", ...args], dir);
  const oneError = (r: Run, file: string): string => {
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^proofgate: error: ${file.replace(/\./g, "\\.")}: .+ Fix: .+`));
    return lines[0]!;
  };

  it("refuses a file that is not SQLite", () => {
    dir = makeProject({
      ...CLEAN,
      "freeze.toml": FREEZE,
      "not-sqlite.coverage": "!coverage.py: This is a private format, don't read it directly!{}",
    });
    dirs.push(dir);
    ok(pytest(["--cov=pkg", "--cov-branch", "--cov-context=test"], dir), "single run");
    ok(python(["-m", "coverage", "json", "-o", "full.json"], dir), "coverage json");
    expect(oneError(run(["--contexts", "not-sqlite.coverage"]), "not-sqlite.coverage")).toContain("not SQLite");
  });

  it("refuses SQLite that is not coverage.py's schema", () => {
    ok(
      python(
        [
          "-c",
          "import sqlite3; c = sqlite3.connect('other.db'); c.execute('create table meta (key text, value text)'); c.commit()",
        ],
        dir,
      ),
      "make other.db",
    );
    expect(oneError(run(["--contexts", "other.db"]), "other.db")).toContain(
      "no table `file`, `context`, `line_bits`, `arc`",
    );
  });

  it("refuses a data file without test contexts (a run without --cov-context=test)", () => {
    ok(pytest(["--cov=pkg", "--cov-branch"], dir, { COVERAGE_FILE: "plain.coverage" }), "plain run");
    expect(oneError(run(["--contexts", "plain.coverage"]), "plain.coverage")).toContain("--cov-context=test");
  });

  it("refuses a JSON report that does not come from the data file", () => {
    writeText(join(dir, "pkg/extra.py"), "X = 1\n");
    ok(python(["-m", "coverage", "json", "-o", "other.json"], dir), "coverage json");
    ok(pytest(["--cov=pkg", "--cov-branch", "--cov-context=test"], dir), "single run with pkg/extra.py");
    const line = oneError(
      proofgate(["coverage", "--freeze", "freeze.toml", "--contexts", ".coverage", "--report", "other.json"], dir),
      "other.json",
    );
    expect(line).toContain("pkg/extra.py");
  });

  it("refuses a data file that does not exist", () => {
    const r = run(["--contexts", "nope.coverage"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^proofgate: error: nope\.coverage: .*does not exist/);
  });
});

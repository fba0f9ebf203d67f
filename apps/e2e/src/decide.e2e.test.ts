// proofgate decide on the proof run's own evidence, against the real pytest 7.2, pytest-cov 4.0 and
// coverage.py 6.5 of /usr/bin/python3: the rerun without the frozen test (deselect --format plugin),
// its coverage.py JSON report and its JUnit XML (--report, --results); the same run without the plugin
// (frozen_in_proof_run); a run with a failing test (tests_failed); and the suite split into two shards
// (one LCOV report and one JUnit file each) merged by --report/--results with --shards 2.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, proofgate, pytest, python, writeText, type Run } from "./helpers.js";

const FROZEN = "tests/test_a.py::test_frozen";

const FREEZE = `version = 1
max_active_leases = 2

[[leases]]
nodeid = "${FROZEN}"
owner = "e2e"
reason = "flaky on CI"
expires = "2099-12-31"
`;

const CALC = `"""Prices and labels; one label and its branch are reached only by the frozen test."""


def total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result


def label(n):
    if n > 1000:
        return "big"  # only the frozen test
    return "small"


def describe(items):
    if not items:
        return "empty"
    return f"{len(items)} items"
`;

const FILES = {
  "pkg/__init__.py": '"""The package."""\n',
  "pkg/calc.py": CALC,
  "tests/test_a.py": `from pkg.calc import label, total


def test_frozen():
    assert label(5000) == "big"


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert total([100], discount=10) == 90
`,
  "tests/test_b.py": `from pkg.calc import describe, label


def test_small():
    assert label(3) == "small"


def test_describe():
    assert describe([]) == "empty"
    assert describe([1, 2]) == "2 items"
`,
  "freeze.toml": FREEZE,
};

interface Totals {
  covered_lines: number;
  num_statements: number;
  num_branches: number;
  covered_branches: number;
  percent_covered: number;
}

interface Report {
  decision: string;
  reasons: string[];
  collected_tests: number;
  proven_coverage_percent: number;
  coverage: {
    source: string;
    files: string[];
    format: string;
    shards_expected: number | null;
    num_statements: number;
    covered_lines: number;
    num_branches: number;
    covered_branches: number;
    proven_coverage_percent: number;
  };
  accounting: {
    result_files: string[];
    collected: number;
    proven: number;
    frozen: number;
    skipped: number;
    failed: number;
    missing: number;
  } | null;
  details: { reason: string; message: string; file: string | null; line: number | null }[];
  inputs: { role: string; path: string }[];
}

let dir: string;
const plugin = (): Record<string, string> => ({ PYTHONPATH: join(dir, "plugin") });
const PROOF_FLAGS = ["--cov=pkg", "--cov-branch", "-o", "junit_family=xunit2"];

function ok(r: Run, what: string): Run {
  expect(r.status, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

const totals = (file: string): Totals => {
  const t = (JSON.parse(readFileSync(join(dir, file), "utf8")) as { totals: Totals }).totals;
  return {
    covered_lines: t.covered_lines,
    num_statements: t.num_statements,
    num_branches: t.num_branches,
    covered_branches: t.covered_branches,
    percent_covered: t.percent_covered,
  };
};
const asTotals = (r: Report): Totals => ({
  covered_lines: r.coverage.covered_lines,
  num_statements: r.coverage.num_statements,
  num_branches: r.coverage.num_branches,
  covered_branches: r.coverage.covered_branches,
  percent_covered: r.coverage.proven_coverage_percent,
});

/** `proofgate decide` with the ledger and universe; exit code and the parsed report. */
function decide(flags: string[]): { status: number; report: Report; stderr: string } {
  const r = proofgate(["decide", "--freeze", "freeze.toml", "--collected", "collected.txt", ...flags], dir);
  expect(r.stdout, r.stderr).toMatch(/^\{/);
  return { status: r.status, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

beforeAll(() => {
  dir = makeProject(FILES);
  writeText(join(dir, "collected.txt"), ok(pytest(["--collect-only", "-q"], dir), "collect").stdout);
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
    "deselect --format plugin",
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("decide on a rerun proof run's report and results", () => {
  it("the proof run with the plugin: MERGE, proven = collected - frozen, coverage.py's totals", () => {
    const proof = ok(
      pytest(["-p", "proofgate_frozen", ...PROOF_FLAGS, "--junitxml=results.xml"], dir, plugin()),
      "proof run",
    );
    expect(proof.stdout).toMatch(/4 passed, 1 deselected/);
    ok(python(["-m", "coverage", "json", "-o", "proven.json"], dir), "coverage json");

    const r = decide(["--report", "proven.json", "--results", "results.xml"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(r.report.reasons).toEqual([]);
    expect(r.report.collected_tests).toBe(5);
    expect(r.report.accounting).toMatchObject({
      result_files: ["results.xml"],
      collected: 5,
      proven: 4,
      frozen: 1,
      skipped: 0,
      failed: 0,
      missing: 0,
    });
    expect(r.report.accounting!.proven).toBe(r.report.accounting!.collected - r.report.accounting!.frozen);
    expect(r.report.coverage).toMatchObject({ source: "report", format: "coveragepy-json", files: ["proven.json"] });
    expect(asTotals(r.report)).toEqual(totals("proven.json"));
    expect(r.report.inputs.map((i) => `${i.role}:${i.path}`)).toEqual([
      "ledger:freeze.toml",
      "universe:collected.txt",
      "coverage:proven.json",
      "results:results.xml",
    ]);
    // The frozen test's line and branch are missing from the proof.
    expect(r.report.coverage.covered_lines).toBeLessThan(r.report.coverage.num_statements);
    expect(r.report.coverage.covered_branches).toBeLessThan(r.report.coverage.num_branches);
  });

  it("the same run without the plugin: frozen_in_proof_run, and a higher (raw) coverage", () => {
    ok(pytest([...PROOF_FLAGS, "--junitxml=raw.xml"], dir), "raw run");
    ok(python(["-m", "coverage", "json", "-o", "raw.json"], dir), "coverage json (raw)");
    const raw = decide(["--report", "raw.json", "--results", "raw.xml"]);
    expect(raw.status).toBe(1);
    expect(raw.report.decision).toBe("REJECT");
    expect(raw.report.reasons).toEqual(["frozen_in_proof_run"]);
    expect(raw.report.details).toEqual([expect.objectContaining({ reason: "frozen_in_proof_run", file: "raw.xml" })]);
    expect(raw.report.details[0]!.message).toContain(`${FROZEN} ran in the proof run (passed)`);
    expect(raw.stderr).toMatch(/^proofgate: frozen_in_proof_run: raw\.xml:\d+: /m);
    // The frozen test's line and branch count in the raw run: more than the proof.
    const proven = totals("proven.json");
    expect(asTotals(raw.report)).toEqual(totals("raw.json"));
    expect(raw.report.coverage.proven_coverage_percent).toBeGreaterThan(proven.percent_covered);
    expect(raw.report.coverage.covered_lines).toBeGreaterThan(proven.covered_lines);
    expect(raw.report.coverage.covered_branches).toBeGreaterThan(proven.covered_branches);
    expect(raw.report.accounting).toMatchObject({ proven: 4, frozen: 1 });
  });

  it("a patch that breaks a test: tests_failed, naming the test, the result file and line", () => {
    writeText(join(dir, "pkg/calc.py"), CALC.replace("(100 - discount) / 100", "(100 - discount) / 10"));
    try {
      const broken = pytest(["-p", "proofgate_frozen", ...PROOF_FLAGS, "--junitxml=failed.xml"], dir, plugin());
      expect(broken.status, broken.stdout).toBe(1);
      ok(python(["-m", "coverage", "json", "-o", "failed.json"], dir), "coverage json (failed)");
    } finally {
      writeText(join(dir, "pkg/calc.py"), CALC);
    }
    const r = decide(["--report", "failed.json", "--results", "failed.xml"]);
    expect(r.status).toBe(1);
    expect(r.report.reasons).toEqual(["tests_failed"]);
    expect(r.report.details).toEqual([
      expect.objectContaining({ reason: "tests_failed", file: "failed.xml", line: expect.any(Number) as number }),
    ]);
    expect(r.report.details[0]!.message).toMatch(
      /^tests\/test_a\.py::test_discount failed in the proof run: assert 900\.0 == 90/,
    );
    expect(r.report.accounting).toMatchObject({ collected: 5, proven: 3, frozen: 1, failed: 1, missing: 0 });
    expect(r.stderr).toMatch(/^proofgate: tests_failed: failed\.xml:\d+: tests\/test_a\.py::test_discount failed/m);
  });
});

describe("decide on a proof run split into two shards", () => {
  it("two LCOV reports and two JUnit files, --shards 2: MERGE with the single proof run's numbers", () => {
    // The exact plugin stops a run that does not collect every leased id, so a shard that collects only
    // tests/test_b.py cannot load it; the shards use the script's --deselect lines instead (no other id
    // starts with the frozen one, so the prefix match drops only it).
    const deselect = ok(
      proofgate(["deselect", "--freeze", "freeze.toml", "--collected", "collected.txt"], dir),
      "deselect (args)",
    )
      .stdout.split("\n")
      .filter((l) => l !== "");
    expect(deselect).toEqual([`--deselect=${FROZEN}`]);
    for (const [shard, path] of [
      ["s1", "tests/test_a.py"],
      ["s2", "tests/test_b.py"],
    ] as const) {
      const env = { COVERAGE_FILE: join(dir, `.coverage.${shard}`) };
      ok(pytest([...deselect, ...PROOF_FLAGS, `--junitxml=r${shard.slice(1)}.xml`, path], dir, env), `shard ${shard}`);
      ok(python(["-m", "coverage", "lcov", "-o", `${shard}.info`], dir, env), `coverage lcov ${shard}`);
    }
    // coverage.py's own view of the two shards together.
    const combined = { COVERAGE_FILE: join(dir, ".coverage.combined") };
    ok(
      python(["-m", "coverage", "combine", "--keep", ".coverage.s1", ".coverage.s2"], dir, combined),
      "coverage combine",
    );
    ok(python(["-m", "coverage", "json", "-o", "combined.json"], dir, combined), "coverage json (combined)");

    const r = decide([
      "--report",
      "s1.info",
      "--report",
      "s2.info",
      "--shards",
      "2",
      "--results",
      "r1.xml",
      "--results",
      "r2.xml",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(r.report.coverage).toMatchObject({
      source: "shards",
      format: "lcov",
      files: ["s1.info", "s2.info"],
      shards_expected: 2,
    });
    expect(r.report.accounting).toMatchObject({
      result_files: ["r1.xml", "r2.xml"],
      collected: 5,
      proven: 4,
      frozen: 1,
      missing: 0,
    });
    // coverage.py 6.5's LCOV LF/LH disagree with its DA lines (docstrings as executed); proofgate's merged
    // numbers must still equal coverage.py's JSON totals of the single full proof run, and of the shards combined.
    expect(asTotals(r.report)).toEqual(totals("proven.json"));
    expect(asTotals(r.report)).toEqual(totals("combined.json"));
    expect(r.stderr).toMatch(/^proofgate: warning: s1\.info: `LF`\/`LH` disagree with the `DA` lines/m);
    expect(r.report.inputs.filter((i) => i.role === "coverage").map((i) => i.path)).toEqual(["s1.info", "s2.info"]);
    expect(r.report.inputs.filter((i) => i.role === "results").map((i) => i.path)).toEqual(["r1.xml", "r2.xml"]);

    // `proofgate coverage` merges the same way.
    const cov = ok(
      proofgate(["coverage", "--report", "s1.info", "--report", "s2.info", "--shards", "2", "--format", "json"], dir),
      "proofgate coverage",
    );
    const c = JSON.parse(cov.stdout) as {
      proven_coverage_percent: number;
      num_statements: number;
      covered_lines: number;
      num_branches: number;
      covered_branches: number;
      shards_missing: number;
    };
    expect(c).toMatchObject({
      num_statements: r.report.coverage.num_statements,
      covered_lines: r.report.coverage.covered_lines,
      num_branches: r.report.coverage.num_branches,
      covered_branches: r.report.coverage.covered_branches,
      shards_missing: 0,
    });
  });

  it("one shard's files only: shard_missing and missing_evidence", () => {
    const r = decide(["--report", "s1.info", "--shards", "2", "--results", "r1.xml"]);
    expect(r.status).toBe(1);
    expect(r.report.reasons).toEqual(expect.arrayContaining(["shard_missing", "missing_evidence"]));
    expect(r.report.accounting).toMatchObject({ proven: 2, frozen: 1, missing: 2 });
  });
});

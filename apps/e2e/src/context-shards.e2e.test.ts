// The single run in CI shards: one `pytest --cov-context=test` run split across two jobs (one test file
// each), each writing its own `.coverage` (COVERAGE_FILE) and its own `coverage json`. proofgate on the
// shard list must equal proofgate on the file `coverage combine` makes of them, and both must equal
// coverage.py's own `coverage json --contexts=<regex>` of the combined file to the last digit. With one
// shard's files only and two shards expected, the answer is shard_missing. Real pytest 7.2, pytest-cov 4.0
// and coverage.py 6.5 of /usr/bin/python3.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, proofgate, pytest, python, writeText, type Run } from "./helpers.js";

const FROZEN = "tests/test_b.py::test_frozen";

const FILES = {
  "freeze.toml": `version = 1
max_active_leases = 3

[[leases]]
nodeid = "${FROZEN}"
owner = "e2e"
reason = "flaky on CI"
expires = "2099-12-31"
`,
  "pkg/__init__.py": '"""The package."""\n',
  // sign(): each shard reaches one of its branches, neither the last; the frozen test alone reaches
  // `return x * 2` and the `x > 0` branch into it.
  "pkg/calc.py": `"""Arithmetic, reached by two shards."""


def sign(x):
    """Docstrings are not statements."""
    if x > 0:
        return "positive"
    if x < 0:
        return "negative"
    return "zero"


def double_or_negate(x):
    if x > 0:
        return x * 2  # only the frozen test
    return -x


def add(a,
        b):
    total = (a +
             b)
    return total
`,
  "pkg/only_b.py": `def shout(text):
    return text.upper() + "!"
`,
  "tests/test_a.py": `from pkg.calc import add, sign


def test_positive():
    assert sign(1) == "positive"


def test_add():
    assert add(1, 2) == 3
`,
  "tests/test_b.py": `from pkg.calc import double_or_negate, sign
from pkg.only_b import shout


def test_frozen():
    assert double_or_negate(3) == 6


def test_negative():
    assert sign(-1) == "negative"


def test_negate():
    assert double_or_negate(-2) == 2
    assert shout("a") == "A!"
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
  source: string;
  files: string[];
  shards_expected: number | null;
  shards_missing: number;
}

interface Report {
  decision: string;
  reasons: string[];
  coverage: {
    source: string;
    files: string[];
    shards_expected: number | null;
    proven_coverage_percent: number;
    num_statements: number;
    covered_lines: number;
    num_branches: number;
    covered_branches: number;
    raw: Totals | null;
    hidden_debt_points: number | null;
    frozen_only: unknown;
  };
  details: { reason: string; message: string }[];
  inputs: { role: string; path: string }[];
}

let dir = "";
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

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
const fromProven = (p: Proven): Totals => ({
  covered_lines: p.covered_lines,
  num_statements: p.num_statements,
  num_branches: p.num_branches,
  covered_branches: p.covered_branches,
  percent_covered: p.proven_coverage_percent,
});
const fromReport = (r: Report): Totals => ({
  covered_lines: r.coverage.covered_lines,
  num_statements: r.coverage.num_statements,
  num_branches: r.coverage.num_branches,
  covered_branches: r.coverage.covered_branches,
  percent_covered: r.coverage.proven_coverage_percent,
});

const SHARDS = ["--contexts", "cov-1.coverage", "--report", "cov-1.json", "--contexts", "cov-2.coverage"];
const BOTH = [...SHARDS, "--report", "cov-2.json"];
const COMBINED = ["--contexts", "combined.coverage", "--report", "combined.json"];

function coverage(flags: string[]): Proven {
  const r = ok(
    proofgate(
      ["coverage", "--freeze", "freeze.toml", "--collected", "collected.txt", "--format", "json", ...flags],
      dir,
    ),
    `proofgate coverage ${flags.join(" ")}`,
  );
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Proven;
}

function decide(flags: string[]): { status: number; report: Report; stderr: string } {
  const r = proofgate(["decide", "--freeze", "freeze.toml", "--collected", "collected.txt", ...flags], dir);
  expect(r.stdout, r.stderr).toMatch(/^\{/);
  return { status: r.status, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

beforeAll(() => {
  dir = makeProject(FILES);
  writeText(join(dir, "collected.txt"), ok(pytest(["--collect-only", "-q"], dir), "collect").stdout);
  // Two CI jobs, one test file each, each with its own data file and its own `coverage json`.
  for (const [n, tests] of [
    ["1", "tests/test_a.py"],
    ["2", "tests/test_b.py"],
  ] as const) {
    const env = { COVERAGE_FILE: join(dir, `cov-${n}.coverage`) };
    ok(pytest(["--cov=pkg", "--cov-branch", "--cov-context=test", "--cov-report=", tests], dir, env), `shard ${n}`);
    ok(python(["-m", "coverage", "json", "-o", `cov-${n}.json`], dir, env), `coverage json (shard ${n})`);
  }
  // coverage.py's own combination of the two, its report, and its proven figure (the frozen contexts left out).
  const combined = { COVERAGE_FILE: join(dir, "combined.coverage") };
  ok(
    python(["-m", "coverage", "combine", "--keep", "cov-1.coverage", "cov-2.coverage"], dir, combined),
    "coverage combine",
  );
  ok(python(["-m", "coverage", "json", "-o", "combined.json"], dir, combined), "coverage json (combined)");
  const regex = ok(
    proofgate(
      ["deselect", "--freeze", "freeze.toml", "--collected", "collected.txt", "--format", "contexts-regex"],
      dir,
    ),
    "contexts-regex",
  ).stdout.trim();
  ok(
    python(["-m", "coverage", "json", `--contexts=${regex}`, "-o", "ctx.json"], dir, combined),
    "coverage json --contexts",
  );
});

describe("proven coverage from a single run in two shards", () => {
  it("the shards are not each other's: each misses what the other ran", () => {
    const shard1 = totals("cov-1.json");
    const shard2 = totals("cov-2.json");
    const all = totals("combined.json");
    expect(shard1.covered_lines).toBeLessThan(all.covered_lines);
    expect(shard2.covered_lines).toBeLessThan(all.covered_lines);
    // pkg/only_b.py is run by shard 2 alone (shard 1 lists it, unexecuted: --cov=pkg names the package).
    const onlyB = (f: string) =>
      (JSON.parse(readFileSync(join(dir, f), "utf8")) as { files: Record<string, { executed_lines: number[] }> }).files[
        "pkg/only_b.py"
      ]!.executed_lines;
    expect(onlyB("cov-1.json")).toEqual([]);
    expect(onlyB("cov-2.json")).not.toEqual([]);
  });

  it("proofgate coverage on the shard list equals proofgate on the combined file and coverage json --contexts", () => {
    const oracle = totals("ctx.json");
    const sharded = coverage([...BOTH, "--shards", "2"]);
    const combined = coverage(COMBINED);
    expect(fromProven(sharded)).toEqual(oracle);
    expect(fromProven(combined)).toEqual(oracle);
    expect(sharded).toMatchObject({
      source: "contexts",
      files: ["cov-1.coverage", "cov-2.coverage", "cov-1.json", "cov-2.json"],
      shards_expected: 2,
      shards_missing: 0,
    });
    // The frozen test's contexts were really dropped: the combined run covered more.
    const all = totals("combined.json");
    expect(all.covered_lines).toBe(oracle.covered_lines + 1);
    expect(all.covered_branches).toBe(oracle.covered_branches + 1);
  });

  it("decide --contexts (repeated) gives the same proven, raw and frozen-only figures as the combined file", () => {
    const sharded = decide([...BOTH, "--shards", "2", "--min-proven", "50"]);
    const combined = decide([...COMBINED, "--min-proven", "50"]);
    expect(sharded.status, sharded.stderr).toBe(0);
    expect(sharded.report.decision).toBe("MERGE");
    expect(fromReport(sharded.report)).toEqual(totals("ctx.json"));
    expect(fromReport(combined.report)).toEqual(fromReport(sharded.report));
    // Raw: every context kept, as `coverage json` of the combined file counts them.
    expect(sharded.report.coverage.raw).toEqual(combined.report.coverage.raw);
    expect(sharded.report.coverage.raw).toMatchObject({
      num_statements: totals("combined.json").num_statements,
      covered_lines: totals("combined.json").covered_lines,
      covered_branches: totals("combined.json").covered_branches,
    });
    expect(sharded.report.coverage.hidden_debt_points).toBe(combined.report.coverage.hidden_debt_points);
    expect(sharded.report.coverage.frozen_only).toEqual(combined.report.coverage.frozen_only);
    expect(JSON.stringify(sharded.report.coverage.frozen_only)).toContain(FROZEN);
    expect(sharded.report.inputs.filter((i) => i.role === "coverage").map((i) => i.path)).toEqual([
      "cov-1.coverage",
      "cov-2.coverage",
      "cov-1.json",
      "cov-2.json",
    ]);
  });

  it("one shard's files only, two shards expected: shard_missing (decide exits 1, coverage says so)", () => {
    const r = decide([...SHARDS.slice(0, 4), "--shards", "2", "--min-proven", "0"]);
    expect(r.status).toBe(1);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toContain("shard_missing");
    expect(r.report.details.find((d) => d.reason === "shard_missing")?.message).toBe(
      "1 of 2 coverage shards are missing: only cov-1.coverage",
    );
    const c = proofgate(
      ["coverage", "--freeze", "freeze.toml", "--format", "json", ...SHARDS.slice(0, 4), "--shards", "2"],
      dir,
    );
    expect(c.status).toBe(1);
    expect((JSON.parse(c.stdout) as Proven).shards_missing).toBe(1);
    expect(c.stderr).toMatch(/shard_missing: 1 of 2 coverage shards are missing/);
  });

  it("a data file without its report, or reports out of order, is exit 2 naming the files", () => {
    const missing = proofgate(["coverage", "--freeze", "freeze.toml", ...SHARDS], dir);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/2 data files \(contexts\) need 2 reports/);
    const swapped = proofgate(
      [
        "coverage",
        "--freeze",
        "freeze.toml",
        "--contexts",
        "cov-1.coverage",
        "--report",
        "cov-2.json",
        "--contexts",
        "cov-2.coverage",
        "--report",
        "cov-1.json",
      ],
      dir,
    );
    expect(swapped.status).toBe(2);
    expect(swapped.stderr).toMatch(
      /^proofgate: error: cov-2\.json: pkg\/\w+\.py: its executed lines differ from what cov-1\.coverage records/m,
    );
  });
});

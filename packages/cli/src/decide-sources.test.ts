import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, type CliIo } from "./main.js";

// `decide` and `coverage` with every coverage source (--report shards of any format, --shards,
// --coverage-format) and the proof run's JUnit results (--results), in-process with a fixed clock.
// The reports are real tool output (packages/core/src/coverage/__fixtures__/README.md), the results
// real pytest 7.2.1 xunit2 of the same `shop` project (src/__fixtures__/junit/README.md).

const NOW = new Date("2026-12-02T12:00:00Z");
const COVERAGE_FIXTURES = fileURLToPath(new URL("../../core/src/coverage/__fixtures__/", import.meta.url));
const JUNIT_FIXTURES = fileURLToPath(new URL("./__fixtures__/junit/", import.meta.url));

const FROZEN = "tests/test_cart.py::test_money";
const FREEZE = `version = 1
max_active_leases = 1

[[leases]]
nodeid = "${FROZEN}"
owner = "alice"
reason = "flaky formatting"
expires = "2099-01-31"
`;

/** coverage.py 6.5's own totals of the full `--cov-branch` run (coveragepy-6.5-branch.json). */
const FULL_RUN = {
  num_statements: 30,
  covered_lines: 22,
  num_branches: 10,
  covered_branches: 8,
  proven_coverage_percent: 75,
};

interface CoverageJson {
  source: string;
  files: string[];
  format: string;
  shards_expected: number | null;
  proven_coverage_percent: number;
  num_statements: number;
  covered_lines: number;
  num_branches: number;
  covered_branches: number;
  line_rate: number;
  branch_rate: number;
}

interface Report {
  decision: string;
  reasons: string[];
  proven_coverage_percent: number | null;
  coverage?: CoverageJson;
  accounting?: Record<string, unknown> | null;
  details?: { reason: string; message: string; file: string | null; line: number | null; fix: string }[];
  inputs: { role: string; path: string; sha256: string }[];
  errors: { code: string; message: string; file: string | null }[];
}

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "proofgate-decide-sources-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let serial = 0;
/** A fresh folder with the ledger (test_money frozen) and the universe; `file()` copies fixtures into it. */
function project(): {
  dir: string;
  base: string[];
  coverage: (name: string) => string;
  junit: (name: string) => string;
  write: (name: string, text: string) => string;
} {
  const dir = join(root, String(serial++));
  mkdirSync(dir);
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const copy = (from: string, name: string): string => {
    copyFileSync(join(from, name), join(dir, name));
    return join(dir, name);
  };
  const freeze = write("freeze.toml", FREEZE);
  const collected = copy(JUNIT_FIXTURES, "pytest-7.2.1-shop-collect-q.txt");
  return {
    dir,
    base: ["--freeze", freeze, "--collected", collected],
    coverage: (name) => copy(COVERAGE_FIXTURES, name),
    junit: (name) => copy(JUNIT_FIXTURES, `pytest-7.2.1-xunit2-shop-${name}.xml`),
    write,
  };
}

async function cli(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    now: () => NOW,
    cwd,
    env: process.env,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

async function decide(
  p: ReturnType<typeof project>,
  flags: string[],
): Promise<{ code: number; stderr: string; report: Report }> {
  const r = await cli(["decide", ...p.base, ...flags], p.dir);
  return { code: r.code, stderr: r.stderr, report: JSON.parse(r.stdout) as Report };
}

const numbers = (c: CoverageJson | undefined): Record<string, number> => ({
  num_statements: c!.num_statements,
  covered_lines: c!.covered_lines,
  num_branches: c!.num_branches,
  covered_branches: c!.covered_branches,
  proven_coverage_percent: c!.proven_coverage_percent,
});

const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("decide --report: LCOV shards", () => {
  it("two real LCOV shards with --shards 2 merge to the full run's numbers", async () => {
    const p = project();
    const s1 = p.coverage("lcov-coveragepy-6.5-shard1.info");
    const s2 = p.coverage("lcov-coveragepy-6.5-shard2.info");
    const merged = await decide(p, ["--report", s1, "--report", s2, "--shards", "2"]);
    expect(merged.code).toBe(0);
    expect(merged.report.decision).toBe("MERGE");
    expect(merged.report.coverage).toMatchObject({
      source: "shards",
      files: [s1, s2],
      format: "lcov",
      shards_expected: 2,
    });
    // coverage.py's own totals of the full run, and proofgate's reading of the full run's LCOV.
    expect(numbers(merged.report.coverage)).toEqual(FULL_RUN);
    const full = await decide(p, ["--report", p.coverage("lcov-coveragepy-6.5-branch.info")]);
    expect(numbers(merged.report.coverage)).toEqual(numbers(full.report.coverage));
    expect(merged.report.coverage!.line_rate).toBe(full.report.coverage!.line_rate);
    expect(merged.report.coverage!.branch_rate).toBe(full.report.coverage!.branch_rate);
    expect(merged.report.proven_coverage_percent).toBe(75);
    // One shard alone is not the full run.
    const one = await decide(p, ["--report", s1]);
    expect(one.report.coverage!.covered_lines).toBeLessThan(FULL_RUN.covered_lines);
    expect(one.report.reasons).toEqual(["proven_coverage"]);
  });

  it("--shards 3 with two reports is shard_missing, exit 1", async () => {
    const p = project();
    const r = await decide(p, [
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard1.info"),
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard2.info"),
      "--shards",
      "3",
    ]);
    expect(r.code).toBe(1);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toEqual(["shard_missing"]);
    expect(r.report.details![0]!.message).toMatch(/^1 of 3 coverage shards are missing/);
    expect(r.stderr).toMatch(/^proofgate: shard_missing: 1 of 3 coverage shards are missing/m);
    // The numbers of the shards that came are still reported.
    expect(numbers(r.report.coverage)).toEqual(FULL_RUN);
  });

  it("three reports for --shards 2 is a usage error, exit 2, REJECT", async () => {
    const p = project();
    const r = await decide(p, [
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard1.info"),
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard2.info"),
      "--report",
      p.coverage("lcov-coveragepy-6.5-branch.info"),
      "--shards",
      "2",
    ]);
    expect(r.code).toBe(2);
    expect(r.report).toMatchObject({ decision: "REJECT", reasons: ["input_error"] });
    expect(r.stderr).toMatch(/^proofgate: error: 3 coverage reports were given for --shards 2/);
  });

  it("--shards 1 with one report, and no --shards at all, both merge", async () => {
    const p = project();
    const full = p.coverage("lcov-coveragepy-6.5-branch.info");
    expect((await decide(p, ["--report", full, "--shards", "1"])).code).toBe(0);
    const r = await decide(p, ["--report", full]);
    expect(r.code).toBe(0);
    expect(r.report.coverage).toMatchObject({ source: "report", shards_expected: null });
  });
});

describe("decide --report: other formats, --coverage-format", () => {
  it("a Cobertura report: coverage.py's totals", async () => {
    const p = project();
    const xml = p.coverage("cobertura-coveragepy-6.5-branch.xml");
    const r = await decide(p, ["--report", xml]);
    expect(r.code).toBe(0);
    expect(r.report.coverage).toMatchObject({ source: "report", format: "cobertura", files: [xml] });
    expect(numbers(r.report.coverage)).toEqual(FULL_RUN);
  });

  it("two Cobertura shards merge to the full run", async () => {
    const p = project();
    const r = await decide(p, [
      "--report",
      p.coverage("cobertura-coveragepy-6.5-shard1.xml"),
      "--report",
      p.coverage("cobertura-coveragepy-6.5-shard2.xml"),
      "--shards",
      "2",
    ]);
    expect(r.code).toBe(0);
    expect(r.report.coverage).toMatchObject({ source: "shards", format: "cobertura" });
    expect(numbers(r.report.coverage)).toEqual(FULL_RUN);
  });

  it("an Istanbul coverage-final.json: vitest's statements and branches", async () => {
    const p = project();
    const r = await decide(p, ["--report", p.coverage("istanbul-vitest-4.1.12-final.json")]);
    // vitest's text report: All files 66.66% statements (16/24), 47.36% branches (9/19).
    expect(r.report.coverage).toMatchObject({
      format: "istanbul-final",
      num_statements: 24,
      covered_lines: 16,
      num_branches: 19,
      covered_branches: 9,
    });
    expect(r.report.coverage!.proven_coverage_percent).toBeCloseTo((100 * (16 + 9)) / (24 + 19), 10);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["proven_coverage"]);
    // Under a lower floor the same report merges.
    expect(
      (await decide(p, ["--report", p.coverage("istanbul-vitest-4.1.12-final.json"), "--min-proven", "58"])).code,
    ).toBe(0);
  });

  it("the Istanbul summary gives the same numbers as the final report", async () => {
    const p = project();
    const summary = await decide(p, [
      "--report",
      p.coverage("istanbul-vitest-4.1.12-summary.json"),
      "--min-proven",
      "50",
    ]);
    const final = await decide(p, ["--report", p.coverage("istanbul-vitest-4.1.12-final.json"), "--min-proven", "50"]);
    expect(summary.code).toBe(0);
    expect(summary.report.coverage!.format).toBe("istanbul-summary");
    expect(numbers(summary.report.coverage)).toEqual(numbers(final.report.coverage));
  });

  it("--coverage-format names the reader: the right one reads, a wrong one overrides detection and fails (exit 2)", async () => {
    const p = project();
    const lcov = p.coverage("lcov-coveragepy-6.5-branch.info");
    const right = await decide(p, ["--report", lcov, "--coverage-format", "lcov"]);
    expect(right.code).toBe(0);
    expect(numbers(right.report.coverage)).toEqual(FULL_RUN);

    const asCobertura = await decide(p, ["--report", lcov, "--coverage-format", "cobertura"]);
    expect(asCobertura.code).toBe(2);
    expect(asCobertura.report.reasons).toEqual(["input_error"]);
    expect(asCobertura.stderr).toMatch(
      new RegExp(
        `^proofgate: error: ${lcov.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:1: not well-formed XML.*Cobertura`,
      ),
    );

    const json = p.coverage("coveragepy-6.5-branch.json");
    const asLcov = await decide(p, ["--report", json, "--coverage-format", "lcov"]);
    expect(asLcov.code).toBe(2);
    expect(asLcov.stderr).toMatch(/not an LCOV line/);
    // Detected, the same file reads fine.
    expect(numbers((await decide(p, ["--report", json])).report.coverage)).toEqual(FULL_RUN);
  });

  it("--coverage is still the script's coverage.py JSON flag", async () => {
    const p = project();
    const r = await decide(p, ["--coverage", p.coverage("coveragepy-6.5-branch.json")]);
    expect(r.code).toBe(0);
    expect(r.report.coverage).toMatchObject({ source: "report", format: "coveragepy-json" });
    expect(numbers(r.report.coverage)).toEqual(FULL_RUN);
  });
});

describe("decide --results: evidence accounting from real pytest xunit2", () => {
  const lcov = (p: ReturnType<typeof project>): string[] => ["--report", p.coverage("lcov-coveragepy-6.5-branch.info")];

  it("every test not frozen passed: MERGE", async () => {
    const p = project();
    const results = p.junit("proof");
    const r = await decide(p, [...lcov(p), "--results", results]);
    expect(r.code).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(r.report.accounting).toEqual({
      result_files: [results],
      collected: 4,
      proven: 3,
      frozen: 1,
      skipped: 0,
      failed: 0,
      missing: 0,
      max_unledgered_skips: null,
      unknown_results: 0,
    });
    expect(r.report.details).toEqual([]);
    // Only the LCOV docstring warning: nothing about the results.
    expect(r.stderr.split("\n").filter((l) => l !== "" && !l.includes("`LF`/`LH` disagree"))).toEqual([]);
  });

  it("a failure is tests_failed, with the result file and line in the details", async () => {
    const p = project();
    const results = p.junit("failed");
    const r = await decide(p, [...lcov(p), "--results", results]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["tests_failed"]);
    expect(r.report.details).toEqual([
      expect.objectContaining({
        reason: "tests_failed",
        file: results,
        line: 1,
        message: "tests/test_cart.py::test_discount failed in the proof run: assert 900.0 == 90",
      }),
    ]);
    expect(r.report.accounting).toMatchObject({ proven: 2, frozen: 1, failed: 1, missing: 0 });
    expect(r.stderr).toContain(`proofgate: tests_failed: ${results}:1: tests/test_cart.py::test_discount failed`);
  });

  it("a collected test in no result file is missing_evidence", async () => {
    const p = project();
    const results = p.junit("shard1");
    const r = await decide(p, [...lcov(p), "--results", results]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["missing_evidence"]);
    expect(r.report.details![0]).toMatchObject({ reason: "missing_evidence", file: p.base[3] });
    expect(r.report.details![0]!.message).toContain("tests/test_cart.py::test_describe");
    expect(r.report.details![0]!.message).not.toContain(FROZEN);
    expect(r.report.accounting).toMatchObject({ collected: 4, proven: 2, frozen: 1, missing: 1 });
  });

  it("unledgered skips (a skip and an xfail) are counted; over --max-unledgered-skips is skip_budget", async () => {
    const p = project();
    const results = p.junit("skips");
    const counted = await decide(p, [...lcov(p), "--results", results]);
    expect(counted.code).toBe(0);
    expect(counted.report.accounting).toMatchObject({ proven: 1, frozen: 1, skipped: 2, max_unledgered_skips: null });

    const atBudget = await decide(p, [...lcov(p), "--results", results, "--max-unledgered-skips", "2"]);
    expect(atBudget.code).toBe(0);

    const over = await decide(p, [...lcov(p), "--results", results, "--max-unledgered-skips", "1"]);
    expect(over.code).toBe(1);
    expect(over.report.reasons).toEqual(["skip_budget"]);
    expect(over.report.accounting).toMatchObject({ skipped: 2, max_unledgered_skips: 1 });
    expect(over.report.details![0]).toMatchObject({ reason: "skip_budget", file: results, line: 1 });
    expect(over.report.details![0]!.message).toMatch(
      /^2 unledgered skip\(s\) exceed max_unledgered_skips = 1: tests\/test_cart\.py::test_discount, tests\/test_cart\.py::test_describe/,
    );
  });

  it("a frozen test that passed in the proof run is frozen_in_proof_run", async () => {
    const p = project();
    const results = p.junit("full");
    const r = await decide(p, [...lcov(p), "--results", results]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["frozen_in_proof_run"]);
    expect(r.report.details).toEqual([
      expect.objectContaining({ reason: "frozen_in_proof_run", file: results, line: 1 }),
    ]);
    expect(r.report.details![0]!.message).toContain(`${FROZEN} ran in the proof run (passed)`);
    // The lease wins in the accounting: still frozen, not proven.
    expect(r.report.accounting).toMatchObject({ proven: 3, frozen: 1 });
  });

  it("two JUnit shards merge: MERGE, both files listed", async () => {
    const p = project();
    const r1 = p.junit("shard1");
    const r2 = p.junit("shard2");
    const r = await decide(p, [...lcov(p), "--results", r1, "--results", r2]);
    expect(r.code).toBe(0);
    expect(r.report.accounting).toMatchObject({
      result_files: [r1, r2],
      collected: 4,
      proven: 3,
      frozen: 1,
      missing: 0,
    });
  });

  it("coverage shards and result shards together", async () => {
    const p = project();
    const r = await decide(p, [
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard1.info"),
      "--report",
      p.coverage("lcov-coveragepy-6.5-shard2.info"),
      "--shards",
      "2",
      "--results",
      p.junit("shard1"),
      "--results",
      p.junit("shard2"),
    ]);
    expect(r.code).toBe(0);
    expect(numbers(r.report.coverage)).toEqual(FULL_RUN);
  });

  it("a test in two result files counts once; a failure in either rejects", async () => {
    const p = project();
    // failed.xml has test_describe passed and test_discount failed; shard2 has test_describe passed again.
    const both = await decide(p, [...lcov(p), "--results", p.junit("failed"), "--results", p.junit("shard2")]);
    expect(both.code).toBe(1);
    expect(both.report.reasons).toEqual(["tests_failed"]);
    expect(both.report.accounting).toMatchObject({ collected: 4, proven: 2, frozen: 1, failed: 1, missing: 0 });
  });
});

describe("decide: the JSON report's coverage, accounting and inputs", () => {
  it("names every source with its digest and role", async () => {
    const p = project();
    const s1 = p.coverage("lcov-coveragepy-6.5-shard1.info");
    const s2 = p.coverage("lcov-coveragepy-6.5-shard2.info");
    const r1 = p.junit("shard1");
    const r2 = p.junit("shard2");
    const r = await decide(p, [
      "--report",
      s1,
      "--report",
      s2,
      "--shards",
      "2",
      "--results",
      r1,
      "--results",
      r2,
      "--max-unledgered-skips",
      "0",
    ]);
    expect(r.code).toBe(0);
    expect(r.report.coverage).toEqual({
      source: "shards",
      files: [s1, s2],
      format: "lcov",
      shards_expected: 2,
      proven_coverage_percent: 75,
      num_statements: 30,
      covered_lines: 22,
      num_branches: 10,
      covered_branches: 8,
      line_rate: 22 / 30,
      branch_rate: 0.8,
      // A rerun's shards with no full run's report: raw is not measured, never guessed.
      raw: null,
      raw_not_measured: "the proof run is a rerun and [coverage] full_report names no full run's report",
      hidden_debt_points: null,
      // decide has no [coverage] max_drop: off.
      max_drop_points: null,
      base_proven_coverage_percent: null,
      frozen_only: null,
      // decide reads no git diff: no patch figure.
      patch: null,
      patch_not_measured: "judged by `proofgate check` only (`decide` reads no git diff)",
    });
    expect(r.report.accounting).toEqual({
      result_files: [r1, r2],
      collected: 4,
      proven: 3,
      frozen: 1,
      skipped: 0,
      failed: 0,
      missing: 0,
      max_unledgered_skips: 0,
      unknown_results: 0,
    });
    const [freeze, collected] = [p.base[1]!, p.base[3]!];
    expect(r.report.inputs).toEqual([
      { role: "ledger", path: freeze, sha256: sha256(freeze) },
      { role: "universe", path: collected, sha256: sha256(collected) },
      { role: "coverage", path: s1, sha256: sha256(s1) },
      { role: "coverage", path: s2, sha256: sha256(s2) },
      { role: "results", path: r1, sha256: sha256(r1) },
      { role: "results", path: r2, sha256: sha256(r2) },
    ]);
    // One digest per file, none shared: the shards differ.
    expect(new Set(r.report.inputs.map((i) => i.sha256)).size).toBe(6);
  });

  it("without --results the accounting is null and only coverage digests are added", async () => {
    const p = project();
    const xml = p.coverage("cobertura-coveragepy-6.5-branch.xml");
    const r = await decide(p, ["--report", xml]);
    expect(r.report.accounting).toBeNull();
    expect(r.report.inputs.map((i) => i.role)).toEqual(["ledger", "universe", "coverage"]);
    expect(r.report.inputs[2]).toEqual({ role: "coverage", path: xml, sha256: sha256(xml) });
  });

  it("--out writes the same report", async () => {
    const p = project();
    const out = join(p.dir, "out", "report.json");
    const r = await cli(
      [
        "decide",
        ...p.base,
        "--report",
        p.coverage("lcov-coveragepy-6.5-branch.info"),
        "--results",
        p.junit("proof"),
        "--out",
        out,
      ],
      p.dir,
    );
    expect(r.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(r.stdout);
  });
});

describe("proofgate coverage --report shards", () => {
  it("--report a --report b --shards 2 --format json: the merged totals", async () => {
    const p = project();
    const s1 = p.coverage("lcov-coveragepy-6.5-shard1.info");
    const s2 = p.coverage("lcov-coveragepy-6.5-shard2.info");
    const r = await cli(["coverage", "--report", s1, "--report", s2, "--shards", "2", "--format", "json"], p.dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      proven_coverage_percent: 75,
      num_statements: 30,
      covered_lines: 22,
      num_branches: 10,
      covered_branches: 8,
      line_rate: 22 / 30,
      branch_rate: 0.8,
      source: "shards",
      files: [s1, s2],
      format: "lcov",
      shards_expected: 2,
      shards_missing: 0,
    });
    // coverage.py 6.5's LCOV lists docstring lines as executed: a warning, not an error.
    expect(r.stderr).toMatch(/^proofgate: warning: .*`LF`\/`LH` disagree/m);
  });

  it("one report for --shards 2 prints the numbers and exits 1 with shard_missing", async () => {
    const p = project();
    const r = await cli(
      ["coverage", "--report", p.coverage("lcov-coveragepy-6.5-shard1.info"), "--shards", "2", "--format", "json"],
      p.dir,
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ shards_expected: 2, shards_missing: 1, source: "report" });
    expect(r.stderr).toMatch(/^proofgate: shard_missing: 1 of 2 coverage shards are missing/m);
  });

  it("text format names the shards", async () => {
    const p = project();
    const s1 = p.coverage("cobertura-coveragepy-6.5-shard1.xml");
    const s2 = p.coverage("cobertura-coveragepy-6.5-shard2.xml");
    const r = await cli(["coverage", "--report", s1, "--report", s2], p.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `proven coverage: 75.00% (from ${s1}, ${s2})\n  lines:    22/30 (73.33%)\n  branches: 8/10 (80.00%)\n`,
    );
  });
});

import { describe, expect, it } from "vitest";
import { errorReport } from "./build-report.js";
import { decide, type DecideInput } from "./decide.js";
import type { ReasonCode } from "./common/reasons.js";
import { REPORT_SCHEMA_VERSION, type GateReport, type ProvenCoverage } from "./model/report.js";
import { reportObject } from "./report/report-json.js";
import type { TestOutcome, TestResult } from "./evidence/junit.js";
import type { Lease, Ledger } from "./ledger/ledger.js";
import { toPythonJson } from "./python/python-json.js";
import type { Universe } from "./evidence/universe.js";

const TODAY = "2026-09-20";
const LEASED = "tests/test_cache.py::test_stampede_window";
const HIT = "tests/test_cache.py::test_hit";
const TOTAL = "tests/test_billing.py::test_total";
const SKIP = "tests/test_billing.py::test_rounding";

function lease(nodeid: string, expires: string, index = 0): Lease {
  return { index, nodeid, owner: "platform-cache", reason: "timing", expires, line: 7 + index * 6 };
}

function coverage(statements: number, coveredLines: number, branches = 0, coveredBranches = 0): ProvenCoverage {
  const percent = statements === 0 ? 100 : (100 * (coveredLines + coveredBranches)) / (statements + branches);
  return {
    source: "report",
    files: ["proven_coverage.json"],
    format: "coveragepy-json",
    percent,
    statements,
    coveredLines,
    branches,
    coveredBranches,
    lineRate: statements === 0 ? 1 : coveredLines / statements,
    branchRate: branches === 0 ? 1 : coveredBranches / branches,
  };
}

/** A JUnit result of the proof run. */
function result(id: string, outcome: TestOutcome, line = 1): TestResult {
  return {
    id,
    outcome,
    file: "results.xml",
    line,
    classname: "",
    name: id,
    mapping: "universe",
    collectionError: false,
  };
}

/** Every signal passes: one active lease within budget, on a collected test, coverage above the floor. */
function passing(): DecideInput {
  const ledger: Ledger = {
    file: "freeze.toml",
    version: 1,
    maxActiveLeases: 1,
    budgetOmitted: false,
    rejectIfExpired: true,
    rejectIfAgentAddsLease: true,
    leases: [lease(LEASED, "2026-09-26")],
  };
  const universe: Universe = {
    file: "collected.txt",
    ids: [LEASED, HIT, TOTAL, SKIP],
    duplicates: [],
    collectionErrors: [],
    summaryCount: 4,
  };
  return {
    today: TODAY,
    clockOverride: false,
    ledger,
    universe,
    coverage: coverage(100, 80),
    // The proof run: every test but the frozen one passed.
    evidence: { results: [result(HIT, "passed"), result(TOTAL, "passed"), result(SKIP, "passed")] },
    minProven: 70,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [],
  };
}

/** The article's manual counts of a passing input. */
function counts(i: DecideInput) {
  if (i.patch.kind !== "counts") throw new Error("not a counts input");
  return i.patch;
}

/** The report as report.json holds it. */
const jsonOf = (report: GateReport): Record<string, unknown> => reportObject(report);

/** The reasons `decide` applies from its inputs (the evidence reasons come with JUnit results). */
type DecidedReason = Extract<
  ReasonCode,
  | "expired_leases"
  | "freeze_budget"
  | "unknown_leases"
  | "agent_added_lease"
  | "proven_coverage"
  | "coverage_missing"
  | "shard_missing"
  | "fixture_digest"
  | "property_hold"
  | "tests_failed"
  | "missing_evidence"
  | "skip_budget"
  | "frozen_in_proof_run"
  | "collection_errors"
  | "clock_override"
>;

const results = (i: DecideInput): TestResult[] => i.evidence!.results as TestResult[];

/** One failing signal each: the change to a passing input that makes exactly that reason fire. */
const BREAKERS: Record<DecidedReason, (input: DecideInput) => void> = {
  expired_leases: (i) => {
    i.ledger.leases.push(lease("tests/test_billing.py::test_total", "2026-09-19", 1));
  },
  freeze_budget: (i) => {
    i.ledger.maxActiveLeases = 0;
  },
  unknown_leases: (i) => {
    i.ledger.leases.push(lease("tests/test_cache.py::test_gone", "2026-09-26", 1));
    i.ledger.maxActiveLeases = 2;
  },
  agent_added_lease: (i) => {
    counts(i).agentAddedLeases = 1;
  },
  proven_coverage: (i) => {
    i.coverage = coverage(100, 69);
  },
  coverage_missing: (i) => {
    i.coverage = { ...coverage(0, 0), shardsExpected: i.coverage.shardsExpected };
  },
  shard_missing: (i) => {
    i.coverage.shardsExpected = 2;
  },
  fixture_digest: (i) => {
    counts(i).fixtureDelta = 2;
  },
  property_hold: (i) => {
    i.properties = { kind: "count", failures: 3 };
  },
  tests_failed: (i) => {
    results(i).find((r) => r.id === TOTAL)!.outcome = "failed";
  },
  missing_evidence: (i) => {
    results(i).splice(
      results(i).findIndex((r) => r.id === HIT),
      1,
    );
  },
  skip_budget: (i) => {
    results(i).find((r) => r.id === SKIP)!.outcome = "skipped";
    i.evidence = { ...i.evidence!, maxUnledgeredSkips: 0 };
  },
  frozen_in_proof_run: (i) => {
    results(i).push(result(LEASED, "passed", 9));
  },
  collection_errors: (i) => {
    i.universe.collectionErrors.push({ line: 12, text: "ERROR tests/test_bad.py" });
  },
  clock_override: (i) => {
    i.clockOverride = true;
  },
};

/** The documented order: the reference script's reasons, with proofgate's own where they belong. */
const ORDER = Object.keys(BREAKERS) as DecidedReason[];

describe("decide", () => {
  it("says MERGE when every signal passes", () => {
    const report = decide(passing());
    expect(report).toMatchObject({ decision: "MERGE", reasons: [], findings: [] });
    expect(jsonOf(report).decision).toBe("MERGE");
  });

  it.each(ORDER)("%s fires alone and rejects", (reason) => {
    const input = passing();
    BREAKERS[reason](input);
    const report = decide(input);
    expect(report.reasons).toEqual([reason]);
    expect(report.decision).toBe("REJECT");
    expect(jsonOf(report).reasons).toEqual([reason]);
    expect(jsonOf(report).decision).toBe("REJECT");
    for (const finding of report.findings) {
      expect(finding.reason).toBe(reason);
      expect(finding.message).not.toBe("");
      expect(finding.fix).not.toBe("");
    }
  });

  it("lists every failing reason in the documented order, and rejects on any combination", () => {
    // Every subset of the signals: MERGE only for the empty one, the reasons always in order.
    for (let mask = 0; mask < 1 << ORDER.length; mask++) {
      const input = passing();
      const expected = ORDER.filter((_, bit) => mask & (1 << bit));
      // Both replace the coverage report; an empty report is 100% by coverage.py's rule, so they do not combine.
      if (expected.includes("proven_coverage") && expected.includes("coverage_missing")) continue;
      // unknown_leases raises the budget to fit its extra lease; apply freeze_budget after it.
      for (const reason of [...expected].sort((a, b) => Number(a === "freeze_budget") - Number(b === "freeze_budget")))
        BREAKERS[reason](input);
      const report = decide(input);
      expect(report.reasons, `mask ${mask}`).toEqual(expected);
      expect(report.decision, `mask ${mask}`).toBe(expected.length === 0 ? "MERGE" : "REJECT");
    }
  });

  it("keeps the reference script's relative order for its own reasons", () => {
    const input = passing();
    for (const reason of ORDER) if (reason !== "coverage_missing") BREAKERS[reason](input);
    input.ledger.maxActiveLeases = 0;
    const reasons = decide(input).reasons;
    const script = [
      "expired_leases",
      "freeze_budget",
      "agent_added_lease",
      "proven_coverage",
      "fixture_digest",
      "property_hold",
    ];
    expect(reasons.filter((r) => script.includes(r))).toEqual(script);
  });

  it("honours reject_if_expired = false: an expired lease neither rejects nor counts as active", () => {
    const input = passing();
    BREAKERS.expired_leases(input);
    input.ledger.rejectIfExpired = false;
    const report = decide(input);
    expect(report.decision).toBe("MERGE");
    expect(jsonOf(report)).toMatchObject({ active_leases: 1, expired_leases: 1 });
  });

  it("honours reject_if_agent_adds_lease = false", () => {
    const input = passing();
    BREAKERS.agent_added_lease(input);
    input.ledger.rejectIfAgentAddsLease = false;
    const report = decide(input);
    expect(report.decision).toBe("MERGE");
    expect(jsonOf(report).agent_added_leases).toBe(1);
  });

  it("reports an empty coverage report as coverage_missing, not as 100% proven", () => {
    const input = passing();
    BREAKERS.coverage_missing(input);
    input.minProven = 100;
    expect(decide(input).reasons).toEqual(["coverage_missing"]);
  });

  it("lets a human fixture lock clear fixture_digest", () => {
    const input = passing();
    BREAKERS.fixture_digest(input);
    counts(input).humanFixtureLock = true;
    expect(decide(input).decision).toBe("MERGE");
  });

  it.each([
    [70, 70, "MERGE"],
    [70.0000001, 70, "MERGE"],
    [69.9999999, 70, "REJECT"],
    [0, 0, "MERGE"],
    [100, 100, "MERGE"],
    [99.99, 100, "REJECT"],
  ])("proven %f%% against a floor of %f%%: %s", (percent, minProven, decision) => {
    const input = passing();
    input.coverage = { ...coverage(100, 80), percent };
    input.minProven = minProven;
    expect(decide(input).decision).toBe(decision);
  });

  it("a single run's lower reading below the floor says when coverage.py's could reach it, and only then", () => {
    const input = passing();
    input.coverage = {
      ...coverage(100, 69),
      upper: { percent: 71, why: ["pkg/m.py: 2 executed line(s) may not be statements"] },
    };
    const [finding] = decide(input).findings;
    expect(finding!.reason).toBe("proven_coverage");
    expect(finding!.message).toContain(
      "coverage.py may print up to 71.00%, as pkg/m.py: 2 executed line(s) may not be statements",
    );
    input.coverage = {
      ...coverage(100, 60),
      upper: { percent: 65, why: ["pkg/m.py: 1 executed line(s) may not be statements"] },
    };
    expect(decide(input).findings[0]!.message).toBe("proven coverage 60.00% is below the floor of 70%");
  });

  it("passes at exactly the floor computed from counts (7 of 10 lines is 70.0)", () => {
    const input = passing();
    input.coverage = coverage(10, 7);
    expect(decide(input).decision).toBe("MERGE");
  });

  it("treats the expiry day as active and the next day as expired", () => {
    const input = passing();
    input.today = "2026-09-26";
    expect(decide(input).decision).toBe("MERGE");
    input.today = "2026-09-27";
    // Expired, the test is no longer frozen: the proof run owed a result for it and has none.
    expect(decide(input).reasons).toEqual(["expired_leases", "missing_evidence"]);
    input.evidence = undefined;
    expect(decide(input).reasons).toEqual(["expired_leases"]);
  });

  it("blames the budget on an omitted max_active_leases", () => {
    const input = passing();
    input.ledger.maxActiveLeases = 0;
    input.ledger.budgetOmitted = true;
    expect(decide(input).findings[0]!.message).toMatch(/max_active_leases omitted/);
  });

  it("points findings at the ledger line, the universe line and the close ids", () => {
    const input = passing();
    BREAKERS.expired_leases(input);
    BREAKERS.collection_errors(input);
    input.ledger.leases.push(lease("tests/test_cache.py::test_hit[1]", "2026-12-31", 2));
    input.ledger.maxActiveLeases = 5;
    const { findings } = decide(input);
    expect(findings.map((f) => [f.reason, f.file, f.line])).toEqual([
      ["expired_leases", "freeze.toml", 13],
      ["unknown_leases", "freeze.toml", 19],
      ["collection_errors", "collected.txt", 12],
    ]);
    expect(findings[1]!.message).toContain("close: tests/test_cache.py::test_hit");
  });

  it("writes the article's keys first, with their meanings", () => {
    const input = passing();
    input.coverage = coverage(10, 7);
    counts(input).fixtureDelta = 1;
    counts(input).humanFixtureLock = true;
    const json = jsonOf(decide(input));
    expect(Object.keys(json).slice(0, 11)).toEqual([
      "today_utc",
      "collected_tests",
      "active_leases",
      "expired_leases",
      "proven_coverage_percent",
      "min_proven_coverage_percent",
      "fixture_digest_delta",
      "property_failures",
      "agent_added_leases",
      "reasons",
      "decision",
    ]);
    const parsed = JSON.parse(toPythonJson(json)) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      today_utc: TODAY,
      collected_tests: 4,
      active_leases: 1,
      expired_leases: 0,
      proven_coverage_percent: 70,
      min_proven_coverage_percent: 70,
      fixture_digest_delta: 1,
      property_failures: 0,
      agent_added_leases: 0,
      reasons: [],
      decision: "MERGE",
      schema_version: REPORT_SCHEMA_VERSION,
    });
    // Python prints floats with a decimal point, so a merge queue comparing text sees 70.0.
    expect(toPythonJson(json)).toContain('"proven_coverage_percent": 70.0,');
    expect(toPythonJson(json)).toContain('"min_proven_coverage_percent": 70.0,');
  });

  it("records a clock override in the report", () => {
    const input = passing();
    BREAKERS.clock_override(input);
    expect(jsonOf(decide(input)).clock).toEqual({ source: "override", today_utc: TODAY });
  });

  it("is deterministic: same input, same bytes", () => {
    expect(toPythonJson(jsonOf(decide(passing())))).toBe(toPythonJson(jsonOf(decide(passing()))));
  });
});

describe("errorReport", () => {
  it("says REJECT with the single reason input_error, and lists the errors", () => {
    const report = jsonOf(
      errorReport(TODAY, [
        {
          code: "coverage_invalid",
          file: "proven_coverage.json",
          message: "the report has no `totals`",
          fix: "regenerate it",
        },
        { code: "ledger_invalid", file: "freeze.toml", line: 9, message: "lease #2: `owner` is missing" },
      ]),
    );
    expect(report.decision).toBe("REJECT");
    expect(report.reasons).toEqual(["input_error"]);
    expect(report.today_utc).toBe(TODAY);
    expect(report.errors).toEqual([
      {
        code: "coverage_invalid",
        message: "the report has no `totals`",
        file: "proven_coverage.json",
        line: null,
        fix: "regenerate it",
      },
      { code: "ledger_invalid", message: "lease #2: `owner` is missing", file: "freeze.toml", line: 9, fix: null },
    ]);
  });

  it("computes no number it could not compute, and parses as JSON", () => {
    const report = jsonOf(errorReport(undefined, [{ code: "usage", message: "bad flag" }]));
    for (const key of [
      "today_utc",
      "collected_tests",
      "active_leases",
      "expired_leases",
      "proven_coverage_percent",
      "min_proven_coverage_percent",
    ]) {
      expect(report[key]).toBeNull();
    }
    expect(JSON.parse(toPythonJson(report))).toMatchObject({ decision: "REJECT", reasons: ["input_error"] });
  });
});

import { describe, expect, it } from "vitest";
import { coverageDrop, parseBaseCoverageReport, type CoverageDropEvidence } from "./coverage-drop.js";
import { decide, type DecideInput } from "./decide.js";
import type { ProvenCoverage } from "./model/report.js";
import { reportObject } from "./report/report-json.js";
import { toPythonJson } from "./python/python-json.js";

const BASE = "b".repeat(40);

function coverage(percent: number): ProvenCoverage {
  return {
    source: "report",
    files: ["proven_coverage.json"],
    format: "coveragepy-json",
    percent,
    statements: 1000,
    coveredLines: percent * 10,
    branches: 0,
    coveredBranches: 0,
    lineRate: percent / 100,
    branchRate: 1,
  };
}

function input(percent: number, coverageDrop?: CoverageDropEvidence): DecideInput {
  return {
    today: "2026-12-02",
    clockOverride: false,
    ledger: {
      file: "freeze.toml",
      version: 1,
      maxActiveLeases: 0,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      leases: [],
    },
    universe: { file: "collected.txt", ids: ["t.py::a"], duplicates: [], collectionErrors: [], summaryCount: 1 },
    coverage: coverage(percent),
    minProven: 50,
    coverageDrop,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [],
  };
}

const measured = (basePercent: number, maxDrop: number): CoverageDropEvidence => ({
  kind: "measured",
  maxDrop,
  basePercent,
  file: "base-report.json",
});
const row = (r: ReturnType<typeof decide>) => r.signals.find((s) => s.id === "coverage_drop")!;

describe("[coverage] max_drop", () => {
  it("passes a drop within the policy, the policy's own value included", () => {
    for (const [base, now] of [
      [82.5, 81.0],
      [82.5, 82.0],
      [80.1, 80.1],
      [80.0, 85.0],
    ] as const) {
      const r = decide(input(now, measured(base, 1.5)));
      expect(r.reasons, `${base} -> ${now}`).toEqual([]);
      expect(row(r).result).toBe("pass");
    }
    // 0.1 + 0.2 style noise never turns an equal drop into a failure.
    expect(coverageDrop(70.3, 70.1)).toBe(0.2);
    expect(decide(input(70.1, measured(70.3, 0.2))).reasons).toEqual([]);
    expect(row(decide(input(85, measured(80, 1)))).value).toContain("up 5.00 points");
  });

  it("fails coverage_dropped beyond it, naming both figures and the base's report", () => {
    const r = decide(input(80.9, measured(82.5, 1.5)));
    expect(r.reasons).toEqual(["coverage_dropped"]);
    expect(r.findings[0]).toMatchObject({
      reason: "coverage_dropped",
      file: "base-report.json",
      message: expect.stringContaining("fell 1.60 points, from 82.50% at the base to 80.90%"),
    });
    expect(row(r)).toMatchObject({ result: "fail", reasons: ["coverage_dropped"] });
    const json = reportObject(r) as { coverage: Record<string, unknown> };
    expect(JSON.parse(toPythonJson(json.coverage.max_drop_points))).toBe(1.5);
    expect(JSON.parse(toPythonJson(json.coverage.base_proven_coverage_percent))).toBe(82.5);
    // max_drop = 0: any fall at all.
    expect(decide(input(82.49, measured(82.5, 0))).reasons).toEqual(["coverage_dropped"]);
  });

  it("without the base's figure the row is not_measured and says how; without max_drop it is off", () => {
    const none = decide(
      input(10, { kind: "not_measured", maxDrop: 1, why: "no proven figure of the base", fix: "set base_report" }),
    );
    expect(none.reasons).toEqual(["proven_coverage"]);
    expect(row(none)).toMatchObject({
      result: "not_measured",
      value: "not measured: no proven figure of the base. Fix: set base_report",
    });
    const json = reportObject(none) as { coverage: Record<string, unknown> };
    expect(json.coverage.base_proven_coverage_percent).toBeNull();
    const off = decide(input(80));
    expect(row(off).result).toBe("off");
    expect((reportObject(off) as { coverage: Record<string, unknown> }).coverage.max_drop_points).toBeNull();
  });
});

describe("the base pipeline's report", () => {
  it("reads proven_coverage_percent of a gate report of the base, or of `proofgate coverage --format json`", () => {
    expect(
      parseBaseCoverageReport(JSON.stringify({ proven_coverage_percent: 81.25, head: BASE }), "r.json", BASE),
    ).toEqual({ percent: 81.25, errors: [] });
    expect(
      parseBaseCoverageReport('{"proven_coverage_percent": 70.0, "num_statements": 3}', "c.json", BASE).percent,
    ).toBe(70);
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["a list", "[]", /top level is not an object/],
    ["no figure", '{"decision": "MERGE"}', /no `proven_coverage_percent`/],
    ["a figure out of range", '{"proven_coverage_percent": 101}', /between 0 and 100/],
    ["an input_error report", '{"proven_coverage_percent": null}', /could not evaluate/],
    [
      "another commit's report",
      JSON.stringify({ proven_coverage_percent: 90, head: "c".repeat(40) }),
      /not of the base/,
    ],
  ])("refuses %s, naming the file and a fix", (_name, text, message) => {
    const r = parseBaseCoverageReport(text, "base-report.json", BASE);
    expect(r.percent).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "coverage_invalid", file: "base-report.json", message });
    expect(r.errors[0]!.fix).toBeTruthy();
  });
});

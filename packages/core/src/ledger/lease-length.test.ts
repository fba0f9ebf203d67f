// `[ledger] max_lease_days`: how long a lease runs, counted from its created date or today, and the
// lease_too_long finding in the freeze budget row, with the date to write instead.
import { describe, expect, it } from "vitest";
import { decide, type DecideInput } from "../decide.js";
import { leaseLength, leaseTooLongFindings } from "./lease-length.js";
import type { Lease } from "./ledger.js";

const TODAY = "2026-09-20";

function lease(expires: string, created?: string, line = 5): Lease {
  return { index: 0, nodeid: "tests/test_a.py::test_x", owner: "ada", reason: "flaky", expires, created, line };
}

describe("leaseLength", () => {
  it.each([
    ["created in the past", lease("2026-10-01", "2026-09-01"), "2026-09-01", "created", 30],
    ["no created date: from today", lease("2026-10-01"), TODAY, "today, as it has no created date", 11],
    [
      "a created date after today: from today (the lease already counts)",
      lease("2026-10-01", "2026-09-30"),
      TODAY,
      "today, as its created date is later",
      11,
    ],
    ["created today, expires today", lease(TODAY, TODAY), TODAY, "created", 0],
  ])("%s", (_name, l, from, fromWhat, days) => {
    expect(leaseLength(l, TODAY)).toEqual({ from, fromWhat, days });
  });
});

describe("leaseTooLongFindings", () => {
  it("no limit: nothing; at the limit: nothing; one day over: a finding at the lease's line with the date to write", () => {
    expect(leaseTooLongFindings([lease("2027-12-31", "2026-01-01")], "freeze.toml", undefined, TODAY)).toEqual([]);
    expect(leaseTooLongFindings([lease("2026-10-01", "2026-09-01")], "freeze.toml", 30, TODAY)).toEqual([]);
    expect(leaseTooLongFindings([lease("2026-10-02", "2026-09-01")], "freeze.toml", 30, TODAY)).toEqual([
      {
        reason: "lease_too_long",
        message:
          "lease on tests/test_a.py::test_x (owner ada) runs 31 days, from its created date 2026-09-01 to 2026-10-02: more than [ledger] max_lease_days = 30",
        file: "freeze.toml",
        line: 5,
        fix: "set its expires to 2026-10-01 or earlier (and renew it when it runs out, in a human commit); a longer freeze is a human's change to [ledger] max_lease_days in proofgate.toml",
      },
    ]);
  });

  it("a lease with no created date, or a created date after today, is counted from today", () => {
    const [none] = leaseTooLongFindings([lease("2026-12-31")], "freeze.toml", 30, TODAY);
    expect(none?.message).toContain("runs 102 days, from today (2026-09-20, as it has no created date) to 2026-12-31");
    expect(none?.fix).toContain("set its expires to 2026-10-20 or earlier");
    const [later] = leaseTooLongFindings([lease("2026-12-31", "2026-12-30")], "freeze.toml", 30, TODAY);
    expect(later?.message).toContain("from today (2026-09-20, as its created date is later) to 2026-12-31");
  });
});

describe("decide with max_lease_days", () => {
  const input = (maxLeaseDays: number | undefined, expires: string): DecideInput => ({
    today: TODAY,
    clockOverride: false,
    maxLeaseDays,
    ledger: {
      file: "freeze.toml",
      version: 1,
      maxActiveLeases: 1,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      leases: [lease(expires, "2026-09-15")],
    },
    universe: {
      file: "collected.txt",
      ids: ["tests/test_a.py::test_x", "tests/test_a.py::test_y"],
      duplicates: [],
      collectionErrors: [],
      summaryCount: 2,
    },
    coverage: {
      source: "report",
      files: ["c.json"],
      format: "coveragepy-json",
      percent: 80,
      statements: 10,
      coveredLines: 8,
      branches: 0,
      coveredBranches: 0,
      lineRate: 0.8,
      branchRate: 1,
    },
    minProven: 70,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [],
  });

  it("a lease longer than the limit is REJECT on lease_too_long, in the freeze budget row, which shows the limit", () => {
    const long = decide(input(14, "2026-10-15"));
    expect(long.decision).toBe("REJECT");
    expect(long.reasons).toEqual(["lease_too_long"]);
    const row = long.signals.find((s) => s.id === "freeze_budget");
    expect(row).toMatchObject({ result: "fail", reasons: ["lease_too_long"] });
    expect(row?.policy).toContain("runs <= 14 days");
    expect(decide(input(30, "2026-10-15")).decision).toBe("MERGE");
    expect(decide(input(undefined, "2099-12-31")).decision).toBe("MERGE");
  });
});

// proofgate's own property suite: invariants of the decision that a merge gate must never break, checked
// with fast-check. Its seed corpus (properties/seeds/<property>/*.json, committed) is replayed first as
// fast-check `examples`, then a fixed-seed random run follows. Under `proofgate check --run` the corpus is
// read from $PROOFGATE_SEEDS_DIR (the base revision's copy), so a patch cannot shrink the cases it is
// judged on; without it, from the work tree.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, type DecideInput } from "../decide.js";
import type { Lease, Ledger } from "../ledger/ledger.js";
import type { ProvenCoverage } from "../model/report.js";

const SEEDS = "packages/core/properties/seeds";
const RUNS = 300;
const SEED = 20261205;

/** The committed examples of one property: the base's copy under check --run, else the work tree's. */
function examples<T>(property: string, read: (json: unknown) => T): T[] {
  // The gate hands the base's seeds in this variable (docs/config.md, [commands] properties).
  const fromGate = process.env.PROOFGATE_SEEDS_DIR;
  const dir = fromGate
    ? join(fromGate, SEEDS, property)
    : new URL(`../../properties/seeds/${property}/`, import.meta.url).pathname;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  if (files.length === 0) throw new Error(`${dir}: no seed files`);
  return files.map((f) => read(JSON.parse(readFileSync(join(dir, f), "utf8")) as unknown));
}

const TODAY = "2026-09-20";

function lease(nodeid: string, expires: string, index = 0): Lease {
  return { index, nodeid, owner: "owner", reason: "flaky", expires, line: 1 + index * 6 };
}

function coverage(statements: number, covered: number): ProvenCoverage {
  const percent = statements === 0 ? 100 : (100 * covered) / statements;
  return {
    source: "report",
    files: ["proven_coverage.json"],
    format: "coveragepy-json",
    percent,
    statements,
    coveredLines: covered,
    branches: 0,
    coveredBranches: 0,
    lineRate: statements === 0 ? 1 : covered / statements,
    branchRate: 1,
  };
}

/** Every signal passes but the one a property varies. */
function input(edit: {
  leases?: Lease[];
  budget?: number;
  statements?: number;
  covered?: number;
  floor?: number;
  today?: string;
}): DecideInput {
  const leases = edit.leases ?? [];
  const ids = ["tests/test_a.py::test_one", ...leases.map((l) => l.nodeid)];
  const ledger: Ledger = {
    file: "freeze.toml",
    version: 1,
    maxActiveLeases: edit.budget ?? leases.length,
    budgetOmitted: false,
    rejectIfExpired: true,
    rejectIfAgentAddsLease: true,
    leases,
  };
  return {
    today: edit.today ?? TODAY,
    clockOverride: false,
    ledger,
    universe: {
      file: "collected.txt",
      ids: [...new Set(ids)],
      duplicates: [],
      collectionErrors: [],
      summaryCount: new Set(ids).size,
    },
    coverage: coverage(edit.statements ?? 10, edit.covered ?? 10),
    minProven: edit.floor ?? 0,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [],
  };
}

const date = fc
  .date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2035-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe("the decision's invariants (seed corpus first)", () => {
  it("coverage-floor: MERGE only when proven coverage reaches the floor, and below it always proven_coverage", () => {
    type Case = { statements: number; covered: number; floor: number };
    const read = (j: unknown): [Case] => [j as Case];
    const arb = fc.integer({ min: 0, max: 5000 }).chain((statements) =>
      fc.record({
        statements: fc.constant(statements),
        covered: fc.integer({ min: 0, max: statements }),
        floor: fc.double({ min: 0, max: 100, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ statements, covered, floor }) => {
        const report = decide(input({ statements, covered, floor }));
        const percent = statements === 0 ? 100 : (100 * covered) / statements;
        expect(report.reasons.includes("proven_coverage")).toBe(percent < floor);
        expect(report.decision === "MERGE").toBe(report.reasons.length === 0);
      }),
      { seed: SEED, numRuns: RUNS, examples: examples("coverage-floor", read) },
    );
  });

  it("lease-expiry: a lease whose expiry is before today is expired_leases, one that runs through today is not", () => {
    type Case = { expires: string; today: string };
    const read = (j: unknown): [Case] => [j as Case];
    fc.assert(
      fc.property(fc.record({ expires: date, today: date }), ({ expires, today }) => {
        const report = decide(input({ leases: [lease("tests/test_a.py::test_flaky", expires)], today }));
        expect(report.reasons.includes("expired_leases")).toBe(expires < today);
        if (expires < today) expect(report.decision).toBe("REJECT");
      }),
      { seed: SEED, numRuns: RUNS, examples: examples("lease-expiry", read) },
    );
  });

  it("freeze-budget: more active leases than the budget is freeze_budget, and never MERGE", () => {
    type Case = { leases: number; budget: number };
    const read = (j: unknown): [Case] => [j as Case];
    const arb = fc.record({ leases: fc.integer({ min: 0, max: 40 }), budget: fc.integer({ min: 0, max: 40 }) });
    fc.assert(
      fc.property(arb, ({ leases, budget }) => {
        const list = Array.from({ length: leases }, (_, i) => lease(`tests/test_a.py::test_f[${i}]`, "2026-10-01", i));
        const report = decide(input({ leases: list, budget }));
        expect(report.reasons.includes("freeze_budget")).toBe(leases > budget);
        if (leases > budget) expect(report.decision).toBe("REJECT");
      }),
      { seed: SEED, numRuns: RUNS, examples: examples("freeze-budget", read) },
    );
  });
});

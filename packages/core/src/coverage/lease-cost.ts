// What each lease costs: the statements and branches that only its frozen test runs (no kept test and no
// other frozen test runs them), so a run without that one test loses exactly those; and the pool, the
// frozen-only statements and branches two or more frozen tests run, which no single unfreezing proves
// alone but any of them would.
//
// Only the single run can say: the contexts name the frozen tests that ran each frozen-only line
// (`FileLines.frozenTests`). A rerun has one report without the frozen tests and at most one with all of
// them: who ran what is not in it, so every cost is `not_measured`, never guessed.
import { frozenOnlyLines, type CoverageMap } from "./frozen-only.js";

/** The statements and branches one frozen test runs that nothing else runs, file by file. */
export interface LeaseCostFile {
  path: string;
  /** Statements only this test runs, increasing. */
  lines: number[];
  /** Branches only this test takes, as the data names them (`"12>14"`). */
  branches: string[];
}

/** One lease's cost, or why it cannot be measured. */
export type LeaseCost =
  | {
      status: "measured";
      /** Statements only this lease's test runs: what a run without only that test loses. */
      lines: number;
      branches: number;
      /** Frozen-only statements and branches it runs that other frozen tests run too (its share of the pool). */
      sharedLines: number;
      sharedBranches: number;
      files: LeaseCostFile[];
    }
  | { status: "not_measured"; why: string };

/** Every active lease's cost and the pool. */
export interface LeaseCosts {
  /** By nodeid. */
  byTest: Map<string, LeaseCost>;
  /** Frozen-only statements and branches no single frozen test runs alone; null when not attributed. */
  pool: { lines: number; branches: number } | null;
  /** Why nothing was attributed (the rerun, no raw figure); undefined when the costs are measured. */
  notMeasured?: string | undefined;
}

/** What a rerun says instead of a cost. */
export const RERUN_COST_WHY =
  "the rerun does not record which test ran which line; a single --cov-context=test run ([coverage] contexts) does";

/**
 * The cost of each frozen test (the active leases' nodeids) from a single run's line map. `notRun` are
 * frozen tests with no context in the data file: nothing is known of what they run.
 */
export function leaseCosts(
  map: CoverageMap | undefined,
  frozen: readonly string[],
  notRun: readonly string[] = [],
  why = RERUN_COST_WHY,
): LeaseCosts {
  const byTest = new Map<string, LeaseCost>();
  if (!map || !map.attributed || !map.raw) {
    for (const id of frozen) byTest.set(id, { status: "not_measured", why });
    return { byTest, pool: null, notMeasured: why };
  }
  const skipped = new Set(notRun);
  interface Tally {
    files: Map<string, LeaseCostFile>;
    lines: number;
    branches: number;
    sharedLines: number;
    sharedBranches: number;
  }
  const tallies = new Map<string, Tally>();
  for (const id of frozen)
    if (!skipped.has(id))
      tallies.set(id, { files: new Map(), lines: 0, branches: 0, sharedLines: 0, sharedBranches: 0 });
  let poolLines = 0;
  let poolBranches = 0;
  const fileOf = (t: Tally, path: string): LeaseCostFile =>
    t.files.get(path) ?? t.files.set(path, { path, lines: [], branches: [] }).get(path)!;
  for (const f of map.files.values()) {
    if (!f.raw || !f.rawBranches) continue;
    const count = (key: string, add: (t: Tally) => void, share: (t: Tally) => void): boolean => {
      const tests = f.frozenTests?.get(key) ?? [];
      const only = tests.length === 1 ? tallies.get(tests[0]!) : undefined;
      if (only) {
        add(only);
        return false;
      }
      for (const id of tests) {
        const t = tallies.get(id);
        if (t) share(t);
      }
      return true;
    };
    for (const line of frozenOnlyLines(f)) {
      const pooled = count(
        String(line),
        (t) => {
          t.lines++;
          fileOf(t, f.path).lines.push(line);
        },
        (t) => t.sharedLines++,
      );
      if (pooled) poolLines++;
    }
    for (const [line, keys] of [...f.branches].sort((a, b) => a[0] - b[0])) {
      if (line === 0) continue;
      for (const key of keys) {
        if (!f.rawBranches.has(key) || f.provenBranches.has(key)) continue;
        const pooled = count(
          key,
          (t) => {
            t.branches++;
            fileOf(t, f.path).branches.push(key);
          },
          (t) => t.sharedBranches++,
        );
        if (pooled) poolBranches++;
      }
    }
  }
  for (const id of frozen) {
    const t = tallies.get(id);
    if (!t) {
      byTest.set(id, { status: "not_measured", why: "its test has no context in the data file (it did not run)" });
      continue;
    }
    const files = [...t.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    byTest.set(id, {
      status: "measured",
      lines: t.lines,
      branches: t.branches,
      sharedLines: t.sharedLines,
      sharedBranches: t.sharedBranches,
      files,
    });
  }
  return { byTest, pool: { lines: poolLines, branches: poolBranches } };
}

/**
 * Orders leases by cost, dearest first: measured before not measured, then by lines only it runs, then
 * branches, then its share of the pool; ties by nodeid.
 */
export function byCost<T extends { nodeid: string }>(items: readonly T[], costs: LeaseCosts): T[] {
  const key = (c: LeaseCost | undefined): number[] =>
    c?.status === "measured" ? [1, c.lines, c.branches, c.sharedLines + c.sharedBranches] : [0, 0, 0, 0];
  return [...items].sort((a, b) => {
    const ka = key(costs.byTest.get(a.nodeid));
    const kb = key(costs.byTest.get(b.nodeid));
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i]! - ka[i]!;
    return a.nodeid < b.nodeid ? -1 : a.nodeid > b.nodeid ? 1 : 0;
  });
}

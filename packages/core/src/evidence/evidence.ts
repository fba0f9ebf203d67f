import type { Finding, PropertyEvidence } from "../model/report.js";
import type { TestResult } from "./junit.js";
import type { Lease } from "../ledger/ledger.js";
import type { Universe } from "./universe.js";

/** The one class every collected test falls in (docs/contract.md §5). */
export type EvidenceClass = "proven" | "frozen" | "skipped" | "failed" | "missing";

/** The evidence classes in report order. */
export const EVIDENCE_CLASSES: readonly EvidenceClass[] = ["proven", "frozen", "skipped", "failed", "missing"];

/** Every collected test accounted for: counts and ids per class, and the results that fit no test. */
export interface EvidenceAccounting {
  universeFile: string;
  /** The result files the results came from, in first-seen order. */
  resultFiles: string[];
  /** Collected tests; the sum of `counts`. */
  collected: number;
  counts: Record<EvidenceClass, number>;
  /** Ids per class, in the universe's order. */
  ids: Record<EvidenceClass, string[]>;
  /** The results behind `ids.failed` (failed or error), for file and line. */
  failures: TestResult[];
  /** The results behind `ids.skipped` (skip or xfail without a lease). */
  skips: TestResult[];
  /**
   * pytest's module-level skips ("collection skipped", keyed by the module's path): each is a skip of
   * every test of its module. The universe holds none of them (pytest collected none), so each counts
   * here once, and the base's universe names its tests (`tests_skipped_unledgered`).
   */
  moduleSkips: TestResult[];
  /** Results for ids the universe does not hold (module collection errors included; module skips not). */
  unknownResults: TestResult[];
}

/**
 * Puts every collected test in exactly one class. A lease wins over any result (the test is frozen);
 * then failed (failed or error), skipped (skip or xfail), proven (passed); a test in no result file is
 * missing. `results` are one file's or the merged shards' (`mergeJunitResults`), one per id.
 */
export function accountEvidence(
  universe: Universe,
  activeLeases: readonly Lease[],
  results: readonly TestResult[],
): EvidenceAccounting {
  const frozen = new Set(activeLeases.map((l) => l.nodeid));
  const collected = new Set(universe.ids);
  const byId = new Map<string, TestResult>();
  const resultFiles: string[] = [];
  const unknownResults: TestResult[] = [];
  const skippedModules = new Map<string, TestResult>();
  for (const r of results) {
    if (!resultFiles.includes(r.file)) resultFiles.push(r.file);
    if (r.collectionSkip === true) {
      skippedModules.set(r.id, r);
      continue;
    }
    if (!collected.has(r.id)) {
      // `vitest list` leaves out the tests vitest would skip (it.skip, .todo, the others of an .only): their
      // skips are not another collection. A skip the patch added is judged from the signed run record
      // (tests_skipped_unledgered; test-changes.ts), never from these results.
      if (universe.runner === "vitest" && (r.outcome === "skipped" || r.outcome === "xfail")) continue;
      unknownResults.push(r);
      continue;
    }
    const earlier = byId.get(r.id);
    // Callers merge shards first; should an id still repeat, the worse outcome counts.
    if (!earlier || rank(r) > rank(earlier)) byId.set(r.id, r);
  }

  const ids: Record<EvidenceClass, string[]> = { proven: [], frozen: [], skipped: [], failed: [], missing: [] };
  const failures: TestResult[] = [];
  const skips: TestResult[] = [];
  const moduleOf = (id: string): string => id.split("::", 1)[0]!;
  const skipsUsed = new Set<string>();
  for (const id of universe.ids) {
    // A test of a module that skipped itself (collected in another environment, say) is skipped with it.
    const own = byId.get(id);
    const r = own ?? skippedModules.get(moduleOf(id));
    if (!own && r) skipsUsed.add(r.id);
    if (frozen.has(id)) ids.frozen.push(id);
    else if (!r) ids.missing.push(id);
    else if (r.outcome === "failed" || r.outcome === "error") {
      ids.failed.push(id);
      failures.push(r);
    } else if (r.outcome === "skipped" || r.outcome === "xfail") {
      ids.skipped.push(id);
      skips.push(r);
    } else ids.proven.push(id);
  }
  const counts = Object.fromEntries(EVIDENCE_CLASSES.map((c) => [c, ids[c].length])) as Record<EvidenceClass, number>;
  return {
    universeFile: universe.file,
    resultFiles,
    collected: universe.ids.length,
    counts,
    ids,
    failures,
    skips,
    moduleSkips: [...skippedModules.values()].filter((r) => !skipsUsed.has(r.id)),
    unknownResults,
  };
}

const RANK: Record<TestResult["outcome"], number> = { passed: 0, xfail: 1, skipped: 2, failed: 3, error: 4 };
const rank = (r: TestResult): number => RANK[r.outcome];
const MAX_LISTED = 10;
const list = (ids: readonly string[]): string =>
  `${ids.slice(0, MAX_LISTED).join(", ")}${ids.length > MAX_LISTED ? `, and ${ids.length - MAX_LISTED} more` : ""}`;

/** A file's own result in vitest's or jest's JUnit: the file failed, not only its collection. */
const WHOLE_FILE = /\.[cm]?[jt]sx?$/;

/**
 * `tests_failed`: one finding per collected test that failed or errored in the proof run, and per
 * result outside the universe that did (a module that failed to import is a failure too).
 */
export function testsFailed(accounting: EvidenceAccounting): Finding[] {
  const outside = accounting.unknownResults.filter((r) => r.outcome === "failed" || r.outcome === "error");
  return [...accounting.failures, ...outside].map((r) => ({
    reason: "tests_failed",
    message: r.collectionError
      ? `${r.id} ${WHOLE_FILE.test(r.id) ? "failed as a whole file (its import, a file-level hook or check such as obsolete snapshots)" : "failed to collect"} in the proof run${r.message ? `: ${r.message}` : ""}`
      : `${r.id} ${r.outcome === "error" ? "errored" : "failed"} in the proof run${r.message ? `: ${r.message}` : ""}`,
    file: r.file,
    line: r.line,
    fix: "fix the test or the code; a flaky test gets a lease in freeze.toml from a human",
  }));
}

/**
 * `missing_evidence`: collected tests, not frozen, that no result file mentions (one finding lists them);
 * and results for tests the universe does not hold (one finding per result file), since the proof run
 * then ran another collection than the one judged. Failures among those are `tests_failed` instead, and
 * pytest's module-level skips are skips.
 */
export function missingEvidence(accounting: EvidenceAccounting): Finding[] {
  const findings: Finding[] = [];
  const missing = accounting.ids.missing;
  if (missing.length > 0) {
    findings.push({
      reason: "missing_evidence",
      message: `${missing.length} collected test(s) have no result in ${accounting.resultFiles.length > 0 ? accounting.resultFiles.join(", ") : "the results"}: ${list(missing)}`,
      file: accounting.universeFile,
      fix: "run the whole suite in the proof run (every shard's results passed), deselecting only tests with an active lease",
    });
  }
  const outside = accounting.unknownResults.filter((r) => r.outcome !== "failed" && r.outcome !== "error");
  const byFile = new Map<string, TestResult[]>();
  for (const r of outside) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  for (const [file, rs] of byFile) {
    findings.push({
      reason: "missing_evidence",
      message: `${rs.length} result(s) name tests that are not in the universe ${accounting.universeFile}, so the proof ran another collection than the one judged: ${list(rs.map((r) => `${r.id} (${r.outcome})`))}`,
      file,
      line: rs[0]!.line,
      fix: "collect the universe and run the proof from the same commit, with the same test selection",
    });
  }
  return findings;
}

/**
 * `skip_budget`: unledgered skips (skip or xfail without a lease) above `max_unledgered_skips`. With no
 * budget given, skips are only counted and shown.
 */
export function skipBudget(accounting: EvidenceAccounting, maxUnledgeredSkips: number | undefined): Finding[] {
  const count = unledgeredSkipCount(accounting);
  if (maxUnledgeredSkips === undefined || count <= maxUnledgeredSkips) return [];
  const first = accounting.skips[0] ?? accounting.moduleSkips[0];
  const modules = accounting.moduleSkips.map((r) => `${r.id} (module-level skip)`);
  return [
    {
      reason: "skip_budget",
      message: `${count} unledgered skip(s) exceed max_unledgered_skips = ${maxUnledgeredSkips}: ${list([...accounting.ids.skipped, ...modules])}`,
      file: first?.file,
      line: first?.line,
      fix: "a skip marker is a freeze without a lease: fix the test, or have a human freeze it in freeze.toml",
    },
  ];
}

/** Unledgered skips: the skipped tests, and each module that skipped itself whose tests the universe does not hold. */
export function unledgeredSkipCount(accounting: EvidenceAccounting): number {
  return accounting.counts.skipped + accounting.moduleSkips.length;
}

/** The property suite's results as the gate counts them: cases that ran, failed, and did not run. */
export function countPropertyResults(resultFiles: string[], results: readonly TestResult[]): PropertyEvidence {
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  for (const r of results) {
    if (r.outcome === "skipped" || r.outcome === "xfail") skipped += 1;
    else tests += 1;
    if (r.outcome === "failed" || r.outcome === "error") failures += 1;
  }
  return { resultFiles, tests, failures, skipped };
}

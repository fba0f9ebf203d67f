import type { Finding, PropertyEvidence } from "./report.js";
import type { GateIssue } from "./errors.js";
import type { TestResult } from "./junit.js";
import type { Lease } from "./ledger.js";
import type { Universe } from "./universe.js";

/** The one class every collected test falls in (GATE.md 5). */
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
  /** Results for ids the universe does not hold (module collection errors included). */
  unknownResults: TestResult[];
  /** One warning per unknown result. */
  warnings: GateIssue[];
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
  const warnings: GateIssue[] = [];
  for (const r of results) {
    if (!resultFiles.includes(r.file)) resultFiles.push(r.file);
    if (!collected.has(r.id)) {
      unknownResults.push(r);
      warnings.push({
        code: "results_invalid",
        file: r.file,
        line: r.line,
        message: r.collectionError
          ? `${r.id} failed to collect in the proof run (${r.message ?? "collection error"})`
          : `${r.id} (${r.outcome}) is not in the universe ${universe.file}`,
        fix: "collect the universe and run the proof from the same commit, with the same test selection",
      });
      continue;
    }
    const earlier = byId.get(r.id);
    // Callers merge shards first; should an id still repeat, the worse outcome counts.
    if (!earlier || rank(r) > rank(earlier)) byId.set(r.id, r);
  }

  const ids: Record<EvidenceClass, string[]> = { proven: [], frozen: [], skipped: [], failed: [], missing: [] };
  const failures: TestResult[] = [];
  const skips: TestResult[] = [];
  for (const id of universe.ids) {
    const r = byId.get(id);
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
    unknownResults,
    warnings,
  };
}

const RANK: Record<TestResult["outcome"], number> = { passed: 0, xfail: 1, skipped: 2, failed: 3, error: 4 };
const rank = (r: TestResult): number => RANK[r.outcome];
const MAX_LISTED = 10;
const list = (ids: readonly string[]): string =>
  `${ids.slice(0, MAX_LISTED).join(", ")}${ids.length > MAX_LISTED ? `, and ${ids.length - MAX_LISTED} more` : ""}`;

/**
 * `tests_failed`: one finding per collected test that failed or errored in the proof run, and per
 * result outside the universe that did (a module that failed to import is a failure too).
 */
export function testsFailed(accounting: EvidenceAccounting): Finding[] {
  const outside = accounting.unknownResults.filter((r) => r.outcome === "failed" || r.outcome === "error");
  return [...accounting.failures, ...outside].map((r) => ({
    reason: "tests_failed",
    message: r.collectionError
      ? `${r.id} failed to collect in the proof run${r.message ? `: ${r.message}` : ""}`
      : `${r.id} ${r.outcome === "error" ? "errored" : "failed"} in the proof run${r.message ? `: ${r.message}` : ""}`,
    file: r.file,
    line: r.line,
    fix: "fix the test or the code; a flaky test gets a lease in freeze.toml from a human",
  }));
}

/** `missing_evidence`: collected tests, not frozen, that no result file mentions. One finding lists them. */
export function missingEvidence(accounting: EvidenceAccounting): Finding[] {
  const missing = accounting.ids.missing;
  if (missing.length === 0) return [];
  return [
    {
      reason: "missing_evidence",
      message: `${missing.length} collected test(s) have no result in ${accounting.resultFiles.length > 0 ? accounting.resultFiles.join(", ") : "the results"}: ${list(missing)}`,
      file: accounting.universeFile,
      fix: "run the whole suite in the proof run (every shard's results passed), deselecting only tests with an active lease",
    },
  ];
}

/**
 * `skip_budget`: unledgered skips (skip or xfail without a lease) above `max_unledgered_skips`. With no
 * budget given, skips are only counted and shown.
 */
export function skipBudget(accounting: EvidenceAccounting, maxUnledgeredSkips: number | undefined): Finding[] {
  if (maxUnledgeredSkips === undefined || accounting.counts.skipped <= maxUnledgeredSkips) return [];
  const first = accounting.skips[0];
  return [
    {
      reason: "skip_budget",
      message: `${accounting.counts.skipped} unledgered skip(s) exceed max_unledgered_skips = ${maxUnledgeredSkips}: ${list(accounting.ids.skipped)}`,
      file: first?.file,
      line: first?.line,
      fix: "a skip marker is a freeze without a lease: fix the test, or have a human freeze it in freeze.toml",
    },
  ];
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

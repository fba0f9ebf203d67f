import type { ReasonCode } from "./reasons.js";

/**
 * The rows of the decision table, top to bottom: the article's five signals in its order, then
 * proofgate's own. Each row answers for the reason codes listed with it.
 */
export const SIGNALS = [
  {
    id: "proven_coverage",
    label: "Proven coverage",
    reasons: ["proven_coverage", "coverage_missing", "shard_missing"],
  },
  { id: "coverage_drop", label: "Coverage drop", reasons: ["coverage_dropped"] },
  {
    id: "freeze_budget",
    label: "Freeze budget",
    reasons: ["expired_leases", "freeze_budget", "unknown_leases", "lease_too_long"],
  },
  {
    id: "lease_authorship",
    label: "Lease authorship",
    reasons: ["agent_added_lease", "agent_extended_lease", "agent_loosened_policy"],
  },
  {
    id: "fixture_digests",
    label: "Fixture digests",
    reasons: ["fixtures_unlocked", "fixture_digest", "unlocked_fixture_read"],
  },
  {
    id: "property_hold",
    label: "Property hold",
    reasons: ["property_hold", "seeds_empty", "seed_rewrite", "property_weakened"],
  },
  {
    id: "test_evidence",
    label: "Test evidence",
    reasons: ["tests_failed", "missing_evidence", "skip_budget", "tests_skipped_unledgered", "frozen_in_proof_run"],
  },
  {
    id: "test_runner",
    label: "Test runner",
    reasons: ["runner_tampering", "run_wrote_repository", "shipped_code_replaced"],
  },
  { id: "measurement", label: "Measurement", reasons: ["coverage_exclusions_added", "unmeasured_source"] },
  { id: "patch_coverage", label: "Patch coverage", reasons: ["patch_unproven"] },
  { id: "protected_paths", label: "Protected paths", reasons: ["protected_path"] },
  { id: "human_signatures", label: "Human signatures", reasons: ["unverified_human_trailer"] },
  { id: "history", label: "History", reasons: ["shallow_history"] },
  { id: "universe", label: "Test universe", reasons: ["collection_errors"] },
  { id: "removed_tests", label: "Removed tests", reasons: ["tests_removed"] },
  { id: "clock", label: "Clock", reasons: ["clock_override"] },
  { id: "policy", label: "Policy", reasons: [] },
] as const satisfies readonly { id: string; label: string; reasons: readonly ReasonCode[] }[];

/** A row's id. */
export type SignalId = (typeof SIGNALS)[number]["id"];

/**
 * pass: measured and within policy. fail: a reason fired. off: turned off in `proofgate.toml`
 * (shown so nobody mistakes it for a pass). not_measured: its input was not given (e.g. no JUnit
 * results), which a report states rather than hides.
 */
export type SignalResult = "pass" | "fail" | "off" | "not_measured";

/** One row of the decision table. */
export interface Signal {
  id: SignalId;
  label: string;
  /** What was measured, for a reader: `82.35% (lines 85.00%, branches 70.00%)`. */
  value: string;
  /** The pass condition as configured: `>= 70%`. */
  policy: string;
  result: SignalResult;
  /** The reasons of this row that fired, in rule order. */
  reasons: ReasonCode[];
}

/** What a row shows when nothing fired. */
export interface SignalMeasure {
  value: string;
  policy: string;
  /** Turned off in the config. */
  off?: boolean;
  /** Its input was not given. */
  notMeasured?: boolean;
}

/** Builds the table: every row, its measure, and the result the fired reasons give it. */
export function buildSignals(measures: Record<SignalId, SignalMeasure>, fired: readonly ReasonCode[]): Signal[] {
  return SIGNALS.map(({ id, label, reasons }) => {
    const m = measures[id];
    const own = fired.filter((r) => (reasons as readonly ReasonCode[]).includes(r));
    const result: SignalResult = own.length > 0 ? "fail" : m.off ? "off" : m.notMeasured ? "not_measured" : "pass";
    return { id, label, value: m.value, policy: m.policy, result, reasons: own };
  });
}

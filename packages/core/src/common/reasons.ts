/**
 * Why the gate says REJECT, in the order the rules run and reports list them: the article's checks
 * first, then proofgate's own. Stable strings: merge queues and dashboards match on them.
 */
export const RULE_REASONS = [
  "expired_leases",
  "freeze_budget",
  "unknown_leases",
  "lease_too_long",
  "agent_added_lease",
  "agent_extended_lease",
  "agent_loosened_policy",
  "proven_coverage",
  "coverage_missing",
  "shard_missing",
  "coverage_dropped",
  "fixtures_unlocked",
  "fixture_digest",
  "unlocked_fixture_read",
  "property_hold",
  "seeds_empty",
  "seed_rewrite",
  "property_weakened",
  "tests_failed",
  "missing_evidence",
  "skip_budget",
  "tests_skipped_unledgered",
  "frozen_in_proof_run",
  "runner_tampering",
  "run_wrote_repository",
  "shipped_code_replaced",
  "coverage_exclusions_added",
  "unmeasured_source",
  "patch_unproven",
  "protected_path",
  "unverified_human_trailer",
  "shallow_history",
  "collection_errors",
  "tests_removed",
  "clock_override",
] as const;

/** Every reason code a report can carry: the rules' and `input_error` (the gate could not evaluate). */
export const REASON_CODES = [...RULE_REASONS, "input_error"] as const;

/** One reason code. */
export type ReasonCode = (typeof REASON_CODES)[number];

/** The one decision. */
export type Decision = "MERGE" | "REJECT";

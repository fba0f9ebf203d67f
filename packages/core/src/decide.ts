import type { CoverageSummary } from "./coverage-model.js";
import type { IsoDate } from "./dates.js";
import { formatIssue, type GateIssue } from "./errors.js";
import type { Lease, Ledger } from "./ledger.js";
import { classifyLeases } from "./ledger.js";
import { findUnknownLeases, type UnknownLease } from "./deselect.js";
import { PyFloat } from "./python-json.js";
import { buildSignals, type Signal, type SignalId, type SignalMeasure } from "./signals.js";
import type { Universe } from "./universe.js";
import { accountEvidence, missingEvidence, skipBudget, testsFailed, type EvidenceAccounting } from "./evidence.js";
import type { TestResult } from "./junit.js";
import {
  agentAddedLeaseCount,
  fixtureDelta,
  fixtureDigestFindings,
  leaseFindings,
  protectedPathFindings,
  seedRewriteFindings,
  seedsEmptyFindings,
  shallowFindings,
  unlockedFindings,
  type PatchEvidence,
  type PatchPolicy,
} from "./patch.js";

/** Why the gate says REJECT. Stable strings: merge queues and dashboards match on them. */
export type ReasonCode =
  | "expired_leases"
  | "freeze_budget"
  | "unknown_leases"
  | "agent_added_lease"
  | "agent_extended_lease"
  | "agent_loosened_policy"
  | "proven_coverage"
  | "coverage_missing"
  | "shard_missing"
  | "fixtures_unlocked"
  | "fixture_digest"
  | "property_hold"
  | "seeds_empty"
  | "seed_rewrite"
  | "tests_failed"
  | "missing_evidence"
  | "skip_budget"
  | "frozen_in_proof_run"
  | "protected_path"
  | "shallow_history"
  | "collection_errors"
  | "clock_override"
  | "input_error";

/** Every reason code, in the order the rules run (and `reasons` lists them). */
export const REASON_ORDER: readonly ReasonCode[] = [
  "expired_leases",
  "freeze_budget",
  "unknown_leases",
  "agent_added_lease",
  "agent_extended_lease",
  "agent_loosened_policy",
  "proven_coverage",
  "coverage_missing",
  "shard_missing",
  "fixtures_unlocked",
  "fixture_digest",
  "property_hold",
  "seeds_empty",
  "seed_rewrite",
  "tests_failed",
  "missing_evidence",
  "skip_budget",
  "frozen_in_proof_run",
  "protected_path",
  "shallow_history",
  "collection_errors",
  "clock_override",
];

/** The one decision. */
export type Decision = "MERGE" | "REJECT";

/** A digest of one input file, so a report says exactly what it judged. */
export interface InputDigest {
  role: "config" | "ledger" | "universe" | "coverage" | "contexts" | "results" | "properties" | "fixtures_lock";
  path: string;
  sha256: string;
}

/** Proven coverage as the gate judges it, whichever way it was measured. */
export type ProvenCoverage = CoverageSummary & {
  /** One report, several shards merged, or one run's contexts minus the frozen tests. */
  source: "report" | "shards" | "contexts";
  /** The files it was read from. */
  files: string[];
  format: string;
  /** The shard count the run declared; fewer files is `shard_missing`. */
  shardsExpected?: number | undefined;
};

/** The proof run's test results (GATE.md 5); `decide` accounts them against the universe. */
export interface ProofResults {
  /** Every result read (shards merged), frozen tests' included. */
  results: readonly TestResult[];
  /** The budget for skips without a lease; none when undefined. */
  maxUnledgeredSkips?: number | undefined;
}

/** Everything `decide` judges. The caller reads files and the clock; this stays pure. */
export interface DecideInput {
  today: IsoDate;
  /** True when `today` came from a flag, not the machine's clock: then the answer cannot be MERGE. */
  clockOverride: boolean;
  ledger: Ledger;
  universe: Universe;
  coverage: ProvenCoverage;
  /** Test results of the proof run, when given. */
  evidence?: ProofResults | undefined;
  minProven: number;
  fixtureDelta: number;
  propertyFailures: number;
  agentAddedLeases: number;
  humanFixtureLock: boolean;
  inputs: InputDigest[];
  warnings?: GateIssue[];
  /** The patch as git tells it (`--base/--head`): then lease, fixture, seed and protection signals come from it. */
  patch?: PatchEvidence | undefined;
  /** Agent patterns and trailer names; needed with `patch`. */
  policy?: PatchPolicy | undefined;
  /**
   * The property suite as `proofgate check` reads it (`[properties]`): then `propertyFailures` is its
   * count, and a suite that is on but names no results, or whose results hold no test, is a failure.
   */
  properties?: PropertyEvidence | undefined;
  /** Signals turned off in the config: shown as `off` in every report. */
  off?: { fixtures?: boolean; properties?: boolean } | undefined;
  /** The commands `check --run` ran; a non-zero exit fails the signal it feeds. */
  commands?: CommandOutcome[] | undefined;
}

/** The property suite's results, read from the JUnit files `[properties] results` names. */
export interface PropertyEvidence {
  resultFiles: string[];
  /** Test cases in them that ran (passed, failed or errored). */
  tests: number;
  /** Failed or errored test cases. */
  failures: number;
  /** Skipped or xfailed cases: a property that did not run holds nothing. */
  skipped: number;
}

/** A command `check --run` ran, and how it ended. */
export interface CommandOutcome {
  step: "collect" | "proof" | "properties";
  command: string;
  /** The exit code; a signal's number when it was killed (128 + n, as a shell reports it). */
  exitCode: number;
}

/** One failed signal, pointing at what caused it and how to fix it. */
export interface Finding {
  reason: ReasonCode;
  message: string;
  file?: string | undefined;
  line?: number | undefined;
  /** The commit that caused it, when the patch's history says. */
  commit?: string | undefined;
  author?: string | undefined;
  fix: string;
}

interface RuleContext extends DecideInput {
  active: Lease[];
  expired: Lease[];
  unknown: UnknownLease[];
  accounting: EvidenceAccounting | undefined;
  /** The patch, unless its history is shallow (then only shallow_history is judged from it). */
  judgedPatch: { patch: PatchEvidence; policy: PatchPolicy } | undefined;
}

type Rule = (ctx: RuleContext) => Finding[];

function commandFindings(
  commands: readonly CommandOutcome[] | undefined,
  step: CommandOutcome["step"],
  reason: ReasonCode,
  what: string,
): Finding[] {
  return (commands ?? [])
    .filter((c) => c.step === step && c.exitCode !== 0)
    .map((c) => ({
      reason,
      message: `${what} (\`${c.command}\`) exited with ${c.exitCode}`,
      fix: `run \`${c.command}\` locally and fix what it reports; its output is above in the log`,
    }));
}

const leaseWhere = (lease: Lease, ledger: Ledger): { file: string; line: number | undefined } => ({
  file: ledger.file,
  line: lease.line,
});

/** The rules, one per reason, in the reference script's order; proofgate's own checks follow. */
const RULES: readonly Rule[] = [
  function expiredLeases({ expired, ledger, today }) {
    if (!ledger.rejectIfExpired) return [];
    return expired.map((lease) => ({
      reason: "expired_leases",
      message: `lease on ${lease.nodeid} (owner ${lease.owner}) expired ${lease.expires}; today is ${today}`,
      ...leaseWhere(lease, ledger),
      fix: "fix the test and delete the lease, or have its owner renew it in a human commit",
    }));
  },
  function freezeBudget({ active, ledger }) {
    if (active.length <= ledger.maxActiveLeases) return [];
    return [
      {
        reason: "freeze_budget",
        message: `${active.length} active leases exceed the budget of ${ledger.maxActiveLeases}${ledger.budgetOmitted ? " (max_active_leases omitted: 0)" : ""}`,
        file: ledger.file,
        fix: "fix frozen tests and delete their leases; raising max_active_leases is a human decision",
      },
    ];
  },
  function unknownLeases({ unknown, ledger, universe }) {
    return unknown.map(({ lease, close }) => ({
      reason: "unknown_leases",
      message: `lease on ${lease.nodeid} names no collected test in ${universe.file}${close.length ? `; close: ${close.map((c) => c.id).join(", ")}` : ""}`,
      ...leaseWhere(lease, ledger),
      fix: "copy the current id from `pytest --collect-only -q`, or delete the lease if the test is gone",
    }));
  },
  function agentAddedLease({ ledger, agentAddedLeases, judgedPatch }) {
    if (judgedPatch)
      return leaseFindings(judgedPatch.patch, judgedPatch.policy).filter((f) => f.reason === "agent_added_lease");
    if (!ledger.rejectIfAgentAddsLease || agentAddedLeases <= 0) return [];
    return [
      {
        reason: "agent_added_lease",
        message: `${agentAddedLeases} lease(s) added by an agent`,
        file: ledger.file,
        fix: "a human adds leases, in a commit with the trailer `Freeze-Lease: human`",
      },
    ];
  },
  function agentExtendedLease({ judgedPatch }) {
    return judgedPatch
      ? leaseFindings(judgedPatch.patch, judgedPatch.policy).filter((f) => f.reason === "agent_extended_lease")
      : [];
  },
  function agentLoosenedPolicy({ judgedPatch }) {
    return judgedPatch
      ? leaseFindings(judgedPatch.patch, judgedPatch.policy).filter((f) => f.reason === "agent_loosened_policy")
      : [];
  },
  function provenCoverage({ coverage, minProven }) {
    if (coverage.percent >= minProven) return [];
    return [
      {
        reason: "proven_coverage",
        message: `proven coverage ${coverage.percent.toFixed(2)}% is below the floor of ${minProven}%`,
        file: coverage.files.join(", "),
        fix: "cover the changed code with tests that are not frozen",
      },
    ];
  },
  function coverageMissing({ coverage }) {
    if (coverage.statements > 0) return [];
    return [
      {
        reason: "coverage_missing",
        message: "the coverage report measured no statements",
        file: coverage.files.join(", "),
        fix: "check `--cov=<package>` and `[run] source`: the proof run measured nothing",
      },
    ];
  },
  function shardMissing({ coverage }) {
    const expected = coverage.shardsExpected;
    if (expected === undefined || coverage.source === "contexts" || coverage.files.length >= expected) return [];
    return [
      {
        reason: "shard_missing",
        message: `${expected - coverage.files.length} of ${expected} coverage shards are missing: only ${coverage.files.join(", ")}`,
        fix: "upload every parallel job's report as an artifact and pass each with --report",
      },
    ];
  },
  function fixturesUnlocked({ judgedPatch }) {
    return judgedPatch ? unlockedFindings(judgedPatch.patch) : [];
  },
  function fixtureDigest({ fixtureDelta, humanFixtureLock, judgedPatch, off }) {
    if (off?.fixtures) return [];
    if (judgedPatch) return fixtureDigestFindings(judgedPatch.patch, judgedPatch.policy);
    if (fixtureDelta <= 0 || humanFixtureLock) return [];
    return [
      {
        reason: "fixture_digest",
        message: `${fixtureDelta} fixture digest(s) changed without a human lock`,
        fix: "a human updates golden files, in a commit with `Fixture-Lock: human`",
      },
    ];
  },
  function propertyHold({ propertyFailures, properties, off, commands }) {
    if (off?.properties) return [];
    const findings: Finding[] = commandFindings(commands, "properties", "property_hold", "the property suite");
    if (properties && properties.resultFiles.length === 0) {
      findings.push({
        reason: "property_hold",
        message: "the property suite is on, but no results were given",
        fix: "name its JUnit XML in [properties] results of proofgate.toml, or turn it off there with enabled = false (a human change)",
      });
    } else if (properties && properties.tests === 0) {
      findings.push({
        reason: "property_hold",
        message: `the property results hold no case that ran: ${properties.resultFiles.join(", ")}`,
        file: properties.resultFiles[0],
        fix: "run the property suite so that it writes its results there (--junitxml)",
      });
    }
    if (properties && properties.skipped > 0) {
      findings.push({
        reason: "property_hold",
        message: `${properties.skipped} property case(s) were skipped: a property that does not run holds nothing`,
        file: properties.resultFiles[0],
        fix: "remove the skip or xfail marker; a property that must stop is a human decision, made in the suite",
      });
    }
    if (propertyFailures > 0) {
      findings.push({
        reason: "property_hold",
        message: `the property suite reported ${propertyFailures} failure(s)`,
        file: properties?.resultFiles[0],
        fix: "fix the code, not the seeds: the seed corpus must predate the patch",
      });
    }
    return findings;
  },
  function seedsEmpty({ judgedPatch }) {
    return judgedPatch ? seedsEmptyFindings(judgedPatch.patch) : [];
  },
  function seedRewrite({ judgedPatch }) {
    return judgedPatch ? seedRewriteFindings(judgedPatch.patch, judgedPatch.policy) : [];
  },
  function failedTests({ accounting, commands }) {
    return [
      ...commandFindings(commands, "proof", "tests_failed", "the proof run"),
      ...(accounting ? testsFailed(accounting) : []),
    ];
  },
  function missingResults({ accounting }) {
    return accounting ? missingEvidence(accounting) : [];
  },
  function unledgeredSkips({ accounting, evidence }) {
    return accounting ? skipBudget(accounting, evidence?.maxUnledgeredSkips) : [];
  },
  function frozenInProofRun({ evidence, coverage, active }) {
    // A frozen test that ran in the proof run put its lines into the coverage report: the rerun did not
    // deselect it. (The single-run mode drops frozen contexts itself, so there a full run is expected.)
    if (!evidence || coverage.source === "contexts") return [];
    const frozen = new Set(active.map((l) => l.nodeid));
    return evidence.results
      .filter((r) => frozen.has(r.id) && r.outcome !== "skipped")
      .map((r) => ({
        reason: "frozen_in_proof_run",
        message: `the frozen test ${r.id} ran in the proof run (${r.outcome}), so its coverage counts as proof`,
        file: r.file,
        line: r.line,
        fix: "run the proof with `proofgate deselect --format plugin` loaded (-p proofgate_frozen)",
      }));
  },
  function protectedPath({ judgedPatch }) {
    return judgedPatch ? protectedPathFindings(judgedPatch.patch, judgedPatch.policy) : [];
  },
  function shallowHistory({ patch }) {
    return patch ? shallowFindings(patch) : [];
  },
  function collectionErrors({ universe, commands }) {
    const failed = commandFindings(commands, "collect", "collection_errors", "the collection");
    return [
      ...failed,
      ...universe.collectionErrors.map((error): Finding => ({
        reason: "collection_errors",
        message: `pytest reported a collection error: ${error.text}; the universe is incomplete`,
        file: universe.file,
        line: error.line,
        fix: "fix the import or syntax error so that every test is collected",
      })),
    ];
  },
  function clockOverride({ clockOverride, today }) {
    if (!clockOverride) return [];
    return [
      {
        reason: "clock_override",
        message: `judged as of ${today}, a date given on the command line, not the machine's clock`,
        fix: "drop --today: previews cannot merge",
      },
    ];
  },
];

/** The gate's report: the article's keys first, then proofgate's own. */
export interface DecideReport {
  decision: Decision;
  reasons: ReasonCode[];
  findings: Finding[];
  /** The decision table, top to bottom. */
  signals: Signal[];
  /** JSON-ready object; serialise with `toPythonJson`. */
  json: Record<string, unknown>;
}

/** Report schema version: bump on any change a consumer would notice. */
export const REPORT_SCHEMA_VERSION = 1;

/** Applies every rule and builds the report. The first failing signal is enough; all are listed. */
export function decide(given: DecideInput): DecideReport {
  // With the suite's own results, their failures are the count (no separate number can disagree).
  const input: DecideInput = given.properties ? { ...given, propertyFailures: given.properties.failures } : given;
  const { active, expired } = classifyLeases(input.ledger.leases, input.today);
  const unknown = findUnknownLeases(active, input.universe);
  const accounting = input.evidence ? accountEvidence(input.universe, active, input.evidence.results) : undefined;
  if (input.patch && !input.policy)
    throw new TypeError("decide: a patch needs its policy (agent patterns and trailer names)");
  const judgedPatch =
    input.patch && input.policy && !input.patch.shallow ? { patch: input.patch, policy: input.policy } : undefined;
  const ctx: RuleContext = { ...input, active, expired, unknown, accounting, judgedPatch };
  const findings = RULES.flatMap((rule) => rule(ctx));
  const reasons = [...new Set(findings.map((f) => f.reason))];
  const decision: Decision = reasons.length === 0 ? "MERGE" : "REJECT";
  const { coverage, ledger } = input;
  const signals = buildSignals(signalMeasures(ctx), reasons);
  const json: Record<string, unknown> = {
    today_utc: input.today,
    collected_tests: input.universe.ids.length,
    active_leases: active.length,
    expired_leases: expired.length,
    proven_coverage_percent: new PyFloat(coverage.percent),
    min_proven_coverage_percent: new PyFloat(input.minProven),
    fixture_digest_delta: judgedPatch ? fixtureDelta(judgedPatch.patch) : input.fixtureDelta,
    property_failures: input.propertyFailures,
    agent_added_leases: judgedPatch
      ? agentAddedLeaseCount(judgedPatch.patch, judgedPatch.policy)
      : input.agentAddedLeases,
    reasons,
    decision,
    schema_version: REPORT_SCHEMA_VERSION,
    signals: signals.map(signalJson),
    clock: { source: input.clockOverride ? "override" : "system", today_utc: input.today },
    base: input.patch?.base ?? null,
    head: input.patch?.head ?? null,
    commits: input.patch ? input.patch.commits.length : null,
    coverage: {
      source: coverage.source,
      files: coverage.files,
      format: coverage.format,
      shards_expected: coverage.shardsExpected ?? null,
      proven_coverage_percent: new PyFloat(coverage.percent),
      num_statements: coverage.statements,
      covered_lines: coverage.coveredLines,
      num_branches: coverage.branches,
      covered_branches: coverage.coveredBranches,
      line_rate: new PyFloat(coverage.lineRate),
      branch_rate: new PyFloat(coverage.branchRate),
    },
    ledger: {
      file: ledger.file,
      max_active_leases: ledger.maxActiveLeases,
      budget_omitted: ledger.budgetOmitted,
      reject_if_expired: ledger.rejectIfExpired,
      reject_if_agent_adds_lease: ledger.rejectIfAgentAddsLease,
      active: active.map(leaseJson),
      expired: expired.map(leaseJson),
      unknown: unknown.map((u) => ({ ...leaseJson(u.lease), close_ids: u.close.map((c) => c.id) })),
    },
    accounting: accounting ? accountingJson(accounting, input.evidence?.maxUnledgeredSkips) : null,
    universe: {
      file: input.universe.file,
      collected: input.universe.ids.length,
      duplicates: input.universe.duplicates.length,
      collection_errors: input.universe.collectionErrors.length,
    },
    properties: input.off?.properties
      ? { enabled: false }
      : input.properties
        ? {
            enabled: true,
            result_files: input.properties.resultFiles,
            tests: input.properties.tests,
            failures: input.properties.failures,
            skipped: input.properties.skipped,
          }
        : null,
    fixtures: { enabled: !input.off?.fixtures },
    commands: (input.commands ?? []).map((c) => ({ step: c.step, command: c.command, exit_code: c.exitCode })),
    details: findings.map(findingJson),
    inputs: input.inputs,
    warnings: (input.warnings ?? []).map(formatIssue),
    errors: [],
  };
  return { decision, reasons, findings, signals, json };
}

function signalJson(s: Signal): Record<string, unknown> {
  return { id: s.id, label: s.label, value: s.value, policy: s.policy, result: s.result, reasons: s.reasons };
}

const pct = (n: number): string => `${n.toFixed(2)}%`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What each row of the decision table shows: the measured value and the policy it is held to. */
function signalMeasures(ctx: RuleContext): Record<SignalId, SignalMeasure> {
  const {
    coverage,
    ledger,
    active,
    expired,
    unknown,
    accounting,
    judgedPatch,
    patch,
    policy,
    properties,
    off,
    universe,
  } = ctx;
  const trailer = (key: keyof PatchPolicy["trailers"], fallback: string): string =>
    `${policy?.trailers[key] ?? fallback}: human`;
  const delta = judgedPatch ? fixtureDelta(judgedPatch.patch) : ctx.fixtureDelta;
  const unlocked = judgedPatch?.patch.fixtures?.unlocked;
  const unlockedCount = unlocked
    ? unlocked.changed.length + unlocked.added.length + unlocked.removed.length
    : undefined;
  const seeds = judgedPatch?.patch.seeds;
  const seedTouches = seeds ? seeds.touching.reduce((n, t) => n + t.paths.length, 0) : undefined;
  const added = judgedPatch ? agentAddedLeaseCount(judgedPatch.patch, judgedPatch.policy) : ctx.agentAddedLeases;
  const leaseChanges = judgedPatch
    ? judgedPatch.patch.ledger.changes.reduce((n, c) => n + c.changes.length, 0)
    : undefined;
  const protectedTouches = judgedPatch?.patch.protect.touching;
  return {
    proven_coverage: {
      value: `${pct(coverage.percent)} (lines ${pct(coverage.lineRate * 100)}${coverage.branches > 0 ? `, branches ${pct(coverage.branchRate * 100)}` : ""}; ${coverage.source === "contexts" ? "one run minus frozen contexts" : coverage.source === "shards" ? `${coverage.files.length}${coverage.shardsExpected ? ` of ${coverage.shardsExpected}` : ""} shards` : "proof run"})`,
      policy: `>= ${ctx.minProven}%`,
    },
    freeze_budget: {
      value: `${active.length} active, ${expired.length} expired${unknown.length ? `, ${unknown.length} unknown` : ""}`,
      policy: `active <= ${ledger.maxActiveLeases}${ledger.rejectIfExpired ? ", none expired" : ""}, each names a collected test`,
    },
    lease_authorship: {
      value: judgedPatch
        ? `${plural(leaseChanges ?? 0, "loosening change")} in the range; ${plural(added, "lease")} added without a human's trailer`
        : `${plural(added, "lease")} added by an agent (given)`,
      policy: `lease changes by a human with ${trailer("freezeLease", "Freeze-Lease")}`,
    },
    fixture_digests: {
      value: `delta ${delta}${unlockedCount !== undefined ? `; ${unlockedCount} file(s) differ from the lock` : ""}`,
      policy: `files match the lock; a delta needs ${trailer("fixtureLock", "Fixture-Lock")}`,
      off: off?.fixtures === true,
    },
    property_hold: {
      value: `${plural(ctx.propertyFailures, "failure")}${properties ? ` of ${plural(properties.tests, "case")}${properties.skipped ? `, ${properties.skipped} skipped` : ""}` : ""}${seeds ? `; ${plural(seeds.filesAtHead, "seed")} at head, ${seedTouches} touched` : ""}`,
      policy: `0 failures; seeds non-empty, changed only with ${trailer("propertySeeds", "Property-Seeds")}`,
      off: off?.properties === true,
    },
    test_evidence: accounting
      ? {
          value: `${accounting.counts.proven} proven, ${accounting.counts.frozen} frozen, ${accounting.counts.skipped} skipped, ${accounting.counts.failed} failed, ${accounting.counts.missing} missing`,
          policy: `none failed or missing${ctx.evidence?.maxUnledgeredSkips !== undefined ? `; skips <= ${ctx.evidence.maxUnledgeredSkips}` : ""}`,
        }
      : { value: "no results given", policy: "none failed or missing", notMeasured: true },
    protected_paths: protectedTouches
      ? {
          value: `${plural(protectedTouches.length, "commit")} touch ${judgedPatch!.patch.protect.patterns.join(", ")}`,
          policy: `changed only with ${trailer("gateChange", "Gate-Change")}`,
        }
      : {
          value: patch ? "not judged" : "no git range given",
          policy: `changed only with ${trailer("gateChange", "Gate-Change")}`,
          notMeasured: true,
        },
    history: patch
      ? {
          value: patch.shallow
            ? "truncated"
            : `${plural(patch.commits.length, "commit")} in ${patch.base.slice(0, 12)}..${patch.head.slice(0, 12)}`,
          policy: "the whole range reaches the base",
        }
      : { value: "no git range given", policy: "the whole range reaches the base", notMeasured: true },
    universe: {
      value: `${plural(universe.ids.length, "test")} collected, ${plural(universe.collectionErrors.length, "collection error")}`,
      policy: "no collection errors",
    },
    clock: {
      value: `${ctx.today} (${ctx.clockOverride ? "given on the command line" : "system clock"})`,
      policy: "the machine's clock",
    },
  };
}

function accountingJson(
  accounting: EvidenceAccounting,
  maxUnledgeredSkips: number | undefined,
): Record<string, unknown> {
  return {
    result_files: accounting.resultFiles,
    collected: accounting.collected,
    ...accounting.counts,
    max_unledgered_skips: maxUnledgeredSkips ?? null,
    unknown_results: accounting.unknownResults.length,
  };
}

function leaseJson(lease: Lease): Record<string, unknown> {
  return { nodeid: lease.nodeid, owner: lease.owner, expires: lease.expires, line: lease.line ?? null };
}

function findingJson(f: Finding): Record<string, unknown> {
  return {
    reason: f.reason,
    message: f.message,
    file: f.file ?? null,
    line: f.line ?? null,
    commit: f.commit ?? null,
    author: f.author ?? null,
    fix: f.fix,
  };
}

/**
 * The report when the gate could not evaluate: decision REJECT, reason `input_error`, the errors
 * listed, and every number it could not compute as null. Written so a queue that parses JSON still
 * sees REJECT.
 */
export function errorReport(
  today: IsoDate | undefined,
  issues: readonly GateIssue[],
  inputs: InputDigest[] = [],
  range: { base?: string | undefined; head?: string | undefined } = {},
): Record<string, unknown> {
  return {
    today_utc: today ?? null,
    collected_tests: null,
    active_leases: null,
    expired_leases: null,
    proven_coverage_percent: null,
    min_proven_coverage_percent: null,
    fixture_digest_delta: null,
    property_failures: null,
    agent_added_leases: null,
    reasons: ["input_error"],
    decision: "REJECT",
    schema_version: REPORT_SCHEMA_VERSION,
    signals: [],
    base: range.base ?? null,
    head: range.head ?? null,
    details: [],
    inputs,
    warnings: [],
    errors: issues.map((i) => ({
      code: i.code,
      message: i.message,
      file: i.file ?? null,
      line: i.line ?? null,
      fix: i.fix ?? null,
    })),
  };
}

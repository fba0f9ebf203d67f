// The gate's report as a type: what `decide` returns, the renderings show, platforms publish, and
// report-json.ts serialises once, at the edge. Types only, so every module can import them without a cycle.
import type { CoverageSummary } from "../coverage/coverage-model.js";
import type { CoverageMap, FrozenOnlyFile } from "../coverage/frozen-only.js";
import type { PatchCoverage } from "../coverage/patch-coverage.js";
import type { LeaseCost } from "../coverage/lease-cost.js";
import type { IsoDate } from "../common/dates.js";
import type { GateIssue } from "../common/errors.js";
import type { Decision, ReasonCode } from "../common/reasons.js";
import type { Signal } from "../common/signals.js";

/** Report schema version: bump on any change a consumer would notice. */
export const REPORT_SCHEMA_VERSION = 2;

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

/** What an input file was read as. */
export type InputRole =
  | "config"
  | "ledger"
  | "universe"
  | "coverage"
  | "contexts"
  | "full_coverage"
  | "results"
  | "properties"
  | "fixtures_lock"
  | "allowed_signers"
  | "base_universe"
  | "base_results"
  | "base_coverage"
  | "base_properties"
  | "base_settings";

/** A digest of one input file, so a report says exactly what it judged. */
export interface InputDigest {
  role: InputRole;
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
  /** The shard count the run declared; fewer files (in the single-run mode, fewer data files) is `shard_missing`. */
  shardsExpected?: number | undefined;
  /** Single-run mode: the `.coverage` data files read, one per shard (`files` then lists their reports after them). */
  dataFiles?: string[] | undefined;
  /**
   * Single-run mode, where the data allows two counts: the higher percentage coverage.py might print, and
   * why. `percent` is the lower; the decision says so when the floor lies between them.
   */
  upper?: { percent: number; why: string[] } | undefined;
  /**
   * Line by line, when the data is line-based: proven and (when measured) raw, for the frozen-only lines,
   * patch coverage and the views. Undefined for Istanbul's statement ids.
   */
  map?: CoverageMap | undefined;
  /** Why the raw figure was not measured (rerun without `[coverage] full_report`, a format without lines). */
  rawNotMeasured?: string | undefined;
  /** Single run: every nodeid whose contexts were dropped (the active leases, and tests that could not fail). */
  dropped?: readonly string[] | undefined;
  /** Single run: dropped nodeids with no context in the data file. */
  frozenNotRun?: readonly string[] | undefined;
};

/** The raw figure: every test counted, frozen ones included (what a plain coverage badge shows). */
export interface RawCoverage {
  percent: number;
  numStatements: number;
  coveredLines: number;
  numBranches: number;
  coveredBranches: number;
}

/** What the frozen tests were hiding: the lines and branches only they run, worst files first. */
export interface FrozenOnlySection {
  lines: number;
  branches: number;
  /** Whether each range names the frozen tests behind it (single run) or cannot (rerun: `tests` null). */
  attributed: boolean;
  files: FrozenOnlyFile[];
}

/**
 * Proven patch coverage (`check`): the statements base..head added or changed in measured files, and the
 * share an unfrozen test ran. `percent` is null when nothing is coverable (`notApplicable` says why).
 */
export type PatchCoverageSection = Omit<PatchCoverage, "unaligned"> & {
  /** `[coverage] min_patch_proven`; null: not enforced. */
  minPatchProven: number | null;
};

/** A step of `check --run`. */
export type CommandStep = "collect" | "proof" | "properties";

/** A base command `check --run` ran in the base's worktree (its files are judged, not its exit code). */
export type BaseCommandStep =
  "base setup" | "base collect" | "base properties" | "base coverage settings" | "base marked skips" | "base skips";

/** A command `check --run` ran, and how it ended. */
export interface CommandOutcome {
  step: CommandStep | BaseCommandStep;
  command: string;
  /** The exit code; a signal's number when it was killed (128 + n, as a shell reports it). */
  exitCode: number;
  /** How long it ran, spawn to exit, by the gate's clock (seconds); undefined: not timed. */
  seconds?: number | undefined;
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

/** A lease as the report lists it. */
export interface ReportLease {
  nodeid: string;
  owner: string;
  expires: IsoDate;
  line: number | null;
  /** Active leases: what the lease costs (the lines only its test runs); see coverage/lease-cost.ts. */
  cost?: LeaseCost | undefined;
}

/** The ledger as judged: its policy and the leases by class. */
export interface LedgerSection {
  file: string;
  maxActiveLeases: number;
  budgetOmitted: boolean;
  rejectIfExpired: boolean;
  rejectIfAgentAddsLease: boolean;
  active: ReportLease[];
  expired: ReportLease[];
  /** Active leases that name no collected test, with the collected ids close to theirs. */
  unknown: (ReportLease & { closeIds: string[] })[];
  /** The frozen-only lines and branches no single frozen test runs alone; null when costs are not measured. */
  costPool: { lines: number; branches: number } | null;
  /** Why the leases' costs are not measured (the rerun); null when they are. */
  costNotMeasured: string | null;
}

/** Proven coverage with its counts and where it came from. */
export interface CoverageSection {
  source: ProvenCoverage["source"];
  files: string[];
  format: string;
  shardsExpected: number | null;
  provenCoveragePercent: number;
  numStatements: number;
  coveredLines: number;
  numBranches: number;
  coveredBranches: number;
  lineRate: number;
  branchRate: number;
  /** Every test kept (schema 2); null when not measured, with `rawNotMeasured` saying why. */
  raw: RawCoverage | null;
  rawNotMeasured: string | null;
  /** Raw minus proven, in percentage points: the debt the frozen tests hide; null when raw was not measured. */
  hiddenPoints: number | null;
  /** The lines and branches only frozen tests run; null when raw was not measured. */
  frozenOnly: FrozenOnlySection | null;
  /**
   * The run line by line (proven, and raw when measured), when the data is line-based: what the
   * platforms' line views read (GitLab's Cobertura of the proven lines). Not in report.json.
   */
  lines?: CoverageMap | undefined;
  /** Proven patch coverage; null when not measured (`decide`, no line map, a truncated history), with `patchNotMeasured` saying why. */
  patch: PatchCoverageSection | null;
  patchNotMeasured: string | null;
  /** `[coverage] max_drop`; null when off. */
  maxDropPoints: number | null;
  /** The base's proven figure the drop is measured against; null when off or not measured. */
  baseProvenCoveragePercent: number | null;
}

/** The evidence accounting: every collected test in one class. */
export interface AccountingSection {
  resultFiles: string[];
  collected: number;
  proven: number;
  frozen: number;
  skipped: number;
  failed: number;
  missing: number;
  maxUnledgeredSkips: number | null;
  unknownResults: number;
}

/** The test universe as read. */
export interface UniverseSection {
  file: string;
  collected: number;
  duplicates: number;
  collectionErrors: number;
}

/** The property suite as `check` read it. */
export type PropertiesSection =
  { enabled: false } | { enabled: true; resultFiles: string[]; tests: number; failures: number; skipped: number };

/**
 * The gate's answer. The article's keys come first, with their meanings; an evaluated report has every
 * section, a report of a gate that could not evaluate (`input_error`) has nulls and its errors.
 */
export interface GateReport {
  todayUtc: IsoDate | null;
  collectedTests: number | null;
  activeLeases: number | null;
  expiredLeases: number | null;
  provenCoveragePercent: number | null;
  minProvenCoveragePercent: number | null;
  fixtureDigestDelta: number | null;
  propertyFailures: number | null;
  agentAddedLeases: number | null;
  reasons: ReasonCode[];
  decision: Decision;
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  /** The decision table, top to bottom; empty when the gate could not evaluate. */
  signals: Signal[];
  clock?: { source: "system" | "override"; todayUtc: IsoDate } | undefined;
  base: string | null;
  head: string | null;
  /** Commits in base..head; null when no range was judged. */
  commits?: number | null | undefined;
  /**
   * A package's gate (`check --root`): its folder, repository-relative. The report's paths (findings, coverage
   * files, frozen-only ranges) are relative to it; platforms prefix it where they point at a file.
   */
  root?: string | undefined;
  coverage?: CoverageSection | undefined;
  ledger?: LedgerSection | undefined;
  accounting?: AccountingSection | null | undefined;
  universe?: UniverseSection | undefined;
  properties?: PropertiesSection | null | undefined;
  fixtures?: { enabled: boolean } | undefined;
  commands?: CommandOutcome[] | undefined;
  /** One per finding, in rule order. */
  findings: Finding[];
  inputs: InputDigest[];
  warnings: GateIssue[];
  /** Why the gate could not evaluate; non-empty exactly when `reasons` is `["input_error"]`. */
  errors: GateIssue[];
}

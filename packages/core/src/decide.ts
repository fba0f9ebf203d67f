// decide(): the facts are derived once (leases classified, unknown leases found, evidence accounted, the
// patch judged), every rule runs on them, and the report is built from what fired.
import { buildReport } from "./build-report.js";
import type { CoverageDropEvidence } from "./coverage-drop.js";
import type { IsoDate } from "./common/dates.js";
import { findUnknownLeases, type JudgedLeases } from "./evidence/deselect.js";
import type { GateIssue } from "./common/errors.js";
import { accountEvidence } from "./evidence/evidence.js";
import { classifyLeases, type Ledger } from "./ledger/ledger.js";
import { judgeMeasurement, type MeasurementEvidence } from "./patch/measurement.js";
import { judgePatch, type PatchSource } from "./patch/patch.js";
import type { CommandOutcome, GateReport, InputDigest, ProvenCoverage } from "./model/report.js";
import { RULES, type GateFacts, type ProofResults, type PropertySource } from "./rules.js";
import { judgeTestChanges, rootdirMoved, type TestChangeEvidence } from "./evidence/test-changes.js";
import { testIdPaths, type RootdirFacts, type TestIdPaths } from "./python/test-id-paths.js";
import { judgePropertyIds, type PropertyIdEvidence } from "./evidence/property-tests.js";
import type { Universe } from "./evidence/universe.js";
import type { RunnerEvidence } from "./proof-run/evidence.js";
import { skippedUnlisted, testsNotRun } from "./proof-run/judges.js";
import { patchCoverage, type ChangedFileLines, type PatchCoverage } from "./coverage/patch-coverage.js";

/** Everything `decide` judges. The caller reads files, git and the clock; this stays pure. */
export interface DecideInput {
  today: IsoDate;
  /** True when `today` came from a flag, not the machine's clock: then the answer cannot be MERGE. */
  clockOverride: boolean;
  ledger: Ledger;
  /** `[ledger] max_lease_days` (the base's config): longer active leases are `lease_too_long`. */
  maxLeaseDays?: number | undefined;
  universe: Universe;
  /** The ledger's leases as the caller already judged them for `today` and `universe` (else judged here). */
  leases?: JudgedLeases | undefined;
  coverage: ProvenCoverage;
  minProven: number;
  /**
   * The lines base..head added or changed, per file (`check`: git's diff, parsed by `parseGitDiff`), or why
   * there are none to judge (a truncated history). Undefined: not measured (`decide` reads no diff).
   */
  patchLines?: { files: readonly ChangedFileLines[] } | { notMeasured: string } | undefined;
  /** `[coverage] min_patch_proven`: proven patch coverage below it is `patch_unproven`. Undefined: not enforced. */
  minPatchProven?: number | undefined;
  /** `[coverage] max_drop` (`check`) and the base's proven figure, or why there is none; undefined: off. */
  coverageDrop?: CoverageDropEvidence | undefined;
  /** What the patch did: from git, or the article's manual counts. */
  patch: PatchSource;
  /** The property suite: its results, a failure count, or off. */
  properties: PropertySource;
  /** The fixture signals are off (and why, when a reason is given): shown as `off`. */
  fixturesOff?: boolean | string | undefined;
  /** Where the policy came from, for the table's last row (`proofgate.toml at <base>`, the defaults, the flags). */
  policySource?: string | undefined;
  /** Test results of the proof run, when given. */
  evidence?: ProofResults | undefined;
  /** What `check --run` learned about the test runner: the run records, shadowing modules, added runner code. */
  runner?: RunnerEvidence | undefined;
  /**
   * What the patch did to measurement (`check`): its evidence, or `off` in the config. Undefined: not
   * judged. Judged only with a git range that is not truncated.
   */
  measurement?: { kind: "evidence"; evidence: MeasurementEvidence } | { kind: "off" } | undefined;
  /**
   * The base's universe and skips, and what the range touched (`check`): judged for `tests_removed` and
   * `tests_skipped_unledgered` when the patch comes from git and reaches the base.
   */
  testChanges?: TestChangeEvidence | undefined;
  /**
   * The base's property test ids and what the range touched (`check --run`): judged against the head's
   * property run record for `property_weakened`.
   */
  propertyIds?: PropertyIdEvidence | undefined;
  /** The commands `check --run` ran; a non-zero exit fails the signal it feeds. */
  commands?: readonly CommandOutcome[] | undefined;
  inputs: InputDigest[];
  warnings?: readonly GateIssue[] | undefined;
}

/** Proven patch coverage over the line map, or why it cannot be measured. */
function patchFacts(input: DecideInput): PatchCoverage | { notMeasured: string } {
  const lines = input.patchLines;
  if (lines === undefined) return { notMeasured: "judged by `proofgate check` only (`decide` reads no git diff)" };
  if ("notMeasured" in lines) return lines;
  const map = input.coverage.map;
  if (!map) return { notMeasured: `the coverage data (${input.coverage.format}) does not key statements by line` };
  return patchCoverage(lines.files, map);
}

/** A changed file the run measured under another path only: its lines are not counted, and the reader is told. */
function unalignedWarnings(patch: PatchCoverage | { notMeasured: string }): GateIssue[] {
  if ("notMeasured" in patch) return [];
  return patch.unaligned.map((u) => ({
    code: "coverage_invalid" as const,
    file: u.path,
    message: `changed, but the coverage report measured it as ${u.measured}: its lines are not in the patch coverage`,
    fix: "write the coverage report from the repository root, with paths relative to it (coverage.py's [run] relative_files, or the --cov path as the repository names it)",
  }));
}

/**
 * vitest: the tests the proof run's verified record shows skipped that `vitest list` left out of the
 * universe. Only the signed record says so (never the results file): without one, a base test the head
 * does not list stays a removal.
 */
function unlistedSkips(input: DecideInput): string[] {
  const record = verifiedVitestRecord(input);
  return record ? skippedUnlisted(record, input.universe.index ?? new Set(input.universe.ids)) : [];
}

/** The head's vitest proof run record, when it verified without errors: what vitest itself collected. */
function verifiedVitestRecord(input: DecideInput) {
  const proof = input.runner?.proof?.result;
  return input.universe.runner === "vitest" && !proof?.errors.length ? proof?.record : undefined;
}

/**
 * vitest: `vitest list` leaves a skipped test out (`it.skip`), so a lease on it names no listed test, though the
 * head's verified run record shows the test collected. Such a lease is on a known test; every other stays unknown.
 */
function knownToTheRun(input: DecideInput, unknown: JudgedLeases["unknown"]): JudgedLeases["unknown"] {
  const record = verifiedVitestRecord(input);
  if (!record || unknown.length === 0) return unknown;
  const collected = new Set(record.collected);
  return unknown.filter((u) => !collected.has(u.lease.nodeid));
}

/** Applies every rule and builds the report. The first failing signal is enough; all are listed. */
export function decide(input: DecideInput): GateReport {
  const { active, expired } = input.leases ?? classifyLeases(input.ledger.leases, input.today);
  const fixturesOff = input.fixturesOff !== undefined && input.fixturesOff !== false;
  const range = input.patch.kind === "git" && !input.patch.patch.shallow ? input.patch : undefined;
  const measurement =
    input.measurement?.kind === "off"
      ? "off"
      : input.measurement?.kind === "evidence" && range
        ? judgeMeasurement(input.measurement.evidence, range.policy)
        : undefined;
  const accounting = input.evidence ? accountEvidence(input.universe, active, input.evidence.results) : undefined;
  // pytest writes the ids' files relative to its rootdir, which the proof run's record names (above a package's
  // root when the repository's settings apply); vitest's ids are the root's paths.
  const pytestPaths = (record: RootdirFacts | undefined): TestIdPaths | undefined =>
    input.universe.runner === "vitest" ? undefined : testIdPaths(record);
  const testChanges =
    input.testChanges && range
      ? judgeTestChanges(input.testChanges, {
          head: input.universe,
          active,
          accounting,
          commits: range.patch.commits,
          policy: range.policy,
          emptyRange: range.patch.base === range.patch.head,
          paths: pytestPaths(input.runner?.proof?.result.record),
          unlistedSkips: unlistedSkips(input),
        })
      : undefined;
  // Without a verified record of the head's property run there is nothing to compare: runner_tampering says so.
  const propertyRecord = input.runner?.properties?.result.record;
  const propertyPaths = pytestPaths(propertyRecord);
  // pytest's rootdir moved above the root since the base: the base's ids in the head's terms (rootdirMoved).
  const moved =
    input.propertyIds &&
    propertyRecord &&
    rootdirMoved(
      input.propertyIds.base.ids,
      new Set(propertyRecord.collected),
      propertyPaths,
      input.propertyIds.base.idsAtRoot,
    );
  const propertyEvidence: PropertyIdEvidence | undefined =
    moved && input.propertyIds
      ? {
          ...input.propertyIds,
          base: {
            ...input.propertyIds.base,
            ids: input.propertyIds.base.ids.map(moved),
            settings:
              input.propertyIds.base.settings &&
              Object.fromEntries(Object.entries(input.propertyIds.base.settings).map(([id, v]) => [moved(id), v])),
          },
        }
      : input.propertyIds;
  const propertyIds =
    propertyEvidence && range && propertyRecord
      ? judgePropertyIds(propertyEvidence, {
          collected: propertyRecord.collected,
          notRun: testsNotRun(propertyRecord, propertyEvidence.base.ids),
          active,
          commits: range.patch.commits,
          policy: range.policy,
          settings: propertyRecord.hypothesis && {
            file: propertyRecord.file,
            byId: propertyRecord.hypothesis,
            ran: propertyRecord.tests.filter((t) => t.phases.some((p) => p.when === "call")).map((t) => t.id),
          },
          paths: propertyPaths,
        })
      : undefined;
  const facts: GateFacts = {
    today: input.today,
    clockOverride: input.clockOverride,
    ledger: input.ledger,
    maxLeaseDays: input.maxLeaseDays,
    universe: input.universe,
    coverage: input.coverage,
    minProven: input.minProven,
    coverageDrop: input.coverageDrop,
    evidence: input.evidence,
    properties: input.properties,
    fixturesOff,
    fixturesOffWhy: typeof input.fixturesOff === "string" ? input.fixturesOff : undefined,
    policySource: input.policySource,
    commands: input.commands ?? [],
    runner: input.runner,
    active,
    expired,
    unknown: knownToTheRun(input, input.leases?.unknown ?? findUnknownLeases(active, input.universe)),
    accounting,
    patch: judgePatch(input.patch, input.ledger, fixturesOff),
    measurement,
    // With the suite's own results, their failures are the count (no separate number can disagree).
    propertyFailures:
      input.properties.kind === "results"
        ? input.properties.evidence.failures
        : input.properties.kind === "count"
          ? input.properties.failures
          : 0,
    testChanges,
    propertyIds,
    patchCoverage: patchFacts(input),
    minPatchProven: input.minPatchProven,
  };
  const findings = RULES.flatMap((rule) => rule(facts));
  return buildReport(facts, findings, input.inputs, [
    ...(input.warnings ?? []),
    ...unalignedWarnings(facts.patchCoverage),
  ]);
}

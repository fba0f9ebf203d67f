// The decision rules: one small function per reason code, in the article's order, then proofgate's own.
// Each reads the facts decide() gathered once and returns its findings; none reads another's result.
import { coverageDroppedFindings, type CoverageDropEvidence } from "./coverage-drop.js";
import type { IsoDate } from "./common/dates.js";
import { missingEvidence, skipBudget, testsFailed, type EvidenceAccounting } from "./evidence/evidence.js";
import type { UnknownLease } from "./evidence/deselect.js";
import type { Lease, Ledger } from "./ledger/ledger.js";
import { leaseTooLongFindings } from "./ledger/lease-length.js";
import type { MeasurementJudgement } from "./patch/measurement.js";
import { lineRanges, type PatchCoverage } from "./coverage/patch-coverage.js";
import type { PatchJudgement } from "./patch/patch.js";
import type { ReasonCode } from "./common/reasons.js";
import { describeNarrowed, type TestChangeJudgement } from "./evidence/test-changes.js";
import type { PropertyIdJudgement } from "./evidence/property-tests.js";
import type { CommandOutcome, CommandStep, Finding, PropertyEvidence, ProvenCoverage } from "./model/report.js";
import type { TestResult } from "./evidence/junit.js";
import type { Universe } from "./evidence/universe.js";
import {
  propertyWeakenedFindings,
  runnerTamperingFindings,
  unlockedReadFindings,
  shippedCodeFindings,
  type RunnerEvidence,
} from "./proof-run/evidence.js";
import { repositoryWriteFindings } from "./proof-run/repository-writes.js";

/** How the property suite is known: its results (`check`), a count (`decide --property-failures`), or off. */
export type PropertySource =
  | { kind: "results"; evidence: PropertyEvidence }
  | { kind: "count"; failures: number }
  | { kind: "off"; why?: string | undefined };

/** The proof run's test results; `decide` accounts them against the universe. */
export interface ProofResults {
  /** Every result read (shards merged), frozen tests' included. */
  results: readonly TestResult[];
  /** The budget for skips without a lease; none when undefined. */
  maxUnledgeredSkips?: number | undefined;
}

/** Everything the rules read: the inputs, and what decide() derived from them once. */
export interface GateFacts {
  today: IsoDate;
  clockOverride: boolean;
  ledger: Ledger;
  /** `[ledger] max_lease_days` of the base's config; undefined: no limit. */
  maxLeaseDays?: number | undefined;
  universe: Universe;
  coverage: ProvenCoverage;
  minProven: number;
  /** `[coverage] max_drop` and the base's proven figure; undefined: off. */
  coverageDrop?: CoverageDropEvidence | undefined;
  evidence: ProofResults | undefined;
  properties: PropertySource;
  fixturesOff: boolean;
  /** Why the fixture signals are off, when the caller said. */
  fixturesOffWhy?: string | undefined;
  /** Where the policy came from. */
  policySource?: string | undefined;
  commands: readonly CommandOutcome[];
  /** The test runner as `check --run` saw it; undefined without a run. */
  runner?: RunnerEvidence | undefined;
  active: Lease[];
  expired: Lease[];
  unknown: UnknownLease[];
  accounting: EvidenceAccounting | undefined;
  patch: PatchJudgement;
  /** Measurement judged (`check`); `off` in the config; undefined when not judged (no range, a truncated one, `decide`). */
  measurement: MeasurementJudgement | "off" | undefined;
  /** The property suite's failures: its results' count, or the count given. */
  propertyFailures: number;
  /** Tests removed and newly skipped since the base, judged once (`check` only; undefined otherwise). */
  testChanges?: TestChangeJudgement | undefined;
  /** The base's property tests against the head's property run (`check --run`; undefined otherwise). */
  propertyIds?: PropertyIdJudgement | undefined;
  /** Proven patch coverage over base..head (`check`), or why it was not measured. */
  patchCoverage: PatchCoverage | { notMeasured: string };
  /** `[coverage] min_patch_proven`; undefined: the figure is shown, not enforced. */
  minPatchProven?: number | undefined;
}

/** One rule: the findings of its reason (none when the signal passes). */
export type Rule = (facts: GateFacts) => Finding[];

function commandFindings(commands: readonly CommandOutcome[], step: CommandStep, reason: ReasonCode, what: string) {
  return commands
    .filter((c) => c.step === step && c.exitCode !== 0)
    .map((c): Finding => ({
      reason,
      message: `${what} (\`${c.command}\`) exited with ${c.exitCode}`,
      fix: `run the ${step} step ([commands] ${step} in proofgate.toml) locally and fix what it reports; its output is above in the log`,
    }));
}

const leaseWhere = (lease: Lease, ledger: Ledger) => ({ file: ledger.file, line: lease.line });

/** The rules, one per reason, in the reference script's order; proofgate's own checks follow. */
export const RULES: readonly Rule[] = [
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
    const omitted = ledger.budgetOmitted ? " (max_active_leases omitted: 0)" : "";
    return [
      {
        reason: "freeze_budget",
        message: `${active.length} active leases exceed the budget of ${ledger.maxActiveLeases}${omitted}`,
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
      fix:
        universe.runner === "vitest"
          ? "copy the current id from `vitest list` (the file, then the names joined by ` > `), or delete the lease if the test is gone"
          : "copy the current id from `pytest --collect-only -q`, or delete the lease if the test is gone",
    }));
  },
  function leaseTooLong({ active, ledger, maxLeaseDays, today }) {
    return leaseTooLongFindings(active, ledger.file, maxLeaseDays, today);
  },
  function agentAddedLease({ patch }) {
    return patch.leases.filter((f) => f.reason === "agent_added_lease");
  },
  function agentExtendedLease({ patch }) {
    return patch.leases.filter((f) => f.reason === "agent_extended_lease");
  },
  function agentLoosenedPolicy({ patch }) {
    return patch.leases.filter((f) => f.reason === "agent_loosened_policy");
  },
  function provenCoverage({ coverage, minProven }) {
    if (coverage.percent >= minProven) return [];
    // The single run counted the lower of two readings; say so when the other one would pass.
    const upper = coverage.upper && coverage.upper.percent >= minProven ? coverage.upper : undefined;
    return [
      {
        reason: "proven_coverage",
        message: `proven coverage ${coverage.percent.toFixed(2)}% is below the floor of ${minProven}%${
          upper
            ? ` (counting the lower of two readings: coverage.py may print up to ${upper.percent.toFixed(2)}%, as ${upper.why.join("; ")}; check with \`coverage json --contexts="$(proofgate deselect --format contexts-regex)"\`, or use the rerun)`
            : ""
        }`,
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
    // Single run: the shards are the data files (each with its report); a rerun's are the reports.
    const given = coverage.source === "contexts" ? (coverage.dataFiles ?? coverage.files.slice(0, 1)) : coverage.files;
    if (expected === undefined || given.length >= expected) return [];
    return [
      {
        reason: "shard_missing",
        message: `${expected - given.length} of ${expected} coverage shards are missing: only ${given.join(", ")}`,
        fix:
          coverage.source === "contexts"
            ? "upload every parallel job's .coverage data file and its `coverage json` as artifacts, and list each in [coverage] contexts and reports (decide: --contexts and --report)"
            : "upload every parallel job's report as an artifact and pass each with --report",
      },
    ];
  },
  function coverageDropped({ coverageDrop, coverage }) {
    return coverageDroppedFindings(coverageDrop, coverage.percent);
  },
  function fixturesUnlocked({ patch }) {
    return patch.unlocked;
  },
  function fixtureDigest({ patch }) {
    return patch.fixtureDigest;
  },
  function unlockedFixtureRead({ runner, fixturesOff }) {
    // With its fixtures off, a project still answers for the changed files its tests read: data files in its
    // test folders, and (a package) files elsewhere in the repository (changedOnly).
    return runner && (!fixturesOff || runner.fixtures?.changedOnly) ? unlockedReadFindings(runner) : [];
  },
  function propertyHold({ properties, propertyFailures, commands }) {
    if (properties.kind === "off") return [];
    const findings = commandFindings(commands, "properties", "property_hold", "the property suite");
    const suite = properties.kind === "results" ? properties.evidence : undefined;
    if (suite && suite.resultFiles.length === 0) {
      findings.push({
        reason: "property_hold",
        message: "the property suite is on, but no results were given",
        fix: "name its JUnit XML in [properties] results of proofgate.toml, or turn it off there with enabled = false (a human change)",
      });
    } else if (suite && suite.tests === 0) {
      findings.push({
        reason: "property_hold",
        message: `the property results hold no case that ran: ${suite.resultFiles.join(", ")}`,
        file: suite.resultFiles[0],
        fix: "run the property suite so that it writes its results there (--junitxml)",
      });
    }
    if (suite && suite.skipped > 0) {
      findings.push({
        reason: "property_hold",
        message: `${suite.skipped} property case(s) were skipped: a property that does not run holds nothing`,
        file: suite.resultFiles[0],
        fix: "remove the skip or xfail marker; a property that must stop is a human decision, made in the suite",
      });
    }
    if (propertyFailures > 0) {
      findings.push({
        reason: "property_hold",
        message: `the property suite reported ${propertyFailures} failure(s)`,
        file: suite?.resultFiles[0],
        fix: "fix the code, not the seeds: the seed corpus must predate the patch",
      });
    }
    return findings;
  },
  function seedsEmpty({ patch }) {
    return patch.seedsEmpty;
  },
  function seedRewrite({ patch }) {
    return patch.seedRewrite;
  },
  function propertyWeakened({ runner, properties, propertyFailures, patch, propertyIds }) {
    // Seeds unread by a suite that failed or skipped are property_hold's; this is the suite that passes
    // without looking at them. Changed property tests and base properties that did not run count always.
    const held = properties.kind === "results" && properties.evidence.skipped === 0 && propertyFailures === 0;
    return [
      ...patch.propertyTests,
      ...(propertyIds?.findings ?? []),
      ...(runner && held ? propertyWeakenedFindings(runner) : []),
    ];
  },
  function failedTests({ accounting, commands }) {
    // The results name each failure; the proof run's exit code is a finding of its own only when they
    // do not explain it (a crash, an error outside the tests).
    const failures = accounting ? testsFailed(accounting) : [];
    return failures.length > 0 ? failures : commandFindings(commands, "proof", "tests_failed", "the proof run");
  },
  function missingResults({ accounting }) {
    return accounting ? missingEvidence(accounting) : [];
  },
  function unledgeredSkips({ accounting, evidence }) {
    return accounting ? skipBudget(accounting, evidence?.maxUnledgeredSkips) : [];
  },
  function testsSkippedUnledgered({ testChanges }) {
    return testChanges?.skipped ?? [];
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
  function runnerTampering({ runner, patch, accounting, universe }) {
    const narrowed = universe.narrowed ? (universe.index ?? new Set(universe.ids)) : undefined;
    return runner ? runnerTamperingFindings(runner, patch.policy, accounting !== undefined, narrowed) : [];
  },
  function runWroteRepository({ runner }) {
    if (!runner?.writes) return [];
    return repositoryWriteFindings(runner.writes, [
      { step: "proof", record: runner.proof?.result.record },
      { step: "properties", record: runner.properties?.result.record },
    ]);
  },
  function shippedCodeReplaced({ runner, patch }) {
    return runner ? shippedCodeFindings(runner, patch.policy) : [];
  },
  function coverageExclusionsAdded({ measurement }) {
    return typeof measurement === "object" ? measurement.exclusions : [];
  },
  function unmeasuredSource({ measurement }) {
    return typeof measurement === "object" ? measurement.unmeasured : [];
  },
  function patchUnproven({ patchCoverage: patch, minPatchProven: floor }) {
    // n/a (no changed statement) never rejects; nor does a figure that was not measured.
    if (floor === undefined || "notMeasured" in patch || patch.percent === null || patch.percent >= floor) return [];
    const figure = `proven patch coverage ${patch.percent.toFixed(2)}% (${patch.covered} of ${patch.coverable} changed statements) is below the floor of ${floor}%`;
    return patch.files
      .filter((f) => f.uncovered.length > 0)
      .map((f): Finding => {
        const frozen = f.frozenOnly ?? [];
        return {
          reason: "patch_unproven",
          message: `${figure}: ${f.path} ${f.uncovered.length === 1 ? "line" : "lines"} ${lineRanges(f.uncovered)} changed and not proven${frozen.length > 0 ? ` (only frozen tests run ${lineRanges(frozen)})` : ""}`,
          file: f.path,
          line: f.uncovered[0],
          fix:
            frozen.length > 0
              ? "cover the changed lines with tests that are not frozen: a frozen test's coverage proves nothing while its lease runs"
              : "cover the changed lines with tests that are not frozen",
        };
      });
  },
  function protectedPath({ patch, measurement }) {
    return [...patch.protectedPaths, ...(typeof measurement === "object" ? measurement.protectedSettings : [])];
  },
  function unverifiedHumanTrailer({ patch }) {
    return patch.unverifiedTrailers;
  },
  function shallowHistory({ patch }) {
    return patch.shallow;
  },
  function collectionErrors({ universe, commands }) {
    return [
      ...commandFindings(commands, "collect", "collection_errors", "the collection"),
      ...universe.collectionErrors.map((error): Finding => ({
        reason: "collection_errors",
        message: `pytest reported a collection error: ${error.text}; the universe is incomplete`,
        file: universe.file,
        line: error.line,
        fix: "fix the import or syntax error so that every test is collected",
      })),
    ];
  },
  function testsRemoved({ testChanges, universe }) {
    // Without the patch's range to judge it (decide's counts, a shallow history), a narrowed collection
    // cannot be approved: tests left the proof and no commit can answer for it.
    if (!testChanges && universe.narrowed)
      return [
        {
          reason: "tests_removed",
          message: describeNarrowed(universe.narrowed),
          file: universe.narrowed.file,
          line: universe.narrowed.line,
          fix: "remove the -k/-m/--deselect from addopts (pytest.ini, pyproject.toml, setup.cfg, tox.ini) or the conftest.py hook that drops tests, or judge the patch with `proofgate check` on its git range",
        },
      ];
    return testChanges?.removed ?? [];
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

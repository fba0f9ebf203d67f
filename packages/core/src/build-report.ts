// From the facts and the findings to the typed report: the article's numbers, the decision table's
// values and policies, and the sections a reader checks them against.
import type { GateIssue } from "./common/errors.js";
import type { Lease } from "./ledger/ledger.js";
import type { Decision, ReasonCode } from "./common/reasons.js";
import {
  REPORT_SCHEMA_VERSION,
  type CoverageSection,
  type Finding,
  type GateReport,
  type InputDigest,
  type ProvenCoverage,
  type ReportLease,
} from "./model/report.js";
import { frozenOnlyFiles } from "./coverage/frozen-only.js";
import { coverageDrop } from "./coverage-drop.js";
import { leaseCosts, type LeaseCosts } from "./coverage/lease-cost.js";
import type { GateFacts } from "./rules.js";
import { buildSignals, type SignalId, type SignalMeasure } from "./common/signals.js";
import type { PatchPolicy } from "./patch/patch.js";
import { carriesHumanTrailer, classifyCommit } from "./model/authorship.js";
import type { RunnerEvidence } from "./proof-run/evidence.js";
import type { RunRecord } from "./proof-run/record.js";
import { unledgeredSkipCount } from "./evidence/evidence.js";
import type { TestChangeJudgement } from "./evidence/test-changes.js";

/** The raw figure beside the proven one, and what only frozen tests run. */
function hiddenDebt(
  coverage: ProvenCoverage,
  patch: GateFacts["patchCoverage"],
): Pick<CoverageSection, "raw" | "rawNotMeasured" | "hiddenPoints" | "frozenOnly"> {
  const raw = coverage.map?.raw;
  if (!coverage.map || !raw)
    return {
      raw: null,
      rawNotMeasured: coverage.rawNotMeasured ?? "no full run's data",
      hiddenPoints: null,
      frozenOnly: null,
    };
  const files = frozenOnlyFiles(coverage.map);
  // The ranges the patch touched: the renderers that cap their lists show these first.
  if (!("notMeasured" in patch)) {
    const changed = new Map(patch.files.map((f) => [f.path, f.lines]));
    for (const f of files) {
      const lines = changed.get(f.path);
      if (lines) for (const r of f.ranges) r.patch = lines.some((l) => l >= r.start && l <= r.end);
    }
  }
  return {
    raw: {
      percent: raw.percent,
      numStatements: raw.statements,
      coveredLines: raw.coveredLines,
      numBranches: raw.branches,
      coveredBranches: raw.coveredBranches,
    },
    rawNotMeasured: null,
    hiddenPoints: raw.percent - coverage.percent,
    frozenOnly: {
      lines: files.reduce((n, f) => n + f.lines, 0),
      branches: files.reduce((n, f) => n + f.branches, 0),
      attributed: coverage.map.attributed,
      files,
    },
  };
}

/** The patch's figure as the report lists it, or why it was not measured. */
function patchSection(facts: GateFacts): Pick<CoverageSection, "patch" | "patchNotMeasured"> {
  const p = facts.patchCoverage;
  if ("notMeasured" in p) return { patch: null, patchNotMeasured: p.notMeasured };
  const { coverable, covered, percent, notApplicable, raw, changedFiles, measuredFiles, files } = p;
  const figure = { coverable, covered, percent, notApplicable, raw, changedFiles, measuredFiles, files };
  return { patch: { ...figure, minPatchProven: facts.minPatchProven ?? null }, patchNotMeasured: null };
}

const pct = (n: number): string => `${n.toFixed(2)}%`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What each row of the decision table shows: the measured value and the policy it is held to. */
function signalMeasures(facts: GateFacts, reasons: readonly ReasonCode[] = []): Record<SignalId, SignalMeasure> {
  const { coverage, ledger, active, expired, unknown, accounting, patch, properties, universe } = facts;
  const policy: PatchPolicy | undefined = patch.policy;
  const trailer = (key: keyof PatchPolicy["trailers"], fallback: string): string =>
    `${policy?.trailers[key] ?? fallback}: human`;
  const judged = patch.evidence?.shallow ? undefined : patch.evidence;
  const unlocked = judged?.fixtures?.unlocked;
  const unlockedCount = unlocked
    ? unlocked.changed.length + unlocked.added.length + unlocked.removed.length
    : undefined;
  const seeds = judged?.seeds;
  const seedTouches = seeds ? seeds.touching.reduce((n, t) => n + t.paths.length, 0) : undefined;
  const propertyTests = judged?.propertyTests;
  const propertyTestTouches = propertyTests ? new Set(propertyTests.touching.flatMap((t) => t.paths)).size : undefined;
  const ids = facts.propertyIds;
  const ledgerCommits = judged?.ledger.changes ?? [];
  const kinds = ledgerCommits.flatMap((c) => c.changes.map((change) => change.kind));
  const count = (kind: string) => kinds.filter((k) => k === kind).length;
  const ledgerParts = [
    count("added_lease") ? plural(count("added_lease"), "lease") + " added" : "",
    count("extended_lease") ? plural(count("extended_lease"), "expiry", "expiries") + " extended" : "",
    count("raised_budget") ? "the budget raised" : "",
    count("disabled_flag") ? plural(count("disabled_flag"), "reject_if_* flag") + " turned off" : "",
  ].filter(Boolean);
  const protectedTouches = judged?.protect.touching;
  const suite = properties.kind === "results" ? properties.evidence : undefined;
  const range = patch.evidence;
  const changes = facts.testChanges;
  const coverageHow =
    coverage.source === "contexts"
      ? (coverage.dataFiles?.length ?? 1) > 1 || coverage.shardsExpected
        ? `one run in ${coverage.dataFiles?.length ?? 1}${coverage.shardsExpected ? ` of ${coverage.shardsExpected}` : ""} shards minus frozen contexts`
        : "one run minus frozen contexts"
      : coverage.source === "shards"
        ? `${coverage.files.length}${coverage.shardsExpected ? ` of ${coverage.shardsExpected}` : ""} shards`
        : "proof run";
  return {
    proven_coverage: {
      value: `${pct(coverage.percent)} (lines ${pct(coverage.lineRate * 100)}${coverage.branches > 0 ? `, branches ${pct(coverage.branchRate * 100)}` : ""}; ${coverageHow})`,
      policy: `>= ${facts.minProven}%`,
    },
    coverage_drop: coverageDropMeasure(facts),
    freeze_budget: {
      value: `${active.length} active, ${expired.length} expired${unknown.length ? `, ${unknown.length} unknown` : ""}`,
      policy: `active <= ${ledger.maxActiveLeases}${ledger.rejectIfExpired ? ", none expired" : ""}, each names a collected test${facts.maxLeaseDays !== undefined ? `, runs <= ${plural(facts.maxLeaseDays, "day")}` : ""}`,
    },
    lease_authorship: {
      value: judged
        ? ledgerCommits.length === 0
          ? "no commit loosened the ledger"
          : `${plural(ledgerCommits.length, "commit")} loosened the ledger (${ledgerParts.join(", ")}); ${plural(patch.leases.length, "change")} without a human's trailer`
        : `${plural(patch.agentAddedLeases, "lease")} added by an agent (given)`,
      policy: `lease changes by a human with ${trailer("freezeLease", "Freeze-Lease")}`,
    },
    fixture_digests: {
      value: facts.fixturesOff
        ? `off: ${facts.fixturesOffWhy ?? "[fixtures] enabled = false"}${reasons.includes("unlocked_fixture_read") ? "; the changed files the tests read are still judged, and some changed without a human's trailer" : ""}`
        : `delta ${patch.fixtureDelta}${unlockedCount !== undefined ? `; ${unlockedCount} file(s) differ from the lock` : ""}`,
      policy: `files match the lock; a delta needs ${trailer("fixtureLock", "Fixture-Lock")}`,
      off: facts.fixturesOff,
    },
    property_hold: {
      value:
        properties.kind === "off"
          ? `off: ${properties.why ?? "[properties] enabled = false"}${propertyTestTouches !== undefined ? `; property tests still judged: ${plural(propertyTestTouches, "property test file")} touched` : ""}`
          : `${plural(facts.propertyFailures, "failure")}${suite ? ` of ${plural(suite.tests, "case")}${suite.skipped ? `, ${suite.skipped} skipped` : ""}` : ""}${seeds ? `; ${plural(seeds.filesAtHead, "seed")} at head, ${seedTouches} touched` : ""}${propertyTestTouches !== undefined ? `; ${plural(propertyTestTouches, "property test file")} touched` : ""}${ids ? `; ${ids.baseTests - ids.notRun} of ${plural(ids.baseTests, "base property test")} ran${ids.approved ? ` (${ids.approved} retired with a human's trailer)` : ""}${ids.settings ? `; Hypothesis settings of ${ids.settings.compared} compared with the base's, ${ids.settings.weakened} weaker` : ""}` : ""}`,
      policy: `0 failures; seeds non-empty; seeds and property tests changed only with ${trailer("propertySeeds", "Property-Seeds")}${ids ? "; the base's property tests still run" : ""}`,
      off: properties.kind === "off",
    },
    test_evidence: accounting
      ? {
          value: `${accounting.counts.proven} proven, ${accounting.counts.frozen} frozen, ${unledgeredSkipCount(accounting)} skipped, ${accounting.counts.failed} failed, ${accounting.counts.missing} missing${changes ? `; ${plural(changes.newSkips, "new skip")}${changes.skipsWithoutBase && changes.newSkips > 0 ? " (no base results)" : ""}${changes.approvedSkips ? `, ${changes.approvedSkips} approved` : ""}` : ""}`,
          policy: `none failed or missing${facts.evidence?.maxUnledgeredSkips !== undefined ? `; skips <= ${facts.evidence.maxUnledgeredSkips}` : ""}${changes ? `; new skips <= ${changes.maxNewSkips} unless a human's ${trailer("testRemoval", "Test-Removal")}` : ""}`,
        }
      : { value: "no results given", policy: "none failed or missing", notMeasured: true },
    test_runner: facts.runner
      ? {
          value: runnerValue(facts.runner),
          policy: "a signed run record of this run; no module shadows the runner; no added code reaches into it",
        }
      : {
          value: "no run (`check --run` records one)",
          policy: "a signed run record of this run; no module shadows the runner; no added code reaches into it",
          notMeasured: true,
        },
    measurement: measurementMeasure(facts, trailer("gateChange", "Gate-Change")),
    patch_coverage: patchMeasure(facts),
    protected_paths:
      judged && protectedTouches
        ? {
            value: `${plural(protectedTouches.length, "commit")} touch ${judged.protect.patterns.join(", ")}`,
            policy: `changed only with ${trailer("gateChange", "Gate-Change")}`,
          }
        : {
            value: range ? "not judged" : "no git range given",
            policy: `changed only with ${trailer("gateChange", "Gate-Change")}`,
            notMeasured: true,
          },
    human_signatures: signatureMeasure(facts),
    history: range
      ? {
          value: range.shallow
            ? "truncated"
            : `${plural(range.commits.length, "commit")} in ${range.base.slice(0, 12)}..${range.head.slice(0, 12)}`,
          policy: "the whole range reaches the base",
        }
      : { value: "no git range given", policy: "the whole range reaches the base", notMeasured: true },
    universe: {
      value: `${plural(universe.ids.length, "test")} collected${universe.narrowed ? ` (${universe.narrowed.deselected + universe.narrowed.unlisted} left out by the runner's settings or a hook)` : ""}, ${plural(universe.collectionErrors.length, "collection error")}`,
      policy: "no collection errors",
    },
    removed_tests: removedTestsMeasure(
      changes,
      range !== undefined && !range.shallow,
      trailer("testRemoval", "Test-Removal"),
    ),
    clock: {
      value: `${facts.today} (${facts.clockOverride ? "given on the command line" : "system clock"})`,
      policy: "the machine's clock",
    },
    policy: {
      value: facts.policySource ?? "the command line's flags",
      policy: "the base revision's proofgate.toml: a patch cannot change its own judge",
    },
  };
}

/** The patch coverage row: the figure (or n/a, or why not measured) and the floor, off when none is set. */
function patchMeasure({ patchCoverage: p, minPatchProven: floor }: GateFacts): SignalMeasure {
  const policy =
    floor === undefined
      ? "no floor ([coverage] min_patch_proven unset)"
      : `>= ${floor}% of the changed statements proven; n/a passes`;
  const off = floor === undefined;
  // Not measured wins over off: `decide` has no figure at all, whatever the floor.
  if ("notMeasured" in p) return { value: `not measured: ${p.notMeasured}`, policy, notMeasured: true };
  if (p.percent === null) return { value: `n/a: ${p.notApplicable}`, policy, off };
  const frozen = p.files.reduce((n, f) => n + (f.frozenOnly?.length ?? 0), 0);
  const raw = p.raw?.percent != null ? `; raw ${pct(p.raw.percent)}` : "";
  return {
    value: `${pct(p.percent)} (${p.covered} of ${plural(p.coverable, "changed statement")} proven${frozen > 0 ? `, ${frozen} only frozen tests run` : ""}${raw}; ${plural(p.files.length, "file")})`,
    policy,
    off,
  };
}

/** The coverage drop row: off without `[coverage] max_drop`; not measured without the base's figure. */
function coverageDropMeasure({ coverageDrop: drop, coverage }: GateFacts): SignalMeasure {
  if (!drop) return { value: "off: [coverage] max_drop is not set", policy: "drop <= [coverage] max_drop", off: true };
  const policy = `drop <= ${drop.maxDrop} points below the base's proven coverage`;
  if (drop.kind === "not_measured")
    return { value: `not measured: ${drop.why}. Fix: ${drop.fix}`, policy, notMeasured: true };
  const points = coverageDrop(drop.basePercent, coverage.percent);
  return {
    value: `${pct(drop.basePercent)} at the base, ${pct(coverage.percent)} now: ${points >= 0 ? `down ${points.toFixed(2)}` : `up ${(-points).toFixed(2)}`} points (base: ${drop.file})`,
    policy,
  };
}

/** The human signatures row: off unless required; else how many human-trailer commits verified, and by what. */
function signatureMeasure({ patch }: GateFacts): SignalMeasure {
  const policy = patch.policy;
  const signatures = policy?.signatures;
  if (!policy || !signatures?.required)
    return {
      value: 'off: [agents] human_signatures = "off"',
      policy: "human trailers on verified commits",
      off: true,
    };
  const by = [signatures.allowedSigners, signatures.platform ? `${signatures.platform}'s verification` : undefined]
    .filter(Boolean)
    .join(" or ");
  const judged = patch.evidence?.shallow ? undefined : patch.evidence;
  if (!judged) return { value: "not judged", policy: `human trailers on commits verified by ${by}`, notMeasured: true };
  const keys = [...new Set(Object.values(policy.trailers))];
  const trailered = judged.commits.filter(
    (c) => keys.some((key) => carriesHumanTrailer(c, key)) && !classifyCommit(c, policy.agentPatterns).agent,
  );
  const verified = trailered.filter((c) => c.signature?.verified === true).length;
  return {
    value: `${plural(trailered.length, "human-trailer commit")}, ${verified} verified`,
    policy: `human trailers on commits verified by ${by}`,
  };
}

/** The test runner row's value: what the records say, in a reader's words. */
function runnerValue(runner: RunnerEvidence): string {
  const step = (name: string, s: { result: { record?: RunRecord | undefined } } | undefined): string =>
    s === undefined
      ? `${name}: not recorded`
      : s.result.record
        ? `${name}: ${plural(s.result.record.tests.length, "test")} recorded`
        : `${name}: no valid record`;
  return [
    step("proof run", runner.proof),
    ...(runner.properties ? [step("property run", runner.properties)] : []),
  ].join("; ");
}

/** The measurement row: coverage.py's config file, what changed, the pragmas added and the source left unmeasured. */
function measurementMeasure(facts: GateFacts, trailer: string): SignalMeasure {
  // A vitest proof run's record holds vitest's coverage settings: the row speaks of them, not coverage.py.
  const vitest = facts.runner?.proof?.result.record?.vitestCoverage;
  const policy =
    vitest !== undefined
      ? `no loosening of vitest's coverage settings, no ignore comment added; else ${trailer}`
      : `no loosening of coverage.py's config, no exclusion added, changed source measured; else ${trailer}`;
  const m = facts.measurement;
  if (m === "off") return { value: "off in proofgate.toml", policy, off: true };
  if (m === undefined) return { value: "not judged", policy, notMeasured: true };
  const e = m.evidence;
  if (vitest !== undefined) {
    const loosened = e.net.filter((c) => c.kind === "loosening").length;
    const config = vitest === null ? "unread" : (vitest.configFile ?? "no config file");
    return {
      value: `vitest's coverage settings (${config}): ${plural(loosened, "loosening")}; ${plural(e.excluded.length, "ignore comment")} added`,
      policy,
    };
  }
  const file = e.configFile.head ?? "coverage.py's defaults";
  const moved =
    e.configFile.base !== e.configFile.head ? ` (was ${e.configFile.base ?? "coverage.py's defaults"})` : "";
  const loosenings = e.net.filter((c) => c.kind === "loosening").length;
  const unmeasured = e.sources.filter((s) => !e.measured.includes(s.path)).length;
  return {
    value: `config ${file}${moved}: ${plural(loosenings, "loosening")}; ${plural(e.excluded.length, "excluded line")} added; ${unmeasured} of ${plural(e.sources.length, "changed source file")} unmeasured`,
    policy,
  };
}

/** The removed-tests row: measured against the base's universe, or not measured and how to turn it on. */
function removedTestsMeasure(
  changes: TestChangeJudgement | undefined,
  judged: boolean,
  trailer: string,
): SignalMeasure {
  const policy = `each base test collected at head, leased, or removed with ${trailer}`;
  if (!changes) {
    return {
      value: judged ? "judged by `proofgate check` only" : "no git range judged",
      policy,
      notMeasured: true,
    };
  }
  if (changes.notMeasured) {
    return {
      value: `not measured: ${changes.notMeasured.why}. Fix: ${changes.notMeasured.fix}`,
      policy,
      notMeasured: true,
    };
  }
  const renamed = changes.renamed ? ` (${changes.renamed} renamed)` : "";
  const approved = changes.approvedRemovals ? `, ${changes.approvedRemovals} approved` : "";
  const moved = changes.moved
    ? `; ${plural(changes.moved, "base test")} collected under new ids (pytest's rootdir is ${changes.rootdir ?? "a folder above"} at head)`
    : "";
  return {
    value: `${changes.gone} of ${plural(changes.baseTests, "base test")} not collected at head${renamed}${approved}${moved}; base: ${changes.baseFile}`,
    policy,
  };
}

const reportLease = (lease: Lease, costs?: LeaseCosts): ReportLease => ({
  nodeid: lease.nodeid,
  owner: lease.owner,
  expires: lease.expires,
  line: lease.line ?? null,
  ...(costs ? { cost: costs.byTest.get(lease.nodeid) } : {}),
});

/** The active leases' costs: from the single run's contexts, else not measured and why. */
function activeCosts(coverage: ProvenCoverage, active: readonly Lease[]): LeaseCosts {
  const ids = active.map((l) => l.nodeid);
  const costs = leaseCosts(coverage.map, [...new Set([...ids, ...(coverage.dropped ?? [])])], coverage.frozenNotRun);
  return { ...costs, byTest: new Map(ids.map((id) => [id, costs.byTest.get(id)!])) };
}

/** The report of an evaluated gate: the decision the findings give, the table, and every section. */
export function buildReport(
  facts: GateFacts,
  findings: Finding[],
  inputs: InputDigest[],
  warnings: readonly GateIssue[],
): GateReport {
  const reasons: ReasonCode[] = [...new Set(findings.map((f) => f.reason))];
  const decision: Decision = reasons.length === 0 ? "MERGE" : "REJECT";
  const { coverage, ledger, active, expired, unknown, accounting, patch, properties, universe } = facts;
  const range = patch.evidence;
  const costs = activeCosts(coverage, active);
  return {
    todayUtc: facts.today,
    collectedTests: universe.ids.length,
    activeLeases: active.length,
    expiredLeases: expired.length,
    provenCoveragePercent: coverage.percent,
    minProvenCoveragePercent: facts.minProven,
    fixtureDigestDelta: patch.fixtureDelta,
    propertyFailures: facts.propertyFailures,
    agentAddedLeases: patch.agentAddedLeases,
    reasons,
    decision,
    schemaVersion: REPORT_SCHEMA_VERSION,
    signals: buildSignals(signalMeasures(facts, reasons), reasons),
    clock: { source: facts.clockOverride ? "override" : "system", todayUtc: facts.today },
    base: range?.base ?? null,
    head: range?.head ?? null,
    commits: range ? range.commits.length : null,
    coverage: {
      source: coverage.source,
      files: coverage.files,
      format: coverage.format,
      shardsExpected: coverage.shardsExpected ?? null,
      provenCoveragePercent: coverage.percent,
      numStatements: coverage.statements,
      coveredLines: coverage.coveredLines,
      numBranches: coverage.branches,
      coveredBranches: coverage.coveredBranches,
      lineRate: coverage.lineRate,
      branchRate: coverage.branchRate,
      ...hiddenDebt(coverage, facts.patchCoverage),
      ...(coverage.map ? { lines: coverage.map } : {}),
      ...patchSection(facts),
      maxDropPoints: facts.coverageDrop?.maxDrop ?? null,
      baseProvenCoveragePercent: facts.coverageDrop?.kind === "measured" ? facts.coverageDrop.basePercent : null,
    },
    ledger: {
      file: ledger.file,
      maxActiveLeases: ledger.maxActiveLeases,
      budgetOmitted: ledger.budgetOmitted,
      rejectIfExpired: ledger.rejectIfExpired,
      rejectIfAgentAddsLease: ledger.rejectIfAgentAddsLease,
      active: active.map((l) => reportLease(l, costs)),
      expired: expired.map((l) => reportLease(l)),
      unknown: unknown.map((u) => ({ ...reportLease(u.lease), closeIds: u.close.map((c) => c.id) })),
      costPool: costs.pool,
      costNotMeasured: costs.notMeasured ?? null,
    },
    accounting: accounting
      ? {
          resultFiles: accounting.resultFiles,
          collected: accounting.collected,
          ...accounting.counts,
          maxUnledgeredSkips: facts.evidence?.maxUnledgeredSkips ?? null,
          unknownResults: accounting.unknownResults.length,
        }
      : null,
    universe: {
      file: universe.file,
      collected: universe.ids.length,
      duplicates: universe.duplicates.length,
      collectionErrors: universe.collectionErrors.length,
    },
    properties:
      properties.kind === "off"
        ? { enabled: false }
        : properties.kind === "results"
          ? { enabled: true, ...properties.evidence }
          : null,
    fixtures: { enabled: !facts.fixturesOff },
    commands: inStepOrder(facts.commands),
    findings,
    inputs,
    warnings: [...warnings],
    errors: [],
  };
}

/**
 * The report when the gate could not evaluate: decision REJECT, reason `input_error`, the errors listed,
 * and every number it could not compute as null. Written so a queue that parses JSON still sees REJECT.
 */
export function errorReport(
  today: string | undefined,
  issues: readonly GateIssue[],
  inputs: readonly InputDigest[] = [],
  range: { base?: string | undefined; head?: string | undefined } = {},
): GateReport {
  return {
    todayUtc: today ?? null,
    collectedTests: null,
    activeLeases: null,
    expiredLeases: null,
    provenCoveragePercent: null,
    minProvenCoveragePercent: null,
    fixtureDigestDelta: null,
    propertyFailures: null,
    agentAddedLeases: null,
    reasons: ["input_error"],
    decision: "REJECT",
    schemaVersion: REPORT_SCHEMA_VERSION,
    signals: [],
    base: range.base ?? null,
    head: range.head ?? null,
    findings: [],
    inputs: [...inputs],
    warnings: [],
    errors: [...issues],
  };
}

// The steps in the order they are planned, whatever order they ended in (the base's collection runs beside
// the head's steps): the report is the same for the same run. A step repeated keeps its own order.
const STEP_ORDER = [
  "base setup",
  "base collect",
  "base properties",
  "base coverage settings",
  "base marked skips",
  "collect",
  "proof",
  "properties",
  "base skips",
];

function inStepOrder<T extends { step: string }>(commands: readonly T[]): T[] {
  const rank = (step: string): number => {
    const i = STEP_ORDER.indexOf(step);
    return i === -1 ? STEP_ORDER.length : i;
  };
  return [...commands].sort((a, b) => rank(a.step) - rank(b.step));
}

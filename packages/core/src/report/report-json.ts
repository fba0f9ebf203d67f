// The report's one serialisation: snake_case keys in the article's order, numbers the article's script
// prints as floats written as Python would (`70.0`). Everything before this point is typed.
import { formatIssue, type GateIssue } from "../common/errors.js";
import { PyFloat, toPythonJson } from "../python/python-json.js";
import type { LeaseCost } from "../coverage/lease-cost.js";
import type { Finding, GateReport, ReportLease } from "../model/report.js";

const float = (n: number | null): PyFloat | null => (n === null ? null : new PyFloat(n));
const lease = (l: ReportLease) => ({ nodeid: l.nodeid, owner: l.owner, expires: l.expires, line: l.line });

/** A lease's cost: the lines and branches only its test runs, or why that is not measured. */
export function leaseCostObject(c: LeaseCost | undefined) {
  if (!c) return { status: "not_measured", why: "not computed" };
  if (c.status === "not_measured") return { status: c.status, why: c.why };
  return {
    status: c.status,
    lines: c.lines,
    branches: c.branches,
    shared_lines: c.sharedLines,
    shared_branches: c.sharedBranches,
    files: c.files.map((f) => ({ path: f.path, lines: f.lines, branches: f.branches })),
  };
}

function finding(f: Finding) {
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

function error(i: GateIssue) {
  return { code: i.code, message: i.message, file: i.file ?? null, line: i.line ?? null, fix: i.fix ?? null };
}

/** The report as the JSON object that report.json holds (numbers as `PyFloat` where Python prints floats). */
export function reportObject(r: GateReport): Record<string, unknown> {
  return {
    today_utc: r.todayUtc,
    collected_tests: r.collectedTests,
    active_leases: r.activeLeases,
    expired_leases: r.expiredLeases,
    proven_coverage_percent: float(r.provenCoveragePercent),
    min_proven_coverage_percent: float(r.minProvenCoveragePercent),
    fixture_digest_delta: r.fixtureDigestDelta,
    property_failures: r.propertyFailures,
    agent_added_leases: r.agentAddedLeases,
    reasons: r.reasons,
    decision: r.decision,
    schema_version: r.schemaVersion,
    signals: r.signals.map((s) => ({
      id: s.id,
      label: s.label,
      value: s.value,
      policy: s.policy,
      result: s.result,
      reasons: s.reasons,
    })),
    clock: r.clock && { source: r.clock.source, today_utc: r.clock.todayUtc },
    base: r.base,
    head: r.head,
    commits: r.commits,
    root: r.root || undefined,
    coverage: r.coverage && {
      source: r.coverage.source,
      files: r.coverage.files,
      format: r.coverage.format,
      shards_expected: r.coverage.shardsExpected,
      proven_coverage_percent: float(r.coverage.provenCoveragePercent),
      num_statements: r.coverage.numStatements,
      covered_lines: r.coverage.coveredLines,
      num_branches: r.coverage.numBranches,
      covered_branches: r.coverage.coveredBranches,
      line_rate: float(r.coverage.lineRate),
      branch_rate: float(r.coverage.branchRate),
      raw: r.coverage.raw && {
        percent_covered: float(r.coverage.raw.percent),
        num_statements: r.coverage.raw.numStatements,
        covered_lines: r.coverage.raw.coveredLines,
        num_branches: r.coverage.raw.numBranches,
        covered_branches: r.coverage.raw.coveredBranches,
      },
      raw_not_measured: r.coverage.rawNotMeasured,
      hidden_debt_points: float(r.coverage.hiddenPoints),
      max_drop_points: float(r.coverage.maxDropPoints),
      base_proven_coverage_percent: float(r.coverage.baseProvenCoveragePercent),
      frozen_only: r.coverage.frozenOnly && {
        lines: r.coverage.frozenOnly.lines,
        branches: r.coverage.frozenOnly.branches,
        attributed: r.coverage.frozenOnly.attributed,
        files: r.coverage.frozenOnly.files.map((f) => ({
          path: f.path,
          lines: f.lines,
          branches: f.branches,
          ranges: f.ranges.map((x) => ({ start: x.start, end: x.end, lines: x.lines, tests: x.tests })),
          branch_list: f.branchList.map((b) => ({ line: b.line, branch: b.branch, tests: b.tests })),
        })),
      },
      patch: r.coverage.patch && {
        coverable: r.coverage.patch.coverable,
        covered: r.coverage.patch.covered,
        percent: float(r.coverage.patch.percent),
        not_applicable: r.coverage.patch.notApplicable,
        raw: r.coverage.patch.raw && {
          covered: r.coverage.patch.raw.covered,
          percent: float(r.coverage.patch.raw.percent),
        },
        min_patch_proven: float(r.coverage.patch.minPatchProven),
        changed_files: r.coverage.patch.changedFiles,
        measured_files: r.coverage.patch.measuredFiles,
        files: r.coverage.patch.files.map((f) => ({
          path: f.path,
          old_path: f.oldPath ?? null,
          coverable: f.coverable,
          covered: f.covered,
          uncovered: f.uncovered,
          frozen_only: f.frozenOnly,
        })),
      },
      patch_not_measured: r.coverage.patchNotMeasured,
    },
    ledger: r.ledger && {
      file: r.ledger.file,
      max_active_leases: r.ledger.maxActiveLeases,
      budget_omitted: r.ledger.budgetOmitted,
      reject_if_expired: r.ledger.rejectIfExpired,
      reject_if_agent_adds_lease: r.ledger.rejectIfAgentAddsLease,
      active: r.ledger.active.map((l) => ({ ...lease(l), cost: leaseCostObject(l.cost) })),
      expired: r.ledger.expired.map(lease),
      unknown: r.ledger.unknown.map((u) => ({ ...lease(u), close_ids: u.closeIds })),
      cost_pool: r.ledger.costPool && { lines: r.ledger.costPool.lines, branches: r.ledger.costPool.branches },
      cost_not_measured: r.ledger.costNotMeasured,
    },
    accounting:
      r.accounting &&
      ({
        result_files: r.accounting.resultFiles,
        collected: r.accounting.collected,
        proven: r.accounting.proven,
        frozen: r.accounting.frozen,
        skipped: r.accounting.skipped,
        failed: r.accounting.failed,
        missing: r.accounting.missing,
        max_unledgered_skips: r.accounting.maxUnledgeredSkips,
        unknown_results: r.accounting.unknownResults,
      } as const),
    universe: r.universe && {
      file: r.universe.file,
      collected: r.universe.collected,
      duplicates: r.universe.duplicates,
      collection_errors: r.universe.collectionErrors,
    },
    properties:
      r.properties &&
      (r.properties.enabled
        ? {
            enabled: true,
            result_files: r.properties.resultFiles,
            tests: r.properties.tests,
            failures: r.properties.failures,
            skipped: r.properties.skipped,
          }
        : { enabled: false }),
    fixtures: r.fixtures && { enabled: r.fixtures.enabled },
    commands: r.commands?.map((c) => ({
      step: c.step,
      command: c.command,
      exit_code: c.exitCode,
      ...(c.seconds === undefined ? {} : { seconds: Math.round(c.seconds * 1000) / 1000 }),
    })),
    details: r.findings.map(finding),
    inputs: r.inputs.map((i) => ({ role: i.role, path: i.path, sha256: i.sha256 })),
    warnings: r.warnings.map(formatIssue),
    errors: r.errors.map(error),
  };
}

/** report.json's text: Python's `json.dumps(indent=2)` layout, a newline at the end. Same report, same bytes. */
export function reportJson(report: GateReport): string {
  return `${toPythonJson(reportObject(report))}\n`;
}

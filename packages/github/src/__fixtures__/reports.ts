// Reports for the publishing tests: a typed report, with the JSON and Markdown beside it.
import { renderMarkdown, type Finding, type PublishableReport, type GateReport } from "@proofgate/core";

/** A report with `findings` (REJECT when there are any), rendered as the CLI renders it. */
export function reportWith(findings: Finding[], more: Partial<GateReport> = {}): PublishableReport {
  const gate: GateReport = {
    decision: findings.length === 0 && (more.errors ?? []).length === 0 ? "MERGE" : "REJECT",
    reasons: [...new Set(findings.map((f) => f.reason))],
    todayUtc: "2026-03-01",
    base: "a".repeat(40),
    head: "b".repeat(40),
    provenCoveragePercent: 81.5,
    minProvenCoveragePercent: 70,
    collectedTests: null,
    activeLeases: null,
    expiredLeases: null,
    fixtureDigestDelta: null,
    propertyFailures: null,
    agentAddedLeases: null,
    schemaVersion: 2,
    inputs: [],
    signals: [],
    findings,
    errors: [],
    warnings: [],
    ...more,
  };
  const json = `${JSON.stringify({ decision: gate.decision, reasons: gate.reasons, details: findings }, null, 2)}\n`;
  return {
    gate,
    json,
    markdown: renderMarkdown(gate),
    exitCode: gate.errors.length > 0 ? 2 : gate.decision === "MERGE" ? 0 : 1,
  };
}

/** An expired lease on `freeze.toml` line `line`, worded as the gate words it. */
export function expiredLease(nodeid: string, owner: string, line: number): Finding {
  return { reason: "expired_leases", message: `lease on ${nodeid} (owner ${owner}) expired 2026-01-01; today is 2026-03-01`, file: "freeze.toml", line, fix: "fix the test and delete the lease, or have its owner renew it in a human commit" };
}

/** Text a patch controls that tries markup, HTML, mentions, code spans, new lines and workflow commands. */
export const HOSTILE = "`x` <img src=x onerror=alert(1)> @admin [l](http://evil) ##[error]boom\n::error::pwned";

/**
 * A report whose coverage section lists `ranges` frozen-only ranges (range i has i % 7 + 1 lines), over
 * files of `perFile` ranges each, the first file's name hostile; each range run by a leased test and a
 * hostile one.
 */
export function frozenOnlyReport(
  ranges: number,
  findings: Finding[] = [],
  options: { perFile?: number; attributed?: boolean } = {},
): PublishableReport {
  const perFile = options.perFile ?? 50;
  const attributed = options.attributed ?? true;
  const files: NonNullable<NonNullable<GateReport["coverage"]>["frozenOnly"]>["files"] = [];
  for (let i = 0; i < ranges; i++) {
    const f = Math.floor(i / perFile);
    const path = f === 0 ? `src/${HOSTILE.replace(/\n/g, "")}.py` : `src/module_${f}.py`;
    if (!files[f]) files[f] = { path, lines: 0, branches: 0, ranges: [], branchList: [] };
    const lines = (i % 7) + 1;
    const start = 10 * (i % perFile) + 1;
    files[f].ranges.push({
      start,
      end: start + lines - 1,
      lines,
      tests: attributed ? ["tests/test_api.py::test_login", `tests/test_${HOSTILE}.py::t`] : null,
    });
    files[f].lines += lines;
  }
  files.sort((a, b) => b.lines - a.lines);
  const total = files.reduce((n, f) => n + f.lines, 0);
  return reportWith(findings, {
    coverage: {
      source: "contexts",
      files: [".coverage"],
      format: "coveragepy-contexts",
      shardsExpected: null,
      provenCoveragePercent: 81.5,
      numStatements: 10_000,
      coveredLines: 8150,
      numBranches: 0,
      coveredBranches: 0,
      lineRate: 0.815,
      branchRate: 1,
      raw: { percent: 81.5 + total / 100, numStatements: 10_000, coveredLines: 8150 + total, numBranches: 0, coveredBranches: 0 },
      rawNotMeasured: null,
      hiddenPoints: total / 100,
      frozenOnly: { lines: total, branches: 0, attributed, files },
      patch: null,
      patchNotMeasured: "decide reads no git diff",
      maxDropPoints: null,
      baseProvenCoveragePercent: null,
    },
    ledger: {
      file: "freeze.toml",
      maxActiveLeases: 3,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      active: [{ nodeid: "tests/test_api.py::test_login", owner: `alice ${HOSTILE}`, expires: "2026-04-01", line: 3 }],
      expired: [],
      unknown: [],
      costPool: null,
      costNotMeasured: "the rerun does not record which test ran which line",
    },
  });
}

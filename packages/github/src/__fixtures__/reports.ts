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

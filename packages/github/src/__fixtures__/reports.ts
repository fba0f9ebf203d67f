// Reports for the publishing tests: a view as `reportView` gives it, with the JSON and Markdown beside it.
import { renderMarkdown, type Finding, type PublishableReport, type ReportView } from "@proofgate/core";

/** A report with `findings` (REJECT when there are any), rendered as the CLI renders it. */
export function reportWith(findings: Finding[], more: Partial<ReportView> = {}): PublishableReport {
  const view: ReportView = {
    decision: findings.length === 0 && (more.errors ?? []).length === 0 ? "MERGE" : "REJECT",
    reasons: [...new Set(findings.map((f) => f.reason))],
    today: "2026-03-01",
    base: "a".repeat(40),
    head: "b".repeat(40),
    provenCoverage: 81.5,
    minProven: 70,
    signals: [],
    findings,
    errors: [],
    warnings: [],
    ...more,
  };
  const json = `${JSON.stringify({ decision: view.decision, reasons: view.reasons, details: findings }, null, 2)}\n`;
  return { view, json, markdown: renderMarkdown(view), exitCode: view.errors.length > 0 ? 2 : view.decision === "MERGE" ? 0 : 1 };
}

/** An expired lease on `freeze.toml` line `line`, worded as the gate words it. */
export function expiredLease(nodeid: string, owner: string, line: number): Finding {
  return { reason: "expired_leases", message: `lease on ${nodeid} (owner ${owner}) expired 2026-01-01; today is 2026-03-01`, file: "freeze.toml", line, fix: "fix the test and delete the lease, or have its owner renew it in a human commit" };
}

// GitLab's Code Quality report: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
// (a JSON array of issues with description, check_name, fingerprint, severity, location.path and
// location.lines.begin).
import { createHash } from "node:crypto";
import { formatIssue, normalizeRepoPath, type GateReport } from "@proofgate/core";

/** The file name, in the out dir, that `artifacts:reports:codequality` reads. */
export const CODE_QUALITY_FILE = "codequality.json";

/** Where an issue without a file of its own is shown: the gate's policy file, which rejected it. */
export const POLICY_FILE = "proofgate.toml";

/** One Code Quality issue. */
export interface CodeQualityIssue {
  description: string;
  check_name: string;
  fingerprint: string;
  severity: "info" | "minor" | "major" | "critical" | "blocker";
  location: { path: string; lines: { begin: number } };
}

const MAX_DESCRIPTION = 1000;

/** Text from the patch as one plain line: no control or bidi characters, bounded length. */
export function plainLine(text: string, max = MAX_DESCRIPTION): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, " ")
    .replace(/ {2,}/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/**
 * One issue per reason the gate found, and one per error when it could not evaluate. Every issue is a
 * blocker: each alone makes the answer REJECT. The fingerprint is a digest of what the problem is and
 * where (the same problem on a later run keeps it, so the MR widget tells new from fixed); two
 * identical problems are told apart by their order.
 */
export function codeQualityIssues(view: GateReport): CodeQualityIssue[] {
  const raw = [
    ...view.findings.map((f) => ({
      check: `proofgate/${f.reason}`,
      file: f.file,
      line: f.line,
      commit: f.commit,
      text: `${f.message} Fix: ${f.fix}`,
    })),
    ...view.errors.map((e) => ({
      check: `proofgate/${e.code}`,
      file: e.file,
      line: e.line,
      commit: undefined,
      text: formatIssue(e),
    })),
  ];
  const seen = new Map<string, number>();
  return raw.map((r) => {
    const path = (r.file ? normalizeRepoPath(r.file) : undefined) ?? POLICY_FILE;
    const begin = typeof r.line === "number" && Number.isSafeInteger(r.line) && r.line >= 1 ? r.line : 1;
    const where = r.file && path !== r.file ? ` (at ${r.file})` : "";
    const description = plainLine(`${r.check.slice("proofgate/".length)}: ${r.text}${where}`);
    const key = JSON.stringify([r.check, path, begin, r.commit ?? null, r.text]);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const fingerprint = createHash("sha256")
      .update(n === 0 ? key : `${key}#${n}`)
      .digest("hex");
    return { description, check_name: r.check, fingerprint, severity: "blocker", location: { path, lines: { begin } } };
  });
}

/** The Code Quality report's text: a JSON array (empty when the gate found nothing). */
export function codeQualityReport(view: GateReport): string {
  return `${JSON.stringify(codeQualityIssues(view), null, 2)}\n`;
}

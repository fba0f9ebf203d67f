// GitLab's Code Quality report: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
// (a JSON array of issues with description, check_name, fingerprint, severity, location.path and
// location.lines.begin).
import { createHash } from "node:crypto";
import {
  formatIssue,
  frozenOnlyRanges,
  frozenTestText,
  lineSpan,
  normalizeRepoPath,
  rangesByPriority,
  repoPathOf,
  type GateReport,
} from "@proofgate/core";

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
  location: { path: string; lines: { begin: number; end?: number } };
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

/** A report's path as the repository names it: a package's report (`check --root`) names its files relative to the package. */
function inRepo(view: GateReport, path: string): string | undefined {
  return view.root ? repoPathOf(view.root, path) : normalizeRepoPath(path);
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
    const path = (r.file ? inRepo(view, r.file) : undefined) ?? inRepo(view, POLICY_FILE) ?? POLICY_FILE;
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

/** At most this many frozen-only entries in the Code Quality report: the patch's ranges first, then the largest. */
export const FROZEN_ONLY_ENTRIES = 200;
/** The check name of a frozen-only entry. */
export const FROZEN_ONLY_CHECK = "proofgate/frozen_only";
/** How many frozen tests one entry names. */
const TESTS_PER_ENTRY = 5;

/**
 * One `info` entry per frozen-only range (at most `cap`): lines only frozen tests run, which proven
 * coverage does not count. Informational: they never make the answer REJECT by themselves. The
 * fingerprint is the range's place, so the same range on a later run is the same entry.
 */
export function frozenOnlyIssues(view: GateReport, cap = FROZEN_ONLY_ENTRIES): CodeQualityIssue[] {
  const out: CodeQualityIssue[] = [];
  for (const r of rangesByPriority(frozenOnlyRanges(view))) {
    if (out.length >= cap) break;
    const path = inRepo(view, r.path);
    if (!path || !Number.isSafeInteger(r.start) || r.start < 1) continue;
    const end = Number.isSafeInteger(r.end) && r.end >= r.start ? r.end : r.start;
    const tests =
      r.tests === null
        ? " The full run's report does not say which frozen tests run them (rerun mode)."
        : r.tests.length === 0
          ? ""
          : ` Frozen tests: ${r.tests
              .slice(0, TESTS_PER_ENTRY)
              .map((t) => frozenTestText(t, (s) => s))
              .join("; ")}${r.tests.length > TESTS_PER_ENTRY ? `; and ${r.tests.length - TESTS_PER_ENTRY} more` : ""}.`;
    const description = plainLine(
      `frozen_only: ${r.lines} line${r.lines === 1 ? "" : "s"} (${lineSpan({ start: r.start, end })}) run only under frozen tests, so proven coverage does not count ${r.lines === 1 ? "it" : "them"}.${tests}`,
    );
    const fingerprint = createHash("sha256")
      .update(JSON.stringify([FROZEN_ONLY_CHECK, path, r.start, end]))
      .digest("hex");
    out.push({
      description,
      check_name: FROZEN_ONLY_CHECK,
      fingerprint,
      severity: "info",
      location: { path, lines: { begin: r.start, end } },
    });
  }
  return out;
}

/**
 * The Code Quality report's text: a JSON array of the reasons (blockers), then the frozen-only ranges
 * (info); empty when there are neither.
 */
export function codeQualityReport(view: GateReport): string {
  return `${JSON.stringify([...codeQualityIssues(view), ...frozenOnlyIssues(view)], null, 2)}\n`;
}

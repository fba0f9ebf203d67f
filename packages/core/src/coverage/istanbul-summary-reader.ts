import {
  normalizeCoveragePath,
  type CoverageData,
  type CoverageReadResult,
  type FileCounts,
} from "./coverage-model.js";
import type { CoverageReadOptions } from "./read-options.js";
import { describeValue, isCount, isRecord, parseJsonReport, ReportIssues } from "./report-issues.js";

const REGENERATE =
  "regenerate it with the `json-summary` coverage reporter (vitest `--coverage.reporter=json-summary`, nyc, jest)";

/** The metrics proofgate takes from a summary entry: statements play the part of lines. */
const METRICS = ["statements", "branches"] as const;

/**
 * Reads Istanbul's `coverage-summary.json` into counts-only entries ({@link FileCounts}): statements
 * (playing the part of lines) and branches, each `{total, covered}`. `pct` is never trusted (it may be
 * the string "Unknown" when a total is 0); the `total` entry must equal the sum of the files. Such a
 * report cannot be merged with another shard naming the same file.
 */
export function readIstanbulSummary(text: string, file: string, options: CoverageReadOptions = {}): CoverageReadResult {
  const issues = new ReportIssues(file, REGENERATE);
  if (text.trim() === "") {
    issues.error("the Istanbul coverage-summary.json report is empty");
    return issues.result(undefined);
  }
  const report = parseJsonReport(text, issues, "an Istanbul coverage-summary.json report");
  if (issues.failed) return issues.result(undefined);
  if (!isRecord(report)) {
    issues.error("not an Istanbul coverage-summary.json report: the top level is not an object");
    return issues.result(undefined);
  }
  if (!isRecord(report.total)) {
    issues.error("the report has no `total` entry: it is truncated or not an Istanbul coverage-summary.json report");
    return issues.result(undefined);
  }
  const total = readEntry(report.total, "`total`", issues);
  const files = new Map<string, FileCounts>();
  const sum = { statements: 0, coveredStatements: 0, branches: 0, coveredBranches: 0 };
  for (const [key, entry] of Object.entries(report)) {
    if (key === "total") continue;
    const counts = readEntry(entry, JSON.stringify(key), issues);
    if (!counts) continue;
    const path = normalizeCoveragePath(key, options.root);
    if (files.has(path)) {
      issues.error(`two entries name the same file \`${path}\` once normalised`);
      continue;
    }
    files.set(path, { path, ...counts });
    sum.statements += counts.statements;
    sum.coveredStatements += counts.coveredStatements;
    sum.branches += counts.branches;
    sum.coveredBranches += counts.coveredBranches;
  }
  if (issues.failed || !total) return issues.result(undefined);
  if (files.size === 0) {
    issues.error("the report lists no files, only `total`");
    return issues.result(undefined);
  }
  if (
    sum.statements !== total.statements ||
    sum.coveredStatements !== total.coveredStatements ||
    sum.branches !== total.branches ||
    sum.coveredBranches !== total.coveredBranches
  ) {
    issues.error(
      `the files add up to ${sum.coveredStatements}/${sum.statements} statements and ${sum.coveredBranches}/${sum.branches} branches but \`total\` says ${total.coveredStatements}/${total.statements} and ${total.coveredBranches}/${total.branches}: the report was edited or is corrupt`,
    );
    return issues.result(undefined);
  }
  const data: CoverageData = { format: "istanbul-summary", sources: [file], files, hasBranches: true };
  return issues.result(data);
}

function readEntry(entry: unknown, where: string, issues: ReportIssues): Omit<FileCounts, "path"> | undefined {
  if (!isRecord(entry)) {
    issues.error(`the entry for ${where} is not an object`);
    return undefined;
  }
  const out = { statements: 0, coveredStatements: 0, branches: 0, coveredBranches: 0 };
  for (const metric of METRICS) {
    const m = entry[metric];
    if (!isRecord(m)) {
      issues.error(`the entry for ${where} has no \`${metric}\` object`);
      return undefined;
    }
    if (!isCount(m.total) || !isCount(m.covered)) {
      issues.error(
        `${where}.${metric}: \`total\` and \`covered\` must be whole numbers >= 0, not ${describeValue(m.total)} and ${describeValue(m.covered)}`,
      );
      return undefined;
    }
    if (m.covered > m.total) {
      issues.error(`${where}.${metric}: \`covered\` (${m.covered}) exceeds \`total\` (${m.total})`);
      return undefined;
    }
    if (m.pct !== undefined && m.pct !== "Unknown" && (typeof m.pct !== "number" || !Number.isFinite(m.pct))) {
      issues.error(`${where}.${metric}: \`pct\` is ${describeValue(m.pct)}, neither a number nor "Unknown"`);
      return undefined;
    }
    if (metric === "statements") {
      out.statements = m.total;
      out.coveredStatements = m.covered;
    } else {
      out.branches = m.total;
      out.coveredBranches = m.covered;
    }
  }
  return out;
}

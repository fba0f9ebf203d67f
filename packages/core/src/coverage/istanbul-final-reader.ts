import {
  normalizeCoveragePath,
  type CoverageData,
  type CoverageReadResult,
  type FileCoverage,
} from "./coverage-model.js";
import type { CoverageReadOptions } from "./read-options.js";
import { describeValue, isCount, isRecord, parseJsonReport, ReportIssues } from "./report-issues.js";

const REGENERATE = "regenerate it with the `json` coverage reporter (vitest `--coverage.reporter=json`, nyc, jest)";

/**
 * Reads Istanbul's `coverage-final.json` (vitest, jest, nyc, c8) into the model. Statements play the part
 * of lines: one per `statementMap` entry, keyed `"<id>@<line>:<column>"` (its start), covered when `s`
 * counts it > 0 or Istanbul marks it `skip` (as Istanbul's own summary does). Branches: one per entry
 * of each `b[id]` list, keyed `"b<id>:<index>"`, covered when > 0. The file's path is the entry's `path`
 * (else its key), made relative to `root`.
 */
export function readIstanbulFinal(text: string, file: string, options: CoverageReadOptions = {}): CoverageReadResult {
  const issues = new ReportIssues(file, REGENERATE);
  if (text.trim() === "") {
    issues.error("the Istanbul coverage-final.json report is empty");
    return issues.result(undefined);
  }
  const report = parseJsonReport(text, issues, "an Istanbul coverage-final.json report");
  if (issues.failed) return issues.result(undefined);
  if (!isRecord(report)) {
    issues.error("not an Istanbul coverage-final.json report: the top level is not an object");
    return issues.result(undefined);
  }
  const files = new Map<string, FileCoverage>();
  for (const [key, entry] of Object.entries(report)) {
    const where = JSON.stringify(key);
    if (!isRecord(entry)) {
      issues.error(`the entry for ${where} is not an object`);
      continue;
    }
    const path = normalizeCoveragePath(
      typeof entry.path === "string" && entry.path !== "" ? entry.path : key,
      options.root,
    );
    const fc = readFile(entry, where, path, issues);
    if (!fc) continue;
    if (files.has(path)) {
      issues.error(`two entries name the same file \`${path}\` once normalised`);
      continue;
    }
    files.set(path, fc);
  }
  if (files.size === 0 && !issues.failed)
    issues.error("the report lists no files: not an Istanbul coverage-final.json report, or nothing was measured");
  if (issues.failed) return issues.result(undefined);
  const data: CoverageData = { format: "istanbul-final", sources: [file], files, hasBranches: true };
  return issues.result(data);
}

function readFile(
  entry: Record<string, unknown>,
  where: string,
  path: string,
  issues: ReportIssues,
): FileCoverage | undefined {
  const { statementMap, s, branchMap, b } = entry;
  for (const [name, value] of Object.entries({ statementMap, s, branchMap, b })) {
    if (!isRecord(value)) {
      issues.error(`the entry for ${where} has no \`${name}\` object (found ${describeValue(value)})`);
      return undefined;
    }
  }
  const statementsMap = statementMap as Record<string, unknown>;
  const counts = s as Record<string, unknown>;
  const branchesMap = branchMap as Record<string, unknown>;
  const branchCounts = b as Record<string, unknown>;
  const fc: FileCoverage = {
    path,
    statements: new Set(),
    coveredStatements: new Set(),
    branches: new Set(),
    coveredBranches: new Set(),
  };

  for (const id of Object.keys(counts)) {
    if (!(id in statementsMap)) {
      issues.error(`${where}: \`s["${id}"]\` counts a statement that \`statementMap\` does not have`);
      return undefined;
    }
  }
  for (const [id, loc] of Object.entries(statementsMap)) {
    const count = counts[id];
    if (!isCount(count)) {
      issues.error(
        `${where}: statement ${id}'s count \`s["${id}"]\` is ${describeValue(count)}, not a whole number >= 0`,
      );
      return undefined;
    }
    const start = isRecord(loc) && isRecord(loc.start) ? loc.start : {};
    const key = `${id}@${String(start.line ?? "")}:${String(start.column ?? "")}`;
    fc.statements.add(key);
    if (count > 0 || (isRecord(loc) && loc.skip === true)) fc.coveredStatements.add(key);
  }
  for (const [id, list] of Object.entries(branchCounts)) {
    if (!(id in branchesMap)) {
      issues.error(`${where}: \`b["${id}"]\` counts a branch that \`branchMap\` does not have`);
      return undefined;
    }
    if (!Array.isArray(list)) {
      issues.error(`${where}: \`b["${id}"]\` is ${describeValue(list)}, not a list of counts`);
      return undefined;
    }
    for (let i = 0; i < list.length; i++) {
      const count: unknown = list[i];
      if (!isCount(count)) {
        issues.error(`${where}: branch count \`b["${id}"][${i}]\` is ${describeValue(count)}, not a whole number >= 0`);
        return undefined;
      }
      const key = `b${id}:${i}`;
      fc.branches.add(key);
      if (count > 0) fc.coveredBranches.add(key);
    }
  }
  for (const id of Object.keys(branchesMap)) {
    if (!(id in branchCounts)) {
      issues.error(`${where}: branch ${id} of \`branchMap\` has no counts in \`b\``);
      return undefined;
    }
  }
  return fc;
}

import type { GateIssue } from "../common/errors.js";

/** The report formats proofgate reads. */
export type CoverageFormat =
  "coveragepy-json" | "lcov" | "cobertura" | "istanbul-final" | "istanbul-summary" | "coveragepy-contexts";

/**
 * One source file's coverage, normalised across formats. Statements and branches are keyed by strings
 * so that shards can be merged by union: a line number (`"12"`) for line-based formats, a statement id
 * for Istanbul; a branch key such as `"12>14"` (coverage.py arc), `"12:0:1"` (LCOV block:branch) or
 * `"b3:1"` (Istanbul). Keys only need to be stable within one format.
 */
export interface FileCoverage {
  /** Relative to the repository root, with `/` separators. */
  path: string;
  statements: Set<string>;
  coveredStatements: Set<string>;
  branches: Set<string>;
  coveredBranches: Set<string>;
}

/**
 * Per-file totals for formats that only carry counts (Istanbul's coverage-summary.json); such a
 * report cannot be merged with a shard of the same file.
 */
export interface FileCounts {
  path: string;
  statements: number;
  coveredStatements: number;
  branches: number;
  coveredBranches: number;
}

/** A parsed coverage report in the normalised model. */
export interface CoverageData {
  format: CoverageFormat;
  /** The report file(s) this came from. */
  sources: string[];
  files: Map<string, FileCoverage | FileCounts>;
  /** Whether the report measured branches at all. */
  hasBranches: boolean;
}

/** A coverage report, or everything wrong with it. */
export interface CoverageReadResult {
  data?: CoverageData | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
}

/** Totals in coverage.py's terms. */
export interface CoverageSummary {
  statements: number;
  coveredLines: number;
  branches: number;
  coveredBranches: number;
  /** (covered lines + covered branches) / (statements + branches) x 100; 100 when there are no statements. */
  percent: number;
  /** covered lines / statements; 1 when there are none. */
  lineRate: number;
  /** covered branches / branches; 1 when there are none. */
  branchRate: number;
}

/** coverage.py's percentage: (covered lines + covered branches) / (statements + branches) x 100; 100 with no statements. */
export function coveragePercent(
  statements: number,
  coveredLines: number,
  branches: number,
  coveredBranches: number,
): number {
  if (statements === 0) return 100.0;
  return (100.0 * (coveredLines + coveredBranches)) / (statements + branches);
}

/** The totals a set of counts gives: coverage.py's percentage and the line and branch rates (1 when there is nothing to cover). */
export function summaryFromCounts(
  statements: number,
  coveredLines: number,
  branches: number,
  coveredBranches: number,
): CoverageSummary {
  return {
    statements,
    coveredLines,
    branches,
    coveredBranches,
    percent: coveragePercent(statements, coveredLines, branches, coveredBranches),
    lineRate: statements === 0 ? 1 : coveredLines / statements,
    branchRate: branches === 0 ? 1 : coveredBranches / branches,
  };
}

/** True when the entry carries sets (mergeable), false for counts-only entries. */
export function hasSets(entry: FileCoverage | FileCounts): entry is FileCoverage {
  return entry.statements instanceof Set;
}

/** Counts of one file entry. */
export function fileCounts(entry: FileCoverage | FileCounts): FileCounts {
  if (!hasSets(entry)) return entry;
  return {
    path: entry.path,
    statements: entry.statements.size,
    coveredStatements: entry.coveredStatements.size,
    branches: entry.branches.size,
    coveredBranches: entry.coveredBranches.size,
  };
}

/** Sums a report into coverage.py's totals, with coverage.py's formula for the percentage. */
export function summarizeCoverage(data: CoverageData): CoverageSummary {
  let statements = 0;
  let coveredLines = 0;
  let branches = 0;
  let coveredBranches = 0;
  for (const entry of data.files.values()) {
    const c = fileCounts(entry);
    statements += c.statements;
    coveredLines += c.coveredStatements;
    branches += c.branches;
    coveredBranches += c.coveredBranches;
  }
  return summaryFromCounts(statements, coveredLines, branches, coveredBranches);
}

/**
 * Normalises a report's file path: `\` to `/`, a leading `./` dropped, and, when `root` is given and
 * the path is absolute under it, made relative to it. Paths outside the root stay as they are.
 */
export function normalizeCoveragePath(path: string, root?: string): string {
  let p = path.replace(/\\/g, "/");
  if (root) {
    const r = root.replace(/\\/g, "/").replace(/\/+$/, "");
    if (p.startsWith(`${r}/`)) p = p.slice(r.length + 1);
  }
  while (p.startsWith("./")) p = p.slice(2);
  return p;
}

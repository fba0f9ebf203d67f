import { parseCoveragePyJson } from "./coverage-json.js";
import {
  normalizeCoveragePath,
  type CoverageData,
  type CoverageReadResult,
  type FileCoverage,
} from "./coverage-model.js";
import { arcKey, holdsExactly, lineKey } from "./coverage-keys.js";
import { dropPhantomLines } from "./coveragepy-phantoms.js";
import { parseJsonOnce } from "./shared-json.js";
import type { CoverageReadOptions, KnownSets } from "./read-options.js";
import { describeValue, isCount, isLineNumber, isRecord, ReportIssues } from "./report-issues.js";

const REGENERATE = "regenerate it with `coverage json` (coverage.py 6.5 to 7.x)";

/**
 * Reads a coverage.py JSON report (formats 1 to 3, with or without branches and contexts) into the model.
 * Per file: statements are `executed_lines` and `missing_lines` together, less `excluded_lines` and less
 * the executed lines that are not statements (see {@link dropPhantomLines}); covered statements are the
 * executed ones among them. Branches are the `executed_branches` and `missing_branches` arcs, keyed
 * `"from>to"` (a negative `to` is an exit). The totals are checked by {@link parseCoveragePyJson}, and the
 * files' lists must give the counts of each file's `summary`.
 */
export function readCoveragePyJson(text: string, file: string, options: CoverageReadOptions = {}): CoverageReadResult {
  const issues = new ReportIssues(file, REGENERATE);
  const checked = parseCoveragePyJson(text, file);
  if (checked.errors.length > 0 || checked.totals === undefined) return { errors: checked.errors, warnings: [] };
  const totals = checked.totals;
  const report = parseJsonOnce(text) as Record<string, unknown>;
  const meta = isRecord(report.meta) ? report.meta : {};
  const hasBranches = totals.hasBranches || meta.branch_coverage === true;
  if (!isRecord(report.files)) {
    issues.error("the report has no `files`: proofgate needs each file's executed and missing lines");
    return issues.result(undefined);
  }

  const files = new Map<string, FileCoverage>();
  let sumBranches = 0;
  let sumCoveredBranches = 0;
  for (const [key, entry] of Object.entries(report.files)) {
    const where = `files[${JSON.stringify(key)}]`;
    if (!isRecord(entry)) {
      issues.error(`\`${where}\` is not an object`);
      continue;
    }
    const path = normalizeCoveragePath(key, options.root);
    const fc = readFile(entry, where, hasBranches, issues, options.known?.(path));
    if (!fc) continue;
    if (files.has(path)) {
      issues.error(`two entries name the same file \`${path}\` once normalised`);
      continue;
    }
    sumBranches += fc.branches.size;
    sumCoveredBranches += fc.coveredBranches.size;
    files.set(path, { path, ...fc });
  }
  if (issues.failed) return issues.result(undefined);
  if (hasBranches && (sumBranches !== totals.branches || sumCoveredBranches !== totals.coveredBranches)) {
    issues.error(
      `the files add up to ${sumCoveredBranches}/${sumBranches} branches but \`totals\` says ${totals.coveredBranches}/${totals.branches}: the report was edited or is corrupt`,
    );
    return issues.result(undefined);
  }
  const data: CoverageData = { format: "coveragepy-json", sources: [file], files, hasBranches };
  return issues.result(data);
}

type FileSets = Omit<FileCoverage, "path">;

function readFile(
  entry: Record<string, unknown>,
  where: string,
  hasBranches: boolean,
  issues: ReportIssues,
  known?: KnownSets,
): FileSets | undefined {
  const before = issues.errors.length;
  // Python 3.11+ reports line 0 as executed for an empty module: allowed, and never a statement.
  const executed = lineList(entry.executed_lines, `${where}.executed_lines`, true, issues, 0);
  const missing = lineList(entry.missing_lines, `${where}.missing_lines`, true, issues);
  const excluded = lineList(entry.excluded_lines, `${where}.excluded_lines`, false, issues) ?? [];
  const executedArcs = arcList(entry.executed_branches, `${where}.executed_branches`, hasBranches, issues);
  const missingArcs = arcList(entry.missing_branches, `${where}.missing_branches`, hasBranches, issues);
  const summary = isRecord(entry.summary) ? entry.summary : undefined;
  if (!summary) issues.error(`\`${where}\` has no \`summary\``);
  if (issues.errors.length > before || !executed || !missing || !summary) return undefined;

  const lines = statementLines(executed, missing, excluded, summary, where, issues, known);
  if (!lines) return undefined;
  const { statements, coveredStatements } = lines;

  const branches = new Set<string>();
  const coveredBranches = new Set<string>();
  for (const [from, to] of executedArcs ?? []) {
    // coverage.py lists every executed arc that leaves a branch line, predicted or not, and counts only
    // the predicted ones in its summary. A line to itself (a generator or comprehension resuming on its
    // own line) is never predicted: not a branch, as coverage.py's own totals say.
    if (from === to) continue;
    const k = arcKey(from, to);
    branches.add(k);
    coveredBranches.add(k);
  }
  for (const [from, to] of missingArcs ?? []) {
    const k = arcKey(from, to);
    if (coveredBranches.has(k)) {
      issues.error(`\`${where}\`: branch ${from}->${to} is both executed and missing`);
      return undefined;
    }
    branches.add(k);
  }
  const numBranches = summaryCount(summary, "num_branches", where, hasBranches, issues);
  const numCoveredBranches = summaryCount(summary, "covered_branches", where, hasBranches, issues);
  // coverage.py 6.x also lists executed arcs it never predicted (an exception jumping from a loop's line to
  // its `except`, say) and leaves them out of the summary. The missing arcs are always predicted, so when
  // they agree with the summary and only the executed arcs run over, the excess are such arcs: that many
  // are set aside (see pickUnpredicted), so each file's figures are coverage.py's own.
  if (
    hasBranches &&
    numBranches !== undefined &&
    numCoveredBranches !== undefined &&
    numBranches - numCoveredBranches === branches.size - coveredBranches.size &&
    coveredBranches.size > numCoveredBranches
  ) {
    for (const arc of pickUnpredicted(coveredBranches, coveredBranches.size - numCoveredBranches)) {
      coveredBranches.delete(arc);
      branches.delete(arc);
    }
  }
  if (hasBranches && (numBranches !== branches.size || numCoveredBranches !== coveredBranches.size)) {
    if (numBranches !== undefined && numCoveredBranches !== undefined) {
      issues.error(
        `\`${where}\` lists ${coveredBranches.size}/${branches.size} branches but its summary says ${numCoveredBranches}/${numBranches}: the report was edited or is corrupt`,
      );
    }
    return undefined;
  }
  return { statements, coveredStatements, branches: sameSet(branches, known?.branches), coveredBranches };
}

/**
 * `known` itself when it holds exactly the keys of `built` (an earlier shard's set, shared), else `built`.
 * The shared set is never changed: the merge adds to the covered sets only.
 */
function sameSet(built: Set<string>, known: ReadonlySet<string> | undefined): Set<string> {
  return known !== undefined && holdsExactly(known, built.size, built) ? (known as Set<string>) : built;
}

/** Lines above this are read by the set-based path (a marks array that large is not worth its memory). */
const MARKS_LIMIT = 1 << 20;
let marks = new Uint8Array(1024);
const MISSING = 1;
const EXCLUDED = 2;
const CANDIDATE = 4;
const DROPPED = 8;
const COUNTED = 16;

/**
 * A file's statements and covered statements from its lists and summary: statements are the executed
 * lines (less line 0 and the excluded ones) and the missing ones, less as many of the lowest executed
 * lines as the summary says are not statements (see {@link dropPhantomLines}); undefined after an error.
 * Lines are marked in one reused array (no set per list); {@link statementLinesBySets} is the same
 * reading with sets, for files with lines past {@link MARKS_LIMIT}.
 */
export function statementLines(
  executed: readonly number[],
  missing: readonly number[],
  excluded: readonly number[],
  summary: Record<string, unknown>,
  where: string,
  issues: ReportIssues,
  /**
   * An earlier shard's statements of the file, returned as they are when these lines give the same ones; with
   * `coveredStatements` (the merge's), the covered lines are added to it and it is returned as this file's.
   */
  known?: Pick<KnownSets, "statements" | "coveredStatements">,
): { statements: Set<string>; coveredStatements: Set<string> } | undefined {
  const highest = Math.max(highestOf(executed), highestOf(missing), highestOf(excluded));
  if (highest >= MARKS_LIMIT) {
    const read = statementLinesBySets(executed, missing, excluded, summary, where, issues);
    return (
      read && { statements: sameSet(read.statements, known?.statements), coveredStatements: read.coveredStatements }
    );
  }
  if (marks.length <= highest) marks = new Uint8Array(Math.max(highest + 1, marks.length * 2));
  const m = marks;
  try {
    for (const line of missing) m[line]! |= MISSING;
    for (const line of excluded) m[line]! |= EXCLUDED;
    for (const line of executed)
      if (m[line]! & MISSING) {
        issues.error(`\`${where}\`: line ${line} is both executed and missing`);
        return undefined;
      }
    // The executed lines that may be statements, once each, in the order listed.
    const candidates: number[] = [];
    for (const line of executed)
      if (line >= 1 && !(m[line]! & (EXCLUDED | CANDIDATE))) {
        m[line]! |= CANDIDATE;
        candidates.push(line);
      }
    let missingCount = 0;
    for (const line of missing)
      if (!(m[line]! & COUNTED)) {
        m[line]! |= COUNTED;
        missingCount++;
      }
    // No line is both a candidate and missing (checked above): the statements are the two counts.
    const counts = summaryStatements(summary, candidates.length + missingCount, where, issues);
    if (!counts) return undefined;
    const dropCount = Math.min(counts.phantoms, candidates.length);
    if (dropCount > 0) {
      const lowest = Int32Array.from(candidates).sort();
      for (let i = 0; i < dropCount; i++) m[lowest[i]!]! |= DROPPED;
    }
    if (!coveredAgrees(candidates.length - dropCount, counts.coveredLines, where, issues)) return undefined;
    // An earlier shard's set when it holds exactly these statements (the common case: one suite's shards
    // measure the same code): shared, and the covered lines go straight into the merge's covered set when
    // it is given; else sets of their own. Compared line by line, with no list of keys built.
    const shared = known?.statements;
    if (
      shared !== undefined &&
      holdsLines(shared, candidates.length - dropCount + missingCount, candidates, missing, m)
    ) {
      const into = known!.coveredStatements ?? new Set<string>();
      for (const line of candidates) if (!(m[line]! & DROPPED)) into.add(lineKey(line));
      return { statements: shared as Set<string>, coveredStatements: into };
    }
    const statements = new Set<string>();
    const coveredStatements = new Set<string>();
    for (const line of candidates)
      if (!(m[line]! & DROPPED)) {
        const key = lineKey(line);
        statements.add(key);
        coveredStatements.add(key);
      }
    for (const line of missing) statements.add(lineKey(line));
    return { statements, coveredStatements };
  } finally {
    clearMarks(m, executed);
    clearMarks(m, missing);
    clearMarks(m, excluded);
  }
}

function highestOf(lines: readonly number[]): number {
  let highest = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i]! > highest) highest = lines[i]!;
  return highest;
}

function clearMarks(m: Uint8Array, lines: readonly number[]): void {
  for (let i = 0; i < lines.length; i++) m[lines[i]!] = 0;
}

/**
 * Whether `set` holds exactly `size` keys, among them every candidate line not marked dropped and every
 * missing line (with `size` the count of those distinct lines: the same keys).
 */
function holdsLines(
  set: ReadonlySet<string>,
  size: number,
  candidates: readonly number[],
  missing: readonly number[],
  m: Uint8Array,
): boolean {
  if (set.size !== size) return false;
  for (let i = 0; i < candidates.length; i++) {
    const line = candidates[i]!;
    if (!(m[line]! & DROPPED) && !set.has(lineKey(line))) return false;
  }
  for (let i = 0; i < missing.length; i++) if (!set.has(lineKey(missing[i]!))) return false;
  return true;
}

/** {@link statementLines} with sets: the reading for files whose lines run past {@link MARKS_LIMIT}. */
export function statementLinesBySets(
  executed: readonly number[],
  missing: readonly number[],
  excluded: readonly number[],
  summary: Record<string, unknown>,
  where: string,
  issues: ReportIssues,
): { statements: Set<string>; coveredStatements: Set<string> } | undefined {
  const missingSet = new Set(missing);
  const excludedSet = new Set(excluded);
  const both = executed.find((line) => missingSet.has(line));
  if (both !== undefined) {
    issues.error(`\`${where}\`: line ${both} is both executed and missing`);
    return undefined;
  }
  const candidates = executed.filter((line) => line >= 1 && !excludedSet.has(line));
  const counts = summaryStatements(summary, new Set([...candidates, ...missing]).size, where, issues);
  if (!counts) return undefined;
  const dropped = new Set(dropPhantomLines(candidates, counts.phantoms));
  const covered = candidates.filter((line) => !dropped.has(line));
  if (!coveredAgrees(new Set(covered).size, counts.coveredLines, where, issues)) return undefined;
  return {
    statements: new Set<string>([...covered, ...missing].map(lineKey)),
    coveredStatements: new Set(covered.map(lineKey)),
  };
}

/**
 * The summary's statement counts against the `statementCount` executed and missing lines the lists give:
 * how many of the executed lines are not statements (`phantoms`), and the covered lines it counts; undefined
 * after an error (a count missing, or fewer statements listed than counted).
 */
function summaryStatements(
  summary: Record<string, unknown>,
  statementCount: number,
  where: string,
  issues: ReportIssues,
): { phantoms: number; coveredLines: number } | undefined {
  const numStatements = summaryCount(summary, "num_statements", where, true, issues);
  const coveredLines = summaryCount(summary, "covered_lines", where, true, issues);
  if (numStatements === undefined || coveredLines === undefined) return undefined;
  const phantoms = statementCount - numStatements;
  if (phantoms < 0) {
    issues.error(
      `\`${where}\` lists ${statementCount} executed and missing lines but its summary counts ${numStatements} statements: lines are missing from the lists`,
    );
    return undefined;
  }
  return { phantoms, coveredLines };
}

/** Whether the covered statements the lists give are as many as the summary's; an error when not. */
function coveredAgrees(covered: number, coveredLines: number, where: string, issues: ReportIssues): boolean {
  if (covered === coveredLines) return true;
  issues.error(
    `\`${where}\` lists ${covered} covered statements but its summary says ${coveredLines}: the report was edited or is corrupt`,
  );
  return false;
}

/**
 * Which `count` executed arcs to take for the unpredicted ones the summary leaves out. The JSON report does
 * not say which they are; a line listing more exits than others is likelier to hold one (a loop has two
 * predicted exits, and an exception jump adds a third), and within a line the targets between its lowest
 * and highest (an `except` between a loop's body and what follows it). The counts are then exact; which
 * arc of such a line is set aside is a best guess, and only the line map's arc names depend on it.
 */
function pickUnpredicted(arcs: ReadonlySet<string>, count: number): string[] {
  const byLine = new Map<number, number[]>();
  for (const arc of arcs) {
    const [from, to] = arc.split(">").map(Number) as [number, number];
    (byLine.get(from) ?? byLine.set(from, []).get(from)!).push(to);
  }
  const ranked: { arc: string; exits: number; interior: boolean; from: number; to: number }[] = [];
  for (const [from, targets] of byLine) {
    const forward = targets.filter((t) => t > 0);
    const low = Math.min(...forward);
    const high = Math.max(...forward);
    for (const to of targets)
      ranked.push({ arc: `${from}>${to}`, exits: targets.length, interior: to > low && to < high, from, to });
  }
  ranked.sort((a, b) => b.exits - a.exits || Number(b.interior) - Number(a.interior) || a.from - b.from || a.to - b.to);
  return ranked.slice(0, count).map((r) => r.arc);
}

function summaryCount(
  summary: Record<string, unknown>,
  key: string,
  where: string,
  required: boolean,
  issues: ReportIssues,
): number | undefined {
  const value = summary[key];
  if (value === undefined && !required) return undefined;
  if (!isCount(value)) {
    issues.error(`\`${where}.summary.${key}\` must be a whole number >= 0, not ${describeValue(value)}`);
    return undefined;
  }
  return value;
}

function lineList(
  value: unknown,
  where: string,
  required: boolean,
  issues: ReportIssues,
  lowest = 1,
): number[] | undefined {
  if (value === undefined && !required) return undefined;
  if (!Array.isArray(value)) {
    issues.error(`\`${where}\` must be a list of line numbers, not ${describeValue(value)}`);
    return undefined;
  }
  const bad = value.findIndex((line) => !(isCount(line) && line >= lowest));
  if (bad !== -1) {
    issues.error(`\`${where}\` holds ${describeValue(value[bad])}, which is not a line number (a whole number >= 1)`);
    return undefined;
  }
  return value as number[];
}

function arcList(
  value: unknown,
  where: string,
  required: boolean,
  issues: ReportIssues,
): [number, number][] | undefined {
  if (value === undefined) {
    if (required)
      issues.error(`\`${where}\` is missing: a branch report lists each file's executed and missing branch arcs`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    issues.error(`\`${where}\` must be a list of [from, to] arcs, not ${describeValue(value)}`);
    return undefined;
  }
  for (const arc of value) {
    const ok =
      Array.isArray(arc) && arc.length === 2 && isLineNumber(arc[0]) && Number.isSafeInteger(arc[1]) && arc[1] !== 0;
    if (!ok) {
      issues.error(
        `\`${where}\` holds ${describeValue(arc)}, which is not a [from, to] arc of line numbers (to < 0 for an exit)`,
      );
      return undefined;
    }
  }
  return value as [number, number][];
}

// What the frozen tests were hiding: the same statements and branches counted twice, once with every test
// (raw, the figure a coverage badge shows) and once without the frozen ones (proven, the figure the gate
// enforces), and the lines and branches only frozen tests run, with the tests that run them.
//
// Both modes end here. Single run: the contexts give both sets from one data file, and who ran each
// line. Rerun: a full run's report (raw) and the proof run's report (proven) of the same code; no
// per-test data, so the tests behind a frozen-only line are not known (`tests: null`).
import type { GateIssue } from "../common/errors.js";
import {
  hasSets,
  summaryFromCounts,
  type CoverageData,
  type CoverageSummary,
  type FileCoverage,
} from "./coverage-model.js";

/** One measured file, line by line: what the HTML view, patch coverage and the Cobertura export read. */
export interface FileLines {
  /** Repository path. */
  path: string;
  /** Statements (coverable lines), increasing. */
  statements: number[];
  /** Statements an unfrozen test ran. */
  proven: Set<number>;
  /** Statements any test ran, frozen included; undefined when raw was not measured. */
  raw?: Set<number> | undefined;
  /**
   * Branch keys (`"12>14"` for coverage.py) by the line they leave, and which are proven and raw. Keys
   * with no line (a `# pragma: no branch` exit counted as always taken) are under line 0.
   */
  branches: Map<number, string[]>;
  provenBranches: Set<string>;
  rawBranches?: Set<string> | undefined;
  /** Single run: the frozen tests that ran each frozen-only statement (`"12"`) or branch (`"12>14"`). */
  frozenTests?: Map<string, string[]> | undefined;
}

/** The whole run, line by line, when the data is line-based (coverage.py, LCOV, Cobertura). */
export interface CoverageMap {
  files: Map<string, FileLines>;
  /** Every test kept; undefined when raw was not measured (rerun without a full report). */
  raw?: CoverageSummary | undefined;
  proven: CoverageSummary;
  /** Whether each frozen-only line names the tests that run it (single run) or not (rerun). */
  attributed: boolean;
}

/** The line a branch key leaves: `"12>14"`, `"12:0:1"` (LCOV), `"12:1"` (Cobertura); undefined for others. */
export function branchLine(key: string): number | undefined {
  // /^(\d+)[>:]/ by hand: it runs once per branch of the run.
  let line = 0;
  let i = 0;
  for (; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) break;
    line = line * 10 + (c - 48);
  }
  const next = key.charCodeAt(i);
  return i > 0 && (next === 62 || next === 58) ? line : undefined;
}

const LINE_FORMATS = new Set(["coveragepy-json", "coveragepy-contexts", "lcov", "cobertura"]);

/** Whether the data keys statements by line number, so lines can be shown and matched to a diff. */
export function isLineBased(data: CoverageData): boolean {
  return LINE_FORMATS.has(data.format);
}

/** One file's line map, and its counts proven and raw (the set sizes `summarizeCoverage` would add up). */
interface BuiltFile {
  lines: FileLines;
  statements: number;
  branches: number;
  proven: { lines: number; branches: number };
  raw?: { lines: number; branches: number } | undefined;
}

function fileLines(
  proven: FileCoverage,
  raw: FileCoverage | undefined,
  frozenTests: Map<string, string[]> | undefined,
): BuiltFile {
  const statements: number[] = [];
  for (const key of proven.statements) statements.push(Number(key));
  statements.sort((a, b) => a - b);
  const branches = new Map<number, string[]>();
  const provenBranches = proven.coveredBranches;
  const rawBranches = raw?.coveredBranches;
  let provenCovered = 0;
  let rawCovered = 0;
  for (const key of proven.branches) {
    const line = branchLine(key) ?? 0;
    const list = branches.get(line);
    if (list) list.push(key);
    else branches.set(line, [key]);
    if (provenBranches.has(key)) provenCovered++;
    if (rawBranches !== provenBranches && rawBranches?.has(key)) rawCovered++;
  }
  const toNumbers = (keys: Set<string>): Set<number> => {
    const out = new Set<number>();
    for (const key of keys) out.add(Number(key));
    return out;
  };
  const provenLines = toNumbers(proven.coveredStatements);
  // The same set in both (no frozen-only line, as the single run hands it over): shared, not copied.
  const rawLines =
    raw && (raw.coveredStatements === proven.coveredStatements ? provenLines : toNumbers(raw.coveredStatements));
  if (rawBranches === provenBranches) rawCovered = provenCovered;
  return {
    lines: {
      path: proven.path,
      statements,
      proven: provenLines,
      raw: rawLines,
      branches,
      provenBranches,
      rawBranches,
      frozenTests,
    },
    statements: statements.length,
    branches: proven.branches.size,
    proven: { lines: provenLines.size, branches: provenCovered },
    raw: rawLines && { lines: rawLines.size, branches: rawCovered },
  };
}

const sameSet = (a: Set<string>, b: Set<string>): boolean => {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
};

/**
 * The line map of a run: the proven data, and the raw data of the same statements when it was measured.
 * In the rerun mode the two come from two reports; they must measure the same code: a file whose
 * statements or branches differ between them is an error (the reports are of different commits), never
 * a guess. A file only the full report lists counts as measured with nothing proven.
 */
export function buildCoverageMap(
  proven: CoverageData,
  raw: CoverageData | undefined,
  frozenTests?: Map<string, Map<string, string[]>>,
  files: { proven: string; raw?: string | undefined } = { proven: proven.sources.join(", ") },
): { map?: CoverageMap; errors: GateIssue[] } {
  if (!isLineBased(proven)) return { errors: [] };
  const errors: GateIssue[] = [];
  const fix =
    "write the full report and the proof run's report from the same commit, with the same coverage.py settings (`--cov`, `--cov-branch`)";
  if (raw && !isLineBased(raw)) {
    errors.push({
      code: "coverage_invalid",
      file: files.raw,
      message: `the full run's report is ${raw.format}, which does not key coverage by line: the frozen-only lines cannot be found`,
      fix: "write it with `coverage json` (or LCOV, Cobertura)",
    });
    return { errors };
  }
  if (raw && raw.hasBranches !== proven.hasBranches) {
    errors.push({
      code: "coverage_invalid",
      file: files.raw,
      message: `the full run's report ${raw.hasBranches ? "measured" : "did not measure"} branches and the proof run's ${proven.hasBranches ? "did" : "did not"}`,
      fix,
    });
    return { errors };
  }
  const out = new Map<string, BuiltFile>();
  const rawFiles = new Map<string, FileCoverage>();
  for (const [path, entry] of raw?.files ?? []) {
    if (!hasSets(entry)) return { errors };
    rawFiles.set(path, entry);
  }
  for (const [path, entry] of proven.files) {
    if (!hasSets(entry)) return { errors: [] };
    const r = raw ? rawFiles.get(path) : undefined;
    if (raw && !r) {
      // Measured by the proof run, not by the full run: the full report is of other code or filtered.
      errors.push({
        code: "coverage_invalid",
        file: files.raw,
        message: `does not list ${path}, which the proof run measured: the two reports are not of the same code and settings`,
        fix,
      });
      continue;
    }
    if (r && (!sameSet(r.statements, entry.statements) || !sameSet(r.branches, entry.branches))) {
      errors.push({
        code: "coverage_invalid",
        file: files.raw,
        message: `${path} has other statements or branches than in the proof run's report (${r.statements.size} vs ${entry.statements.size} statements): the two reports are not of the same code`,
        fix,
      });
      continue;
    }
    out.set(path, fileLines(entry, r, frozenTests?.get(path)));
  }
  for (const [path, r] of rawFiles) {
    if (out.has(path) || proven.files.has(path)) continue;
    // Only the full run measured it (only frozen tests imported it): nothing of it is proven.
    const provenEntry: FileCoverage = { ...r, coveredStatements: new Set(), coveredBranches: new Set() };
    out.set(path, fileLines(provenEntry, r, frozenTests?.get(path)));
  }
  if (errors.length > 0) return { errors };
  // The totals from the files' counts: what summarizeCoverage gives for the same sets.
  const sums = { statements: 0, branches: 0, provenLines: 0, provenBranches: 0, rawLines: 0, rawBranches: 0 };
  for (const f of out.values()) {
    sums.statements += f.statements;
    sums.branches += f.branches;
    sums.provenLines += f.proven.lines;
    sums.provenBranches += f.proven.branches;
    sums.rawLines += f.raw?.lines ?? 0;
    sums.rawBranches += f.raw?.branches ?? 0;
  }
  return {
    map: {
      files: new Map([...out].map(([p, f]) => [p, f.lines])),
      proven: summaryFromCounts(sums.statements, sums.provenLines, sums.branches, sums.provenBranches),
      raw: raw && summaryFromCounts(sums.statements, sums.rawLines, sums.branches, sums.rawBranches),
      attributed: frozenTests !== undefined,
    },
    errors,
  };
}

/** A run of frozen-only statements with no other statement between them. */
export interface FrozenOnlyRange {
  start: number;
  end: number;
  /** Statements in it. */
  lines: number;
  /** The frozen tests that run any of it, sorted; null when the data cannot say (rerun). */
  tests: string[] | null;
  /**
   * Whether the patch touched a line of it: the renderers show those first. Undefined while the report
   * does not know (no patch coverage yet); never serialised.
   */
  patch?: boolean | undefined;
}

/** A branch only frozen tests take. */
export interface FrozenOnlyBranch {
  line: number;
  /** The branch as the data names it: `"12>14"` (coverage.py: to line 14; negative: the exit). */
  branch: string;
  tests: string[] | null;
}

/** One file's frozen-only lines and branches. */
export interface FrozenOnlyFile {
  path: string;
  lines: number;
  branches: number;
  ranges: FrozenOnlyRange[];
  branchList: FrozenOnlyBranch[];
}

/** The statements of one file only frozen tests run (raw covered, not proven), increasing. */
export function frozenOnlyLines(f: FileLines): number[] {
  const raw = f.raw;
  if (!raw) return [];
  // Most files have none: the raw set alone says so, without a pass over every statement.
  let any = false;
  for (const l of raw)
    if (!f.proven.has(l)) {
      any = true;
      break;
    }
  return any ? f.statements.filter((l) => raw.has(l) && !f.proven.has(l)) : [];
}

/** Whether a branch of the file is raw covered and not proven. */
function anyFrozenOnlyBranch(f: FileLines): boolean {
  if (!f.rawBranches) return false;
  for (const key of f.rawBranches) if (!f.provenBranches.has(key)) return true;
  return false;
}

/** The frozen-only lines and branches, per file, worst first (most lines, then branches, then path). */
export function frozenOnlyFiles(map: CoverageMap): FrozenOnlyFile[] {
  const out: FrozenOnlyFile[] = [];
  for (const f of map.files.values()) {
    if (!f.raw || !f.rawBranches) continue;
    if (f.raw === f.proven && f.rawBranches === f.provenBranches) continue; // one set: nothing frozen-only
    const onlyLines = frozenOnlyLines(f);
    if (onlyLines.length === 0 && !anyFrozenOnlyBranch(f)) continue;
    const only = new Set(onlyLines);
    const testsOf = (key: string): string[] | null => (map.attributed ? (f.frozenTests?.get(key) ?? []) : null);
    const ranges: FrozenOnlyRange[] = [];
    let current: { start: number; end: number; lines: number; tests: Set<string> | null } | undefined;
    const close = (): void => {
      if (current)
        ranges.push({
          start: current.start,
          end: current.end,
          lines: current.lines,
          tests: current.tests && [...current.tests].sort(),
        });
      current = undefined;
    };
    for (const line of f.statements) {
      if (!only.has(line)) {
        close();
        continue;
      }
      const tests = testsOf(String(line));
      if (!current) current = { start: line, end: line, lines: 0, tests: tests && new Set() };
      current.end = line;
      current.lines++;
      for (const t of tests ?? []) current.tests?.add(t);
    }
    close();
    const branchList: FrozenOnlyBranch[] = [];
    for (const [line, keys] of [...f.branches].sort((a, b) => a[0] - b[0])) {
      if (line === 0) continue;
      for (const key of keys)
        if (f.rawBranches.has(key) && !f.provenBranches.has(key))
          branchList.push({ line, branch: key, tests: testsOf(key) });
    }
    if (only.size > 0 || branchList.length > 0)
      out.push({ path: f.path, lines: only.size, branches: branchList.length, ranges, branchList });
  }
  return out.sort(
    (a, b) => b.lines - a.lines || b.branches - a.branches || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

// Proven patch coverage: of the statements a patch added or changed, how many an unfrozen test ran.
// The lines are git's (`git diff -M base head`, numbered at head); the statements and what ran them are
// the run's line map (proven, and raw when measured). A file counts when the run measured it; a changed
// line counts when it is a statement. A patch that changes no statement has no figure (`n/a`): never
// 0 %, never 100 %.
//
// Lines, not branches: a changed line is covered when a test ran it, as diff-cover counts it.
import type { CoverageMap } from "./frozen-only.js";

/** One changed file's lines, as the diff gives them. */
export interface ChangedFileLines {
  /** The path at head, relative to the repository root. */
  path: string;
  /** The path at the base, for a rename. */
  oldPath?: string | undefined;
  /** Lines added or changed, numbered as at head. */
  added: readonly number[];
}

/** One measured file's changed statements. */
export interface PatchFileCoverage {
  path: string;
  oldPath?: string | undefined;
  /** Changed lines that are statements. */
  coverable: number;
  /** Of those, the ones an unfrozen test ran. */
  covered: number;
  /** The changed statements, increasing: what the views mark. Not in report.json (`coverable` counts them). */
  lines: number[];
  /** Changed statements no unfrozen test ran, increasing (the frozen-only ones among them). */
  uncovered: number[];
  /** Changed statements only frozen tests run (a subset of `uncovered`); null when raw was not measured. */
  frozenOnly: number[] | null;
}

/** The patch's figure. */
export interface PatchCoverage {
  /** Changed lines that are statements of measured files. */
  coverable: number;
  covered: number;
  /** covered / coverable, in percent; null when nothing is coverable (`notApplicable` says why). */
  percent: number | null;
  notApplicable: string | null;
  /** Every test counted, frozen ones too; null when raw was not measured. */
  raw: { covered: number; percent: number | null } | null;
  /** Files with added or changed lines. */
  changedFiles: number;
  /** Of those, the ones the run measured. */
  measuredFiles: number;
  /** The measured files with at least one changed statement, by path. */
  files: PatchFileCoverage[];
  /**
   * Changed files the run measured under another name only (`pkg/a.py` for `src/pkg/a.py`): the
   * report's paths are not the repository's, so these lines were not counted.
   */
  unaligned: { path: string; measured: string }[];
}

const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Line ranges for a reader: `[3, 4, 5, 9]` is `3-5, 9`. */
export function lineRanges(lines: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    parts.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}

const lastSegment = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/**
 * The patch's proven coverage over `map`: each changed file the run measured, its changed statements,
 * those proven, and those only frozen tests run.
 */
export function patchCoverage(changes: readonly ChangedFileLines[], map: CoverageMap): PatchCoverage {
  const changed = changes.filter((c) => c.added.length > 0);
  const files: PatchFileCoverage[] = [];
  const unaligned: { path: string; measured: string }[] = [];
  let measuredFiles = 0;
  const rawMeasured = map.raw !== undefined;
  // The measured paths by their last segment, built on first need: a path that ends with another (`/` between)
  // has its last segment, so only those are compared (a monorepo's 20,000 files, for each changed fixture).
  let byName: Map<string, string[]> | undefined;
  const sameName = (path: string): readonly string[] => {
    if (!byName) {
      byName = new Map();
      for (const p of map.files.keys()) {
        const name = lastSegment(p);
        const list = byName.get(name);
        if (list) list.push(p);
        else byName.set(name, [p]);
      }
    }
    return byName.get(lastSegment(path)) ?? [];
  };
  for (const change of changed) {
    const f = map.files.get(change.path);
    if (!f) {
      const measured = sameName(change.path).find(
        (p) => change.path.endsWith(`/${p}`) || p.endsWith(`/${change.path}`),
      );
      if (measured !== undefined) unaligned.push({ path: change.path, measured });
      continue;
    }
    measuredFiles++;
    const statements = new Set(f.statements);
    const lines = [...new Set(change.added)].filter((l) => statements.has(l)).sort((a, b) => a - b);
    if (lines.length === 0) continue;
    const uncovered = lines.filter((l) => !f.proven.has(l));
    files.push({
      path: change.path,
      oldPath: change.oldPath,
      coverable: lines.length,
      covered: lines.length - uncovered.length,
      lines,
      uncovered,
      frozenOnly: f.raw ? uncovered.filter((l) => f.raw!.has(l)) : null,
    });
  }
  files.sort(byPath);
  const coverable = files.reduce((n, f) => n + f.coverable, 0);
  const covered = files.reduce((n, f) => n + f.covered, 0);
  const rawCovered = covered + files.reduce((n, f) => n + (f.frozenOnly?.length ?? 0), 0);
  const percent = coverable === 0 ? null : (covered / coverable) * 100;
  const notApplicable =
    coverable > 0
      ? null
      : changed.length === 0
        ? "the patch adds or changes no line"
        : measuredFiles === 0
          ? changed.length === 1
            ? "the changed file is not measured source"
            : `none of the ${changed.length} changed files is measured source`
          : `the changed lines of ${plural(measuredFiles, "measured file")} hold no statement`;
  return {
    coverable,
    covered,
    percent,
    notApplicable,
    raw: rawMeasured ? { covered: rawCovered, percent: coverable === 0 ? null : (rawCovered / coverable) * 100 } : null,
    changedFiles: changed.length,
    measuredFiles,
    files,
    unaligned: unaligned.sort(byPath),
  };
}

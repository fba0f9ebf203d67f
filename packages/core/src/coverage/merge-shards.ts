import {
  hasSets,
  type CoverageData,
  type CoverageReadResult,
  type FileCounts,
  type FileCoverage,
} from "./coverage-model.js";
import type { GateIssue } from "../common/errors.js";
import { holdsExactly } from "./coverage-keys.js";
import type { KnownSets } from "./read-options.js";

const SAME_RUN = "merge shards of the same commit, measured the same way (same tool, same format, same branch setting)";

/**
 * Merges the reports of parallel CI jobs by union per file: a statement or branch is covered when any
 * shard covered it. Errors: shards of different formats or branch settings, two shards whose statement
 * (or branch) sets for one path differ (the message names both shards, the path and the first keys that
 * differ), and one path given counts-only (Istanbul `coverage-summary.json`) in two shards, since counts
 * cannot be united. Inputs are not modified.
 */
export function mergeCoverageShards(results: readonly CoverageData[]): CoverageReadResult {
  const merger = new CoverageShardMerger();
  for (const shard of results) merger.add(shard);
  return merger.result();
}

/**
 * {@link mergeCoverageShards} one shard at a time, so a caller can read a shard, fold it in and let it
 * go before reading the next: only the merged model and one shard are held at once. Adding the shards
 * in order and taking `result()` is exactly `mergeCoverageShards` of them.
 */
export class CoverageShardMerger {
  private first: CoverageData | undefined;
  /** Shards of another format or branch setting than the first: when any, they are the only errors. */
  private readonly mismatches: GateIssue[] = [];
  private readonly errors: GateIssue[] = [];
  private readonly files = new Map<string, FileCoverage | FileCounts>();
  /** Which shard each merged entry first came from, for messages: its file names, not its model. */
  private readonly origin = new Map<string, Named>();
  private readonly sources: string[] = [];

  /**
   * Folds a shard in. With `consume`, the merger may take over the shard's sets instead of copying
   * them, so the caller must not use the shard afterwards.
   */
  add(shard: CoverageData, options: { consume?: boolean } = {}): void {
    const first = (this.first ??= shard);
    this.sources.push(...shard.sources);
    if (shard !== first) {
      if (shard.format !== first.format) {
        this.mismatches.push(
          issue(
            shard,
            `this shard is ${shard.format} but ${name(first)} is ${first.format}: shards of different formats cannot be merged`,
            SAME_RUN,
          ),
        );
      } else if (shard.hasBranches !== first.hasBranches) {
        this.mismatches.push(
          issue(
            shard,
            `this shard ${shard.hasBranches ? "measured" : "did not measure"} branches but ${name(first)} ${first.hasBranches ? "did" : "did not"}`,
            SAME_RUN,
          ),
        );
      }
    }
    if (this.mismatches.length > 0) return;
    const { files, origin, errors } = this;
    const named: Named = { sources: shard.sources };
    for (const [path, entry] of shard.files) {
      const seen = files.get(path);
      const seenIn = origin.get(path);
      if (!seen || !seenIn) {
        files.set(path, options.consume ? entry : copy(entry));
        origin.set(path, named);
        continue;
      }
      if (!hasSets(seen) || !hasSets(entry)) {
        errors.push(
          issue(
            shard,
            `\`${path}\` is in ${name(seenIn)} and in ${name(shard)} as counts only: counts cannot be united`,
            "merge coverage-final.json reports (which list each statement), not coverage-summary.json",
          ),
        );
        continue;
      }
      const disagreement =
        differs(seen.statements, entry.statements, "statements") ?? differs(seen.branches, entry.branches, "branches");
      if (disagreement) {
        const hint =
          shard.format === "coveragepy-json"
            ? "; coverage.py's JSON lists docstring lines as executed, so merge its Cobertura XML reports (`coverage xml`) or `coverage combine` the data files instead"
            : "";
        errors.push(
          issue(
            shard,
            `${name(seenIn)} and ${name(shard)} disagree on the ${disagreement.what} of \`${path}\` (${disagreement.detail}): not the same code${hint}`,
            SAME_RUN,
          ),
        );
        continue;
      }
      // A reader given `known` may have added the shard's covered statements to the merge's set already.
      if (entry.coveredStatements !== seen.coveredStatements)
        for (const key of entry.coveredStatements) seen.coveredStatements.add(key);
      for (const key of entry.coveredBranches) seen.coveredBranches.add(key);
    }
  }

  /**
   * The statement and branch sets the merge holds for `path` (the first shard's that listed it), for a
   * reader's `known`: a shard whose sets equal them can share them instead of building its own, and add its
   * covered statements to the merge's (`coveredStatements`) instead of a set of its own.
   */
  known(path: string): KnownSets | undefined {
    const entry = this.files.get(path);
    return entry !== undefined && hasSets(entry) ? entry : undefined;
  }

  /** The merged model, or the errors. */
  result(): CoverageReadResult {
    const first = this.first;
    if (!first) {
      return {
        errors: [
          {
            code: "coverage_invalid",
            message: "no coverage shards to merge",
            fix: "pass at least one coverage report",
          },
        ],
        warnings: [],
      };
    }
    if (this.mismatches.length > 0) return { errors: [...this.mismatches], warnings: [] };
    if (this.errors.length > 0) return { errors: [...this.errors], warnings: [] };
    const data: CoverageData = {
      format: first.format,
      sources: [...this.sources],
      files: this.files,
      hasBranches: first.hasBranches,
    };
    return { data, errors: [], warnings: [] };
  }
}

/** What messages name a shard by. */
type Named = Pick<CoverageData, "sources">;

const name = (shard: Named): string => shard.sources.join(", ") || "(unnamed report)";

function copy(entry: FileCoverage | FileCounts): FileCoverage | FileCounts {
  if (!hasSets(entry)) return { ...entry };
  return {
    path: entry.path,
    statements: new Set(entry.statements),
    coveredStatements: new Set(entry.coveredStatements),
    branches: new Set(entry.branches),
    coveredBranches: new Set(entry.coveredBranches),
  };
}

/** Describes how two key sets differ, or undefined when they are equal. */
function differs(
  a: ReadonlySet<string>,
  b: ReadonlySet<string>,
  what: string,
): { what: string; detail: string } | undefined {
  // One set shared by both (the reader found the shard's keys equal to the merge's: `known`).
  if (a === b || holdsExactly(b, a.size, a)) return undefined;
  const onlyA = [...a].filter((k) => !b.has(k));
  const onlyB = [...b].filter((k) => !a.has(k));
  if (onlyA.length === 0 && onlyB.length === 0) return undefined;
  const show = (keys: string[]): string =>
    `${keys.slice(0, 5).join(", ")}${keys.length > 5 ? `, ... (${keys.length})` : ""}`;
  const parts = [
    onlyA.length > 0 ? `only the first has ${show(onlyA)}` : "",
    onlyB.length > 0 ? `only the second has ${show(onlyB)}` : "",
  ].filter(Boolean);
  return { what, detail: parts.join("; ") };
}

function issue(shard: Named, message: string, fix: string): GateIssue {
  const out: GateIssue = { code: "coverage_invalid", message, fix };
  const file = shard.sources[0];
  if (file !== undefined) out.file = file;
  return out;
}

// Which work-tree changes the gate tolerates: it judges the files it reads from the work tree as the
// head commit, so only the evidence the config names (written by the proof run) and the report folder
// may differ from it.
import { normalizeRepoPath, type GateConfig } from "./config.js";

/**
 * The files a proof run writes, as the config names them: the universe, coverage, results, property
 * results, the base's universe and results a CI step wrote, and the stamps that bind them to a commit.
 */
export function evidencePaths(config: GateConfig): string[] {
  return [
    ...config.universe.collected,
    ...config.universe.baseCollected,
    ...config.results.baseJunit,
    ...config.coverage.reports,
    ...(config.coverage.contexts ?? []),
    ...(config.coverage.fullReport === undefined ? [] : [config.coverage.fullReport]),
    ...(config.coverage.baseReport === undefined ? [] : [config.coverage.baseReport]),
    ...config.results.junit,
    ...config.properties.results,
    ...config.evidence.stamps,
  ];
}

/**
 * The changed paths (repository-relative, as git prints them) that make the work tree another revision
 * than the head: every one but the evidence the config names and what lies in `outDir` (the report
 * folder, repository-relative; undefined when it lies outside the repository).
 */
export function unexpectedChanges(
  changed: readonly string[],
  config: GateConfig,
  outDir: string | undefined,
): string[] {
  const artifacts = new Set(
    evidencePaths(config)
      .map((p) => normalizeRepoPath(p))
      .filter((p): p is string => p !== undefined),
  );
  const inOutDir = (p: string) => outDir !== undefined && outDir !== "" && (p === outDir || p.startsWith(`${outDir}/`));
  return changed.filter((p) => !artifacts.has(p) && !inOutDir(p));
}

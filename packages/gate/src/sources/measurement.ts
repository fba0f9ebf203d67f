// What the patch did to measurement, read from git (docs/contract.md §13): coverage.py's configuration at
// the base, at the head and before and after each commit that touched one of its files; the lines the
// range wrote (git blame) that the head's exclusion patterns match; and the source files the range added or
// changed, which the proof run's report must list (Python's; JavaScript and TypeScript ones once a vitest
// proof run's record says its coverage settings measure them). A configuration the gate cannot read, or an
// exclusion pattern it cannot evaluate, is a GateError: the signal is on and its evidence is missing.
import {
  GateError,
  diffCoverageConfigs,
  exclusionPatterns,
  importGraph,
  isTestFile,
  matchExclusions,
  mergeOwnChanges,
  omittedBy,
  pathMatcher,
  readCoverageConfig,
  readPytestSettings,
  scriptHasRuntimeCode,
  SCRIPT_FILE,
  coverageChangeKey,
  coverageConfigCandidates,
  shortRevision,
  testFolderOf,
  type AddedLine,
  type ChangedSource,
  type Commit,
  type CommitCoverageChanges,
  type CoverageChange,
  type CoverageConfigProblem,
  type CoverageConfigResult,
  type GateConfig,
  type HeadModule,
  type MeasurementEvidence,
} from "@proofgate/core";
import type { BlameLine } from "../git-types.js";
import type { GitPort } from "../ports.js";

/** What the measurement evidence is read from: the range, its commits and the paths each answers for. */
export interface MeasurementRequest {
  base: string;
  head: string;
  commits: readonly Commit[];
  /** The paths each commit answers for (a merge: its own resolution's), by sha. */
  touched: ReadonlyMap<string, readonly string[]>;
  config: GateConfig;
  /** The coverage.py config file the [commands] name (`--cov-config`, `--rcfile`); default .coveragerc. */
  rcfile?: string | undefined;
}

/** The evidence, except the files the proof run measured (known once its report is read). */
export type PatchMeasurement = Omit<MeasurementEvidence, "measured" | "imports"> & {
  /** The head's Python files and their imports (`HeadModule`), read when some changed source is unmeasured. */
  headModules: () => HeadModule[];
  /**
   * The JavaScript and TypeScript source the range added or changed (not a test by name, not under
   * node_modules, not exempt, with code that runs: a file of TypeScript declarations alone has none): judged as `sources` are once a
   * vitest proof run's record says which of them its coverage settings measure (docs/vitest.md).
   */
  scriptSources: ChangedSource[];
};

/** Reads the measurement evidence from git; a configuration or pattern the gate cannot read is a GateError. */
export function loadMeasurement(git: GitPort, request: MeasurementRequest): PatchMeasurement {
  const { base, head, commits, touched } = request;
  const rcfile = request.rcfile ?? ".coveragerc";
  const candidates = new Set(coverageConfigCandidates(rcfile));
  const at = (rev: string): CoverageConfigResult => readCoverageConfig((path) => git.readFileAt(rev, path), rcfile);
  const problemAt = (rev: string, p: CoverageConfigProblem) => ({
    file: `${p.file} at ${shortRevision(rev)}`,
    line: p.line,
    message: `coverage.py's configuration cannot be read: ${p.message}`,
  });
  const headResult = at(head);
  if (headResult.problem) {
    // The proof run's coverage.py stops on it too: there is nothing to judge against.
    throw new GateError({
      code: "coverage_config_invalid",
      ...problemAt(head, headResult.problem),
      fix: "fix the file so that coverage.py reads it (`coverage debug config` shows what it reads)",
    });
  }
  const headConfig = headResult.config;
  const baseResult = at(base);
  // A base that cannot be read is compared with nothing: the head's settings all count as the patch's,
  // charged to the commits that touched the files, so a human can still merge the fix with the trailer.
  const baseConfig = baseResult.config;
  const net: CoverageChange[] = baseConfig
    ? diffCoverageConfigs(baseConfig, headConfig)
    : [
        {
          kind: "loosening",
          key: "config",
          message: `${problemAt(base, baseResult.problem!).message} at the base (${baseResult.problem!.file}${baseResult.problem!.line ? `:${baseResult.problem!.line}` : ""}), so the head's cannot be compared with it`,
          file: headConfig.file ?? baseResult.problem!.file,
        },
      ];

  const identity = (c: CoverageChange): string => coverageChangeKey({ ...c, message: "" });
  const perCommit: CommitCoverageChanges[] = [];
  for (const commit of commits) {
    if (!(touched.get(commit.sha) ?? []).some((p) => candidates.has(p))) continue;
    const after = at(commit.sha);
    const parents = commit.parents.length > 0 ? commit.parents : [undefined];
    const before = parents.map((parent): CoverageConfigResult =>
      parent ? at(parent) : { config: { settings: new Map() } },
    );
    const unreadable = [after, ...before].find((r) => r.problem)?.problem;
    if (unreadable) {
      perCommit.push({
        commit,
        changes: [],
        unreadable: `${unreadable.file}${unreadable.line ? `:${unreadable.line}` : ""}: ${unreadable.message}`,
      });
      continue;
    }
    const changes = mergeOwnChanges(
      before.map((b) => diffCoverageConfigs(b.config!, after.config!)),
      identity,
    );
    if (changes.length > 0) perCommit.push({ commit, changes });
  }

  // The Python source the range added or changed: not a test by name (conftest.py, python_files; the
  // files that hold collected tests are known later, to judgeMeasurement), not exempt, not omitted by
  // the base's own coverage.py config (the team's choice), and with code in it (an empty __init__.py
  // measures nothing). Its test folder, if any, matters only to the rule without a proof run's record.
  const pytest = readPytestSettings((path) => git.readFileAt(base, path));
  const exempt = pathMatcher(request.config.measurement.exempt);
  const omitted = baseConfig ? omittedBy(baseConfig) : () => false;
  const byPath = new Map<string, Commit[]>();
  for (const commit of commits)
    for (const path of touched.get(commit.sha) ?? []) byPath.set(path, [...(byPath.get(path) ?? []), commit]);
  const sources: ChangedSource[] = [];
  const added: AddedLine[] = [];
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const changedSources = [...git.differingPaths(base, head)]
    .sort()
    .filter((path) => path.endsWith(".py") && !isTestFile(path, pytest) && !exempt(path) && !omitted(path));
  // Read at the head all at once (one git process, not one per file), then one at a time below.
  git.prefetchFilesAt?.(head, changedSources);
  for (const path of changedSources) {
    const text = git.readFileAt(head, path);
    if (text === undefined || !hasCode(text)) continue;
    sources.push({ path, commits: byPath.get(path) ?? [], testFolder: testFolderOf(path, pytest) });
    for (const line of git.blame({ base, head }, path)) {
      const commit = line.sha === undefined ? undefined : bySha.get(line.sha);
      if (commit) added.push({ path, line: line.line, text: line.text, commit });
    }
  }
  // JavaScript and TypeScript source (vitest's coverage-v8 and Istanbul): an added \`v8 ignore\`,
  // \`c8 ignore\` or \`istanbul ignore\` comment takes code out of the measure, like a coverage.py pragma.
  // A changed file with code that runs is a source the proof run must measure (`scriptSources`).
  const scripts: AddedLine[] = [];
  const scriptSources: ChangedSource[] = [];
  for (const path of [...git.differingPaths(base, head)].sort()) {
    if (!SCRIPT_FILE.test(path) || SCRIPT_TEST.test(path) || path.split("/").includes("node_modules") || exempt(path))
      continue;
    // Judged by what the file holds, never by its name alone (the patch chooses names): a `.d.ts` or a
    // `*.config.ts` with code that runs is source like any other file.
    const text = git.readFileAt(head, path);
    if (text !== undefined && scriptHasRuntimeCode(path, text))
      scriptSources.push({ path, commits: byPath.get(path) ?? [] });
    scripts.push(
      ...addedIgnoreHints(
        path,
        text ?? "",
        git.readFileAt(base, path),
        git.blame({ base, head }, path),
        bySha,
        byPath.get(path) ?? [],
      ),
    );
  }
  const { excluded, untranslatable } = matchExclusions(added, exclusionPatterns(headConfig));
  for (const line of scripts)
    excluded.push({ ...line, pattern: IGNORE_HINT.source, key: "coverage-v8/istanbul ignore comment" });
  if (untranslatable.length > 0) {
    throw new GateError(
      untranslatable.map((p) => ({
        code: "coverage_config_invalid" as const,
        file: p.file,
        line: p.line,
        message: `the ${p.key.replace(/^report:/, "")} pattern ${JSON.stringify(p.pattern)} cannot be evaluated here (${p.error}), so the gate cannot tell which added lines it excludes`,
        fix: "write it without Python-only syntax (a global (?i) at the start, (?P<name>...) and \\A/\\Z are fine)",
      })),
    );
  }
  return {
    configFile: { base: baseConfig ? baseConfig.file : baseResult.problem?.file, head: headConfig.file },
    net,
    commits: perCommit,
    excluded,
    sources,
    scriptSources,
    headModules: () => headModules(git, head, pytest),
  };
}

/**
 * The head's Python files with the repository files their import statements name: the static side of
 * "only tests use it" (judgeMeasurement), and the packaging files with the modules their entry points
 * name (never test files). Read as Latin-1 when not UTF-8: import statements are ASCII.
 */
function headModules(git: GitPort, head: string, pytest: ReturnType<typeof readPytestSettings>): HeadModule[] {
  const latin1 = new TextDecoder("latin1");
  const texts = new Map<string, string>();
  for (const entry of git.listFilesAt(head, "")) {
    const packaging = ["pyproject.toml", "setup.cfg", "setup.py"].includes(entry.path);
    if (entry.type !== "blob" || entry.mode === "120000" || !(entry.path.endsWith(".py") || packaging)) continue;
    const bytes = git.readBlobAt(head, entry.path);
    if (bytes !== undefined) texts.set(entry.path, latin1.decode(bytes));
  }
  // setup.py twice: its imports, and its entry points (a packaging file stands for the code it ships).
  const setup = texts.get("setup.py");
  if (setup !== undefined) texts.set("setup.py:entry_points", setup);
  return [...importGraph(texts)].map(([path, imports]) => ({
    path,
    imports,
    test: isTestFile(path, pytest),
    testFolder: testFolderOf(path, pytest),
  }));
}

/** The test files among JavaScript and TypeScript files (`SCRIPT_FILE`): vitest's and jest's default names. */
const SCRIPT_TEST = /(?:^|\/)(?:[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|__tests__\/.*)$/;

/**
 * An ignore hint of vitest's coverage: \`v8 ignore\`, \`c8 ignore\`, \`istanbul ignore\` or \`node:coverage ignore\`.
 * Matched anywhere in the text, across line breaks, whatever surrounds it: coverage-v8 (ast-v8-to-istanbul)
 * honours \`... ignore start\`/\`stop\` on any line (in prose after \`//\`, even in a string), and
 * \`if\`/\`else\`/\`next\`/\`file\` at the start of any comment (\`/**\`, and a break between the words, too).
 * Wider than what it honours, never narrower: a line that only names a hint is judged like one.
 */
const IGNORE_HINT = /(?:istanbul|[cv]8|node:coverage)\s+ignore\b/g;
/** The hint that ends an ignored region: a file with fewer of them than at the base ignores more. */
const IGNORE_STOP = /(?:istanbul|[cv]8|node:coverage)\s+ignore\s+stop\b/g;

/**
 * The ignore hints the range added to a JavaScript or TypeScript file: each hint at head (\`IGNORE_HINT\`)
 * that lies on a line a range commit wrote, as that line; and, when the file ends fewer ignored regions
 * than at the base (a \`... ignore stop\` deleted: the region runs on to the end of the file), one finding per
 * commit that changed the file, at its last remaining hint.
 */
function addedIgnoreHints(
  path: string,
  text: string,
  baseText: string | undefined,
  blame: readonly BlameLine[],
  bySha: ReadonlyMap<string, Commit>,
  commits: readonly Commit[],
): AddedLine[] {
  const hints = [...text.matchAll(IGNORE_HINT)];
  const stops = (t: string): number => [...t.matchAll(IGNORE_STOP)].length;
  const stopsRemoved = baseText !== undefined && stops(text) < stops(baseText);
  if (hints.length === 0 && !stopsRemoved) return [];
  const byLine = new Map(blame.map((line) => [line.line, line]));
  // Line starts, to turn a match's offsets into the lines it spans.
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const out: AddedLine[] = [];
  const seen = new Set<number>();
  for (const hint of hints) {
    const first = lineAt(hint.index);
    const last = lineAt(hint.index + hint[0].length - 1);
    for (let n = first; n <= last; n++) {
      const line = byLine.get(n);
      const commit = line?.sha === undefined ? undefined : bySha.get(line.sha);
      if (!line || !commit || seen.has(n)) continue;
      seen.add(n);
      out.push({ path, line: n, text: line.text, commit });
      break;
    }
  }
  if (stopsRemoved) {
    const at = hints.length > 0 ? lineAt(hints[hints.length - 1]!.index) : 1;
    const shown = `${(text.split(/\r?\n/)[at - 1] ?? "").trim()} (a \`... ignore stop\` of the base removed: the ignored region runs on)`;
    for (const commit of commits) out.push({ path, line: at, text: shown, commit });
  }
  return out;
}

/** True when some line is neither blank nor a comment. */
function hasCode(text: string): boolean {
  return text.split(/\r?\n/).some((line) => line.trim() !== "" && !line.trim().startsWith("#"));
}

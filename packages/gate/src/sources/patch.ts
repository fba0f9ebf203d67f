// The patch as git tells it: the range, its commits, what each did to the ledger, the fixtures, the seeds
// and the protected paths, judged by the BASE revision's proofgate.toml (a patch cannot loosen its own judge).
import {
  DEFAULT_AGENT_PATTERNS,
  GateError,
  diffFixturesLocks,
  diffSection,
  invokedFiles,
  parseSectionSpec,
  readSection,
  sectionFileMatcher,
  diffLedgers,
  importsHypothesis,
  inlineSnapshotsRemoved,
  isScriptPath,
  isSnapshotPath,
  isTestFile,
  testFolderOf,
  looseningKey,
  mergeOwnChanges,
  parseConfig,
  parseFixturesLock,
  parseLedger,
  pathMatcher,
  protectedPaths,
  readPytestSettings,
  shortRevision,
  type Commit,
  type CommitPaths,
  type FileRename,
  type GateConfig,
  type GateIssue,
  type InlineSnapshotTouch,
  type InvokedFiles,
  type Ledger,
  type LedgerLoosening,
  type LockDelta,
  type PatchEvidence,
  type PatchPolicy,
  type PropertyTestTouch,
  type SectionSpec,
  type SectionTouch,
} from "@proofgate/core";
import { createHash } from "node:crypto";
import type { ChangedPath } from "../git-types.js";
import type { GitPort } from "../ports.js";
import { CONFIG_FILE } from "./config.js";
import { verifyHumanSignatures, type PlatformVerifier } from "./signatures.js";

/** What the gate learns from git, and the policy it is judged by. */
export interface LoadedPatch {
  patch: PatchEvidence;
  policy: PatchPolicy;
  /** The base revision's `proofgate.toml` (defaults where it has none): the patch cannot loosen its own judge. */
  config: GateConfig;
  /** Where the config came from and its digest; undefined when the base has none (defaults). */
  configSource?: { path: string; sha256: string } | undefined;
  /** The allowed-signers file at the base and its digest, when `[agents] human_signatures` read one. */
  signersSource?: { path: string; sha256: string } | undefined;
  /** Files git saw renamed, commit by commit (`-M`), oldest first. */
  renames: FileRename[];
  /** Where the policy came from, in words, for the report's Policy row. */
  policySource: string;
  /** Signals that are off, and why (the config turned them off, or a default one has nothing to judge). */
  off: { fixtures?: string | undefined; properties?: string | undefined };
  /** The paths each commit of the range answers for (a merge: its own resolution's), by sha. */
  touched: ReadonlyMap<string, readonly string[]>;
  /** What the base's [commands] run from the repository (protected when `[protect] commands`). */
  invoked: InvokedFiles;
  warnings: GateIssue[];
}

/** Where the patch is and how to judge it. */
export interface PatchRequest {
  base?: string | undefined;
  head?: string | undefined;
  /** The branch the patch targets (from the platform): its merge-base is the default base. */
  defaultBranch?: string | undefined;
  /** How to fetch the whole history where the gate runs (`shallow_history`'s fix). */
  shallowFix: string;
  /** The fixture files on disk against the lock (`fixtures_unlocked`), once the config is known. */
  unlocked?: (config: GateConfig) => Promise<LockDelta>;
  /** The platform's verification of commits, where it has one (`[agents] human_signatures`). */
  platformVerifier?: PlatformVerifier | undefined;
  /**
   * A package's gate (`check --root`): the shared CI files at the repository root, as the package names
   * them (`../../.github/workflows/**`), protected beside the config's own paths.
   */
  sharedProtected?: readonly string[] | undefined;
  /** The shared pytest settings files above the package, protected by their pytest section (scoped-git.ts). */
  sharedSections?: readonly SectionSpec[] | undefined;
}

/**
 * Reads the patch from git. The policy comes from the BASE revision's `proofgate.toml`, never from the
 * patch under review. A truncated history is judged on `shallow_history` alone.
 */
export async function loadPatchEvidence(git: GitPort, request: PatchRequest): Promise<LoadedPatch> {
  const warnings: GateIssue[] = [];
  const resolved = git.resolveRange(request);
  // Truncated: the report still names the head it was asked to judge by its full object name, when the clone has it.
  const range = resolved.ok
    ? resolved.range
    : { base: request.base ?? "", head: git.resolveCommit(request.head ?? "HEAD") ?? request.head ?? "HEAD" };
  const { config, configPath, configSource, given, off, where } = readJudge(git, resolved.ok, range.base, warnings);
  if (resolved.ok) turnOffIdleSignals(git, range, config, given, off);
  const policySource = policySourceOf(git, resolved.ok, range.head, configSource !== undefined, where);
  const policy = patchPolicy(config, request.platformVerifier);
  const ledgerFile = config.ledger.path;
  const { invoked, patterns, specs } = protectedScope(config, request.sharedProtected, request.sharedSections);
  const empty: PatchEvidence = {
    base: range.base,
    head: range.head,
    commits: [],
    ledger: { file: ledgerFile, changes: [], rejectIfAgentAddsLease: true },
    protect: { patterns, touching: [] },
  };
  if (!resolved.ok)
    return {
      patch: { ...empty, shallow: { message: resolved.issue.message, fix: resolved.issue.fix } },
      policy,
      config,
      configSource,
      renames: [],
      policySource,
      off,
      touched: new Map(),
      invoked,
      warnings,
    };

  // Signatures first: every rule below sees the same commits, each carrying its verdict.
  const verified = await verifyHumanSignatures({
    git,
    config,
    configPath,
    base: range.base,
    commits: git.listCommits(range),
    platform: request.platformVerifier,
  });
  const commits = verified.commits;
  policy.signatures = verified.policy;
  warnings.push(...verified.warnings);
  const { touched, renames } = pathsByCommit(git, commits);
  const touching = touchingIn(commits, touched);

  const patch: PatchEvidence = {
    ...empty,
    commits,
    ledger: ledgerEvidence(git, range.base, ledgerFile, touching, warnings),
    protect: (() => {
      const byPath = touching(pathMatcher(patterns));
      return { patterns, touching: byPath, sections: sectionTouches(git, commits, touched, specs, byPath) };
    })(),
  };
  if (config.fixtures.enabled) patch.fixtures = await fixturesEvidence(git, range, config, touching, request.unlocked);
  if (config.properties.enabled) patch.seeds = seedsEvidence(git, range.head, config, touching);
  if (config.properties.judgeTests) {
    patch.propertyTests = {
      dirs: config.properties.tests,
      touching: propertyTestTouches(git, range, touching, {
        dirs: under(config.properties.tests),
        seeds: under(config.properties.seeds),
      }),
    };
  }
  return {
    patch,
    policy,
    config,
    configSource,
    signersSource: verified.signers,
    policySource,
    off,
    touched,
    renames,
    invoked,
    warnings,
  };
}

/** The commits of the range whose own paths match, each with those paths. */
type Touching = (match: (path: string) => boolean) => CommitPaths[];

/** The judge: the base revision's proofgate.toml (defaults where it has none), and what it turned off. */
function readJudge(
  git: GitPort,
  reachesBase: boolean,
  base: string,
  warnings: GateIssue[],
): {
  config: GateConfig;
  configPath: string;
  configSource: LoadedPatch["configSource"];
  given: Set<string>;
  off: LoadedPatch["off"];
  where: string;
} {
  const baseConfigText = reachesBase ? git.readFileAt(base, CONFIG_FILE) : undefined;
  const configPath = reachesBase ? `${CONFIG_FILE} at ${shortRevision(base)}` : CONFIG_FILE;
  const parsed = parseConfig(baseConfigText ?? "", configPath, DEFAULT_AGENT_PATTERNS);
  if (!parsed.config) throw new GateError(parsed.errors);
  const configSource =
    baseConfigText === undefined
      ? undefined
      : { path: configPath, sha256: createHash("sha256").update(baseConfigText).digest("hex") };
  warnings.push(...parsed.warnings);
  const given = new Set(parsed.given ?? []);
  const config = { ...parsed.config };
  const off: LoadedPatch["off"] = {};
  const where = reachesBase ? `proofgate.toml at ${shortRevision(base)}` : "proofgate.toml";
  if (!config.fixtures.enabled) off.fixtures = `[fixtures] enabled = false in ${where}`;
  if (!config.properties.enabled) off.properties = `[properties] enabled = false in ${where}`;
  return { config, configPath, configSource, given, off, where };
}

/**
 * A signal that is on only by default, with nothing to judge at the base or at head (a project that
 * has no golden files or seeds), is off and says why; one whose files exist at the base stays on.
 */
function turnOffIdleSignals(
  git: GitPort,
  range: { base: string; head: string },
  config: GateConfig,
  given: ReadonlySet<string>,
  off: LoadedPatch["off"],
): void {
  const holds = (rev: string, paths: readonly string[]) => paths.some((p) => git.listFilesAt(rev, p).length > 0);
  const either = (paths: readonly string[]) => holds(range.base, paths) || holds(range.head, paths);
  // Configured: the base's proofgate.toml sets any key of the table (a team that names its seeds wants them
  // judged); `judge_tests` is about the property tests, not the seeds.
  const configured = (table: string) =>
    [...given].some((key) => key.startsWith(`${table}.`) && key !== "properties.judge_tests");
  if (config.fixtures.enabled && !configured("fixtures") && !either([...config.fixtures.paths, config.fixtures.lock])) {
    config.fixtures = { ...config.fixtures, enabled: false };
    off.fixtures = `no ${config.fixtures.paths.join(", ")} or ${config.fixtures.lock} at the base or head (on by default once there are)`;
  }
  if (config.properties.enabled && !configured("properties") && !either(config.properties.seeds)) {
    config.properties = { ...config.properties, enabled: false };
    off.properties = `no seeds in ${config.properties.seeds.join(", ")} at the base or head (on by default once there are)`;
    // Off for want of seeds, not by a human's choice: the property tests are still judged (judge_tests).
  }
}

/** Where the policy came from, in words, for the report's Policy row. */
function policySourceOf(
  git: GitPort,
  reachesBase: boolean,
  head: string,
  baseHasConfig: boolean,
  where: string,
): string {
  const headHasConfig = reachesBase && git.readFileAt(head, CONFIG_FILE) !== undefined;
  return baseHasConfig
    ? where
    : !reachesBase
      ? "unknown: the history does not reach the base"
      : headHasConfig
        ? "defaults: the base has no proofgate.toml (this patch's applies once merged)"
        : "defaults: no proofgate.toml";
}

/** The agent patterns, trailer names and signature policy a patch is judged by. */
function patchPolicy(config: GateConfig, platformVerifier: PlatformVerifier | undefined): PatchPolicy {
  return {
    agentPatterns: config.agents.patterns,
    trailers: config.trailers,
    // What vouches, as configured; replaced by what was read once the range is judged.
    signatures:
      config.agents.humanSignatures === "required"
        ? { required: true, allowedSigners: config.agents.allowedSigners, platform: platformVerifier?.name }
        : undefined,
  };
}

/** The protected paths and sections: the config's own, and the files the base's commands run (`[protect] commands`). */
function protectedScope(
  config: GateConfig,
  sharedProtected: readonly string[] | undefined,
  sharedSections: readonly SectionSpec[] | undefined,
): { invoked: InvokedFiles; patterns: string[]; specs: SectionSpec[] } {
  const c = config.commands;
  const invoked = invokedFiles([c.collect, c.proof, c.properties].filter((x): x is string => x !== undefined));
  // The files the base's commands run are protected with the config's own paths (`[protect] commands`).
  const patterns = [
    ...new Set([
      ...protectedPaths(config),
      ...(config.protect.commands ? invoked.paths : []),
      ...(sharedProtected ?? []),
    ]),
  ];
  const specs = [
    ...[...config.protect.sections, ...(config.protect.commands ? invoked.sections : [])]
      .map(parseSectionSpec)
      .filter((spec): spec is SectionSpec => spec !== undefined),
    // Outside the package (`../../pyproject.toml`): no config spelling reaches there, so they come as specs.
    ...(sharedSections ?? []),
  ];
  return { invoked, patterns, specs };
}

/** The paths each commit answers for (a merge: its own resolution's), and the renames git saw, oldest first. */
function pathsByCommit(
  git: GitPort,
  commits: readonly Commit[],
): { touched: Map<string, string[]>; renames: FileRename[] } {
  const renames: FileRename[] = [];
  const touched = new Map<string, string[]>(
    commits.map((c) => {
      const changed = git.changedPaths(c.sha);
      for (const p of changed) if (p.status === "R" && p.oldPath) renames.push({ from: p.oldPath, to: p.path });
      return [c.sha, ownPaths(git, c, changed)];
    }),
  );
  return { touched, renames };
}

/** The commits that touched matching paths, each with those paths. */
function touchingIn(commits: readonly Commit[], touched: ReadonlyMap<string, readonly string[]>): Touching {
  return (match) =>
    commits.flatMap((commit) => {
      const paths = (touched.get(commit.sha) ?? []).filter(match);
      return paths.length ? [{ commit, paths }] : [];
    });
}

/** A matcher for paths in (or equal to) one of the folders. */
function under(dirs: readonly string[]): (path: string) => boolean {
  return (path) => dirs.some((d) => path === d.replace(/\/+$/, "") || path.startsWith(`${d.replace(/\/+$/, "")}/`));
}

/** What each commit did to the ledger, and whether the base's ledger rejects an agent's added lease. */
function ledgerEvidence(
  git: GitPort,
  base: string,
  ledgerFile: string,
  touching: Touching,
  warnings: GateIssue[],
): PatchEvidence["ledger"] {
  // Each revision's ledger read and parsed once: in a chain of commits that each changed it, a commit's
  // ledger is also its child's parent's (and an invalid one is warned about once).
  const parsed = new Map<string, Ledger | undefined>();
  const ledgerAt = (rev: string): Ledger | undefined => {
    if (!parsed.has(rev)) parsed.set(rev, readLedgerAt(git, rev, ledgerFile, warnings));
    return parsed.get(rev);
  };
  const baseLedger = ledgerAt(base);
  const ledgerChanges = touching((p) => p === ledgerFile).map(({ commit }) => ({
    commit,
    changes: ledgerChangesOf(commit, ledgerAt),
  }));
  return {
    file: ledgerFile,
    changes: ledgerChanges.filter((c) => c.changes.length > 0),
    rejectIfAgentAddsLease: baseLedger?.rejectIfAgentAddsLease ?? true,
  };
}

/** The fixture lock at the base and head, the commits that touched the fixtures, and the files on disk against the lock. */
async function fixturesEvidence(
  git: GitPort,
  range: { base: string; head: string },
  config: GateConfig,
  touching: Touching,
  unlocked: PatchRequest["unlocked"],
): Promise<NonNullable<PatchEvidence["fixtures"]>> {
  const lockAt = (rev: string) => {
    const text = git.readFileAt(rev, config.fixtures.lock);
    if (text === undefined) return [];
    const result = parseFixturesLock(text, `${config.fixtures.lock} at ${shortRevision(rev)}`, {
      allowSpecialNames: config.fixtures.allowSpecialNames,
    });
    if (result.errors.length > 0) throw new GateError(result.errors);
    return result.entries;
  };
  const locked = under(config.fixtures.paths);
  return {
    lock: config.fixtures.lock,
    delta: diffFixturesLocks(lockAt(range.base), lockAt(range.head)),
    touching: touching((p) => p === config.fixtures.lock || locked(p)),
    unlocked: unlocked ? await unlocked(config) : undefined,
    snapshotsOutside: touching((p) => isSnapshotPath(p) && !locked(p)),
    inlineSnapshots: inlineSnapshotTouches(
      git,
      touching((p) => isScriptPath(p) && !locked(p)),
    ),
  };
}

/**
 * The commits that took inline snapshots away from the JavaScript and TypeScript files they touched (a
 * snapshot rewritten to match new output is one taken away and another added), each with the files.
 */
function inlineSnapshotTouches(git: GitPort, touches: readonly CommitPaths[]): InlineSnapshotTouch[] {
  // Text as a test runner reads it: a file that is not UTF-8 is still read (with replacement characters),
  // so a stray byte cannot hide a rewritten snapshot.
  const lenient = new TextDecoder();
  const textAt = (rev: string, path: string): string | undefined => {
    try {
      return git.readFileAt(rev, path);
    } catch (error) {
      if (!GateError.isInstance(error)) throw error;
      const bytes = git.readBlobAt(rev, path);
      return bytes === undefined ? undefined : lenient.decode(bytes);
    }
  };
  const out: InlineSnapshotTouch[] = [];
  for (const { commit, paths } of touches) {
    for (const rev of [commit.sha, ...commit.parents]) git.prefetchFilesAt?.(rev, paths);
    const files = paths.map((path) => ({
      path,
      after: textAt(commit.sha, path),
      parents: commit.parents.map((parent) => textAt(parent, path)),
    }));
    const holding = files.filter((f) => [f.after, ...f.parents].some((t) => t?.includes("InlineSnapshot")));
    if (holding.length === 0) continue;
    const removed = inlineSnapshotsRemoved(commit.parents.length, holding);
    if (removed.length === 0) continue;
    // The files that hold fewer of the snapshots than before.
    const changed = holding.filter((f) => inlineSnapshotsRemoved(commit.parents.length, [f]).length > 0);
    out.push({ commit, paths: (changed.length > 0 ? changed : holding).map((f) => f.path), removed: removed.length });
  }
  return out;
}

/** The seed folders, how many files they hold at head, and the commits that touched them. */
function seedsEvidence(
  git: GitPort,
  head: string,
  config: GateConfig,
  touching: Touching,
): NonNullable<PatchEvidence["seeds"]> {
  return {
    dirs: config.properties.seeds,
    filesAtHead: config.properties.seeds.reduce((n, dir) => n + git.listFilesAt(head, dir).length, 0),
    touching: touching(under(config.properties.seeds)),
  };
}

/**
 * The commits that touched property test files: under `[properties] tests`, or a Python test file that
 * imports hypothesis at the base or at head (a property test outside the folder). Seed files are
 * seed_rewrite's. Each with its first added line in them, where it added one.
 */
function propertyTestTouches(
  git: GitPort,
  range: { base: string; head: string },
  touching: Touching,
  where: { dirs: (path: string) => boolean; seeds: (path: string) => boolean },
): PropertyTestTouch[] {
  const pytest = readPytestSettings((path) => git.readFileAt(range.base, path));
  const hypothesis = new Map<string, boolean>();
  const importsAt = (rev: string, path: string): boolean => {
    const text = git.readFileAt(rev, path);
    return text !== undefined && importsHypothesis(text);
  };
  const isPropertyTest = (path: string): boolean => {
    if (where.seeds(path)) return false;
    if (where.dirs(path)) return true;
    // Wider than a test file: a strategies module beside the tests shapes every property that uses it.
    if (!path.endsWith(".py") || (!isTestFile(path, pytest) && testFolderOf(path, pytest) === undefined)) return false;
    let known = hypothesis.get(path);
    if (known === undefined) {
      known = importsAt(range.base, path) || importsAt(range.head, path);
      hypothesis.set(path, known);
    }
    return known;
  };
  return touching(isPropertyTest).map((t) => {
    const added = new Map(git.addedLines(t.commit.sha, { paths: t.paths }).map((f) => [f.path, f.lines[0]?.line]));
    const path = t.paths.find((p) => added.get(p) !== undefined);
    return { ...t, first: path === undefined ? undefined : { path, line: added.get(path)! } };
  });
}

/**
 * The protected files and sections whose meaning each commit changed (against every parent, for a merge:
 * only its own resolution counts). A path that `[protect] paths` already protects in that commit is not
 * judged again; a whole-file entry answers for the file's sections.
 */
function sectionTouches(
  git: GitPort,
  commits: readonly Commit[],
  touched: ReadonlyMap<string, readonly string[]>,
  specs: readonly SectionSpec[],
  byPath: readonly CommitPaths[],
): SectionTouch[] {
  const ordered = [...specs].sort((a, b) => Number(a.section !== undefined) - Number(b.section !== undefined));
  const matchers = ordered.map((spec) => ({ spec, matches: sectionFileMatcher(spec) }));
  const out: SectionTouch[] = [];
  for (const commit of commits) {
    const already = new Set(byPath.find((t) => t.commit.sha === commit.sha)?.paths ?? []);
    for (const path of touched.get(commit.sha) ?? []) {
      if (already.has(path)) continue;
      let wholeFile = false;
      for (const { spec, matches } of matchers) {
        if (!matches(path) || (wholeFile && spec.section !== undefined)) continue;
        const after = readSection(git.readFileAt(commit.sha, path), path, spec.section);
        const parents = commit.parents.length > 0 ? commit.parents : [undefined];
        const diffs = parents.map((parent) =>
          diffSection(readSection(parent ? git.readFileAt(parent, path) : undefined, path, spec.section), after),
        );
        // A merge changed it only when it differs from every parent.
        if (diffs.some((d) => d === undefined)) continue;
        const d = diffs[0]!;
        out.push({ commit, file: path, section: spec.section, keys: d.keys, line: d.line, unreadable: d.unreadable });
        if (spec.section === undefined) wholeFile = true;
      }
    }
  }
  return out;
}

function readLedgerAt(git: GitPort, rev: string, file: string, warnings: GateIssue[]): Ledger | undefined {
  const text = git.readFileAt(rev, file);
  if (text === undefined) return undefined;
  const result = parseLedger(text, `${file} at ${shortRevision(rev)}`);
  if (!result.ledger) {
    warnings.push({
      code: "ledger_invalid",
      file: `${file} at ${shortRevision(rev)}`,
      message: "the ledger was not valid at this commit: every lease after it counts as added",
    });
  }
  return result.ledger;
}

/** The loosening changes one commit made to the ledger (a merge: only its own resolution's). */
function ledgerChangesOf(commit: Commit, ledgerAt: (rev: string) => Ledger | undefined): LedgerLoosening[] {
  const after = ledgerAt(commit.sha);
  if (!after) return [];
  const parents = commit.parents.length > 0 ? commit.parents : [undefined];
  const perParent = parents.map((parent) => diffLedgers(parent ? ledgerAt(parent) : undefined, after));
  return mergeOwnChanges(perParent, looseningKey);
}

/** The paths a commit answers for (old names of renames included; a merge: only its own resolution's). */
function ownPaths(git: GitPort, commit: Commit, changed: readonly ChangedPath[]): string[] {
  const paths = changed.flatMap((p) => (p.oldPath ? [p.path, p.oldPath] : [p.path]));
  if (commit.parents.length < 2) return paths;
  const sides = commit.parents.slice(1).map((parent) => [...git.differingPaths(parent, commit.sha)]);
  return mergeOwnChanges([paths, ...sides], (path) => path);
}

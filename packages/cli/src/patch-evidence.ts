import {
  DEFAULT_AGENT_PATTERNS,
  GateError,
  diffFixturesLocks,
  diffLedgers,
  looseningKey,
  parseConfig,
  parseFixturesLock,
  parseLedger,
  pathMatcher,
  protectedPaths,
  type Commit,
  type CommitPaths,
  type GateConfig,
  type GateIssue,
  type Ledger,
  type LedgerLoosening,
  type LockDelta,
  type PatchEvidence,
  type PatchPolicy,
} from "@proofgate/core";
import { createHash } from "node:crypto";
import {
  changedPaths,
  type CiProvider,
  listCommits,
  listFilesAt,
  readFileAt,
  resolveCommit,
  resolveRange,
  runGit,
} from "./git.js";

/** What `decide --base/--head` learns from git, and the policy it is judged by. */
export interface LoadedPatch {
  patch: PatchEvidence;
  policy: PatchPolicy;
  /** The base revision's `proofgate.toml` (defaults where it has none): the patch cannot loosen its own judge. */
  config: GateConfig;
  /** Where the config came from and its digest; undefined when the base has none (defaults). */
  configSource?: { path: string; sha256: string } | undefined;
  warnings: GateIssue[];
}

/** The config file, at the repository root. */
export const CONFIG_FILE = "proofgate.toml";

/**
 * Reads the patch from git: the range, its commits, what each did to the ledger, the fixtures, the
 * seeds and the protected paths. The policy comes from the BASE revision's `proofgate.toml`, never
 * from the patch under review.
 */
export async function loadPatchEvidence(options: {
  cwd: string;
  base?: string | undefined;
  head?: string | undefined;
  /** The branch the patch targets (from the platform): its merge-base is the default base. */
  defaultBranch?: string | undefined;
  provider?: CiProvider | undefined;
  unlocked?: (config: GateConfig) => Promise<LockDelta>;
}): Promise<LoadedPatch> {
  const { cwd } = options;
  const warnings: GateIssue[] = [];
  const resolved = resolveRange({
    base: options.base,
    head: options.head,
    defaultBranch: options.defaultBranch,
    provider: options.provider,
    cwd,
  });
  // Truncated: the report still names the head it was asked to judge by its full object name, when the clone has it.
  const range = resolved.ok
    ? resolved.range
    : { base: options.base ?? "", head: resolveCommit(options.head ?? "HEAD", cwd) ?? options.head ?? "HEAD" };
  // The policy is the base's: a patch may not loosen its own judge. A truncated history has no base
  // to read it from, and is judged on shallow_history alone.
  const baseConfigText = resolved.ok ? readFileAt(range.base, CONFIG_FILE, cwd) : undefined;
  const configPath = resolved.ok ? `${CONFIG_FILE} at ${range.base.slice(0, 12)}` : CONFIG_FILE;
  const parsed = parseConfig(baseConfigText ?? "", configPath, DEFAULT_AGENT_PATTERNS);
  if (!parsed.config) throw new GateError(parsed.errors);
  const configSource =
    baseConfigText === undefined
      ? undefined
      : { path: configPath, sha256: createHash("sha256").update(baseConfigText).digest("hex") };
  warnings.push(...parsed.warnings);
  const config = parsed.config;
  const policy: PatchPolicy = { agentPatterns: config.agents.patterns, trailers: config.trailers };
  const ledgerFile = config.ledger.path;
  const empty: PatchEvidence = {
    base: range.base,
    head: range.head,
    commits: [],
    ledger: { file: ledgerFile, changes: [], rejectIfAgentAddsLease: true },
    protect: { patterns: protectedPaths(config), touching: [] },
  };
  if (!resolved.ok)
    return {
      patch: { ...empty, shallow: { message: resolved.issue.message, fix: resolved.issue.fix } },
      policy,
      config,
      configSource,
      warnings,
    };

  const commits = listCommits(range, cwd);
  const touched = new Map<string, string[]>(commits.map((c) => [c.sha, ownPaths(c, cwd)]));
  const touching = (match: (path: string) => boolean): CommitPaths[] =>
    commits.flatMap((commit) => {
      const paths = (touched.get(commit.sha) ?? []).filter(match);
      return paths.length ? [{ commit, paths }] : [];
    });
  const under = (dirs: readonly string[]) => (path: string) =>
    dirs.some((d) => path === d.replace(/\/+$/, "") || path.startsWith(`${d.replace(/\/+$/, "")}/`));

  const baseLedger = readLedgerAt(range.base, ledgerFile, cwd, warnings);
  const ledgerChanges = touching((p) => p === ledgerFile).map(({ commit }) => ({
    commit,
    changes: ledgerChangesOf(commit, ledgerFile, cwd, warnings),
  }));

  const patch: PatchEvidence = {
    ...empty,
    commits,
    ledger: {
      file: ledgerFile,
      changes: ledgerChanges.filter((c) => c.changes.length > 0),
      rejectIfAgentAddsLease: baseLedger?.rejectIfAgentAddsLease ?? true,
    },
    protect: { patterns: protectedPaths(config), touching: touching(pathMatcher(protectedPaths(config))) },
  };
  if (config.fixtures.enabled) {
    const lockAt = (rev: string) => {
      const text = readFileAt(rev, config.fixtures.lock, cwd);
      if (text === undefined) return [];
      const result = parseFixturesLock(text, `${config.fixtures.lock} at ${rev.slice(0, 12)}`, {
        allowSpecialNames: config.fixtures.allowSpecialNames,
      });
      if (result.errors.length > 0) throw new GateError(result.errors);
      return result.entries;
    };
    patch.fixtures = {
      lock: config.fixtures.lock,
      delta: diffFixturesLocks(lockAt(range.base), lockAt(range.head)),
      touching: touching((p) => p === config.fixtures.lock || under(config.fixtures.paths)(p)),
      unlocked: options.unlocked ? await options.unlocked(config) : undefined,
    };
  }
  if (config.properties.enabled) {
    patch.seeds = {
      dirs: config.properties.seeds,
      filesAtHead: config.properties.seeds.reduce((n, dir) => n + listFilesAt(range.head, dir, cwd).length, 0),
      touching: touching(under(config.properties.seeds)),
    };
  }
  return { patch, policy, config, configSource, warnings };
}

function readLedgerAt(rev: string, file: string, cwd: string, warnings: GateIssue[]): Ledger | undefined {
  const text = readFileAt(rev, file, cwd);
  if (text === undefined) return undefined;
  const result = parseLedger(text, `${file} at ${rev.slice(0, 12)}`);
  if (!result.ledger) {
    warnings.push({
      code: "ledger_invalid",
      file: `${file} at ${rev.slice(0, 12)}`,
      message: "the ledger was not valid at this commit: every lease after it counts as added",
    });
  }
  return result.ledger;
}

/**
 * The loosening changes one commit made to the ledger. A merge commit counts only for changes that
 * none of its parents had (the merge's own resolution); the branch commits answer for the rest.
 */
function ledgerChangesOf(commit: Commit, file: string, cwd: string, warnings: GateIssue[]): LedgerLoosening[] {
  const after = readLedgerAt(commit.sha, file, cwd, warnings);
  if (!after) return [];
  const parents = commit.parents.length > 0 ? commit.parents : [undefined];
  const perParent = parents.map((parent) =>
    diffLedgers(parent ? readLedgerAt(parent, file, cwd, warnings) : undefined, after),
  );
  const [first, ...rest] = perParent;
  return (first ?? []).filter((change) =>
    rest.every((other) => other.some((c) => looseningKey(c) === looseningKey(change))),
  );
}

/**
 * The paths a commit answers for (old names of renames included). A merge answers only for paths that
 * differ from every parent (its own resolution): what it brings in from a merged side is that side's
 * commits' doing (in the range), or was already there (merging the base branch in).
 */
function ownPaths(commit: Commit, cwd: string): string[] {
  const paths = changedPaths(commit.sha, cwd).flatMap((p) => (p.oldPath ? [p.path, p.oldPath] : [p.path]));
  if (commit.parents.length < 2) return paths;
  const sides = commit.parents
    .slice(1)
    .map(
      (parent) =>
        new Set(
          runGit(
            ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--end-of-options", parent, commit.sha],
            cwd,
          ).split("\0"),
        ),
    );
  return paths.filter((path) => sides.every((side) => side.has(path)));
}

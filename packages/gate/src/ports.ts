// What the gate needs from the machine, as small interfaces: git, the files it reads and writes, the
// fixture hashing, coverage.py's data file and the command runner. node/ implements them for Node; a
// library user or a test may pass others.
import type { Commit, CoverageData, CoverageDbRows, Env, GateIssue, SignatureCheck } from "@proofgate/core";
import type { LockTreeComparison } from "@proofgate/core/fixtures-lock";
import type { WorkTreeEntry } from "@proofgate/core/proof-run";

import type { AddedLinesFilter, BlameLine, ChangedPath, GitRange, RangeResolution, TreeEntry } from "./git-types.js";

/** git, in the repository the gate judges. Every failure is a GateError (`git_failed`). */
export interface GitPort {
  /** base..head, or `shallow_history` with `shallowFix` as its fix. */
  resolveRange(options: {
    base?: string | undefined;
    head?: string | undefined;
    defaultBranch?: string | undefined;
    shallowFix: string;
  }): RangeResolution;
  /** Every commit of base..head, oldest first, with trailers as git parses them. */
  listCommits(range: Pick<GitRange, "base" | "head">): Commit[];
  /** The paths a commit changed against its first parent (renames with their old path). */
  changedPaths(sha: string): ChangedPath[];
  /** The paths that differ between two commits (no rename detection). */
  differingPaths(from: string, to: string): Set<string>;
  /** A file's bytes at a revision; undefined when there is no file there. */
  readBlobAt(rev: string, path: string): Uint8Array | undefined;
  /** A file's UTF-8 text at a revision; undefined when there is no file there. */
  readFileAt(rev: string, path: string): string | undefined;
  /**
   * Says these files will be read at `rev` (a full object name): a port may read them all at once, ahead of
   * the `readFileAt` calls, which answer as they would have. Optional, and it never throws.
   */
  prefetchFilesAt?(rev: string, paths: readonly string[]): void;
  /** Every file under `dir` at a revision. */
  listFilesAt(rev: string, dir: string): TreeEntry[];
  /**
   * A package's port (`check --root`): of `paths` (the package's names for files elsewhere in the repository,
   * `../../testdata/golden.txt`), those that differ between base and head, each with the commits of base..head
   * that touched it, the whole repository's (not only the package's), oldest first. Absent on the repository's
   * own port, where no path leaves the root.
   */
  outsideChanges?(range: Pick<GitRange, "base" | "head">, paths: readonly string[]): OutsideChange[];
  /** Work-tree paths that differ from HEAD (and untracked ones, when asked). */
  workTreeChanges(options: { untracked: boolean }): string[];
  /** Every path `git status` shows, ignored ones included: what a step wrote is told from it. */
  workTreeStatus(): WorkTreeEntry[];
  /**
   * Puts tracked files back as HEAD has them; with `keepIn` (an absolute folder), each changed file is first
   * copied there under its path (the change may be a person's edit made while the steps ran).
   */
  restoreTracked(paths: readonly string[], keepIn?: string): void;
  commitParents(sha: string): string[];
  isAncestor(ancestor: string, descendant: string): boolean;
  mergeBase(a: string, b: string): string | undefined;
  resolveCommit(ref: string): string | undefined;
  /** The tree a commit holds; undefined when `rev` names no commit. */
  treeOf(rev: string): string | undefined;
  /**
   * Each commit's signature: its kind, and for an SSH signature git's verdict against `allowedSigners`
   * (the text of an allowed-signers file, which the caller read at the base). No other signing program
   * runs, and no file of the machine's or the work tree's is the judge.
   */
  signatureChecks(shas: readonly string[], allowedSigners: string): SignatureCheck[];
  /**
   * `git diff --no-color --unified=0 -M base head`: the patch as one diff of the two trees, renames
   * paired, names C-quoted where git quotes them (core.quotePath on); core's `parseGitDiff` reads it.
   * With `relative` (a repository-relative folder): only the files in it, named relative to it.
   */
  rangeDiff(base: string, head: string, relative?: string): string;
  /**
   * The lines a commit added, per file, against its first parent, numbered as at the commit. With `only`,
   * just the files it names (git diffs no other: a lock file of megabytes that every commit changes
   * costs nothing when the rule reads Python files).
   */
  addedLines(sha: string, only?: AddedLinesFilter): { path: string; lines: { line: number; text: string }[] }[];
  /** Who wrote each line of `path` at head, over base..head (renames followed); none for a line older than the base. */
  blame(range: Pick<GitRange, "base" | "head">, path: string): BlameLine[];
  /**
   * A detached checkout of `rev` in a new folder outside the repository; its absolute path. The work tree's
   * `node_modules` is linked into it unless `linkNodeModules` is false (the base installs its own).
   */
  addWorktree(rev: string, options?: { linkNodeModules?: boolean }): string;
  /** Every work tree of the repository (`git worktree list`), absolute: the main one and the linked ones. */
  listWorktrees(): string[];
  /** Removes a checkout made by addWorktree (never throws). */
  removeWorktree(dir: string): void;
}

/** A file outside a package's folder that changed in the range, and the commits that changed it. */
export interface OutsideChange {
  /** As the package names it (`../../testdata/golden.txt`). */
  path: string;
  commits: Commit[];
}

/** An input file's bytes and their digest (computed on first use). */
export interface InputBytes {
  path: string;
  bytes: Uint8Array;
  readonly sha256: string;
}

/** An input file's UTF-8 text and the digest of its bytes. */
export interface InputFile {
  path: string;
  text: string;
  readonly sha256: string;
}

/** A file's identity at one moment: a command that should write it must change it. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
}

/**
 * Files, by paths relative to the repository root (or absolute). Reads throw a GateError naming the
 * file and `flag`, the key or flag that set it.
 */
export interface FilePort {
  /** The repository root that relative paths are read from. */
  root: string;
  readBytes(path: string, what: string, flag: string): InputBytes;
  readText(path: string, what: string, flag: string): InputFile;
  /** The first `bytes` bytes (fewer for a shorter file); a GateError when it cannot be read. */
  peek(path: string, bytes: number, what: string, flag: string): Uint8Array;
  /** The file's bytes in chunks, for reports too large to hold as text. */
  chunks(path: string, chunkBytes: number, what: string, flag: string): Iterable<Uint8Array>;
  stamp(path: string): FileStamp | undefined;
  exists(path: string): boolean;
  /** Writes a file whole or not at all; a GateError when it cannot. */
  writeAtomic(path: string, text: string): void;
  /** Deletes a folder and everything in it, read-only or not. */
  removeTree(path: string): void;
  /** A source file's text for the coverage readers; undefined when it cannot be read. */
  readSource(path: string): string | undefined;
}

/** Where the fixtures and their lock are, and what the walk tolerates (`[fixtures]`). */
export interface FixtureSettings {
  paths: readonly string[];
  lock: string;
  allowSymlinks?: boolean | undefined;
  allowSpecialNames?: boolean | undefined;
}

/** The fixture files on disk against their lock. */
export interface FixtureCheck {
  comparison: LockTreeComparison;
  files: number;
  lockSha256: string;
  warnings: GateIssue[];
}

/** Hashes the fixture tree and compares it with the lock; a bad lock or tree is a GateError. */
export interface FixtureHasher {
  check(settings: FixtureSettings): Promise<FixtureCheck>;
}

/** Shards read and merged elsewhere (worker threads): the merge in parts, in shard order, and each shard's digest. */
export interface ShardsRead {
  /** Each part the merge of a run of the shards, in order: merging the parts in order merges every shard. */
  parts: CoverageData[];
  /** Each shard's SHA-256, in the order given. */
  sha256: string[];
}

/**
 * Reads many coverage reports off the main thread. Only a clean read of coverage.py JSON shards is given:
 * undefined when it declines (any error, warning, other format, or too little to be worth it), and the gate
 * then reads the reports itself, so its messages never depend on this port. It never rejects.
 */
export interface CoverageShardReader {
  /** Starts reading ahead of {@link read} with the same arguments (a later different one stops it). */
  prefetch(reports: readonly string[], format: string | undefined): void;
  read(reports: readonly string[], format: string | undefined): Promise<ShardsRead | undefined> | undefined;
}

/** Reads coverage.py's `.coverage` data file; a file that is not one is a GateError. */
export type CoverageDataReader = (path: string) => Promise<CoverageDbRows>;

/**
 * Runs one shell command in the repository root (or `cwd`, an absolute folder) and streams its output.
 * Resolves with its exit code; rejects with {@link CommandTimedOut} once `timeoutSeconds` have passed and
 * the command and every process it started were stopped, or with the system's error when it cannot start.
 */
export interface CommandRunner {
  run(
    command: string,
    options: {
      env: Env;
      output: (text: string) => void;
      /** Also given what the command writes to stderr alone (the message of a step that fails quotes it). */
      errors?: ((text: string) => void) | undefined;
      cwd?: string | undefined;
      /** Seconds it may run; undefined or 0: no limit. */
      timeoutSeconds?: number | undefined;
    },
  ): Promise<number>;
}

/** A command that ran past its time limit and was stopped, with every process it started. */
export class CommandTimedOut extends Error {
  override readonly name = "CommandTimedOut";
  constructor(
    readonly seconds: number,
    /** How it was stopped: "SIGTERM", or "SIGKILL" when the processes outlived the grace after SIGTERM. */
    readonly signal: "SIGTERM" | "SIGKILL",
  ) {
    super(`ran past its time limit of ${seconds} s and was stopped (${signal})`);
  }

  /** True for one from any copy of this module (bundles may hold two). */
  static isInstance(value: unknown): value is CommandTimedOut {
    return (
      value instanceof CommandTimedOut ||
      (typeof value === "object" && value !== null && (value as { name?: unknown }).name === "CommandTimedOut")
    );
  }
}

/** Writes the seed corpus as it was at `ref` into `out` (a new or empty folder), read-only. */
export type SeedWriter = (options: { ref: string; dirs: readonly string[]; out: string }) => {
  /** The commit `ref` named. */
  sha: string;
  /** The files written. */
  files: string[];
};

/** Everything the gate reads the machine through. */
export interface GatePorts {
  git: GitPort;
  files: FilePort;
  fixtures: FixtureHasher;
  coverageData: CoverageDataReader;
  /** Coverage shards read in worker threads; undefined: the gate reads them on its own thread. */
  coverageShards?: CoverageShardReader | undefined;
  commands: CommandRunner;
  seeds: SeedWriter;
  /**
   * Milliseconds on a monotonic clock: how long each step of `check --run` took (the report's
   * `commands[].seconds`, `--verbose`). Undefined: Date.now.
   */
  now?: (() => number) | undefined;
}

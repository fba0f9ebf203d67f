// Everything proofgate reads from git: the range base..head, its commits with their
// authors, committers and trailers as git itself parses them, the paths each commit changed, and
// files and trees at a revision. One git process per question, never a shell.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  statSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import {
  FULL_SHA,
  GateError,
  type Commit,
  type Env,
  type SignatureCheck,
  type SignatureFormat,
  type Trailer,
} from "@proofgate/core";
import type { AddedLinesFilter, BlameLine, ChangedPath, GitRange, RangeResolution, TreeEntry } from "../git-types.js";
import type { GitPort } from "../ports.js";
import type { WorkTreeEntry } from "@proofgate/core/proof-run";
import { cleanupOnExit } from "./exit-cleanup.js";

export type { AddedLinesFilter, BlameLine, ChangedPath, GitRange, RangeResolution, TreeEntry };

/** Options for one git invocation. */
export interface RunGitOptions {
  /** Bytes for git's stdin. */
  input?: string | Uint8Array | undefined;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). Default: [0]. */
  okCodes?: readonly number[] | undefined;
  /** The pathspecs carry their own magic (`:(literal)`, `:(glob)`): GIT_LITERAL_PATHSPECS is not set. */
  pathspecMagic?: boolean | undefined;
}

/** What one git invocation returned. */
export interface GitResult {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** Git's output can be large (a `log` over thousands of commits, a big blob). */
const MAX_BUFFER = 1024 * 1024 * 1024;

/** Every call: paths unquoted, UTF-8 log output, no signature noise. */
const CONFIG = ["-c", "core.quotepath=off", "-c", "i18n.logOutputEncoding=UTF-8", "-c", "log.showSignature=false"];

/** A repository as git is run in it: the work tree, and the environment git gets (PATH, HOME, its config). */
export interface GitRepo {
  cwd: string;
  env: Env;
}

function gitEnv(env: Env): NodeJS.ProcessEnv {
  return {
    ...env,
    LC_ALL: "C",
    LANGUAGE: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    // The gate reads the objects themselves: `refs/replace` must not change an author or a parent.
    GIT_NO_REPLACE_OBJECTS: "1",
    // Paths are names, never globs.
    GIT_LITERAL_PATHSPECS: "1",
  };
}

const quoteArg = (arg: string): string => (/^[\w@%+=:,./^~-]+$/.test(arg) ? arg : JSON.stringify(arg));

/** The command as a user would type it, for messages. */
function describe(args: readonly string[]): string {
  return `git ${args.map(quoteArg).join(" ")}`;
}

function fixFor(stderr: string, cwd: string): string {
  if (/not a git repository/i.test(stderr)) return `run proofgate inside the repository's work tree (it ran in ${cwd})`;
  if (/dubious ownership/i.test(stderr))
    return `trust the checkout: git config --global --add safe.directory ${JSON.stringify(cwd)}`;
  return "check that this command works in the repository";
}

/**
 * Runs git with `args` in `cwd` (no shell, LC_ALL=C, `-c core.quotepath=off`, a 1 GiB output limit)
 * and returns its raw result. An exit code outside `okCodes`, a missing git or a signal is a
 * GateError (`git_failed`) naming the command and git's first stderr line.
 */
export function gitExec(args: readonly string[], repo: GitRepo, options: RunGitOptions = {}): GitResult {
  const { cwd } = repo;
  const result = spawnSync("git", [...CONFIG, ...args], {
    cwd,
    env: options.pathspecMagic ? { ...gitEnv(repo.env), GIT_LITERAL_PATHSPECS: "0" } : gitEnv(repo.env),
    input: options.input,
    maxBuffer: MAX_BUFFER,
    windowsHide: true,
    shell: false,
  });
  const command = describe(args);
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !existsSync(cwd)) {
      throw new GateError(
        {
          code: "git_failed",
          message: `${command}: the folder ${cwd} does not exist`,
          fix: "run proofgate in the repository's work tree",
        },
        { cause: result.error },
      );
    }
    if (code === "ENOENT") {
      throw new GateError(
        {
          code: "git_failed",
          message: `${command}: git is not installed or not on PATH`,
          fix: "install git, or run proofgate where git is on PATH",
        },
        { cause: result.error },
      );
    }
    throw new GateError(
      {
        code: "git_failed",
        message: `${command} failed: ${code ?? result.error.message}`,
        fix: code === "ENOBUFS" ? "the output exceeds 1 GiB" : fixFor("", cwd),
      },
      { cause: result.error },
    );
  }
  const stderr = result.stderr.toString("utf8");
  const status = result.status ?? -1;
  if (!(options.okCodes ?? [0]).includes(status)) {
    const first = stderr
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim();
    const why = result.signal ? `was killed by ${result.signal}` : `exited ${status}${first ? `: ${first}` : ""}`;
    throw new GateError({ code: "git_failed", message: `${command} ${why}`, fix: fixFor(stderr, cwd) });
  }
  return { status, stdout: result.stdout, stderr };
}

/** Runs git and returns its stdout as text; any failure is a GateError (`git_failed`). */
export function runGit(args: readonly string[], repo: GitRepo, options: RunGitOptions = {}): string {
  return gitExec(args, repo, options).stdout.toString("utf8");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
/** Paths exactly as git stores them: a name that starts with a byte-order mark keeps it (it is another name). */
const pathUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A path git printed, as text; a name that is not UTF-8 is a GateError (the gate cannot name it). */
function pathText(bytes: Buffer, context: string): string {
  try {
    return pathUtf8.decode(bytes);
  } catch {
    throw new GateError({
      code: "git_failed",
      message: `${context}: a path is not UTF-8 (${JSON.stringify(bytes.toString("latin1"))})`,
      fix: "rename the file to a UTF-8 name",
    });
  }
}

/** Splits git's `-z` output at NUL bytes; the trailing terminator yields no empty last item. */
function splitNul(out: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i !== -1; i = out.indexOf(0, start)) {
    parts.push(out.subarray(start, i));
    start = i + 1;
  }
  if (start < out.length) parts.push(out.subarray(start));
  return parts;
}

function refusesOption(what: string, ref: string): void {
  if (ref.startsWith("-") || ref.trim() === "" || /[\0\n]/.test(ref)) {
    throw new GateError({
      code: "usage",
      message: `${what} ${JSON.stringify(ref)} is not a git revision`,
      fix: `pass a commit, branch or tag, e.g. ${what} origin/main`,
    });
  }
}

/** The full object name of `ref` as a commit, or undefined when this repository has no such commit. */
export function resolveCommit(ref: string, repo: GitRepo): string | undefined {
  const out = gitExec(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], repo, {
    okCodes: [0, 1, 128],
  });
  const sha = out.stdout.toString("utf8").trim();
  return out.status === 0 && sha !== "" ? sha : undefined;
}

/** The tree a commit holds (`git rev-parse <rev>^{tree}`); undefined when `rev` names no commit. */
export function treeOf(rev: string, repo: GitRepo): string | undefined {
  return resolveCommit(rev, repo) && resolveRef(`${rev}^{tree}`, repo);
}

function resolveRef(ref: string, repo: GitRepo): string | undefined {
  const out = gitExec(["rev-parse", "--verify", "--quiet", "--end-of-options", ref], repo, { okCodes: [0, 1, 128] });
  const sha = out.stdout.toString("utf8").trim();
  return out.status === 0 && sha !== "" ? sha : undefined;
}

/** True when `ancestor` is `descendant` or one of its ancestors (`git merge-base --is-ancestor`). */
export function isAncestor(ancestor: string, descendant: string, repo: GitRepo): boolean {
  return (
    gitExec(["merge-base", "--is-ancestor", "--end-of-options", ancestor, descendant], repo, { okCodes: [0, 1] })
      .status === 0
  );
}

/** True when the clone is shallow (`git rev-parse --is-shallow-repository`). */
export function isShallowRepository(repo: GitRepo): boolean {
  return runGit(["rev-parse", "--is-shallow-repository"], repo).trim() === "true";
}

/** The commits at which a shallow clone's history is cut (their parents are missing). */
export function shallowBoundary(repo: GitRepo): Set<string> {
  const file = runGit(["rev-parse", "--git-path", "shallow"], repo).replace(/\n$/, "");
  let text = "";
  try {
    text = readFileSync(isAbsolute(file) ? file : join(repo.cwd, file), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new GateError({
        code: "git_failed",
        file,
        message: `cannot read the shallow list: ${String(error)}`,
        fix: "check the repository's permissions",
      });
  }
  return new Set(
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

/** Options for `resolveRange`. */
export interface ResolveRangeOptions {
  /** The base revision (the --base flag); else the merge-base of head with the default branch. */
  base?: string | undefined;
  /** The head revision (the --head flag); default HEAD. */
  head?: string | undefined;
  /** The default branch's name (e.g. from the platform): tried as `origin/<name>`, then `<name>`. */
  defaultBranch?: string | undefined;
  /** How to fetch the whole history where the gate runs (the platform's `shallowHistoryFix`). */
  shallowFix: string;
  repo: GitRepo;
}

/** The branches tried, in order, when neither --base nor a default branch is given. */
export const DEFAULT_BRANCH_CANDIDATES: readonly string[] = Object.freeze([
  "origin/HEAD",
  "origin/main",
  "origin/master",
  "main",
  "master",
]);

/**
 * Resolves base..head. Head defaults to HEAD; base comes from `base`, else from the merge-base of
 * head with the default branch (`defaultBranch`, else origin/HEAD, origin/main, origin/master, main,
 * master). A shallow or truncated history is a `shallow_history` result, never a range: a base
 * that is missing from the clone or not an ancestor of head, no merge-base in a shallow clone, or a
 * shallow cut inside base..head. A head that does not exist, or no default branch in a full
 * clone, is a GateError (`usage`).
 */
export function resolveRange(options: ResolveRangeOptions): RangeResolution {
  const { repo } = options;
  const headRef = options.head ?? "HEAD";
  refusesOption("--head", headRef);
  if (options.base !== undefined) refusesOption("--base", options.base);
  const shallow = isShallowRepository(repo);
  const truncated = (message: string, fetchFirst?: string): RangeResolution => ({
    ok: false,
    shallow,
    issue: {
      code: "shallow_history",
      message,
      fix: `${fetchFirst ? `${fetchFirst}; ` : ""}${options.shallowFix}`,
    },
  });
  const cloneIs = shallow ? "this clone is shallow" : "this clone is not shallow";

  const head = resolveCommit(headRef, repo);
  if (head === undefined) {
    if (shallow && options.head !== undefined) return truncated(`--head ${headRef} is not in this clone (${cloneIs})`);
    throw new GateError({
      code: "usage",
      message: `--head ${headRef} is not a commit in this repository`,
      fix: "pass the commit to judge with --head, or check it out",
    });
  }

  let base: string;
  let baseRef: string;
  let baseSource: GitRange["baseSource"];
  if (options.base !== undefined) {
    baseRef = options.base;
    baseSource = "flag";
    const found = resolveCommit(baseRef, repo);
    if (found === undefined) {
      return truncated(
        `the base ${baseRef} is not in this clone (${cloneIs}): the history does not reach it, or the name is wrong`,
      );
    }
    base = found;
  } else {
    const d = options.defaultBranch?.trim();
    const candidates = d
      ? d.startsWith("origin/") || d.startsWith("refs/")
        ? [d]
        : [`origin/${d}`, d]
      : DEFAULT_BRANCH_CANDIDATES;
    let found: { ref: string; sha: string } | undefined;
    for (const ref of candidates) {
      refusesOption("the default branch", ref);
      const sha = resolveCommit(ref, repo);
      if (sha !== undefined) {
        found = { ref, sha };
        break;
      }
    }
    if (!found) {
      const tried = candidates.join(", ");
      // A CI names the target branch, but the clone may not have it (Buildkite fetches only the PR's head).
      const branch = d ? d.replace(/^origin\//, "") : undefined;
      const fetch =
        branch && !branch.startsWith("refs/")
          ? `fetch the target branch first: ${describe(["fetch", "origin", branch])}`
          : undefined;
      if (shallow)
        return truncated(`no default branch to take the merge-base with (tried ${tried}) in this shallow clone`, fetch);
      throw new GateError({
        code: "usage",
        message: `no base: --base was not given and no default branch exists (tried ${tried})`,
        fix: fetch
          ? `${fetch}, or pass the base with --base <commit or branch>`
          : "pass the base with --base <commit or branch>, e.g. --base origin/main",
      });
    }
    baseRef = found.ref;
    baseSource = "merge-base";
    const mb = gitExec(["merge-base", "--end-of-options", head, found.sha], repo, { okCodes: [0, 1] });
    const sha = mb.stdout.toString("utf8").trim().split("\n")[0] ?? "";
    if (mb.status !== 0 || sha === "") {
      if (shallow)
        return truncated(
          `head and ${found.ref} have no common commit in this shallow clone: the history does not reach their merge-base`,
        );
      throw new GateError({
        code: "usage",
        message: `head ${headRef} and ${found.ref} share no history, so there is no merge-base`,
        fix: "pass the base with --base <commit or branch>",
      });
    }
    base = sha;
  }

  if (!isAncestor(base, head, repo)) {
    const mb = gitExec(["merge-base", "--end-of-options", base, head], repo, { okCodes: [0, 1] })
      .stdout.toString("utf8")
      .trim();
    const hint = mb ? `; their merge-base is ${mb}, pass --base ${mb} to judge the branch's own commits` : "";
    return truncated(
      `the base ${baseRef} (${base.slice(0, 12)}) is not an ancestor of head ${headRef} (${head.slice(0, 12)}) (${cloneIs}): the history is truncated or the base is wrong${hint}`,
    );
  }

  if (shallow) {
    // A shallow cut inside base..head hides the commits behind it: the range would be truncated.
    const cuts = shallowBoundary(repo);
    if (cuts.size > 0) {
      const inRange = runGit(["rev-list", "--end-of-options", `${base}..${head}`, "--"], repo)
        .split("\n")
        .filter((sha) => cuts.has(sha));
      if (inRange.length > 0) {
        return truncated(
          `this clone is shallow and its history is cut at ${inRange[0]!.slice(0, 12)}, inside ${baseRef}..${headRef}: commits of the patch are missing`,
        );
      }
    }
  }
  return { ok: true, range: { base, head, baseRef, headRef, baseSource, shallow } };
}

/** Fields per commit in `listCommits`' output, each terminated by NUL (git's `-z` ends the record). */
const LOG_FIELDS = [
  "%H",
  "%P",
  "%an",
  "%ae",
  "%cn",
  "%ce",
  "%s",
  "%(trailers:only,unfold,keyonly,separator=%x0A)",
  "%(trailers:only,unfold,separator=%x0A,key_value_separator=%x0A)",
];

/**
 * Every commit of base..head, oldest first (parents before children; merges included), with author,
 * committer, subject and trailers as git parses them (`%(trailers:only,unfold)`: the message's last
 * paragraph of `Key: value` lines, continuation lines unfolded, comment lines skipped; a `---` line
 * does not end a commit message; values are verbatim, so a CRLF message's folded value keeps its CR).
 * One `git log`. Fields are NUL-separated: no message can hold a NUL,
 * and an unfolded trailer key or value never holds a newline, so no message content can spoof them.
 */
export function listCommits(range: Pick<GitRange, "base" | "head">, repo: GitRepo): Commit[] {
  refusesOption("base", range.base);
  refusesOption("head", range.head);
  const out = gitExec(
    [
      "log",
      "-z",
      "--topo-order",
      "--reverse",
      `--format=${LOG_FIELDS.join("%x00")}`,
      "--end-of-options",
      `${range.base}..${range.head}`,
      "--",
    ],
    repo,
  ).stdout;
  const parts = splitNul(out).map((b) => b.toString("utf8"));
  const n = LOG_FIELDS.length;
  if (parts.length % n !== 0) {
    throw new GateError({
      code: "git_failed",
      message: `git log over ${range.base}..${range.head} printed ${parts.length} fields, not a multiple of ${n}`,
      fix: "report this with `git --version`",
    });
  }
  const commits: Commit[] = [];
  for (let i = 0; i < parts.length; i += n) {
    const [sha, parents, an, ae, cn, ce, subject, keys, pairs] = parts.slice(i, i + n) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // Keys alone, and key/value pairs, each LF-separated (git's `valueonly` drops the separators
    // around leading empty values, so values are read in pairs; a key is never empty). The two
    // readings must agree, or the output is not what it seems.
    const keyList = keys === "" ? [] : keys.split("\n");
    const pairList = pairs === "" ? [] : pairs.split("\n");
    if (pairList.length !== 2 * keyList.length || keyList.some((key, j) => pairList[2 * j] !== key)) {
      throw new GateError({
        code: "git_failed",
        message: `commit ${sha}: git's trailer listing is inconsistent (${keyList.length} keys, ${pairList.length} key and value lines)`,
        fix: "check the repository's trailer.* config for keys with line breaks; report this with `git --version`",
      });
    }
    const trailers: Trailer[] = keyList.map((key, j) => ({ key, value: pairList[2 * j + 1]! }));
    commits.push({
      sha,
      parents: parents === "" ? [] : parents.split(" "),
      author: { name: an, email: ae },
      committer: { name: cn, email: ce },
      subject,
      trailers,
    });
  }
  return commits;
}

/**
 * The paths commit `sha` changed against its first parent (the root commit: against the empty
 * tree; a merge: against its first parent, i.e. what the merge brought in), renames detected (-M).
 * Paths are repository-relative, verbatim (spaces, non-ASCII and newlines included).
 */
export function changedPaths(sha: string, repo: GitRepo): ChangedPath[] {
  refusesOption("commit", sha);
  const out = gitExec([...DIFF_TREE_NAME_STATUS, "--no-commit-id", "--end-of-options", sha], repo).stdout;
  return readNameStatus(splitNul(out), 0, `git diff-tree ${sha}`).changes;
}

/** `git diff-tree` as changedPaths runs it (the commits named after these options, or on stdin). */
const DIFF_TREE_NAME_STATUS = [
  "diff-tree",
  "-r",
  "-z",
  "--name-status",
  "-M",
  "--root",
  "--diff-merges=first-parent",
] as const;

/** The most bytes of distinct blobs nodeGit reads ahead for one path over a range (see readBlobsAt). */
const PREFETCH_MAX_BYTES = 64 * 1024 * 1024;

/** How many commits one batched git call reads at most. */
const BATCH_COMMITS = 256;

/** A commit's full object name as git prints it in a header (SHA-1 or SHA-256). */
const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * changedPaths of every commit of `shas`, read by one `git diff-tree --stdin` per BATCH_COMMITS commits
 * instead of one process per commit: git prints each commit's name before its paths. A commit that
 * changed nothing is [] (git prints nothing for it).
 */
export function changedPathsOfCommits(shas: readonly string[], repo: GitRepo): Map<string, ChangedPath[]> {
  const found = new Map<string, ChangedPath[]>(shas.map((sha) => [sha, []]));
  for (let from = 0; from < shas.length; from += BATCH_COMMITS) {
    const batch = shas.slice(from, from + BATCH_COMMITS);
    for (const sha of batch) refusesOption("commit", sha);
    const out = gitExec([...DIFF_TREE_NAME_STATUS, "--stdin"], repo, { input: batch.map((s) => `${s}\n`).join("") });
    const parts = splitNul(out.stdout);
    for (let i = 0; i < parts.length;) {
      const sha = parts[i++]!.toString("utf8");
      if (!OBJECT_NAME.test(sha) || !found.has(sha))
        throw new GateError({
          code: "git_failed",
          message: `git diff-tree --stdin: expected a commit of the batch, read ${JSON.stringify(sha.slice(0, 80))}`,
          fix: "report this with `git --version`",
        });
      const read = readNameStatus(parts, i, `git diff-tree ${sha}`, true);
      found.set(sha, read.changes);
      i = read.next;
    }
  }
  return found;
}

/**
 * The status and path fields of `git diff-tree -z --name-status` from parts[start], up to the end or (with
 * `untilHeader`) the next commit's name: a status field is a capital letter and a score, never 40 hex
 * digits, and paths are read in place after their status, so no file name can pass for a header.
 */
function readNameStatus(
  parts: readonly Buffer[],
  start: number,
  context: string,
  untilHeader = false,
): { changes: ChangedPath[]; next: number } {
  const changes: ChangedPath[] = [];
  let i = start;
  while (i < parts.length) {
    const field = parts[i]!.toString("utf8");
    if (untilHeader && OBJECT_NAME.test(field)) break;
    i++;
    const status = field.charAt(0);
    if (!/^[ACDMRTUX]$/.test(status))
      throw new GateError({
        code: "git_failed",
        message: `${context}: unexpected status ${JSON.stringify(field)}`,
        fix: "report this with `git --version`",
      });
    const scoreText = field.slice(1);
    const first = parts[i++];
    if (first === undefined)
      throw new GateError({
        code: "git_failed",
        message: `${context}: output ends after a status`,
        fix: "report this with `git --version`",
      });
    if (status === "R" || status === "C") {
      const second = parts[i++];
      if (second === undefined)
        throw new GateError({
          code: "git_failed",
          message: `${context}: a rename without its new path`,
          fix: "report this with `git --version`",
        });
      changes.push({
        status,
        ...(scoreText ? { score: Number(scoreText) } : {}),
        path: pathText(second, context),
        oldPath: pathText(first, context),
      });
    } else {
      changes.push({ status, path: pathText(first, context) });
    }
  }
  return { changes, next: i };
}

/**
 * The bytes of the file at `path` (repository-relative) in revision `rev`, or undefined when `rev`
 * has no file there (absent, or a folder). A symlink yields its target text, as git stores it. A
 * revision that does not exist is a GateError.
 */
export function readBlobAt(rev: string, path: string, repo: GitRepo, revIsKnown = false): Buffer | undefined {
  refusesOption("revision", rev);
  const spec = `${rev}:${path.replace(/^\.?\//, "")}`;
  const out = gitExec(["cat-file", "blob", spec], repo, { okCodes: [0, 128] });
  if (out.status === 0) return out.stdout;
  // No file there, or no such revision: asked only when the revision was never seen to hold a tree.
  if (!revIsKnown && resolveTree(rev, repo) === undefined) {
    throw new GateError({
      code: "git_failed",
      message: `${rev} is not a revision in this repository (reading ${path})`,
      fix: "fetch it, or check the name",
    });
  }
  return undefined;
}

/**
 * The bytes of `path` at each of `revs` (full object names), as readBlobAt gives them (null: no file
 * there), in two git processes instead of one per revision: `cat-file --batch-check` names the blob at
 * each, then `cat-file --batch` reads each distinct blob once. Undefined when that is not worth it or not
 * safe: a name git's line protocol cannot carry, an answer it does not expect, or more than `maxBytes`
 * of distinct blobs (the caller then reads one revision at a time).
 */
export function readBlobsAt(
  revs: readonly string[],
  path: string,
  repo: GitRepo,
  maxBytes: number,
): Map<string, Buffer | null> | undefined {
  const read = readBlobsOf(
    revs.map((rev) => ({ rev, path })),
    repo,
    maxBytes,
  );
  return read && new Map(revs.map((rev, i) => [rev, read[i]!]));
}

/**
 * The bytes of each (revision, path) pair, in order, as readBlobAt gives them (null: no file there): the
 * reading of {@link readBlobsAt}, for any pairs (the changed files at the head, say). Undefined as there.
 */
export function readBlobsOf(
  pairs: readonly { rev: string; path: string }[],
  repo: GitRepo,
  maxBytes: number,
): (Buffer | null)[] | undefined {
  const names = pairs.map(({ rev, path }) => `${rev}:${path.replace(/^\.?\//, "")}`);
  if (pairs.some(({ rev }, i) => !FULL_SHA.test(rev) || /[\n\r\0]/.test(names[i]!))) return undefined;
  if (pairs.length === 0) return [];
  const check = gitExec(["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], repo, {
    input: names.map((name) => `${name}\n`).join(""),
  })
    .stdout.toString("utf8")
    .split("\n");
  const objectOf: (string | null)[] = [];
  const sizes = new Map<string, number>();
  for (const [i, name] of names.entries()) {
    const line = check[i] ?? "";
    if (line === `${name} missing`) {
      objectOf.push(null);
      continue;
    }
    const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (\w+) (\d+)$/.exec(line);
    if (!m) return undefined;
    if (m[2] !== "blob") {
      objectOf.push(null); // a folder or a submodule: no file, as `cat-file blob` says
      continue;
    }
    objectOf.push(m[1]!);
    sizes.set(m[1]!, Number(m[3]));
  }
  let total = 0;
  for (const size of sizes.values()) total += size;
  if (total > maxBytes) return undefined;
  const blobs = new Map<string, Buffer>();
  if (sizes.size > 0) {
    const objects = [...sizes.keys()];
    const out = gitExec(["cat-file", "--batch"], repo, { input: objects.map((n) => `${n}\n`).join("") }).stdout;
    let at = 0;
    for (const object of objects) {
      const eol = out.indexOf(0x0a, at);
      const header = eol === -1 ? "" : out.subarray(at, eol).toString("utf8");
      const size = sizes.get(object)!;
      if (header !== `${object} blob ${size}`) return undefined;
      blobs.set(object, out.subarray(eol + 1, eol + 1 + size));
      at = eol + 1 + size + 1;
    }
  }
  return objectOf.map((object) => (object === null ? null : blobs.get(object)!));
}

function resolveTree(rev: string, repo: GitRepo): string | undefined {
  const out = gitExec(["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{tree}`], repo, {
    okCodes: [0, 1, 128],
  });
  return out.status === 0 ? out.stdout.toString("utf8").trim() : undefined;
}

/**
 * The text of the file at `path` (repository-relative) in revision `rev`, or undefined when there is
 * no file there. Not UTF-8: a GateError (`file_unreadable`) naming `rev:path`.
 */
export function readFileAt(rev: string, path: string, repo: GitRepo, revIsKnown = false): string | undefined {
  return fileText(rev, path, readBlobAt(rev, path, repo, revIsKnown));
}

/**
 * The names at the root of `rev`'s tree (`git ls-tree -z --name-only`), or undefined when git cannot list
 * them (no such revision: the caller then asks as before, for its own error).
 */
function rootNamesAt(rev: string, repo: GitRepo): Set<string> | undefined {
  refusesOption("revision", rev);
  const out = gitExec(["ls-tree", "-z", "--full-tree", "--name-only", "--end-of-options", rev], repo, {
    okCodes: [0, 128],
  });
  if (out.status !== 0) return undefined;
  // Names exactly as git stores them (a leading BOM kept); a name that is not UTF-8: no listing, and each
  // file is asked for as before.
  try {
    return new Set(splitNul(out.stdout).map((name) => pathUtf8.decode(name)));
  } catch {
    return undefined;
  }
}

/** readFileAt's answer from the bytes read: undefined for no file; not UTF-8 is a GateError. */
function fileText(rev: string, path: string, bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    throw new GateError({
      code: "file_unreadable",
      file: `${rev}:${path}`,
      message: "is not UTF-8 text",
      fix: "write it as UTF-8",
    });
  }
}

/**
 * Every file under `dir` (repository-relative; "" or "." for the whole tree) in revision `rev`,
 * recursively (`git ls-tree -r -z --full-tree`), in git's order (byte order of the path). `dir` is a
 * literal path, not a glob; a missing folder yields []. A missing revision is a GateError.
 */
export function listFilesAt(rev: string, dir: string, repo: GitRepo): TreeEntry[] {
  refusesOption("revision", rev);
  const clean = dir.replace(/^\.\/?/, "").replace(/\/+$/, "");
  const context = `git ls-tree ${rev}`;
  const out = gitExec(
    ["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev, ...(clean ? ["--", clean] : [])],
    repo,
  ).stdout;
  return treeEntries(out, context);
}

/** `ls-tree -r -z` output as entries: read whole when it is plain (treeEntriesAtOnce), else record by record. */
export function treeEntries(out: Buffer, context: string): TreeEntry[] {
  return treeEntriesAtOnce(out) ?? treeEntriesByRecord(out, context);
}

/** `ls-tree -r -z` output, record by record: a record git would not print, or a path not UTF-8, is an error. */
export function treeEntriesByRecord(out: Buffer, context: string): TreeEntry[] {
  return splitNul(out).map((record) => {
    const tab = record.indexOf(0x09);
    const meta = record
      .subarray(0, tab === -1 ? 0 : tab)
      .toString("utf8")
      .split(" ");
    const [mode, type, objectSha] = meta as [string?, string?, string?];
    if (tab === -1 || !mode || !type || !objectSha)
      throw new GateError({
        code: "git_failed",
        message: `${context}: unexpected line ${JSON.stringify(record.toString("utf8"))}`,
        fix: "report this with `git --version`",
      });
    return { path: pathText(record.subarray(tab + 1), context), mode, type, objectSha };
  });
}

/**
 * `ls-tree -r -z` output read as one UTF-8 text: the reading below, without a buffer and a decoding per
 * entry (a monorepo's tree lists 150,000). Undefined when any record is not the plain `MODE TYPE SHA\tPATH`
 * (not UTF-8, a line git does not print): the caller then reads record by record, for the same answer or the
 * same error.
 */
export function treeEntriesAtOnce(out: Buffer): TreeEntry[] | undefined {
  let text: string;
  try {
    text = pathUtf8.decode(out);
  } catch {
    return undefined;
  }
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\0", start);
    if (end === -1) end = text.length;
    const tab = text.indexOf("\t", start);
    if (tab === -1 || tab > end) return undefined;
    const [mode, type, objectSha] = text.slice(start, tab).split(" ");
    const path = text.slice(tab + 1, end);
    if (!mode || !type || !objectSha) return undefined;
    entries.push({ path, mode, type, objectSha });
    start = end + 1;
  }
  return entries;
}

/**
 * Paths whose work-tree state differs from HEAD: tracked files modified, staged, deleted or renamed,
 * and, with `untracked`, files git does not track and does not ignore. Repository-relative.
 */
export function workTreeChanges(repo: GitRepo, options: { untracked: boolean }): string[] {
  const out = gitExec(
    ["status", "--porcelain=v1", "-z", `--untracked-files=${options.untracked ? "all" : "no"}`, "--no-renames"],
    repo,
  ).stdout;
  return splitNul(out)
    .map((entry) => entry.toString("utf8"))
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

/**
 * Every path `git status` shows, untracked files one by one and ignored ones as the pattern matched them
 * (a folder git does not enter ends with `/`): what a step's writes are told from.
 */
export function workTreeStatus(repo: GitRepo): WorkTreeEntry[] {
  const out = gitExec(
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames"],
    repo,
  ).stdout;
  return splitNul(out)
    .filter((entry) => entry.length > 3)
    .map((entry) => {
      const code = entry.subarray(0, 2).toString("latin1");
      const path = pathText(entry.subarray(3), "git status");
      const state = code === "??" ? "untracked" : code === "!!" ? "ignored" : "changed";
      return { path, state };
    });
}

/**
 * Puts tracked files back as HEAD has them, in the index and the work tree (deleted ones included). With
 * `keepIn` (an absolute folder), each changed file that is still a regular file is first copied there under
 * its path, so nothing is lost: the change may be a person's edit made while the steps ran.
 */
export function restoreTracked(paths: readonly string[], repo: GitRepo, keepIn?: string): void {
  if (paths.length === 0) return;
  if (keepIn !== undefined) {
    for (const path of paths) {
      const from = join(repo.cwd, path);
      let regular = false;
      try {
        regular = lstatSync(from).isFile();
      } catch {
        regular = false;
      }
      if (!regular) continue;
      const to = join(keepIn, path);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    }
  }
  gitExec(["checkout", "-q", "HEAD", "--", ...paths], repo);
}

/** The parents of a commit (full object names), first parent first. */
export function commitParents(sha: string, repo: GitRepo): string[] {
  refusesOption("commit", sha);
  const out = runGit(["rev-list", "--parents", "-n", "1", "--end-of-options", sha], repo).trim().split(" ");
  return out.slice(1);
}

/** The merge-base of two commits, or undefined when they share no history (in this clone). */
export function mergeBase(a: string, b: string, repo: GitRepo): string | undefined {
  refusesOption("commit", a);
  refusesOption("commit", b);
  const out = gitExec(["merge-base", "--end-of-options", a, b], repo, { okCodes: [0, 1] });
  const sha = out.stdout.toString("utf8").trim().split("\n")[0] ?? "";
  return out.status === 0 && sha !== "" ? sha : undefined;
}

/** The paths that differ between two commits, without rename detection (each side's own names). */
export function differingPaths(from: string, to: string, repo: GitRepo): Set<string> {
  refusesOption("commit", from);
  refusesOption("commit", to);
  const out = runGit(["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--end-of-options", from, to], repo);
  return new Set(out.split("\0").filter(Boolean));
}

/**
 * Who wrote each line of `path` at `head`, over the range base..head (`git blame --porcelain`, following
 * the file's renames): the commit for a line the range wrote, none for a line that predates the base.
 */
export function blameRange(range: Pick<GitRange, "base" | "head">, path: string, repo: GitRepo): BlameLine[] {
  refusesOption("base", range.base);
  refusesOption("head", range.head);
  const context = `git blame ${range.head} -- ${path}`;
  const out = gitExec(["blame", "--porcelain", `${range.base}..${range.head}`, "--", path], repo).stdout;
  let text: string;
  try {
    text = utf8.decode(out);
  } catch {
    throw new GateError({
      code: "file_unreadable",
      file: `${range.head}:${path}`,
      message: "is not UTF-8 text",
      fix: "write it as UTF-8",
    });
  }
  const boundary = new Set<string>();
  const lines: BlameLine[] = [];
  let current: { sha: string; line: number } | undefined;
  let seen = "";
  for (const row of text.split("\n")) {
    const header = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) \d+ (\d+)(?: \d+)?$/.exec(row);
    if (header) {
      current = { sha: header[1]!, line: Number(header[2]) };
      seen = header[1]!;
    } else if (row === "boundary" && seen) {
      boundary.add(seen);
    } else if (row.startsWith("\t")) {
      if (!current)
        throw new GateError({
          code: "git_failed",
          message: `${context}: a line without its commit`,
          fix: "report this with `git --version`",
        });
      lines.push({ line: current.line, text: row.slice(1), sha: current.sha });
      current = undefined;
    }
  }
  return lines.map((l) => (boundary.has(l.sha!) ? { line: l.line, text: l.text } : l));
}

/** The first line of a signature, as each signing format writes it. */
const SIGNATURE_FORMATS: readonly [string, SignatureFormat][] = [
  ["-----BEGIN SSH SIGNATURE-----", "ssh"],
  ["-----BEGIN PGP SIGNATURE-----", "openpgp"],
  ["-----BEGIN PGP MESSAGE-----", "openpgp"],
  ["-----BEGIN SIGNED MESSAGE-----", "x509"],
];

/** The signature kind of each commit, from its object's `gpgsig` header (one `git cat-file --batch`). */
function signatureFormats(shas: readonly string[], repo: GitRepo): Map<string, SignatureFormat> {
  const out = gitExec(["cat-file", "--batch"], repo, { input: shas.map((sha) => `${sha}\n`).join("") }).stdout;
  const formats = new Map<string, SignatureFormat>();
  let at = 0;
  for (const sha of shas) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString("utf8").split(" ");
    if (eol < 0 || header[1] !== "commit" || header[0] !== sha)
      throw new GateError({
        code: "git_failed",
        message: `git cat-file --batch: ${sha} is not a commit (${header.join(" ")})`,
        fix: "fetch the whole history of the patch",
      });
    const size = Number(header[2]);
    const body = out.subarray(eol + 1, eol + 1 + size).toString("utf8");
    at = eol + 1 + size + 1;
    const headers = body.slice(0, body.indexOf("\n\n") < 0 ? body.length : body.indexOf("\n\n"));
    const sig = /^gpgsig(?:-sha256)? (.*)$/m.exec(headers)?.[1]?.trim();
    formats.set(
      sha,
      sig === undefined ? "none" : (SIGNATURE_FORMATS.find(([first]) => sig === first)?.[1] ?? "unknown"),
    );
  }
  return formats;
}

/**
 * Each commit's signature (see `GitPort.signatureChecks`). SSH signatures are checked by git with
 * `allowedSigners` written to a temporary file (`gpg.ssh.allowedSignersFile`) and `ssh-keygen` from PATH;
 * the OpenPGP and X.509 programs are set to `false`, so the machine's keyrings never vouch.
 */
export function signatureChecks(shas: readonly string[], allowedSigners: string, repo: GitRepo): SignatureCheck[] {
  for (const sha of shas) refusesOption("commit", sha);
  if (shas.length === 0) return [];
  const formats = signatureFormats(shas, repo);
  const ssh = shas.filter((sha) => formats.get(sha) === "ssh");
  const verdicts = new Map<string, { status: string; principals: string; key: string }>();
  if (ssh.length > 0) {
    const probe = spawnSync("ssh-keygen", ["-Y", "help"], { env: gitEnv(repo.env), windowsHide: true });
    if ((probe.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
      throw new GateError({
        code: "git_failed",
        message: "ssh-keygen is not on PATH: git needs it to verify SSH-signed commits ([agents] human_signatures)",
        fix: "install OpenSSH's client (ssh-keygen, OpenSSH 8.2 or later) where proofgate runs",
      });
    const dir = mkdtempSync(join(tmpdir(), "proofgate-signers-"));
    try {
      const file = join(dir, "allowed_signers");
      writeFileSync(file, allowedSigners.endsWith("\n") ? allowedSigners : `${allowedSigners}\n`);
      const fields = ["%H", "%G?", "%GS", "%GK"];
      const out = gitExec(
        [
          "-c",
          `gpg.ssh.allowedSignersFile=${file}`,
          "-c",
          "gpg.ssh.program=ssh-keygen",
          "-c",
          "gpg.program=false",
          "-c",
          "gpg.openpgp.program=false",
          "-c",
          "gpg.x509.program=false",
          "log",
          "-z",
          "--no-walk=unsorted",
          `--format=${fields.join("%x00")}`,
          "--end-of-options",
          ...ssh,
          "--",
        ],
        repo,
      ).stdout;
      const parts = splitNul(out).map((b) => b.toString("utf8"));
      if (parts.length !== ssh.length * fields.length)
        throw new GateError({
          code: "git_failed",
          message: `git log printed ${parts.length} signature fields for ${ssh.length} commits`,
          fix: "report this with `git --version`",
        });
      for (let i = 0; i < parts.length; i += fields.length) {
        const [sha, status, principals, key] = parts.slice(i, i + fields.length) as [string, string, string, string];
        verdicts.set(sha, { status, principals, key });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return shas.map((sha): SignatureCheck => {
    const format = formats.get(sha) ?? "none";
    const v = verdicts.get(sha);
    return v
      ? { sha, format, status: v.status, principals: v.principals || undefined, key: v.key || undefined }
      : { sha, format };
  });
}

/** The folder name of a base worktree: `proofgate-base-<pid of the gate that made it>-<random>`. */
const WORKTREE_NAME = /^proofgate-base-(\d+)-[A-Za-z0-9]{6}$/;

/** Worktrees this process made and has not removed yet, each with what undoes it on a signal. */
const ownWorktrees = new Map<string, () => void>();

/**
 * A detached checkout of `rev` in a new temp folder outside the repository (`git worktree add --detach`),
 * for running the base's own commands on the base's files. Returns its absolute path. Stale worktrees of
 * earlier gates (their process gone) are removed first, and this one is removed on a signal or exit.
 */
export function addWorktree(rev: string, repo: GitRepo, options: { linkNodeModules?: boolean } = {}): string {
  refusesOption("revision", rev);
  pruneStaleWorktrees(repo);
  // Its real path (a temp folder behind a symlink, macOS's /var): what its steps' processes see as the
  // current folder, and what the base's files are said to be under (base-tests.ts writes it as the root).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `proofgate-base-${process.pid}-`)));
  ownWorktrees.set(
    dir,
    cleanupOnExit(() => removeWorktree(dir, repo)),
  );
  try {
    gitExec(["worktree", "add", "--detach", "--quiet", dir, rev], repo);
    if (options.linkNodeModules !== false) {
      const top = gitExec(["rev-parse", "--show-toplevel"], repo).stdout.toString("utf8").trim();
      if (top !== "") {
        linkNodeModules(dir, top);
        linkVirtualEnvironments(dir, top);
      }
    }
  } catch (error) {
    removeWorktree(dir, repo);
    throw error;
  }
  return dir;
}

/**
 * A JavaScript project's installed packages are not tracked, so the base's worktree has none: the work
 * tree's (`top`, its root) `node_modules` is linked into it (when the base tracks no `node_modules` of its own),
 * so the base's `npx vitest list` runs with the same vitest as the head's.
 */
function linkNodeModules(dir: string, top: string): void {
  const installed = join(top, "node_modules");
  const target = join(dir, "node_modules");
  if (!existsSync(installed) || existsSync(target)) return;
  if (!statSync(installed).isDirectory()) return;
  symlinkSync(installed, target, "dir");
}

/**
 * A Python project's virtual environment in the work tree (a folder at its root holding `pyvenv.cfg`, such as
 * an ignored `.venv`) is not tracked either: linked into the worktree under its name (when the base has no
 * such path), so a command that names it (`.venv/bin/python -m pytest`, as init writes for one) runs at the
 * base with the same interpreter and packages. The base's steps still import the base's own code: an
 * editable install's path into the work tree is moved to the worktree's (base-imports.ts).
 */
function linkVirtualEnvironments(dir: string, top: string): void {
  let names: string[];
  try {
    names = readdirSync(top);
  } catch {
    return;
  }
  for (const name of names) {
    const installed = join(top, name);
    const target = join(dir, name);
    if (name === ".git" || existsSync(target) || !existsSync(join(installed, "pyvenv.cfg"))) continue;
    if (!statSync(installed).isDirectory()) continue;
    symlinkSync(installed, target, "dir");
  }
}

/**
 * Removes a worktree made by addWorktree, whatever its state (untracked files included), and git's note
 * of it. Never throws: a failure to clean up must not hide the gate's answer.
 */
export function removeWorktree(dir: string, repo: GitRepo): void {
  ownWorktrees.get(dir)?.();
  ownWorktrees.delete(dir);
  try {
    gitExec(["worktree", "remove", "--force", "--force", dir], repo, { okCodes: [0, 1, 128] });
  } catch {
    // git missing or killed: the folder and the prune below still run.
  }
  rmSync(dir, { recursive: true, force: true });
  try {
    gitExec(["worktree", "prune"], repo, { okCodes: [0, 1, 128] });
  } catch {
    // Nothing left to do: `git worktree prune` later removes the stale note.
  }
}

/**
 * The worktrees in `git worktree list --porcelain` output that an earlier gate made and left (killed
 * with SIGKILL, the machine stopped): named like addWorktree's, in one of `tempDirs`, made by a process
 * that `alive` says is gone. Anything else, the user's own worktrees above all, is never named.
 */
export function staleGateWorktrees(
  porcelain: string,
  tempDirs: readonly string[],
  alive: (pid: number) => boolean,
): string[] {
  const stale: string[] = [];
  for (const line of porcelain.split("\n")) {
    if (!line.startsWith("worktree ")) continue;
    const path = line.slice("worktree ".length);
    const name = basename(path);
    const owner = WORKTREE_NAME.exec(name);
    if (!owner || !tempDirs.includes(dirname(path))) continue;
    const pid = Number(owner[1]);
    if (pid !== process.pid && !alive(pid)) stale.push(path);
  }
  return stale;
}

/** The paths of `git worktree list --porcelain` output. */
export function worktreePaths(porcelain: string): string[] {
  return porcelain
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

/** Whether a process with this id exists (one of another user's counts: it is not ours to judge). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `git worktree prune`, then removes the base worktrees earlier gates left (staleGateWorktrees). Never throws. */
export function pruneStaleWorktrees(repo: GitRepo): string[] {
  try {
    gitExec(["worktree", "prune"], repo, { okCodes: [0, 1, 128] });
    const list = gitExec(["worktree", "list", "--porcelain"], repo).stdout.toString("utf8");
    const temp = tmpdir();
    const tempDirs = [temp, realpathOr(temp)];
    const stale = staleGateWorktrees(list, tempDirs, processAlive);
    for (const dir of stale) removeWorktree(dir, repo);
    return stale;
  } catch {
    // A prune that fails leaves what it found; the gate's own worktree is a new folder either way.
    return [];
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * `read` remembered per full object name: what a commit holds never changes, and several sources of one
 * evaluation read the same files (pytest's and coverage.py's settings at the base), the same commits'
 * added lines and trees, and blame the same changed files (the measurement rules and shipped_code_replaced).
 * A ref (HEAD, a branch) can move, so it is read afresh every time.
 */
function byCommit<T>(read: (rev: string, key: string) => T): (rev: string, key: string) => T {
  const known = new Map<string, T>();
  return (rev, key) => {
    if (!FULL_SHA.test(rev)) return read(rev, key);
    const id = `${rev}\0${key}`;
    if (!known.has(id)) known.set(id, read(rev, key));
    return known.get(id) as T;
  };
}

/** The git port on this machine's git, in `repo`. */
export function nodeGit(repo: GitRepo): GitPort {
  // The commits of the ranges listed so far, and their parents: the rules read the same things at each of
  // them (the paths each changed, its added lines, the ledger at it and at its parent), so a read at one
  // of them reads all of them at once, in one or two git processes instead of one per commit.
  const rangeCommits = new Set<string>();
  const rangeRevisions = new Set<string>();
  const paths = new Map<string, ChangedPath[]>();
  const addedBySha = new Map<string, AddedFile[]>();
  const prefetched = new Map<string, Buffer | null>();
  const notPrefetched = new Set<string>();
  const readsInRange = new Map<string, number>();
  // A commit's root folder, listed once: the settings files looked for at the root (pytest.ini, tox.ini,
  // setup.cfg, .coveragerc, ...) are mostly absent, and each absent one took two git processes to tell.
  const rootNames = byCommit((rev) => rootNamesAt(rev, repo) ?? null);
  const fileAt = byCommit((rev, path) => {
    const key = `${rev}\0${path}`;
    const clean = path.replace(/^\.?\//, "");
    // A file read at the base and the head (a setting) is read one at a time; from its third revision of
    // the range on (the ledger at each commit that changed it), at every one of them at once.
    const reads = rangeRevisions.has(rev) ? (readsInRange.get(path) ?? 0) + 1 : 0;
    if (reads > 0) readsInRange.set(path, reads);
    if (!prefetched.has(key) && reads > 2 && !notPrefetched.has(path)) {
      const revs = [...rangeRevisions].filter((r) => !prefetched.has(`${r}\0${path}`));
      const read = readBlobsAt(revs, path, repo, PREFETCH_MAX_BYTES);
      if (read === undefined) notPrefetched.add(path);
      else for (const [r, bytes] of read) prefetched.set(`${r}\0${path}`, bytes);
    }
    const bytes = prefetched.get(key);
    if (bytes !== undefined) {
      prefetched.delete(key); // byCommit keeps the text from here on
      return fileText(rev, path, bytes ?? undefined);
    }
    // Not read with the range's revisions: a name missing from the root is told from the root's listing.
    const root = FULL_SHA.test(rev) ? rootNames(rev, "") : null;
    if (root !== null && !clean.includes("/") && clean !== "" && !root.has(clean)) return undefined;
    return readFileAt(rev, path, repo, root !== null);
  });
  // Keyed by the filter's JSON: each filter is its own question.
  const added = byCommit((sha, key) => {
    const only = key === "" ? undefined : (JSON.parse(key) as AddedLinesFilter);
    const id = `${sha}\0${key}`;
    if (!addedBySha.has(id) && rangeCommits.has(sha)) {
      const missing = [...rangeCommits].filter((c) => !addedBySha.has(`${c}\0${key}`));
      for (const [c, files] of addedLinesOfCommits(missing, repo, only)) addedBySha.set(`${c}\0${key}`, files);
    }
    const files = addedBySha.get(id);
    if (files === undefined) return addedLines(sha, repo, only);
    addedBySha.delete(id);
    return files;
  });
  const changed = (sha: string): ChangedPath[] => {
    if (!FULL_SHA.test(sha) || !rangeCommits.has(sha)) return changedPaths(sha, repo);
    if (!paths.has(sha)) {
      const missing = [...rangeCommits].filter((c) => !paths.has(c));
      for (const [c, found] of changedPathsOfCommits(missing, repo)) paths.set(c, found);
    }
    return paths.get(sha)!;
  };
  const filesAt = byCommit((rev, dir) => listFilesAt(rev, dir, repo));
  const differing = byCommit((to, from) => differingPaths(from, to, repo));
  // A full object name found names the same commit and tree for good (a ref is read afresh each time, and
  // so is a name not found: a fetch may bring it).
  const found = <T>(read: (rev: string) => T | undefined): ((rev: string) => T | undefined) => {
    const known = new Map<string, T>();
    return (rev) => {
      const hit = known.get(rev);
      if (hit !== undefined) return hit;
      const value = read(rev);
      if (value !== undefined) known.set(rev, value);
      return value;
    };
  };
  const commitOf = found((rev) => resolveCommit(rev, repo));
  const treeOfCommit = found((rev) => treeOf(rev, repo));
  // Keyed by head; the base travels in the key, and only a full SHA there makes the answer fixed.
  const blamed = byCommit((head, key) => {
    const cut = key.indexOf("\0");
    return blameRange({ base: key.slice(0, cut), head }, key.slice(cut + 1), repo);
  });
  return {
    resolveRange: (options) => resolveRange({ ...options, repo }),
    listCommits: (range) => {
      const commits = listCommits(range, repo);
      for (const c of commits) {
        if (!FULL_SHA.test(c.sha)) continue;
        rangeCommits.add(c.sha);
        rangeRevisions.add(c.sha);
        for (const p of c.parents) if (FULL_SHA.test(p)) rangeRevisions.add(p);
      }
      return commits;
    },
    changedPaths: changed,
    differingPaths: (from, to) => (FULL_SHA.test(from) ? new Set(differing(to, from)) : differingPaths(from, to, repo)),
    readBlobAt: (rev, path) => readBlobAt(rev, path, repo),
    readFileAt: (rev, path) => fileAt(rev, path),
    prefetchFilesAt: (rev, paths) => {
      // Only at a commit of a range listed (one known to exist: a name git does not know is readFileAt's error).
      if (!rangeRevisions.has(rev)) return;
      // A name git's lines cannot carry is read alone, as before.
      const wanted = paths.filter((path) => !prefetched.has(`${rev}\0${path}`) && !/[\n\r\0]/.test(path));
      const read = readBlobsOf(
        wanted.map((path) => ({ rev, path })),
        repo,
        PREFETCH_MAX_BYTES,
      );
      if (read) for (const [i, path] of wanted.entries()) prefetched.set(`${rev}\0${path}`, read[i]!);
    },
    listFilesAt: (rev, dir) => filesAt(rev, dir),
    workTreeChanges: (options) => workTreeChanges(repo, options),
    workTreeStatus: () => workTreeStatus(repo),
    restoreTracked: (paths, keepIn) => restoreTracked(paths, repo, keepIn),
    commitParents: (sha) => commitParents(sha, repo),
    isAncestor: (ancestor, descendant) => isAncestor(ancestor, descendant, repo),
    mergeBase: (a, b) => mergeBase(a, b, repo),
    resolveCommit: (ref) => (FULL_SHA.test(ref) ? commitOf(ref) : resolveCommit(ref, repo)),
    treeOf: (rev) => (FULL_SHA.test(rev) ? treeOfCommit(rev) : treeOf(rev, repo)),
    signatureChecks: (shas, allowedSigners) => signatureChecks(shas, allowedSigners, repo),
    addedLines: (sha, only) =>
      added(sha, only === undefined ? "" : JSON.stringify({ suffixes: only.suffixes, paths: only.paths })),
    rangeDiff: (base, head, relative) => rangeDiff(base, head, repo, relative),
    blame: (range, path) =>
      FULL_SHA.test(range.base) ? blamed(range.head, `${range.base}\0${path}`) : blameRange(range, path, repo),
    addWorktree: (rev, options) => addWorktree(rev, repo, options),
    removeWorktree: (dir) => removeWorktree(dir, repo),
    listWorktrees: () => worktreePaths(gitExec(["worktree", "list", "--porcelain"], repo).stdout.toString("utf8")),
  };
}

/**
 * The diff of two commits' trees, hunks without context, renames paired (`-M`): the lines base..head
 * added, for patch coverage. Every setting that changes the text is pinned on the command line (prefixes,
 * no external diff or textconv, no `diff.relative`), and core.quotePath is on, so each name outside ASCII
 * comes as octal bytes the reader checks for UTF-8.
 */
export function rangeDiff(base: string, head: string, repo: GitRepo, relative?: string): string {
  refusesOption("base", base);
  refusesOption("head", head);
  // A package's part (`check --root`): only its files, named as the package names them.
  const dir = relative?.replace(/^\.\/+/, "").replace(/\/+$/, "");
  return runGit(
    [
      "-c",
      "core.quotepath=on",
      "diff",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      dir ? `--relative=${dir}/` : "--no-relative",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      "--unified=0",
      "-M",
      "--end-of-options",
      base,
      head,
      "--",
    ],
    repo,
  );
}

/** A path as `git diff` prints it: verbatim, or C-quoted (`"a\tb"`, octal bytes) when it holds special characters. */
function diffPath(text: string): string {
  if (!text.startsWith('"')) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      bytes.push(...Buffer.from(ch, "utf8"));
      continue;
    }
    const next = body[++i]!;
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else
      bytes.push(
        ({ n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11 } as Record<string, number>)[next] ?? next.charCodeAt(0),
      );
  }
  return Buffer.from(bytes).toString("utf8");
}

/**
 * The lines commit `sha` added, per file, against its first parent (the root commit: every line), with
 * their line numbers at `sha`. Binary files and deletions add none.
 */
export function addedLines(sha: string, repo: GitRepo, only?: AddedLinesFilter): AddedFile[] {
  refusesOption("commit", sha);
  const specs = pathspecsOf(only);
  if (specs?.length === 0) return [];
  const out = runGit([...SHOW_ADDED, "--format=", "--end-of-options", sha, "--", ...(specs ?? [])], repo, {
    pathspecMagic: specs !== undefined,
  });
  return keptFiles(parseAddedLines(out), only);
}

/** The pathspecs of a filter (undefined: every file; []: none). */
function pathspecsOf(only: AddedLinesFilter | undefined): string[] | undefined {
  if (only === undefined) return undefined;
  for (const suffix of only.suffixes ?? [])
    if (!/^[\w.-]+$/.test(suffix))
      throw new Error(`addedLines: a suffix must be letters, digits, - and ., not ${suffix}`);
  return [
    ...(only.suffixes ?? []).map((suffix) => `:(glob)**/*${suffix}`),
    ...(only.paths ?? []).map((path) => `:(literal)${path}`),
  ];
}

/** The files the filter names, by the same test in JavaScript as the pathspecs ask git for. */
function keptFiles(files: AddedFile[], only: AddedLinesFilter | undefined): AddedFile[] {
  if (only === undefined) return files;
  const paths = new Set(only.paths ?? []);
  const suffixes = only.suffixes ?? [];
  return files.filter((f) => paths.has(f.path) || suffixes.some((s) => f.path.endsWith(s)));
}

/** A file's added lines, with their line numbers in the commit. */
type AddedFile = { path: string; lines: { line: number; text: string }[] };

/** `git show` as addedLines runs it. */
const SHOW_ADDED = [
  "show",
  "--no-color",
  "--no-ext-diff",
  "--no-renames",
  "-U0",
  "--diff-merges=first-parent",
] as const;

/**
 * addedLines of every commit of `shas`, by one `git show` per BATCH_COMMITS commits instead of one per
 * commit: each commit's diff follows a line of a NUL and its name, which no diff line can start with.
 */
export function addedLinesOfCommits(
  shas: readonly string[],
  repo: GitRepo,
  only?: AddedLinesFilter,
): Map<string, AddedFile[]> {
  const found = new Map<string, AddedFile[]>();
  const specs = pathspecsOf(only);
  if (specs?.length === 0) return new Map(shas.map((sha) => [sha, []]));
  for (let from = 0; from < shas.length; from += BATCH_COMMITS) {
    const batch = shas.slice(from, from + BATCH_COMMITS);
    for (const sha of batch) refusesOption("commit", sha);
    const out = runGit([...SHOW_ADDED, "--format=%x00%H", "--end-of-options", ...batch, "--", ...(specs ?? [])], repo, {
      pathspecMagic: specs !== undefined,
    });
    const starts = [...out.matchAll(/^\0([0-9a-f]+)$/gm)];
    starts.forEach((m, k) => {
      const end = k + 1 < starts.length ? starts[k + 1]!.index : out.length;
      found.set(m[1]!, keptFiles(parseAddedLines(out.slice(m.index + m[0].length, end)), only));
    });
    // With pathspecs git leaves out a commit that changed none of those files: it added no line there.
    if (specs !== undefined) for (const sha of batch) if (!found.has(sha)) found.set(sha, []);
    const missing = batch.find((sha) => !found.has(sha));
    if (missing !== undefined)
      throw new GateError({
        code: "git_failed",
        message: `git show over ${batch.length} commits printed nothing for ${missing}`,
        fix: "report this with `git --version`",
      });
  }
  return found;
}

/** The added lines of `git show -U0` output, per file (see addedLines). */
function parseAddedLines(out: string): AddedFile[] {
  const files: AddedFile[] = [];
  let current: AddedFile | undefined;
  let next = 0;
  // Inside a hunk, its counts say how many old and new lines are still to come: an added line that reads
  // `++ x` (`+++ x` in the diff) is a line of the file, never a header that would move what follows it to
  // another file (out of sight of the scans that read only .py files).
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of out.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (raw.startsWith("+")) {
        newLeft--;
        current?.lines.push({ line: next++, text: raw.slice(1) });
      } else if (raw.startsWith("-")) oldLeft--;
      else if (raw.startsWith(" ")) {
        oldLeft--;
        newLeft--;
        next++;
      }
      // `\ No newline at end of file` counts for neither side.
      continue;
    }
    if (raw.startsWith("+++ ")) {
      const name = raw.slice(4);
      current = name === "/dev/null" ? undefined : { path: diffPath(name).replace(/^b\//, ""), lines: [] };
      if (current) files.push(current);
    } else if (raw.startsWith("@@ ")) {
      const m = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(raw);
      if (!m)
        throw new GateError({
          code: "git_failed",
          message: `git show printed a hunk header the gate cannot read: ${JSON.stringify(raw.slice(0, 80))}`,
          fix: "check the git on PATH (2.x) and its diff settings",
        });
      oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      next = Number(m[2]);
      newLeft = m[3] === undefined ? 1 : Number(m[3]);
    }
  }
  return files.filter((f) => f.lines.length > 0);
}

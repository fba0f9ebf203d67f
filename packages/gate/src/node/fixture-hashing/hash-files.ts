import { lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import { availableParallelism } from "node:os";
import { posix } from "node:path";
import type { Worker } from "node:worker_threads";
import type { GateIssue } from "@proofgate/core/errors";
import {
  compareUtf8,
  fixturePathProblem,
  formatFixturesLock,
  sortFixtureEntries,
  type FixtureDigest,
} from "@proofgate/core/fixtures-lock";
import { hashBatch } from "./hash-batch.js";
import { PATH_SEPARATOR, type HashJob, type HashReply, type HashRequest, type PathGroup } from "./hash-protocol.js";
import { HASH_WORKER_URL, hashWorkers } from "./hash-workers.js";

/** How the fixture tree is walked and hashed. */
export interface HashFixturesOptions {
  /** Hash a symlink to a file as its target's content (what `sha256sum -c` reads). Default: a symlink is an error. */
  allowSymlinks?: boolean | undefined;
  /** Names with a backslash, newline or carriage return. Default: an error. */
  allowSpecialNames?: boolean | undefined;
  /** Repo-relative paths to leave out (the lock itself, when it lies under a fixture path). */
  exclude?: readonly string[] | undefined;
  /** Hashing threads, the main thread included (it hashes between its other work); default `os.availableParallelism()`. */
  threads?: number | undefined;
  /** The worker script; default `hash-worker.js` beside this module (dist/ in the bundle). */
  workerUrl?: URL | undefined;
  /** Read buffer per worker, in bytes; default 1 MiB. */
  bufferSize?: number | undefined;
}

/** The tree's digests, in UTF-8 byte order of the path, or what kept a file from being hashed. */
export interface HashFixturesResult {
  /** The digests in UTF-8 byte order of the path; built on first use (not needed to write a new lock). */
  readonly entries: FixtureDigest[];
  /** How many files were hashed: `entries.length`. */
  files: number;
  /** The lock of `entries` (`formatFixturesLock`) in UTF-8, in pieces (a batch's lines each). */
  lock: Uint8Array[];
  errors: GateIssue[];
}

const SPECIAL_FIX = "rename it, or allow such names in proofgate.toml ([fixtures] allow_special_names = true)";
const SYMLINK_FIX =
  "replace the symlink with the file it points to (or remove it), or allow symlinks in proofgate.toml ([fixtures] allow_symlinks = true)";

/** A configured fixture path in canonical repo-relative form ("" for the root), or the problem with it. */
export function normalizeFixturePath(path: string): { path: string } | { problem: string } {
  const slashed = path.replace(/\/+$/, "") || path;
  if (slashed.startsWith("/")) return { problem: "is absolute: fixture paths are relative to the repo root" };
  const normal = posix.normalize(slashed);
  if (normal === ".") return { path: "" };
  const problem = fixturePathProblem(normal, { allowSpecialNames: true });
  return problem
    ? { problem: `is not a path inside the repo (${problem.replace(/^the path /, "")})` }
    : { path: normal };
}

/** A batch as the pool keeps it: its files (as sent), and the worker's answer once it came. */
interface HashedBatch {
  groups: PathGroup[];
  size: number;
  digests?: Uint8Array;
  lines?: Uint8Array;
}

/** The files of a batch, as repo-relative paths. */
const batchFiles = (batch: HashedBatch): string[] =>
  batch.groups.flatMap((g) => g.names.split(PATH_SEPARATOR).map((name) => g.folder + name));

/** A folder's run of files queued for hashing: `names` from `from` on are not sent yet. */
interface QueuedRun {
  folder: string;
  names: readonly string[];
  from: number;
}

/** The folder of a repo-relative path as a batch names it: "" for the root, else ending in `/`. */
const folderOf = (rel: string): string => rel.slice(0, rel.lastIndexOf("/") + 1);

/** How many files the walk may find ahead of the workers: a few batches each. */
const ROOM = 2048;

/**
 * A pool of hash workers fed with batches of files; see `hashFixtures`. The files come as runs of one
 * folder each, and travel as the folder and its names joined in one string: the main thread neither
 * builds 100,000 path strings nor keeps them, so its heap stays small, and so does the garbage
 * collection that competes with the workers for the cores. The main thread hashes batches too, one at a
 * time between the walk and the workers' answers: with `threads` hashing threads, `threads - 1` are
 * workers, so no worker's start-up (~80 ms of CPU) is spent on a core the main thread could use.
 */
class HashPool {
  private readonly workers: Worker[] = [];
  private readonly inFlight = new Map<number, { batch: HashedBatch; worker: Worker }>();
  private readonly load = new Map<Worker, number>();
  private nextId = 0;
  /** Runs found and not yet sent in full, from `head` on; `queued` files in all. */
  private queue: QueuedRun[] = [];
  private head = 0;
  private queued = 0;
  private walkDone = false;
  /** The walk, waiting for the queue to run low (`room`). */
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private settle: (() => void) | undefined;
  private stopping = false;
  /** A batch for the main thread is scheduled (`hashHere`). */
  private hereScheduled = false;
  /** Every batch sent or hashed here, in walk order. */
  readonly batches: HashedBatch[] = [];
  readonly errors: GateIssue[] = [];

  constructor(
    url: URL,
    private readonly job: HashJob,
    threads: number,
  ) {
    for (const worker of hashWorkers(url, threads - 1)) {
      this.workers.push(worker);
      this.load.set(worker, 0);
      worker.on("message", (reply: HashReply) => this.onReply(worker, reply));
      worker.on("error", (error) => {
        this.failure ??= new Error(`a hash worker failed (${url.href}): ${error.message}`, { cause: error });
        this.stalled();
      });
      // A worker that exits before the pool stops it would leave its batches unanswered: fail, never hang.
      worker.on("exit", (code) => {
        if (this.stopping) return;
        this.failure ??= new Error(`a hash worker exited early with code ${code} (${url.href})`);
        this.stalled();
      });
    }
  }

  /** Queues a folder's files (`folder` is "" or ends in `/`) and hands work to idle workers. */
  add(folder: string, names: readonly string[]): void {
    if (names.length === 0) return;
    this.queue.push({ folder, names, from: 0 });
    this.queued += names.length;
    this.pump();
  }

  /**
   * Resolves once fewer than `ROOM` files wait to be sent (at once if they do already). The walk reads
   * a folder only then: it stays a few batches ahead of the workers instead of listing the whole tree
   * first, so the main thread holds few names, and its garbage collection, which competes with the
   * workers for the cores, has little to copy.
   */
  room(): Promise<void> {
    if (this.queued < ROOM || this.failure) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** The walk is over: hash what is left, then stop the workers. */
  async finish(): Promise<void> {
    this.walkDone = true;
    this.pump();
    if (!this.failure && (this.inFlight.size > 0 || this.queued > 0)) {
      await new Promise<void>((resolve) => {
        this.settle = resolve;
      });
    }
    this.stopping = true;
    // Every batch is answered: the workers are idle. Their stop is not waited for (it took 5-15 ms of the
    // lock on 20,000 files, BENCHMARKS.md issue 25 item 3), and they no longer keep the process alive.
    for (const worker of this.workers) {
      worker.unref();
      void worker.terminate();
    }
    if (this.failure) throw this.failure;
  }

  /** Stops early (the walk found a problem): nothing more is dispatched. */
  async abort(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  /** A worker failed: nothing waits for it any more (the walk goes on to its end, `finish` throws). */
  private stalled(): void {
    this.settle?.();
    this.wakeWalk();
  }

  /** Lets the walk go on (`room`). */
  private wakeWalk(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** The next `size` queued files, as runs of one folder each. */
  private take(size: number): PathGroup[] {
    const groups: PathGroup[] = [];
    for (let left = size; left > 0;) {
      const run = this.queue[this.head]!;
      const n = Math.min(left, run.names.length - run.from);
      const names = n === run.names.length ? run.names : run.names.slice(run.from, run.from + n);
      groups.push({ folder: run.folder, names: names.join(PATH_SEPARATOR) });
      run.from += n;
      left -= n;
      if (run.from === run.names.length) this.head++;
    }
    this.queued -= size;
    // Let go of the runs sent: the walk usually runs ahead, and the queue would hold every name.
    if (this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return groups;
  }

  /**
   * How many files the next batch gets, or 0 to wait for more. While the walk runs, up to 256; then
   * guided: a share of what is left, so the last batches are small and the threads finish together.
   */
  private batchSize(): number {
    if (this.walkDone) return Math.max(1, Math.min(256, Math.floor(this.queued / ((this.workers.length + 1) * 4))));
    // A small batch only when the workers have nothing to do; else the walk will find more files.
    return this.queued >= 32 || this.inFlight.size < this.workers.length ? Math.min(256, this.queued) : 0;
  }

  private pump(): void {
    for (const worker of this.workers) {
      // Two batches in flight per worker, so a worker never waits for the main thread between batches.
      while ((this.load.get(worker) ?? 0) < 2 && this.queued > 0) {
        const size = this.batchSize();
        if (size === 0) return;
        const batch: HashedBatch = { groups: this.take(size), size };
        const request: HashRequest = { id: this.nextId++, job: this.job, groups: batch.groups };
        this.batches.push(batch);
        this.inFlight.set(request.id, { batch, worker });
        this.load.set(worker, (this.load.get(worker) ?? 0) + 1);
        worker.postMessage(request);
      }
    }
    if (this.queued > 0 && !this.hereScheduled && !this.stopping && !this.failure) {
      this.hereScheduled = true;
      setImmediate(() => this.hashHere());
    }
  }

  /** The main thread's turn: one batch, hashed here; then the event loop runs (the walk, the workers' answers). */
  private hashHere(): void {
    this.hereScheduled = false;
    if (this.stopping || this.failure || this.queued === 0) return;
    const size = this.batchSize();
    if (size === 0) return;
    const batch: HashedBatch = { groups: this.take(size), size };
    this.batches.push(batch);
    try {
      this.record(batch, hashBatch({ id: -1, job: this.job, groups: batch.groups }));
    } catch (error) {
      this.failure ??= new Error(`hashing failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
      this.stalled();
      return;
    }
    this.answered();
  }

  private onReply(worker: Worker, reply: HashReply): void {
    const sent = this.inFlight.get(reply.id);
    if (!sent) return;
    this.inFlight.delete(reply.id);
    this.load.set(worker, (this.load.get(worker) ?? 1) - 1);
    this.record(sent.batch, reply);
    this.answered();
  }

  /** A batch's answer, kept. */
  private record(batch: HashedBatch, reply: HashReply): void {
    batch.digests = reply.digests;
    batch.lines = reply.lines;
    if (reply.errors.length > 0) {
      const files = batchFiles(batch);
      for (const e of reply.errors) this.errors.push(hashIssue(files[e.index]!, e.code));
    }
  }

  /** After a batch's answer: more work out, the walk woken when there is room, the end when all is done. */
  private answered(): void {
    this.pump();
    if (this.queued < ROOM) this.wakeWalk();
    if (this.walkDone && this.inFlight.size === 0 && this.queued === 0) this.settle?.();
  }
}

function hashIssue(file: string, code: string): GateIssue {
  if (code === "ELOOP")
    return {
      code: "fixtures_invalid",
      file,
      message: "is a symlink (it was replaced while proofgate hashed the fixtures)",
      fix: SYMLINK_FIX,
    };
  const message =
    code === "ENOENT"
      ? "disappeared while proofgate hashed the fixtures"
      : code === "EAGAIN" || code === "EISDIR" || code === "ENOTREG"
        ? "is not a regular file any more (it changed while proofgate hashed the fixtures)"
        : `cannot be read: ${code}`;
  return { code: "file_unreadable", file, message, fix: "check the file and run again" };
}

// A name that needs a closer look: a backslash, newline or CR (refused unless allowed), or U+FFFD
// (what readdir gives for bytes that are not UTF-8).
const SUSPECT_NAME = /[\\\n\r\uFFFD]/;
/** Half of a UTF-16 surrogate pair: a character above U+FFFF, where UTF-16 and UTF-8 order differ. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Walks the fixture paths (files or folders, relative to `root`) and hashes every file with sha256 in
 * a pool of worker threads (`threads`, default `os.availableParallelism()`), while the walk goes on.
 * Each worker streams a file through one reused buffer, so memory stays bounded whatever the sizes.
 *
 * The walk follows no symlink: an entry's type comes from `readdir` (the `lstat` type), and a symlink
 * is an error naming it unless `allowSymlinks` (then a symlink to a file is hashed as its target, what
 * `sha256sum -c` reads; one to a folder is still an error); workers open with O_NOFOLLOW. Names with a
 * newline, carriage return or backslash (unless `allowSpecialNames`), names that are not UTF-8, and
 * FIFOs, sockets and devices are errors. Folders named `.git` are skipped, and so is `exclude`.
 * Returns the entries in UTF-8 byte order of the path, or the errors (then no entries).
 */
export async function hashFixtures(
  root: string,
  paths: readonly string[],
  options: HashFixturesOptions = {},
): Promise<HashFixturesResult> {
  const errors: GateIssue[] = [];
  const exclude = new Set(
    (options.exclude ?? []).map((p) => normalizeFixturePath(p)).flatMap((n) => ("path" in n ? [n.path] : [])),
  );
  const abs = (rel: string): string => (rel === "" ? root : `${root}/${rel}`);
  const fail = (file: string, message: string, fix: string, code: GateIssue["code"] = "fixtures_invalid"): void => {
    // A name with a newline or other control character is shown escaped, on one line.
    errors.push({
      code,
      file: file === "" ? "." : /[\u0000-\u001f\u007f]/.test(file) ? JSON.stringify(file).slice(1, -1) : file,
      message,
      fix,
    });
  };
  const pool = new HashPool(
    options.workerUrl ?? HASH_WORKER_URL,
    { root, follow: options.allowSymlinks === true, bufferSize: options.bufferSize ?? 1024 * 1024 },
    Math.max(1, options.threads ?? availableParallelism()),
  );
  // One walk lists each file once; several fixture paths may overlap (tests/fixtures and tests/fixtures/a).
  const seen = paths.length > 1 ? new Set<string>() : undefined;
  // The lock itself may lie under a fixture path: the folders to look for it in.
  const excludedIn = new Set([...exclude].map((rel) => folderOf(rel)));
  let inOrder = true;
  let last: string | undefined;
  let lastAstral = false;
  /**
   * Queues a run of files of one folder (`folder` is "" or ends in `/`), each once, in the order given.
   * A run is sorted (a folder's sorted names, or one file); the runs reach the pool in the order taken,
   * so comparing where they meet tells whether the files came in the lock's order (one fixture path's
   * walk gives it). `<` is UTF-16 order, UTF-8 byte order too unless a path has a character above U+FFFF.
   */
  const take = (folder: string, run: readonly string[]): void => {
    let names = run;
    if (excludedIn.has(folder) || seen) {
      names = run.filter((name) => {
        const rel = folder + name;
        if (exclude.has(rel) || seen?.has(rel)) return false;
        seen?.add(rel);
        return true;
      });
    }
    if (names.length === 0) return;
    const first = folder + names[0]!;
    const firstAstral = SURROGATE.test(first);
    inOrder &&= last === undefined || (firstAstral || lastAstral ? compareUtf8(last, first) < 0 : last < first);
    last = folder + names[names.length - 1]!;
    lastAstral = SURROGATE.test(last);
    if (errors.length === 0) pool.add(folder, names);
  };

  /** Queues a fixture path that is a file: a run of one in its folder. */
  const takeFile = (rel: string): void => {
    const folder = folderOf(rel);
    take(folder, [rel.slice(folder.length)]);
  };

  /** Whether a symlink may be hashed (as its target, a file); otherwise an error names it. */
  const linkToFile = (rel: string): boolean => {
    if (!options.allowSymlinks) {
      fail(
        rel,
        "is a symlink: proofgate does not follow symlinks in fixtures (the lock would hash a file outside them)",
        SYMLINK_FIX,
      );
      return false;
    }
    let target;
    try {
      target = statSync(abs(rel));
    } catch (error) {
      fail(
        rel,
        `is a symlink whose target cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        "fix or remove the symlink",
      );
      return false;
    }
    if (!target.isFile())
      fail(rel, "is a symlink to something other than a file: only symlinks to files can be locked", SYMLINK_FIX);
    return target.isFile();
  };

  /** A name that may not be locked: why, or undefined. */
  const badName = (name: string, notUtf8: () => Set<string>): string | undefined => {
    if (name.includes("\uFFFD") && notUtf8().has(name)) return "the name is not UTF-8";
    if (options.allowSpecialNames) return undefined;
    const problem = fixturePathProblem(name);
    return problem ? `${problem}: \`sha256sum\` escapes such a name, and it is easy to forge in a listing` : undefined;
  };

  /**
   * Walks a folder depth-first in the byte order of the paths: a folder's entries sorted by name, a
   * subfolder's name with its `/` (so `a.txt` comes before `a/`, as in the lock), and each subfolder
   * walked where it sorts. The files then reach the pool in the lock's order, so it needs no sort.
   */
  const walk = async (dir: string): Promise<void> => {
    await pool.room();
    let dirents: Dirent[];
    try {
      // Synchronous: while the workers keep the cores busy, a readdir on libuv's thread pool waits for a
      // core twice (there and back); the walk waits in `room` instead, where the workers need it to.
      dirents = readdirSync(abs(dir), { withFileTypes: true });
    } catch (error) {
      fail(
        dir,
        `cannot read the folder: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        "check its permissions",
        "file_unreadable",
      );
      return;
    }
    let invalid: Set<string> | undefined;
    // readdir decodes names as UTF-8; bytes that are not UTF-8 come back as U+FFFD and cannot be locked.
    const notUtf8 = (): Set<string> =>
      (invalid ??= new Set(
        readdirSync(abs(dir), { encoding: "buffer" })
          .filter((b) => !Buffer.from(b.toString("utf8"), "utf8").equals(b))
          .map((b) => b.toString("utf8")),
      ));
    const prefix = dir === "" ? "" : `${dir}/`;
    /** The names to take in: a file's name, or a folder's name and `/`. */
    const keys: string[] = [];
    let astral = false;
    for (const d of dirents) {
      if (SUSPECT_NAME.test(d.name)) {
        const problem = badName(d.name, notUtf8);
        if (problem) {
          fail(prefix + d.name, problem, problem.includes("UTF-8") ? "rename it with a UTF-8 name" : SPECIAL_FIX);
          continue;
        }
      }
      let key: string | undefined;
      if (d.isFile()) key = d.name;
      else if (d.isDirectory()) key = d.name === ".git" ? undefined : `${d.name}/`;
      else if (d.isSymbolicLink()) key = linkToFile(prefix + d.name) ? d.name : undefined;
      else fail(prefix + d.name, "is not a regular file (a FIFO, socket or device)", "remove it from the fixtures");
      if (key === undefined) continue;
      keys.push(key);
      astral ||= SURROGATE.test(key);
    }
    // The native sort is UTF-16 order, which is UTF-8 byte order unless a name has a character above U+FFFF.
    if (astral) keys.sort(compareUtf8);
    else keys.sort();
    // The files before a subfolder go to the pool before the subfolder's own.
    let from = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.endsWith("/")) continue;
      if (i > from) take(prefix, keys.slice(from, i));
      from = i + 1;
      await walk(prefix + key.slice(0, -1));
    }
    if (from < keys.length) take(prefix, from === 0 ? keys : keys.slice(from));
  };

  try {
    for (const given of paths) {
      const normal = normalizeFixturePath(given);
      if ("problem" in normal) {
        fail(
          given,
          `the fixture path ${normal.problem}`,
          "write it relative to the repo root, e.g. tests/fixtures",
          "usage",
        );
        continue;
      }
      const rel = normal.path;
      let stat;
      try {
        stat = lstatSync(abs(rel));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR")
          fail(
            given,
            "the fixture path does not exist",
            "create it, or set [fixtures] paths in proofgate.toml (or --paths)",
            "file_missing",
          );
        else
          fail(
            given,
            `cannot read the fixture path: ${code ?? String(error)}`,
            "check its permissions",
            "file_unreadable",
          );
        continue;
      }
      // The given path's own folders may be symlinks too (tests -> elsewhere): follow none of them.
      const segments = rel === "" ? [] : rel.split("/");
      let linked: string | undefined;
      for (let i = 1; i < segments.length && !linked; i++) {
        const prefix = segments.slice(0, i).join("/");
        if (lstatSync(abs(prefix)).isSymbolicLink()) linked = prefix;
      }
      if (linked) {
        fail(linked, "is a symlink: proofgate does not follow symlinks in fixture paths", SYMLINK_FIX);
        continue;
      }
      const problem = options.allowSpecialNames || rel === "" ? undefined : fixturePathProblem(rel);
      if (problem) {
        fail(rel, problem, SPECIAL_FIX);
        continue;
      }
      if (stat.isDirectory()) await walk(rel);
      else if (stat.isFile()) takeFile(rel);
      else if (stat.isSymbolicLink()) {
        if (linkToFile(rel)) takeFile(rel);
      } else fail(rel, "is not a regular file (a FIFO, socket or device)", "remove it from the fixtures");
    }
    if (errors.length > 0) {
      await pool.abort();
      return failed(errors);
    }
    await pool.finish();
  } catch (error) {
    await pool.abort();
    throw error;
  }
  if (pool.errors.length > 0) return failed(pool.errors);
  return hashedTree(pool.batches, inOrder);
}

function failed(errors: GateIssue[]): HashFixturesResult {
  return { entries: [], files: 0, lock: [], errors };
}

/**
 * The tree as the lock lists it. When the files came in the lock's order (`inOrder`: the walk of one
 * fixture path gives it), the lock is the batches' lines one after the other. Several paths are sorted
 * together, and their lock formatted here.
 */
function hashedTree(batches: readonly HashedBatch[], inOrder: boolean): HashFixturesResult {
  const files = batches.reduce((n, b) => n + b.size, 0);
  /** The entries in the order the files came. */
  const unsorted = (): FixtureDigest[] =>
    batches.flatMap((batch) => {
      const digests = Buffer.from(batch.digests!.buffer, batch.digests!.byteOffset, batch.digests!.byteLength);
      return batchFiles(batch).map((path, i) => ({ sha256: digests.toString("hex", i * 32, i * 32 + 32), path }));
    });
  if (!inOrder) {
    const entries = sortFixtureEntries(unsorted());
    return { entries, files, lock: [Buffer.from(formatFixturesLock(entries), "utf8")], errors: [] };
  }
  let entries: FixtureDigest[] | undefined;
  return {
    get entries() {
      return (entries ??= unsorted());
    },
    files,
    lock: batches.map((b) => b.lines!),
    errors: [],
  };
}

// Coverage shards read in worker threads: the 50 coverage.py JSON reports of a sharded CI run (7 MB each in
// a monorepo) cost seconds to parse and read on the main thread, while git and the ledger wait. Here they
// are read in a worker (split in order between two when nothing else runs), each merging its run with core's
// merger; the main thread merges the parts (sources/coverage.ts), which is the merge of every shard in order.
// A `check` starts the reading before it needs it (`prefetch`), so it runs beside the patch's evidence. A worker that cannot
// start, fails, or declines (any report that is not a clean coverage.py JSON read) leaves the shards to the
// main thread, which reads them as it always did: the workers only ever make a clean read faster.
import { availableParallelism } from "node:os";
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { CoverageShardReader, ShardsRead } from "../../ports.js";
import { unpackCoverage, type PackedCoverage, type ShardFile, type ShardReply } from "./shard-protocol.js";

// A bundle ships the worker as a file of its own (the CLI's dist/shard-worker.cjs) and names it at build time.
declare const __PROOFGATE_SHARD_WORKER__: string | undefined;

/** The worker script: `shard-worker.js` beside this module, or the file a bundle names. */
export const SHARD_WORKER_URL = new URL(
  typeof __PROOFGATE_SHARD_WORKER__ === "string" ? __PROOFGATE_SHARD_WORKER__ : "./shard-worker.js",
  import.meta.url,
);

export interface ShardWorkerOptions {
  /** Resolves a path as the file port does (relative to the project, confined with `--root`); throws when it cannot. */
  absolute: (path: string) => string;
  root: string;
  /** Fewer bytes than this in all the shards together: not worth a worker's start (about 50 ms). Default 16 MiB. */
  minBytes?: number | undefined;
  /** Worker threads, at most; default one when reading ahead (prefetch), else two (one on a single core). */
  threads?: number | undefined;
  url?: URL | undefined;
}

/**
 * A worker's young generation, at most: a shard's parsed JSON (about 8,000 files' lists) lives until the shard
 * is read, and a larger nursery copies it less often. With two workers, 128 MB took a full-size scale run (50
 * shards of 7 MB) from 13.3 to 11.7 s (BENCHMARKS.md, issue 25); V8 grows it only as needed.
 */
const YOUNG_MB = 128;

interface Pending {
  key: string;
  result: Promise<ShardsRead | undefined>;
  stop: () => void;
  /** Keeps the process alive for the workers: the result is awaited. */
  ref: () => void;
}

/** The shard reader of the Node ports. */
export function nodeCoverageShards(options: ShardWorkerOptions): CoverageShardReader {
  let pending: Pending | undefined;
  const start = (reports: readonly string[], format: string | undefined, ahead: boolean): Pending | undefined => {
    let files: ShardFile[];
    let bytes = 0;
    try {
      files = reports.map((path) => ({ path, absolute: options.absolute(path) }));
      for (const f of files) {
        const s = statSync(f.absolute);
        if (!s.isFile()) return undefined;
        bytes += s.size;
      }
    } catch {
      return undefined;
    }
    if (files.length < 2 || bytes < (options.minBytes ?? 16 * 1024 * 1024)) return undefined;
    // Read ahead, beside the main thread's own work (git, the ledger), one worker: the main thread keeps a
    // core (two workers beside it were no faster on two cores, and held 0.45 GiB more). Asked for when
    // needed, with nothing else to do, two.
    const threads = Math.max(
      1,
      Math.min(options.threads ?? (ahead ? 1 : Math.min(2, availableParallelism())), files.length),
    );
    const key = keyOf(reports, format);
    const workers: Worker[] = [];
    const halves = split(files, threads);
    const replies = halves.map((shards) => {
      let worker: Worker;
      try {
        worker = new Worker(options.url ?? SHARD_WORKER_URL, {
          resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
        });
      } catch {
        return Promise.resolve<ShardReply>({ kind: "declined", why: "the worker did not start" });
      }
      workers.push(worker);
      return new Promise<ShardReply>((resolve) => {
        const declined = (why: string) => () => resolve({ kind: "declined", why });
        worker.once("message", (reply: ShardReply) => resolve(reply));
        worker.once("error", declined("the worker failed"));
        worker.once("exit", declined("the worker stopped"));
        worker.postMessage({ shards, root: options.root, format });
      }).finally(() => void worker.terminate());
    });
    const stop = (): void => {
      for (const w of workers) void w.terminate();
    };
    const ref = (): void => {
      for (const w of workers) w.ref();
    };
    // Started ahead (prefetch), they do not keep the process alive until their result is asked for.
    for (const w of workers) w.unref();
    const result = Promise.all(replies).then((answers): ShardsRead | undefined => {
      if (!answers.every((a): a is Extract<ShardReply, { kind: "read" }> => a.kind === "read")) return undefined;
      return {
        parts: answers.map((a) => unpackCoverage(a.packed as PackedCoverage)),
        sha256: answers.flatMap((a) => a.sha256),
      };
    });
    return { key, result, stop, ref };
  };
  return {
    prefetch(reports, format) {
      if (pending?.key === keyOf(reports, format)) return;
      pending?.stop();
      pending = start(reports, format, true);
    },
    read(reports, format) {
      const key = keyOf(reports, format);
      const found = pending?.key === key ? pending : undefined;
      if (pending && !found) pending.stop();
      pending = undefined;
      const reading = found ?? start(reports, format, false);
      reading?.ref();
      return reading?.result;
    },
  };
}

const keyOf = (reports: readonly string[], format: string | undefined): string => JSON.stringify([reports, format]);

/** `files` in `parts` runs, in order, of sizes that differ by at most one. */
function split<T>(files: readonly T[], parts: number): T[][] {
  const out: T[][] = [];
  for (let p = 0, at = 0; p < parts; p++) {
    const size = Math.floor(files.length / parts) + (p < files.length % parts ? 1 : 0);
    out.push(files.slice(at, at + size));
    at += size;
  }
  return out;
}

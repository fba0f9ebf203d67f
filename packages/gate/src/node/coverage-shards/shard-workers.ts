// Coverage shards read off the main thread: the 50 coverage.py JSON reports of a sharded CI run (7 MB each in a
// monorepo) cost seconds to parse and read, while git and the ledger wait. One worker reads them from the first
// on, merging them with core's merger; a `check` starts it ahead (`prefetch`), beside the patch's evidence. Once
// the main thread needs them, it reads from the last shard down while the worker goes on (a shared claim word
// keeps the two ends apart), then merges the worker's part and its own shards in order (sources/coverage.ts):
// the merge of every shard in order. A worker that cannot start leaves every shard to the main thread; any
// report that is not a clean coverage.py JSON read (by either end) leaves them all to the main thread's own
// reading, exactly as without workers: they only ever make a clean read faster.
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { CoverageData } from "@proofgate/core/coverage";
import type { CoverageShardReader, ShardsRead } from "../../ports.js";
import { claimLast, claimRest, newClaims, unpackCoverage, type ShardFile, type ShardReply } from "./shard-protocol.js";
import { readShards, type ShardsMerged } from "./shard-worker.js";

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
  url?: URL | undefined;
}

/**
 * The worker's young generation, at most: a shard's parsed JSON (about 8,000 files' lists) lives until the shard
 * is read, and a larger nursery copies it less often (a full-size scale run, 50 shards of 7 MB: 13.3 s to 11.7 s
 * with two workers; BENCHMARKS.md, issue 25). V8 grows it only as needed.
 */
const YOUNG_MB = 128;

/** A shard larger than this (coverage.py JSON of a monorepo is about 7 MB) is left to the main thread. */
const MAX_SHARD_BYTES = 512 * 1024 * 1024;

interface Pending {
  key: string;
  /** The worker's answer: the first shards it claimed, merged. */
  reply: Promise<ShardReply>;
  files: ShardFile[];
  claims: SharedArrayBuffer;
  stop: () => void;
  /** Keeps the process alive for the worker: its answer is awaited. */
  ref: () => void;
}

/** The shard reader of the Node ports. */
export function nodeCoverageShards(options: ShardWorkerOptions): CoverageShardReader {
  let pending: Pending | undefined;
  const start = (reports: readonly string[], format: string | undefined): Pending | undefined => {
    let files: ShardFile[];
    let bytes = 0;
    try {
      files = reports.map((path) => ({ path, absolute: options.absolute(path) }));
      for (const f of files) {
        const s = statSync(f.absolute);
        // A regular file of a report's size: read ahead, the reports are the ones the work tree's config names
        // (the patch's), and only the main thread's own reading meets a device or a file of gigabytes.
        if (!s.isFile() || s.size > MAX_SHARD_BYTES) return undefined;
        bytes += s.size;
      }
    } catch {
      return undefined;
    }
    const claims = newClaims(files.length);
    if (files.length < 2 || bytes < (options.minBytes ?? 16 * 1024 * 1024) || !claims) return undefined;
    let worker: Worker | undefined;
    try {
      worker = new Worker(options.url ?? SHARD_WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    } catch {
      worker = undefined;
    }
    const w = worker;
    const reply = w
      ? new Promise<ShardReply>((resolve) => {
          const declined = (why: string) => () => resolve({ kind: "declined", why });
          w.once("message", (answer: ShardReply) => resolve(answer));
          w.once("error", declined("the worker failed"));
          w.once("exit", declined("the worker stopped"));
          w.postMessage({ shards: files, root: options.root, format, claims });
          // Started ahead (prefetch), it does not keep the process alive until its answer is asked for.
          w.unref();
        }).finally(() => void w.terminate())
      : Promise.resolve<ShardReply>({ kind: "declined", why: "the worker did not start" });
    return {
      key: keyOf(reports, format),
      reply,
      files,
      claims,
      stop: () => {
        claimRest(claims);
        void w?.terminate();
      },
      ref: () => w?.ref(),
    };
  };
  /**
   * The shards read: the worker's from the first up, this thread's from the last down while it waits (a shard
   * at a time, with the worker's own reading), then both, in order. Undefined when either declined.
   */
  const finish = async (reading: Pending, format: string | undefined): Promise<ShardsRead | undefined> => {
    reading.ref();
    const mine: ShardsMerged[] = [];
    for (let i = claimLast(reading.claims); i !== undefined; i = claimLast(reading.claims)) {
      const read = readShards({ shards: [reading.files[i]!], root: options.root, format });
      if (read.kind !== "read") {
        reading.stop();
        return undefined;
      }
      mine.push(read);
    }
    return assembleShards(await reading.reply, mine.reverse(), reading.files.length);
  };
  return {
    prefetch(reports, format) {
      if (pending?.key === keyOf(reports, format)) return;
      pending?.stop();
      pending = start(reports, format);
    },
    read(reports, format) {
      const key = keyOf(reports, format);
      const found = pending?.key === key ? pending : undefined;
      if (pending && !found) pending.stop();
      pending = undefined;
      const reading = found ?? start(reports, format);
      return reading && finish(reading, format);
    },
  };
}

/**
 * The shards read, in order: the worker's first run (its `count`), then this thread's, one each, in order (the
 * last ones). Undefined when either end declined or the two do not make up the `total` (a worker that failed
 * after it claimed shards); a worker that did not start claimed none, and this thread's may be all of them.
 */
export function assembleShards(
  theirs: ShardReply,
  mine: readonly ShardsMerged[],
  total: number,
): ShardsRead | undefined {
  const own: CoverageData[] = [];
  const ownSha: string[] = [];
  for (const m of mine) {
    if (m.kind !== "read" || m.count !== 1 || !m.data) return undefined;
    own.push(m.data);
    ownSha.push(...m.sha256);
  }
  const count = theirs.kind === "read" ? theirs.count : 0;
  if (count + own.length !== total) return undefined;
  const first = theirs.kind === "read" && count > 0 ? theirs : undefined;
  return {
    parts: [...(first ? [unpackCoverage(first.packed)] : []), ...own],
    sha256: [...(first?.sha256 ?? []), ...ownSha],
  };
}

const keyOf = (reports: readonly string[], format: string | undefined): string => JSON.stringify([reports, format]);

// The worker thread of `shard-workers.ts`: reads the coverage.py JSON shards it is sent, one at a time, with
// core's reader, folds each into core's merger and lets it go, and answers with the merge packed
// (shard-protocol.ts). Anything but a clean read (a file that is not a regular file, not UTF-8, not coverage.py
// JSON, any error or warning of the reader or the merger) is declined: the main thread then reads every
// shard itself, so what the gate says about a bad report is exactly what it says without workers. Its own
// esbuild entry point in the CLI (dist/shard-worker.cjs, see its build.mjs).
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { CoverageShardMerger, readCoverage, type CoverageData, type CoverageFormat } from "@proofgate/core/coverage";
import {
  claimFirst,
  claimRest,
  packCoverage,
  type PackedCoverage,
  type ShardReply,
  type ShardRequest,
} from "./shard-protocol.js";

/**
 * Reads and merges the shards of one request (with `claims`, those it claims from the first on); declined at
 * the first thing that is not a clean read (and then it claims the rest, so the other end stops too).
 */
export function readShards(request: ShardRequest): ShardsMerged {
  const { claims } = request;
  const reply = readClaimed(request, claims ? () => claimFirst(claims) : counter(request.shards.length));
  if (reply.kind === "declined" && claims) claimRest(claims);
  return reply;
}

/** 0, 1, ... `count` - 1, then undefined. */
function counter(count: number): () => number | undefined {
  let next = 0;
  return () => (next < count ? next++ : undefined);
}

/** The shards read and merged, as models (the main thread's own), or why not. */
export type ShardsMerged =
  { kind: "read"; count: number; sha256: string[]; data: CoverageData | undefined } | { kind: "declined"; why: string };

function readClaimed(request: ShardRequest, next: () => number | undefined): ShardsMerged {
  const merger = new CoverageShardMerger();
  const sha256: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  for (let i = next(); i !== undefined; i = next()) {
    const shard = request.shards[i]!;
    let bytes: Buffer;
    try {
      // A regular file only: a FIFO or a device named as a report is the main thread's to refuse.
      const fd = openSync(shard.absolute, "r");
      try {
        if (!fstatSync(fd).isFile()) return { kind: "declined", why: `${shard.path} is not a regular file` };
        bytes = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return { kind: "declined", why: `${shard.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { kind: "declined", why: `${shard.path} is not UTF-8` };
    }
    sha256.push(createHash("sha256").update(bytes).digest("hex"));
    const read = readCoverage(text, shard.path, {
      format: request.format as CoverageFormat | undefined,
      root: request.root,
      known: (p) => merger.known(p),
    });
    if (read.errors.length > 0 || read.warnings.length > 0 || !read.data)
      return { kind: "declined", why: `${shard.path} has errors or warnings` };
    if (read.data.format !== "coveragepy-json")
      return { kind: "declined", why: `${shard.path} is ${read.data.format}, not coverage.py JSON` };
    merger.add(read.data, { consume: true });
  }
  if (sha256.length === 0) return { kind: "read", count: 0, sha256, data: undefined };
  const merged = merger.result();
  if (merged.errors.length > 0 || merged.warnings.length > 0 || !merged.data)
    return { kind: "declined", why: "the shards do not merge cleanly" };
  return { kind: "read", count: sha256.length, sha256, data: merged.data };
}

/** A worker's answer to the main thread: the merge packed (one array to copy, shard-protocol.ts). */
export function packReply(read: ShardsMerged): ShardReply {
  if (read.kind !== "read") return read;
  if (!read.data) return { kind: "read", count: 0, sha256: read.sha256, packed: EMPTY };
  const packed = packCoverage(read.data);
  if (!packed) return { kind: "declined", why: "a key is not a coverage.py line or arc" };
  return { kind: "read", count: read.count, sha256: read.sha256, packed };
}

/** The packing of no shard (a worker that claimed none). */
const EMPTY: PackedCoverage = { sources: [], hasBranches: false, paths: [], numbers: new Float64Array(0) };

parentPort?.on("message", (request: ShardRequest) => {
  let reply: ShardReply;
  try {
    reply = packReply(readShards(request));
  } catch (error) {
    reply = { kind: "declined", why: `the worker failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  parentPort?.postMessage(
    reply,
    reply.kind === "read" && reply.count > 0 ? [reply.packed.numbers.buffer as ArrayBuffer] : [],
  );
});

// The worker thread of `hash-files.ts`: hashes batches of files with sha256, streaming each through one
// reused buffer, so memory stays bounded whatever the file sizes. Its own esbuild entry point
// (dist/hash-worker.js, see build.mjs): a worker is started from a file, not from a chunk.
import * as crypto from "node:crypto";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { parentPort } from "node:worker_threads";
// The lock format alone, not the whole of core: a worker evaluates every module it imports as it starts.
import { fixtureLockLine } from "@proofgate/core/fixtures-lock";
import { PATH_SEPARATOR, type HashJob, type HashReply, type HashRequest } from "./hash-protocol.js";

let buffer = Buffer.alloc(0);
let flags = 0;
let prefix = "";
let job: HashJob | undefined;

function setUp(next: HashJob): void {
  job = next;
  if (buffer.length !== next.bufferSize) buffer = Buffer.allocUnsafe(next.bufferSize);
  // O_NONBLOCK: a FIFO swapped in after the walk fails instead of blocking; regular files ignore it.
  flags = constants.O_RDONLY | constants.O_NONBLOCK | (next.follow ? 0 : constants.O_NOFOLLOW);
  // Paths relative to the working folder when it is the root: the kernel resolves fewer path components per open.
  prefix = next.root === process.cwd() ? "" : next.root.endsWith("/") ? next.root : `${next.root}/`;
}

// A file that fits in the buffer is hashed in one call (`crypto.hash`, Node >= 20.12: ~1 us less per
// file than a Hash object); a bigger one is streamed through a copy of a fresh hash state, which is
// cheaper than createHash per file (no algorithm lookup).
const oneShot = typeof crypto.hash === "function" ? crypto.hash : undefined;
const fresh = crypto.createHash("sha256");

function hashFile(path: string): string {
  const fd = openSync(prefix + path, flags);
  try {
    let n = readSync(fd, buffer, 0, buffer.length, null);
    // A short read of a regular file is its end (Linux, macOS): skip the read that would return 0,
    // one syscall per small file. A file that grows meanwhile is hashed as it was; --check sees it.
    if (n < buffer.length && oneShot) return oneShot("sha256", buffer.subarray(0, n), "hex");
    const hash = fresh.copy();
    for (;;) {
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
      if (n < buffer.length) break;
      n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
    }
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

parentPort?.on("message", (request: HashRequest) => {
  const next = request.job;
  if (next.root !== job?.root || next.follow !== job.follow || next.bufferSize !== job.bufferSize) setUp(next);
  const groups = request.groups.map((g) => ({ folder: g.folder, names: g.names.split(PATH_SEPARATOR) }));
  const errors: HashReply["errors"] = [];
  const digests = Buffer.alloc(groups.reduce((n, g) => n + g.names.length, 0) * 32);
  let lines = "";
  let i = 0;
  for (const { folder, names } of groups) {
    for (const name of names) {
      const path = folder + name;
      try {
        const hex = hashFile(path);
        digests.write(hex, i * 32, 32, "hex");
        lines += fixtureLockLine(hex, path);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        errors.push({ index: i, code: e.code ?? "EIO", message: e.message });
      }
      i++;
    }
  }
  const reply: HashReply = { id: request.id, digests, lines: Buffer.from(lines, "utf8"), errors };
  parentPort?.postMessage(reply);
});

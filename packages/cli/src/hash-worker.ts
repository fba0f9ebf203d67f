// The worker thread of `hash-files.ts`: hashes batches of files with sha256, streaming each through one
// reused buffer, so memory stays bounded whatever the file sizes. Its own esbuild entry point
// (dist/hash-worker.js, see build.mjs): a worker is started from a file, not from a chunk.
import { createHash } from "node:crypto";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

/** What the pool hands each worker at start. */
export interface HashWorkerData {
  /** The repo root; every path of a batch is relative to it. */
  root: string;
  /** Open through a symlink (only when symlinks are allowed); otherwise a symlink fails with ELOOP. */
  follow: boolean;
  /** The read buffer's size in bytes. */
  bufferSize: number;
}

/** One batch: the paths to hash, relative to the root. */
export interface HashRequest {
  id: number;
  paths: string[];
}

/** A batch's answer: a digest per path, or an error (digest "") with the errno code. */
export interface HashReply {
  id: number;
  digests: string[];
  errors: { index: number; code: string; message: string }[];
}

const data = workerData as HashWorkerData;
const buffer = Buffer.allocUnsafe(data.bufferSize);
// O_NONBLOCK: a FIFO swapped in after the walk fails instead of blocking; regular files ignore it.
const flags = constants.O_RDONLY | constants.O_NONBLOCK | (data.follow ? 0 : constants.O_NOFOLLOW);
// Paths relative to the working folder when it is the root: the kernel resolves fewer path components per open.
const prefix = data.root === process.cwd() ? "" : data.root.endsWith("/") ? data.root : `${data.root}/`;

// Copying a fresh hash state is cheaper than createHash per file (no algorithm lookup): ~1 us of ~7.
const fresh = createHash("sha256");

function hashFile(path: string): string {
  const fd = openSync(prefix + path, flags);
  try {
    const hash = fresh.copy();
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
      // A short read of a regular file is its end (Linux, macOS): skip the read that would return 0,
      // one syscall per small file. A file that grows meanwhile is hashed as it was; --check sees it.
      if (n < buffer.length) break;
    }
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

parentPort?.on("message", (request: HashRequest) => {
  const reply: HashReply = { id: request.id, digests: [], errors: [] };
  for (let i = 0; i < request.paths.length; i++) {
    try {
      reply.digests.push(hashFile(request.paths[i]!));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      reply.digests.push("");
      reply.errors.push({ index: i, code: e.code ?? "EIO", message: e.message });
    }
  }
  parentPort?.postMessage(reply);
});

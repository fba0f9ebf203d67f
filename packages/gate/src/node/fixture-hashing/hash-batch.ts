// Hashing a batch of files with sha256, each streamed through one reused buffer, so memory stays bounded
// whatever the file sizes. A hash worker does it for each request (hash-worker.ts), and the main thread
// for the batches it takes itself (hash-files.ts).
import * as crypto from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
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
  // O_NONBLOCK: opening a FIFO swapped in after the walk does not block (regular files ignore it); see hashFile.
  flags = constants.O_RDONLY | constants.O_NONBLOCK | (next.follow ? 0 : constants.O_NOFOLLOW);
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
    // Nothing read: an empty file, or a FIFO swapped in after the walk with no writer (one with a writer
    // and no data fails with EAGAIN). One fstat tells them apart, for empty files only.
    if (n === 0 && !fstatSync(fd).isFile())
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
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

/** Hashes a batch: every file of its groups, in order; a file that cannot be read is an error, not a throw. */
export function hashBatch(request: HashRequest): HashReply {
  const next = request.job;
  if (next.root !== job?.root || next.follow !== job.follow || next.bufferSize !== job.bufferSize) setUp(next);
  // Paths relative to the working folder when it is the root (asked each batch: the main thread's may change).
  prefix = next.root === process.cwd() ? "" : next.root.endsWith("/") ? next.root : `${next.root}/`;
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
  return { id: request.id, digests, lines: Buffer.from(lines, "utf8"), errors };
}

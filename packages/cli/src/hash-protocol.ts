// The messages between `hash-files.ts` (the pool, on the main thread) and `hash-worker.ts`.

/** How a batch's paths are read; the same for every batch of a pool. */
export interface HashJob {
  /** The repo root; every path of a batch is relative to it. */
  root: string;
  /** Open through a symlink (only when symlinks are allowed); otherwise a symlink fails with ELOOP. */
  follow: boolean;
  /** The read buffer's size in bytes. */
  bufferSize: number;
}

/**
 * One batch: the paths to hash, relative to the root, joined with NUL (no file name holds one): one
 * string is cheaper to send and receive than an array of strings. The job travels with every batch, so
 * a worker can start before the job is known (`startHashWorkers`).
 */
export interface HashRequest {
  id: number;
  job: HashJob;
  paths: string;
}

/** A batch's answer. */
export interface HashReply {
  id: number;
  /** The sha256 of its paths, 32 bytes each, in order (zeros for a file that failed). */
  digests: Uint8Array;
  /**
   * Its lines of the lock (`fixtureLockLine`), in UTF-8: when the batches are in the lock's order, the
   * lock is their lines one after the other, and the main thread formats nothing.
   */
  lines: Uint8Array;
  errors: { index: number; code: string; message: string }[];
}

/** The NUL that joins a batch's paths. */
export const PATH_SEPARATOR = "\0";

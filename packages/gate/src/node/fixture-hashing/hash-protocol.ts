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
 * Files of one folder, as a batch carries them: the folder's path relative to the root ("" for the
 * root, else ending in `/`) and the rest of each file's path, joined with NUL (no file name holds
 * one). The main thread never builds a file's whole path: one string per folder run is cheaper to
 * make, send and receive than a string per file.
 */
export interface PathGroup {
  folder: string;
  names: string;
}

/**
 * One batch: its files, in order, as runs of one folder each. The job travels with every batch, so a
 * worker can start before the job is known (`startHashWorkers`).
 */
export interface HashRequest {
  id: number;
  job: HashJob;
  groups: PathGroup[];
}

/** A batch's answer. */
export interface HashReply {
  id: number;
  /** The sha256 of its files, 32 bytes each, in order (zeros for a file that failed). */
  digests: Uint8Array;
  /**
   * Its lines of the lock (`fixtureLockLine`), in UTF-8: when the batches are in the lock's order, the
   * lock is their lines one after the other, and the main thread formats nothing.
   */
  lines: Uint8Array;
  /** The files that could not be hashed, by their index in the batch. */
  errors: { index: number; code: string; message: string }[];
}

/** The NUL that joins a group's names. */
export const PATH_SEPARATOR = "\0";

// The worker thread of `hash-files.ts`: answers each batch it is sent (hash-batch.ts). Its own esbuild
// entry point (dist/hash-worker.js, see build.mjs): a worker is started from a file, not from a chunk.
// It imports the lock format alone, not the whole of core: a worker evaluates every module it imports
// as it starts.
import { parentPort } from "node:worker_threads";
import { hashBatch } from "./hash-batch.js";
import type { HashRequest } from "./hash-protocol.js";

parentPort?.on("message", (request: HashRequest) => {
  parentPort?.postMessage(hashBatch(request));
});

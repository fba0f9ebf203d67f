// The worker thread of `hash-files.ts`: answers each batch it is sent (hash-batch.ts). Its own esbuild
// entry point in the CLI (dist/hash-worker.cjs, CommonJS, see its build.mjs): a worker is started from a file.
// It imports the lock format alone, not the whole of core: a worker evaluates every module it imports
// as it starts.
import { parentPort } from "node:worker_threads";
import { hashBatch } from "./hash-batch.js";
import type { HashRequest } from "./hash-protocol.js";

parentPort?.on("message", (request: HashRequest) => {
  parentPort?.postMessage(hashBatch(request));
});

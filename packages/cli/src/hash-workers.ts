// The hash worker threads of `hash-files.ts`, and their early start: a worker takes longer to boot (a
// Node environment of its own) than yargs to load and parse, so `proofgate lock` starts them first
// (bin.ts) and the pool takes them over once the options and proofgate.toml are read.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** The worker script: `hash-worker.js` beside this module (dist/ in the bundle). */
export const HASH_WORKER_URL = new URL("./hash-worker.js", import.meta.url);

interface Started {
  url: string;
  worker: Worker;
  /** It failed to start or exited: never handed out. */
  dead: boolean;
}

const started: Started[] = [];

/**
 * Starts `threads` hash workers ahead of the pool. They do not keep the process alive: when the
 * command never hashes (`--help`, a usage error), the process exits as if they were not there.
 */
export function startHashWorkers(url: URL = HASH_WORKER_URL, threads: number = availableParallelism()): void {
  for (let t = 0; t < threads; t++) {
    const entry: Started = { url: url.href, worker: new Worker(url), dead: false };
    // Until the pool takes it, a failure only marks it; the pool then starts a fresh one, and sees why.
    const dead = (): void => {
      entry.dead = true;
    };
    entry.worker.on("error", dead).on("exit", dead).unref();
    started.push(entry);
  }
}

/**
 * `threads` workers running `url`: the ones started early for that script, then new ones. Workers
 * started early and not needed are stopped.
 */
export function hashWorkers(url: URL, threads: number): Worker[] {
  const workers: Worker[] = [];
  for (const entry of started.splice(0)) {
    if (!entry.dead && entry.url === url.href && workers.length < threads) {
      entry.worker.ref();
      workers.push(entry.worker);
    } else void entry.worker.terminate();
  }
  while (workers.length < threads) workers.push(new Worker(url));
  return workers;
}

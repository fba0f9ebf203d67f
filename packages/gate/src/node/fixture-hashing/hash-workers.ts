// The hash worker threads of `hash-files.ts`, and their early start: a worker takes longer to boot (a
// Node environment of its own) than yargs to load and parse, so `proofgate lock` starts them first
// (bin.ts) and the pool takes them over once the options and proofgate.toml are read.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

// A bundle may ship the worker as a file of its own (the CLI's dist/hash-worker.cjs: a CommonJS worker
// starts 10-15 ms sooner than an ES module one, BENCHMARKS.md issue 25 item 3) and name it here at build time.
declare const __PROOFGATE_HASH_WORKER__: string | undefined;

/** The worker script: `hash-worker.js` beside this module, or the file a bundle names (dist/ in the CLI's). */
export const HASH_WORKER_URL = new URL(
  typeof __PROOFGATE_HASH_WORKER__ === "string" ? __PROOFGATE_HASH_WORKER__ : "./hash-worker.js",
  import.meta.url,
);

interface Started {
  url: string;
  worker: Worker;
  /** It failed to start or exited: never handed out. */
  dead: boolean;
}

const started: Started[] = [];

/**
 * Starts `count` hash workers ahead of the pool: by default one per core but one, the main thread
 * hashes too (hash-files.ts). bin.ts starts them for a plain `lock` command line only. They do not keep
 * the process alive: when the command ends before it hashes (a bad proofgate.toml, `--check` without a
 * lock), the process exits as if they were not there.
 */
export function startHashWorkers(url: URL = HASH_WORKER_URL, count: number = availableParallelism() - 1): void {
  for (let t = 0; t < count; t++) {
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
 * `count` workers running `url`: the ones started early for that script, then new ones. Workers
 * started early and not needed are stopped.
 */
export function hashWorkers(url: URL, count: number): Worker[] {
  const workers: Worker[] = [];
  for (const entry of started.splice(0)) {
    if (!entry.dead && entry.url === url.href && workers.length < count) {
      entry.worker.ref();
      workers.push(entry.worker);
    } else void entry.worker.terminate();
  }
  while (workers.length < count) workers.push(new Worker(url));
  return workers;
}

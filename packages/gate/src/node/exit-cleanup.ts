// What the gate leaves on the machine while it runs (the base's worktree, the commands' processes) is
// undone on every way out: a normal return or a throw (the caller's `finally`), `process.exit`, and
// SIGINT, SIGTERM and SIGHUP, which would otherwise end Node without running any `finally`.
import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";

const cleanups = new Set<() => void>();
const children = new Set<ChildProcess>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How long the commands' processes get to end after the signal is passed on, before the cleanup runs. */
const CHILD_GRACE_MS = 5000;

let installed = false;
let exiting = false;

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // One failed cleanup must not keep the others from running.
    }
  }
}

function onSignal(signal: (typeof SIGNALS)[number]): void {
  if (exiting) return;
  exiting = true;
  // The commands run in their own process group (command-runner.ts): pass the signal to the whole group,
  // then wait for them, so nothing writes in the worktree while it is removed.
  const running = [...children].filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) killGroup(child, signal);
  const done = Promise.all(running.map((c) => new Promise<void>((resolve) => c.once("close", () => resolve()))));
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, CHILD_GRACE_MS).unref());
  void Promise.race([done, timeout]).then(() => {
    for (const child of running) killGroup(child, "SIGKILL");
    runCleanups();
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
}

/** Sends `signal` to the child's whole process group (the child alone when it has none). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Gone already.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, () => onSignal(signal));
  process.on("exit", runCleanups);
}

/**
 * Runs `cleanup` (synchronous, never throwing) when the process ends by a signal or `process.exit`
 * before the returned function is called; the caller still cleans up itself on its normal paths.
 */
export function cleanupOnExit(cleanup: () => void): () => void {
  install();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/** A command's process, ended with the gate's own process when it is signalled. */
export function trackChild(child: ChildProcess): void {
  install();
  children.add(child);
  child.once("close", () => children.delete(child));
}

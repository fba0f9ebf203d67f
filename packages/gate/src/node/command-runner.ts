// The commands of `check --run`: each through `sh -c` in the repository root (or the base's worktree), its
// output streamed, stopped with every process it started when it runs past its time limit.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { CommandTimedOut, type CommandRunner } from "../ports.js";
import { killGroup, trackChild } from "./exit-cleanup.js";

/** How long a command's processes get after SIGTERM, once its time is up, before SIGKILL. */
export const TIMEOUT_GRACE_MS = 3000;
/** After SIGKILL, how long to wait for the group to be gone (and its output pipes closed) at most. */
const KILL_WAIT_MS = 2000;
const POLL_MS = 50;

/**
 * Runs commands with `sh -c` in `cwd`; the exit code is a signal's 128 + n when it was killed, as a shell
 * says. A command that cannot be started rejects with the system's error. Each runs in its own process
 * group, which a signal to the gate ends as a whole (exit-cleanup.ts): `sh -c "a; b"` leaves no `a` running.
 * Past `timeoutSeconds` the group gets SIGTERM, then SIGKILL when any of it is left after `graceMs`, and
 * the promise rejects with {@link CommandTimedOut} once the processes are gone.
 */
export function nodeCommandRunner(cwd: string, graceMs = TIMEOUT_GRACE_MS): CommandRunner {
  return {
    run: (command, { env, output, errors, cwd: where, timeoutSeconds }) =>
      new Promise<number>((resolveExit, reject) => {
        const child = spawn("sh", ["-c", command], {
          cwd: where ?? cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        trackChild(child);
        child.stdout.on("data", (chunk: Buffer) => output(chunk.toString("utf8")));
        child.stderr.on("data", (chunk: Buffer) => {
          const text = chunk.toString("utf8");
          output(text);
          errors?.(text);
        });
        let closed = false;
        let stopping = false;
        let timer: NodeJS.Timeout | undefined;
        if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
          timer = setTimeout(() => {
            stopping = true;
            void stopGroup(child, graceMs).then((signal) => {
              // A process that left the group (setsid) may still hold the pipes: stop reading them.
              if (!closed) {
                child.stdout.destroy();
                child.stderr.destroy();
              }
              reject(new CommandTimedOut(timeoutSeconds, signal));
            });
          }, timeoutSeconds * 1000);
        }
        child.on("error", (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.on("close", (code, signal) => {
          closed = true;
          if (stopping) return;
          clearTimeout(timer);
          resolveExit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
        });
      }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until no process of the child's group is left, or `ms` passed; true when none is left. */
async function groupGone(child: ChildProcess, ms: number): Promise<boolean> {
  for (let waited = 0; ; waited += POLL_MS) {
    if (!groupAlive(child)) return true;
    if (waited >= ms) return false;
    await sleep(POLL_MS);
  }
}

/** SIGTERM to the whole group; SIGKILL when any of it is left after `graceMs`. Resolves with the last signal sent. */
async function stopGroup(child: ChildProcess, graceMs: number): Promise<"SIGTERM" | "SIGKILL"> {
  killGroup(child, "SIGTERM");
  if (await groupGone(child, graceMs)) return "SIGTERM";
  killGroup(child, "SIGKILL");
  await groupGone(child, KILL_WAIT_MS);
  return "SIGKILL";
}

/**
 * Whether a live process of the child's group is left. On Linux from /proc, so an exited process that
 * nobody reaped (a zombie: its parent died, and PID 1 may not reap) does not count; elsewhere signal 0.
 */
function groupAlive(child: ChildProcess): boolean {
  const group = child.pid;
  if (group === undefined) return false;
  let pids: string[] | undefined;
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    pids = undefined;
  }
  if (pids === undefined) {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === group && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

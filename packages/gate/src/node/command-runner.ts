// The commands of `check --run`: each through `sh -c` in the repository root (or the base's worktree), its
// output streamed.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import type { CommandRunner } from "../ports.js";
import { trackChild } from "./exit-cleanup.js";

/**
 * Runs commands with `sh -c` in `cwd`; the exit code is a signal's 128 + n when it was killed, as a shell
 * says. A command that cannot be started rejects with the system's error. Each runs in its own process
 * group, which a signal to the gate ends as a whole (exit-cleanup.ts): `sh -c "a; b"` leaves no `a` running.
 */
export function nodeCommandRunner(cwd: string): CommandRunner {
  return {
    run: (command, { env, output, errors, cwd: where }) =>
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
        child.on("error", reject);
        child.on("close", (code, signal) => resolveExit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
      }),
  };
}

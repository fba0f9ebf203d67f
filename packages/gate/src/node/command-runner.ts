// The commands of `check --run`: each through `sh -c` in the repository root (or the base's worktree), its
// output streamed.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import type { CommandRunner } from "../ports.js";

/**
 * Runs commands with `sh -c` in `cwd`; the exit code is a signal's 128 + n when it was killed, as a shell
 * says. A command that cannot be started rejects with the system's error.
 */
export function nodeCommandRunner(cwd: string): CommandRunner {
  return {
    run: (command, { env, output, errors, cwd: where }) =>
      new Promise<number>((resolveExit, reject) => {
        const child = spawn("sh", ["-c", command], { cwd: where ?? cwd, env, stdio: ["ignore", "pipe", "pipe"] });
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

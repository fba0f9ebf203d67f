// The thin wrapper over the `buildkite-agent` binary: one process per call, no shell, the job's
// environment passed through (the agent reads its access token and job id from it).
import { spawn } from "node:child_process";
import type { Env } from "@proofgate/core";

/** What one `buildkite-agent` call returned; `missing` when the binary is not on PATH. */
export type AgentResult =
  | { missing: true }
  | { missing: false; code: number | null; signal: NodeJS.Signals | null; stderr: string; error?: string | undefined };

/** Runs `buildkite-agent` with `args`, `input` on stdin; never throws, never uses a shell. */
export type AgentRunner = (args: readonly string[], input?: string) => Promise<AgentResult>;

/** How long one agent call may take before it is killed (the agent retries the API itself). */
const AGENT_TIMEOUT_MS = 120_000;

/** The agent runner for `env`: PATH and the agent's own variables come from `env`. */
export function agentRunner(env: Env, binary = "buildkite-agent", deadline?: AbortSignal): AgentRunner {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) childEnv[key] = value;
  return (args, input) =>
    new Promise((resolve) => {
      let stderr = "";
      let settled = false;
      // Our own kill timer, not spawn's `timeout` option: Node keeps that one running when the binary is
      // missing (ENOENT), which held every job without an agent on PATH open for the whole two minutes.
      const done = (result: AgentResult) => {
        clearTimeout(timer);
        deadline?.removeEventListener("abort", stop);
        if (!settled) {
          settled = true;
          resolve(result);
        }
      };
      const child = spawn(binary, [...args], {
        env: childEnv,
        shell: false,
        windowsHide: true,
        stdio: ["pipe", "ignore", "pipe"],
      });
      // Set before any event of the child can fire (they come on later turns of the event loop).
      const timer = setTimeout(() => child.kill("SIGTERM"), AGENT_TIMEOUT_MS);
      // Publishing's deadline stops the agent too: a call still running would hold the job open.
      const stop = () => child.kill("SIGTERM");
      if (deadline?.aborted) stop();
      else deadline?.addEventListener("abort", stop, { once: true });
      child.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") done({ missing: true });
        else done({ missing: false, code: null, signal: null, stderr, error: error.message });
      });
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (chunk: string) => {
        if (stderr.length < 64 * 1024) stderr += chunk;
      });
      child.on("close", (code, signal) => done({ missing: false, code, signal, stderr }));
      // A child that exits without reading its stdin closes the pipe: that is its exit code's story, not a crash.
      child.stdin.on("error", () => undefined);
      child.stdin.end(input ?? "");
    });
}

/** The agent's failure as one line: its exit and the last non-empty stderr line. */
export function describeAgentFailure(result: Exclude<AgentResult, { missing: true }>): string {
  const last = result.stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
  const how = result.error ?? (result.signal ? `was killed by ${result.signal}` : `exited ${result.code}`);
  return `${how}${last ? `: ${last.slice(0, 300)}` : ""}`;
}

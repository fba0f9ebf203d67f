import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CommandTimedOut } from "../ports.js";
import { nodeCommandRunner } from "./command-runner.js";

const dir = mkdtempSync(join(tmpdir(), "proofgate-runner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether a process is alive (not gone, not a zombie nobody reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const pids = (file: string): number[] => readFileSync(join(dir, file), "utf8").split(/\s+/).filter(Boolean).map(Number);

describe("nodeCommandRunner: a step's time limit", () => {
  it("a command that ends in time gives its exit code", async () => {
    const run = nodeCommandRunner(dir);
    await expect(run.run("exit 3", { env, output: () => {}, timeoutSeconds: 5 })).resolves.toBe(3);
  });

  it("past the limit, SIGTERM stops the command and the processes it started in the background", async () => {
    const run = nodeCommandRunner(dir);
    const started = Date.now();
    const error = await run
      .run("sleep 60 & echo $! > bg.pid; echo $$ >> bg.pid; sleep 60", { env, output: () => {}, timeoutSeconds: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(CommandTimedOut.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ seconds: 1, signal: "SIGTERM" });
    expect(Date.now() - started).toBeLessThan(5000);
    const [background, shell] = pids("bg.pid");
    expect(background).toBeGreaterThan(0);
    expect(alive(background!)).toBe(false);
    expect(alive(shell!)).toBe(false);
  });

  it("processes that ignore SIGTERM get SIGKILL after the grace", async () => {
    const run = nodeCommandRunner(dir, 300);
    // An ignored signal stays ignored across exec: both sleeps outlive SIGTERM.
    const error = await run
      .run("trap '' TERM; sleep 60 & echo $! > stubborn.pid; sleep 60", { env, output: () => {}, timeoutSeconds: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ name: "CommandTimedOut", seconds: 1, signal: "SIGKILL" });
    expect(alive(pids("stubborn.pid")[0]!)).toBe(false);
  });

  it("0 is no limit", async () => {
    const run = nodeCommandRunner(dir);
    await expect(run.run("sleep 1; exit 0", { env, output: () => {}, timeoutSeconds: 0 })).resolves.toBe(0);
  });
});

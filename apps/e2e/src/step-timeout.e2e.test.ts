// A step that hangs does not hold the merge queue: the agent's patch adds a test that sleeps 600 s after
// starting a child process (a `sleep 600` that a kill of pytest alone would orphan). With the base's
// `[commands] timeout = 5`, `check --run` stops the proof step, pytest and its child with it, exits 2
// (`command_timeout`, naming the step and the limit) within seconds of the hang, and removes the base's
// worktree. Real pytest, git and the bundled CLI.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { check, config, git, makeCheckProject, type CheckRun } from "./check-project.js";
import { proofgate } from "./helpers.js";

const HANG = `import os
import subprocess
import time


def test_hangs():
    child = subprocess.Popen(["sleep", "600"])
    with open(os.environ["HANG_PIDS"], "w") as f:
        f.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(600)
`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Whether a process is alive: not gone, and not a zombie nobody reaped (it runs nothing). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Runs `work` while watching for `file`: resolves with the result and when the file first appeared. */
async function watching<T>(
  file: string,
  work: Promise<T>,
): Promise<{ result: T; appeared: number | undefined; ended: number }> {
  let appeared: number | undefined;
  const poll = setInterval(() => {
    if (appeared === undefined && existsSync(file)) appeared = Date.now();
  }, 50);
  try {
    const result = await work;
    return { result, appeared, ended: Date.now() };
  } finally {
    clearInterval(poll);
  }
}

describe("[commands] timeout: a proof step that hangs", () => {
  const scratch = mkdtempSync(join(tmpdir(), "proofgate-hang-"));
  dirs.push(scratch);
  const pidFile = join(scratch, "pids");
  const p = makeCheckProject({
    base: { "proofgate.toml": config({ extra: "timeout = 5\n" }) },
    patch: [{ message: "Add a test that hangs\n", files: { "tests/test_hang.py": HANG } }],
  });
  dirs.push(p.dir);
  let run: { result: CheckRun; appeared: number | undefined; ended: number };

  it("exits 2 within seconds of the hang, naming the step and the timeout", async () => {
    run = await watching(pidFile, check(p.dir, ["--run"], { HANG_PIDS: pidFile }));
    const r = run.result;
    expect(r.status, r.stderr.slice(-3000)).toBe(2);
    expect(run.appeared, "the hanging test never started").toBeDefined();
    // The 5 s count from the step's start (pytest's own start-up is part of them); then SIGTERM and the
    // gate's exit: well under 10 s after the test began to hang. (5, not 3: every step has the limit, and
    // the base's collection alone takes 1.5 s on a loaded CI machine.)
    expect(run.ended - run.appeared!).toBeLessThan(10_000);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toEqual(["input_error"]);
    expect(r.report.errors).toHaveLength(1);
    const [error] = r.report.errors;
    expect(error).toMatchObject({ code: "command_timeout", file: `proofgate.toml at ${p.base.slice(0, 12)}` });
    expect(error!.message).toMatch(
      /^\[commands\] proof \(`.+`\) was still running after its timeout of 5 s and was stopped with every process it started \(SIGTERM/,
    );
    expect(r.stdout).toContain("was still running after its timeout of 5 s");
  });

  it("leaves no process behind: pytest and the child it started are gone", () => {
    const [pytestPid, childPid] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    expect(pytestPid).toBeGreaterThan(0);
    expect(childPid).toBeGreaterThan(0);
    expect(alive(pytestPid!)).toBe(false);
    expect(alive(childPid!)).toBe(false);
  });

  it("leaves no base worktree behind", () => {
    const worktrees = git(p.dir, ["worktree", "list", "--porcelain"])
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(worktrees).toEqual([`worktree ${p.dir}`]);
  });
});

describe("check --run --timeout", () => {
  it("sets the limit for one run, over the base's `timeout = 0` (no limit)", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "proofgate-hang-flag-"));
    dirs.push(scratch);
    const pidFile = join(scratch, "pids");
    const p = makeCheckProject({
      base: { "proofgate.toml": config({ extra: "timeout = 0\n" }) },
      patch: [{ message: "Add a test that hangs\n", files: { "tests/test_hang.py": HANG } }],
    });
    dirs.push(p.dir);
    const r = await check(p.dir, ["--run", "--timeout", "6"], { HANG_PIDS: pidFile });
    expect(r.status, r.stderr.slice(-3000)).toBe(2);
    expect(r.report.errors.map((e) => e.code)).toEqual(["command_timeout"]);
    expect(r.report.errors[0]!.message).toContain("was still running after its timeout of 6 s");
    for (const pid of readFileSync(pidFile, "utf8").trim().split(" ").map(Number)) expect(alive(pid)).toBe(false);
  });

  it("refuses a limit over six hours before running anything (exit 2)", async () => {
    const p = makeCheckProject();
    dirs.push(p.dir);
    const r = await check(p.dir, ["--run", "--timeout", "99999"]);
    expect(r.status).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({ code: "usage", message: "--timeout 99999 is more than 21600 seconds" }),
    ]);
    expect(r.stderr).not.toContain("▶");
  });
});

describe("proofgate record --timeout", () => {
  it("stops a command that hangs, with its child, and binds nothing (exit 2)", () => {
    const p = makeCheckProject({ mergePatch: false });
    dirs.push(p.dir);
    const pids = join(p.dir, "..", `${p.dir.split("/").at(-1)}-record-pids`);
    dirs.push(pids);
    const started = Date.now();
    const r = proofgate(
      ["record", "--timeout", "2", "--writes", "results.xml", "--", `sleep 600 & echo $! > ${pids}; sleep 600`],
      p.dir,
    );
    expect(r.status, r.stderr).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.stderr).toMatch(/error: `sleep 600 & .+` was still running after its timeout of 2 s and was stopped/);
    expect(alive(Number(readFileSync(pids, "utf8").trim()))).toBe(false);
    expect(existsSync(join(p.dir, "proofgate-evidence.json"))).toBe(false);
  });
});

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { addWorktree, pruneStaleWorktrees, removeWorktree, staleGateWorktrees, type GitRepo } from "./git.js";
import { ISOLATED_GIT_ENV, scratchRepo } from "../testing/git-scratch.js";

describe("staleGateWorktrees", () => {
  const list = (paths: string[]): string =>
    paths.map((p) => `worktree ${p}\nHEAD ${"a".repeat(40)}\ndetached\n`).join("\n");
  const alive = (pid: number): boolean => pid === 4242;

  it("names the gate's worktrees in the temp folder whose process is gone, and nothing else", () => {
    const porcelain = list([
      "/home/u/project",
      "/tmp/proofgate-base-999999-AbC123",
      "/tmp/proofgate-base-4242-xyz789",
      `/tmp/proofgate-base-${process.pid}-qqqqqq`,
      "/tmp/proofgate-base-abc123",
      "/home/u/proofgate-base-999999-AbC123",
      "/tmp/proofgate-base-999999-AbC123/nested",
      "/tmp/my-proofgate-base-999999-AbC123",
    ]);
    expect(staleGateWorktrees(porcelain, ["/tmp"], alive)).toEqual(["/tmp/proofgate-base-999999-AbC123"]);
  });

  it("reads the temp folder under either spelling (a symlinked /tmp)", () => {
    const porcelain = list(["/private/tmp/proofgate-base-999999-AbC123"]);
    expect(staleGateWorktrees(porcelain, ["/tmp", "/private/tmp"], alive)).toEqual([
      "/private/tmp/proofgate-base-999999-AbC123",
    ]);
  });
});

describe("the base worktree on disk", () => {
  const repo = scratchRepo("proofgate-worktrees-");
  afterAll(() => repo.cleanup());
  const at: GitRepo = { cwd: repo.dir, env: { ...process.env, ...ISOLATED_GIT_ENV } };
  repo.commit("a", { "a.txt": "a\n" });

  it("is named by the gate's process id, and removed with git's note", () => {
    const dir = addWorktree("HEAD", at);
    expect(dir).toMatch(new RegExp(`/proofgate-base-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(existsSync(join(dir, "a.txt"))).toBe(true);
    removeWorktree(dir, at);
    expect(existsSync(dir)).toBe(false);
    expect(repo.git(["worktree", "list", "--porcelain"])).not.toContain(dir);
  });

  it("prunes a worktree a dead gate left, keeps a live gate's and the user's own", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    }).stdout;
    const stale = mkdtempSync(join(tmpdir(), `proofgate-base-${dead}-`));
    const live = mkdtempSync(join(tmpdir(), `proofgate-base-${process.ppid}-`));
    const mine = mkdtempSync(join(tmpdir(), "user-worktree-"));
    for (const d of [stale, live, mine]) {
      rmSync(d, { recursive: true });
      repo.git(["worktree", "add", "--detach", "--quiet", d, "HEAD"]);
    }
    try {
      expect(pruneStaleWorktrees(at)).toEqual([stale]);
      expect(existsSync(stale)).toBe(false);
      const listed = repo.git(["worktree", "list", "--porcelain"]);
      expect(listed).not.toContain(stale);
      expect(listed).toContain(live);
      expect(listed).toContain(mine);
    } finally {
      for (const d of [live, mine]) removeWorktree(d, at);
    }
  });
});

// resolveProjectRoot (`check --root`) on a real repository: the folders it takes and the ones it refuses.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GateError } from "@proofgate/core";
import { ISOLATED_GIT_ENV, scratchRepo, type ScratchRepo } from "../testing/index.js";
import { resolveProjectRoot } from "./project-root.js";

const env = { ...process.env, ...ISOLATED_GIT_ENV };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (GateError.isInstance(error)) return error.issues.map((i) => `${i.code}: ${i.message} | ${i.fix}`).join("\n");
    throw error;
  }
  throw new Error("not refused");
}

describe("resolveProjectRoot", () => {
  let repo: ScratchRepo;
  const temps: string[] = [];
  afterEach(() => {
    repo.cleanup();
    for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
  });

  it("takes a package folder (relative or absolute, through a link above the repository) and the root itself", () => {
    repo = scratchRepo("proofgate-root-");
    repo.commit("base", { "pkgs/a/x.py": "x\n", "README.md": "r\n" });
    const top = realpathSync(repo.dir);
    expect(resolveProjectRoot(repo.dir, undefined, env)).toEqual({ dir: repo.dir, root: "" });
    expect(resolveProjectRoot(repo.dir, "pkgs/a", env)).toEqual({
      dir: join(top, "pkgs/a"),
      gitRoot: top,
      root: "pkgs/a",
    });
    expect(resolveProjectRoot(join(repo.dir, "pkgs"), "./a/", env)).toMatchObject({ root: "pkgs/a" });
    expect(resolveProjectRoot(repo.dir, ".", env)).toEqual({ dir: top, root: "" });
    // Without --root in a subfolder: that folder is the project, as `--root .` makes it.
    expect(resolveProjectRoot(join(repo.dir, "pkgs/a"), undefined, env)).toEqual({
      dir: join(top, "pkgs/a"),
      gitRoot: top,
      root: "pkgs/a",
    });
    // Outside any repository: the folder as it is.
    const plain = mkdtempSync(join(tmpdir(), "proofgate-root-plain-"));
    temps.push(plain);
    expect(resolveProjectRoot(plain, undefined, env)).toEqual({ dir: plain, root: "" });
    // A link outside the repository (a temp folder's) is the machine's, not the patch's.
    const outside = mkdtempSync(join(tmpdir(), "proofgate-root-link-"));
    temps.push(outside);
    symlinkSync(repo.dir, join(outside, "checkout"));
    expect(resolveProjectRoot(join(outside, "checkout"), "pkgs/a", env)).toMatchObject({
      root: "pkgs/a",
      gitRoot: top,
    });
    expect(resolveProjectRoot(repo.dir, join(outside, "checkout", "pkgs", "a"), env)).toMatchObject({ root: "pkgs/a" });
  });

  it("refuses a missing folder, a file, a folder outside, a link inside, .git and a nested repository", () => {
    repo = scratchRepo("proofgate-root-bad-");
    repo.commit("base", { "pkgs/a/x.py": "x\n" });
    symlinkSync("pkgs/a", join(repo.dir, "alias"));
    symlinkSync("a", join(repo.dir, "pkgs", "link"));
    const nested = scratchRepo("proofgate-root-nested-");
    nested.commit("n", { "y.py": "y\n" });
    mkdirSync(join(repo.dir, "vendor"));
    symlinkSync(nested.dir, join(repo.dir, "vendor", "n"));
    try {
      expect(refusal(() => resolveProjectRoot(repo.dir, "pkgs/c", env))).toMatch(
        /^usage: --root "pkgs\/c" does not exist .*\| pass the package's folder/,
      );
      expect(refusal(() => resolveProjectRoot(repo.dir, "pkgs/a/x.py", env))).toMatch(/is not a folder/);
      expect(refusal(() => resolveProjectRoot(repo.dir, "..", env))).toMatch(
        /--root "\.\." is outside the git repository/,
      );
      expect(refusal(() => resolveProjectRoot(repo.dir, nested.dir, env))).toMatch(/is outside the git repository/);
      expect(refusal(() => resolveProjectRoot(repo.dir, "alias", env))).toMatch(
        /--root "alias" passes through a symlink/,
      );
      expect(refusal(() => resolveProjectRoot(repo.dir, "pkgs/link", env))).toMatch(/passes through a symlink/);
      expect(refusal(() => resolveProjectRoot(repo.dir, ".git", env))).toMatch(/inside the repository's \.git folder/);
      expect(refusal(() => resolveProjectRoot(repo.dir, "", env))).toMatch(/names no folder/);
      const notRepo = mkdtempSync(join(tmpdir(), "proofgate-root-none-"));
      temps.push(notRepo);
      expect(refusal(() => resolveProjectRoot(notRepo, ".", env))).toMatch(/is not in a git repository/);
    } finally {
      nested.cleanup();
    }
  });
});

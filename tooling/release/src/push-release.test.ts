// Pushing a release tree to the repository users reference, against real git repositories on disk.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ISOLATED_GIT_ENV } from "@proofgate/gate/testing";

const SCRIPT = new URL("../push-release.mjs", import.meta.url).pathname;
let temp: string;
let remote: string;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), "proofgate-push-"));
  remote = join(temp, "remote.git");
  git(temp, ["init", "-q", "--bare", "-b", "main", remote]);
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

const env = { ...process.env, ...ISOLATED_GIT_ENV };
function git(cwd: string, args: string[]): string {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}
function tree(name: string, files: Record<string, string>): string {
  const dir = join(temp, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
function push(dir: string, tag: string, url = `file://${remote}`) {
  return spawnSync(process.execPath, [SCRIPT, "--tree", dir, "--remote", url, "--tag", tag], { env, encoding: "utf8" });
}
const filesAt = (ref: string) =>
  git(temp, ["--git-dir", remote, "ls-tree", "-r", "--name-only", ref]).trim().split("\n");

it("pushes the tree as the branch's commit and tags it; the next release replaces the tree whole", () => {
  const first = push(tree("t1", { "action.yml": "a", "dist/proofgate.js": "b", "README.md": "c" }), "v0.1.0");
  expect(first.stderr).toBe("");
  expect(first.status).toBe(0);
  expect(filesAt("v0.1.0")).toEqual(["README.md", "action.yml", "dist/proofgate.js"]);
  const second = push(tree("t2", { "action.yml": "a2", "dist/chunk.js": "d", "README.md": "c" }), "v0.2.0");
  expect(second.status).toBe(0);
  expect(filesAt("v0.2.0")).toEqual(["README.md", "action.yml", "dist/chunk.js"]);
  expect(filesAt("main")).toEqual(filesAt("v0.2.0"));
  expect(git(temp, ["--git-dir", remote, "rev-list", "--count", "main"]).trim()).toBe("2");
  // The first release's tag still holds its tree.
  expect(filesAt("v0.1.0")).toContain("dist/proofgate.js");
});

it("a re-run of the same release does nothing; another tree under an existing tag is refused", () => {
  const dir = tree("t1", { "plugin.yml": "a" });
  expect(push(dir, "v1.0.0").status).toBe(0);
  const again = push(dir, "v1.0.0");
  expect(again.status).toBe(0);
  expect(again.stdout).toMatch(/already has v1\.0\.0 with this tree/);
  const moved = push(tree("t2", { "plugin.yml": "b" }), "v1.0.0");
  expect(moved.status).toBe(2);
  expect(moved.stderr).toMatch(/already has v1\.0\.0 with another tree: a release tag is never moved\n$/);
  expect(git(temp, ["--git-dir", remote, "rev-list", "--count", "main"]).trim()).toBe("1");
});

it("never prints the token of the remote URL, and refuses a tag that is not a release", () => {
  const secret = push(tree("t1", { a: "1" }), "v1.0.0", "https://x-access-token:s3cr3t@127.0.0.1:9/none.git");
  expect(secret.status).toBe(2);
  expect(secret.stderr + secret.stdout).not.toContain("s3cr3t");
  expect(secret.stderr).toMatch(/^push-release: git ls-remote failed \(https:\/\/127\.0\.0\.1:9\/none\.git\)/);
  const bad = push(tree("t2", { a: "1" }), "latest");
  expect(bad.stderr).toBe('push-release: --tag "latest" is not a release tag like v1.2.3 or 1.2.3\n');
});

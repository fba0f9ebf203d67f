// Pushes a release tree (the action's, the GitLab catalog project's, the Buildkite plugin's) to the
// repository users reference: the tree becomes the branch's next commit, whole (files it no longer has
// are removed), and that commit gets the release tag. A tag is never moved: re-running a release whose
// tag already holds the same tree does nothing, and a different tree under an existing tag is an error.
//
//   node tooling/release/push-release.mjs --tree DIR --remote URL --tag TAG [--branch main]
//
// The remote URL may carry a token (https://x-access-token:TOKEN@github.com/...); it is never printed.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
};
const tree = arg("tree");
const remote = arg("remote");
const tag = arg("tag");
const branch = arg("branch", "main");
const shown = (remote ?? "").replace(/\/\/[^@/]*@/, "//");

class ReleaseError extends Error {}
const fail = (message) => {
  throw new ReleaseError(message);
};

const work = mkdtempSync(join(tmpdir(), "push-release-"));
const identity = [
  "-c",
  `user.name=${process.env.RELEASE_GIT_NAME ?? "github-actions[bot]"}`,
  "-c",
  `user.email=${process.env.RELEASE_GIT_EMAIL ?? "41898282+github-actions[bot]@users.noreply.github.com"}`,
];
const git = (args, { ok = [0] } = {}) => {
  const r = spawnSync("git", [...identity, ...args], { cwd: work, encoding: "utf8" });
  if (!ok.includes(r.status ?? -1))
    fail(`git ${args[0]} failed (${shown}): ${(r.stderr || r.stdout).replaceAll(remote ?? "", shown).trim()}`);
  return r;
};

try {
  if (!tree || !remote || !tag) fail("usage: push-release.mjs --tree DIR --remote URL --tag TAG [--branch main]");
  if (!/^v?\d+\.\d+\.\d+$/.test(tag)) fail(`--tag ${JSON.stringify(tag)} is not a release tag like v1.2.3 or 1.2.3`);
  git(["init", "-q", "-b", branch]);
  git(["remote", "add", "origin", remote]);
  const heads = git(["ls-remote", "origin", `refs/heads/${branch}`, `refs/tags/${tag}`]).stdout;
  const hasBranch = heads.includes(`refs/heads/${branch}\n`) || heads.endsWith(`refs/heads/${branch}`);
  if (hasBranch) {
    git(["fetch", "-q", "origin", `refs/heads/${branch}:refs/remotes/origin/${branch}`]);
    git(["reset", "-q", "--soft", `origin/${branch}`]);
  }
  // The index is the tree, exactly: every file of DIR, nothing else.
  git(["rm", "-rq", "--cached", "--ignore-unmatch", "."]);
  for (const name of readdirSync(work)) if (name !== ".git") rmSync(join(work, name), { recursive: true, force: true });
  cpSync(resolve(tree), work, { recursive: true });
  git(["add", "-A"]);
  const treeId = git(["write-tree"]).stdout.trim();

  if (heads.includes(`refs/tags/${tag}`)) {
    git(["fetch", "-q", "origin", `refs/tags/${tag}:refs/tags/${tag}`]);
    const tagged = git(["rev-parse", `refs/tags/${tag}^{tree}`]).stdout.trim();
    if (tagged !== treeId) fail(`${shown} already has ${tag} with another tree: a release tag is never moved`);
    process.stdout.write(`push-release: ${shown} already has ${tag} with this tree\n`);
  } else {
    const unchanged = hasBranch && git(["rev-parse", `origin/${branch}^{tree}`]).stdout.trim() === treeId;
    if (!unchanged) git(["commit", "-q", "-m", `Release ${tag}`]);
    git(["tag", "-a", tag, "-m", `Release ${tag}`]);
    git(["push", "-q", "origin", `HEAD:refs/heads/${branch}`, `refs/tags/${tag}`]);
    process.stdout.write(`push-release: ${shown} ${branch} and ${tag} hold ${tree}\n`);
  }
} catch (error) {
  if (!(error instanceof ReleaseError)) throw error;
  process.stderr.write(`push-release: ${error.message}\n`);
  process.exitCode = 2;
} finally {
  rmSync(work, { recursive: true, force: true });
}

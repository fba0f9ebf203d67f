// The property suite's seeds as they were at a revision, from git objects (never the work tree), written
// read-only so the suite runs on seeds that predate the patch.
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { GateError } from "@proofgate/core";
import type { GitPort, SeedWriter } from "../ports.js";

function ancestorsWithin(folder: string, root: string): string[] {
  const out: string[] = [];
  for (let f = folder; f.startsWith(root); f = dirname(f)) {
    out.push(f);
    if (f === root) break;
  }
  return out;
}

/**
 * The seed writer on this machine: reads the seed folders at `ref` through `git` and writes them under
 * `out` (relative to `root`), files and folders read-only. A folder that is not empty, a symlink or a
 * submodule among the seeds, or a ref that is no commit, is a GateError.
 */
export function nodeSeedWriter(git: GitPort, root: string): SeedWriter {
  return ({ ref, dirs, out: outPath }) => {
    const out = resolve(root, outPath);
    const sha = git.resolveCommit(ref);
    if (sha === undefined)
      throw new GateError({
        code: "usage",
        message: `--ref ${ref} is not a commit in this repository`,
        fix: "pass the base commit (fetch it first in a shallow clone)",
      });
    if (existsSync(out) && readdirSync(out).length > 0) {
      throw new GateError({
        code: "usage",
        file: out,
        message: "the output folder is not empty",
        fix: "pass a new or empty folder: nothing is overwritten",
      });
    }
    const written: string[] = [];
    for (const dir of dirs) {
      for (const entry of git.listFilesAt(sha, dir)) {
        if (entry.mode !== "100644" && entry.mode !== "100755") {
          const kind =
            entry.mode === "120000" ? "symlink" : entry.type === "commit" ? "submodule" : `mode ${entry.mode} entry`;
          throw new GateError({
            code: "usage",
            file: `${ref}:${entry.path}`,
            message: `is a ${kind}, not a seed file`,
            fix: "keep seeds as plain files",
          });
        }
        const bytes = git.readBlobAt(sha, entry.path);
        if (bytes === undefined)
          throw new GateError({
            code: "git_failed",
            file: `${ref}:${entry.path}`,
            message: "is listed but cannot be read",
            fix: "check the repository: git fsck",
          });
        const target = join(out, entry.path);
        if (relative(out, target).split(sep).includes(".."))
          throw new GateError({
            code: "usage",
            file: entry.path,
            message: "would be written outside the output folder",
            fix: "rename the seed file",
          });
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, bytes, { mode: 0o444 });
        written.push(target);
      }
    }
    // Folders last, deepest first, so the files could be written into them.
    const folders = new Set(written.map((f) => dirname(f)));
    for (const folder of [...folders].flatMap((f) => ancestorsWithin(f, out)).sort((a, b) => b.length - a.length))
      chmodSync(folder, 0o555);
    return { sha, files: written };
  };
}

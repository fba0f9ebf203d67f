import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { GateError } from "@proofgate/core";
import { listFlag, stringFlag } from "../flags.js";
import type { CliIo } from "../io.js";
import { loadWorkTreeConfig } from "../config-file.js";
import { listFilesAt, readBlobAt, resolveCommit } from "../git.js";

/** Options of `proofgate seeds materialize`. */
export interface SeedsArgs {
  [flag: string]: unknown;
  ref?: unknown;
  out?: unknown;
  seeds?: unknown;
}

/**
 * `proofgate seeds materialize --ref REF --out DIR`: writes the seed corpus as it was at REF, from git
 * objects (never the work tree), with files and folders read-only, so the property suite runs on
 * seeds that predate the patch. Refuses to write into a folder that is not empty.
 */
export function runSeedsMaterialize(args: SeedsArgs, io: CliIo): number {
  const ref = stringFlag("ref", args.ref, "");
  const out = resolve(io.cwd, stringFlag("out", args.out, ""));
  const dirs = seedDirs(args, io.cwd);
  const sha = resolveCommit(ref, io.cwd);
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
    for (const entry of listFilesAt(sha, dir, io.cwd)) {
      if (entry.mode !== "100644" && entry.mode !== "100755") {
        throw new GateError({
          code: "usage",
          file: `${ref}:${entry.path}`,
          message: `is a ${entry.mode === "120000" ? "symlink" : entry.type === "commit" ? "submodule" : `mode ${entry.mode} entry`}, not a seed file`,
          fix: "keep seeds as plain files",
        });
      }
      const bytes = readBlobAt(sha, entry.path, io.cwd);
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
  io.stderr(
    `proofgate: wrote ${written.length} seed file(s) from ${ref} (${sha.slice(0, 12)}) under ${out}, read-only\n`,
  );
  if (written.length === 0) {
    io.stderr(
      `proofgate: warning: ${dirs.join(", ")} has no files at ${ref}: the property suite would run on no seeds (seeds_empty)\n`,
    );
    return 1;
  }
  return 0;
}

function ancestorsWithin(folder: string, root: string): string[] {
  const out: string[] = [];
  for (let f = folder; f.startsWith(root); f = dirname(f)) {
    out.push(f);
    if (f === root) break;
  }
  return out;
}

/** The seed folders: `--seeds`, else `[properties] seeds` of the work tree's proofgate.toml, else the default. */
function seedDirs(args: SeedsArgs, cwd: string): string[] {
  const flags = listFlag("seeds", args.seeds);
  return flags.length > 0 ? flags : loadWorkTreeConfig(cwd).properties.seeds;
}

import { resolve } from "node:path";
import { listFlag, stringFlag } from "../flags.js";
import type { CliIo } from "../io.js";
import { loadWorkTreeConfig } from "../config-file.js";
import { nodeGit, nodeSeedWriter } from "@proofgate/gate/node";

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
  const flags = listFlag("seeds", args.seeds);
  const dirs = flags.length > 0 ? flags : loadWorkTreeConfig(io.cwd).properties.seeds;
  const write = nodeSeedWriter(nodeGit({ cwd: io.cwd, env: io.env }), io.cwd);
  const { sha, files } = write({ ref, dirs, out });
  io.stderr(
    `proofgate: wrote ${files.length} seed file(s) from ${ref} (${sha.slice(0, 12)}) under ${out}, read-only\n`,
  );
  if (files.length === 0) {
    io.stderr(
      `proofgate: warning: ${dirs.join(", ")} has no files at ${ref}: the property suite would run on no seeds (seeds_empty)\n`,
    );
    return 1;
  }
  return 0;
}

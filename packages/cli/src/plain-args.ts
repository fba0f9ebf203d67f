// The plain forms of the command lines bin.ts runs without yargs: `lock` (with lock-entry.ts) and, through
// `plainValue`, `deselect` (deselect-entry.ts). Each runs in every CI job (lock in pre-commit hooks too), and
// yargs was a good part of their start-up (about 45 ms of lock on 20,000 small files, BENCHMARKS.md issue 25
// item 3). A module of its own, importing only a type, so that bin.ts tells a plain `lock` line before it
// loads anything else and starts the hash workers: `lock --help` and a usage error start none, and go to
// yargs. lock-entry.test.ts and deselect-entry.test.ts run both paths on the same command lines.
import type { LockArgs } from "./commands/lock.js";

/** A flag's value in a plain form: not empty, not flag-like (yargs reads those differently or refuses them). */
export const plainValue = (value: string | undefined): value is string =>
  value !== undefined && value !== "" && !value.startsWith("-");

/**
 * The options of a `proofgate lock` command line in a plain form, as yargs would hand them over, or
 * undefined. Plain: `lock` then, each at most once and in any order, `--check`, `--lock FILE` or
 * `--lock=FILE`, and `--paths P [P ...]`.
 */
export function plainLockArgs(argv: readonly string[]): LockArgs | undefined {
  if (argv[0] !== "lock") return undefined;
  let check: boolean | undefined;
  let lock: string | undefined;
  let paths: string[] | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--check" && check === undefined) check = true;
    else if (arg === "--lock" && lock === undefined && plainValue(argv[i + 1])) lock = argv[++i];
    else if (arg.startsWith("--lock=") && lock === undefined && plainValue(arg.slice("--lock=".length)))
      lock = arg.slice("--lock=".length);
    else if (arg === "--paths" && paths === undefined && plainValue(argv[i + 1])) {
      paths = [];
      while (plainValue(argv[i + 1])) paths.push(argv[++i]!);
    } else return undefined;
  }
  return { check: check ?? false, ...(lock === undefined ? {} : { lock }), ...(paths === undefined ? {} : { paths }) };
}

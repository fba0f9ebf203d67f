// `proofgate lock` without yargs. The lock is a hot path (a pre-commit hook, every CI run) whose work on
// many small files is short, and loading yargs and the whole CLI (about 90 ms while the hash workers
// start beside it) is a good part of it (BENCHMARKS.md, issue 4). The modules it loads import core by
// module, not through its index. bin.ts asks this module first: a plain command line runs here; any other
// (--help, an unknown or repeated flag, `--no-check`, a value that starts with `-`, ...) returns
// undefined and goes to yargs, which gives the same answer for the plain forms (tested in
// lock-entry.test.ts) and the usual usage errors for the rest.
import { runLock, settingsFromConfig, type LockArgs } from "./commands/lock.js";
import { printFailure } from "./messages.js";
import { loadWorkTreeConfig } from "./config-file.js";
import type { CliIo } from "./io.js";

/** A flag's value in a plain form: not empty, not flag-like. */
const plainValue = (value: string | undefined): value is string => value !== undefined && value !== "" && !value.startsWith("-");

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
    else if (arg.startsWith("--lock=") && lock === undefined && plainValue(arg.slice("--lock=".length))) lock = arg.slice("--lock=".length);
    else if (arg === "--paths" && paths === undefined && plainValue(argv[i + 1])) {
      paths = [];
      while (plainValue(argv[i + 1])) paths.push(argv[++i]!);
    } else return undefined;
  }
  return { check: check ?? false, ...(lock === undefined ? {} : { lock }), ...(paths === undefined ? {} : { paths }) };
}

/**
 * Runs `proofgate lock` when `argv` is in a plain form (see `plainLockArgs`) and returns its exit code,
 * as `run` in main.ts would; undefined when the command line is for yargs.
 */
export async function runPlainLock(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  const args = plainLockArgs(argv);
  if (!args) return undefined;
  try {
    return await runLock(args, io, settingsFromConfig(loadWorkTreeConfig(io.cwd)));
  } catch (error) {
    printFailure(error, io);
    return 2;
  }
}

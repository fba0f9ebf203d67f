// `proofgate lock` without yargs. The lock is a hot path (a pre-commit hook, every CI run) whose work on
// many small files is short, and loading yargs and the whole CLI (about 90 ms while the hash workers
// start beside it) is a good part of it (BENCHMARKS.md, issue 4). The modules it loads import core by
// module, not through its index. bin.ts runs a plain command line here (`plainLockArgs`, lock-args.ts);
// any other (--help, an unknown or repeated flag, `--no-check`, a value that starts with `-`, ...) goes
// to yargs, which gives the same options for the plain forms (tested in lock-entry.test.ts) and the
// usual usage errors for the rest, and then runs `lock` here too.
import { settingsFromConfig } from "@proofgate/gate/fixture-lock";
import { runLock, type LockArgs } from "./commands/lock.js";
import { printFailure } from "./messages.js";
import { loadWorkTreeConfig } from "./config-file.js";
import type { CliIo } from "./io.js";

/**
 * Runs `proofgate lock` with its options (from `plainLockArgs`, or from yargs in main.ts) and the
 * defaults of the work tree's proofgate.toml; a failure is printed, and exit code 2.
 */
export async function runLockCommand(args: LockArgs, io: CliIo): Promise<number> {
  try {
    return await runLock(args, io, settingsFromConfig(loadWorkTreeConfig(io.cwd)));
  } catch (error) {
    printFailure(error, io);
    return 2;
  }
}

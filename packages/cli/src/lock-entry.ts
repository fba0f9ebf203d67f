// `proofgate lock`, run from bin.ts for a plain command line (plain-args.ts) or from main.ts once yargs has
// parsed it: the options with the defaults of the work tree's proofgate.toml. Its modules import core by module, not through its index, so the lock (a
// pre-commit hook, every CI run) does not load the gate's policy.
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

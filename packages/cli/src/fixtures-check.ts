import type { GateConfig, LockDelta } from "@proofgate/core";
import { printWarnings } from "./messages.js";
import { checkFixtureLock, settingsFromConfig } from "./commands/lock.js";
import type { CliIo } from "./io.js";

/**
 * The fixture files in the work tree against the lock in the work tree (`fixtures_unlocked`): what
 * changed, was added or is missing, and the digest of the lock they were compared with. An unreadable
 * tree or an invalid lock is a GateError (exit 2).
 */
export async function unlockedFixtures(
  config: GateConfig,
  io: CliIo,
): Promise<{ delta: LockDelta; lockSha256: string }> {
  const { comparison, lockSha256, warnings } = await checkFixtureLock(io.cwd, settingsFromConfig(config));
  printWarnings(io, warnings);
  return { delta: { changed: comparison.changed, added: comparison.added, removed: comparison.removed }, lockSha256 };
}

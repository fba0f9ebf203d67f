import { GateError, compareLockToTree, parseFixturesLock, type GateConfig, type LockDelta } from "@proofgate/core";
import { join } from "node:path";
import { hashFixtures } from "./hash-files.js";
import { readInputBytes, asText } from "./io.js";

/**
 * The fixture files in the work tree against the lock in the work tree (`fixtures_unlocked`): what
 * changed, was added or is missing. Unreadable trees and invalid locks are GateErrors (exit 2).
 */
export async function unlockedFixtures(config: GateConfig, cwd: string): Promise<LockDelta> {
  const lockPath = join(cwd, config.fixtures.lock);
  const lock = parseFixturesLock(asText(readInputBytes(lockPath, "the fixture lock", "[fixtures] lock"), "the fixture lock").text, config.fixtures.lock, { allowSpecialNames: config.fixtures.allowSpecialNames });
  if (lock.errors.length > 0) throw new GateError(lock.errors);
  const tree = await hashFixtures(cwd, config.fixtures.paths, { allowSymlinks: config.fixtures.allowSymlinks, allowSpecialNames: config.fixtures.allowSpecialNames, exclude: [config.fixtures.lock] });
  if (tree.errors.length > 0) throw new GateError(tree.errors);
  const { changed, added, removed } = compareLockToTree(lock.entries, tree.entries);
  return { changed, added, removed };
}

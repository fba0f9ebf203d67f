// Core by module, not through its index: the lock path loads no more of core than it uses.
import { GateError } from "@proofgate/core/errors";
import type { FixturesLockDiff } from "@proofgate/core/fixtures-lock";
import {
  checkFixtureLock,
  DEFAULT_LOCK_SETTINGS,
  writeFixtureLock,
  type LockSettings,
} from "@proofgate/gate/fixture-lock";
import { listFlag, stringFlag } from "../flags.js";
import { printWarnings } from "../messages.js";
import type { CliIo } from "../io.js";

/** Options of `proofgate lock`, as yargs hands them over. */
export interface LockArgs {
  [flag: string]: unknown;
  paths?: unknown;
  lock?: unknown;
  check?: unknown;
}

/** A path for a one-line message: as is, or JSON-quoted when it holds a control character. */
function shown(path: string): string {
  return /[\u0000-\u001f\u007f]/.test(path) ? JSON.stringify(path) : path;
}

function listing(diff: FixturesLockDiff): string {
  return [
    ...diff.changed.map((p) => `  changed  ${shown(p)}\n`),
    ...diff.added.map((p) => `  added    ${shown(p)}\n`),
    ...diff.removed.map((p) => `  removed  ${shown(p)}\n`),
  ].join("");
}

function counts(diff: FixturesLockDiff): string {
  return `${diff.changed.length} changed, ${diff.added.length} added, ${diff.removed.length} removed`;
}

/**
 * `proofgate lock`: hashes the fixture files and writes the lock atomically (only when it changes),
 * printing what changed; a malformed old lock is replaced, with a warning per problem. With `check`,
 * writes nothing: exit 0 when the lock matches the files, exit 1 listing the files changed, added and
 * removed. A bad lock (with `check`) or a bad tree (symlinks, special names, missing paths) is a
 * GateError: exit 2, one line per problem.
 */
export async function lockFixtures(settings: LockSettings, check: boolean, io: CliIo): Promise<number> {
  if (check) {
    const { comparison, files, warnings } = await checkFixtureLock(io.cwd, settings);
    printWarnings(io, warnings);
    if (comparison.equal) {
      io.stdout(`${settings.lock} matches the ${files} fixture file(s)\n`);
      return 0;
    }
    io.stdout(
      `fixtures_unlocked: ${settings.lock} differs from the fixture files (${counts(comparison)}):\n${listing(comparison)}` +
        `Fix: review the change, then run \`proofgate lock\` and commit ${settings.lock} (a fixture change needs Fixture-Lock: human)\n`,
    );
    return 1;
  }
  const written = await writeFixtureLock(io.cwd, settings);
  printWarnings(io, written.warnings);
  if (written.outcome === "refused") throw new GateError(written.errors);
  if (written.outcome === "up_to_date") io.stdout(`${settings.lock} is up to date (${written.files} file(s))\n`);
  else if (written.outcome === "new") io.stdout(`wrote ${settings.lock}: ${written.files} file(s), a new lock\n`);
  else
    io.stdout(`wrote ${settings.lock}: ${written.files} file(s) (${counts(written.diff!)})\n${listing(written.diff!)}`);
  return 0;
}

/** `proofgate lock [--paths P ...] [--lock FILE] [--check]`; `defaults` come from proofgate.toml's `[fixtures]`. */
export async function runLock(
  args: LockArgs,
  io: CliIo,
  defaults: LockSettings = DEFAULT_LOCK_SETTINGS,
): Promise<number> {
  const paths = listFlag("paths", args.paths);
  const settings: LockSettings = {
    ...defaults,
    paths: paths.length > 0 ? paths : defaults.paths,
    lock: stringFlag("lock", args.lock, defaults.lock),
  };
  return lockFixtures(settings, args.check === true, io);
}

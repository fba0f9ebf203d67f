// The fixture lock on disk: hash the fixture tree (in worker threads), compare it with the lock, or
// write the lock anew. Shared by `proofgate lock`, `proofgate init` and the gate's fixtures_unlocked.
import { isAbsolute, join, relative, sep } from "node:path";
// Core by module, not through its index: the lock path loads no more of core than it uses.
import type { GateConfig } from "@proofgate/core/config";
import { GateError, type GateIssue } from "@proofgate/core/errors";
import {
  compareLockToTree,
  parseFixturesLock,
  type FixtureDigest,
  type FixturesLockDiff,
  type LockTreeComparison,
} from "@proofgate/core/fixtures-lock";
import { hashFixtures, type HashFixturesOptions, type HashFixturesResult } from "./fixture-hashing/hash-files.js";
import { asText, readInputBytes, writeAtomic, type DiskBytes } from "./files.js";
import type { FixtureHasher } from "../ports.js";

/** Where the fixtures and their lock are, and what the walk tolerates (from `[fixtures]` in proofgate.toml). */
export interface LockSettings {
  /** Files or folders, relative to the repo root. Default `tests/fixtures`. */
  paths: readonly string[];
  /** The lock file, relative to the repo root. Default `fixtures.lock`. */
  lock: string;
  allowSymlinks?: boolean | undefined;
  allowSpecialNames?: boolean | undefined;
  /** Tuning and tests: threads, worker script, buffer size. */
  hash?: Pick<HashFixturesOptions, "threads" | "workerUrl" | "bufferSize"> | undefined;
}

/** `[fixtures]` of proofgate.toml as lock settings. */
export function settingsFromConfig(config: GateConfig): LockSettings {
  const { paths, lock, allowSymlinks, allowSpecialNames } = config.fixtures;
  return { paths, lock, allowSymlinks, allowSpecialNames };
}

/** The defaults of `[fixtures]`: `tests/fixtures` and `fixtures.lock`. */
export const DEFAULT_LOCK_SETTINGS: LockSettings = { paths: ["tests/fixtures"], lock: "fixtures.lock" };

/** The lock as `LockSettings.lock` names it, resolved against the repo root, and its repo-relative form. */
export function lockPaths(root: string, lock: string): { abs: string; rel: string } {
  const abs = isAbsolute(lock) ? lock : join(root, lock);
  return { abs, rel: relative(root, abs).split(sep).join("/") };
}

/**
 * Hashes the tree; every walk or read problem is a GateError (exit 2), and so is a tree with no file.
 * `noFiles`: no file was found and nothing else went wrong (the paths are missing or empty).
 */
async function hashTree(
  root: string,
  settings: LockSettings,
  lockRel: string,
): Promise<HashFixturesResult & { noFiles: boolean }> {
  const tree = await hashFixtures(root, settings.paths, {
    allowSymlinks: settings.allowSymlinks,
    allowSpecialNames: settings.allowSpecialNames,
    exclude: [lockRel],
    ...settings.hash,
  });
  const noFiles = tree.files === 0 && tree.errors.every((e) => e.code === "file_missing");
  if (tree.errors.length === 0 && tree.files === 0) {
    tree.errors.push({
      code: "fixtures_invalid",
      file: settings.paths.join(", "),
      message: "the fixture paths hold no file, and an empty lock verifies nothing (`sha256sum -c` refuses it)",
      fix: "add the golden files, or point [fixtures] paths (or --paths) at them",
    });
  }
  // Object.assign keeps the result's lazy `entries` (a spread would build them).
  return Object.assign(tree, { noFiles });
}

/** The lock text `proofgate lock` would write for the tree under `root`, or the tree's problems. */
export interface FixtureLockText {
  /** The lock's text, when the tree hashed without a problem. */
  text?: string | undefined;
  files: number;
  errors: GateIssue[];
  /** No fixture file was found, and nothing else went wrong: the paths are missing or empty. */
  noFiles: boolean;
}

/** Hashes the fixture tree under `root` into the text `proofgate lock` writes, without writing it. */
export async function fixtureLockText(root: string, settings: LockSettings): Promise<FixtureLockText> {
  const tree = await hashTree(root, settings, lockPaths(root, settings.lock).rel);
  if (tree.errors.length > 0) return { files: 0, errors: tree.errors, noFiles: tree.noFiles };
  return { text: Buffer.concat(tree.lock).toString("utf8"), files: tree.files, errors: [], noFiles: false };
}

/** A lock as read from disk: its entries and bytes, or nothing when it is missing. */
export interface ReadLock {
  entries?: FixtureDigest[] | undefined;
  /** The lock file's sha256 (hashed on first use). */
  readonly sha256?: string | undefined;
  bytes?: Buffer | undefined;
  /** Missing, unreadable or malformed. */
  errors: GateIssue[];
  warnings: GateIssue[];
}

export function readLock(abs: string, settings: LockSettings): ReadLock {
  return parseLock(readLockBytes(abs, settings), settings);
}

/** The lock's bytes as read from disk, or why there are none (missing, unreadable). */
type LockBytes = { input: DiskBytes; errors?: undefined } | { input?: undefined; errors: GateIssue[] };

function readLockBytes(abs: string, settings: LockSettings): LockBytes {
  try {
    return { input: readInputBytes(abs, "the fixture lock", "--lock") };
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    return { errors: lockErrors(error.issues, settings) };
  }
}

function lockErrors(issues: readonly GateIssue[], settings: LockSettings): GateIssue[] {
  const fix = (i: GateIssue): string | undefined =>
    i.code === "file_missing"
      ? "write it with `proofgate lock`, or set [fixtures] lock in proofgate.toml (or --lock)"
      : i.fix;
  return issues.map((i) => ({ ...i, file: settings.lock, fix: fix(i) }));
}

function parseLock(read: LockBytes, settings: LockSettings): ReadLock {
  if (read.input === undefined) return { errors: read.errors ?? [], warnings: [] };
  const input = read.input;
  try {
    const parsed = parseFixturesLock(asText(input, "the fixture lock").text, settings.lock, {
      allowSpecialNames: settings.allowSpecialNames,
    });
    return {
      entries: parsed.entries,
      bytes: input.bytes,
      get sha256() {
        return input.sha256;
      },
      errors: parsed.errors,
      warnings: parsed.warnings,
    };
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    return { errors: lockErrors(error.issues, settings), warnings: [] };
  }
}

/** `--check`'s answer: the lock against the files, how many files the tree has, and warnings to print. */
export interface FixtureLockCheck {
  comparison: LockTreeComparison;
  files: number;
  /** The sha256 of the lock compared, for a report's inputs. */
  lockSha256: string;
  warnings: GateIssue[];
}

/**
 * Compares the lock with the fixture files on disk (`fixtures_unlocked` when not `equal`), relative to
 * `root` (the repo root). A missing or malformed lock, and every tree problem (symlinks, special names,
 * missing paths, unreadable files, no file at all), is thrown as one GateError naming each file and line.
 */
export async function checkFixtureLock(root: string, settings: LockSettings): Promise<FixtureLockCheck> {
  const lock = lockPaths(root, settings.lock);
  const read = readLock(lock.abs, settings);
  const tree = await hashTree(root, settings, lock.rel);
  const problems = [...read.errors, ...tree.errors];
  if (problems.length > 0) throw new GateError(problems);
  return {
    comparison: compareLockToTree(read.entries ?? [], tree.entries),
    files: tree.files,
    lockSha256: read.sha256!,
    warnings: read.warnings,
  };
}

/** What writing the lock did: nothing (up to date), a new lock, a changed one and its diff, or refused. */
export interface FixtureLockWrite {
  files: number;
  outcome: "up_to_date" | "new" | "changed" | "refused";
  /** For `changed`: the entries changed, added and removed. */
  diff?: FixturesLockDiff | undefined;
  /** The old lock's problems (it is rewritten), one per line. */
  warnings: GateIssue[];
  /** Why the tree could not be locked (`refused`): symlinks, special names, missing paths. */
  errors: GateIssue[];
}

/**
 * Hashes the tree and writes the lock atomically when it differs (a malformed old lock is replaced, its
 * problems returned as warnings). A bad tree (symlinks, special names, missing paths) writes nothing.
 */
export async function writeFixtureLock(root: string, settings: LockSettings): Promise<FixtureLockWrite> {
  const lock = lockPaths(root, settings.lock);
  const bytes = readLockBytes(lock.abs, settings);
  const tree = await hashTree(root, settings, lock.rel);
  // A lock that is byte for byte the one the tree gives is up to date, and has nothing to warn about (it
  // is proofgate's own output): it is not parsed. Any other is, for its warnings and the diff.
  if (tree.errors.length === 0 && bytes.input?.bytes.equals(Buffer.concat(tree.lock)))
    return { files: tree.files, warnings: [], errors: [], outcome: "up_to_date" };
  const read = parseLock(bytes, settings);
  const missing = read.errors.length === 1 && read.errors[0]?.code === "file_missing";
  const warnings = [
    ...read.warnings,
    ...(missing ? [] : read.errors.map((e) => ({ ...e, message: `${e.message} (rewriting the lock)` }))),
  ];
  const done = { files: tree.files, warnings, errors: tree.errors };
  if (tree.errors.length > 0) return { ...done, outcome: "refused" };
  writeAtomic(lock.abs, tree.lock);
  if (missing) return { ...done, outcome: "new" };
  return { ...done, outcome: "changed", diff: compareLockToTree(read.entries ?? [], tree.entries) };
}

/** The fixture hasher on this machine: worker threads, the tree under `root`. */
export function nodeFixtureHasher(root: string, hash?: LockSettings["hash"]): FixtureHasher {
  return { check: (settings) => checkFixtureLock(root, { ...settings, hash }) };
}

import { isUtf8 } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writevSync,
} from "node:fs";
import { dirname, basename, join } from "node:path";
// Core by module, not through its index: `proofgate lock` loads this without the rest of core (lock-entry.ts).
import { parseIsoDate, utcDateOf, type IsoDate } from "@proofgate/core/dates";
import { GateError, type GateIssue } from "@proofgate/core/errors";

import type { CliIo } from "./cli-io.js";

export type { CliIo } from "./cli-io.js";

/** A file's text and digest. */
export interface InputFile {
  path: string;
  text: string;
  sha256: string;
}

/** A binary input file and its digest. */
export interface InputBytes {
  path: string;
  bytes: Buffer;
  sha256: string;
}

/** Reads an input file's bytes. Missing, a folder or unreadable: a GateError naming the file and its flag. */
export function readInputBytes(path: string, what: string, flag: string): InputBytes {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new GateError({
        code: "file_missing",
        file: path,
        message: `${what} does not exist`,
        fix: `create it, or pass its path with ${flag}`,
      });
    if (code === "EISDIR")
      throw new GateError({
        code: "file_unreadable",
        file: path,
        message: `${what} is a folder, not a file`,
        fix: `pass the file's path with ${flag}`,
      });
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot read ${what}: ${code ?? String(error)}`,
      fix: "check the path and its permissions",
    });
  }
  let digest: string | undefined;
  return {
    path,
    bytes,
    // Hashed on first use: only reports record digests, and a 100k-line universe costs real time.
    get sha256() {
      digest ??= createHash("sha256").update(bytes).digest("hex");
      return digest;
    },
  };
}

/**
 * Reads an input file as UTF-8. Missing, a folder, unreadable or not UTF-8: a GateError naming the
 * file and the flag that sets it.
 */
export function readInput(path: string, what: string, flag: string): InputFile {
  return asText(readInputBytes(path, what, flag), what);
}

/** The bytes as UTF-8 text; anything else is a GateError naming the file. */
export function asText(input: InputBytes, what: string): InputFile {
  if (!isUtf8(input.bytes)) {
    throw new GateError({
      code: "file_unreadable",
      file: input.path,
      message: `${what} is not UTF-8 text`,
      fix: "write it as UTF-8",
    });
  }
  return {
    path: input.path,
    text: input.bytes.toString("utf8"),
    get sha256() {
      return input.sha256;
    },
  };
}

/** Colour on a terminal, unless `NO_COLOR` is set (https://no-color.org); `FORCE_COLOR` forces it. */
export function colorWanted(
  io: CliIo,
  env: Readonly<Record<string, string | undefined>> = io.env ?? process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return io.isTTY === true && env.TERM !== "dumb";
}

/**
 * Writes a file whole or not at all: a temp file in the same folder, then a rename. Bytes given in
 * pieces are written as they are, with writev (no copy into one buffer).
 */
export function writeAtomic(path: string, content: string | readonly Uint8Array[]): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    if (typeof content === "string") writeFileSync(temp, content);
    else writePieces(temp, content);
    renameSync(temp, path);
  } catch (error) {
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot write: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      fix: "check that the folder exists and is writable",
    });
  }
}

/**
 * Creates a file whole, or leaves an existing one alone: never overwrites. The text goes to a temp file
 * (exclusive create, `wx`) and is hard-linked into place, which fails when the name exists, so a file
 * written meanwhile by someone else is not clobbered and no reader sees half a file. Where hard links
 * are not supported, the file is created with `wx` directly (still never overwrites). Returns false
 * when the file exists.
 */
export function writeNew(path: string, text: string): boolean {
  const fail = (error: unknown): GateError =>
    new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot write: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      fix: "check that the folder is writable",
    });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, text, { flag: "wx" });
  } catch (error) {
    throw fail(error);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw fail(error);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone: nothing to clean.
    }
  }
  try {
    writeFileSync(path, text, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw fail(error);
  }
}

function writePieces(path: string, pieces: readonly Uint8Array[]): void {
  const fd = openSync(path, "w");
  try {
    // writev takes at most IOV_MAX (1024 on Linux) pieces, and may write fewer bytes than asked.
    for (let i = 0; i < pieces.length; i += 1024) {
      const group = pieces.slice(i, i + 1024);
      const total = group.reduce((n, p) => n + p.byteLength, 0);
      const written = writevSync(fd, group);
      if (written < total) writeFileSync(fd, Buffer.concat(group).subarray(written));
    }
  } finally {
    closeSync(fd);
  }
}

/** Today's UTC date, from `--today` (a preview) or the machine's clock. */
export function resolveToday(flag: string | undefined, io: CliIo): { today: IsoDate; override: boolean } {
  if (flag === undefined) return { today: utcDateOf(io.now()), override: false };
  const today = parseIsoDate(flag);
  if (!today)
    throw new GateError({
      code: "usage",
      message: `--today ${JSON.stringify(flag)} is not a YYYY-MM-DD date`,
      fix: "write e.g. --today 2026-09-26",
    });
  return { today, override: today !== utcDateOf(io.now()) };
}

/** Throws the parse result's errors as one GateError; returns its value otherwise. */
export function orThrow<T>(result: { errors: readonly GateIssue[] }, value: T | undefined): T {
  if (result.errors.length > 0 || value === undefined)
    throw new GateError(result.errors.length ? result.errors : [{ code: "usage", message: "no value" }]);
  return value;
}

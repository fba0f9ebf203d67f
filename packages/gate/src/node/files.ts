// Files as the gate reads and writes them: an input's bytes with their digest, and whole-or-nothing
// writes. Every failure is a GateError that names the file and the flag or key that set it.
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writevSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
// Core by module, not through its index: `proofgate lock` loads this without the rest of core.
import { GateError } from "@proofgate/core/errors";
import type { FilePort } from "../ports.js";
import { asText } from "../input-text.js";

export { asText };

/** A file's text and digest. */
export type { InputFile, InputBytes } from "../ports.js";
import type { InputBytes, InputFile } from "../ports.js";

/** The bytes as read from disk. */
export type DiskBytes = InputBytes & { bytes: Buffer };

/** Reads an input file's bytes. Missing, a folder or unreadable: a GateError naming the file and its flag. */
export function readInputBytes(path: string, what: string, flag: string): DiskBytes {
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

/** `resolve`, refusing a relative path whose file (or nearest existing folder) resolves outside `root`. */
function confined(root: string, toAbsolute: (path: string) => string): (path: string) => string {
  let realRoot: string | undefined;
  return (path) => {
    const abs = toAbsolute(path);
    if (isAbsolute(path)) return abs;
    realRoot ??= realpathSync(root);
    let probe = abs;
    for (;;) {
      try {
        probe = realpathSync(probe);
        break;
      } catch {
        const up = dirname(probe);
        if (up === probe) return abs;
        probe = up;
      }
    }
    if (probe === realRoot || probe.startsWith(`${realRoot}${sep}`)) return abs;
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `resolves to ${probe}, outside the package folder ${root} (a symlink or ..)`,
      fix: "keep the package's inputs inside its folder, as regular files (check --root names the folder)",
    });
  };
}

/**
 * Reads an input file as UTF-8. Missing, a folder, unreadable or not UTF-8: a GateError naming the
 * file and the flag that sets it.
 */
export function readInput(path: string, what: string, flag: string): InputFile {
  return asText(readInputBytes(path, what, flag), what);
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

/** The first `bytes` bytes of a file (fewer when it is shorter); a GateError naming it when unreadable. */
function peekFile(path: string, bytes: number, what: string, flag: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    readInputBytes(path, what, flag); // throws the GateError that names the problem
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot read ${what}`,
      fix: "check the path and its permissions",
    });
  }
  try {
    const head = Buffer.alloc(bytes);
    return head.subarray(0, readSync(fd, head, 0, bytes, 0));
  } catch (error) {
    readInputBytes(path, what, flag); // a folder, or gone: the GateError that names it
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      fix: "pass the file's path with " + flag,
    });
  } finally {
    closeSync(fd);
  }
}

/** A file's bytes in chunks of `chunkBytes` (each chunk a fresh view: consume it before the next). */
function* fileChunks(path: string, chunkBytes: number, what: string, flag: string): Generator<Uint8Array> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    readInputBytes(path, what, flag);
    throw new GateError({
      code: "file_unreadable",
      file: path,
      message: `cannot read ${what}`,
      fix: "check the path and its permissions",
    });
  }
  try {
    const buffer = Buffer.alloc(chunkBytes);
    for (;;) {
      const n = readSync(fd, buffer, 0, chunkBytes, null);
      if (n === 0) return;
      yield buffer.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Deletes a folder that may be read-only (the base's seeds are written so). */
function removeTree(dir: string): void {
  if (!existsSync(dir)) return;
  const walk = (path: string): void => {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** The file port on disk, and how it resolves a path (for readers in other threads). */
export interface NodeFilePort extends FilePort {
  /** The absolute path a read of `path` opens; a GateError when `path` may not be read (outside a confined root). */
  absolute(path: string): string;
}

/**
 * The file port on this machine's file system: relative paths are read from `root` (the repository),
 * and named in messages as given.
 */
export function nodeFiles(root: string, options: { confine?: boolean } = {}): NodeFilePort {
  const resolved = (path: string): string => (isAbsolute(path) ? path : resolve(root, path));
  // A package's gate (`check --root`): an input named relative to the package must be in it, symlinks
  // resolved, or a patch could point the package's evidence at another package's (or anything on disk).
  const at = options.confine ? confined(root, resolved) : resolved;
  // Read from the resolved path; named, in the value and in any error, as the caller gave it.
  const renamed = (error: unknown, abs: string, path: string): unknown =>
    GateError.isInstance(error) && abs !== path
      ? new GateError(
          error.issues.map((i) => (i.file === abs ? { ...i, file: path } : i)),
          { cause: error },
        )
      : error;
  const named = <T>(path: string, read: (abs: string) => T): T => {
    const abs = at(path);
    try {
      const value = read(abs);
      return value && typeof value === "object" && "path" in value ? Object.assign(value, { path }) : value;
    } catch (error) {
      throw renamed(error, abs, path);
    }
  };
  return {
    root,
    absolute: at,
    readBytes: (path, what, flag) => named(path, (abs) => readInputBytes(abs, what, flag)),
    readText: (path, what, flag) => named(path, (abs) => readInput(abs, what, flag)),
    peek: (path, bytes, what, flag) => named(path, (abs) => peekFile(abs, bytes, what, flag)),
    chunks: function* (path, chunkBytes, what, flag) {
      const abs = at(path);
      try {
        yield* fileChunks(abs, chunkBytes, what, flag);
      } catch (error) {
        throw renamed(error, abs, path);
      }
    },
    stamp: (path) => {
      try {
        const s = statSync(at(path));
        return { mtimeMs: s.mtimeMs, size: s.size, ino: s.ino };
      } catch {
        return undefined;
      }
    },
    exists: (path) => existsSync(at(path)),
    writeAtomic: (path, text) => writeAtomic(at(path), text),
    removeTree: (path) => removeTree(at(path)),
    readSource: (path) => {
      try {
        return readFileSync(at(path), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

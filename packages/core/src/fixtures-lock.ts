import type { GateIssue } from "./errors.js";

/** One line of `fixtures.lock`: a file's sha256 and its path relative to the repo root. */
export interface FixtureLockEntry {
  /** 64 lowercase hex digits. */
  sha256: string;
  /** Relative to the repo root, `/`-separated, canonical (no `.`, `..` or empty segment). */
  path: string;
  /** The 1-based line of the lock that holds it; absent for entries hashed from the tree. */
  line?: number | undefined;
}

/** A file's digest as hashed from the tree or read from a lock (the line is not needed). */
export type FixtureDigest = Pick<FixtureLockEntry, "sha256" | "path">;

/** What the lock format and the walk tolerate beyond the strict default. */
export interface FixturePathOptions {
  /**
   * Names with a backslash, a newline or a carriage return. `sha256sum` escapes such a line with a
   * leading `\` (and `\\`, `\n`, `\r` in the name); off by default, so such a name is an error.
   */
  allowSpecialNames?: boolean | undefined;
}

/** `fixtures.lock` read: its entries in file order, or everything wrong with it. */
export interface FixturesLockParseResult {
  entries: FixtureLockEntry[];
  errors: GateIssue[];
  warnings: GateIssue[];
}

/** The files that differ between two locks (or a lock and the tree), each list in byte order. */
export interface FixturesLockDiff {
  /** In both, with another digest. */
  changed: string[];
  /** Only in the second (`after`, or the tree). */
  added: string[];
  /** Only in the first (`before`, or the lock). */
  removed: string[];
}

/** `--check`: the lock against the tree. `equal` when no file changed, was added or removed. */
export interface LockTreeComparison extends FixturesLockDiff {
  equal: boolean;
}

const HEX64 = /^[0-9a-f]{64}$/;
const LOCK_LINE = /^(\\?)([0-9A-Fa-f]{64}) ([ *])(.*)$/s;
const BSD_TAG = /^\\?SHA256 ?\(.*\) ?= ?[0-9A-Fa-f]{64}$/s;
const SPECIAL = /[\\\n\r]/;
const REWRITE_FIX = "rewrite the lock with `proofgate lock`";

/**
 * Compares two strings by the byte order of their UTF-8 encoding (what `LC_ALL=C sort` and
 * `sort -z` in the C locale give), not by UTF-16 code units as `<` and `Array.prototype.sort` do:
 * a character above U+FFFF sorts after U+E000-U+FFFF. Negative, zero or positive.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 and code point order agree except for surrogates (U+D800-U+DFFF), which stand for code
    // points above U+FFFF and must sort after U+E000-U+FFFF. Code point order is UTF-8 byte order.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Why `path` cannot be a fixture path of the lock, or undefined when it can: relative to the repo
 * root, `/`-separated, no `.`/`..`/empty segment, not absolute, no NUL, and no backslash, newline or
 * carriage return unless `allowSpecialNames`. The walk (CLI) and the lock parser share these rules.
 */
export function fixturePathProblem(path: string, options: FixturePathOptions = {}): string | undefined {
  if (path === "") return "the path is empty";
  if (path.startsWith("/")) return "the path is absolute";
  if (/^[A-Za-z]:[\\/]/.test(path)) return "the path is a Windows absolute path";
  if (path.includes("\0")) return "the path has a NUL character";
  if (!options.allowSpecialNames) {
    if (path.includes("\n")) return "the name has a newline";
    if (path.includes("\r")) return "the name has a carriage return";
    if (path.includes("\\")) return "the name has a backslash";
  }
  for (const segment of path.split("/")) {
    if (segment === "..") return "the path has a `..` segment (outside the repo root, or not canonical)";
    if (segment === ".") return "the path has a `.` segment (not canonical)";
    if (segment === "") return "the path has an empty segment (`//`, or a `/` at an end)";
  }
  return undefined;
}

/** `sha256sum`'s escape of a name: `\\`, `\n`, `\r`. */
function escapeName(path: string): string {
  return path.replace(/[\\\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : "\\r"));
}

/** Undoes `escapeName`; undefined when the text has another escape (sha256sum -c refuses those too). */
function unescapeName(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/\\(.?)/gs, (_m, c: string) => {
    if (c === "\\") return "\\";
    if (c === "n") return "\n";
    if (c === "r") return "\r";
    bad = true;
    return "";
  });
  return bad ? undefined : out;
}

/** `entries` sorted by the UTF-8 byte order of their paths (a copy). */
export function sortFixtureEntries<T extends FixtureDigest>(entries: readonly T[]): T[] {
  return [...entries].sort((x, y) => compareUtf8(x.path, y.path));
}

/**
 * One line of `fixtures.lock`: `<sha256>  <path>\n`, or `sha256sum`'s escaped form `\\<sha256>  <escaped
 * path>\n` for a name with a backslash, newline or carriage return. No checks: see `formatFixturesLock`.
 */
export function fixtureLockLine(sha256: string, path: string): string {
  return SPECIAL.test(path) ? `\\${sha256}  ${escapeName(path)}\n` : `${sha256}  ${path}\n`;
}

/**
 * Renders `fixtures.lock`: `<sha256>  <path>\n` per file, sorted by the UTF-8 byte order of the path,
 * so `sha256sum -c fixtures.lock` verifies it. A name with a backslash, newline or carriage return
 * (only there when allowed) gets `sha256sum`'s escaped form. Throws on a duplicate path or a digest
 * that is not 64 characters long (a bug of the caller, not an input error).
 */
export function formatFixturesLock(entries: readonly FixtureDigest[]): string {
  let sorted = true;
  for (let i = 1; i < entries.length && sorted; i++) sorted = compareUtf8(entries[i - 1]!.path, entries[i]!.path) < 0;
  const list = sorted ? entries : sortFixtureEntries(entries);
  const lines: string[] = new Array<string>(list.length);
  let previous: string | undefined;
  for (let i = 0; i < list.length; i++) {
    const { sha256, path } = list[i]!;
    // A length check only: digests come from the hash workers or a parsed lock, both already checked.
    if (sha256.length !== 64)
      throw new Error(`formatFixturesLock: ${JSON.stringify(sha256)} is not a sha256 hex digest (${path})`);
    if (path === previous) throw new Error(`formatFixturesLock: duplicate path ${JSON.stringify(path)}`);
    previous = path;
    lines[i] = fixtureLockLine(sha256, path);
  }
  return lines.join("");
}

/** More errors than this in one lock are counted in one last issue. */
const MAX_LOCK_ERRORS = 100;

/**
 * Parses `fixtures.lock` strictly: each line `<64 lowercase hex>  <path>` (or sha256sum's binary
 * form `<hex> *<path>`, a warning), LF endings, a final newline, paths as `fixturePathProblem` allows,
 * sorted by UTF-8 byte order and unique, at least one entry. Each error names `file`, the line, and the
 * fix. `entries` holds every well-formed line even when there are errors.
 */
export function parseFixturesLock(
  text: string,
  file: string,
  options: FixturePathOptions = {},
): FixturesLockParseResult {
  const entries: FixtureLockEntry[] = [];
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  // A lock of a million bad lines is summed up, not a million issues (time and memory stay bounded).
  let suppressed = 0;
  const error = (line: number | undefined, message: string, fix: string = REWRITE_FIX): void => {
    if (errors.length >= MAX_LOCK_ERRORS) suppressed++;
    else errors.push({ code: "lock_invalid", file, line, message, fix });
  };
  if (text.startsWith("\uFEFF"))
    error(1, "the lock starts with a byte order mark", "save it as UTF-8 without a BOM, or " + REWRITE_FIX);
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body === "") {
    error(
      undefined,
      "the lock lists no files (`sha256sum -c` refuses an empty lock too)",
      "run `proofgate lock` over the fixture paths, which must hold at least one file",
    );
    return { entries, errors, warnings };
  }
  const lines = body.split("\n");
  const last = lines.pop();
  if (last !== "") {
    lines.push(last ?? "");
    error(
      lines.length,
      "the last line has no newline at its end",
      "end the file with a newline (LF), or " + REWRITE_FIX,
    );
  }
  let crlfReported = false;
  let previous: FixtureLockEntry | undefined;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let raw = lines[i] ?? "";
    if (raw.endsWith("\r")) {
      if (!crlfReported)
        error(
          lineNo,
          "the lock has CRLF line endings (and maybe more lines after this one)",
          "use LF endings (git: `*.lock text eol=lf` in .gitattributes), or " + REWRITE_FIX,
        );
      crlfReported = true;
      raw = raw.slice(0, -1);
    }
    if (raw.trim() === "") {
      error(lineNo, "blank line", "delete it, or " + REWRITE_FIX);
      continue;
    }
    if (raw.startsWith("#")) {
      error(
        lineNo,
        "a comment line: proofgate's lock holds only `<sha256>  <path>` lines",
        "delete it, or " + REWRITE_FIX,
      );
      continue;
    }
    if (BSD_TAG.test(raw)) {
      error(
        lineNo,
        "a BSD-style `SHA256 (path) = digest` line",
        "write `sha256sum`'s default format (not --tag), or " + REWRITE_FIX,
      );
      continue;
    }
    const m = LOCK_LINE.exec(raw);
    if (!m) {
      const hex = /^\\?([0-9a-zA-Z]*)/.exec(raw)?.[1] ?? "";
      const what =
        /^[0-9a-fA-F]+$/.test(hex) && hex.length !== 64
          ? `the digest has ${hex.length} hex digits, not 64 (sha256)`
          : "not a `<sha256>  <path>` line";
      error(lineNo, `${what}: ${JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}...` : raw)}`);
      continue;
    }
    const [, escaped, digest = "", marker, rest = ""] = m;
    if (!HEX64.test(digest)) {
      error(
        lineNo,
        "the digest has uppercase hex digits",
        "write it in lowercase (as `sha256sum` does), or " + REWRITE_FIX,
      );
      continue;
    }
    if (marker === "*")
      warnings.push({
        code: "lock_invalid",
        file,
        line: lineNo,
        message: "a binary-mode line (`<sha256> *<path>`): the same digest, but proofgate writes `<sha256>  <path>`",
        fix: REWRITE_FIX,
      });
    let path = rest;
    if (escaped) {
      if (!options.allowSpecialNames) {
        error(
          lineNo,
          `an escaped name (\`\\\` before the digest: the name has a backslash, newline or carriage return): ${JSON.stringify(rest)}`,
          "rename the file, or allow such names in proofgate.toml ([fixtures] allow_special_names = true)",
        );
        continue;
      }
      const unescaped = unescapeName(rest);
      if (unescaped === undefined) {
        error(
          lineNo,
          `an escaped name with an escape other than \`\\\\\`, \`\\n\` or \`\\r\`: ${JSON.stringify(rest)}`,
        );
        continue;
      }
      path = unescaped;
    }
    const problem = fixturePathProblem(path, options);
    if (problem) {
      const fix = problem.startsWith("the name has")
        ? "rename the file, or allow such names in proofgate.toml ([fixtures] allow_special_names = true)"
        : "list files by their path relative to the repo root (`tests/fixtures/a.json`): " + REWRITE_FIX;
      error(lineNo, `${problem}: ${JSON.stringify(path)}`, fix);
      continue;
    }
    const entry: FixtureLockEntry = { sha256: digest, path, line: lineNo };
    if (previous) {
      const order = compareUtf8(previous.path, path);
      if (order === 0) {
        error(
          lineNo,
          `${JSON.stringify(path)} is listed twice (also on line ${previous.line})`,
          "keep one line per file, or " + REWRITE_FIX,
        );
        continue;
      }
      if (order > 0)
        error(
          lineNo,
          `not sorted: ${JSON.stringify(path)} comes before ${JSON.stringify(previous.path)} (line ${previous.line}) in byte order`,
          "sort the lines by byte order (`LC_ALL=C sort`), or " + REWRITE_FIX,
        );
    }
    entries.push(entry);
    previous = entry;
  }
  if (entries.length === 0 && errors.length === 0)
    error(undefined, "the lock lists no files", "run `proofgate lock` over the fixture paths");
  if (suppressed > 0)
    errors.push({
      code: "lock_invalid",
      file,
      message: `... and ${suppressed} more error${suppressed === 1 ? "" : "s"} in this lock`,
      fix: REWRITE_FIX,
    });
  return { entries, errors, warnings };
}

/**
 * The fixture digest delta between two locks (say, at base and at head), counted in entries (files),
 * not lines: `changed` (another digest), `added` (only in `after`), `removed` (only in `before`).
 * Each list is in UTF-8 byte order. A path listed twice counts once, with its last digest.
 */
export function diffFixturesLocks(before: readonly FixtureDigest[], after: readonly FixtureDigest[]): FixturesLockDiff {
  const old = new Map<string, string>();
  for (const e of before) old.set(e.path, e.sha256);
  const seen = new Set<string>();
  const changed: string[] = [];
  const added: string[] = [];
  for (const e of after) {
    if (seen.has(e.path)) continue;
    seen.add(e.path);
    const digest = old.get(e.path);
    if (digest === undefined) added.push(e.path);
    else if (digest !== e.sha256) changed.push(e.path);
  }
  const removed = [...old.keys()].filter((p) => !seen.has(p));
  return { changed: changed.sort(compareUtf8), added: added.sort(compareUtf8), removed: removed.sort(compareUtf8) };
}

/** How many entries a diff counts: changed + added + removed (the fixture digest delta). */
export function fixtureDeltaCount(diff: FixturesLockDiff): number {
  return diff.changed.length + diff.added.length + diff.removed.length;
}

/**
 * `proofgate lock --check`: the lock's entries against the files hashed from the tree. `added` are on
 * disk but not in the lock, `removed` in the lock but not on disk, `changed` differ in content.
 */
export function compareLockToTree(
  lockEntries: readonly FixtureDigest[],
  treeEntries: readonly FixtureDigest[],
): LockTreeComparison {
  const diff = diffFixturesLocks(lockEntries, treeEntries);
  return { ...diff, equal: fixtureDeltaCount(diff) === 0 };
}

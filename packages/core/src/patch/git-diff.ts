// The lines a patch added or changed, per file, from `git diff --no-color --unified=0 -M base head`:
// what patch coverage measures. Pure: the gate runs git, this reads its text.
//
// A file's paths come from the lines git writes unambiguously: `--- a/…` and `+++ b/…` (a name with a
// space ends in a tab there), `rename from`/`rename to`, and, for a file with no hunk (binary, a mode
// change, a rename with no edit), the `diff --git a/P b/P` header, whose two halves are then the same
// name. Quoted names (`"a/q\"uote.py"`, octal bytes where core.quotePath escapes them) are unquoted. Hunks
// are read by their counts, so an added line that reads `++ x` (`+++ x` in the diff) is a line, not a
// header.
import type { GateIssue } from "../common/errors.js";

/** One file of a diff. */
export interface DiffFile {
  /** The path at head; for a deleted file, the path it had at the base. */
  path: string;
  /** The path at the base, when git paired it with another as a rename (or copy). */
  oldPath?: string | undefined;
  status: "added" | "deleted" | "modified" | "renamed" | "copied";
  /** Git printed no text diff (`Binary files … differ`): its lines are unknown, none are listed. */
  binary: boolean;
  /** The file mode changed (`old mode`/`new mode`), with or without a change of content. */
  modeChanged: boolean;
  /** The lines added or changed, numbered as at head, increasing. */
  added: number[];
}

/** What a diff's text holds, or why it could not be read. */
export interface ParsedDiff {
  files: DiffFile[];
  errors: GateIssue[];
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/**
 * A path as git prints it: verbatim, or C-quoted (`"a\tb"`, `"\303\274.py"`) when it holds a quote,
 * a backslash, a control character or (with core.quotePath) a byte above 0x7f. Undefined when the
 * quoting is broken or the bytes are not UTF-8.
 */
export function unquoteGitPath(text: string): string | undefined {
  if (!text.startsWith('"')) return text;
  if (text.length < 2 || !text.endsWith('"')) return undefined;
  const body = text.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '"') return undefined;
    if (ch !== "\\") {
      bytes.push(...encoder.encode(ch));
      continue;
    }
    const next = body[++i];
    if (next === undefined) return undefined;
    if (/[0-7]/.test(next)) {
      const octal = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(octal)) return undefined;
      bytes.push(parseInt(octal, 8));
      i += 2;
    } else if (next in ESCAPES) bytes.push(ESCAPES[next]!);
    else return undefined;
  }
  try {
    return utf8.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** The name after `--- ` or `+++ `: `/dev/null`, or the path without its `a/`/`b/` prefix. */
function sideName(text: string, prefix: "a/" | "b/"): string | null | undefined {
  // git ends a name that holds a space with a tab, for patch(1); a tab inside a name is quoted.
  const name = text.endsWith("\t") ? text.slice(0, -1) : text;
  if (name === "/dev/null") return null;
  const path = unquoteGitPath(name);
  return path?.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

/** The path of `diff --git a/P b/P` when both halves name the same file (no rename); undefined otherwise. */
function headerName(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    // Two quoted names: split after the first closing quote that is not escaped.
    let i = 1;
    while (i < rest.length && rest[i] !== '"') i += rest[i] === "\\" ? 2 : 1;
    const a = unquoteGitPath(rest.slice(0, i + 1));
    const b = unquoteGitPath(rest.slice(i + 2));
    return a?.startsWith("a/") && b?.startsWith("b/") && a.slice(2) === b.slice(2) ? b.slice(2) : undefined;
  }
  if ((rest.length - 5) % 2 !== 0 || !rest.startsWith("a/")) return undefined;
  const length = (rest.length - 5) / 2;
  const path = rest.slice(2, 2 + length);
  return rest.slice(2 + length) === ` b/${path}` ? path : undefined;
}

interface Building {
  header: string;
  headerLine: number;
  oldName?: string | null | undefined;
  newName?: string | null | undefined;
  renameFrom?: string | undefined;
  renameTo?: string | undefined;
  copy: boolean;
  created: boolean;
  deleted: boolean;
  binary: boolean;
  modeChanged: boolean;
  /** A hunk was read: only another hunk (or the next file) may follow. */
  hunks: boolean;
  added: number[];
}

/** More unreadable lines than this are counted in one last issue. */
const MAX_DIFF_ERRORS = 20;

const HUNK = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Reads `git diff` output (two trees, any context, `-M`): each file with its paths, its status, and the
 * lines it added at head. Any line the format does not allow is an error naming it (`source`:line), so a
 * diff that is misread never becomes a figure.
 */
export function parseGitDiff(text: string, source = "git diff"): ParsedDiff {
  const files: DiffFile[] = [];
  const errors: GateIssue[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let current: Building | undefined;
  // Inside a hunk: the old and new lines still to come, and the next new line's number.
  let oldLeft = 0;
  let newLeft = 0;
  let next = 0;
  // A diff the parser cannot read line after line is summed up after the first errors, not one issue a line.
  let suppressed = 0;
  const fail = (index: number, message: string): void => {
    if (errors.length >= MAX_DIFF_ERRORS) {
      suppressed++;
      return;
    }
    errors.push({
      code: "git_failed",
      file: source,
      line: index + 1,
      message: `${message}: ${JSON.stringify(lines[index]!.slice(0, 200))}`,
      fix: "report this diff to proofgate; run `git diff --no-color --unified=0 -M <base> <head>` to see it",
    });
  };
  const finish = (): void => {
    if (!current) return;
    const c = current;
    current = undefined;
    const created = c.created || c.oldName === null;
    const deleted = c.deleted || c.newName === null;
    const renamed = c.renameFrom !== undefined && c.renameTo !== undefined;
    const path = renamed
      ? c.renameTo
      : deleted
        ? (c.oldName ?? headerName(c.header))
        : (c.newName ?? headerName(c.header));
    if (path === undefined) {
      errors.push({
        code: "git_failed",
        file: source,
        line: c.headerLine,
        message: `cannot tell the file of ${JSON.stringify(c.header.slice(0, 200))}: no ---/+++ or rename lines, and its two names differ`,
        fix: "report this diff to proofgate",
      });
      return;
    }
    files.push({
      path,
      oldPath: renamed ? c.renameFrom : undefined,
      status: renamed ? (c.copy ? "copied" : "renamed") : created ? "added" : deleted ? "deleted" : "modified",
      binary: c.binary,
      modeChanged: c.modeChanged,
      added: c.added,
    });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0];
      if (mark === "+" && newLeft > 0) {
        current!.added.push(next++);
        newLeft--;
      } else if (mark === "-" && oldLeft > 0) oldLeft--;
      else if (mark === " " && oldLeft > 0 && newLeft > 0) {
        next++;
        oldLeft--;
        newLeft--;
      } else if (mark === "\\") continue;
      else {
        fail(i, "a hunk ends before its counted lines");
        oldLeft = newLeft = 0;
      }
      continue;
    }
    if (line.startsWith("diff --git ")) {
      finish();
      current = {
        header: line.slice("diff --git ".length),
        headerLine: i + 1,
        copy: false,
        created: false,
        deleted: false,
        binary: false,
        modeChanged: false,
        hunks: false,
        added: [],
      };
      continue;
    }
    if (line.startsWith("\\")) continue; // "\ No newline at end of file" after a hunk's last line
    if (!current) {
      fail(i, "text before the first `diff --git` header");
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      next = Number(hunk[2]);
      newLeft = hunk[3] === undefined ? 1 : Number(hunk[3]);
      current.hunks = true;
      continue;
    }
    if (current.hunks || line.startsWith("@@")) {
      fail(i, "a line outside any hunk");
      continue;
    }
    const field = (prefix: string): string | undefined =>
      line.startsWith(prefix) ? line.slice(prefix.length) : undefined;
    let value: string | undefined;
    if ((value = field("--- ")) !== undefined) {
      current.oldName = sideName(value, "a/");
      if (current.oldName === undefined) fail(i, "an unreadable old file name");
    } else if ((value = field("+++ ")) !== undefined) {
      current.newName = sideName(value, "b/");
      if (current.newName === undefined) fail(i, "an unreadable new file name");
    } else if ((value = field("rename from ") ?? field("copy from ")) !== undefined) {
      current.renameFrom = unquoteGitPath(value);
      current.copy = line.startsWith("copy");
      if (current.renameFrom === undefined) fail(i, "an unreadable file name");
    } else if ((value = field("rename to ") ?? field("copy to ")) !== undefined) {
      current.renameTo = unquoteGitPath(value);
      if (current.renameTo === undefined) fail(i, "an unreadable file name");
    } else if (line.startsWith("new file mode ")) current.created = true;
    else if (line.startsWith("deleted file mode ")) current.deleted = true;
    else if (line.startsWith("old mode ") || line.startsWith("new mode ")) current.modeChanged = true;
    else if (line.startsWith("Binary files ") || line === "GIT binary patch") current.binary = true;
    else if (/^(index |similarity index |dissimilarity index )/.test(line)) continue;
    else if (/^(literal|delta) \d+$/.test(line) || current.binary)
      continue; // a --binary patch's payload
    else fail(i, "a line git's diff format does not have");
  }
  if (oldLeft > 0 || newLeft > 0) fail(lines.length - 1, "the diff ends inside a hunk");
  finish();
  if (suppressed > 0)
    errors.push({
      code: "git_failed",
      file: source,
      message: `... and ${suppressed} more line${suppressed === 1 ? "" : "s"} the diff parser could not read`,
      fix: "report this diff to proofgate",
    });
  return { files, errors };
}

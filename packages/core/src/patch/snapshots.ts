// Snapshots are golden files whether or not `[fixtures] paths` names them: a snapshot file (jest's and
// vitest's `__snapshots__/*.snap`, syrupy's `__snapshots__/`) that a patch rewrites to match new output
// is the fixture rewrite the lock exists to catch, and so is an inline snapshot (`toMatchInlineSnapshot`)
// whose expected text a commit changed inside a test file. Pure: the gate reads the files.

/** A snapshot file by its path: under a `__snapshots__` folder, or named `*.snap`. */
export function isSnapshotPath(path: string): boolean {
  return /(?:^|\/)__snapshots__\//.test(path) || /\.snap$/.test(path);
}

/** A JavaScript or TypeScript source file, where inline snapshots live. */
export function isScriptPath(path: string): boolean {
  return /\.[cm]?[jt]sx?$/.test(path);
}

/** The calls that hold their snapshot inline: jest's and vitest's matchers. */
const INLINE_CALL = /\b(?:toMatchInlineSnapshot|toThrowErrorMatchingInlineSnapshot)\s*\(/g;

/**
 * The expected text of every inline snapshot in a source file, in order: each call's arguments as
 * written, with each line's leading indentation dropped (a snapshot re-indented by a formatter or moved
 * into a block is the same snapshot) and whitespace outside string literals collapsed. A call whose
 * closing parenthesis is not found (a file cut short) yields what follows it.
 */
export function inlineSnapshots(text: string): string[] {
  const out: string[] = [];
  INLINE_CALL.lastIndex = 0;
  for (let match = INLINE_CALL.exec(text); match !== null; match = INLINE_CALL.exec(text)) {
    const start = match.index + match[0].length;
    let depth = 0;
    let i = start;
    let args = "";
    let space = false;
    scan: for (; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === "`" || ch === '"' || ch === "'") {
        // A string literal, copied as written (escapes kept); a template literal's lines unindented.
        let j = i + 1;
        while (j < text.length && text[j] !== ch) j += text[j] === "\\" ? 2 : 1;
        const literal = text.slice(i, j + 1);
        args += `${space && args !== "" ? " " : ""}${ch === "`" ? literal.replace(/\n[ \t]+/g, "\n") : literal}`;
        space = false;
        i = j;
        continue;
      }
      if (/\s/.test(ch)) {
        space = true;
        continue;
      }
      if (ch === "(" || ch === "{" || ch === "[") depth++;
      else if (ch === ")" || ch === "}" || ch === "]") {
        if (depth === 0) break scan;
        depth--;
      }
      args += `${space && args !== "" ? " " : ""}${ch}`;
      space = false;
    }
    out.push(args);
    INLINE_CALL.lastIndex = Math.max(i, start);
  }
  return out;
}

/** One source file a commit touched: its text in each parent (undefined where absent) and after the commit. */
export interface TouchedSource {
  parents: readonly (string | undefined)[];
  after: string | undefined;
}

/**
 * The inline snapshots a commit took away, over every source file it touched (a snapshot moved from one
 * file to another is not taken away): each expected text that every parent holds (a merge answers only
 * for its own resolution) and the commit holds fewer times. Empty for a root commit.
 */
export function inlineSnapshotsRemoved(parentCount: number, files: readonly TouchedSource[]): string[] {
  if (parentCount === 0) return [];
  const add = (counts: Map<string, number>, text: string | undefined): void => {
    for (const s of text === undefined ? [] : inlineSnapshots(text)) counts.set(s, (counts.get(s) ?? 0) + 1);
  };
  const now = new Map<string, number>();
  const before = Array.from({ length: parentCount }, () => new Map<string, number>());
  for (const file of files) {
    add(now, file.after);
    before.forEach((counts, p) => add(counts, file.parents[p]));
  }
  const removed: string[] = [];
  for (const [snapshot, n] of before[0]!) {
    const inEvery = Math.min(n, ...before.map((b) => b.get(snapshot) ?? 0));
    for (let k = now.get(snapshot) ?? 0; k < inEvery; k++) removed.push(snapshot);
  }
  return removed;
}

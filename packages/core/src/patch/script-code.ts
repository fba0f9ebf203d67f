// Whether a JavaScript or TypeScript file the patch changed holds code that runs: the JavaScript side of
// "an empty __init__.py measures nothing". A file of TypeScript declarations alone (interfaces, type
// aliases, `declare`, `import type`, `export type`) compiles to nothing, so no test can load code from it and
// coverage has nothing to measure; every other file runs something when loaded (docs/vitest.md).
//
// The answer errs towards "runs code": a file that is not plainly declarations (anything this reader does
// not follow, an unclosed comment or string, a regular expression, a value import) is judged as code, so
// what it hides cannot slip past `unmeasured_source` as a declaration file. It is a tokenizer, not a parser:
// it never throws, and reads each character a bounded number of times.

/** A JavaScript or TypeScript file, as vitest's coverage (and jest's) measures them: `.js`, `.mts`, `.tsx`, `.vue`, ... */
export const SCRIPT_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte)$/;

/** TypeScript files, which may hold declarations alone (a Vue or Svelte file always runs). */
const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;

/** Words that open a statement of declarations only, at the top level of a TypeScript file. */
const DECLARATION_START = new Set(["type", "interface", "declare"]);

/**
 * Tokens after which a line break does not end a declaration (the statement goes on), and tokens that,
 * starting the next line, continue it. `[` and `<` are left out of the second on purpose: a line starting
 * with one ends the declaration, so a statement such as `[1, 2].forEach(...)` is read as code.
 */
const CONTINUES_AFTER = new Set(["=", "|", "&", ",", ":", "?", "=>", "<", ".", "(", "extends", "keyof", "typeof"]);
const CONTINUES_BEFORE = new Set(["|", "&", ".", "?", ":", "=>", ",", "extends", "=", "{", ">"]);

interface Token {
  text: string;
  /** A line break lies between this token and the one before. */
  newline: boolean;
}

const isIdentifierChar = (c: string): boolean => /[\w$\u0080-\uffff]/.test(c);

/** The index after a quoted string starting at `i` (`'` or `"`), or -1 when it does not close on its line. */
function stringEnd(text: string, i: number): number {
  const quote = text[i]!;
  for (let j = i + 1; j < text.length; j++) {
    const d = text[j]!;
    if (d === "\\") j++;
    else if (d === quote) return j + 1;
    else if (d === "\n" || d === "\r") return -1;
  }
  return -1;
}

/**
 * The index after a template literal starting at `i` (a template literal type: `prefix-${string}`), or -1
 * when it does not close. Each `${...}` is read up to the brace that closes it, strings and nested templates
 * inside it skipped whole; a comment or a `/` inside one is more than declarations need (-1). Iterative, with
 * a stack of the open templates and brace depths, so a deep nesting cannot overflow the call stack.
 */
function templateEnd(text: string, i: number): number {
  // Each open template's brace depth inside its current `${...}` (0: in the template's text).
  const depths: number[] = [0];
  let j = i + 1;
  while (j < text.length) {
    const top = depths.length - 1;
    const d = text[j]!;
    if (depths[top] === 0) {
      // In a template's text.
      if (d === "\\") j += 2;
      else if (d === "`") {
        depths.pop();
        j++;
        if (depths.length === 0) return j;
      } else if (d === "$" && text[j + 1] === "{") {
        depths[top] = 1;
        j += 2;
      } else j++;
      continue;
    }
    // In a `${...}`.
    if (d === "{") depths[top]!++;
    else if (d === "}") depths[top]!--;
    else if (d === "`") depths.push(0);
    else if (d === "/") return -1;
    else if (d === '"' || d === "'") {
      const end = stringEnd(text, j);
      if (end === -1) return -1;
      j = end;
      continue;
    }
    j++;
  }
  return -1;
}

/**
 * The file's tokens (comments and whitespace left out, each string literal one token `"`), or undefined
 * when the text holds something this reader does not follow: a regular expression or a division (neither
 * belongs in declarations), an unclosed comment, string or template.
 */
function tokens(text: string): Token[] | undefined {
  const out: Token[] = [];
  let newline = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029") {
      newline = true;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\f" || c === "\v" || c === "\ufeff" || c === "\u00a0") {
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n" && text[i] !== "\r") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) return undefined;
      if (/[\n\r\u2028\u2029]/.test(text.slice(i, end))) newline = true;
      i = end + 2;
      continue;
    }
    if (c === "/") return undefined;
    if (c === "#" && i === 0 && text[1] === "!") return undefined; // a script with a shebang runs
    if (c === '"' || c === "'" || c === "`") {
      const end = c === "`" ? templateEnd(text, i) : stringEnd(text, i);
      if (end === -1) return undefined;
      out.push({ text: '"', newline });
      newline = false;
      i = end;
      continue;
    }
    if (isIdentifierChar(c)) {
      let j = i + 1;
      while (j < n && isIdentifierChar(text[j]!)) j++;
      out.push({ text: text.slice(i, j), newline });
      newline = false;
      i = j;
      continue;
    }
    const two = text.slice(i, i + 2);
    const op = two === "=>" || two === "?." ? two : c;
    out.push({ text: op, newline });
    newline = false;
    i += op.length;
  }
  return out;
}

/**
 * Whether `text` (the file at `path`) holds code that runs when the file is loaded. A JavaScript file does
 * unless it holds nothing but comments; a TypeScript file does unless every top-level statement is a
 * declaration that compiles to nothing: `type`, `interface`, `declare ...`, `import type ...`, `export type
 * ...`, `export interface ...`, `export declare ...`, `export {}`.
 */
export function scriptHasRuntimeCode(path: string, text: string): boolean {
  const list = tokens(text);
  if (list === undefined) return true;
  if (list.length === 0) return false;
  if (!TYPESCRIPT.test(path)) return true;
  let i = 0;
  const at = (k: number): string | undefined => list[k]?.text;
  while (i < list.length) {
    if (at(i) === ";") {
      i++;
      continue;
    }
    // The statement's first words: which declaration it is, if any.
    let start = i;
    if (at(start) === "export") {
      if (at(start + 1) === "{" && at(start + 2) === "}") {
        i = start + 3;
        continue;
      }
      start++;
      if (at(start) === "default" && at(start + 1) === "interface") start++;
    }
    const word = at(start);
    const typeImport = at(i) === "import" && at(i + 1) === "type" && at(i + 2) !== "(";
    if (!typeImport && !(word !== undefined && DECLARATION_START.has(word))) return true;
    // `type`, `interface` and `declare` are names a value statement may use too (`type = 1`, `declare(x)`,
    // `type` alone on its line): as TypeScript reads them, the declaration needs a name or keyword after the
    // word, on the same line.
    const next = list[start + 1];
    if (
      !typeImport &&
      (next === undefined ||
        next.newline ||
        !/^[\w$*{]/.test(next.text) ||
        next.text === "in" ||
        next.text === "instanceof")
    )
      return true;
    // The rest of the statement: up to a `;` at the top level, or a line break at the top level that neither
    // the token before nor the one after continues.
    let depth = 0;
    let j = start + 1;
    for (; j < list.length; j++) {
      const t = list[j]!;
      if (depth === 0 && j > start + 1 && t.newline) {
        const before = list[j - 1]!.text;
        if (!CONTINUES_AFTER.has(before) && !CONTINUES_BEFORE.has(t.text)) break;
      }
      if (t.text === "{" || t.text === "(" || t.text === "[") depth++;
      else if (t.text === "}" || t.text === ")" || t.text === "]") {
        depth--;
        if (depth < 0) return true;
      } else if (t.text === ";" && depth === 0) break;
    }
    if (depth !== 0) return true;
    i = j;
  }
  return false;
}

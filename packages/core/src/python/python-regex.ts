// coverage.py's exclusion settings are Python regular expressions, matched with `re.search` on each
// source line. Most are also JavaScript ones; the few Python-only spellings are rewritten here, and a
// pattern that still is not valid JavaScript is an error the caller reports (never a silent no-match).

/** A Python pattern as a JavaScript RegExp, or why it could not be translated. */
export type PythonRegexResult = { regex: RegExp; error?: undefined } | { regex?: undefined; error: string };

/**
 * Translates a Python `re` pattern for `re.search` on one line: global flags at the start (`(?i)`,
 * `(?m)`, `(?s)`, `(?x)`; `a`, `u` and `L` change nothing here), named groups `(?P<n>...)` and
 * back-references `(?P=n)`, and `\A` / `\Z`. Scoped flags `(?i:...)` are refused, and so is what
 * JavaScript cannot compile (atomic groups, possessive quantifiers). `\w`, `\d` and `\s` match ASCII only, where Python's also match other scripts.
 */
export function pythonRegex(source: string): PythonRegexResult {
  let pattern = source;
  let flags = "";
  const global = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (global) {
    pattern = pattern.slice(global[0].length);
    for (const f of global[1]!) {
      if ("ims".includes(f) && !flags.includes(f)) flags += f;
      if (f === "x") pattern = stripVerbose(pattern);
    }
  }
  if (/\(\?[aiLmsux-]+:/.test(pattern)) return { error: "scoped inline flags `(?i:...)` have no JavaScript spelling" };
  const translated = pattern
    .replace(/\(\?P<([A-Za-z_]\w*)>/g, "(?<$1>")
    .replace(/\(\?P=([A-Za-z_]\w*)\)/g, "\\k<$1>")
    .replace(/(^|[^\\])((?:\\\\)*)\\A/g, "$1$2^")
    .replace(/(^|[^\\])((?:\\\\)*)\\Z/g, "$1$2$(?![\\s\\S])");
  try {
    return { regex: new RegExp(translated, flags) };
  } catch (error) {
    return { error: String((error as Error).message) };
  }
}

/** A verbose pattern without its white space and comments (outside character classes, unescaped). */
function stripVerbose(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (inClass) {
      out += ch;
      if (ch === "]") inClass = false;
    } else if (ch === "[") {
      inClass = true;
      out += ch;
    } else if (ch === "#") {
      while (i < pattern.length && pattern[i] !== "\n") i++;
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

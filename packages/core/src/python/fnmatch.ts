// Python's fnmatch patterns (coverage.py's omit/include, pytest's python_files): `*` is any text, `/`
// included; `?` one character; `[seq]` and `[!seq]` a class. The whole text must match.

/** A Python fnmatch pattern as a RegExp that must match the whole text (case-sensitive, as on POSIX). */
export function fnmatchRegex(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "*") source += "[\\s\\S]*";
    else if (ch === "?") source += "[\\s\\S]";
    else if (ch === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) {
        source += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      source += `[${negate ? "^" : ""}${body.replace(/\\/g, "\\\\").replace(/^\^/, "\\^")}]`;
      i = end;
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** True when `text` matches the fnmatch `pattern` whole. */
export function fnmatch(text: string, pattern: string): boolean {
  return fnmatchRegex(pattern).test(text);
}

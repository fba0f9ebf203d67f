// The INI files Python's test tools read (setup.cfg, tox.ini, pytest.ini, .coveragerc): sections,
// `key = value` or `key: value` (the first of the two delimiters), and values continued on lines
// indented deeper than their key, as configparser (coverage.py, tox) and iniconfig (pytest) read them.
// Full-line comments start with `#` or `;`; neither tool strips a comment after a value, so by default
// this reader does not either. No interpolation. Pure: the caller reads the file.

/** One `key = value`: the key as written (or lower case), the value's lines trimmed and joined with "\n". */
export interface IniEntry {
  key: string;
  value: string;
  /** The 1-based line of the key. */
  line: number;
}

/** One `[section]` and its entries in file order. */
export interface IniSection {
  name: string;
  /** The 1-based line of the header. */
  line: number;
  entries: IniEntry[];
}

/** A line the tools would refuse: configparser raises on it, so coverage.py and tox stop there. */
export interface IniProblem {
  line: number;
  message: string;
}

/** An INI file as read: its sections in file order, and the lines a strict reader refuses. */
export interface IniDocument {
  sections: IniSection[];
  problems: IniProblem[];
}

/** How to read: configparser folds keys to lower case; `proofgate init` also drops ` # ...` after a value. */
export interface IniReadOptions {
  /** Fold keys to lower case, as configparser does (default true). */
  lowerKeys?: boolean;
  /** Drop a comment after a value (` # ...`, ` ; ...`); neither tool does this (default false). */
  inlineComments?: boolean;
}

/**
 * Reads INI text the way configparser does (strict mode): a line before any section, a line that is
 * not `key = value`, and a repeated section or key are problems, and the file still reads as far as it
 * can. Blank lines inside a value are dropped (coverage.py's lists drop them too).
 */
export function readIni(text: string, options: IniReadOptions = {}): IniDocument {
  const lowerKeys = options.lowerKeys ?? true;
  const sections: IniSection[] = [];
  const problems: IniProblem[] = [];
  let section: IniSection | undefined;
  let entry: IniEntry | undefined;
  let entryIndent = 0;
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    if (trimmed === "") continue;
    const indent = raw.length - raw.trimStart().length;
    if (entry !== undefined && indent > entryIndent) {
      const more = options.inlineComments ? stripComment(trimmed) : trimmed;
      if (more !== "") entry.value = entry.value === "" ? more : `${entry.value}\n${more}`;
      continue;
    }
    entry = undefined;
    const header = /^\[(.+)\]/.exec(trimmed);
    if (header) {
      const name = header[1]!;
      if (sections.some((s) => s.name === name))
        problems.push({ line: lineNo, message: `the section [${name}] appears twice` });
      section = { name, line: lineNo, entries: [] };
      sections.push(section);
      continue;
    }
    const pair = /^(.*?)\s*[=:]\s*(.*)$/.exec(trimmed);
    if (!section) {
      problems.push({ line: lineNo, message: "a line before the first [section]" });
      continue;
    }
    if (!pair || pair[1]!.trim() === "") {
      problems.push({ line: lineNo, message: `not \`key = value\`: ${JSON.stringify(trimmed.slice(0, 60))}` });
      continue;
    }
    const key = lowerKeys ? pair[1]!.trim().toLowerCase() : pair[1]!.trim();
    if (section.entries.some((e) => e.key === key))
      problems.push({ line: lineNo, message: `the key \`${key}\` appears twice in [${section.name}]` });
    entry = { key, value: options.inlineComments ? stripComment(pair[2]!) : pair[2]!.trim(), line: lineNo };
    entryIndent = indent;
    section.entries.push(entry);
  }
  return { sections, problems };
}

/** One INI file: section name -> key (lower case) -> value (continuation lines joined with "\n"). */
export type IniFile = Map<string, Map<string, string>>;

/**
 * Reads INI text leniently, for guessing a layout (`proofgate init`): keys in lower case, a comment after
 * a value dropped, lines it cannot read skipped. A repeated section or key: the later one wins.
 */
export function parseIni(text: string): IniFile {
  const out: IniFile = new Map();
  for (const section of readIni(text, { inlineComments: true }).sections) {
    const map = out.get(section.name) ?? new Map<string, string>();
    for (const entry of section.entries) map.set(entry.key, entry.value);
    out.set(section.name, map);
  }
  return out;
}

/** A value without an inline comment (` # ...` or ` ; ...`, after white space). */
function stripComment(value: string): string {
  return value.replace(/\s+[#;].*$/, "").trim();
}

/** A list value: items split at commas, white space and line breaks (coverage.py's lists, pytest's args). */
export function iniList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(/[,\s]+/)
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

// The INI files Python's test tools read (setup.cfg, tox.ini, pytest.ini, .coveragerc), as far as
// `proofgate init` needs them: sections, `key = value` or `key: value`, and values continued on
// indented lines, as configparser (coverage.py) and iniconfig (pytest) read them. No interpolation.

/** One INI file: section name -> key (lower case) -> value (continuation lines joined with "\n"). */
export type IniFile = Map<string, Map<string, string>>;

/** Reads INI text; a line it cannot read is skipped (init guesses a layout, it does not validate). */
export function parseIni(text: string): IniFile {
  const sections: IniFile = new Map();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    if (/^\s/.test(raw) && section !== undefined && key !== undefined) {
      const before = section.get(key) ?? "";
      section.set(key, before === "" ? stripComment(trimmed) : `${before}\n${stripComment(trimmed)}`);
      continue;
    }
    const header = /^\[([^\]]+)\]/.exec(trimmed);
    if (header) {
      const name = header[1]!.trim();
      section = sections.get(name) ?? new Map<string, string>();
      sections.set(name, section);
      key = undefined;
      continue;
    }
    const pair = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(trimmed);
    if (pair && section !== undefined) {
      key = pair[1]!.toLowerCase();
      section.set(key, stripComment(pair[2]!));
    } else {
      key = undefined;
    }
  }
  return sections;
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

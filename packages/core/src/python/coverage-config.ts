// coverage.py's configuration as coverage.py 6.5 to 7.x reads it, and two of them compared by meaning
// (docs/contract.md §13): which file it takes its settings from (a .coveragerc, else the first of
// setup.cfg, tox.ini and pyproject.toml that sets something), every setting as coverage.py parses it
// (lists split, booleans read, defaults filled in), and what a change loosens: more omitted, less
// included or measured, more exclusion or partial-branch patterns, plugins added, branch measurement
// or error reporting turned off. Reordering, reformatting and moving a setting between files are no change.
import { parse as parseToml } from "smol-toml";
import { fnmatchRegex } from "./fnmatch.js";
import { readIni, type IniSection } from "./ini.js";

/** coverage.py's own default exclusion pattern (`# pragma: no cover` and its spellings). */
export const DEFAULT_EXCLUDE_LINES: readonly string[] = ["#\\s*(pragma|PRAGMA)[:\\s]?\\s*(no|NO)\\s*(cover|COVER)"];
/** coverage.py's default partial-branch pattern (`# pragma: no branch`). */
export const DEFAULT_PARTIAL_BRANCHES: readonly string[] = [
  "#\\s*(pragma|PRAGMA)[:\\s]?\\s*(no|NO)\\s*(branch|BRANCH)",
];
/** coverage.py's default always-partial branches (`while True:` and the like). */
export const DEFAULT_PARTIAL_BRANCHES_ALWAYS: readonly string[] = ["while (True|1|False|0):", "if (True|1|False|0):"];

type Kind = "bool" | "list" | "regexlist" | "text" | "number";

/** The options coverage.py reads, `section:option` -> how it parses them (its CONFIG_FILE_OPTIONS, 6.5 and 7.x). */
const OPTIONS: Record<string, Kind> = {
  "run:branch": "bool",
  "run:command_line": "text",
  "run:concurrency": "list",
  "run:context": "text",
  "run:core": "text",
  "run:cover_pylib": "bool",
  "run:data_file": "text",
  "run:debug": "list",
  "run:debug_file": "text",
  "run:disable_warnings": "list",
  "run:dynamic_context": "text",
  "run:note": "text",
  "run:parallel": "bool",
  "run:patch": "list",
  "run:plugins": "list",
  "run:relative_files": "bool",
  "run:include": "list",
  "run:omit": "list",
  "run:sigterm": "bool",
  "run:source": "list",
  "run:source_pkgs": "list",
  "run:source_dirs": "list",
  "run:timid": "bool",
  "run:_crash": "text",
  "report:exclude_lines": "regexlist",
  "report:exclude_also": "regexlist",
  "report:fail_under": "number",
  "report:format": "text",
  "report:ignore_errors": "bool",
  "report:include_namespace_packages": "bool",
  "report:partial_branches_always": "regexlist",
  "report:partial_branches": "regexlist",
  "report:partial_also": "regexlist",
  "report:precision": "number",
  "report:contexts": "list",
  "report:include": "list",
  "report:omit": "list",
  "report:show_missing": "bool",
  "report:skip_covered": "bool",
  "report:skip_empty": "bool",
  "report:sort": "text",
  "html:extra_css": "text",
  "html:directory": "text",
  "html:skip_covered": "bool",
  "html:skip_empty": "bool",
  "html:title": "text",
  "html:show_contexts": "bool",
  "xml:output": "text",
  "xml:package_depth": "number",
  "json:output": "text",
  "json:pretty_print": "bool",
  "json:show_contexts": "bool",
  "lcov:output": "text",
  "lcov:line_checksums": "bool",
};

const SECTIONS = [...new Set(Object.keys(OPTIONS).map((k) => k.split(":")[0]!))];

/** One setting as coverage.py reads it, and where it is written. */
export interface CoverageSetting {
  /** `section:option`, e.g. `run:omit`; `paths:<name>` for [paths]; `plugin:<plugin>:<option>` for a plugin's options. */
  key: string;
  /** A list's items, a boolean, or the text (numbers as written, trimmed). */
  value: string[] | boolean | string;
  file: string;
  line?: number | undefined;
}

/** The configuration coverage.py would use: its file (none: the defaults) and every setting in it. */
export interface CoverageConfig {
  file?: string | undefined;
  settings: Map<string, CoverageSetting>;
}

/** A file coverage.py could not read: it stops the run, and the gate cannot judge it. */
export interface CoverageConfigProblem {
  file: string;
  line?: number | undefined;
  message: string;
}

/** The configuration, or why coverage.py would refuse it. */
export type CoverageConfigResult =
  { config: CoverageConfig; problem?: undefined } | { config?: undefined; problem: CoverageConfigProblem };

/** The files coverage.py looks at, in its order (the first is `--cov-config`/`--rcfile`, default .coveragerc). */
export function coverageConfigCandidates(rcfile = ".coveragerc"): string[] {
  return [rcfile, "setup.cfg", "tox.ini", "pyproject.toml"];
}

/**
 * Reads the configuration coverage.py would use, from `read` (a file's text at one revision, undefined
 * when absent): the rc file whenever it exists (an empty one too: it shadows the others), else the first
 * of setup.cfg, tox.ini and pyproject.toml that sets an option of coverage.py's, else none. A file
 * coverage.py would refuse (a line configparser rejects, invalid TOML, a boolean that is not one, a named
 * rc file that is missing) is a problem.
 */
export function readCoverageConfig(
  read: (path: string) => string | undefined,
  rcfile = ".coveragerc",
): CoverageConfigResult {
  const specified = rcfile !== ".coveragerc";
  for (const [index, file] of coverageConfigCandidates(rcfile).entries()) {
    const text = read(file);
    if (text === undefined) {
      if (index === 0 && specified)
        return { problem: { file, message: "the coverage.py config file the commands name does not exist" } };
      continue;
    }
    const ours = index === 0;
    const result = file.endsWith(".toml") ? fromToml(text, file, ours) : fromIni(text, file, ours);
    if (result.problem) return result;
    if (ours || result.config.settings.size > 0) return result;
  }
  return { config: { settings: new Map() } };
}

function fromIni(text: string, file: string, ours: boolean): CoverageConfigResult {
  const doc = readIni(text);
  const first = doc.problems[0];
  if (first) return { problem: { file, line: first.line, message: `configparser cannot read it: ${first.message}` } };
  const byName = new Map(doc.sections.map((s) => [s.name, s]));
  // coverage.py looks for `[coverage:run]`, and in its own file also for `[run]`, option by option.
  const find = (section: string, option: string): { section: IniSection; value: string; line: number } | undefined => {
    for (const name of ours ? [`coverage:${section}`, section] : [`coverage:${section}`]) {
      const s = byName.get(name);
      const entry = s?.entries.find((e) => e.key === option);
      if (s && entry) return { section: s, value: entry.value, line: entry.line };
    }
    return undefined;
  };
  const settings = new Map<string, CoverageSetting>();
  const sectionOf = (section: string): IniSection | undefined =>
    byName.get(`coverage:${section}`) ?? (ours ? byName.get(section) : undefined);
  for (const section of SECTIONS) {
    const names = ours ? [`coverage:${section}`, section] : [`coverage:${section}`];
    for (const s of names.map((n) => byName.get(n))) {
      for (const entry of s?.entries ?? []) {
        const key = `${section}:${entry.key}`;
        if (settings.has(key)) continue;
        const found = find(section, entry.key)!;
        const value = iniValue(found.value, OPTIONS[key] ?? "text");
        if (value === undefined)
          return {
            problem: {
              file,
              line: found.line,
              message: `[${found.section.name}] ${entry.key} is not a boolean: ${JSON.stringify(found.value)}`,
            },
          };
        settings.set(key, { key, value, file, line: found.line });
      }
    }
  }
  const paths = sectionOf("paths");
  for (const entry of paths?.entries ?? [])
    settings.set(`paths:${entry.key}`, {
      key: `paths:${entry.key}`,
      value: iniValue(entry.value, "list") as string[],
      file,
      line: entry.line,
    });
  for (const plugin of pluginsOf(settings)) {
    const s = sectionOf(plugin);
    for (const entry of s?.entries ?? []) {
      const key = `plugin:${plugin}:${entry.key}`;
      settings.set(key, { key, value: entry.value, file, line: entry.line });
    }
  }
  // A file that is not coverage.py's own counts only when it sets one of coverage.py's options.
  if (!ours && ![...settings.keys()].some((k) => k in OPTIONS || k.startsWith("paths:") || k.startsWith("plugin:")))
    return { config: { file, settings: new Map() } };
  return { config: { file, settings } };
}

const BOOLEANS: Record<string, boolean> = {
  "1": true,
  yes: true,
  true: true,
  on: true,
  "0": false,
  no: false,
  false: false,
  off: false,
};

/** A value as configparser hands it to coverage.py, parsed the way coverage.py parses that option. */
function iniValue(text: string, kind: Kind): string[] | boolean | string | undefined {
  switch (kind) {
    case "bool":
      return BOOLEANS[text.trim().toLowerCase()];
    case "list":
      return text
        .split("\n")
        .flatMap((line) => line.split(","))
        .map((item) => item.trim())
        .filter((item) => item !== "");
    case "regexlist":
      return text
        .split("\n")
        .map((item) => item.trim())
        .filter((item) => item !== "");
    case "number":
      return Number.isFinite(Number(text.trim())) ? String(Number(text.trim())) : text.trim();
    case "text":
      return text.trim();
  }
}

function fromToml(text: string, file: string, ours: boolean): CoverageConfigResult {
  let data: Record<string, unknown>;
  try {
    data = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch (error) {
    const line = typeof (error as { line?: unknown }).line === "number" ? (error as { line: number }).line : undefined;
    return { problem: { file, line, message: `not valid TOML: ${String((error as Error).message).split("\n")[0]}` } };
  }
  const tool = asTable(asTable(data.tool)?.coverage);
  // coverage.py looks for `[tool.coverage.run]`, and in a TOML file named as its own also for `[run]`.
  const tableOf = (section: string): { table: Record<string, unknown>; path: string[] } | undefined => {
    const nested = asTable(tool?.[section]);
    if (nested) return { table: nested, path: ["tool", "coverage", section] };
    const top = ours ? asTable(data[section]) : undefined;
    return top ? { table: top, path: [section] } : undefined;
  };
  const settings = new Map<string, CoverageSetting>();
  const add = (
    key: string,
    raw: unknown,
    table: string[],
    option: string,
    kind: Kind,
  ): CoverageConfigProblem | undefined => {
    const value = tomlValue(raw, kind);
    const line = tomlLine(text, table, option);
    if (value === undefined)
      return {
        file,
        line,
        message: `[${table.join(".")}] ${option} is not ${kind === "bool" ? "a boolean" : "a list of strings"}`,
      };
    settings.set(key, { key, value, file, line });
    return undefined;
  };
  for (const section of [...SECTIONS, "paths"]) {
    const found = tableOf(section);
    for (const [option, raw] of Object.entries(found?.table ?? {})) {
      const key = section === "paths" ? `paths:${option}` : `${section}:${option}`;
      const problem = add(key, raw, found!.path, option, section === "paths" ? "list" : (OPTIONS[key] ?? "text"));
      if (problem) return { problem };
    }
  }
  for (const plugin of pluginsOf(settings)) {
    const found = tableOf(plugin);
    for (const [option, raw] of Object.entries(found?.table ?? {})) {
      settings.set(`plugin:${plugin}:${option}`, {
        key: `plugin:${plugin}:${option}`,
        value: canonical(raw),
        file,
        line: tomlLine(text, found!.path, option),
      });
    }
  }
  if (!ours && ![...settings.keys()].some((k) => k in OPTIONS || k.startsWith("paths:") || k.startsWith("plugin:")))
    return { config: { file, settings: new Map() } };
  return { config: { file, settings } };
}

function asTable(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A TOML value as coverage.py takes it: lists of strings (a lone string as a list of one), booleans, text. */
function tomlValue(raw: unknown, kind: Kind): string[] | boolean | string | undefined {
  if (kind === "bool") return typeof raw === "boolean" ? raw : undefined;
  if (kind === "list" || kind === "regexlist") {
    if (typeof raw === "string") return raw.trim() === "" ? [] : [kind === "regexlist" ? raw.trim() : raw];
    if (!Array.isArray(raw) || !raw.every((x) => typeof x === "string")) return undefined;
    return kind === "regexlist" ? raw.map((x: string) => x.trim()).filter((x) => x !== "") : (raw as string[]);
  }
  return canonical(raw);
}

/** Any TOML value as one stable text (objects with sorted keys), for comparing by meaning. */
function canonical(raw: unknown): string {
  if (typeof raw === "string") return raw.trim();
  if (raw instanceof Date) return raw.toISOString();
  if (Array.isArray(raw)) return `[${raw.map(canonical).join(", ")}]`;
  const table = asTable(raw);
  if (table)
    return `{${Object.keys(table)
      .sort()
      .map((k) => `${k} = ${canonical(table[k])}`)
      .join(", ")}}`;
  return String(raw);
}

function pluginsOf(settings: Map<string, CoverageSetting>): string[] {
  const value = settings.get("run:plugins")?.value;
  return Array.isArray(value) ? value : [];
}

/**
 * The 1-based line of `key` under the TOML table `table` (its `[a.b]` header), or of the header when the
 * key is not written on a line of its own; undefined when there is no such header.
 */
export function tomlLine(text: string, table: readonly string[], key?: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const name = table.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(`\\s*\\.\\s*`);
  const header = lines.findIndex((l) => new RegExp(`^\\s*\\[\\s*${name}\\s*\\]`).test(l));
  if (header < 0) return undefined;
  if (key === undefined) return header + 1;
  const quoted = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (let i = header + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
    if (new RegExp(`^\\s*["']?${quoted}["']?\\s*=`).test(lines[i]!)) return i + 1;
  }
  return header + 1;
}

// ---------------------------------------------------------------------------------------------------
// Comparing two configurations by meaning.

/** How a change moves measurement: `loosening` needs a human; `other` is a protected change to coverage.py's settings. */
export type CoverageChangeKind = "loosening" | "other";

/** One change between two configurations, as a reader is told it. */
export interface CoverageChange {
  kind: CoverageChangeKind;
  /** `run:omit`, `report:exclude_lines`, ... */
  key: string;
  /**
   * The pattern or entry the change is about, when it is about one (not for a setting set or removed as a
   * whole: commits that set it in steps made the same change).
   */
  item?: string | undefined;
  /** What it does, e.g. `[run] omit adds "src/pkg/slow.py": coverage.py no longer measures it`. */
  message: string;
  /** Where the setting is written after the change (before it, for one that was removed). */
  file?: string | undefined;
  line?: number | undefined;
}

/** The key a change is known by across commits (the same loosening made, kept or undone). */
export function coverageChangeKey(change: CoverageChange): string {
  return `${change.kind}\u0000${change.key}\u0000${change.item ?? ""}\u0000${change.message}`;
}

const label = (key: string): string => {
  const [section, ...rest] = key.split(":");
  return `[${section}] ${rest.join(":")}`;
};

function list(config: CoverageConfig, key: string): string[] | undefined {
  const value = config.settings.get(key)?.value;
  return Array.isArray(value) ? value : undefined;
}

function where(config: CoverageConfig, key: string): { file?: string | undefined; line?: number | undefined } {
  const s = config.settings.get(key);
  return s ? { file: s.file, line: s.line } : { file: config.file };
}

/** The patterns coverage.py applies for a setting with a default, and the setting each comes from. */
function patterns(config: CoverageConfig, keys: readonly [string, readonly string[]][]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, fallback] of keys)
    for (const p of list(config, key) ?? (fallback.length ? fallback : [])) if (!out.has(p)) out.set(p, key);
  return out;
}

const EXCLUSIONS: readonly [string, readonly string[]][] = [
  ["report:exclude_lines", DEFAULT_EXCLUDE_LINES],
  ["report:exclude_also", []],
];
const PARTIALS: readonly [string, readonly string[]][] = [
  ["report:partial_branches", DEFAULT_PARTIAL_BRANCHES],
  ["report:partial_also", []],
  ["report:partial_branches_always", DEFAULT_PARTIAL_BRANCHES_ALWAYS],
];

/** The line-exclusion patterns coverage.py applies with this configuration (its default when none is set). */
export function exclusionPatterns(
  config: CoverageConfig,
): { pattern: string; key: string; file?: string | undefined; line?: number | undefined }[] {
  return [...patterns(config, EXCLUSIONS), ...patterns(config, PARTIALS)].map(([pattern, key]) => ({
    pattern,
    key,
    ...where(config, key),
  }));
}

/** The keys judged as measurement; every other key's change is `other`. */
const MEASURED = new Set([
  "run:omit",
  "report:omit",
  "run:include",
  "report:include",
  "run:source",
  "run:source_pkgs",
  "run:source_dirs",
  "run:plugins",
  "run:branch",
  "report:ignore_errors",
  ...EXCLUSIONS.map(([k]) => k),
  ...PARTIALS.map(([k]) => k),
]);

/**
 * What changed from `before` to `after`, by meaning. Loosenings: an `omit` pattern added; an `include`
 * set where there was none, or a pattern of it removed; a `source` (or `source_pkgs`) set, unset, or an
 * entry removed (set: coverage.py measures only there; unset: files never imported drop out of the
 * report); an exclusion or partial-branch pattern added (over coverage.py's defaults when unset); a
 * plugin added; `branch` turned off; `ignore_errors` turned on. Every other setting that differs is
 * `other`. Tightening changes (a pattern removed from `omit`, `branch` turned on, ...) are no change.
 */
export function diffCoverageConfigs(before: CoverageConfig, after: CoverageConfig): CoverageChange[] {
  const out: CoverageChange[] = [];
  const loosen = (key: string, message: string, item?: string, at: CoverageConfig = after): void => {
    out.push({ kind: "loosening", key, item, message, ...where(at, key) });
  };
  for (const key of ["run:omit", "report:omit"]) {
    const was = new Set(list(before, key) ?? []);
    for (const p of list(after, key) ?? [])
      if (!was.has(p))
        loosen(key, `${label(key)} adds ${JSON.stringify(p)}: coverage.py no longer measures what it matches`, p);
  }
  for (const key of ["run:include", "report:include"]) {
    const was = list(before, key);
    const now = list(after, key);
    if (now === undefined) continue;
    if (was === undefined)
      loosen(key, `${label(key)} is set (${now.join(", ")}): coverage.py measures only what it matches`);
    else
      for (const p of was)
        if (!now.includes(p))
          loosen(key, `${label(key)} drops ${JSON.stringify(p)}: coverage.py no longer measures what it matched`, p);
  }
  for (const key of ["run:source", "run:source_pkgs", "run:source_dirs"]) {
    const was = list(before, key);
    const now = list(after, key);
    if (was === undefined && now === undefined) continue;
    if (was === undefined) loosen(key, `${label(key)} is set (${now!.join(", ")}): coverage.py measures only there`);
    else if (now === undefined)
      loosen(
        key,
        `${label(key)} (${was.join(", ")}) is removed: files there that no test imports drop out of the report`,
        undefined,
        before,
      );
    else
      for (const p of was)
        if (!now.includes(p))
          loosen(key, `${label(key)} drops ${JSON.stringify(p)}: coverage.py no longer measures it`, p);
  }
  for (const [what, keys] of [
    ["an exclusion pattern", EXCLUSIONS],
    ["a partial-branch pattern", PARTIALS],
  ] as const) {
    const was = patterns(before, keys);
    for (const [p, key] of patterns(after, keys))
      if (!was.has(p))
        loosen(key, `${label(key)} adds ${what} ${JSON.stringify(p)}: the lines it matches are no longer measured`, p);
  }
  const wasPlugins = new Set(list(before, "run:plugins") ?? []);
  for (const p of list(after, "run:plugins") ?? [])
    if (!wasPlugins.has(p))
      loosen("run:plugins", `[run] plugins adds ${JSON.stringify(p)}: a plugin decides what coverage.py measures`, p);
  if (before.settings.get("run:branch")?.value === true && after.settings.get("run:branch")?.value !== true)
    loosen("run:branch", "[run] branch is turned off: branches are no longer measured");
  if (
    before.settings.get("report:ignore_errors")?.value !== true &&
    after.settings.get("report:ignore_errors")?.value === true
  )
    loosen(
      "report:ignore_errors",
      "[report] ignore_errors is turned on: a file coverage.py cannot read drops out of the report silently",
    );

  const keys = new Set([...before.settings.keys(), ...after.settings.keys()]);
  for (const key of [...keys].sort()) {
    if (MEASURED.has(key)) continue;
    const a = before.settings.get(key)?.value;
    const b = after.settings.get(key)?.value;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const name = key.startsWith("plugin:") ? `[${key.split(":")[1]}] ${key.split(":").slice(2).join(":")}` : label(key);
    out.push({
      kind: "other",
      key,
      message: `${name} ${a === undefined ? "is set" : b === undefined ? "is removed" : "changes"}${b === undefined ? "" : ` (${JSON.stringify(b)})`}`,
      ...where(b === undefined ? before : after, key),
    });
  }
  return out;
}

/**
 * True for a repository path that the configuration's `omit` (of [run] or [report]) leaves out, as
 * coverage.py matches it: a pattern that starts with `*` or `?` against the file's absolute path (here
 * `/` and the repository path: the root's own name is not known), any other relative to the root. An
 * absolute pattern matches nothing here.
 */
export function omittedBy(config: CoverageConfig): (path: string) => boolean {
  const patterns = [...(list(config, "run:omit") ?? []), ...(list(config, "report:omit") ?? [])];
  const tests = patterns.flatMap((p) => {
    if (p.startsWith("/")) return [];
    const regex = fnmatchRegex(p.replace(/^\.\//, ""));
    return [(path: string) => regex.test(/^[*?]/.test(p) ? `/${path}` : path)];
  });
  return (path) => tests.some((t) => t(path));
}

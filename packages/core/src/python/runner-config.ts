// The test runner's configuration, protected by meaning (docs/contract.md §13): `[protect] sections`
// entries (a whole INI file, an INI section, or a TOML table of a shared file such as pyproject.toml)
// read at two revisions and compared key by key, so a dependency bump in pyproject.toml is no change to
// [tool.pytest.ini_options] and a reformat is no change at all; the files the `[commands]` invoke,
// found by reading the command lines; and pytest's own settings, which say what a test file is.
import picomatch from "picomatch";
import { parse as parseToml } from "smol-toml";
import { tomlLine } from "./coverage-config.js";
import { fnmatch } from "./fnmatch.js";
import { readIni } from "./ini.js";
import type { SectionSpec } from "./protect-sections.js";
import { normalizeRepoPath } from "../common/repo-path.js";

export {
  DEFAULT_PROTECTED_SECTIONS,
  PYTEST_SETTINGS_FILES,
  parseSectionSpec,
  type SectionSpec,
} from "./protect-sections.js";

/** True for the files read as TOML; every other protected file is read as INI. */
const isToml = (path: string): boolean => path.endsWith(".toml");

/** A section's settings at one revision, flattened: `[section] key` (INI) or `a.b.key` (TOML) -> value and line. */
export type SectionValues = Map<string, { value: string; line?: number | undefined }>;

/** A section at one revision: absent, its settings, or a file the tools could not read. */
export type SectionState =
  | { kind: "absent" }
  | { kind: "values"; values: SectionValues }
  | { kind: "unreadable"; line?: number | undefined; message: string };

const wildcard = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*")}$`);

/**
 * The settings `section` (all of them when undefined) of `path`'s text at one revision. A file or
 * section that is there but empty is not absent: an empty `pytest.ini` or `[tool.pytest.ini_options]`
 * still decides which file pytest reads.
 */
export function readSection(text: string | undefined, path: string, section?: string): SectionState {
  if (text === undefined) return { kind: "absent" };
  const values: SectionValues = new Map();
  if (isToml(path)) {
    let data: Record<string, unknown>;
    try {
      data = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
    } catch (error) {
      const line =
        typeof (error as { line?: unknown }).line === "number" ? (error as { line: number }).line : undefined;
      return {
        kind: "unreadable",
        line,
        message: `not valid TOML: ${String((error as Error).message).split("\n")[0]}`,
      };
    }
    const parts = section === undefined ? [] : section.split(".").map((p) => p.trim().replace(/^["']|["']$/g, ""));
    let node: unknown = data;
    for (const part of parts) {
      node = isTable(node) ? node[part] : undefined;
      if (node === undefined) return { kind: "absent" };
    }
    values.set(parts.join("."), { value: "", line: tomlLine(text, parts) });
    flatten(node, parts, values, text);
    return { kind: "values", values };
  }
  const doc = readIni(text, { lowerKeys: false });
  const first = doc.problems[0];
  if (first) return { kind: "unreadable", line: first.line, message: first.message };
  const match = section === undefined ? () => true : (name: string) => wildcard(section).test(name);
  const sections = doc.sections.filter((s) => match(s.name));
  if (section !== undefined && sections.length === 0) return { kind: "absent" };
  values.set("", { value: "", line: 1 });
  for (const s of sections) {
    values.set(`[${s.name}]`, { value: "", line: s.line });
    for (const e of s.entries) values.set(`[${s.name}] ${e.key}`, { value: e.value, line: e.line });
  }
  return { kind: "values", values };
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function flatten(node: unknown, path: string[], out: SectionValues, text: string): void {
  if (isTable(node)) {
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (isTable(child)) {
        out.set([...path, key].join("."), { value: "", line: tomlLine(text, [...path, key]) });
        flatten(child, [...path, key], out, text);
      } else out.set([...path, key].join("."), { value: canonicalToml(child), line: tomlLine(text, path, key) });
    }
  } else out.set(path.join("."), { value: canonicalToml(node), line: undefined });
}

function canonicalToml(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(canonicalToml).join(", ")}]`;
  if (isTable(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k} = ${canonicalToml(value[k])}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}

/** What differs between two states of a section: the keys changed, added or removed, and where to look. */
export interface SectionDiff {
  /** Keys that differ (`[tool:pytest] addopts`, `tool.pytest.ini_options.addopts`), sorted. */
  keys: string[];
  /** The first differing key's line after the change (before it, when it was removed). */
  line?: number | undefined;
  /** When a side could not be read: the reason. */
  unreadable?: string | undefined;
}

/**
 * Compares a section at two revisions by meaning; undefined when they mean the same. A side that cannot
 * be read differs from everything (the gate cannot show that nothing changed).
 */
export function diffSection(before: SectionState, after: SectionState): SectionDiff | undefined {
  if (after.kind === "unreadable") return { keys: [], line: after.line, unreadable: after.message };
  if (before.kind === "unreadable") return { keys: [], unreadable: `it could not be read before: ${before.message}` };
  const a = before.kind === "values" ? before.values : new Map<string, { value: string; line?: number }>();
  const b = after.kind === "values" ? after.values : new Map<string, { value: string; line?: number }>();
  const keys = [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => a.get(k)?.value !== b.get(k)?.value || a.has(k) !== b.has(k))
    .sort();
  if (keys.length === 0) return undefined;
  const first = keys.find((k) => k !== "" && !/^\[[^\]]*\]$/.test(k)) ?? keys[0]!;
  return { keys: keys.filter((k) => k !== ""), line: (b.get(first) ?? a.get(first))?.line };
}

/** A matcher for a section spec's file glob (`**` crosses folders, dot files match). */
export function sectionFileMatcher(spec: SectionSpec): (path: string) => boolean {
  return picomatch(spec.file, { dot: true });
}

// ---------------------------------------------------------------------------------------------------
// The files the [commands] invoke.

/** What the command lines run from the repository: files to protect whole, sections, and coverage.py's rc file. */
export interface InvokedFiles {
  /** Repository paths or globs (a script, a Makefile, a noxfile, a module the commands run with `-m`). */
  paths: string[];
  /** `[protect] sections` entries (tox's configuration). */
  sections: string[];
  /** The coverage.py config file a `--cov-config` or `--rcfile` names, when one does. */
  coverageRc?: string | undefined;
}

const PYTHON = /^(python[\d.]*|pypy[\d.]*|py)$/;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
/** Programs that run the rest of their line: their own options are skipped. */
const WRAPPERS = new Set(["env", "exec", "time", "nice", "nohup", "command", "xvfb-run", "sudo", "stdbuf"]);
/** Tools whose `run` runs the rest of the line in the project's environment. */
const RUNNERS = new Set(["poetry", "uv", "pdm", "pipenv", "hatch", "rye"]);

/**
 * The files a set of command lines invokes from the repository, read as `sh -c` would split them:
 * `make` (its Makefile, or `-f`, under `-C`), `tox` (tox.ini, or `-c`, and tox's sections of setup.cfg
 * and pyproject.toml), `nox` (noxfile.py, or `-f`), a script run by path (`./scripts/x.sh`) or through
 * a shell or Python (`bash x.sh`, `python scripts/x.py`), a module run with `python -m` or loaded with
 * `pytest -p` (`name.py`, `name/**`: a file of that name in the repository shadows the installed one),
 * pytest's `-c` file, and coverage.py's `--cov-config`/`--rcfile`. Words with a `$` are not followed.
 */
export function invokedFiles(commands: readonly string[]): InvokedFiles {
  const out: InvokedFiles = { paths: [], sections: [] };
  for (const command of commands) visitCommand(command, "", out, 0);
  out.paths = [...new Set(out.paths)];
  out.sections = [...new Set(out.sections)];
  return out;
}

function visitCommand(command: string, startDir: string, out: InvokedFiles, depth: number): void {
  if (depth > 3) return;
  let dir = startDir;
  const at = (path: string): string | undefined => {
    if (path.includes("$") || path.startsWith("/") || path.startsWith("~")) return undefined;
    return normalizeRepoPath(dir ? `${dir}/${path}` : path);
  };
  const addPath = (path: string | undefined): void => {
    if (path !== undefined) out.paths.push(path);
  };
  const addModule = (module: string): void => {
    const top = module.split(".")[0]!;
    if (!/^[A-Za-z_]\w*$/.test(top)) return;
    addPath(at(`${top}.py`));
    addPath(at(`${top}/**`));
  };
  for (const words of simpleCommands(command)) {
    let w = words;
    // Leading assignments, wrappers and `poetry run`-style runners: the program is what follows.
    for (;;) {
      while (w.length > 0 && /^[A-Za-z_]\w*=/.test(w[0]!)) w = w.slice(1);
      const name = w[0] === undefined ? "" : basename(w[0]);
      if (WRAPPERS.has(name)) {
        w = w.slice(1);
        while (w.length > 0 && (w[0]!.startsWith("-") || /^\d+[smhd]?$/.test(w[0]!))) w = w.slice(1);
        continue;
      }
      if (RUNNERS.has(name) && w[1] === "run") {
        w = w.slice(2);
        while (w.length > 0 && w[0]!.startsWith("-")) w = w.slice(1);
        continue;
      }
      break;
    }
    const [program, ...args] = w;
    if (program === undefined || program.includes("$")) continue;
    const name = basename(program);
    if (program.includes("/") && !program.startsWith("/")) addPath(at(program));
    const option = (short: string[], long: string[]): string[] => {
      const found: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!;
        for (const s of short) {
          if (a === s && args[i + 1] !== undefined) found.push(args[i + 1]!);
          else if (a.startsWith(s) && a.length > s.length && !a.startsWith("--")) found.push(a.slice(s.length));
        }
        for (const l of long) {
          if (a === l && args[i + 1] !== undefined) found.push(args[i + 1]!);
          else if (a.startsWith(`${l}=`)) found.push(a.slice(l.length + 1));
        }
      }
      return found;
    };
    if (name === "cd") {
      const target = args[0] === undefined ? undefined : at(args[0]);
      dir = target ?? dir;
      continue;
    }
    if (name === "make" || name === "gmake") {
      const inDir = option(["-C"], ["--directory"]).at(-1);
      const base = inDir === undefined ? dir : (at(inDir) ?? dir);
      const files = option(["-f"], ["--file", "--makefile"]);
      const saved = dir;
      dir = base;
      if (files.length > 0) files.forEach((f) => addPath(at(f)));
      else ["GNUmakefile", "makefile", "Makefile"].forEach((f) => addPath(at(f)));
      dir = saved;
    } else if (name === "tox") {
      const files = option(["-c"], ["--conf", "--configfile"]);
      if (files.length > 0) files.forEach((f) => out.sections.push(at(f) ?? f));
      else out.sections.push("tox.ini", "setup.cfg [tox:tox]", "setup.cfg [testenv*]", "pyproject.toml [tool.tox]");
    } else if (name === "nox") {
      const files = option(["-f"], ["--noxfile"]);
      (files.length > 0 ? files : ["noxfile.py"]).forEach((f) => addPath(at(f)));
    } else if (SHELLS.has(name)) {
      const inline = args.indexOf("-c");
      if (inline >= 0 && args[inline + 1] !== undefined) visitCommand(args[inline + 1]!, dir, out, depth + 1);
      else {
        const script = args.find((a) => !a.startsWith("-"));
        if (script !== undefined) addPath(at(script));
      }
    } else if (PYTHON.test(name)) {
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!;
        if (a === "-m" && args[i + 1] !== undefined) {
          const module = args[i + 1]!;
          addModule(module);
          visitTool(module, args.slice(i + 2), at, addPath, addModule, out);
          break;
        }
        if (a.startsWith("-m") && a.length > 2) {
          addModule(a.slice(2));
          visitTool(a.slice(2), args.slice(i + 1), at, addPath, addModule, out);
          break;
        }
        if (a === "-c") break;
        if (a === "-W" || a === "-X" || a === "-Q") {
          i++;
          continue;
        }
        if (a.startsWith("-")) continue;
        addPath(at(a));
        break;
      }
    } else {
      visitTool(name, args, at, addPath, addModule, out);
    }
  }
}

/** pytest's and coverage.py's own command lines: what they load from the repository. */
function visitTool(
  tool: string,
  args: string[],
  at: (path: string) => string | undefined,
  addPath: (path: string | undefined) => void,
  addModule: (module: string) => void,
  out: InvokedFiles,
): void {
  const name = tool.replace(/\.py$/, "");
  if (name === "pytest" || name === "py.test") {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const next = args[i + 1];
      if ((a === "-c" || a === "--config-file") && next !== undefined) addPath(at(next));
      else if (a.startsWith("--config-file=")) addPath(at(a.slice("--config-file=".length)));
      else if (a === "-p" && next !== undefined && !next.startsWith("no:")) addModule(next);
      else if (a.startsWith("-p") && a.length > 2 && !a.startsWith("-pno:")) addModule(a.slice(2));
      else if (a.startsWith("--cov-config=")) setRc(at(a.slice("--cov-config=".length)), out);
      else if (a === "--cov-config" && next !== undefined) setRc(at(next), out);
    }
  } else if (name === "coverage") {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a.startsWith("--rcfile=")) setRc(at(a.slice("--rcfile=".length)), out);
      else if (a === "--rcfile" && args[i + 1] !== undefined) setRc(at(args[i + 1]!), out);
    }
    if (args[0] === "run") {
      const rest = args.slice(1);
      const m = rest.indexOf("-m");
      if (m >= 0 && rest[m + 1] !== undefined) {
        addModule(rest[m + 1]!);
        visitTool(rest[m + 1]!, rest.slice(m + 2), at, addPath, addModule, out);
      } else {
        const script = rest.find((a) => !a.startsWith("-"));
        if (script !== undefined) addPath(at(script));
      }
    }
  }
}

function setRc(path: string | undefined, out: InvokedFiles): void {
  if (path !== undefined) {
    out.coverageRc = path;
    out.paths.push(path);
  }
}

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/**
 * The simple commands of a shell line, each as its words: split at `;`, `&&`, `||`, `|`, `&`, newlines
 * and parentheses; quotes and backslashes as sh reads them; redirections and their targets dropped.
 */
export function simpleCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let skipNext = false;
  const endWord = (): void => {
    if (inWord) {
      if (skipNext) skipNext = false;
      else words.push(word);
    }
    word = "";
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? undefined : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (ch === '"') {
      inWord = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && /["\\$`\n]/.test(line[i + 1] ?? "")) i++;
        word += line[i];
      }
    } else if (ch === "\\") {
      if (line[i + 1] !== "\n") word += line[i + 1] ?? "";
      inWord = true;
      i++;
    } else if (ch === "#" && !inWord) {
      while (i < line.length && line[i] !== "\n") i++;
      endCommand();
    } else if (/[;&|()\n]/.test(ch)) {
      if (ch === "&" && line[i + 1] === ">") {
        endWord();
        skipNext = true;
        i++;
        if (line[i + 1] === ">") i++;
        continue;
      }
      endCommand();
    } else if (ch === ">" || ch === "<") {
      // `2>` and `>&1`: the number belongs to the redirection; the target is the next word.
      if (inWord && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      } else endWord();
      if (line[i + 1] === ch) i++;
      if (line[i + 1] === "&") {
        i++;
        while (/\d|-/.test(line[i + 1] ?? "")) i++;
        continue;
      }
      skipNext = true;
    } else if (/\s/.test(ch)) {
      endWord();
    } else {
      word += ch;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

// ---------------------------------------------------------------------------------------------------
// What pytest calls a test file.

/** pytest's settings that say which files are tests, from the file pytest would read them from. */
export interface PytestSettings {
  /** `pytest.ini [pytest]`, `pyproject.toml [tool.pytest.ini_options]`, ...; undefined: pytest's defaults. */
  file?: string | undefined;
  pythonFiles: string[];
  testpaths: string[];
}

/**
 * pytest's table in a TOML settings file, and its name: `[pytest]` in pytest.toml and .pytest.toml (pytest 9);
 * in pyproject.toml `[tool.pytest]` when it holds keys besides `ini_options` (pytest 9's TOML mode), else
 * `[tool.pytest.ini_options]`. Undefined without one, or for a file that is not TOML (pytest stops on it).
 */
export function pytestTomlTable(
  path: string,
  text: string,
): { section: string; values: Record<string, unknown> } | undefined {
  let data: Record<string, unknown>;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return pytestTableOf(path, data);
}

/** `pytestTomlTable` of a TOML document already parsed. */
export function pytestTableOf(
  path: string,
  data: Record<string, unknown>,
): { section: string; values: Record<string, unknown> } | undefined {
  if (!/(^|\/)pyproject\.toml$/.test(path)) {
    const own = data.pytest;
    return isTable(own) ? { section: "pytest", values: own } : undefined;
  }
  const tool = data.tool as Record<string, unknown> | undefined;
  const pytest = tool?.pytest;
  if (!isTable(pytest)) return undefined;
  const native = Object.keys(pytest).filter((k) => k !== "ini_options");
  if (native.length > 0) return { section: "tool.pytest", values: pytest };
  const options = pytest.ini_options;
  return isTable(options) ? { section: "tool.pytest.ini_options", values: options } : undefined;
}

/** pytest's default `python_files`. */
export const DEFAULT_PYTHON_FILES: readonly string[] = ["test_*.py", "*_test.py"];

const shlexSplit = (value: string): string[] => simpleCommands(value.replace(/\n/g, " ")).flat();

/**
 * The settings pytest takes from the root's files, in its order: pytest.toml and .pytest.toml (pytest 9, its
 * `[pytest]` table, even empty), pytest.ini and .pytest.ini (even empty), pyproject.toml with [tool.pytest]
 * (pytest 9's TOML table) or [tool.pytest.ini_options], tox.ini with [pytest], setup.cfg with [tool:pytest].
 * A file that cannot be read gives pytest's defaults.
 */
export function readPytestSettings(read: (path: string) => string | undefined): PytestSettings {
  const fromValues = (file: string, get: (key: string) => unknown): PytestSettings => {
    const listOf = (value: unknown, fallback: readonly string[]): string[] =>
      value === undefined
        ? [...fallback]
        : Array.isArray(value)
          ? value.filter((x): x is string => typeof x === "string")
          : typeof value === "string"
            ? shlexSplit(value)
            : [...fallback];
    return {
      file,
      pythonFiles: listOf(get("python_files"), DEFAULT_PYTHON_FILES),
      testpaths: listOf(get("testpaths"), []),
    };
  };
  const iniSection = (path: string, section: string): PytestSettings | undefined => {
    const text = read(path);
    if (text === undefined) return undefined;
    const s = readIni(text, { lowerKeys: false }).sections.find((x) => x.name === section);
    if (!s) return undefined;
    return fromValues(`${path} [${section}]`, (key) => s.entries.find((e) => e.key === key)?.value);
  };
  for (const path of ["pytest.toml", ".pytest.toml"]) {
    const text = read(path);
    if (text === undefined) continue;
    const table = pytestTomlTable(path, text);
    return table
      ? fromValues(`${path} [${table.section}]`, (key) => table.values[key])
      : { file: path, pythonFiles: [...DEFAULT_PYTHON_FILES], testpaths: [] };
  }
  for (const path of ["pytest.ini", ".pytest.ini"]) {
    const text = read(path);
    if (text === undefined) continue;
    return iniSection(path, "pytest") ?? { file: path, pythonFiles: [...DEFAULT_PYTHON_FILES], testpaths: [] };
  }
  const pyproject = read("pyproject.toml");
  const table = pyproject === undefined ? undefined : pytestTomlTable("pyproject.toml", pyproject);
  if (table) return fromValues(`pyproject.toml [${table.section}]`, (key) => table.values[key]);
  return (
    iniSection("tox.ini", "pytest") ??
    iniSection("setup.cfg", "tool:pytest") ?? { pythonFiles: [...DEFAULT_PYTHON_FILES], testpaths: [] }
  );
}

/**
 * True when `path` is a test file rather than source: a `conftest.py`, a file pytest's `python_files`
 * matches (by its name; a pattern with a `/` by its path), or a file in `collected` (the files that hold
 * collected tests, `testFilesOf`). Where a file lies says nothing: with the tests inside the package
 * (`testpaths` = the package), the package's modules are source all the same.
 */
export function isTestFile(path: string, settings: PytestSettings, collected?: ReadonlySet<string>): boolean {
  const name = basename(path);
  if (name === "conftest.py") return true;
  if (settings.pythonFiles.some((p) => (p.includes("/") ? fnmatch(path, p) : fnmatch(name, p)))) return true;
  return collected?.has(path) ?? false;
}

/**
 * The deepest folder holding `path` that is there for tests by convention: one of pytest's `testpaths`,
 * or a folder named `tests` or `test`; undefined when there is none. It does not make the file a test
 * (`isTestFile` decides that): the measurement rules use it only to leave alone, without a proof run's
 * record of what ran, a helper in a test folder that the proof run measures nothing of.
 */
export function testFolderOf(path: string, settings: PytestSettings): string | undefined {
  const segments = path.split("/").slice(0, -1);
  let found: string | undefined;
  for (let i = 1; i <= segments.length; i++) {
    const dir = segments.slice(0, i).join("/");
    if (segments[i - 1] === "tests" || segments[i - 1] === "test") found = dir;
  }
  for (const raw of settings.testpaths) {
    const dir = normalizeRepoPath(raw);
    if (dir === undefined || dir === "" || dir === ".") continue;
    const within = path.startsWith(`${dir}/`) || picomatch(`${dir}/**`, { dot: true })(path);
    if (within && (found === undefined || found.length < dir.length)) found = dir;
  }
  return found;
}

/**
 * The repository files that hold the collected test ids (`path::name...`), each id's path joined to
 * `prefix` (pytest's rootdir, relative to the repository root). A doctest item (`pkg/core.py::pkg.core.f`,
 * or a module's own docstring, `core.py::core`) leaves its module source: only a test function or class
 * makes a Python file a test file.
 */
export function testFilesOf(ids: Iterable<string>, prefix = ""): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    const cut = id.indexOf("::");
    if (cut <= 0) continue;
    const file = id.slice(0, cut);
    const name = id.slice(cut + 2).split(/::|\[/)[0] ?? "";
    if (file.endsWith(".py")) {
      const parts = file.split("/");
      const stem = parts.at(-1) === "__init__.py" ? (parts.at(-2) ?? "") : parts.at(-1)!.slice(0, -3);
      if (name.includes(".") || name === stem) continue;
    }
    const path = normalizeRepoPath(prefix ? `${prefix}/${file}` : file);
    if (path !== undefined) out.add(path);
  }
  return out;
}

/**
 * pytest's `pythonpath` (pytest 7+): the folders it puts on sys.path, repository-relative ("" is the
 * root), from the file `readPytestSettings` finds pytest reading. Folders outside the repository and
 * values that cannot be read are left out.
 */
export function readPytestPythonpath(read: (path: string) => string | undefined): string[] {
  const file = readPytestSettings(read).file;
  const at = file === undefined ? undefined : /^(.*) \[(.*)\]$/.exec(file);
  if (!at) return [];
  const [, path, section] = at as unknown as [string, string, string];
  let value: unknown;
  if (path.endsWith(".toml")) {
    value = pytestTomlTable(path, read(path) ?? "")?.values.pythonpath;
  } else {
    const s = readIni(read(path) ?? "", { lowerKeys: false }).sections.find((x) => x.name === section);
    value = s?.entries.find((e) => e.key === "pythonpath")?.value;
  }
  const items = Array.isArray(value)
    ? value.filter((x): x is string => typeof x === "string")
    : typeof value === "string"
      ? shlexSplit(value)
      : [];
  return items.flatMap((item) => {
    if (/^\.?\/?$/.test(item)) return [""];
    const clean = normalizeRepoPath(item);
    return clean === undefined ? [] : [clean];
  });
}

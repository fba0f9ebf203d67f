// What `proofgate init` learns from a Python repository before it writes proofgate.toml: where pytest
// reads its settings and collects from, what coverage.py measures, the package folders, the test
// folders, golden-file and seed folders, and the CI folders. It reads only through a LayoutTree, so a
// table of layouts held in memory tests it.
import { parse as parseToml } from "smol-toml";
import { importsHypothesis, iniList, parseIni, pytestTableOf, pytestTomlTable, type IniFile } from "@proofgate/core";
import type { LayoutTree } from "./layout-tree.js";

/** A CI whose configuration folder or file the repository holds. */
export type CiFound = "github" | "gitlab" | "buildkite";

/** The settings pytest reads, from the one file it takes them from. */
export interface PytestSettings {
  /** The file and its table: `pyproject.toml [tool.pytest.ini_options]`. */
  where: string;
  /** `testpaths`: what a bare `pytest` collects. */
  testpaths: string[];
  /** `addopts`, split at white space. */
  addopts: string[];
}

/** coverage.py's settings, from the one file it takes them from. */
export interface CoverageSettings {
  /** The file and its section: `.coveragerc [run]`. */
  where: string;
  /** `[run] source` and `source_pkgs`. */
  source: string[];
  /** `[run] omit`. */
  omit: string[];
  /**
   * `[run] include`: what coverage.py measures when no source is given. The proof run's `--cov=` source overrides
   * it (include may name test folders, or paths of another layout), and coverage.py warns that it does.
   */
  include: string[];
  /** `[report] fail_under`, which pytest-cov also enforces. */
  failUnder?: number | undefined;
}

/** A folder init looked at and did not use, and why. */
export interface Passed {
  path: string;
  why: string;
}

/** The layout of a Python repository, as far as the gate's commands and signals need it. */
export interface Layout {
  pytest?: PytestSettings | undefined;
  /**
   * In a package's folder without pytest settings of its own: the settings pytest finds in a folder above it,
   * named from the package (`../../pyproject.toml [tool.pytest.ini_options]`); that folder is pytest's rootdir.
   */
  pytestAbove?: { where: string; rootdir: string } | undefined;
  coverage?: CoverageSettings | undefined;
  /** What the proof run measures (`--cov=` values): coverage.py's source, else the packages found. */
  source: string[];
  /** Where `source` came from, for a reader: `[tool.coverage.run] source in pyproject.toml`. */
  sourceFrom: string;
  /** Entries of coverage.py's source that are test folders: never measured as source (test code is no proof). */
  sourceTests: string[];
  /** Test folders found by convention (`tests/`, `<pkg>/tests/`), besides pytest's testpaths. */
  testFolders: string[];
  /** What the collect and proof commands name: nothing when pytest has testpaths, else the test folders. */
  collectArgs: string[];
  /** Test folders inside a measured source folder that coverage.py's omit does not leave out. */
  testsMeasured: string[];
  /** Folders of golden files: they hold files and no Python module. */
  fixtures: string[];
  /** Seed folders that hold files. */
  seeds: string[];
  /** The folder of the property suite beside the seeds, when there is one of its own. */
  propertySuite?: string | undefined;
  /** Test modules in the test folders that import hypothesis (the first few hundred looked at). */
  hypothesisTests: string[];
  /** Folders that looked like fixtures or seeds and were passed over. */
  passed: Passed[];
  /** Settings files init could not read (read as no settings), and why. */
  unreadable: Passed[];
  /** The CIs configured in the repository, in a fixed order. */
  ci: CiFound[];
}

/** Names of golden-file folders, looked for inside each test folder. */
export const GOLDEN_FOLDERS: readonly string[] = Object.freeze([
  "fixtures",
  "fixture",
  "data",
  "golden",
  "goldens",
  "snapshots",
  "__snapshots__",
  "expected",
  "testdata",
  "test_data",
]);

/** Seed folders, looked for inside each test folder. */
export const SEED_FOLDERS: readonly string[] = Object.freeze([
  "properties/seeds",
  "property/seeds",
  "seeds",
  "corpus",
  "fuzz/corpus",
]);

/** Root folders that are never the package under test. */
const NOT_PACKAGES = new Set([
  "tests",
  "test",
  "testing",
  "docs",
  "doc",
  "examples",
  "example",
  "benchmarks",
  "benchmark",
  "bench",
  "scripts",
  "tools",
  "build",
  "dist",
  "site",
  "venv",
  "env",
  "node_modules",
]);

/** Root modules that are tooling, not the package under test. */
const NOT_MODULES = new Set([
  "setup.py",
  "conftest.py",
  "noxfile.py",
  "fabfile.py",
  "tasks.py",
  "dodo.py",
  "manage.py",
]);

/** Files that mark an empty folder for git; they are no golden file and no seed. */
const PLACEHOLDERS = new Set([".gitkeep", ".keep", ".gitignore"]);

/** A folder walk stops after this many entries: init reads a layout, it does not index a tree. */
const WALK_LIMIT = 20_000;

const isTestFile = (name: string): boolean => /^test_.*\.py$|_test\.py$/.test(name);

/** An INI file of the tree, parsed; undefined when it is absent. */
function iniAt(tree: LayoutTree, file: string): IniFile | undefined {
  const text = tree.read(file);
  return text === undefined ? undefined : parseIni(text);
}

/** pytest's settings in a folder (the tree's root), as `detectLayout` reads them; undefined without any. */
export function pytestSettingsIn(tree: LayoutTree): PytestSettings | undefined {
  const pyproject = readToml(tree, "pyproject.toml", []);
  return pytestSettings(tree, pyproject, iniAt(tree, "setup.cfg"), iniAt(tree, "tox.ini"));
}

/**
 * pytest's settings in the folders above a package (`path`, from the repository's top), the nearest first, as
 * pytest looks upwards for them when the package has none: the settings named from the package, and the folder.
 */
export function pytestSettingsAbove(top: LayoutTree, path: string): { where: string; rootdir: string } | undefined {
  const parts = path.split("/").filter(Boolean);
  for (let n = parts.length - 1; n >= 0; n--) {
    const dir = parts.slice(0, n).join("/");
    const at = (p: string) => (dir === "" ? p : `${dir}/${p}`);
    const found = pytestSettingsIn({
      kind: (p) => top.kind(at(p)),
      list: (p) => top.list(at(p)),
      read: (p) => top.read(at(p)),
    });
    if (found) {
      const up = Array<string>(parts.length - n)
        .fill("..")
        .join("/");
      return { where: `${up}/${found.where}`, rootdir: up };
    }
  }
  return undefined;
}

/** Detects the layout of the repository `tree` holds. */
export function detectLayout(tree: LayoutTree): Layout {
  const unreadable: Passed[] = [];
  const pyproject = readToml(tree, "pyproject.toml", unreadable);
  const setupCfg = iniAt(tree, "setup.cfg");
  const toxIni = iniAt(tree, "tox.ini");

  const pytest = pytestSettings(tree, pyproject, setupCfg, toxIni);
  const coverage = coverageSettings(tree, pyproject, setupCfg, toxIni);
  const packages = packageFolders(tree, projectName(pyproject, setupCfg));

  let source: string[];
  let sourceFrom: string;
  // A test folder in coverage.py's source would count the tests' own lines as proven coverage.
  const testpathSet = new Set((pytest?.testpaths ?? []).map(clean).filter((t) => !packages.folders.includes(t)));
  const isTestSource = (s: string): boolean => testpathSet.has(clean(s)) || /(^|[/.])(tests?|testing)$/.test(clean(s));
  const sourceTests = (coverage?.source ?? []).filter(isTestSource);
  const coverageSource = (coverage?.source ?? []).filter((s) => !isTestSource(s));
  if (coverage && coverageSource.length > 0) {
    source = coverageSource;
    sourceFrom = `source in ${coverage.where}${sourceTests.length > 0 ? `, without the test folder(s) ${sourceTests.join(", ")}` : ""}`;
  } else if (packages.paths.length > 0) {
    source = packages.paths;
    sourceFrom = packages.from;
  } else {
    source = ["."];
    sourceFrom = "no package folder found: the whole repository, tests included";
  }

  const conventional = uniq(
    ["tests", "test", ...packages.folders.flatMap((p) => [`${p}/tests`, `${p}/test`])].filter(
      (p) => tree.kind(p) === "dir",
    ),
  );
  // "." (no package found) is warned about as a whole, not folder by folder.
  const measuredDirs = uniq(
    source
      .map(clean)
      .filter((s) => s !== ".")
      .flatMap((s) => [s, `src/${s}`].filter((d) => tree.kind(d) === "dir")),
  );
  // A testpath that is the package itself (toolz: testpaths = ["toolz"]) is searched for its tests/
  // folder only: its other folders are package data, not golden files.
  const codeFolders = new Set([".", "src", ...packages.folders, ...measuredDirs]);
  const testpaths = (pytest?.testpaths ?? []).map(clean).filter((p) => tree.kind(p) === "dir");
  const testFolders = uniq([
    ...conventional,
    ...testpaths.flatMap((t) => [...(codeFolders.has(t) ? [] : [t]), `${t}/tests`, `${t}/test`]),
  ]).filter((p) => tree.kind(p) === "dir");
  const collectArgs = pytest && pytest.testpaths.length > 0 ? [] : conventional;

  const omitted = (folder: string): boolean =>
    (coverage?.omit ?? []).some(
      (pattern) => pattern.replace(/^\.\//, "").startsWith(`${folder}/`) || /test/.test(pattern),
    );
  const testsMeasured = testFolders.filter((t) => measuredDirs.some((s) => t.startsWith(`${s}/`)) && !omitted(t));

  const passed: Passed[] = [];
  const fixtures: string[] = [];
  const seeds: string[] = [];
  for (const folder of testFolders) {
    for (const name of GOLDEN_FOLDERS) {
      const path = `${folder}/${name}`;
      if (tree.kind(path) !== "dir") continue;
      const held = contents(tree, path);
      if (held.files === 0) passed.push({ path, why: "no file in it" });
      else if (held.python > 0) passed.push({ path, why: "it holds Python modules (test code, not golden files)" });
      else fixtures.push(path);
    }
    for (const name of SEED_FOLDERS) {
      const path = `${folder}/${name}`;
      if (tree.kind(path) !== "dir") continue;
      if (contents(tree, path).files === 0) passed.push({ path, why: "no seed file in it" });
      else seeds.push(path);
    }
  }
  const nested = (paths: string[]) => uniq(paths).filter((p, _, all) => !all.some((q) => p.startsWith(`${q}/`)));

  return {
    pytest,
    coverage,
    source,
    sourceFrom,
    sourceTests,
    testFolders,
    collectArgs,
    testsMeasured,
    fixtures: nested(fixtures),
    seeds: nested(seeds),
    propertySuite: propertySuite(tree, nested(seeds), testFolders),
    hypothesisTests: hypothesisTests(tree, testFolders),
    passed,
    unreadable,
    ci: ciFound(tree),
  };
}

/** Test modules under the test folders that import hypothesis; the walk stops after MAX_SCANNED modules. */
function hypothesisTests(tree: LayoutTree, testFolders: string[]): string[] {
  const MAX_SCANNED = 500;
  const found: string[] = [];
  const queue = [...testFolders];
  let scanned = 0;
  while (queue.length > 0 && scanned < MAX_SCANNED) {
    const dir = queue.shift()!;
    for (const name of tree.list(dir)) {
      const path = `${dir}/${name.replace(/\/$/, "")}`;
      if (name.endsWith("/")) {
        if (!name.startsWith(".") && name !== "__pycache__/") queue.push(path);
      } else if (/^(test_.*|.*_test)\.py$/.test(name) && scanned++ < MAX_SCANNED) {
        const text = tree.read(path);
        if (text !== undefined && importsHypothesis(text)) found.push(path);
      }
    }
  }
  return uniq(found);
}

function readToml(tree: LayoutTree, file: string, unreadable: Passed[]): Record<string, unknown> | undefined {
  const text = tree.read(file);
  if (text === undefined) return undefined;
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const line = (error as { line?: unknown }).line;
    unreadable.push({
      path: typeof line === "number" ? `${file}:${line}` : file,
      why: `not valid TOML (${(error instanceof Error ? error.message : String(error)).split("\n")[0]})`,
    });
    return undefined;
  }
}

function table(value: unknown, ...keys: string[]): Record<string, unknown> | undefined {
  let at: unknown = value;
  for (const key of keys) {
    if (typeof at !== "object" || at === null || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === "object" && at !== null && !Array.isArray(at) ? (at as Record<string, unknown>) : undefined;
}

/** A TOML value that is a string or a list of strings, as a list (a string split at white space). */
function tomlList(value: unknown, split = true): string[] {
  if (typeof value === "string") return split ? iniList(value) : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/**
 * pytest's settings from the first file it would take them from: pytest.toml, .pytest.toml (pytest 9),
 * pytest.ini, .pytest.ini, pyproject.toml ([tool.pytest], pytest 9's table, or [tool.pytest.ini_options]),
 * tox.ini, setup.cfg.
 */
function pytestSettings(
  tree: LayoutTree,
  pyproject: Record<string, unknown> | undefined,
  setupCfg: IniFile | undefined,
  toxIni: IniFile | undefined,
): PytestSettings | undefined {
  for (const file of ["pytest.toml", ".pytest.toml"]) {
    const text = tree.read(file);
    if (text === undefined) continue;
    const found = pytestTomlTable(file, text);
    return {
      where: `${file} [pytest]`,
      testpaths: tomlList(found?.values.testpaths),
      addopts: tomlList(found?.values.addopts).flatMap((a) => iniList(a)),
    };
  }
  for (const file of ["pytest.ini", ".pytest.ini"]) {
    const text = tree.read(file);
    if (text === undefined) continue;
    const section = parseIni(text).get("pytest");
    return fromIni(`${file} [pytest]`, section);
  }
  const options = pyproject && pytestTableOf("pyproject.toml", pyproject);
  if (options) {
    return {
      where: `pyproject.toml [${options.section}]`,
      testpaths: tomlList(options.values.testpaths),
      addopts: tomlList(options.values.addopts).flatMap((a) => iniList(a)),
    };
  }
  if (toxIni?.has("pytest")) return fromIni("tox.ini [pytest]", toxIni.get("pytest"));
  if (setupCfg?.has("tool:pytest")) return fromIni("setup.cfg [tool:pytest]", setupCfg.get("tool:pytest"));
  return undefined;
}

function fromIni(where: string, section: Map<string, string> | undefined): PytestSettings {
  return { where, testpaths: iniList(section?.get("testpaths")), addopts: iniList(section?.get("addopts")) };
}

/** coverage.py's settings from the first file it would take them from (.coveragerc, setup.cfg, tox.ini, pyproject.toml). */
function coverageSettings(
  tree: LayoutTree,
  pyproject: Record<string, unknown> | undefined,
  setupCfg: IniFile | undefined,
  toxIni: IniFile | undefined,
): CoverageSettings | undefined {
  const rc = tree.read(".coveragerc");
  if (rc !== undefined) {
    const sections = parseIni(rc);
    const prefix = sections.has("run") || sections.has("report") ? "" : "coverage:";
    return fromCoverageIni(`.coveragerc [${prefix}run]`, sections, prefix);
  }
  for (const [file, sections] of [
    ["setup.cfg", setupCfg],
    ["tox.ini", toxIni],
  ] as const) {
    if (sections && [...sections.keys()].some((s) => s.startsWith("coverage:")))
      return fromCoverageIni(`${file} [coverage:run]`, sections, "coverage:");
  }
  const coverage = table(pyproject, "tool", "coverage");
  if (coverage) {
    const run = table(coverage, "run") ?? {};
    const failUnder = table(coverage, "report")?.fail_under;
    return {
      where: "pyproject.toml [tool.coverage.run]",
      source: [...tomlList(run.source, false), ...tomlList(run.source_pkgs, false)],
      omit: tomlList(run.omit, false),
      include: tomlList(run.include, false),
      failUnder: typeof failUnder === "number" ? failUnder : undefined,
    };
  }
  return undefined;
}

function fromCoverageIni(where: string, sections: IniFile, prefix: string): CoverageSettings {
  const run = sections.get(`${prefix}run`);
  const failUnder = Number(sections.get(`${prefix}report`)?.get("fail_under"));
  return {
    where,
    source: [...iniList(run?.get("source")), ...iniList(run?.get("source_pkgs"))],
    omit: iniList(run?.get("omit")),
    include: iniList(run?.get("include")),
    failUnder: Number.isFinite(failUnder) && sections.get(`${prefix}report`)?.has("fail_under") ? failUnder : undefined,
  };
}

/** The distribution's name as an import name (`more-itertools` -> `more_itertools`). */
function projectName(
  pyproject: Record<string, unknown> | undefined,
  setupCfg: IniFile | undefined,
): string | undefined {
  const name = table(pyproject, "project")?.name ?? setupCfg?.get("metadata")?.get("name");
  return typeof name === "string" ? name.toLowerCase().replace(/[-.]+/g, "_") : undefined;
}

/**
 * The packages under test: `src/<pkg>/` (the src layout), else `<pkg>/__init__.py` at the root (the
 * flat layout), else one root module. `paths` are what `--cov=` gets; `folders` hold the code.
 */
function packageFolders(
  tree: LayoutTree,
  name: string | undefined,
): { paths: string[]; folders: string[]; from: string } {
  const first = (names: string[]) =>
    names.sort((a, b) => Number(b.split("/").pop() === name) - Number(a.split("/").pop() === name));
  if (tree.kind("src") === "dir") {
    const inSrc = tree
      .list("src")
      .filter((n) => n.endsWith("/") && !n.startsWith(".") && n !== "__pycache__/" && !n.endsWith(".egg-info/"))
      .map((n) => `src/${n.slice(0, -1)}`)
      .filter((p) => tree.list(p).some((f) => f.endsWith(".py")));
    if (inSrc.length > 0) return { paths: first(inSrc), folders: inSrc, from: "the src layout (src/<package>/)" };
    if (tree.list("src").some((f) => f.endsWith(".py"))) return { paths: ["src"], folders: ["src"], from: "src/" };
  }
  const flat = tree
    .list("")
    .filter((n) => n.endsWith("/") && !n.startsWith(".") && !NOT_PACKAGES.has(n.slice(0, -1)))
    .map((n) => n.slice(0, -1))
    .filter((p) => tree.kind(`${p}/__init__.py`) === "file");
  if (flat.length > 0) return { paths: first(flat), folders: flat, from: "the package folder(s) at the root" };
  const modules = tree
    .list("")
    .filter((n) => n.endsWith(".py") && !NOT_MODULES.has(n) && !isTestFile(n))
    .map((n) => n.slice(0, -3));
  const module = modules.find((m) => m === name) ?? (modules.length === 1 ? modules[0] : undefined);
  if (module !== undefined) return { paths: [module], folders: [], from: `the module ${module}.py at the root` };
  return { paths: [], folders: [], from: "" };
}

/** How many files a folder holds (placeholders and caches aside), and how many are Python modules. */
export function contents(tree: LayoutTree, folder: string): { files: number; python: number } {
  let files = 0;
  let python = 0;
  let seen = 0;
  const walk = (dir: string): void => {
    for (const name of tree.list(dir)) {
      if (++seen > WALK_LIMIT) return;
      if (name === "__pycache__/" || name === ".pytest_cache/") continue;
      if (name.endsWith("/")) walk(`${dir}/${name.slice(0, -1)}`);
      else if (!PLACEHOLDERS.has(name)) {
        files++;
        if (name.endsWith(".py")) python++;
      }
    }
  };
  walk(folder);
  return { files, python };
}

/**
 * The property suite: the folder that holds the seed folder and test modules of its own, when it is not
 * a whole test folder (running the whole suite again is not a property suite).
 */
function propertySuite(tree: LayoutTree, seeds: string[], testFolders: string[]): string | undefined {
  for (const seed of seeds) {
    for (let dir = parentOf(seed); dir !== "" && !testFolders.includes(dir); dir = parentOf(dir)) {
      if (tree.list(dir).some(isTestFile)) return dir;
    }
  }
  return undefined;
}

/** The CI systems the repository at the tree's root is configured for. */
export function ciFound(tree: LayoutTree): CiFound[] {
  const found: CiFound[] = [];
  if (tree.list(".github/workflows").some((n) => /\.ya?ml$/.test(n))) found.push("github");
  if (tree.kind(".gitlab-ci.yml") === "file") found.push("gitlab");
  if (tree.kind(".buildkite") === "dir") found.push("buildkite");
  return found;
}

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/")));
const clean = (path: string): string => path.replace(/^\.\//, "").replace(/\/+$/, "") || ".";
const uniq = (items: string[]): string[] => [...new Set(items)];

import type { RunFinding } from "./findings.js";

/**
 * Top-level modules of the test tools (pytest 7.2-9 and its dependencies, pluggy, coverage.py,
 * pytest-cov, hypothesis, pytest-xdist) and of the gate's own plugin. A module by one of these names on
 * the import path ahead of the real one replaces the tool that measures the patch.
 */
export const RUNNER_MODULES: readonly string[] = [
  "pytest",
  "_pytest",
  "py",
  "pluggy",
  "iniconfig",
  "packaging",
  "exceptiongroup",
  "tomli",
  "attr",
  "attrs",
  "colorama",
  "pygments",
  "coverage",
  "pytest_cov",
  "cov_core",
  "hypothesis",
  "_hypothesis_pytestplugin",
  "_hypothesis_ftz_detector",
  "_hypothesis_globals",
  "sortedcontainers",
  "typing_extensions",
  "xdist",
  "execnet",
  "sitecustomize",
  "usercustomize",
  "proofgate_frozen",
];

/**
 * The standard library's top-level modules: CPython 3.11's `sys.stdlib_module_names` (recorded from
 * Debian's /usr/bin/python3, 3.11.2) and the few names 3.13 and 3.14 added. pytest and the plugin import
 * many of them after the working directory is on sys.path, so a work-tree `json.py` replaces the real
 * one for both (measured: `python -m pytest` with a root json.py runs the work tree's json).
 */
export const STDLIB_MODULES: readonly string[] = [
  "__future__",
  "_abc",
  "_aix_support",
  "_ast",
  "_asyncio",
  "_bisect",
  "_blake2",
  "_bootsubprocess",
  "_bz2",
  "_codecs",
  "_codecs_cn",
  "_codecs_hk",
  "_codecs_iso2022",
  "_codecs_jp",
  "_codecs_kr",
  "_codecs_tw",
  "_collections",
  "_collections_abc",
  "_colorize",
  "_compat_pickle",
  "_compression",
  "_contextvars",
  "_crypt",
  "_csv",
  "_ctypes",
  "_curses",
  "_curses_panel",
  "_datetime",
  "_dbm",
  "_decimal",
  "_elementtree",
  "_frozen_importlib",
  "_frozen_importlib_external",
  "_functools",
  "_gdbm",
  "_hashlib",
  "_heapq",
  "_imp",
  "_io",
  "_json",
  "_locale",
  "_lsprof",
  "_lzma",
  "_markupbase",
  "_md5",
  "_msi",
  "_multibytecodec",
  "_multiprocessing",
  "_opcode",
  "_operator",
  "_osx_support",
  "_overlapped",
  "_pickle",
  "_posixshmem",
  "_posixsubprocess",
  "_py_abc",
  "_pydecimal",
  "_pyio",
  "_pyrepl",
  "_queue",
  "_random",
  "_scproxy",
  "_sha1",
  "_sha256",
  "_sha3",
  "_sha512",
  "_signal",
  "_sitebuiltins",
  "_socket",
  "_sqlite3",
  "_sre",
  "_ssl",
  "_stat",
  "_statistics",
  "_string",
  "_strptime",
  "_struct",
  "_symtable",
  "_thread",
  "_threading_local",
  "_tkinter",
  "_tokenize",
  "_tracemalloc",
  "_typing",
  "_uuid",
  "_warnings",
  "_weakref",
  "_weakrefset",
  "_winapi",
  "_zoneinfo",
  "abc",
  "aifc",
  "annotationlib",
  "antigravity",
  "argparse",
  "array",
  "ast",
  "asynchat",
  "asyncio",
  "asyncore",
  "atexit",
  "audioop",
  "base64",
  "bdb",
  "binascii",
  "bisect",
  "builtins",
  "bz2",
  "cProfile",
  "calendar",
  "cgi",
  "cgitb",
  "chunk",
  "cmath",
  "cmd",
  "code",
  "codecs",
  "codeop",
  "collections",
  "colorsys",
  "compileall",
  "compression",
  "concurrent",
  "configparser",
  "contextlib",
  "contextvars",
  "copy",
  "copyreg",
  "crypt",
  "csv",
  "ctypes",
  "curses",
  "dataclasses",
  "datetime",
  "dbm",
  "decimal",
  "difflib",
  "dis",
  "distutils",
  "doctest",
  "email",
  "encodings",
  "ensurepip",
  "enum",
  "errno",
  "faulthandler",
  "fcntl",
  "filecmp",
  "fileinput",
  "fnmatch",
  "fractions",
  "ftplib",
  "functools",
  "gc",
  "genericpath",
  "getopt",
  "getpass",
  "gettext",
  "glob",
  "graphlib",
  "grp",
  "gzip",
  "hashlib",
  "heapq",
  "hmac",
  "html",
  "http",
  "idlelib",
  "imaplib",
  "imghdr",
  "imp",
  "importlib",
  "inspect",
  "io",
  "ipaddress",
  "itertools",
  "json",
  "keyword",
  "lib2to3",
  "linecache",
  "locale",
  "logging",
  "lzma",
  "mailbox",
  "mailcap",
  "marshal",
  "math",
  "mimetypes",
  "mmap",
  "modulefinder",
  "msilib",
  "msvcrt",
  "multiprocessing",
  "netrc",
  "nis",
  "nntplib",
  "nt",
  "ntpath",
  "nturl2path",
  "numbers",
  "opcode",
  "operator",
  "optparse",
  "os",
  "ossaudiodev",
  "pathlib",
  "pdb",
  "pickle",
  "pickletools",
  "pipes",
  "pkgutil",
  "platform",
  "plistlib",
  "poplib",
  "posix",
  "posixpath",
  "pprint",
  "profile",
  "pstats",
  "pty",
  "pwd",
  "py_compile",
  "pyclbr",
  "pydoc",
  "pydoc_data",
  "pyexpat",
  "queue",
  "quopri",
  "random",
  "re",
  "readline",
  "reprlib",
  "resource",
  "rlcompleter",
  "runpy",
  "sched",
  "secrets",
  "select",
  "selectors",
  "shelve",
  "shlex",
  "shutil",
  "signal",
  "site",
  "smtpd",
  "smtplib",
  "sndhdr",
  "socket",
  "socketserver",
  "spwd",
  "sqlite3",
  "sre_compile",
  "sre_constants",
  "sre_parse",
  "ssl",
  "stat",
  "statistics",
  "string",
  "stringprep",
  "struct",
  "subprocess",
  "sunau",
  "symtable",
  "sys",
  "sysconfig",
  "syslog",
  "tabnanny",
  "tarfile",
  "telnetlib",
  "tempfile",
  "termios",
  "textwrap",
  "this",
  "threading",
  "time",
  "timeit",
  "tkinter",
  "token",
  "tokenize",
  "tomllib",
  "trace",
  "traceback",
  "tracemalloc",
  "tty",
  "turtle",
  "turtledemo",
  "types",
  "typing",
  "unicodedata",
  "unittest",
  "urllib",
  "uu",
  "uuid",
  "venv",
  "warnings",
  "wave",
  "weakref",
  "webbrowser",
  "winreg",
  "winsound",
  "wsgiref",
  "xdrlib",
  "xml",
  "xmlrpc",
  "zipapp",
  "zipfile",
  "zipimport",
  "zlib",
  "zoneinfo",
];

// Imported while the interpreter starts, before any folder of the work tree is on sys.path: a file by
// these names cannot take their place (measured with `python -I -S`, plus what site and -m import).
const LOADED_AT_STARTUP = new Set([
  "__main__",
  "_abc",
  "_codecs",
  "_frozen_importlib",
  "_frozen_importlib_external",
  "_imp",
  "_io",
  "_signal",
  "_thread",
  "_warnings",
  "_weakref",
  "abc",
  "builtins",
  "codecs",
  "encodings",
  "io",
  "marshal",
  "posix",
  "sys",
  "time",
  "zipimport",
  "os",
  "stat",
  "posixpath",
  "genericpath",
  "_collections_abc",
  "_sitebuiltins",
  "site",
  "runpy",
]);

/** How to look for shadowing modules. */
export interface ShadowOptions {
  /**
   * The commands run with `python -P` / PYTHONSAFEPATH=1 (Python 3.11+): the repository root is then on
   * sys.path only if pytest puts it there (a root conftest.py or test module, `pythonpath = .`).
   */
  safePath?: boolean | undefined;
  /** More folders on the import path, repository-relative ("" is the root): `pythonpath` in pytest's configuration, `src`. */
  extraRoots?: readonly string[] | undefined;
  /** Also report standard-library names (default true). */
  stdlib?: boolean | undefined;
}

const MODULE_FILE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.[^/]*)?\.(?:py|pyc|so|pyd)$/;
const PACKAGE_INIT = /^__init__\.(?:py|pyc|so|pyd)$/;
const TEST_MODULE = /^(?:test_.*|.*_test|conftest)\.py$/;

const parent = (path: string): string => {
  const cut = path.lastIndexOf("/");
  return cut === -1 ? "" : path.slice(0, cut);
};

/**
 * The folder pytest puts on sys.path to import a test module or conftest.py in its default `prepend`
 * import mode: the first folder up from the file that is not a package (has no `__init__.py`).
 */
export function pytestImportRoot(path: string, has: (path: string) => boolean): string {
  let dir = parent(path);
  while (dir !== "" && (has(`${dir}/__init__.py`) || has(`${dir}/__init__.pyc`))) dir = parent(dir);
  return dir;
}

/**
 * The folders on the import path, each with why it is one (the first reason found): the repository root
 * (`python -m pytest` puts the working directory first on sys.path, unless `safePath`), `extraRoots`,
 * and the folders pytest inserts for test modules and conftest.py files. `paths` are one tree's files.
 */
export function importRoots(paths: readonly string[], options: ShadowOptions = {}): Map<string, string> {
  const all = new Set(paths);
  const has = (p: string): boolean => all.has(p);
  const roots = new Map<string, string>();
  if (!options.safePath) roots.set("", "`python -m pytest` puts the working directory first on sys.path");
  for (const root of options.extraRoots ?? [])
    if (!roots.has(root)) roots.set(root, "it is on the configured import path");
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (!TEST_MODULE.test(name)) continue;
    const root = pytestImportRoot(path, has);
    if (!roots.has(root)) roots.set(root, `pytest inserts it into sys.path to import ${path}`);
  }
  return roots;
}

/** A repository file as a top-level module: its name, the folder that must be on sys.path, and how to show it. */
export interface TopLevelModule {
  module: string;
  root: string;
  /** The module file, or the package's folder with a trailing `/`. */
  shown: string;
}

/** The top-level module `path` (a module file or a package's `__init__`) is, if its folder is on sys.path. */
export function topLevelModule(path: string): TopLevelModule | undefined {
  const dir = parent(path);
  const base = path.slice(dir.length === 0 ? 0 : dir.length + 1);
  if (PACKAGE_INIT.test(base)) {
    if (dir === "") return undefined;
    return { module: dir.slice(dir.lastIndexOf("/") + 1), root: parent(dir), shown: `${dir}/` };
  }
  const module = MODULE_FILE.exec(base)?.[1];
  return module === undefined ? undefined : { module, root: dir, shown: path };
}

/** The base's and the head's trees, for judging shadowing against the base. */
export interface ShadowTrees {
  /** The base revision's files, repository-relative. */
  base: readonly string[];
  /** The head revision's files. */
  head: readonly string[];
  /** The head's import path (its `pythonpath`); also the base's unless `baseOptions`. */
  options?: ShadowOptions | undefined;
  /** The base's import path: its `pythonpath`, and the folders its run had on sys.path before pytest started. */
  baseOptions?: ShadowOptions | undefined;
}

/** A path inside an installed packages folder. */
const INSTALLED = /(?:^|\/)(?:site|dist)-packages\//;

/**
 * Why a work-tree module that the run imports as `module` from `path` is the patch's, not the project's:
 * the paths whose change made it (the module itself when the base has no such file; the root's
 * `__init__.py` when the root was a package at the base, so the file was a submodule; the test files
 * that made pytest insert its folder). Undefined when the base's tree already provided it as it is: the
 * same file, top-level in a folder on the base's import path. A module object under a name its file
 * does not give (`sys.modules["json"] = ...`) is always the patch's. An installed package no commit tracks
 * is the environment's (undefined).
 */
export function shadowMadeBy(module: string, path: string, trees: ShadowTrees): string[] | undefined {
  const top = topLevelModule(path);
  if (top === undefined || top.module !== module) return [path];
  const base = new Set(trees.base);
  const head = new Set(trees.head);
  // An installed package: a file in a `site-packages` folder that no commit tracks (a virtual environment kept
  // in the checkout, ignored). It is the environment the run was given, as a folder outside the checkout is;
  // the patch is commits, and what the run itself writes there is the writes watch's. A tracked one is judged.
  if (!base.has(path) && !head.has(path) && INSTALLED.test(path)) return undefined;
  if (!base.has(path)) return [path];
  const { root } = top;
  const inits = [`${root}/__init__.py`, `${root}/__init__.pyc`];
  if (root !== "" && inits.some((p) => base.has(p))) return inits.filter((p) => base.has(p));
  const baseRoots = importRoots(trees.base, trees.baseOptions ?? trees.options);
  if (baseRoots.has(root)) return undefined;
  // Not on the base's import path: the head put it there (a test module or conftest.py in a folder that
  // had none, or a configured root the head's run added).
  const made = trees.head.filter(
    (p) => TEST_MODULE.test(p.slice(p.lastIndexOf("/") + 1)) && pytestImportRoot(p, (q) => head.has(q)) === root,
  );
  return made.length > 0 ? made : [path];
}

/**
 * Work-tree modules that would be imported instead of a test tool or a standard module: a module file
 * or a package (a folder with `__init__.py`) directly in a folder on the import path (`importRoots`).
 * `paths` are the head revision's files, repository-relative. With `base` (the base revision's files),
 * what the base's tree already provided the same way is the project's own and not reported
 * (`shadowMadeBy`); each finding then names the paths whose change made it in `madeBy`.
 */
export function findToolShadows(
  paths: readonly string[],
  options: ShadowOptions = {},
  base?: readonly string[],
  baseOptions?: ShadowOptions,
): RunFinding[] {
  const roots = importRoots(paths, options);
  // The root stays on sys.path under `python -P` when pytest inserts it (a root conftest.py, a tests package).
  const rootWithoutCwd = importRoots(paths, { ...options, safePath: true }).has("");
  const runner = new Set(RUNNER_MODULES);
  const stdlib = options.stdlib === false ? new Set<string>() : new Set(STDLIB_MODULES);
  const found = new Map<string, RunFinding>();
  for (const path of [...paths].sort()) {
    const top = topLevelModule(path);
    if (top === undefined || !roots.has(top.root) || LOADED_AT_STARTUP.has(top.module)) continue;
    const { module, root, shown } = top;
    const isRunner = runner.has(module) || module.startsWith("proofgate_");
    if (!isRunner && !stdlib.has(module)) continue;
    const key = `${root}\u0000${module}`;
    if (found.has(key)) continue;
    const madeBy =
      base === undefined ? undefined : shadowMadeBy(module, path, { base, head: paths, options, baseOptions });
    if (base !== undefined && madeBy === undefined) continue;
    const where = root === "" ? "the repository root" : `${root}/`;
    found.set(key, {
      code: "tool_shadowed",
      paths: [shown],
      ...(madeBy === undefined ? {} : { madeBy }),
      message: `${shown} in ${where} shadows ${isRunner ? "the test tool module" : "the standard library's"} \`${module}\`: ${roots.get(root)}, so the run imports the work tree's ${module} instead`,
      fix:
        root === "" && !options.safePath && !rootWithoutCwd
          ? `rename or remove ${shown}; running the commands with \`python -P\` (PYTHONSAFEPATH=1, Python 3.11+, \`[commands] safe_path = true\`) also keeps the root off sys.path`
          : `rename or remove ${shown}`,
    });
  }
  return [...found.values()];
}

// The runner's configuration by meaning: a protected section changed is found with its keys and line;
// a reformat, a reorder and a change to another tool's section are not. The files the commands invoke,
// read from real command lines. What pytest calls a test file.
import { describe, expect, it } from "vitest";
import {
  diffSection,
  invokedFiles,
  isTestFile,
  readPytestPythonpath,
  parseSectionSpec,
  readPytestSettings,
  readSection,
  simpleCommands,
  testFilesOf,
  testFolderOf,
  type PytestSettings,
} from "./runner-config.js";

/** The keys that differ between two texts of `path` in `section`; undefined when they mean the same. */
function diff(path: string, section: string | undefined, before: string | undefined, after: string | undefined) {
  return diffSection(readSection(before, path, section), readSection(after, path, section));
}

const PYTEST_INI = `[pytest]
addopts = -ra --strict-markers
testpaths = tests
markers =
    slow: slow tests
`;

const PYPROJECT = `[project]
name = "pkg"
dependencies = ["attrs>=22"]

[tool.pytest.ini_options]
addopts = "-ra"
testpaths = ["tests"]

[tool.coverage.run]
branch = true
`;

describe("parseSectionSpec", () => {
  it("reads `path` and `path [section]`, the path as git writes it", () => {
    expect(parseSectionSpec("pytest.ini")).toEqual({ spec: "pytest.ini", file: "pytest.ini", section: undefined });
    expect(parseSectionSpec("./setup.cfg  [ coverage:* ]")).toEqual({
      spec: "./setup.cfg  [ coverage:* ]",
      file: "setup.cfg",
      section: "coverage:*",
    });
    expect(parseSectionSpec("**/pyproject.toml [tool.pytest.ini_options]")?.file).toBe("**/pyproject.toml");
    for (const bad of ["", "../x.ini", "/etc/x", "a [b] [c]", "x []"]) expect(parseSectionSpec(bad)).toBeUndefined();
  });
});

describe("diffSection: a protected section changed by meaning", () => {
  const changed: [
    name: string,
    path: string,
    section: string | undefined,
    before: string | undefined,
    after: string | undefined,
    keys: string[],
    line: number | undefined,
  ][] = [
    [
      "addopts changed in pytest.ini",
      "pytest.ini",
      undefined,
      PYTEST_INI,
      PYTEST_INI.replace("-ra", "-ra --ignore=tests/test_x.py"),
      ["[pytest] addopts"],
      2,
    ],
    [
      "a key added to pytest.ini",
      "pytest.ini",
      undefined,
      PYTEST_INI,
      `${PYTEST_INI}python_files = check_*.py\n`,
      ["[pytest] python_files"],
      6,
    ],
    [
      "an empty pytest.ini created (pytest now reads it instead of pyproject.toml)",
      "tests/pytest.ini",
      undefined,
      undefined,
      "",
      [],
      1,
    ],
    [
      "[tool.pytest.ini_options] addopts changed",
      "pyproject.toml",
      "tool.pytest.ini_options",
      PYPROJECT,
      PYPROJECT.replace('addopts = "-ra"', "addopts = \"-ra -p no:randomly -k 'not slow'\""),
      ["tool.pytest.ini_options.addopts"],
      6,
    ],
    [
      "[tool.pytest.ini_options] created, empty",
      "tests/pyproject.toml",
      "tool.pytest.ini_options",
      '[project]\nname = "x"\n',
      '[project]\nname = "x"\n\n[tool.pytest.ini_options]\n',
      ["tool.pytest.ini_options"],
      4,
    ],
    [
      "setup.cfg [tool:pytest] gains collect_ignore-like norecursedirs",
      "setup.cfg",
      "tool:pytest",
      "[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\n",
      "[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\nnorecursedirs = tests/slow\n",
      ["[tool:pytest] norecursedirs"],
      5,
    ],
    [
      "a [testenv] command changed under `setup.cfg [testenv*]`",
      "setup.cfg",
      "testenv*",
      "[testenv]\ncommands = pytest\n",
      "[testenv]\ncommands = pytest -k 'not flaky'\n",
      ["[testenv] commands"],
      2,
    ],
    [
      "a key's case changed (pytest reads keys as written)",
      "pytest.ini",
      undefined,
      PYTEST_INI,
      PYTEST_INI.replace("addopts", "AddOpts"),
      ["[pytest] AddOpts", "[pytest] addopts"],
      2,
    ],
  ];
  it.each(changed)("%s", (_name, path, section, before, after, keys, line) => {
    expect(diff(path, section, before, after)).toEqual({ keys, line });
  });

  it("a side that cannot be read is a change, with why", () => {
    expect(diff("pytest.ini", undefined, PYTEST_INI, "[pytest]\naddopts\n")).toEqual({
      keys: [],
      line: 2,
      unreadable: 'not `key = value`: "addopts"',
    });
    expect(
      diff("pyproject.toml", "tool.pytest.ini_options", PYPROJECT, "[tool.pytest.ini_options\n")?.unreadable,
    ).toMatch(/^not valid TOML/);
  });
});

describe("diffSection: no change", () => {
  const same: [
    name: string,
    path: string,
    section: string | undefined,
    before: string | undefined,
    after: string | undefined,
  ][] = [
    [
      "pytest.ini reformatted: keys reordered, spacing, `:` for `=`, comments, the markers' indentation",
      "pytest.ini",
      undefined,
      PYTEST_INI,
      "# pytest's settings\n[pytest]\nmarkers =\n        slow: slow tests\ntestpaths: tests\naddopts   =   -ra --strict-markers\n",
    ],
    [
      "a dependency bump in pyproject.toml",
      "pyproject.toml",
      "tool.pytest.ini_options",
      PYPROJECT,
      PYPROJECT.replace("attrs>=22", "attrs>=23.1"),
    ],
    [
      "pyproject.toml reformatted: tables reordered, an array over lines, a comment",
      "pyproject.toml",
      "tool.pytest.ini_options",
      PYPROJECT,
      `[tool.pytest.ini_options]
# the suite
testpaths = [
    "tests",
]
addopts = "-ra"

[project]
dependencies = ["attrs>=22"]
name = "pkg"
`,
    ],
    ["the section absent at both", "setup.cfg", "tool:pytest", "[metadata]\nname = x\n", "[metadata]\nname = y\n"],
    ["no file at both", "pytest.ini", undefined, undefined, undefined],
  ];
  it.each(same)("%s", (_name, path, section, before, after) => {
    expect(diff(path, section, before, after)).toBeUndefined();
  });
});

describe("invokedFiles: what the [commands] run from the repository", () => {
  const cases: [command: string, paths: string[], sections?: string[], rc?: string][] = [
    ["make test", ["GNUmakefile", "makefile", "Makefile"]],
    ["make -C ci -f test.mk check", ["ci/test.mk"]],
    ["tox -e py311", [], ["tox.ini", "setup.cfg [tox:tox]", "setup.cfg [testenv*]", "pyproject.toml [tool.tox]"]],
    ["tox -c ci/tox.ini", [], ["ci/tox.ini"]],
    ["nox -s tests", ["noxfile.py"]],
    ["nox --noxfile=ci/noxfile.py", ["ci/noxfile.py"]],
    ["./scripts/test.sh --fast && bash ci/report.sh", ["scripts/test.sh", "ci/report.sh"]],
    ["python scripts/run_tests.py -q > out.txt 2>&1", ["scripts/run_tests.py"]],
    [
      "/usr/bin/python3 -m pytest -p no:cacheprovider -p myplugin -q tests",
      ["pytest.py", "pytest/**", "myplugin.py", "myplugin/**"],
    ],
    [
      "python -m pytest --cov=pkg --cov-config=ci/coveragerc",
      ["pytest.py", "pytest/**", "ci/coveragerc"],
      [],
      "ci/coveragerc",
    ],
    [
      "coverage run --rcfile=.coveragerc.ci -m pytest",
      [".coveragerc.ci", "pytest.py", "pytest/**"],
      [],
      ".coveragerc.ci",
    ],
    [
      "cd sub && ./run.sh; PYTHONPATH=. poetry run python -m tools.check",
      ["sub/run.sh", "sub/tools.py", "sub/tools/**"],
    ],
    ["sh -c 'make -f ci.mk'", ["ci.mk"]],
    ["pytest -c ci/pytest.ini -q", ["ci/pytest.ini"]],
    ["$PY -m pytest; python ../outside.py; python /abs/x.py; python -c 'print(1)'", []],
  ];
  it.each(cases)("%s", (command, paths, sections = [], rc) => {
    const found = invokedFiles([command]);
    expect(found.paths).toEqual(paths);
    expect(found.sections).toEqual(sections);
    expect(found.coverageRc).toBe(rc);
  });

  it("splits a line as sh does: quotes, escapes, operators, redirections, comments", () => {
    expect(simpleCommands(`a "b c" 'd e' f\\ g; h && i || j | k & l > out 2>&1 <in # done`)).toEqual([
      ["a", "b c", "d e", "f g"],
      ["h"],
      ["i"],
      ["j"],
      ["k"],
      ["l"],
    ]);
  });
});

describe("what a test file is", () => {
  const settings = (files: Record<string, string>): PytestSettings => readPytestSettings((p) => files[p]);

  it("takes python_files and testpaths from the file pytest reads, in pytest's order", () => {
    expect(settings({})).toEqual({ pythonFiles: ["test_*.py", "*_test.py"], testpaths: [] });
    expect(settings({ "pytest.ini": "", "pyproject.toml": PYPROJECT })).toEqual({
      file: "pytest.ini",
      pythonFiles: ["test_*.py", "*_test.py"],
      testpaths: [],
    });
    expect(
      settings({ "pyproject.toml": PYPROJECT, "setup.cfg": "[tool:pytest]\npython_files = check_*.py\n" }),
    ).toEqual({
      file: "pyproject.toml [tool.pytest.ini_options]",
      pythonFiles: ["test_*.py", "*_test.py"],
      testpaths: ["tests"],
    });
    expect(
      settings({ "setup.cfg": "[tool:pytest]\npython_files = check_*.py\n  *_spec.py\ntestpaths = qa\n" }),
    ).toEqual({
      file: "setup.cfg [tool:pytest]",
      pythonFiles: ["check_*.py", "*_spec.py"],
      testpaths: ["qa"],
    });
  });

  it("pytest 9's files: pytest.toml first (even empty), [tool.pytest] before its ini_options, and their pythonpath", () => {
    expect(settings({ "pytest.toml": "", "pytest.ini": "[pytest]\ntestpaths = x\n" })).toEqual({
      file: "pytest.toml",
      pythonFiles: ["test_*.py", "*_test.py"],
      testpaths: [],
    });
    expect(
      settings({ ".pytest.toml": '[pytest]\ntestpaths = ["qa"]\npython_files = ["check_*.py"]\n', "pytest.ini": "" }),
    ).toEqual({ file: ".pytest.toml [pytest]", pythonFiles: ["check_*.py"], testpaths: ["qa"] });
    expect(
      settings({ "pyproject.toml": '[tool.pytest]\ntestpaths = ["it"]\n', "setup.cfg": "[tool:pytest]\n" }),
    ).toEqual({
      file: "pyproject.toml [tool.pytest]",
      pythonFiles: ["test_*.py", "*_test.py"],
      testpaths: ["it"],
    });
    expect(settings({ "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["t"]\n' }).file).toBe(
      "pyproject.toml [tool.pytest.ini_options]",
    );
    expect(readPytestPythonpath((p) => ({ "pytest.toml": '[pytest]\npythonpath = ["src", "."]\n' })[p])).toEqual([
      "src",
      "",
    ]);
    expect(readPytestPythonpath((p) => ({ "pyproject.toml": '[tool.pytest]\npythonpath = ["lib"]\n' })[p])).toEqual([
      "lib",
    ]);
  });

  const s: PytestSettings = { pythonFiles: ["test_*.py", "*_test.py", "checks/*.py"], testpaths: ["qa"] };
  const collected = new Set(["pkg/checks_run.py"]);
  // A test file is what pytest collects from: where a file lies says nothing (tests inside the package).
  const cases: [path: string, test: boolean, folder: string | undefined][] = [
    ["pkg/test_util.py", true, undefined],
    ["pkg/util_test.py", true, undefined],
    ["pkg/sub/conftest.py", true, undefined],
    ["checks/smoke.py", true, undefined],
    ["pkg/checks_run.py", true, undefined],
    ["qa/helpers.py", false, "qa"],
    ["tests/helpers.py", false, "tests"],
    ["pkg/tests/test_core.py", true, "pkg/tests"],
    ["src/pkg/test/fixtures.py", false, "src/pkg/test"],
    ["pkg/util.py", false, undefined],
    ["pkg/testing.py", false, undefined],
    ["tools/latest_test_data.py", false, undefined],
    ["qa_tools/x.py", false, undefined],
  ];
  it.each(cases)("%s: test file %s, test folder %s", (path, test, folder) => {
    expect(isTestFile(path, s, collected)).toBe(test);
    expect(testFolderOf(path, s)).toBe(folder);
  });

  it("with the tests inside the package (testpaths = the package), the package's modules are source", () => {
    const inside: PytestSettings = { pythonFiles: ["test_*.py", "*_test.py"], testpaths: ["pkg"] };
    expect(isTestFile("pkg/core.py", inside)).toBe(false);
    expect(isTestFile("pkg/tests/test_x.py", inside)).toBe(true);
    expect(testFolderOf("pkg/core.py", inside)).toBe("pkg");
    expect(testFolderOf("pkg/tests/helpers.py", inside)).toBe("pkg/tests");
  });

  it("the files that hold collected tests: test functions and classes, not a source module's doctests", () => {
    const ids = [
      "pkg/tests/test_x.py::test_a",
      "pkg/tests/test_x.py::TestK::test_b[1-2]",
      "tests/checks.py::test_run[a::b]",
      "pkg/core.py::pkg.core.add",
      "pkg/core.py::pkg.core",
      "single.py::single",
      "pkg/__init__.py::pkg",
      "README.rst::README.rst",
      "no-separator",
    ];
    expect([...testFilesOf(ids)].sort()).toEqual(["README.rst", "pkg/tests/test_x.py", "tests/checks.py"]);
    expect([...testFilesOf(["test_a.py::test_b"], "sub")]).toEqual(["sub/test_a.py"]);
  });
});

describe("readPytestPythonpath: the folders pytest's `pythonpath` puts on sys.path", () => {
  const files =
    (map: Record<string, string>) =>
    (path: string): string | undefined =>
      map[path];
  it("from the file pytest reads, repository-relative, the root as an empty string", () => {
    expect(
      readPytestPythonpath(files({ "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src", "."]\n' })),
    ).toEqual(["src", ""]);
    expect(readPytestPythonpath(files({ "pytest.ini": "[pytest]\npythonpath = src ./lib/\n" }))).toEqual([
      "src",
      "lib",
    ]);
    // pytest.ini wins over pyproject.toml, as pytest reads it first.
    expect(
      readPytestPythonpath(
        files({ "pytest.ini": "[pytest]\n", "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n' }),
      ),
    ).toEqual([]);
  });
  it("nothing for folders outside the repository or unreadable settings", () => {
    expect(readPytestPythonpath(files({ "setup.cfg": "[tool:pytest]\npythonpath = /opt/x ../y\n" }))).toEqual([]);
    expect(readPytestPythonpath(files({ "pyproject.toml": "not toml [" }))).toEqual([]);
    expect(readPytestPythonpath(files({}))).toEqual([]);
  });
});

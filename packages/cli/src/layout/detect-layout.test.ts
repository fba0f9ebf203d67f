import { describe, expect, it } from "vitest";
import { detectLayout, pytestSettingsAbove, type Layout } from "./detect-layout.js";
import { memoryTree } from "./layout-tree.js";

// Layouts as they are found in real repositories, held in memory: what init must learn from each.
const SRC_LAYOUT = {
  "pyproject.toml": `[project]
name = "pkg"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]

[tool.coverage.run]
source = ["pkg"]
branch = true
`,
  "src/pkg/__init__.py": "",
  "src/pkg/core.py": "",
  "src/pkg.egg-info/PKG-INFO": "",
  "tests/test_core.py": "",
  "tests/fixtures/golden.json": "{}",
  "tests/properties/test_props.py": "",
  "tests/properties/seeds/a.txt": "a",
  ".github/workflows/ci.yml": "",
};

// toolz's shape: the tests inside the package, the settings in setup.cfg, package data beside them.
const TESTS_IN_PACKAGE = {
  "setup.cfg": `[metadata]
name = pkg

[tool:pytest]
testpaths = pkg
addopts = -ra
    --strict-markers

[coverage:run]
source = pkg
omit =
    pkg/tests/*
`,
  "pkg/__init__.py": "",
  "pkg/core.py": "",
  "pkg/data/table.csv": "a,b\n",
  "pkg/tests/__init__.py": "",
  "pkg/tests/test_core.py": "",
  ".gitlab-ci.yml": "",
};

const PYPROJECT_ONLY = {
  "pyproject.toml": '[project]\nname = "flat-pkg"\nversion = "1.0"\n',
  "flat_pkg/__init__.py": "",
  "tests/test_a.py": "",
  "docs/conf.py": "",
};

const cases: Array<{ name: string; files: Record<string, string>; expected: Partial<Layout> }> = [
  {
    name: "src layout, pytest and coverage.py in pyproject.toml, fixtures, seeds beside a property suite, GitHub",
    files: SRC_LAYOUT,
    expected: {
      pytest: { where: "pyproject.toml [tool.pytest.ini_options]", testpaths: ["tests"], addopts: [] },
      source: ["pkg"],
      sourceFrom: "source in pyproject.toml [tool.coverage.run]",
      testFolders: ["tests"],
      collectArgs: [],
      testsMeasured: [],
      fixtures: ["tests/fixtures"],
      seeds: ["tests/properties/seeds"],
      propertySuite: "tests/properties",
      passed: [],
      ci: ["github"],
    },
  },
  {
    name: "coverage.py's source lists the test folder: the tests are never measured as source",
    files: {
      ".coveragerc": "[run]\nsource =\n    pkg\n    tests\n",
      "pkg/__init__.py": "",
      "tests/test_core.py": "",
    },
    expected: {
      source: ["pkg"],
      sourceFrom: "source in .coveragerc [run], without the test folder(s) tests",
      sourceTests: ["tests"],
      testsMeasured: [],
    },
  },
  {
    name: "coverage.py's source is only the test folder: the package found is measured instead",
    files: {
      "pyproject.toml": '[tool.coverage.run]\nsource = ["tests"]\n',
      "pkg/__init__.py": "",
      "tests/test_core.py": "",
    },
    expected: { source: ["pkg"], sourceTests: ["tests"] },
  },
  {
    name: "src layout without coverage.py settings: the package folder under src/",
    files: { "src/pkg/__init__.py": "", "src/pkg/core.py": "", "tests/test_core.py": "" },
    expected: {
      pytest: undefined,
      coverage: undefined,
      source: ["src/pkg"],
      sourceFrom: "the src layout (src/<package>/)",
      collectArgs: ["tests"],
    },
  },
  {
    name: "tests inside the package (toolz), setup.cfg: package data is not a golden folder, GitLab",
    files: TESTS_IN_PACKAGE,
    expected: {
      pytest: { where: "setup.cfg [tool:pytest]", testpaths: ["pkg"], addopts: ["-ra", "--strict-markers"] },
      coverage: {
        where: "setup.cfg [coverage:run]",
        source: ["pkg"],
        omit: ["pkg/tests/*"],
        include: [],
        failUnder: undefined,
      },
      source: ["pkg"],
      testFolders: ["pkg/tests"],
      collectArgs: [],
      testsMeasured: [],
      fixtures: [],
      seeds: [],
      ci: ["gitlab"],
    },
  },
  {
    name: "tests inside the package and no omit: coverage.py would count the tests",
    files: { ...TESTS_IN_PACKAGE, "setup.cfg": "[tool:pytest]\ntestpaths = pkg\n\n[coverage:run]\nsource = pkg\n" },
    expected: { testsMeasured: ["pkg/tests"] },
  },
  {
    name: "pyproject.toml with [project] alone, a flat package: the package folder, the tests folder named",
    files: PYPROJECT_ONLY,
    expected: {
      pytest: undefined,
      coverage: undefined,
      source: ["flat_pkg"],
      sourceFrom: "the package folder(s) at the root",
      testFolders: ["tests"],
      collectArgs: ["tests"],
      fixtures: [],
      seeds: [],
      ci: [],
    },
  },
  {
    name: "pytest.ini comes before pyproject.toml, even without a [pytest] section",
    files: { "pytest.ini": "# nothing yet\n", "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["x"]\n' },
    expected: { pytest: { where: "pytest.ini [pytest]", testpaths: [], addopts: [] } },
  },
  {
    name: "pytest 9: pytest.toml comes before pytest.ini; pyproject.toml's [tool.pytest] is pytest's table",
    files: { "pytest.toml": '[pytest]\ntestpaths = ["qa"]\naddopts = ["-ra"]\n', "pytest.ini": "[pytest]\n" },
    expected: { pytest: { where: "pytest.toml [pytest]", testpaths: ["qa"], addopts: ["-ra"] } },
  },
  {
    name: "pytest 9: pyproject.toml [tool.pytest] (attrs' layout)",
    files: { "pyproject.toml": '[tool.pytest]\naddopts = ["-ra", "--strict-markers"]\ntestpaths = ["tests"]\n' },
    expected: {
      pytest: { where: "pyproject.toml [tool.pytest]", testpaths: ["tests"], addopts: ["-ra", "--strict-markers"] },
    },
  },
  {
    name: "tox.ini [pytest] comes before setup.cfg [tool:pytest]",
    files: { "tox.ini": "[pytest]\ntestpaths = t1 t2\n", "setup.cfg": "[tool:pytest]\ntestpaths = s\n" },
    expected: { pytest: { where: "tox.ini [pytest]", testpaths: ["t1", "t2"], addopts: [] } },
  },
  {
    name: "pyproject.toml without [tool.pytest.ini_options] is not pytest's file; setup.cfg's section is",
    files: { "pyproject.toml": "[tool.black]\n", "setup.cfg": "[tool:pytest]\naddopts = -q --cov=pkg\n" },
    expected: { pytest: { where: "setup.cfg [tool:pytest]", testpaths: [], addopts: ["-q", "--cov=pkg"] } },
  },
  {
    name: ".coveragerc comes first, with source, source_pkgs and fail_under",
    files: {
      ".coveragerc": "[run]\nsource =\n    a\n    b\nsource_pkgs = c\n\n[report]\nfail_under = 90\n",
      "pyproject.toml": '[tool.coverage.run]\nsource = ["x"]\n',
      "a/__init__.py": "",
    },
    expected: {
      coverage: { where: ".coveragerc [run]", source: ["a", "b", "c"], omit: [], include: [], failUnder: 90 },
      source: ["a", "b", "c"],
    },
  },
  {
    name: "pyproject.toml's [tool.coverage.report] fail_under",
    files: { "pyproject.toml": "[tool.coverage.run]\nbranch = true\n[tool.coverage.report]\nfail_under = 85.5\n" },
    expected: {
      coverage: { where: "pyproject.toml [tool.coverage.run]", source: [], omit: [], include: [], failUnder: 85.5 },
    },
  },
  {
    // pluggy 1.2: a src layout whose .coveragerc chooses files by include (`pluggy/*`, of an older layout, and
    // its tests): the proof run measures the package, and init reads include to know coverage.py will warn.
    name: ".coveragerc [run] include without source: read, the package is the source",
    files: {
      ".coveragerc": "[run]\ninclude =\n  pluggy/*\n  testing/*\nbranch = 1\n",
      "src/pluggy/__init__.py": "",
    },
    expected: {
      coverage: {
        where: ".coveragerc [run]",
        source: [],
        omit: [],
        include: ["pluggy/*", "testing/*"],
        failUnder: undefined,
      },
      source: ["src/pluggy"],
    },
  },
  {
    name: "several packages at the root: the project's own first; docs and tests are not packages",
    files: {
      "setup.cfg": "[metadata]\nname = zeta\n",
      "alpha/__init__.py": "",
      "zeta/__init__.py": "",
      "docs/__init__.py": "",
      "tests/__init__.py": "",
      "tests/test_z.py": "",
    },
    expected: { source: ["zeta", "alpha"], collectArgs: ["tests"] },
  },
  {
    name: "one module at the root: its name (setup.py and test modules aside)",
    files: { "mod.py": "", "setup.py": "", "test_mod.py": "", "conftest.py": "" },
    expected: { source: ["mod"], testFolders: [], collectArgs: [] },
  },
  {
    name: "no package at all: the whole repository",
    files: { "tests/test_a.py": "" },
    expected: { source: ["."], sourceFrom: "no package folder found: the whole repository, tests included" },
  },
  {
    name: "fixture folders: Python modules and empty folders are passed over, data folders kept",
    files: {
      "pkg/__init__.py": "",
      "tests/fixtures/__init__.py": "",
      "tests/fixtures/factories.py": "",
      "tests/data/expected.txt": "x",
      "tests/data/nested/more.bin": "y",
      "tests/golden/": "",
      "tests/snapshots/.gitkeep": "",
      "tests/seeds/.gitkeep": "",
    },
    expected: {
      fixtures: ["tests/data"],
      seeds: [],
      passed: [
        { path: "tests/fixtures", why: "it holds Python modules (test code, not golden files)" },
        { path: "tests/golden", why: "no file in it" },
        { path: "tests/snapshots", why: "no file in it" },
        { path: "tests/seeds", why: "no seed file in it" },
      ],
    },
  },
  {
    name: "seeds directly in the tests folder: no property suite of their own",
    files: { "pkg/__init__.py": "", "tests/test_a.py": "", "tests/corpus/one": "1" },
    expected: { seeds: ["tests/corpus"], propertySuite: undefined },
  },
  {
    name: "every CI folder, in a fixed order; a workflows folder without YAML is none",
    files: { ".buildkite/pipeline.yml": "", ".gitlab-ci.yml": "", ".github/workflows/ci.yaml": "" },
    expected: { ci: ["github", "gitlab", "buildkite"] },
  },
  {
    name: "an empty .github/workflows folder is no GitHub CI",
    files: { ".github/workflows/README.md": "" },
    expected: { ci: [] },
  },
];

describe("detectLayout", () => {
  it.each(cases)("$name", ({ files, expected }) => {
    expect(detectLayout(memoryTree(files))).toMatchObject(expected);
  });

  it("a pyproject.toml that is not valid TOML is read as no settings, and named with its line", () => {
    const layout = detectLayout(
      memoryTree({ "pyproject.toml": '[project]\nname = "pkg"\n[tool.pytest.ini_options\n', "pkg/__init__.py": "" }),
    );
    expect(layout.pytest).toBeUndefined();
    expect(layout.source).toEqual(["pkg"]);
    expect(layout.unreadable).toEqual([{ path: "pyproject.toml:3", why: expect.stringMatching(/^not valid TOML \(/) }]);
  });
});

describe("pytest's settings above a package (pytest looks upwards when the package has none)", () => {
  it("the nearest folder with settings, named from the package, and it is pytest's rootdir", () => {
    const top = memoryTree({
      "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-q"\n',
      "packages/tox.ini": "[tox]\nenvlist = py\n",
      "packages/x/pyproject.toml": '[project]\nname = "x"\n',
    });
    expect(pytestSettingsAbove(top, "packages/x")).toEqual({
      where: "../../pyproject.toml [tool.pytest.ini_options]",
      rootdir: "../..",
    });
    const nearer = memoryTree({ "pyproject.toml": "[tool.pytest.ini_options]\n", "packages/pytest.toml": "" });
    expect(pytestSettingsAbove(nearer, "packages/x")).toEqual({ where: "../pytest.toml [pytest]", rootdir: ".." });
    expect(pytestSettingsAbove(memoryTree({ "README.md": "x" }), "packages/x")).toBeUndefined();
  });
});

// coverage.py's configuration read as coverage.py reads it, and compared by meaning: every loosening
// the route can take is found (with its file and line), and no reformat, reorder or move is.
import { describe, expect, it } from "vitest";
import {
  diffCoverageConfigs,
  exclusionPatterns,
  readCoverageConfig,
  DEFAULT_EXCLUDE_LINES,
  type CoverageConfig,
} from "./coverage-config.js";

type Files = Record<string, string>;

function read(files: Files, rcfile?: string): CoverageConfig {
  const result = readCoverageConfig((path) => files[path], rcfile);
  if (!result.config) throw new Error(`unexpected problem: ${JSON.stringify(result.problem)}`);
  return result.config;
}

/** The changes from `before` to `after`, as `kind key item @file:line`. */
function changes(before: Files, after: Files): string[] {
  return diffCoverageConfigs(read(before), read(after)).map(
    (c) => `${c.kind} ${c.key}${c.item === undefined ? "" : ` ${c.item}`} @${c.file ?? "-"}:${c.line ?? "-"}`,
  );
}

const RC = `[run]
branch = True
source = pkg
omit =
    pkg/vendored/*

[report]
exclude_lines =
    pragma: no cover
    raise NotImplementedError
`;

const PYPROJECT = `[project]
name = "pkg"
dependencies = ["attrs>=22"]

[tool.coverage.run]
branch = true
source = ["pkg"]
omit = ["pkg/vendored/*"]

[tool.coverage.report]
exclude_lines = ["pragma: no cover", "raise NotImplementedError"]
`;

const SETUP_CFG = `[metadata]
name = pkg

[coverage:run]
branch = True
source = pkg
omit = pkg/vendored/*

[coverage:report]
exclude_lines =
    pragma: no cover
    raise NotImplementedError
`;

describe("readCoverageConfig: the file coverage.py takes its settings from", () => {
  it("takes .coveragerc first, even empty; else the first of setup.cfg, tox.ini, pyproject.toml that sets an option", () => {
    expect(read({ ".coveragerc": "", "pyproject.toml": PYPROJECT }).file).toBe(".coveragerc");
    expect(read({ "setup.cfg": SETUP_CFG, "pyproject.toml": PYPROJECT }).file).toBe("setup.cfg");
    expect(read({ "setup.cfg": "[metadata]\nname = x\n", "tox.ini": "[coverage:run]\nbranch = 1\n" }).file).toBe(
      "tox.ini",
    );
    // A [coverage:run] with no option coverage.py knows does not make setup.cfg its file.
    expect(read({ "setup.cfg": "[coverage:run]\nnot_an_option = 1\n", "pyproject.toml": PYPROJECT }).file).toBe(
      "pyproject.toml",
    );
    expect(read({ "pyproject.toml": '[project]\nname = "x"\n' }).file).toBeUndefined();
    expect(read({}).file).toBeUndefined();
    expect(read({ "ci/coverage.ini": RC, ".coveragerc": "" }, "ci/coverage.ini").file).toBe("ci/coverage.ini");
  });

  it("reads options as coverage.py parses them: lists split at commas and lines, booleans, [run] or [coverage:run]", () => {
    const config = read({ ".coveragerc": "[coverage:run]\nomit = a/*, b/*\n  c/*\nbranch = on\n[run]\nsource = x\n" });
    expect(config.settings.get("run:omit")).toEqual({
      key: "run:omit",
      value: ["a/*", "b/*", "c/*"],
      file: ".coveragerc",
      line: 2,
    });
    expect(config.settings.get("run:branch")?.value).toBe(true);
    expect(config.settings.get("run:source")?.value).toEqual(["x"]);
    const toml = read({ "pyproject.toml": PYPROJECT });
    expect(toml.settings.get("report:exclude_lines")).toMatchObject({
      value: ["pragma: no cover", "raise NotImplementedError"],
      line: 11,
    });
  });

  it("a file coverage.py would refuse is a problem with its line", () => {
    expect(readCoverageConfig((p) => ({ ".coveragerc": "[run]\nomit\n" })[p]).problem).toEqual({
      file: ".coveragerc",
      line: 2,
      message: 'configparser cannot read it: not `key = value`: "omit"',
    });
    expect(readCoverageConfig((p) => ({ ".coveragerc": "[run]\nbranch = maybe\n" })[p]).problem).toMatchObject({
      line: 2,
    });
    expect(readCoverageConfig((p) => ({ "pyproject.toml": "[tool.coverage.run\n" })[p]).problem?.message).toMatch(
      /^not valid TOML/,
    );
    expect(
      readCoverageConfig((p) => ({ "pyproject.toml": "[tool.coverage.run]\nbranch = 1\n" })[p]).problem?.message,
    ).toBe("[tool.coverage.run] branch is not a boolean");
    expect(readCoverageConfig(() => undefined, "ci/cov.ini").problem?.file).toBe("ci/cov.ini");
  });

  it("the exclusion patterns are coverage.py's default until exclude_lines replaces it; exclude_also adds", () => {
    expect(
      exclusionPatterns(read({}))
        .filter((p) => p.key === "report:exclude_lines")
        .map((p) => p.pattern),
    ).toEqual(DEFAULT_EXCLUDE_LINES);
    const config = read({ ".coveragerc": "[report]\nexclude_also =\n    if TYPE_CHECKING:\n" });
    expect(exclusionPatterns(config).map((p) => `${p.key} ${p.pattern}`)).toEqual([
      `report:exclude_lines ${DEFAULT_EXCLUDE_LINES[0]}`,
      "report:exclude_also if TYPE_CHECKING:",
      expect.stringMatching(/^report:partial_branches #/),
      "report:partial_branches_always while (True|1|False|0):",
      "report:partial_branches_always if (True|1|False|0):",
    ]);
  });
});

describe("diffCoverageConfigs: each loosening, with its file and line", () => {
  const cases: [name: string, before: Files, after: Files, expected: string[]][] = [
    [
      "omit gains a pattern (.coveragerc)",
      { ".coveragerc": RC },
      { ".coveragerc": RC.replace("    pkg/vendored/*\n", "    pkg/vendored/*\n    pkg/slow.py\n") },
      ["loosening run:omit pkg/slow.py @.coveragerc:4"],
    ],
    [
      "omit gains a pattern (pyproject.toml)",
      { "pyproject.toml": PYPROJECT },
      { "pyproject.toml": PYPROJECT.replace('omit = ["pkg/vendored/*"]', 'omit = ["pkg/vendored/*", "pkg/new/*"]') },
      ["loosening run:omit pkg/new/* @pyproject.toml:8"],
    ],
    [
      "[report] omit is set (setup.cfg)",
      { "setup.cfg": SETUP_CFG },
      { "setup.cfg": `${SETUP_CFG}omit = pkg/cli.py\n` },
      ["loosening report:omit pkg/cli.py @setup.cfg:13"],
    ],
    [
      "include is set where there was none",
      { ".coveragerc": RC },
      { ".coveragerc": RC.replace("[report]", "include = pkg/core/*\n\n[report]") },
      ["loosening run:include @.coveragerc:7"],
    ],
    [
      "include loses a pattern",
      { ".coveragerc": "[run]\ninclude = a/*, b/*\n" },
      { ".coveragerc": "[run]\ninclude = a/*\n" },
      ["loosening run:include b/* @.coveragerc:2"],
    ],
    [
      "source loses an entry (tox.ini)",
      { "tox.ini": "[tox]\nenvlist = py311\n[coverage:run]\nsource = pkg, tools\n" },
      { "tox.ini": "[tox]\nenvlist = py311\n[coverage:run]\nsource = pkg\n" },
      ["loosening run:source tools @tox.ini:4"],
    ],
    [
      "source is removed",
      { ".coveragerc": "[run]\nsource = pkg\nbranch = false\n" },
      { ".coveragerc": "[run]\nbranch = false\n" },
      ["loosening run:source @.coveragerc:2"],
    ],
    [
      "source is set where there was none",
      { ".coveragerc": "[run]\nbranch = true\n" },
      { ".coveragerc": "[run]\nbranch = true\nsource = pkg/api\n" },
      ["loosening run:source @.coveragerc:3"],
    ],
    [
      "exclude_lines gains a pattern",
      { ".coveragerc": RC },
      { ".coveragerc": `${RC}    def __repr__\n` },
      ["loosening report:exclude_lines def __repr__ @.coveragerc:8"],
    ],
    [
      "exclude_lines replaces coverage.py's default: only the new pattern is a loosening",
      {},
      { "pyproject.toml": '[tool.coverage.report]\nexclude_lines = ["if DEBUG:"]\n' },
      ["loosening report:exclude_lines if DEBUG: @pyproject.toml:2"],
    ],
    [
      "exclude_also adds a pattern (coverage.py 7.2)",
      { "pyproject.toml": PYPROJECT },
      { "pyproject.toml": `${PYPROJECT}exclude_also = ["if TYPE_CHECKING:"]\n` },
      ["loosening report:exclude_also if TYPE_CHECKING: @pyproject.toml:12"],
    ],
    [
      "partial_branches adds a pattern",
      { ".coveragerc": RC },
      { ".coveragerc": `${RC}partial_branches =\n    pragma: no branch\n    if retry:\n` },
      [
        "loosening report:partial_branches pragma: no branch @.coveragerc:11",
        "loosening report:partial_branches if retry: @.coveragerc:11",
      ],
    ],
    [
      "a plugin is added",
      { ".coveragerc": RC },
      { ".coveragerc": RC.replace("branch = True", "branch = True\nplugins = coverage_conditional_plugin") },
      ["loosening run:plugins coverage_conditional_plugin @.coveragerc:3"],
    ],
    [
      "branch is turned off",
      { "pyproject.toml": PYPROJECT },
      { "pyproject.toml": PYPROJECT.replace("branch = true", "branch = false") },
      ["loosening run:branch @pyproject.toml:6"],
    ],
    [
      "branch is removed (coverage.py's default is off)",
      { ".coveragerc": RC },
      { ".coveragerc": RC.replace("branch = True\n", "") },
      ["loosening run:branch @.coveragerc:-"],
    ],
    [
      "ignore_errors is turned on",
      { ".coveragerc": RC },
      { ".coveragerc": `${RC}ignore_errors = true\n` },
      ["loosening report:ignore_errors @.coveragerc:11"],
    ],
    [
      "a new, empty .coveragerc shadows pyproject.toml's settings",
      { "pyproject.toml": PYPROJECT },
      { "pyproject.toml": PYPROJECT, ".coveragerc": "" },
      [
        "loosening run:source @pyproject.toml:7",
        "loosening report:exclude_lines #\\s*(pragma|PRAGMA)[:\\s]?\\s*(no|NO)\\s*(cover|COVER) @.coveragerc:-",
        "loosening run:branch @.coveragerc:-",
      ],
    ],
    [
      "a setting that measures nothing changes: not a loosening, still a change",
      { ".coveragerc": RC },
      { ".coveragerc": RC.replace("[report]", "data_file = .cov-data\n\n[report]") },
      ["other run:data_file @.coveragerc:7"],
    ],
  ];
  it.each(cases)("%s", (_name, before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe("diffCoverageConfigs: no change", () => {
  const cases: [name: string, before: Files, after: Files][] = [
    [
      "keys reordered, spacing, `:` for `=`, comments, commas for lines, [coverage:run] for [run]",
      { ".coveragerc": RC },
      {
        ".coveragerc": `# coverage.py's settings
[coverage:report]
exclude_lines = pragma: no cover
  raise NotImplementedError

[coverage:run]
omit: pkg/vendored/*
source   =   pkg
branch=true
`,
      },
    ],
    [
      "TOML arrays written over lines, tables reordered, a dependency bump",
      { "pyproject.toml": PYPROJECT },
      {
        "pyproject.toml": `[tool.coverage.report]
exclude_lines = [
  "pragma: no cover",
  "raise NotImplementedError",
]

[project]
name = "pkg"
dependencies = ["attrs>=23.1"]

[tool.coverage.run]
omit = ["pkg/vendored/*"]
source = ["pkg"]
branch = true
`,
      },
    ],
    [
      "the settings move from pyproject.toml to .coveragerc",
      { "pyproject.toml": PYPROJECT },
      { "pyproject.toml": PYPROJECT, ".coveragerc": RC },
    ],
    ["the settings move from setup.cfg to pyproject.toml", { "setup.cfg": SETUP_CFG }, { "pyproject.toml": PYPROJECT }],
    [
      "tightening: an omit pattern removed, branch turned on, an include pattern added, an exclusion removed",
      {
        ".coveragerc":
          "[run]\nomit = a/*, b/*\ninclude = src/*\n[report]\nexclude_lines =\n  pragma: no cover\n  def __repr__\n",
      },
      {
        ".coveragerc":
          "[run]\nomit = a/*\ninclude = src/*, lib/*\nbranch = true\n[report]\nexclude_lines =\n  pragma: no cover\n",
      },
    ],
    [
      "a setting in another tool's section of a shared file",
      { "setup.cfg": SETUP_CFG },
      { "setup.cfg": SETUP_CFG.replace("name = pkg", "name = pkg\nversion = 2.0") },
    ],
  ];
  it.each(cases)("%s", (_name, before, after) => {
    expect(changes(before, after)).toEqual([]);
  });
});

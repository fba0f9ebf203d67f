// Measurement judged by the lease rule: a loosening of coverage.py's config, an excluded line the patch
// added, or changed source the proof run did not measure is a finding naming the file, line, commit and
// author, unless a human commit carries `Gate-Change: human`; the report with them fits the schema.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS, type Commit } from "../model/authorship.js";
import { defaultConfig } from "../config/config.js";
import {
  diffCoverageConfigs,
  exclusionPatterns,
  readCoverageConfig,
  type CoverageChange,
} from "../python/coverage-config.js";
import { decide, type DecideInput } from "../decide.js";
import {
  judgeMeasurement,
  matchExclusions,
  runMeasurementFacts,
  type AddedLine,
  type HeadModule,
  type MeasurementEvidence,
} from "./measurement.js";
import type { PatchEvidence } from "./patch.js";
import { pythonRegex } from "../python/python-regex.js";
import { reportJson } from "../report/report-json.js";
import { renderMarkdown, renderText } from "../report/render.js";

const BOT = { name: "agent[bot]", email: "1+agent[bot]@users.noreply.github.com" };
const ADA = { name: "Ada Lovelace", email: "ada@example.org" };
const commit = (n: string, who = BOT, trailers: Commit["trailers"] = []): Commit => ({
  sha: n.repeat(40),
  parents: [],
  author: who,
  committer: who,
  subject: `commit ${n}`,
  trailers,
});
const AGENT = commit("a");
const HUMAN_APPROVED = commit("b", ADA, [{ key: "Gate-Change", value: "human" }]);
const HUMAN_PLAIN = commit("c", ADA);
const AGENT_WITH_TRAILER = commit("d", BOT, [{ key: "Gate-Change", value: "human" }]);
const POLICY = { agentPatterns: DEFAULT_AGENT_PATTERNS, trailers: defaultConfig(DEFAULT_AGENT_PATTERNS).trailers };

const OMIT: CoverageChange = {
  kind: "loosening",
  key: "run:omit",
  item: "pkg/slow.py",
  message: '[run] omit adds "pkg/slow.py": coverage.py no longer measures what it matches',
  file: ".coveragerc",
  line: 4,
};

function evidence(over: Partial<MeasurementEvidence> = {}): MeasurementEvidence {
  return {
    configFile: { base: ".coveragerc", head: ".coveragerc" },
    net: [],
    commits: [],
    excluded: [],
    sources: [],
    measured: [],
    ...over,
  };
}

const judged = (e: MeasurementEvidence) => {
  const j = judgeMeasurement(e, POLICY);
  return [...j.exclusions, ...j.unmeasured, ...j.protectedSettings].map(
    (f) => `${f.reason} ${f.file}:${f.line ?? "-"} ${f.commit?.[0] ?? "-"}`,
  );
};

describe("judgeMeasurement: coverage.py's configuration", () => {
  it("a loosening is charged to each commit that made it; only a human commit with the trailer approves it", () => {
    const cases: [name: string, commits: Commit[], expected: string[]][] = [
      ["an agent's commit", [AGENT], ["coverage_exclusions_added .coveragerc:4 a"]],
      ["a human's commit with Gate-Change: human", [HUMAN_APPROVED], []],
      ["a human's commit without the trailer", [HUMAN_PLAIN], ["coverage_exclusions_added .coveragerc:4 c"]],
      [
        "an agent's commit with the trailer (ignored)",
        [AGENT_WITH_TRAILER],
        ["coverage_exclusions_added .coveragerc:4 d"],
      ],
      [
        "made by the agent, made again by the human",
        [AGENT, HUMAN_APPROVED],
        ["coverage_exclusions_added .coveragerc:4 a"],
      ],
    ];
    for (const [name, commits, expected] of cases) {
      const e = evidence({
        net: [OMIT],
        commits: commits.map((c) => ({ commit: c, changes: [{ ...OMIT, line: 9 }] })),
      });
      expect(judged(e), name).toEqual(expected);
    }
  });

  it("a loosening the head no longer has is not judged; a commit whose config could not be read answers for every one", () => {
    const undone = evidence({ net: [], commits: [{ commit: AGENT, changes: [OMIT] }] });
    expect(judged(undone)).toEqual([]);
    const unreadable = evidence({
      net: [OMIT],
      commits: [{ commit: AGENT, changes: [], unreadable: "not valid TOML" }],
    });
    expect(judgeMeasurement(unreadable, POLICY).exclusions[0]?.message).toMatch(/could not be read: not valid TOML/);
  });

  it("a setting set in steps is charged to the commit that set it, not left to no one", () => {
    const at = (text?: string) => readCoverageConfig((p) => (p === ".coveragerc" ? text : undefined)).config!;
    const [base, one, two] = [at(), at("[run]\nsource = a\n"), at("[run]\nsource = a, b\n")];
    const e = evidence({
      net: diffCoverageConfigs(base, two),
      commits: [
        { commit: AGENT, changes: diffCoverageConfigs(base, one) },
        { commit: HUMAN_APPROVED, changes: diffCoverageConfigs(one, two) },
      ],
    });
    expect(judged(e)).toEqual(["coverage_exclusions_added .coveragerc:2 a"]);
  });

  it("a loosening no commit of the range made cannot be approved", () => {
    expect(judged(evidence({ net: [OMIT] }))).toEqual(["coverage_exclusions_added .coveragerc:4 -"]);
  });

  it("a change to a setting that measures nothing is protected_path, with the same rule", () => {
    const other: CoverageChange = {
      kind: "other",
      key: "run:data_file",
      message: '[run] data_file changes (".x")',
      file: ".coveragerc",
      line: 2,
    };
    expect(judged(evidence({ net: [other], commits: [{ commit: AGENT, changes: [other] }] }))).toEqual([
      "protected_path .coveragerc:2 a",
    ]);
    expect(judged(evidence({ net: [other], commits: [{ commit: HUMAN_APPROVED, changes: [other] }] }))).toEqual([]);
  });
});

describe("matchExclusions: the lines the patch added that coverage.py excludes", () => {
  const config = readCoverageConfig(
    (p) =>
      ({ ".coveragerc": "[report]\nexclude_also =\n    if TYPE_CHECKING:\n    (?i)^\\s*raise AssertionError\n" })[p],
  ).config!;
  const line = (text: string, n = 1): AddedLine => ({ path: "pkg/calc.py", line: n, text, commit: AGENT });
  const cases: [text: string, key: string | undefined][] = [
    ["    if n > 1000:  # pragma: no cover", "report:exclude_lines"],
    ["    return x  #pragma:no cover", "report:exclude_lines"],
    ["    return x  # PRAGMA NO COVER", "report:exclude_lines"],
    ["    if retry:  # pragma: no branch", "report:partial_branches"],
    ["if TYPE_CHECKING:", "report:exclude_also"],
    ["    RAISE AssertionError('x')", "report:exclude_also"],
    ["    while True:", "report:partial_branches_always"],
    ["    return x  # no cover needed here", undefined],
    ["    return 'pragma'", undefined],
  ];
  it.each(cases)("%s", (text, key) => {
    const { excluded, untranslatable } = matchExclusions([line(text)], exclusionPatterns(config));
    expect(untranslatable).toEqual([]);
    expect(excluded[0]?.key).toBe(key);
  });

  it("a pattern with Python-only syntax is reported, not skipped", () => {
    const { untranslatable } = matchExclusions(
      [],
      [{ pattern: "(?i:x)", key: "report:exclude_lines", file: ".coveragerc", line: 3 }],
    );
    expect(untranslatable).toEqual([
      {
        pattern: "(?i:x)",
        key: "report:exclude_lines",
        file: ".coveragerc",
        line: 3,
        error: "scoped inline flags `(?i:...)` have no JavaScript spelling",
      },
    ]);
  });

  it("an excluded line is a finding naming its file, line and commit, unless a human approved it", () => {
    const { excluded } = matchExclusions(
      [
        line("    return 1  # pragma: no cover", 17),
        { ...line("x = 1  # pragma: no cover", 3), commit: HUMAN_APPROVED },
      ],
      exclusionPatterns(config),
    );
    const j = judgeMeasurement(evidence({ excluded }), POLICY);
    expect(j.exclusions).toEqual([
      {
        reason: "coverage_exclusions_added",
        message: expect.stringMatching(
          /^the patch adds `return 1  # pragma: no cover`, code coverage.py no longer measures \(exclude_lines pattern .*\): commit aaaaaaaaaaaa is an agent's/,
        ),
        file: "pkg/calc.py",
        line: 17,
        commit: AGENT.sha,
        author: "agent[bot] <1+agent[bot]@users.noreply.github.com>",
        fix: "remove the pragma and cover the code with a test; excluding it is a human decision, in a commit with `Gate-Change: human`",
      },
    ]);
  });
});

describe("judgeMeasurement: source the proof run did not measure", () => {
  it("names each changed source file missing from the report, unless every commit that touched it was approved", () => {
    const e = evidence({
      sources: [
        { path: "pkg/calc.py", commits: [AGENT] },
        { path: "helpers/fast.py", commits: [AGENT] },
        { path: "tools/report.py", commits: [HUMAN_APPROVED] },
        { path: "tools/both.py", commits: [HUMAN_APPROVED, AGENT] },
      ],
      measured: ["pkg/__init__.py", "pkg/calc.py"],
    });
    expect(judged(e)).toEqual(["unmeasured_source helpers/fast.py:- a", "unmeasured_source tools/both.py:- a"]);
  });

  it("a JavaScript or TypeScript source (a vitest proof run) is named as one no test loaded, with vitest's fix", () => {
    const e = evidence({
      sources: [
        { path: "src/unused.ts", commits: [AGENT] },
        { path: "src/math.ts", commits: [AGENT] },
      ],
      measured: ["src/math.ts"],
    });
    const [finding, ...rest] = judgeMeasurement(e, POLICY).unmeasured;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ reason: "unmeasured_source", file: "src/unused.ts", commit: AGENT.sha });
    expect(finding!.message).toMatch(
      /^src\/unused\.ts was added or changed by the patch, but no test of the proof run loaded it, so vitest's coverage did not measure it: /,
    );
    expect(finding!.fix).toMatch(/coverage\.include/);
  });
});

describe("judgeMeasurement: what is source, wherever the tests live", () => {
  const pragma = (path: string, commit = AGENT): MeasurementEvidence["excluded"][number] => ({
    path,
    line: 2,
    text: "    return 1  # pragma: no cover",
    pattern: "pragma: no cover",
    key: "report:exclude_lines",
    commit,
  });

  it("tests inside the package: a pragma in the package's module is judged, one in a file that holds collected tests is not", () => {
    const e = evidence({
      excluded: [pragma("pkg/core.py"), pragma("pkg/checks.py")],
      sources: [
        { path: "pkg/core.py", commits: [AGENT], testFolder: "pkg" },
        { path: "pkg/checks.py", commits: [AGENT], testFolder: "pkg" },
      ],
      measured: ["pkg/__init__.py", "pkg/core.py", "pkg/checks.py", "pkg/tests/test_x.py"],
      testFiles: ["pkg/checks.py"],
    });
    expect(judged(e)).toEqual(["coverage_exclusions_added pkg/core.py:2 a"]);
    // The judged evidence leaves out what is not source, so the row counts what was judged.
    expect(judgeMeasurement(e, POLICY).evidence.sources.map((s) => s.path)).toEqual(["pkg/core.py"]);
  });

  it("without a record of what ran: a helper in a test folder the report measures nothing of is left alone", () => {
    const e = evidence({
      excluded: [pragma("tests/helpers.py")],
      sources: [
        { path: "tests/helpers.py", commits: [AGENT], testFolder: "tests" },
        { path: "pkg/tests/helpers.py", commits: [AGENT], testFolder: "pkg/tests" },
      ],
      measured: ["pkg/core.py", "pkg/tests/test_x.py"],
    });
    expect(judged(e)).toEqual(["unmeasured_source pkg/tests/helpers.py:- a"]);
  });

  it("with the proof run's record: a module it loaded from a test folder and did not measure is unmeasured_source", () => {
    const e = evidence({
      excluded: [pragma("tests/helpers_impl.py")],
      sources: [
        { path: "tests/helpers_impl.py", commits: [AGENT], testFolder: "tests" },
        { path: "tests/unused.py", commits: [AGENT], testFolder: "tests" },
        { path: "tests/approved.py", commits: [HUMAN_APPROVED], testFolder: "tests" },
      ],
      measured: ["pkg/core.py"],
      loaded: ["pkg/core.py", "tests/approved.py", "tests/helpers_impl.py", "tests/test_x.py"],
    });
    const j = judgeMeasurement(e, POLICY);
    expect(judged(e)).toEqual([
      "coverage_exclusions_added tests/helpers_impl.py:2 a",
      "unmeasured_source tests/helpers_impl.py:- a",
    ]);
    expect(j.unmeasured[0]!.message).toMatch(
      /the proof run loaded it and did not measure it: commit a{12} is an agent's/,
    );
  });
});

describe("judgeMeasurement: test support (a module only test code uses)", () => {
  const AGENT = commit("a");
  const mod = (path: string, imports: string[] = [], test = false): HeadModule => ({
    path,
    imports,
    test,
    testFolder: path.startsWith("tests/") ? "tests" : undefined,
  });
  const src = (path: string): MeasurementEvidence["sources"][number] => ({
    path,
    commits: [AGENT],
    testFolder: path.startsWith("tests/") ? "tests" : undefined,
  });
  const base = (over: Partial<MeasurementEvidence>): MeasurementEvidence => ({
    configFile: { base: undefined, head: undefined },
    net: [],
    commits: [],
    excluded: [],
    sources: [],
    measured: ["pkg/__init__.py", "pkg/calc.py"],
    testFiles: ["tests/test_calc.py"],
    ...over,
  });
  const unmeasured = (e: MeasurementEvidence): string[] =>
    judgeMeasurement(e, POLICY).unmeasured.map((f) => f.file ?? "");

  it("a helper in a test folder that only tests import, first imported by a test: not judged", () => {
    const e = base({
      sources: [src("tests/helpers.py"), src("tests/__init__.py")],
      loaded: ["pkg/calc.py", "tests/__init__.py", "tests/helpers.py", "tests/test_calc.py"],
      importers: { "tests/helpers.py": "tests/test_calc.py", "tests/__init__.py": null, "pkg/calc.py": null },
      imports: [
        mod("pkg/calc.py"),
        mod("tests/__init__.py"),
        mod("tests/helpers.py"),
        mod("tests/test_calc.py", ["tests/helpers.py", "pkg/calc.py"]),
      ],
    });
    expect(unmeasured(e)).toEqual([]);
  });

  it("a strategies module imported by a helper that only tests import: support too (decided as a whole)", () => {
    const e = base({
      sources: [src("tests/strategies.py")],
      loaded: ["tests/helpers.py", "tests/strategies.py"],
      importers: { "tests/helpers.py": "tests/test_calc.py", "tests/strategies.py": "tests/helpers.py" },
      imports: [mod("tests/helpers.py", ["tests/strategies.py"]), mod("tests/test_calc.py", ["tests/helpers.py"])],
    });
    expect(unmeasured(e)).toEqual([]);
  });

  it("a module outside the measured source and the test folders, first imported by a test and by no source: judged (a package's own modules are imported by tests alone)", () => {
    const e = base({
      sources: [src("lib/fast.py")],
      loaded: ["lib/fast.py"],
      importers: { "lib/fast.py": "tests/test_calc.py" },
      imports: [mod("lib/fast.py"), mod("tests/test_calc.py", ["lib/fast.py"])],
    });
    expect(unmeasured(e)).toEqual(["lib/fast.py"]);
  });

  it("first imported by a test, but a packaging file names it as an entry point: source (it ships)", () => {
    const e = base({
      sources: [src("tools/cli.py")],
      loaded: ["tools/cli.py"],
      importers: { "tools/cli.py": "tests/test_calc.py" },
      imports: [mod("pyproject.toml", ["tools/cli.py"]), mod("tests/test_calc.py", ["tools/cli.py"])],
    });
    expect(unmeasured(e)).toEqual(["tools/cli.py"]);
  });

  it("the package is its first importer: source, in a test folder or not", () => {
    const e = base({
      sources: [src("tests/helpers_impl.py"), src("impl/fast.py")],
      loaded: ["impl/fast.py", "pkg/calc.py", "tests/helpers_impl.py"],
      importers: { "tests/helpers_impl.py": "pkg/calc.py", "impl/fast.py": "pkg/calc.py" },
    });
    expect(unmeasured(e)).toEqual(["tests/helpers_impl.py", "impl/fast.py"]);
  });

  it("a test imported it first, but a non-test module names it in an import statement: source", () => {
    const e = base({
      sources: [src("tests/helpers_impl.py")],
      loaded: ["pkg/calc.py", "tests/helpers_impl.py"],
      importers: { "tests/helpers_impl.py": "tests/test_calc.py" },
      imports: [mod("pkg/calc.py", ["tests/helpers_impl.py"]), mod("tests/helpers_impl.py")],
    });
    expect(unmeasured(e)).toEqual(["tests/helpers_impl.py"]);
  });

  it("used by source through a chain of helpers: source, and so is every helper on the way", () => {
    const e = base({
      sources: [src("tests/a.py"), src("tests/b.py")],
      loaded: ["tests/a.py", "tests/b.py"],
      importers: { "tests/a.py": "tests/test_calc.py", "tests/b.py": "tests/a.py" },
      imports: [mod("scripts/release.py", ["tests/a.py"]), mod("tests/a.py", ["tests/b.py"])],
    });
    expect(unmeasured(e)).toEqual(["tests/a.py", "tests/b.py"]);
  });

  it("pytest imported it (no repository importer): support in a test folder, source outside one", () => {
    const e = base({
      sources: [src("tests/__init__.py"), src("tools/plugin.py")],
      loaded: ["tests/__init__.py", "tools/plugin.py"],
      importers: { "tests/__init__.py": null, "tools/plugin.py": null },
      imports: [mod("tests/__init__.py"), mod("tools/plugin.py")],
    });
    expect(unmeasured(e)).toEqual(["tools/plugin.py"]);
  });

  it("a loaded module whose first importer is not on the record (an older plugin): source", () => {
    const e = base({
      sources: [src("tests/helpers.py")],
      loaded: ["tests/helpers.py"],
      imports: [mod("tests/helpers.py"), mod("tests/test_calc.py", ["tests/helpers.py"])],
    });
    expect(unmeasured(e)).toEqual(["tests/helpers.py"]);
  });

  it("without a record: a test-folder helper the report measures nothing of is left alone unless a non-test module imports it", () => {
    const e = base({
      sources: [src("tests/helpers.py"), src("tests/helpers_impl.py")],
      imports: [
        mod("pkg/calc.py", ["tests/helpers_impl.py"]),
        mod("tests/helpers.py"),
        mod("tests/helpers_impl.py"),
        mod("tests/conftest.py", ["tests/helpers.py"], true),
      ],
    });
    expect(unmeasured(e)).toEqual(["tests/helpers_impl.py"]);
  });
});

describe("runMeasurementFacts", () => {
  it("the files holding collected tests at base, at head and in the record (ids relative to its rootdir); the modules it loaded", () => {
    expect(
      runMeasurementFacts(
        [["pkg/tests/test_x.py::test_a", "pkg/core.py::pkg.core.f"], ["old/test_o.py::t"]],
        undefined,
      ),
    ).toEqual({ testFiles: ["old/test_o.py", "pkg/tests/test_x.py"], loaded: undefined, importers: undefined });
    // Every list is pytest's rootdir's (the universes are collected as the proof run is): here a folder below the root.
    const facts = runMeasurementFacts(
      [["pkg/tests/test_x.py::test_a", "pkg/core.py::pkg.core.f"], ["old/test_o.py::t"]],
      {
        root: "/r",
        rootdir: "/r/sub",
        collected: ["t/check.py::test_c"],
        modules: ["pkg/core.py"],
      },
    );
    expect(facts).toEqual({
      testFiles: ["sub/old/test_o.py", "sub/pkg/tests/test_x.py", "sub/t/check.py"],
      loaded: ["pkg/core.py"],
    });
    expect(runMeasurementFacts([], { root: "/r", rootdir: "/elsewhere", collected: ["a.py::t"] })).toEqual({
      testFiles: [],
      loaded: undefined,
    });
  });

  it("a package's run under the repository's pytest settings: ids from the top, files from the package, others left out", () => {
    const facts = runMeasurementFacts([["packages/x/tests/test_a.py::t", "packages/y/tests/test_b.py::t"]], {
      root: "/r/packages/x",
      rootdir: "/r",
      rootdirFromRoot: "../..",
      rootFromRootdir: "packages/x",
      collected: ["packages/x/tests/test_c.py::t", "testdata/test_shared.py::t"],
    });
    expect(facts.testFiles).toEqual(["tests/test_a.py", "tests/test_c.py"]);
  });
});

describe("pythonRegex", () => {
  const cases: [python: string, text: string, matches: boolean][] = [
    ["(?i)pragma: no cover", "# PRAGMA: NO COVER", true],
    ["(?P<kw>def) (?P=kw)", "def def", true],
    ["\\Aif", "if x:", true],
    ["\\Aif", " if x:", false],
    ["x\\Z", "a x", true],
    ["(?x) if \\s+ DEBUG  # a comment\n :", "if  DEBUG:", true],
  ];
  it.each(cases)("%s on %s", (python, text, matches) => {
    expect(pythonRegex(python).regex?.test(text)).toBe(matches);
  });
  it("refuses what JavaScript cannot say", () => {
    expect(pythonRegex("(?i:a)b").error).toMatch(/scoped inline flags/);
    expect(pythonRegex("(?>a)").error).toBeDefined();
  });
});

describe("decide with measurement", () => {
  const schema = JSON.parse(
    readFileSync(new URL("../../schema/report.schema.json", import.meta.url), "utf8"),
  ) as object;
  const validate = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  }).compile(schema);
  const patch: PatchEvidence = {
    base: "f".repeat(40),
    head: AGENT.sha,
    commits: [AGENT],
    ledger: { file: "freeze.toml", changes: [], rejectIfAgentAddsLease: true },
    protect: { patterns: ["proofgate.toml"], touching: [] },
  };
  const base: DecideInput = {
    today: "2026-12-02",
    clockOverride: false,
    ledger: {
      file: "freeze.toml",
      version: 1,
      maxActiveLeases: 0,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      leases: [],
    },
    universe: { file: "collected.txt", ids: ["t.py::test_a"], duplicates: [], collectionErrors: [], summaryCount: 1 },
    coverage: {
      source: "report",
      files: ["c.json"],
      format: "coveragepy-json",
      percent: 90,
      statements: 10,
      coveredLines: 9,
      branches: 0,
      coveredBranches: 0,
      lineRate: 0.9,
      branchRate: 1,
    },
    minProven: 70,
    patch: { kind: "git", patch, policy: POLICY },
    properties: { kind: "off" },
    inputs: [],
  };

  it("the reasons, the Measurement row failing, and a report that fits the schema", () => {
    const report = decide({
      ...base,
      measurement: {
        kind: "evidence",
        evidence: evidence({
          net: [OMIT],
          commits: [{ commit: AGENT, changes: [OMIT] }],
          sources: [{ path: "helpers/x.py", commits: [AGENT] }],
        }),
      },
    });
    expect(report.reasons).toEqual(["coverage_exclusions_added", "unmeasured_source"]);
    const row = report.signals.find((s) => s.id === "measurement")!;
    expect(row).toMatchObject({ result: "fail", reasons: ["coverage_exclusions_added", "unmeasured_source"] });
    expect(row.value).toBe(
      "config .coveragerc: 1 loosening; 0 excluded lines added; 1 of 1 changed source file unmeasured",
    );
    expect(validate(JSON.parse(reportJson(report)))).toBe(true);
    // The renderings place each finding at its file and line, with its commit.
    expect(renderText(report, { color: false })).toContain(".coveragerc:4");
    expect(renderText(report, { color: false })).toContain("helpers/x.py");
    expect(renderMarkdown(report)).toContain(".coveragerc:4");
  });

  it("off in the config: the row says off; not judged (no evidence): not_measured; neither rejects", () => {
    expect(decide({ ...base, measurement: { kind: "off" } }).signals.find((s) => s.id === "measurement")?.result).toBe(
      "off",
    );
    const none = decide(base);
    expect(none.decision).toBe("MERGE");
    expect(none.signals.find((s) => s.id === "measurement")?.result).toBe("not_measured");
  });
});

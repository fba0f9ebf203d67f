// The report as consumers see it: the JSON checked against the JSON Schema in packages/core/schema,
// the decision table's rows, the terminal and Markdown renderings (and that text from the patch under
// review cannot inject into them), and the platform contract's selection and context merge.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS, type Commit } from "../model/authorship.js";
import { defaultConfig } from "../config/config.js";
import { errorReport } from "../build-report.js";
import { decide, type DecideInput } from "../decide.js";
import type { Ledger } from "../ledger/ledger.js";
import type { PatchEvidence, PatchSource } from "../patch/patch.js";
import { localPlatform, mergeContext, selectPlatform, type Platform } from "./platform.js";
import { REASON_CODES, RULE_REASONS } from "../common/reasons.js";
import type { GateReport, PropertyEvidence, ProvenCoverage } from "../model/report.js";
import { reportJson } from "./report-json.js";
import { markdownSafe, renderMarkdown, renderText, terminalSafe, wrapText } from "./render.js";
import { SIGNALS } from "../common/signals.js";
import { buildCoverageMap } from "../coverage/frozen-only.js";
import type { CoverageData, FileCoverage } from "../coverage/coverage-model.js";

const schema = JSON.parse(readFileSync(new URL("../../schema/report.schema.json", import.meta.url), "utf8")) as object;
const validate = new Ajv2020({
  allErrors: true,
  strict: true,
  strictTypes: false,
  strictRequired: false,
  allowUnionTypes: true,
}).compile(schema);

/** The report as a consumer parses it from the file. */
const asWritten = (report: GateReport): Record<string, unknown> =>
  JSON.parse(reportJson(report)) as Record<string, unknown>;
function expectValid(report: GateReport): void {
  const ok = validate(asWritten(report));
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}

const BOT = { name: "agent[bot]", email: "1+agent[bot]@users.noreply.github.com" };
const agentCommit: Commit = {
  sha: "a".repeat(40),
  parents: ["b".repeat(40)],
  author: BOT,
  committer: BOT,
  subject: "freeze a flaky test",
  trailers: [],
};

function coverage(percent: number): ProvenCoverage {
  return {
    source: "report",
    files: ["proven_coverage.json"],
    format: "coveragepy-json",
    percent,
    statements: 100,
    coveredLines: percent,
    branches: 0,
    coveredBranches: 0,
    lineRate: percent / 100,
    branchRate: 1,
  };
}

function input(over: Partial<DecideInput> = {}): DecideInput {
  const ledger: Ledger = {
    file: "freeze.toml",
    version: 1,
    maxActiveLeases: 1,
    budgetOmitted: false,
    rejectIfExpired: true,
    rejectIfAgentAddsLease: true,
    leases: [{ index: 0, nodeid: "t.py::test_a", owner: "ada", reason: "flaky", expires: "2026-12-31", line: 4 }],
  };
  return {
    today: "2026-12-02",
    clockOverride: false,
    ledger,
    universe: {
      file: "collected.txt",
      ids: ["t.py::test_a", "t.py::test_b"],
      duplicates: [],
      collectionErrors: [],
      summaryCount: 2,
    },
    coverage: coverage(80),
    minProven: 70,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [{ role: "ledger", path: "freeze.toml", sha256: "0".repeat(64) }],
    ...over,
  };
}

/** A patch by an agent that added a lease and rewrote a seed. */
function agentPatch(): PatchEvidence {
  return {
    base: "b".repeat(40),
    head: "a".repeat(40),
    commits: [agentCommit],
    ledger: {
      file: "freeze.toml",
      changes: [
        {
          commit: agentCommit,
          changes: [{ kind: "added_lease", nodeid: "t.py::test_b", expires: "2026-12-20", line: 10 }],
        },
      ],
      rejectIfAgentAddsLease: true,
    },
    seeds: { dirs: ["seeds"], filesAtHead: 3, touching: [{ commit: agentCommit, paths: ["seeds/one.txt"] }] },
    protect: { patterns: ["proofgate.toml"], touching: [] },
  };
}
const POLICY = { agentPatterns: DEFAULT_AGENT_PATTERNS, trailers: defaultConfig(DEFAULT_AGENT_PATTERNS).trailers };
const fromGit = (patch: PatchEvidence): PatchSource => ({ kind: "git", patch, policy: POLICY });
const suite = (evidence: PropertyEvidence) => ({ kind: "results" as const, evidence });

describe("the report JSON against its schema", () => {
  it("each active lease's cost: measured from a single run's contexts, not measured in the rerun", () => {
    const f = {
      path: "pkg/m.py",
      statements: [1, 2, 3, 4],
      proven: new Set([1]),
      raw: new Set([1, 2, 3]),
      branches: new Map<number, string[]>(),
      provenBranches: new Set<string>(),
      rawBranches: new Set<string>(),
      frozenTests: new Map([
        ["2", ["t.py::test_a"]],
        ["3", ["t.py::test_a", "t.py::test_x"]],
      ]),
    };
    const s = {
      percent: 50,
      statements: 4,
      coveredLines: 2,
      branches: 0,
      coveredBranches: 0,
      lineRate: 0.5,
      branchRate: 1,
    };
    const single: ProvenCoverage = {
      ...coverage(25),
      source: "contexts",
      map: { files: new Map([[f.path, f]]), raw: s, proven: s, attributed: true },
      dropped: ["t.py::test_a", "t.py::test_x"],
    };
    const report = decide(input({ coverage: single, minProven: 0 }));
    expectValid(report);
    const ledger = asWritten(report).ledger as {
      active: { cost: unknown }[];
      cost_pool: unknown;
      cost_not_measured: unknown;
    };
    expect(ledger.active[0]!.cost).toEqual({
      status: "measured",
      lines: 1,
      branches: 0,
      shared_lines: 1,
      shared_branches: 0,
      files: [{ path: "pkg/m.py", lines: [2], branches: [] }],
    });
    expect(ledger.cost_pool).toEqual({ lines: 1, branches: 0 });
    expect(ledger.cost_not_measured).toBeNull();
    const rerun = decide(input());
    expectValid(rerun);
    const r = asWritten(rerun).ledger as {
      active: { cost: { status: string } }[];
      cost_pool: unknown;
      cost_not_measured: string;
    };
    expect(r.active[0]!.cost.status).toBe("not_measured");
    expect(r.cost_pool).toBeNull();
    expect(r.cost_not_measured).toMatch(/rerun/);
  });

  it("a MERGE report is valid, every row of the table present in order", () => {
    const report = decide(input());
    expect(report.decision).toBe("MERGE");
    expectValid(report);
    expect(report.signals.map((s) => s.id)).toEqual(SIGNALS.map((s) => s.id));
  });

  it("a REJECT report with findings from git (commit, author, file, line) is valid", () => {
    const report = decide(
      input({
        patch: fromGit(agentPatch()),
        coverage: coverage(50),
        properties: suite({ resultFiles: ["props.xml"], tests: 4, failures: 1, skipped: 0 }),
        commands: [{ step: "proof", command: "pytest", exitCode: 1 }],
      }),
    );
    expect(report.reasons).toEqual([
      "agent_added_lease",
      "proven_coverage",
      "property_hold",
      "seed_rewrite",
      "tests_failed",
    ]);
    expectValid(report);
    const added = report.findings.find((f) => f.reason === "agent_added_lease")!;
    expect(added).toMatchObject({
      file: "freeze.toml",
      line: 10,
      commit: agentCommit.sha,
      author: "agent[bot] <1+agent[bot]@users.noreply.github.com>",
    });
  });

  it("an error report (exit 2) is valid, and the schema requires its errors", () => {
    const report = errorReport(
      "2026-12-02",
      [{ code: "file_missing", file: "freeze.toml", message: "the freeze ledger does not exist", fix: "create it" }],
      [],
      { base: "b".repeat(40) },
    );
    expectValid(report);
    expect(validate({ ...asWritten(report), errors: [] })).toBe(false);
  });

  it("a package's report (check --root) names its folder; the schema takes a folder, not an empty one", () => {
    const report = { ...decide(input()), root: "pkgs/api" };
    expectValid(report);
    expect(asWritten(report)).toMatchObject({ root: "pkgs/api" });
    expect(asWritten(decide(input()))).not.toHaveProperty("root");
    expect(validate({ ...asWritten(report), root: "" })).toBe(false);
    expect(validate({ ...asWritten(report), root: 7 })).toBe(false);
  });

  it.each([
    ["MERGE with a reason", (j: Record<string, unknown>) => ({ ...j, reasons: ["proven_coverage"] })],
    ["REJECT without a reason", (j: Record<string, unknown>) => ({ ...j, decision: "REJECT" })],
    ["an unknown key", (j: Record<string, unknown>) => ({ ...j, verdict: "ok" })],
    [
      "a missing article key",
      (j: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(j).filter(([k]) => k !== "proven_coverage_percent")),
    ],
    ["an unknown reason", (j: Record<string, unknown>) => ({ ...j, decision: "REJECT", reasons: ["vibes"] })],
    [
      "a passing row that lists a reason",
      (j: Record<string, unknown>) => ({
        ...j,
        signals: (j.signals as Record<string, unknown>[]).map((s, i) =>
          i === 0 ? { ...s, reasons: ["proven_coverage"] } : s,
        ),
      }),
    ],
  ])("the schema refuses %s", (_name, tamper) => {
    const json = asWritten(decide(input()));
    expect(validate(json)).toBe(true);
    expect(validate(tamper(json))).toBe(false);
  });
});

describe("the decision table", () => {
  it("every reason code belongs to exactly one row, and the schema knows each", () => {
    const rows = SIGNALS.flatMap((s) => s.reasons as readonly string[]);
    expect([...rows].sort()).toEqual([...RULE_REASONS].sort());
    expect(new Set(rows).size).toBe(rows.length);
    const enumerated = (schema as { $defs: { reason: { enum: string[] } } }).$defs.reason.enum;
    expect(enumerated).toEqual([...REASON_CODES]);
  });

  it("a row fails with its own reasons, and only those", () => {
    const report = decide(input({ coverage: coverage(50), clockOverride: true }));
    const row = (id: string) => report.signals.find((s) => s.id === id)!;
    expect(row("proven_coverage")).toMatchObject({
      result: "fail",
      reasons: ["proven_coverage"],
      value: "50.00% (lines 50.00%; proof run)",
      policy: ">= 70%",
    });
    expect(row("clock")).toMatchObject({ result: "fail", reasons: ["clock_override"] });
    expect(row("freeze_budget")).toMatchObject({ result: "pass", reasons: [], value: "1 active, 0 expired" });
  });

  it("a signal turned off is shown as off, never as pass; inputs not given are not_measured", () => {
    const report = decide(input({ fixturesOff: true, properties: { kind: "off" } }));
    const result = Object.fromEntries(report.signals.map((s) => [s.id, s.result]));
    expect(result).toMatchObject({
      fixture_digests: "off",
      property_hold: "off",
      test_evidence: "not_measured",
      history: "not_measured",
      protected_paths: "not_measured",
    });
    expect(report.decision).toBe("MERGE");
  });

  it("a property suite that is on but has no results, or results without a test case, fails property_hold", () => {
    expect(
      decide(input({ properties: suite({ resultFiles: [], tests: 0, failures: 0, skipped: 0 }) })).reasons,
    ).toEqual(["property_hold"]);
    expect(
      decide(input({ properties: suite({ resultFiles: ["p.xml"], tests: 0, failures: 0, skipped: 0 }) })).reasons,
    ).toEqual(["property_hold"]);
    expect(
      decide(input({ properties: suite({ resultFiles: ["p.xml"], tests: 3, failures: 0, skipped: 0 }) })).reasons,
    ).toEqual([]);
    // A skipped property holds nothing: skipping one is how a patch would freeze it without a lease.
    const skipped = decide(input({ properties: suite({ resultFiles: ["p.xml"], tests: 3, failures: 0, skipped: 1 }) }));
    expect(skipped.reasons).toEqual(["property_hold"]);
    expect(skipped.findings[0]!.message).toBe(
      "1 property case(s) were skipped: a property that does not run holds nothing",
    );
    // Turned off, the same inputs are not judged.
    expect(decide(input({ properties: { kind: "off" } })).reasons).toEqual([]);
  });

  it("a command of `check --run` that failed fails the signal it feeds", () => {
    const report = decide(
      input({
        commands: [
          { step: "collect", command: "pytest --collect-only -q", exitCode: 2 },
          { step: "proof", command: "pytest", exitCode: 0 },
        ],
      }),
    );
    expect(report.reasons).toEqual(["collection_errors"]);
    expect(report.findings[0]!.message).toBe("the collection (`pytest --collect-only -q`) exited with 2");
  });
});

describe("a narrowed collection without a git range to judge it", () => {
  it("decide's counts: tests_removed at the summary line, never MERGE; the universe row says tests were left out", () => {
    const narrowed = {
      deselected: 1,
      unlisted: 0,
      file: "collected.txt",
      line: 4,
      summary: "2/3 tests collected (1 deselected) in 0.01s",
    };
    const report = decide(input({ universe: { ...input().universe, summaryCount: 3, narrowed } }));
    expect(report.decision).toBe("REJECT");
    expect(report.reasons).toEqual(["tests_removed"]);
    expect(report.findings[0]).toMatchObject({ file: "collected.txt", line: 4 });
    expect(report.findings[0]!.message).toBe(
      "pytest left tests out of the collection at head: 1 deselected (-k, -m or --deselect in the runner's settings, or a hook) (`2/3 tests collected (1 deselected) in 0.01s` at collected.txt:4)",
    );
    expect(report.signals.find((s) => s.id === "universe")?.value).toBe(
      "2 tests collected (1 left out by the runner's settings or a hook), 0 collection errors",
    );
  });
});

describe("renderings", () => {
  const rejected = () => decide(input({ patch: fromGit(agentPatch()), coverage: coverage(50) }));

  it("the terminal table: a header with the decision, one row per signal, then each reason with where, commit and fix", () => {
    const text = renderText(rejected(), { color: false });
    const lines = text.split("\n");
    expect(lines[0]).toBe(`proofgate: REJECT  ${"b".repeat(12)}..${"a".repeat(12)}  (2026-12-02 UTC)`);
    expect(lines[1]).toBe("Proven coverage: 50.00% (floor 70%)");
    expect(lines[1]).toMatch(/Proven coverage: \d+\.\d+%/); // GitLab's coverage regex (ci-snippets)
    // The raw figure's line never starts `Proven coverage:`: the regex above reads only the gate's line.
    expect(lines[2]).toBe("Raw coverage not measured: no full run's data");
    expect(lines[4]).toMatch(/^Signal +Result +Value +Policy$/);
    expect(lines.slice(5, 5 + SIGNALS.length).map((l) => l.split(/ {2,}/)[0])).toEqual(SIGNALS.map((s) => s.label));
    expect(text).toContain(
      `  agent_added_lease  freeze.toml:10 (commit ${"a".repeat(12)} by agent[bot] <1+agent[bot]@users.noreply.github.com>)`,
    );
    expect(text).toContain("    fix: a human makes this change, in a commit with the trailer `Freeze-Lease: human`");
    expect(text).not.toContain("\u001b[");
  });

  it.each([80, 120])("the table fits %i columns: wrapped, and below 100 the policy on its own line", (width) => {
    const table = renderText(rejected(), { color: false, width }).split("\n\nReasons")[0]!;
    for (const line of table.split("\n")) expect(line.length, line).toBeLessThanOrEqual(width);
    expect(table).toMatchSnapshot();
  });

  it("wrapText breaks at spaces and cuts a word longer than the width", () => {
    expect(wrapText("one two three", 7)).toEqual(["one two", "three"]);
    expect(wrapText("abcdefghij k", 4)).toEqual(["abcd", "efgh", "ij k"]);
  });

  it("colour only when asked: FAIL in red, MERGE in green", () => {
    expect(renderText(rejected(), { color: true })).toContain("\u001b[31mFAIL");
    expect(renderText(decide(input()), { color: true })).toContain("\u001b[32mMERGE");
  });

  it("text from the patch cannot repaint the terminal or break the Markdown", () => {
    const evil = "t.py::test_x\u001b[2J\u001b[32mMERGE\r\n| ok | <img src=x onerror=alert(1)> @admins [link](http://x)";
    expect(terminalSafe(evil)).not.toMatch(/[\u0000-\u001f]/);
    expect(terminalSafe("a\u202eb")).toBe("a\\x202eb");
    // GitHub reads `##[cmd]` anywhere in a line and `::cmd::` at its start (after white space).
    expect(terminalSafe("tests/t.py::test_x[##[stop-commands]]")).toBe("tests/t.py::test_x[\\x23#[stop-commands]]");
    expect(terminalSafe("  ::error::pwned")).toBe("  \\x3a:error::pwned");
    expect(terminalSafe("tests/t.py::test_x")).toBe("tests/t.py::test_x");
    const md = markdownSafe(evil);
    expect(md).not.toContain("<img");
    expect(md).not.toContain("\n");
    expect(md).not.toMatch(/(^|[^\\])\|/);
    expect(md).not.toContain("@admins");
    expect(md).not.toMatch(/(^|[^\\])\[link\]/);
    const view = rejected();
    view.findings[0]!.message = evil;
    const rendered = renderMarkdown(view);
    expect(rendered.split("\n").filter((l) => l.startsWith("- ")).length).toBe(view.findings.length);
    expect(renderText(view, { color: false })).not.toContain("\u001b");
  });

  it("Markdown: the decision, the table in order, reasons with their fix; an error report lists its errors", () => {
    const md = renderMarkdown(rejected());
    expect(md.split("\n")[0]).toBe("### proofgate: ❌ REJECT");
    expect(md).toContain("| Proven coverage | ❌ **fail** | 50.00% \\(lines 50.00%; proof run\\) | &gt;= 70% |");
    expect(md).toContain("  **Fix:** ");
    const error = renderMarkdown(
      errorReport("2026-12-02", [
        { code: "file_missing", file: "freeze.toml", message: "the freeze ledger does not exist", fix: "create it" },
      ]),
    );
    expect(error).toContain("#### The gate could not evaluate (1)");
    expect(error).toContain("- freeze.toml: the freeze ledger does not exist. Fix: create it");
    expect(error).not.toContain("| Signal |");
  });
});

describe("the platform contract", () => {
  const fake = (provider: Platform["provider"], detected: boolean): Platform => ({
    ...localPlatform,
    provider,
    detect: () => detected,
  });

  it("auto picks the first CI whose environment matches, else local; a named platform that is missing is an error", () => {
    expect((selectPlatform("auto", {}, [fake("github", false), localPlatform]) as Platform).provider).toBe("local");
    expect(
      (selectPlatform("auto", {}, [fake("github", false), fake("gitlab", true), localPlatform]) as Platform).provider,
    ).toBe("gitlab");
    expect(selectPlatform("buildkite", {}, [localPlatform])).toMatchObject({
      code: "usage",
      message: "the buildkite platform is not available in this build",
    });
  });

  it("a flag beats the environment, which beats git, field by field", () => {
    const merged = mergeContext(
      "github",
      { base: "flag-base", head: undefined },
      { base: "env-base", head: "env-head", change: 7 },
      { head: "git-head", repo: "o/r" },
    );
    expect(merged).toEqual({ provider: "github", base: "flag-base", head: "env-head", change: 7, repo: "o/r" });
  });

  it("local publishes the uncoloured table as report.txt", async () => {
    const written: Record<string, string> = {};
    const gate = decide(input());
    const outcome = await localPlatform.publish(
      { gate, json: "{}", markdown: "", exitCode: 0 },
      { provider: "local" },
      {
        env: {},
        log: () => {},
        stdout: () => {},
        comment: true,
        writeArtifact: (name, text) => ((written[name] = text), `out/${name}`),
      },
    );
    expect(outcome).toEqual({ published: ["out/report.txt"], failures: [] });
    expect(written["report.txt"]).toBe(renderText(gate, { color: false }));
  });
});

describe("proven patch coverage", () => {
  const file = (path: string, statements: number[], covered: number[]): FileCoverage => ({
    path,
    statements: new Set(statements.map(String)),
    coveredStatements: new Set(covered.map(String)),
    branches: new Set(),
    coveredBranches: new Set(),
  });
  const data = (files: FileCoverage[]): CoverageData => ({
    format: "coveragepy-json",
    sources: ["proven_coverage.json"],
    files: new Map(files.map((f) => [f.path, f])),
    hasBranches: false,
  });
  // src/pkg/a.py: statements 1-6; the proof run ran 1-3, the full run 1-5.
  const map = buildCoverageMap(
    data([file("src/pkg/a.py", [1, 2, 3, 4, 5, 6], [1, 2, 3])]),
    data([file("src/pkg/a.py", [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5])]),
  ).map!;
  const withMap = { ...coverage(80), map };
  const changed = (added: number[]) => ({ files: [{ path: "src/pkg/a.py", oldPath: "pkg_a.py", added }] });
  const row = (report: GateReport) => report.signals.find((s) => s.id === "patch_coverage")!;

  it("below the floor: patch_unproven names the file, the unproven lines and the frozen-only ones", () => {
    const report = decide(input({ coverage: withMap, patchLines: changed([2, 4, 5, 6]), minPatchProven: 50 }));
    expect(report.reasons).toEqual(["patch_unproven"]);
    expect(report.findings).toEqual([
      {
        reason: "patch_unproven",
        message:
          "proven patch coverage 25.00% (1 of 4 changed statements) is below the floor of 50%: src/pkg/a.py lines 4-6 changed and not proven (only frozen tests run 4-5)",
        file: "src/pkg/a.py",
        line: 4,
        fix: "cover the changed lines with tests that are not frozen: a frozen test's coverage proves nothing while its lease runs",
      },
    ]);
    expect(row(report)).toMatchObject({
      result: "fail",
      value: "25.00% (1 of 4 changed statements proven, 2 only frozen tests run; raw 75.00%; 1 file)",
      policy: ">= 50% of the changed statements proven; n/a passes",
    });
    expectValid(report);
    const json = asWritten(report) as { coverage: { patch: unknown; patch_not_measured: unknown } };
    expect(json.coverage.patch).toEqual({
      coverable: 4,
      covered: 1,
      percent: 25,
      not_applicable: null,
      raw: { covered: 3, percent: 75 },
      min_patch_proven: 50,
      changed_files: 1,
      measured_files: 1,
      files: [
        {
          path: "src/pkg/a.py",
          old_path: "pkg_a.py",
          coverable: 4,
          covered: 1,
          uncovered: [4, 5, 6],
          frozen_only: [4, 5],
        },
      ],
    });
    expect(json.coverage.patch_not_measured).toBeNull();
    expect(reportJson(report)).toContain('"percent": 25.0,');
  });

  it("at or above the floor it passes; with no floor the figure is shown and the row is off", () => {
    expect(decide(input({ coverage: withMap, patchLines: changed([1, 2]), minPatchProven: 100 })).decision).toBe(
      "MERGE",
    );
    const off = decide(input({ coverage: withMap, patchLines: changed([4]) }));
    expect(off.decision).toBe("MERGE");
    expect(row(off)).toMatchObject({
      result: "off",
      value: expect.stringMatching(/^0\.00% \(0 of 1 changed statement proven/),
    });
    expectValid(off);
  });

  it("a patch that changes no statement is n/a: null, never 0% or 100%, and it never rejects", () => {
    const report = decide(
      input({ coverage: withMap, patchLines: { files: [{ path: "README.md", added: [1] }] }, minPatchProven: 100 }),
    );
    expect(report.decision).toBe("MERGE");
    expect(row(report)).toMatchObject({ result: "pass", value: "n/a: the changed file is not measured source" });
    expect(report.coverage!.patch).toMatchObject({
      percent: null,
      coverable: 0,
      notApplicable: "the changed file is not measured source",
    });
    expectValid(report);
    expect(reportJson(report)).toContain('"percent": null,');
  });

  it("decide has no patch figure: not_measured, whatever the floor; data without lines says so", () => {
    const report = decide(input({ coverage: withMap, minPatchProven: 90 }));
    expect(row(report)).toMatchObject({ result: "not_measured" });
    expect(report.coverage).toMatchObject({ patch: null, patchNotMeasured: expect.stringContaining("decide") });
    expectValid(report);
    const istanbul = decide(
      input({ coverage: { ...coverage(80), format: "istanbul-final" }, patchLines: changed([1]) }),
    );
    expect(istanbul.coverage!.patchNotMeasured).toBe(
      "the coverage data (istanbul-final) does not key statements by line",
    );
  });

  it("a changed file measured under another path only is a warning naming both, either way round", () => {
    for (const path of ["pkg/a.py", "x/src/pkg/a.py"]) {
      const report = decide(input({ coverage: withMap, patchLines: { files: [{ path, added: [1] }] } }));
      expect(report.warnings).toEqual([
        expect.objectContaining({
          code: "coverage_invalid",
          file: path,
          message: expect.stringContaining("src/pkg/a.py"),
        }),
      ]);
      expect(report.coverage!.patch).toMatchObject({ coverable: 0, measuredFiles: 0 });
    }
    // A file of the same name in another folder is not a misaligned path.
    const other = decide(input({ coverage: withMap, patchLines: { files: [{ path: "tools/a.py", added: [1] }] } }));
    expect(other.warnings).toEqual([]);
  });
});

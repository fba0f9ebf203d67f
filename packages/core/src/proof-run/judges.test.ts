import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  judgeFileReads,
  judgeRunIntegrity,
  judgeRunnerHooks,
  judgeSeedReads,
  judgeSelection,
  judgeSkips,
  listSkips,
  phaseTampering,
  skippedUnlisted,
  testsNotRun,
} from "./judges.js";
import { verifyRunRecord, type RunPhase, type RunRecord, type RunTest } from "./record.js";

const RECORDED = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
  nonce: "0123456789abcdef0123456789abcdef",
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  file: "run-record.json",
}).record!;

const withRecord = (edit: Partial<RunRecord>): RunRecord => ({ ...structuredClone(RECORDED), ...edit });
const phase = (p: Partial<RunPhase>): RunPhase => ({ when: "call", ...p });
const ok = (when: string): RunPhase => ({ when, raised: "none", made: "passed", final: "passed", logged: "passed" });
const testOf = (id: string, call: Partial<RunPhase>, outcome: RunTest["outcome"] = "passed"): RunTest => ({
  id,
  outcome,
  phases: [ok("setup"), phase(call), ok("teardown")],
});

describe("phaseTampering: pytest's own transitions pass, a better outcome than the one before does not", () => {
  it.each([
    ["a pass", { raised: "none", made: "passed", final: "passed", logged: "passed" }],
    ["a failure", { raised: "error", made: "failed", final: "failed", logged: "failed" }],
    ["a skip", { raised: "skip", made: "skipped", final: "skipped", logged: "skipped" }],
    [
      "an xfail marker on a failure",
      { raised: "error", made: "failed", final: "skipped", finalXfail: "bug", logged: "skipped", loggedXfail: "bug" },
    ],
    [
      "pytest.xfail()",
      { raised: "xfail", made: "failed", final: "skipped", finalXfail: "r", logged: "skipped", loggedXfail: "r" },
    ],
    [
      "an xpass",
      { raised: "none", made: "passed", final: "passed", finalXfail: "r", logged: "passed", loggedXfail: "r" },
    ],
    ["a strict xpass", { raised: "none", made: "passed", final: "failed", logged: "failed" }],
    [
      "pytest 9 failing a passed test with failed subtests as it logs it",
      { raised: "none", made: "passed", final: "passed", logged: "failed" },
    ],
    ["unittest's collected failure", { raised: "none", made: "failed", final: "failed", logged: "failed" }],
    [
      "an outer hook that raised first",
      { made: "failed", final: "skipped", finalXfail: "[NOTRUN]", logged: "skipped", loggedXfail: "[NOTRUN]" },
    ],
  ] as Array<[string, Partial<RunPhase>]>)("%s is not tampering", (_, p) => {
    expect(phaseTampering(phase(p))).toBeUndefined();
  });

  it.each([
    [
      "a wrapper that turns a failure into a pass",
      { raised: "error", exception: "AssertionError", made: "failed", final: "passed", logged: "passed" },
      "made failed, then changed to passed",
    ],
    [
      "a failure into a skip without xfail",
      { raised: "error", made: "failed", final: "skipped", logged: "skipped" },
      "then changed to skipped",
    ],
    [
      "a swallowed exception (runtest wrapper)",
      { raised: "error", exception: "AssertionError", made: "passed", final: "passed", logged: "passed" },
      "raised AssertionError, but the report was made passed",
    ],
    [
      "a patched TestReport (made passed for a raise)",
      { raised: "error", made: "passed", final: "passed", logged: "passed" },
      "but the report was made passed",
    ],
    [
      "a logreport hook that rewrites the outcome",
      { raised: "error", made: "failed", final: "failed", logged: "passed" },
      "logged passed",
    ],
    [
      "a logreport hook that makes a failure an xpass",
      { raised: "error", made: "failed", final: "failed", logged: "passed", loggedXfail: "x" },
      "logged passed (xfail)",
    ],
    ["a report logged but never made", { logged: "passed" }, "pytest never made it"],
    ["a report made but never logged", { raised: "error", made: "failed", final: "failed" }, "never logged"],
    [
      "a pass where the runtest hook never reached the test",
      { made: "passed", final: "passed", logged: "passed" },
      "never reached the test",
    ],
    [
      "an outcome pytest does not make",
      { raised: "none", made: "passed", final: "rerun", logged: "rerun" },
      "does not make",
    ],
  ] as Array<[string, Partial<RunPhase>, string]>)("%s is tampering", (_, p, says) => {
    expect(phaseTampering(phase(p))).toContain(says);
  });
});

describe("judgeRunIntegrity", () => {
  it("finds nothing wrong in a clean recorded run", () => {
    expect(judgeRunIntegrity(RECORDED)).toEqual([]);
  });

  it("names each tampered test once, with its views", () => {
    const record = withRecord({
      tests: [
        testOf("t.py::a", {
          raised: "error",
          exception: "AssertionError",
          made: "failed",
          final: "passed",
          logged: "passed",
        }),
        testOf("t.py::b", { raised: "none", made: "passed", final: "passed", logged: "passed" }),
      ],
    });
    const [finding] = judgeRunIntegrity(record);
    expect(finding).toMatchObject({ code: "outcome_tampered", tests: ["t.py::a"] });
    expect(finding!.message).toContain("call: raised AssertionError, made failed, then passed, logged passed");
  });

  it("reports replaced internals, lost hook order, shadowed modules and a masked exit status", () => {
    const record = withRecord({
      exitstatus: 0,
      patched: [{ name: "_pytest.reports.TestReport.from_item_and_call", first: "t.py::a" }],
      guard: { ...RECORDED.guard, pytest_runtest_makereport: false },
      shadowed: [{ module: "json", path: "json.py" }],
    });
    expect(judgeRunIntegrity(record).map((f) => f.code)).toEqual([
      "internals_patched",
      "hook_order_lost",
      "module_shadowed",
      "exit_status_masked",
    ]);
    expect(judgeRunIntegrity(record)[0]!.message).toContain("TestReport.from_item_and_call (seen during t.py::a)");
  });
});

describe("judgeRunIntegrity: shadowing modules", () => {
  it("judges only the modules judgeShadow keeps, and names them in the fix", () => {
    const record = withRecord({
      shadowed: [
        { module: "json", path: "json.py" },
        { module: "more_itertools", path: "more_itertools/__init__.py" },
      ],
    });
    const judgeShadow = (s: { module: string }) => s.module !== "more_itertools";
    const [finding] = judgeRunIntegrity(record, { judgeShadow });
    expect(finding).toMatchObject({ code: "module_shadowed", paths: ["json.py"], fix: "rename or remove json.py" });
    expect(judgeRunIntegrity(record, { judgeShadow: () => false })).toEqual([]);
  });
});

describe("listSkips and judgeSkips", () => {
  it("lists test skips, xfails, xpasses and the module skipped at import, with their origins", () => {
    expect(listSkips(RECORDED).map((s) => [s.id, s.kind, s.scope, s.origin?.by])).toEqual([
      ["tests/test_calc.py::test_skip_marker", "skipped", "test", "marker"],
      ["tests/test_calc.py::test_skip_body", "skipped", "test", "code"],
      ["tests/test_calc.py::test_skip_fixture", "skipped", "test", "code"],
      ["tests/test_calc.py::test_xfail", "xfailed", "test", "marker"],
      ["tests/test_calc.py::test_xpass", "xpassed", "test", "marker"],
      ["tests/test_module_skip.py", "skipped", "module", "code"],
    ]);
  });

  it("says where each came from, in words, with the line", () => {
    const messages = judgeSkips(RECORDED).map((f) => f.message);
    expect(messages[0]).toMatch(
      /test_skip_marker was skipped by a skip or skipif marker at tests\/test_calc.py:\d+: "Skipped: marker skip"/,
    );
    expect(messages[1]).toMatch(
      /test_skip_body was skipped by pytest.skip\(\) at tests\/test_calc.py:\d+, in the test body/,
    );
    expect(messages[2]).toMatch(
      /test_skip_fixture was skipped by pytest.skip\(\) at tests\/conftest.py:6, during setup \(a fixture/,
    );
    expect(messages[3]).toMatch(/test_xfail was xfailed .* by an xfail marker/);
    expect(messages[5]).toMatch(
      /^tests\/test_module_skip.py: the whole module was skipped while it was imported .* at tests\/test_module_skip.py:3/,
    );
    expect(judgeSkips(RECORDED).map((f) => f.code)).toEqual([
      "test_skipped",
      "test_skipped",
      "test_skipped",
      "test_xfailed",
      "test_xpassed",
      "collection_skipped",
    ]);
  });

  it("a package run under the repository's settings: the test's own file is still 'the test body'", () => {
    // The ids from the repository's top (pytest's rootdir), the origins' paths from the package (the root).
    const moved = withRecord({
      rootdirFromRoot: "../..",
      rootFromRootdir: "packages/x",
      tests: RECORDED.tests.map((t) => ({ ...t, id: `packages/x/${t.id}` })),
    });
    const body = judgeSkips(moved).find((f) => f.tests?.[0] === "packages/x/tests/test_calc.py::test_skip_body")!;
    expect(body.message).toMatch(/by pytest.skip\(\) at tests\/test_calc.py:\d+, in the test body/);
    const unmoved = judgeSkips({ ...moved, rootdirFromRoot: ".", rootFromRootdir: "." });
    expect(unmoved.find((f) => f.tests?.[0] === body.tests?.[0])!.message).toContain("in code the test called");
  });

  it("leaves out the allowed ids (leased, or skipped at the base too)", () => {
    const allowed = ["tests/test_calc.py::test_skip_marker", "tests/test_module_skip.py"];
    expect(judgeSkips(RECORDED, { allowed }).flatMap((f) => f.tests)).not.toContain("tests/test_module_skip.py");
    expect(judgeSkips(RECORDED, { allowed })).toHaveLength(4);
  });
});

describe("judgeSelection", () => {
  it("reports the collection error of the recorded run and nothing else", () => {
    const findings = judgeSelection(RECORDED, { leased: ["tests/test_calc.py::test_frozen"] });
    expect(findings.map((f) => f.code)).toEqual(["collection_error"]);
    expect(findings[0]!.message).toContain("No module named 'not_a_module'");
  });

  it("a lease the plugin did not deselect, another deselection, a test that never ran, one never collected", () => {
    const record = withRecord({
      collection: [],
      deselected: { proofgate: [], other: ["tests/test_calc.py::test_frozen"] },
      tests: [...RECORDED.tests.filter((t) => !t.id.endsWith("test_add")), testOf("made/up.py::test_x", {})],
    });
    const findings = judgeSelection(record, { leased: ["tests/test_calc.py::test_frozen"] });
    expect(findings.map((f) => [f.code, f.tests])).toEqual([
      ["deselection_mismatch", ["tests/test_calc.py::test_frozen"]],
      ["deselected_other", ["tests/test_calc.py::test_frozen"]],
      ["test_not_run", ["tests/test_calc.py::test_add"]],
      ["test_not_collected", ["made/up.py::test_x"]],
    ]);
  });

  it("testsNotRun names the expected ids without a report", () => {
    expect(testsNotRun(RECORDED, ["tests/test_calc.py::test_add", "tests/test_calc.py::test_frozen"])).toEqual([
      "tests/test_calc.py::test_frozen",
    ]);
  });

  it("skippedUnlisted: collected tests the run skipped that the universe does not list, not the gate's deselections", () => {
    const skip = (id: string): RunTest =>
      testOf(id, { made: "skipped", final: "skipped", logged: "skipped" }, "skipped");
    const record = withRecord({
      collected: [
        "a.test.ts > listed",
        "a.test.ts > skipped",
        "a.test.ts > todo",
        "a.test.ts > leased",
        "a.test.ts > ran",
      ],
      deselected: { proofgate: ["a.test.ts > leased"], other: [] },
      tests: [
        skip("a.test.ts > listed"),
        skip("a.test.ts > skipped"),
        testOf("a.test.ts > todo", { made: "skipped", final: "skipped", logged: "skipped" }, "xfailed"),
        skip("a.test.ts > leased"),
        testOf("a.test.ts > ran", {}),
        // Reported skipped without being collected: never a skip of the suite's.
        skip("a.test.ts > made up"),
      ],
    });
    expect(skippedUnlisted(record, new Set(["a.test.ts > listed", "a.test.ts > ran"]))).toEqual([
      "a.test.ts > skipped",
      "a.test.ts > todo",
    ]);
  });
});

describe("judgeFileReads and judgeSeedReads", () => {
  it("a golden file read outside the lock is unlocked_fixture_read, with the test that read it", () => {
    const [finding] = judgeFileReads(RECORDED, { fixtures: ["tests/fixtures"], lock: "fixtures.lock" });
    expect(finding).toMatchObject({
      code: "unlocked_fixture_read",
      paths: ["tests/data/golden.txt"],
      tests: ["tests/test_calc.py::test_add"],
    });
  });

  it("nothing when the folder is locked; source and tool configuration never count", () => {
    expect(judgeFileReads(RECORDED, { fixtures: ["tests/fixtures", "tests/data"], lock: "fixtures.lock" })).toEqual([]);
    const record = withRecord({
      files: [
        { path: "setup.cfg", read: true, write: false, first: null },
        { path: ".hypothesis/examples/ab/cd", read: true, write: true, first: "t::x" },
        { path: "fixtures.lock", read: true, write: false, first: null },
        { path: "out.txt", read: false, write: true, first: "t::x" },
        { path: "pkg/mod.cpython-311-x86_64-linux-gnu.so", read: true, write: false, first: null },
      ],
    });
    expect(judgeFileReads(record, { fixtures: [], lock: "fixtures.lock" })).toEqual([]);
    expect(judgeFileReads(record, { fixtures: [], lock: "fixtures.lock", allow: [] }).flatMap((f) => f.paths)).toEqual([
      "setup.cfg",
      ".hypothesis/examples/ab/cd",
    ]);
  });

  it("a package's run: what its tests read elsewhere in the repository is a finding of its own, whatever the lock", () => {
    // The caller passes the outside reads that changed in the range without a human's approval.
    const record = withRecord({
      files: [
        { path: "tests/fixtures/golden.txt", read: true, write: false, first: "tests/test_a.py::test_one" },
        { path: "../../testdata/expected.json", read: true, write: false, first: "tests/test_a.py::test_two" },
        { path: "../../testdata/other.json", read: true, write: false, first: null },
        // pytest's settings files in the folders above, and a sibling's source: never count.
        { path: "../../pyproject.toml", read: true, write: false, first: null },
        { path: "../pytest.ini", read: true, write: false, first: null },
        { path: "../b/src/b/util.py", read: true, write: false, first: null },
        // ... but a cache name or a sibling's settings file above is no settings of this run's: the allow
        // list is the package's own folder's.
        { path: "../.coverage.expected", read: true, write: false, first: null },
        { path: "../../.hypothesis/golden", read: true, write: false, first: null },
        { path: "../b/pyproject.toml", read: true, write: false, first: null },
      ],
    });
    const outside = [
      "../../testdata/expected.json",
      "../../testdata/other.json",
      "../.coverage.expected",
      "../../.hypothesis/golden",
      "../b/pyproject.toml",
    ];
    const findings = judgeFileReads(record, { fixtures: ["tests/fixtures"], lock: "fixtures.lock", trailer: "Golden" });
    expect(findings).toEqual([
      {
        code: "unlocked_fixture_read",
        paths: outside,
        tests: ["tests/test_a.py::test_two"],
        message:
          "the tests read 5 file(s) outside the package's folder that changed in the range without a human's `Golden: human` on each commit that changed them (no lock of the package holds them): ../../testdata/expected.json (first by tests/test_a.py::test_two), ../../testdata/other.json, ../.coverage.expected, ../../.hypothesis/golden, ../b/pyproject.toml",
        fix: expect.stringContaining("have a human make the change in a commit with `Golden: human`"),
      },
    ]);
    // Inside and outside together: two findings, the lock's first.
    const both = judgeFileReads(record, { fixtures: [], lock: "fixtures.lock" });
    expect(both.map((f) => f.paths)).toEqual([["tests/fixtures/golden.txt"], outside]);
    expect(both[0]!.message).toMatch(/^the tests read 1 file\(s\) outside the fixture lock \(no fixture paths\)/);
    expect(both[1]!.message).toContain("`Fixture-Lock: human`");
  });

  it("without audit hooks the reads are unknown: audit_unavailable, never a pass", () => {
    const record = withRecord({ audit: false, files: [] });
    expect(judgeFileReads(record, { fixtures: [], lock: "x" })[0]!.code).toBe("audit_unavailable");
    expect(judgeSeedReads(record, ["seeds/a"])[0]!.code).toBe("audit_unavailable");
  });

  it("a seed never read is seed_not_read; with `via`, only reads of the base's copy count", () => {
    const record = withRecord({
      files: [
        { path: "tests/properties/seeds/a.json", read: true, write: false, first: "p::t", via: "base-seeds" },
        { path: "tests/properties/seeds/b.json", read: true, write: false, first: "p::t" },
      ],
    });
    const seeds = ["tests/properties/seeds/a.json", "tests/properties/seeds/b.json", "tests/properties/seeds/c.json"];
    expect(judgeSeedReads(record, seeds)[0]!.paths).toEqual(["tests/properties/seeds/c.json"]);
    expect(judgeSeedReads(record, seeds, { via: "base-seeds" })[0]!.paths).toEqual([
      "tests/properties/seeds/b.json",
      "tests/properties/seeds/c.json",
    ]);
  });
});

describe("judgeRunnerHooks", () => {
  const record = withRecord({
    hooks: [
      {
        plugin: "tests/conftest.py",
        hook: "pytest_runtest_makereport",
        wrapper: true,
        tryfirst: false,
        trylast: false,
      },
      { plugin: "tests/conftest.py", hook: "pytest_addoption", wrapper: false, tryfirst: false, trylast: false },
      { plugin: "conftest.py", hook: "pytest_configure", wrapper: false, tryfirst: false, trylast: false },
    ],
  });

  it("one finding per plugin file with result hooks; harmless hooks are not reported", () => {
    expect(judgeRunnerHooks(record)).toEqual([
      expect.objectContaining({
        code: "runner_hook",
        paths: ["tests/conftest.py"],
        message: expect.stringContaining("pytest_runtest_makereport (wrapper)"),
      }),
    ]);
    expect(judgeRunnerHooks(record, { allowedPlugins: ["tests/conftest.py"] })).toEqual([]);
  });
});

describe("subtests (reports made and logged inside the test's call)", () => {
  const sub = (p: Partial<RunPhase>): RunPhase => ({ when: "call", ...p });

  it("are judged without a raised view: a faithful subtest is fine, a rewritten one is tampering", () => {
    const fine = { ...testOf("t.py::a", {}), subtests: [sub({ made: "failed", final: "failed", logged: "failed" })] };
    const rewritten = {
      ...testOf("t.py::b", {}),
      subtests: [sub({ made: "failed", final: "failed", logged: "passed" })],
    };
    const [finding] = judgeRunIntegrity(withRecord({ tests: [fine, rewritten] }));
    expect(finding).toMatchObject({ code: "outcome_tampered", tests: ["t.py::b"] });
    expect(finding!.message).toContain("(a subtest)");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { accountEvidence, missingEvidence, skipBudget, testsFailed } from "./evidence.js";
import { mergeJunitResults, parseJunitXml, type TestResult } from "./junit.js";
import type { Lease } from "../ledger/ledger.js";
import { parseCollectOnly } from "./universe.js";

const recorded = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/junit/${name}`, import.meta.url), "utf8");
const universe = parseCollectOnly(recorded("pytest-7.2.1-collect-q.txt"), "collected.txt").universe!;
const results = (name: string): TestResult[] => parseJunitXml(recorded(name), name, { universe }).results!;

const lease = (nodeid: string, index = 0): Lease => ({
  index,
  nodeid,
  owner: "sam",
  reason: "flaky",
  expires: "2026-12-31" as Lease["expires"],
  line: 2 + index * 5,
});

describe("accountEvidence on the real pytest 7.2 run", () => {
  const leases = [
    lease("tests/test_a.py::test_fail"),
    lease("tests/test_a.py::test_skip", 1),
    lease("tests/test_a.py::TestK::test_m", 2),
  ];
  const accounting = accountEvidence(universe, leases, results("pytest-7.2.1-xunit1.xml"));

  it("puts every collected test in exactly one class; a lease wins over any outcome", () => {
    expect(accounting.ids).toEqual({
      proven: [
        "tests/test_a.py::test_pass",
        "tests/test_a.py::test_xpass",
        "tests/test_a.py::test_param[a b]",
        "tests/test_a.py::test_param[caf\\xe9]",
        "tests/test_a.py::test_param[na\\xefve \\xfcmlaut]",
        "tests/test_a.py::test_param[<&>]",
        "tests/test_a.py::TestK::test_round[1]",
        "tests/test_a.py::TestK::TestInner::test_deep",
        "tests/test_plain.py::test_pass",
        "tests/sub/test_b.py::test_b",
      ],
      frozen: ["tests/test_a.py::test_fail", "tests/test_a.py::test_skip", "tests/test_a.py::TestK::test_m"],
      skipped: ["tests/test_a.py::test_skip_inside", "tests/test_a.py::test_xfail"],
      failed: [
        "tests/test_a.py::test_error",
        "tests/test_a.py::test_param[x,y]",
        "tests/test_a.py::TestK::test_round[2]",
        "tests/test_c.py::test_fail_and_teardown_error",
        "tests/test_c.py::test_xpass_strict",
        "tests/sub/test_b.py::test_teardown_err",
      ],
      missing: [],
    });
    expect(accounting.counts).toEqual({ proven: 10, frozen: 3, skipped: 2, failed: 6, missing: 0 });
    expect(accounting.collected).toBe(21);
    const all = Object.values(accounting.ids).flat();
    expect(all).toHaveLength(universe.ids.length);
    expect(new Set(all)).toEqual(new Set(universe.ids));
    expect(accounting.unknownResults).toEqual([]);
    expect(accounting.moduleSkips).toEqual([]);
    expect(accounting.resultFiles).toEqual(["pytest-7.2.1-xunit1.xml"]);
  });

  it("xunit2 resolved against the universe gives the same accounting as xunit1", () => {
    const xunit2 = accountEvidence(universe, leases, results("pytest-7.2.1-xunit2.xml"));
    expect(xunit2.ids).toEqual(accounting.ids);
  });

  it("tests_failed: one finding per failed or erroring test, at its line in the result file", () => {
    const findings = testsFailed(accounting);
    expect(findings.map((f) => f.message)).toEqual([
      'tests/test_a.py::test_error errored in the proof run: failed on setup with "RuntimeError: fixture broke"',
      "tests/test_a.py::test_param[x,y] failed in the proof run: AssertionError: assert 'x,y' != 'x,y'",
      "tests/test_a.py::TestK::test_round[2] failed in the proof run: assert 2 == 1",
      'tests/test_c.py::test_fail_and_teardown_error errored in the proof run: failed on teardown with "ValueError: teardown after failure"',
      "tests/test_c.py::test_xpass_strict failed in the proof run: [XPASS(strict)] strict",
      'tests/sub/test_b.py::test_teardown_err errored in the proof run: failed on teardown with "ValueError: teardown boom"',
    ]);
    expect(
      findings.every(
        (f) =>
          f.reason === "tests_failed" &&
          f.file === "pytest-7.2.1-xunit1.xml" &&
          typeof f.line === "number" &&
          f.fix.length > 0,
      ),
    ).toBe(true);
  });

  it("missing_evidence is silent when every test has a result", () => {
    expect(missingEvidence(accounting)).toEqual([]);
  });

  it("skip_budget: counted always, rejected only past a given budget", () => {
    expect(skipBudget(accounting, undefined)).toEqual([]);
    expect(skipBudget(accounting, 2)).toEqual([]);
    expect(skipBudget(accounting, 1)).toEqual([
      {
        reason: "skip_budget",
        message:
          "2 unledgered skip(s) exceed max_unledgered_skips = 1: tests/test_a.py::test_skip_inside, tests/test_a.py::test_xfail",
        file: "pytest-7.2.1-xunit1.xml",
        line: accounting.skips[0]!.line,
        fix: "a skip marker is a freeze without a lease: fix the test, or have a human freeze it in freeze.toml",
      },
    ]);
    expect(skipBudget(accounting, 0)).toHaveLength(1);
  });
});

describe("accountEvidence: missing and unknown", () => {
  it("a shard left out makes its tests missing; missing_evidence names them", () => {
    const accounting = accountEvidence(
      universe,
      [lease("tests/test_plain.py::test_pass")],
      results("pytest-7.2.1-xunit2-shard1.xml"),
    );
    expect(accounting.ids.missing).toEqual([
      "tests/test_c.py::test_fail_and_teardown_error",
      "tests/test_c.py::test_xpass_strict",
      "tests/sub/test_b.py::test_b",
      "tests/sub/test_b.py::test_teardown_err",
    ]);
    expect(accounting.ids.frozen).toEqual(["tests/test_plain.py::test_pass"]);
    expect(missingEvidence(accounting)).toEqual([
      {
        reason: "missing_evidence",
        message:
          "4 collected test(s) have no result in pytest-7.2.1-xunit2-shard1.xml: tests/test_c.py::test_fail_and_teardown_error, tests/test_c.py::test_xpass_strict, tests/sub/test_b.py::test_b, tests/sub/test_b.py::test_teardown_err",
        file: "collected.txt",
        fix: "run the whole suite in the proof run (every shard's results passed), deselecting only tests with an active lease",
      },
    ]);
  });

  it("both shards merged: nothing missing", () => {
    const merged = mergeJunitResults([
      results("pytest-7.2.1-xunit2-shard1.xml"),
      results("pytest-7.2.1-xunit2-shard2.xml"),
    ]);
    const accounting = accountEvidence(universe, [], merged.results!);
    expect(accounting.counts).toEqual({ proven: 11, frozen: 0, skipped: 3, failed: 7, missing: 0 });
    expect(accounting.resultFiles).toEqual(["pytest-7.2.1-xunit2-shard1.xml", "pytest-7.2.1-xunit2-shard2.xml"]);
  });

  it("no results at all: every unfrozen test is missing, and the list is capped in the message", () => {
    const accounting = accountEvidence(universe, [], []);
    expect(accounting.counts.missing).toBe(21);
    const [finding] = missingEvidence(accounting);
    expect(finding!.message).toMatch(/^21 collected test\(s\) have no result in the results: .*, and 11 more$/);
  });

  it("a frozen test needs no result: a universe that is all frozen has nothing missing", () => {
    const small = parseCollectOnly("tests/test_a.py::test_x\n\n1 test collected in 0.01s\n", "c.txt").universe!;
    const accounting = accountEvidence(small, [lease("tests/test_a.py::test_x")], []);
    expect(accounting.counts).toEqual({ proven: 0, frozen: 1, skipped: 0, failed: 0, missing: 0 });
  });

  it("a result for an id not in the universe is missing_evidence naming it; a failing one is tests_failed", () => {
    const small = parseCollectOnly("tests/test_ok.py::test_ok\n\n1 test collected in 0.01s\n", "c.txt").universe!;
    const parsed = parseJunitXml(recorded("pytest-7.2.1-xunit1-collection-error.xml"), "coll.xml").results!;
    const extra: TestResult = {
      id: "tests/test_new.py::test_added",
      outcome: "passed",
      file: "r.xml",
      line: 9,
      classname: "tests.test_new",
      name: "test_added",
      mapping: "file",
      collectionError: false,
    };
    const accounting = accountEvidence(small, [], [...parsed, extra]);
    expect(accounting.ids.missing).toEqual(["tests/test_ok.py::test_ok"]);
    expect(accounting.unknownResults.map((r) => r.id)).toEqual([
      "tests/test_broken.py",
      "tests/test_new.py::test_added",
    ]);
    expect(missingEvidence(accounting)).toEqual([
      {
        reason: "missing_evidence",
        message: "1 collected test(s) have no result in coll.xml, r.xml: tests/test_ok.py::test_ok",
        file: "c.txt",
        fix: "run the whole suite in the proof run (every shard's results passed), deselecting only tests with an active lease",
      },
      {
        reason: "missing_evidence",
        message:
          "1 result(s) name tests that are not in the universe c.txt, so the proof ran another collection than the one judged: tests/test_new.py::test_added (passed)",
        file: "r.xml",
        line: 9,
        fix: "collect the universe and run the proof from the same commit, with the same test selection",
      },
    ]);
    expect(testsFailed(accounting)).toEqual([
      {
        reason: "tests_failed",
        message: "tests/test_broken.py failed to collect in the proof run: collection failure",
        file: "coll.xml",
        line: 1,
        fix: "fix the test or the code; a flaky test gets a lease in freeze.toml from a human",
      },
    ]);
  });

  it("an id repeated in the results (unmerged shards) counts once, by its worse outcome", () => {
    const small = parseCollectOnly("tests/test_a.py::test_x\n\n1 test collected in 0.01s\n", "c.txt").universe!;
    const base: TestResult = {
      id: "tests/test_a.py::test_x",
      outcome: "passed",
      file: "a.xml",
      line: 1,
      classname: "tests.test_a",
      name: "test_x",
      mapping: "file",
      collectionError: false,
    };
    const accounting = accountEvidence(
      small,
      [],
      [base, { ...base, outcome: "failed", file: "b.xml" }, { ...base, outcome: "skipped", file: "c.xml" }],
    );
    expect(accounting.ids.failed).toEqual(["tests/test_a.py::test_x"]);
    expect(accounting.failures[0]!.file).toBe("b.xml");
  });

  it("vitest results account against a universe made from them", () => {
    const parsed = parseJunitXml(recorded("vitest-4.1.12-junit.xml"), "vitest.xml").results!;
    const u = {
      file: "vitest.xml",
      ids: parsed.filter((r) => !r.collectionError).map((r) => r.id),
      duplicates: [],
      collectionErrors: [],
      summaryCount: 11,
    };
    const accounting = accountEvidence(u, [lease("src/sub/other.test.js > throws non-assertion")], parsed);
    expect(accounting.counts).toEqual({ proven: 7, frozen: 1, skipped: 2, failed: 1, missing: 0 });
    expect(testsFailed(accounting).map((f) => f.message)).toEqual([
      'src/math.test.js > math > fails <here> & "there" failed in the proof run: expected 2 to be 3 // Object.is equality',
      "src/broken.test.js failed as a whole file (its import, a file-level hook or check such as obsolete snapshots) in the proof run: Cannot find module './does-not-exist.js' imported from /tmp/pgjunit/vt/src/broken.test.js",
    ]);
  });
});

describe("accountEvidence: pytest's module-level skips (recorded, pytest 7.2.1)", () => {
  const skipUniverse = parseCollectOnly(recorded("pytest-7.2.1-module-skip-collect-q.txt"), "collected.txt").universe!;
  const skipResults = (name: string): TestResult[] =>
    parseJunitXml(recorded(name), name, { universe: skipUniverse }).results!;

  it.each(["pytest-7.2.1-xunit1-module-skip.xml", "pytest-7.2.1-xunit2-module-skip.xml"])(
    "%s: each module that skipped itself is a skip, not an unknown result, and counts against the budget",
    (file) => {
      const accounting = accountEvidence(skipUniverse, [], skipResults(file));
      expect(accounting.counts).toEqual({ proven: 1, frozen: 0, skipped: 3, failed: 0, missing: 0 });
      expect(accounting.moduleSkips.map((r) => [r.id, r.message])).toEqual([
        ["tests/test_c.py", "collection skipped: not on this platform"],
        [
          "tests/test_e.py",
          "collection skipped: could not import 'no_such_module_here': No module named 'no_such_module_here'",
        ],
      ]);
      expect(accounting.unknownResults).toEqual([]);
      expect(missingEvidence(accounting)).toEqual([]);
      const [budget] = skipBudget(accounting, 0);
      expect(budget!.message).toBe(
        "5 unledgered skip(s) exceed max_unledgered_skips = 0: tests/test_d.py::test_s, tests/test_d.py::test_xf, tests/test_d.py::test_b, tests/test_c.py (module-level skip), tests/test_e.py (module-level skip)",
      );
      expect(skipBudget(accounting, 5)).toEqual([]);
    },
  );

  it("a test of a skipped module that the universe does hold is skipped with its module", () => {
    const wider = parseCollectOnly(
      `${skipUniverse.ids.join("\n")}\ntests/test_c.py::test_x\n\n5 tests collected in 0.01s\n`,
      "collected.txt",
    ).universe!;
    const accounting = accountEvidence(wider, [], skipResults("pytest-7.2.1-xunit1-module-skip.xml"));
    expect(accounting.ids.skipped).toContain("tests/test_c.py::test_x");
    expect(accounting.moduleSkips.map((r) => r.id)).toEqual(["tests/test_e.py"]);
  });
});

import { describe, expect, it } from "vitest";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import type { Commit } from "../model/authorship.js";
import { DEFAULT_PYTHON_FILES } from "../python/runner-config.js";
import type { RunReplacement } from "./record.js";
import {
  judgeShippedReplacements,
  scanShippedReplacement,
  sourceDefinitions,
  type ShippedEvidence,
} from "./shipped.js";
import { shippedCodeFindings, type RunnerEvidence } from "./evidence.js";

const commit = commitFactory("c");

const CALC = `import os


def add(a, b):
    return a - b


class Calc:
    @staticmethod
    def mul(a, b):
        def inner():
            return a * b

        return inner()

    def div(self, a, b):
        return a / b


RATE = 2
`;

/** pkg/calc.py with lines 4-5 (add) written by `by`, and `tests` touched by each commit given. */
function evidence(o: {
  by: Commit;
  lines?: number[];
  touched?: Array<[Commit, string[]]>;
  added?: ShippedEvidence["added"];
}): ShippedEvidence {
  const touched = new Map<string, string[]>([[o.by.sha, ["pkg/calc.py"]]]);
  for (const [c, paths] of o.touched ?? []) touched.set(c.sha, [...(touched.get(c.sha) ?? []), ...paths]);
  const commits = [o.by, ...(o.touched ?? []).map(([c]) => c).filter((c) => c !== o.by)];
  return {
    commits,
    touched,
    pytest: { pythonFiles: [...DEFAULT_PYTHON_FILES], testpaths: [] },
    sources: [{ path: "pkg/calc.py", text: CALC, written: (o.lines ?? [5]).map((line) => ({ line, sha: o.by.sha })) }],
    added: o.added ?? [],
  };
}

const replaced = (r: Partial<RunReplacement>): RunReplacement => ({
  module: "pkg.calc",
  name: "add",
  kind: "function",
  path: "pkg/calc.py",
  qualname: "add",
  first: 4,
  last: 5,
  by: { path: "tests/test_calc.py", line: 9 },
  phase: "setup",
  test: "tests/test_calc.py::test_add",
  near: "tests/test_calc.py",
  ...r,
});

describe("sourceDefinitions: functions, classes and methods by indentation", () => {
  it("finds top-level functions and classes and the methods of top-level classes, decorators included", () => {
    expect(sourceDefinitions("pkg/calc.py", CALC)).toEqual([
      { path: "pkg/calc.py", qualname: "add", kind: "def", first: 4, last: 5 },
      { path: "pkg/calc.py", qualname: "Calc", kind: "class", first: 8, last: 17 },
      { path: "pkg/calc.py", qualname: "Calc.mul", kind: "def", first: 9, last: 14 },
      { path: "pkg/calc.py", qualname: "Calc.div", kind: "def", first: 16, last: 17 },
    ]);
  });
});

describe("judgeShippedReplacements: a source definition the patch changed, replaced by test code it touched", () => {
  it("an agent's fixture that replaces the function it changed is a finding naming the function, the file and the line", () => {
    const agent = commit(BOT);
    const findings = judgeShippedReplacements(
      [replaced({})],
      evidence({ by: agent, touched: [[agent, ["tests/test_calc.py"]]] }),
      POLICY,
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      reason: "shipped_code_replaced",
      file: "tests/test_calc.py",
      line: 9,
      commit: agent.sha,
    });
    expect(findings[0]!.message).toContain("pkg.calc.add, defined at pkg/calc.py:4-5 and changed by the patch");
    expect(findings[0]!.message).toContain("while tests/test_calc.py::test_add ran (setup)");
  });

  it("a human's commit with `Gate-Change: human` allows it; without the trailer, or with an agent's commit in the range that touched either, it does not", () => {
    const human = commit(ADA, "Gate-Change");
    const e = evidence({ by: human, touched: [[human, ["tests/test_calc.py"]]] });
    expect(judgeShippedReplacements([replaced({})], e, POLICY)).toEqual([]);
    const plain = commit(ADA);
    expect(
      judgeShippedReplacements(
        [replaced({})],
        evidence({ by: plain, touched: [[plain, ["tests/test_calc.py"]]] }),
        POLICY,
      ),
    ).toHaveLength(1);
    // The human approved the test code, an agent changed the function: the agent's commit answers for it.
    const agent = commit(BOT);
    const mixed = evidence({ by: agent, touched: [[human, ["tests/test_calc.py"]]] });
    expect(judgeShippedReplacements([replaced({})], mixed, POLICY)[0]!.commit).toBe(agent.sha);
  });

  it("ordinary mocking is quiet: source the patch did not change, test code it did not touch, a writer that is source", () => {
    const agent = commit(BOT);
    const e = evidence({ by: agent, touched: [[agent, ["tests/test_calc.py"]]] });
    // Calc.div: lines 16-17, none written by the range.
    expect(
      judgeShippedReplacements([replaced({ name: "Calc.div", qualname: "Calc.div", first: 16, last: 17 })], e, POLICY),
    ).toEqual([]);
    // A file the range did not change.
    expect(judgeShippedReplacements([replaced({ path: "pkg/other.py" })], e, POLICY)).toEqual([]);
    // Test code the patch did not touch (an old test double of add).
    expect(
      judgeShippedReplacements(
        [replaced({ by: { path: "tests/test_old.py", line: 3 }, near: "tests/test_old.py" })],
        e,
        POLICY,
      ),
    ).toEqual([]);
    // Source code that patches source ships as it ran.
    expect(judgeShippedReplacements([replaced({ by: { path: "pkg/__init__.py", line: 3 } })], e, POLICY)).toEqual([]);
    // An original that is test code.
    expect(judgeShippedReplacements([replaced({ path: "tests/helpers.py" })], e, POLICY)).toEqual([]);
  });

  it("without a frame, the test's file stands for the writer; a data attribute without one is not judged", () => {
    const agent = commit(BOT);
    const e = evidence({ by: agent, lines: [5, 20], touched: [[agent, ["tests/test_calc.py"]]] });
    const unseen = judgeShippedReplacements([replaced({ by: undefined })], e, POLICY);
    expect(unseen).toHaveLength(1);
    expect(unseen[0]!.file).toBe("tests/test_calc.py");
    expect(unseen[0]!.message).toContain("no frame showed the writer");
    const value = { kind: "value" as const, name: "RATE", qualname: "RATE", first: 20, last: 20 };
    expect(judgeShippedReplacements([replaced({ ...value, by: undefined })], e, POLICY)).toEqual([]);
    expect(judgeShippedReplacements([replaced(value)], e, POLICY)).toHaveLength(1);
  });

  it("with no frame and no test running, any test code the range touched answers; a definition it could not place is the whole file", () => {
    const agent = commit(BOT);
    const unseen = replaced({
      by: undefined,
      near: null,
      test: null,
      phase: "collection",
      first: undefined,
      last: undefined,
    });
    // No test code touched by the range: an old test double, not the patch's.
    expect(judgeShippedReplacements([unseen], evidence({ by: agent }), POLICY)).toEqual([]);
    const e = evidence({ by: agent, touched: [[agent, ["tests/__init__.py", "docs/x.md"]]] });
    const found = judgeShippedReplacements([unseen], e, POLICY);
    expect(found).toHaveLength(1);
    expect(found[0]!.file).toBe("tests/__init__.py");
    expect(found[0]!.message).toContain("tests/__init__.py, test code the range changed, stands for it");
    expect(
      judgeShippedReplacements([{ module: "?", name: "", kind: "error", error: "boom" }], e, POLICY)[0]!.message,
    ).toContain("boom");
  });

  it("with no frame during a test, the fixtures' files answer too", () => {
    const agent = commit(BOT);
    const e = evidence({ by: agent, touched: [[agent, ["tests/plugin_fixtures.py"]]] });
    const old = { by: undefined, near: "tests/test_old.py" };
    expect(judgeShippedReplacements([replaced(old)], e, POLICY)).toEqual([]);
    const found = judgeShippedReplacements(
      [replaced({ ...old, fixtures: ["tests/conftest.py", "tests/plugin_fixtures.py"] })],
      e,
      POLICY,
    );
    expect(found.map((f) => f.file)).toEqual(["tests/plugin_fixtures.py"]);
  });

  it("a function's code and a module replaced in sys.modules are named as such", () => {
    const agent = commit(BOT);
    const e = evidence({ by: agent, touched: [[agent, ["tests/__init__.py"]]] });
    const code = judgeShippedReplacements(
      [replaced({ kind: "code", by: { path: "tests/__init__.py", line: 6 }, test: null, phase: "collection" })],
      e,
      POLICY,
    );
    expect(code[0]!.message).toMatch(
      /^the code of pkg\.calc\.add, .* by tests\/__init__\.py:6 while the tests were collected/,
    );
    const module = judgeShippedReplacements(
      [
        replaced({
          kind: "module",
          name: "",
          qualname: "",
          first: 1,
          last: 20,
          by: { path: "tests/__init__.py", line: 2 },
        }),
      ],
      e,
      POLICY,
    );
    expect(module[0]!.message).toContain("the module pkg.calc (in sys.modules)");
  });
});

describe("scanShippedReplacement: without a run, the lines added to test code", () => {
  const lines = (...texts: string[]) => texts.map((text, i) => ({ line: i + 1, text }));

  it("flags __code__ assignments and replacements of a changed name; leaves other mocking and approved commits alone", () => {
    const agent = commit(BOT);
    const added: ShippedEvidence["added"] = [
      {
        commit: agent,
        files: [
          {
            path: "tests/test_calc.py",
            lines: lines(
              'monkeypatch.setattr(calc, "add", old_add)',
              "calc.add.__code__ = old.__code__",
              'monkeypatch.setattr("pkg.calc.add", old_add)',
              "pkg.calc.add = old_add",
              'with mock.patch.object(calc, "add"):',
              'monkeypatch.setattr(calc, "div", fake)  # div: not changed',
              'monkeypatch.setattr(requests, "get", fake)',
              "self.add = 1",
              "# calc.add = old_add",
              'monkeypatch.setenv("HOME", "/")',
            ),
          },
          // Source code is not judged here.
          { path: "pkg/other.py", lines: lines("calc.add = fast_add") },
        ],
      },
    ];
    const findings = scanShippedReplacement(evidence({ by: agent, added }), POLICY);
    expect(findings.map((f) => [f.file, f.line])).toEqual([
      ["tests/test_calc.py", 1],
      ["tests/test_calc.py", 2],
      ["tests/test_calc.py", 3],
      ["tests/test_calc.py", 4],
      ["tests/test_calc.py", 5],
    ]);
    expect(findings[0]!.message).toContain("replaces add (pkg/calc.py:4-5), which the patch changed");
    expect(findings[1]!.message).toContain("sets a function's __code__");
    const human = commit(ADA, "Gate-Change");
    expect(
      scanShippedReplacement(evidence({ by: agent, added: [{ commit: human, files: added[0]!.files }] }), POLICY),
    ).toEqual([]);
  });
});

describe("shippedCodeFindings: the run's records when there are any, else the added lines", () => {
  it("judges the records and not the added lines once a record was verified", () => {
    const agent = commit(BOT);
    const added: ShippedEvidence["added"] = [
      { commit: agent, files: [{ path: "tests/test_calc.py", lines: [{ line: 1, text: "calc.add = old" }] }] },
    ];
    const shipped = evidence({ by: agent, touched: [[agent, ["tests/test_calc.py"]]], added });
    const runner = (replacedList?: RunReplacement[]): RunnerEvidence => ({
      shadows: [],
      scans: [],
      shipped,
      proof:
        replacedList === undefined
          ? undefined
          : { file: "r.json", leased: [], result: { errors: [], record: { replaced: replacedList } as never } },
    });
    expect(shippedCodeFindings(runner(), POLICY).map((f) => f.line)).toEqual([1]);
    expect(shippedCodeFindings(runner([]), POLICY)).toEqual([]);
    expect(shippedCodeFindings(runner([replaced({})]), POLICY).map((f) => f.line)).toEqual([9]);
    expect(shippedCodeFindings({ ...runner(), shipped: undefined }, POLICY)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import type { CommitPaths } from "../patch/patch.js";
import {
  HYPOTHESIS_SETTINGS_PY,
  judgePropertySettings,
  parsePropertySettingsFile,
  readPropertySettings,
  weakerSettings,
  type PropertySettings,
  type PropertySettingsById,
} from "./property-settings.js";
import { renderPropertyIdsPlugin } from "./property-tests.js";
import { PROOF_PLUGIN_PY as PROOF_PLUGIN_TEMPLATE } from "../pytest-plugins/generated.js";

const commit = commitFactory("e");

/** Hypothesis 6.67's defaults, as the plugin writes them. */
const DEFAULTS: PropertySettings = {
  maxExamples: 100,
  deadlineUs: 200_000,
  phases: ["explain", "explicit", "generate", "reuse", "shrink", "target"],
  derandomize: false,
  database: true,
  suppressHealthCheck: [],
  statefulStepCount: 50,
  seeded: false,
  profile: "default",
};
const RAW = {
  max_examples: 100,
  deadline_us: 200000,
  phases: DEFAULTS.phases,
  derandomize: false,
  database: true,
  suppress_health_check: [],
  stateful_step_count: 50,
  seeded: false,
  profile: "default",
};

describe("weakerSettings: what makes the head's run find less than the base's", () => {
  it.each<[string, Partial<PropertySettings>, [string, string, string][]]>([
    ["the same settings", {}, []],
    [
      "more examples, a shorter deadline, more steps, another profile",
      { maxExamples: 500, deadlineUs: 100_000, statefulStepCount: 80, profile: "ci" },
      [],
    ],
    ["fewer examples", { maxExamples: 5 }, [["max_examples", "100", "5"]]],
    ["fewer stateful steps", { statefulStepCount: 3 }, [["stateful_step_count", "50", "3"]]],
    [
      "a phase dropped",
      { phases: ["explain", "explicit", "reuse"] },
      [
        [
          "phases",
          "explain, explicit, generate, reuse, shrink, target",
          "explain, explicit, reuse (without generate, shrink, target)",
        ],
      ],
    ],
    [
      "only the explain phase dropped (it shapes the report, not the search)",
      { phases: ["explicit", "generate", "reuse", "shrink", "target"] },
      [],
    ],
    [
      "a health check suppressed",
      { suppressHealthCheck: ["filter_too_much", "too_slow"] },
      [["suppress_health_check", "none", "filter_too_much, too_slow"]],
    ],
    ["derandomize turned on", { derandomize: true }, [["derandomize", "False", "True"]]],
    ["a fixed seed", { seeded: true }, [["seed", "random", "fixed"]]],
    ["the database turned off", { database: false }, [["database", "set", "None"]]],
    ["the deadline removed", { deadlineUs: null }, [["deadline", "200ms", "None"]]],
    ["a longer deadline", { deadlineUs: 1_500_000 }, [["deadline", "200ms", "1500ms"]]],
    [
      "several at once, each named",
      { maxExamples: 1, derandomize: true, deadlineUs: null },
      [
        ["max_examples", "100", "1"],
        ["derandomize", "False", "True"],
        ["deadline", "200ms", "None"],
      ],
    ],
  ])("%s", (_name, head, weaker) => {
    expect(weakerSettings(DEFAULTS, { ...DEFAULTS, ...head }).map((w) => [w.setting, w.base, w.head])).toEqual(weaker);
  });

  it("what the base already had is no weakening at head: no deadline, a suppressed check, derandomize", () => {
    const base = {
      ...DEFAULTS,
      deadlineUs: null,
      suppressHealthCheck: ["too_slow"],
      derandomize: true,
      database: false,
    };
    expect(weakerSettings(base, base)).toEqual([]);
    expect(weakerSettings(base, { ...base, deadlineUs: 5_000_000 })).toEqual([]);
  });
});

describe("readPropertySettings and parsePropertySettingsFile", () => {
  it("reads the plugin's object, errors kept as errors", () => {
    expect(readPropertySettings({ "t.py::a": RAW, "t.py::b": { error: "ValueError()" } }, "hypothesis")).toEqual({
      "t.py::a": DEFAULTS,
      "t.py::b": { error: "ValueError()" },
    });
  });

  it.each([
    [[], "hypothesis is not an object"],
    [{ "t.py::a": 1 }, 'hypothesis["t.py::a"] is not an object'],
    [{ "t.py::a": { ...RAW, max_examples: 1.5 } }, 'hypothesis["t.py::a"] is not a settings record'],
    [{ "t.py::a": { ...RAW, deadline_us: "200ms" } }, 'hypothesis["t.py::a"] is not a settings record'],
    [{ "t.py::a": { ...RAW, phases: [1] } }, 'hypothesis["t.py::a"] is not a settings record'],
    [{ "t.py::a": { ...RAW, database: null } }, 'hypothesis["t.py::a"] is not a settings record'],
  ])("%j: %s", (value, message) => {
    expect(readPropertySettings(value, "hypothesis")).toEqual(expect.stringContaining(message));
  });

  it("one object a session, merged; a bad line names its line", () => {
    const text = `${JSON.stringify({ "t.py::a": RAW })}\n\n${JSON.stringify({ "u.py::b": { ...RAW, max_examples: 7 } })}\n`;
    expect(parsePropertySettingsFile(text, "settings")).toEqual({
      settings: { "t.py::a": DEFAULTS, "u.py::b": { ...DEFAULTS, maxExamples: 7 } },
      errors: [],
    });
    expect(parsePropertySettingsFile(`{}\nnot json\n`, "settings").errors).toEqual([
      expect.objectContaining({ code: "universe_invalid", file: "settings", line: 2 }),
    ]);
  });

  it("both plugins carry the one reader of the settings, and call it", () => {
    const ids = renderPropertyIdsPlugin("/tmp/ids.jsonl", "a".repeat(40), "/tmp/settings.jsonl");
    expect(ids).toContain('PROOFGATE_SETTINGS_FILE = "/tmp/settings.jsonl"');
    expect(ids).toContain(HYPOTHESIS_SETTINGS_PY);
    expect(ids).toContain("settings = _proofgate_hypothesis_settings(item)");
    expect(renderPropertyIdsPlugin("/tmp/ids.jsonl", "a".repeat(40))).toContain("PROOFGATE_SETTINGS_FILE = None");
    expect(PROOF_PLUGIN_TEMPLATE.endsWith(HYPOTHESIS_SETTINGS_PY)).toBe(true);
    expect(PROOF_PLUGIN_TEMPLATE).toContain("        _hypothesis_seen(self.run, item)\n        try:");
  });
});

describe("judgePropertySettings: weaker at head than at the base is property_weakened", () => {
  const FILE = "tests/properties/test_hyp.py";
  const A = `${FILE}::test_a`;
  const B = `${FILE}::test_b`;
  const base: PropertySettingsById = { [A]: DEFAULTS, [B]: DEFAULTS, "tests/x.py::gone": DEFAULTS };
  const judge = (head: PropertySettingsById, commits: ReturnType<typeof commit>[], touched: CommitPaths[] = []) =>
    judgePropertySettings(
      {
        base: { file: "base", settings: base },
        head: { file: "head", settings: head },
        touched,
        renames: [],
        collectionFiles: [],
      },
      { commits, policy: POLICY },
    );

  it("an agent's commit on the test file: the tests, the settings with both values, the commit and its author", () => {
    const a = commit(BOT);
    const j = judge({ [A]: { ...DEFAULTS, maxExamples: 3 }, [B]: DEFAULTS }, [a], [{ commit: a, paths: [FILE] }]);
    expect(j).toMatchObject({ compared: 2, weakened: 1 });
    expect(j.findings).toEqual([
      {
        reason: "property_weakened",
        message: `1 property test(s) of ${FILE} ran with weaker Hypothesis settings than at the base: test_a (max_examples 100 at the base, 3 at head); commit ${a.sha.slice(0, 12)} is an agent's (author "patchbot[bot] <patchbot@example.org>" matches "*[bot]*"; committer "patchbot[bot] <patchbot@example.org>" matches "*[bot]*")`,
        file: FILE,
        commit: a.sha,
        author: "patchbot[bot] <patchbot@example.org>",
        fix: "restore the settings the base runs them with (wherever they come from: a @settings, a helper, a profile, a fixture); a human who means to run them weaker does so in a commit with `Property-Seeds: human`",
      },
    ]);
  });

  it("settings that came through code the test imports (no commit touched its file): the commit that changed the code answers", () => {
    const a = commit(BOT);
    const j = judge(
      { [A]: { ...DEFAULTS, derandomize: true }, [B]: { ...DEFAULTS, maxExamples: 1 } },
      [a],
      [{ commit: a, paths: ["pkg/proptools.py"] }],
    );
    expect(j.findings.map((f) => [f.file, f.commit])).toEqual([[FILE, a.sha]]);
    expect(j.findings[0]!.message).toContain(
      "2 property test(s) of tests/properties/test_hyp.py ran with weaker Hypothesis settings than at the base: test_a (derandomize False at the base, True at head); test_b (max_examples 100 at the base, 1 at head); commit",
    );
    // A human's trailer on another commit of the range does not answer for the agent's.
    const ok = commit(ADA, "Property-Seeds");
    const both = judge({ [A]: { ...DEFAULTS, maxExamples: 1 } }, [a, ok], [{ commit: a, paths: ["pkg/proptools.py"] }]);
    expect(both.findings.map((f) => f.commit)).toEqual([a.sha]);
  });

  it("settings weaker and nothing but documentation changed: one finding without a commit", () => {
    const a = commit(BOT);
    const j = judge({ [A]: { ...DEFAULTS, maxExamples: 1 } }, [a], [{ commit: a, paths: ["README.md"] }]);
    expect(j.findings.map((f) => [f.file, f.commit])).toEqual([[FILE, undefined]]);
    expect(j.findings[0]!.message).toContain("no commit in the range touched");
  });

  it("a human's `Property-Seeds: human` approves it; a human without it, or an agent with it, does not", () => {
    const weaker = { [A]: { ...DEFAULTS, maxExamples: 3 } };
    const ok = commit(ADA, "Property-Seeds");
    expect(judge(weaker, [ok], [{ commit: ok, paths: [FILE] }]).findings).toEqual([]);
    expect(judge(weaker, [ok]).findings).toEqual([]);
    const bare = commit(ADA);
    expect(judge(weaker, [bare], [{ commit: bare, paths: [FILE] }]).findings[0]!.message).toContain(
      "lacks `Property-Seeds: human`",
    );
    const faker = commit(BOT, "Property-Seeds");
    expect(judge(weaker, [faker], [{ commit: faker, paths: [FILE] }]).findings[0]!.message).toContain("is an agent's");
  });

  it("a base property test whose body ran at head with no settings (its @given gone, or hidden): a finding", () => {
    const a = commit(BOT);
    const j = judgePropertySettings(
      {
        base: { file: "base", settings: { [A]: DEFAULTS, [B]: DEFAULTS } },
        head: { file: "head", settings: {}, ran: [A] },
        touched: [],
        renames: [],
        collectionFiles: [],
      },
      { commits: [a], policy: POLICY },
    );
    expect(j).toMatchObject({ compared: 1, weakened: 1 });
    expect(j.findings[0]!.message).toContain("test_a (ran at head as no Hypothesis test)");
    expect(j.findings[0]!.message).not.toContain("test_b");
  });

  it("settings the head could not read are a finding; a test not run at head, or unreadable at the base, is not compared here", () => {
    const a = commit(BOT);
    const j = judge({ [A]: { error: "RuntimeError('x')" } }, [a]);
    expect(j).toMatchObject({ compared: 1, weakened: 1 });
    expect(j.findings[0]!.message).toContain("test_a (settings unreadable at head (RuntimeError('x')))");
    const unreadable = judgePropertySettings(
      {
        base: { file: "base", settings: { [A]: { error: "x" } } },
        head: { file: "head", settings: { [A]: { ...DEFAULTS, maxExamples: 1 } } },
        touched: [],
        renames: [],
        collectionFiles: [],
      },
      { commits: [a], policy: POLICY },
    );
    expect(unreadable).toMatchObject({ findings: [], compared: 0 });
  });
});

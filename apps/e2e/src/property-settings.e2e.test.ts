// Issue 21 item 9, end to end with the real pytest 7.2, hypothesis 6.67 and git: the property run's record
// carries each Hypothesis test's settings as it ran, the base's property run reads the base's, and weaker
// settings at head are `property_weakened` however they were made. Here through a settings object defined in
// a helper module that is no test file (the static rule on property test files cannot see it).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  proofPluginModuleName,
  proofRunEnvironment,
  renderProofPlugin,
  verifyRunRecord,
} from "@proofgate/core/proof-run";
import { renderPropertyIdsPlugin } from "@proofgate/core";
import {
  AGENT,
  HUMAN,
  check,
  config,
  makeCheckProject,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";
import { makeProject, python } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The project's shared Hypothesis settings in the package (as libraries ship their strategies): no test file. */
const TOOLS = (examples: number, extra = ""): string => `from hypothesis import settings

thorough = settings(max_examples=${examples}, derandomize=True, database=None${extra})
`;
const TOOLS_FILE = "pkg/proptools.py";

const HYP = `from hypothesis import given, strategies as st

from pkg.proptools import thorough
from pkg.calc import decode, encode, total


@thorough
@given(st.text())
def test_codec_roundtrip(text):
    assert decode(encode(text)) == text


@thorough
@given(st.lists(st.integers(min_value=0)))
def test_total_is_sum(prices):
    assert total(prices) == sum(prices)
`;
const HYP_FILE = "tests/properties/test_hyp.py";

const GITIGNORE =
  "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-report/\n__pycache__/\n.hypothesis/\n";

function project(
  patch: Record<string, FileChange>,
  o: { who?: Identity; message?: string; base?: Record<string, FileChange>; mergePatch?: boolean } = {},
): Project {
  const p = makeCheckProject({
    ...(o.mergePatch === undefined ? {} : { mergePatch: o.mergePatch }),
    base: { ".gitignore": GITIGNORE, [TOOLS_FILE]: TOOLS(50), [HYP_FILE]: HYP, ...o.base },
    patch: [{ message: o.message ?? "Faster property tests\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

const row = (r: CheckRun) => r.report.signals.find((s) => s.id === "property_hold")!;

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

describe("check --run: Hypothesis settings as they ran, compared with the base's run of the same test", () => {
  it.concurrent(
    "an agent lowers max_examples in a helper module no property test file shows: REJECT property_weakened naming the tests and the setting",
    async () => {
      const p = project({ [TOOLS_FILE]: TOOLS(2) });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
      expect(r.status).toBe(1);
      // No commit touched the test file: the settings came through the helper it imports, so each commit
      // that changed code answers (the project's agent commit of pkg/calc.py, and the helper's).
      expect(r.report.details.map((d) => [d.reason, d.file, d.commit, d.author])).toEqual(
        p.commits.map((sha) => ["property_weakened", HYP_FILE, sha, "patchbot[bot] <patchbot@example.org>"]),
      );
      const message = r.report.details[0]!.message;
      expect(message).toContain(
        `2 property test(s) of ${HYP_FILE} ran with weaker Hypothesis settings than at the base: `,
      );
      expect(message).toContain("test_codec_roundtrip (max_examples 50 at the base, 2 at head)");
      expect(message).toContain("test_total_is_sum (max_examples 50 at the base, 2 at head)");
      expect(message).toContain(`commit ${p.commits[0]!.slice(0, 12)} is an agent's`);
      expect((r.report.details[0] as unknown as { fix: string }).fix).toContain("`Property-Seeds: human`");
      expect(row(r).result).toBe("fail");
      expect(row(r).value).toContain("Hypothesis settings of 2 compared with the base's, 2 weaker");
      // The base's settings came from its own property run (the `base properties` step), as an input.
      expect(r.report.inputs).toContainEqual(
        expect.objectContaining({
          role: "base_properties",
          path: `property test settings (collected at base ${p.base.slice(0, 12)})`,
        }),
      );
    },
  );

  it.concurrent("several settings at once are each named: a deadline removed, a health check suppressed", async () => {
    const base = { [TOOLS_FILE]: TOOLS(50, ", deadline=1000") };
    const p = project(
      {
        [TOOLS_FILE]: TOOLS(50, ", deadline=None, suppress_health_check=[HealthCheck.too_slow]").replace(
          "import settings",
          "import HealthCheck, settings",
        ),
      },
      { base },
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
    const message = r.report.details[0]!.message;
    expect(message).toContain("suppress_health_check none at the base, too_slow at head");
    expect(message).toContain("deadline 1000ms at the base, None at head");
    expect(message).not.toContain("max_examples");
  });

  it.concurrent("the same change by a human with `Property-Seeds: human`: MERGE", async () => {
    const p = project(
      { [TOOLS_FILE]: TOOLS(2) },
      { who: HUMAN, message: "Faster CI\n\nProperty-Seeds: human\n", mergePatch: false },
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(row(r).value).toContain("Hypothesis settings of 2 compared with the base's, 2 weaker");
  });

  it.concurrent(
    "the human's trailer answers for the human's commit only: an agent's code commit beside it still answers",
    async () => {
      const p = project({ [TOOLS_FILE]: TOOLS(2) }, { who: HUMAN, message: "Faster CI\n\nProperty-Seeds: human\n" });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
      // Only the agent's commit (pkg/calc.py) is named, not the human's.
      expect(r.report.details.map((d) => d.commit)).toEqual([p.commits[0]]);
    },
  );

  it.concurrent("settings unchanged, or made stronger, by an agent: MERGE", async () => {
    const p = project({ [TOOLS_FILE]: `# shared settings\n${TOOLS(80)}` });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(row(r).value).toContain("Hypothesis settings of 2 compared with the base's, 0 weaker");
  });
});

describe("[properties] judge_tests: the property-test rule apart from the seed signals", () => {
  const withProperties = (keys: string) => ({
    "proofgate.toml": config().replace(
      '[properties]\nresults = ["properties.xml"]\n',
      `[properties]\nresults = ["properties.xml"]\n${keys}`,
    ),
  });

  it.concurrent(
    "enabled = false with judge_tests = true: the seeds are off, the weakened settings REJECT",
    async () => {
      const p = project({ [TOOLS_FILE]: TOOLS(2) }, { base: withProperties("enabled = false\njudge_tests = true\n") });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
      expect(r.report.details[0]!.message).toContain("test_codec_roundtrip (max_examples 50 at the base, 2 at head)");
      expect(row(r).result).toBe("fail");
      expect(row(r).value).toMatch(
        /^off: \[properties\] enabled = false in proofgate.toml at [0-9a-f]{12}; property tests still judged/,
      );
    },
  );

  it.concurrent("enabled = false alone (a config written before the key): both off, as before: MERGE", async () => {
    const p = project({ [TOOLS_FILE]: TOOLS(2) }, { base: withProperties("enabled = false\n") });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(row(r).value).toMatch(/^off: \[properties\] enabled = false in proofgate.toml at [0-9a-f]{12}$/);
  });

  it.concurrent(
    "judge_tests = false with the seeds on: the seeds are judged, the settings are not: MERGE",
    async () => {
      const p = project({ [TOOLS_FILE]: TOOLS(2) }, { base: withProperties("judge_tests = false\n") });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual([]);
      expect(row(r).result).toBe("pass");
      expect(row(r).value).toMatch(/^0 failures of \d+ cases; 2 seeds at head, 0 touched$/);
    },
  );
});

describe("the record: each Hypothesis test's settings as it was about to run (the real plugin, pytest 7.2, hypothesis 6.67)", () => {
  const TESTS = `import pytest
from hypothesis import HealthCheck, given, seed, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule


@given(st.integers())
def test_defaults(x):
    pass


@seed(3)
@settings(max_examples=7, deadline=250, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers())
def test_tuned(x):
    pass


@given(st.integers())
def test_swapped(x):
    pass


class Machine(RuleBasedStateMachine):
    @rule()
    def step(self):
        pass


Machine.TestCase.settings = settings(stateful_step_count=4, max_examples=3, deadline=None)
TestMachine = Machine.TestCase


def test_plain():
    pass
`;
  // A fixture that swaps a settings object once the tests run: the head's record, read just before the body,
  // has the swapped one; the base's plugin reads at the end of the collection (no fixture runs there).
  const CONFTEST = `import pytest
from hypothesis import settings


@pytest.fixture(autouse=True, scope="session")
def swap(request):
    for item in request.session.items:
        if item.name == "test_swapped":
            item.obj._hypothesis_internal_use_settings = settings(max_examples=2, derandomize=True, database=None)
`;

  it("records @given and state-machine settings, a fixture's swap as it ran, and no entry for a plain test; the base's plugin reads them at collection", () => {
    const dir = makeProject({ "tests/test_props.py": TESTS, "tests/conftest.py": CONFTEST });
    made.push(dir);
    const nonce = randomBytes(16).toString("hex");
    const key = randomBytes(32).toString("hex");
    const out = join(dir, "proofgate-report");
    const pluginDir = join(out, "pytest");
    mkdirSync(pluginDir, { recursive: true });
    const moduleName = proofPluginModuleName(nonce);
    writeFileSync(
      join(pluginDir, `${moduleName}.py`),
      renderProofPlugin({ today: "2026-09-20", active: [] }, { ledgerFile: "freeze.toml", exclude: [out] }),
    );
    const record = join(out, "run-record.json");
    const env = proofRunEnvironment({
      nonce,
      key,
      record,
      root: dir,
      pluginDir,
      moduleName,
      inherited: {},
      delimiter: ":",
    });
    const run = python(["-m", "pytest", "-p", "no:cacheprovider", "-q", "tests"], dir, env);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const verified = verifyRunRecord(existsSync(record) ? readFileSync(record, "utf8") : undefined, {
      nonce,
      key,
      file: "run-record.json",
    });
    expect(verified.errors).toEqual([]);
    const phases = ["explicit", "generate", "reuse", "shrink", "target"];
    const common = { phases, suppressHealthCheck: [], seeded: false, profile: "default" };
    expect(verified.record!.hypothesis).toEqual({
      "tests/test_props.py::test_defaults": {
        ...common,
        maxExamples: 100,
        deadlineUs: 200_000,
        derandomize: false,
        database: true,
        statefulStepCount: 50,
      },
      "tests/test_props.py::test_tuned": {
        ...common,
        maxExamples: 7,
        deadlineUs: 250_000,
        derandomize: false,
        // Hypothesis runs a test with a fixed @seed without its database.
        database: false,
        suppressHealthCheck: ["too_slow"],
        statefulStepCount: 50,
        seeded: true,
      },
      "tests/test_props.py::test_swapped": {
        ...common,
        maxExamples: 2,
        deadlineUs: 200_000,
        derandomize: true,
        database: false,
        statefulStepCount: 50,
      },
      "tests/test_props.py::TestMachine::runTest": {
        ...common,
        maxExamples: 3,
        deadlineUs: null,
        derandomize: false,
        database: true,
        statefulStepCount: 4,
      },
    });

    // The base's plugin: the same reader at the end of the collection, every test deselected.
    const ids = join(out, "base", "ids.jsonl");
    const found = join(out, "base", "settings.jsonl");
    mkdirSync(join(out, "base"), { recursive: true });
    writeFileSync(join(out, "base", "proofgate_property_ids.py"), renderPropertyIdsPlugin(ids, "a".repeat(40), found));
    const base = python(
      ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "proofgate_property_ids", "tests"],
      dir,
      {
        PYTHONPATH: join(out, "base"),
      },
    );
    expect(base.status, base.stdout + base.stderr).toBe(0);
    const atBase = JSON.parse(readFileSync(found, "utf8").trim()) as Record<string, { max_examples: number }>;
    expect(Object.keys(atBase).sort()).toEqual(Object.keys(verified.record!.hypothesis!).sort());
    expect(atBase["tests/test_props.py::test_swapped"]!.max_examples).toBe(100);
    expect(atBase["tests/test_props.py::test_tuned"]!.max_examples).toBe(7);
  });
});

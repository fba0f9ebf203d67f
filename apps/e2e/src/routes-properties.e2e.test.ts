// Issue 15, route 6, end to end with the real pytest 7.2, hypothesis and git: the property suite is judged
// with the seeds. An agent that lowers max_examples, narrows a strategy, deletes a property test (the
// function or its file) or renames it out of the collection gets REJECT with `property_weakened`, naming
// the file, the commit and its author; the same change by a human with `Property-Seeds: human` is MERGE.
// `check --run` runs the base's [commands] properties in the base's worktree with a plugin that writes the
// ids it would run (the "base properties" step), and compares them with the head's recorded property run.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  COLLECT,
  HUMAN,
  TEST_A,
  check,
  config,
  git,
  makeCheckProject,
  proofCommand,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Two hypothesis properties in the property suite's folder; derandomized and without a database (no files left). */
const HYP = `from hypothesis import given, settings, strategies as st

from pkg.calc import decode, encode, total


@settings(max_examples=50, derandomize=True, database=None)
@given(st.text())
def test_codec_roundtrip(text):
    assert decode(encode(text)) == text


@settings(max_examples=50, derandomize=True, database=None)
@given(st.lists(st.integers(min_value=0)))
def test_total_is_sum(prices):
    assert total(prices) == sum(prices)
`;
const HYP_FILE = "tests/properties/test_hyp.py";
const HYP_IDS = [`${HYP_FILE}::test_codec_roundtrip`, `${HYP_FILE}::test_total_is_sum`];

/** A property test outside the folder: it imports hypothesis, so it is judged with the seeds too. */
const FUZZ = `from hypothesis import given, settings, strategies as st

from pkg.calc import label


@settings(max_examples=30, derandomize=True, database=None)
@given(st.integers(min_value=0, max_value=1000))
def test_small_labels(n):
    assert label(n) == "small"
`;
const FUZZ_FILE = "tests/test_fuzz.py";

const GITIGNORE =
  "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-report/\n__pycache__/\n.hypothesis/\n";

function project(
  patch: Record<string, FileChange>,
  o: { who?: Identity; message?: string; base?: Record<string, FileChange> } = {},
): Project {
  const p = makeCheckProject({
    base: { ".gitignore": GITIGNORE, [HYP_FILE]: HYP, [FUZZ_FILE]: FUZZ, ...o.base },
    patch: [{ message: o.message ?? "Faster property tests\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

const short = (sha: string): string => sha.slice(0, 12);
const agent = `${AGENT.name} <${AGENT.email}>`;

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

/** Git worktrees the repository knows besides its own work tree. */
function worktrees(dir: string): string[] {
  return git(dir, ["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length))
    .filter((path) => path !== dir);
}

/** 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

interface Route {
  name: string;
  files: Record<string, FileChange>;
  /** The findings as (file, line), the agent's commit on each, in report order. */
  findings: [file: string, line: number | null][];
  /** What the messages must name, finding by finding. */
  names: string[][];
  /** How many of the base's 3 property tests (test_props.py's and test_hyp.py's; test_fuzz.py is the proof run's) ran at head. */
  ran: number;
}

const FEWER = HYP.replace(
  "max_examples=50, derandomize=True, database=None)\n@given(st.text())",
  "max_examples=1, derandomize=True, database=None)\n@given(st.text())",
);
const NARROW = HYP.replace("st.integers(min_value=0)", "st.integers(0, 1)");
const WITHOUT_SUM =
  HYP.slice(0, HYP.indexOf("\n\n@settings(max_examples=50, derandomize=True, database=None)\n@given(st.lists")) + "\n";
const UNCOLLECTED = HYP.replace("def test_total_is_sum", "def check_total_is_sum");

const ROUTES: Route[] = [
  {
    name: "(a) a lowered max_examples",
    files: { [HYP_FILE]: FEWER },
    // The file changed, and the test ran with fewer examples than at the base (issue 21 item 9).
    findings: [
      [HYP_FILE, lineOf(FEWER, "max_examples=1")],
      [HYP_FILE, null],
    ],
    names: [
      [`and changes property tests, which are judged with the seeds: ${HYP_FILE}`],
      [
        `1 property test(s) of ${HYP_FILE} ran with weaker Hypothesis settings than at the base: test_codec_roundtrip (max_examples 50 at the base, 1 at head)`,
      ],
    ],
    ran: 3,
  },
  {
    name: "(a) a lowered max_examples in a test file outside tests/properties that imports hypothesis",
    files: { [FUZZ_FILE]: FUZZ.replace("max_examples=30", "max_examples=1") },
    findings: [[FUZZ_FILE, 6]],
    names: [[`which are judged with the seeds: ${FUZZ_FILE}`]],
    ran: 3,
  },
  {
    name: "(b) a narrowed strategy: st.integers() to st.integers(0, 1)",
    files: { [HYP_FILE]: NARROW },
    findings: [[HYP_FILE, lineOf(NARROW, "st.integers(0, 1)")]],
    names: [[HYP_FILE]],
    ran: 3,
  },
  {
    name: "(c) a deleted property test function",
    files: { [HYP_FILE]: WITHOUT_SUM },
    findings: [
      [HYP_FILE, null],
      [HYP_FILE, null],
    ],
    names: [
      [HYP_FILE],
      [
        `1 property test(s) of ${HYP_FILE} that the base runs did not run at head: ${HYP_IDS[1]}`,
        `and touched ${HYP_FILE}`,
      ],
    ],
    ran: 2,
  },
  {
    name: "(c) a deleted property test file",
    files: { [HYP_FILE]: null },
    findings: [
      [HYP_FILE, null],
      [HYP_FILE, null],
    ],
    names: [
      [HYP_FILE],
      [`2 property test(s) of ${HYP_FILE} that the base runs did not run at head: ${HYP_IDS.join(", ")}`],
    ],
    ran: 1,
  },
  {
    name: "(d) a property test renamed so that pytest does not collect it",
    files: { [HYP_FILE]: UNCOLLECTED },
    findings: [
      [HYP_FILE, lineOf(UNCOLLECTED, "def check_total_is_sum")],
      [HYP_FILE, null],
    ],
    names: [[HYP_FILE], [`did not run at head: ${HYP_IDS[1]}`]],
    ran: 2,
  },
];

describe("check --run: each route, by an agent, is REJECT with property_weakened naming the file, the commit and its author", () => {
  it.concurrent.each(ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const p = project(route.files);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
    expect(r.status).toBe(1);
    const commit = p.commits[1]!;
    expect(r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author])).toEqual(
      route.findings.map(([file, line]) => ["property_weakened", file, line, commit, agent]),
    );
    route.names.forEach((names, i) => {
      const d = r.report.details[i]!;
      for (const name of names) expect(d.message).toContain(name);
      expect(d.message).toContain(`commit ${short(commit)} is an agent's`);
      expect((d as unknown as { fix: string }).fix).toContain("`Property-Seeds: human`");
    });
    const row = r.report.signals.find((s) => s.id === "property_hold")!;
    expect(row.result).toBe("fail");
    expect(row.value).toContain(`${route.ran} of 3 base property tests ran`);
    expect(r.stderr).toContain("▶ base properties");
    expect(r.report.inputs.map((i) => i.role)).toContain("base_properties");
    expect(worktrees(p.dir)).toEqual([]);
  });
});

describe("check --run: the same change by a human with `Property-Seeds: human` is MERGE", () => {
  it.concurrent.each(ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const p = project(route.files, { who: HUMAN, message: "Retune the properties\n\nProperty-Seeds: human\n" });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    const retired = 3 - route.ran;
    expect(r.report.signals.find((s) => s.id === "property_hold")).toMatchObject({
      result: "pass",
      value: expect.stringContaining(
        `1 property test file touched; ${route.ran} of 3 base property tests ran${retired ? ` (${retired} retired with a human's trailer)` : ""}`,
      ),
    });
  });
});

describe("check --run: what is not a weakened property", () => {
  it("an agent's reformat and comment in a test file that is no property test: MERGE, every base property ran", async () => {
    const p = project({
      "tests/test_a.py": `# the calculator's tests\n${TEST_A.replace("def test_total():", "def test_total() :")}`,
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    const row = r.report.signals.find((s) => s.id === "property_hold")!;
    expect(row).toMatchObject({ result: "pass" });
    expect(row.value).toMatch(
      /; 0 property test files touched; 3 of 3 base property tests ran; Hypothesis settings of 2 compared with the base's, 0 weaker$/,
    );
    expect(row.value).toMatch(/^0 failures of 3 cases; 2 seeds at head, 0 touched/);
    // The base's run collected its ids and ran nothing: the ids file holds the base's four.
    const ids = readFileSync(join(p.dir, "proofgate-report", "base-properties", "property-ids.jsonl"), "utf8");
    expect((JSON.parse(ids.trim()) as string[]).sort()).toEqual(
      [...HYP_IDS, "tests/properties/test_props.py::test_roundtrip_on_seeds"].sort(),
    );
    expect(r.report.inputs).toContainEqual(
      expect.objectContaining({
        role: "base_properties",
        path: `property test ids (collected at base ${short(p.base)})`,
      }),
    );
  });

  it("a Hypothesis profile loaded from a source module, no property test touched: runner_tampering; a human's with `Gate-Change: human`: MERGE", async () => {
    const PROFILE =
      'from hypothesis import settings\n\nsettings.register_profile("fast", max_examples=1)\nsettings.load_profile("fast")\n';
    const p = project({ "pkg/__init__.py": PROFILE });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["runner_tampering"]);
    expect(r.status).toBe(1);
    expect(r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author])).toEqual([
      ["runner_tampering", "pkg/__init__.py", 3, p.commits[1], agent],
    ]);
    expect(r.report.details[0]!.message).toContain(
      "changes Hypothesis's settings for every property (a profile) (line 3, 4)",
    );
    const human = project(
      { "pkg/__init__.py": PROFILE },
      { who: HUMAN, message: "A faster profile\n\nGate-Change: human\n" },
    );
    const h = await check(human.dir, ["--run", "--base", human.base, "--format", "json"]);
    expect(h.report.reasons, explain(h)).toEqual([]);
    expect(h.status).toBe(0);
  });

  it("the trailer's name is the base's [trailers] property_seeds", async () => {
    const base = { "proofgate.toml": config({ extra: '\n[trailers]\nproperty_seeds = "Props-Approved"\n' }) };
    const named = project(
      { [HYP_FILE]: WITHOUT_SUM },
      { who: HUMAN, base, message: "Retire\n\nProps-Approved: human\n" },
    );
    const r = await check(named.dir, ["--run", "--base", named.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    const old = project(
      { [HYP_FILE]: WITHOUT_SUM },
      { who: HUMAN, base, message: "Retire\n\nProperty-Seeds: human\n" },
    );
    const refused = await check(old.dir, ["--run", "--base", old.base, "--format", "json"]);
    expect(refused.report.reasons, explain(refused)).toEqual(["property_weakened"]);
    expect(refused.report.details.map((d) => d.message).join("\n")).toContain("lacks `Props-Approved: human`");
  });

  it("a base whose property suite does not collect: exit 2 naming the command, the worktree removed", async () => {
    // The base's property module cannot be imported; the head fixes it (the base still cannot be judged).
    const p = project({ [HYP_FILE]: HYP }, { base: { [HYP_FILE]: `import not_a_module\n${HYP}` } });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.errors[0]).toMatchObject({ code: "universe_invalid", file: `proofgate.toml at ${short(p.base)}` });
    expect(r.report.errors[0]!.message).toContain("[commands] properties (`");
    expect(r.report.errors[0]!.message).toContain(`exited with 2 on the base ${short(p.base)}`);
    expect(r.stderr).toContain("▶ base properties");
    expect(worktrees(p.dir)).toEqual([]);
  });
});

describe("a project with hypothesis tests and no seed corpus (the property signals off for want of seeds)", () => {
  // Most projects that use hypothesis keep no seed corpus: the seed signals are off by default there, and
  // the property tests are still judged, or an agent could lower max_examples unseen.
  const NO_SEEDS = {
    "tests/properties/seeds/ascii.txt": null,
    "tests/properties/seeds/unicode.txt": null,
    "tests/properties/test_props.py": null,
    [HYP_FILE]: null,
    "proofgate.toml": `[coverage]\nreports = ["proven_coverage.json"]\nmin_proven = 80\n\n[results]\njunit = ["results.xml"]\n\n[commands]\ncollect = ${JSON.stringify(COLLECT)}\nproof = ${JSON.stringify(proofCommand())}\n`,
  };
  const FEWER_FUZZ = FUZZ.replace("max_examples=30", "max_examples=1");

  it.each([
    ["no [properties] table", ""],
    [
      "[properties] with every key commented out (as init writes it)",
      '\n[properties]\n# enabled = true\n# tests = ["tests/properties"]\n',
    ],
  ])(
    "%s: an agent lowers max_examples in a hypothesis test: REJECT property_weakened, the row says why it is judged",
    async (_name, table) => {
      const p = project(
        { [FUZZ_FILE]: FEWER_FUZZ },
        { base: { ...NO_SEEDS, "proofgate.toml": `${NO_SEEDS["proofgate.toml"]}${table}` } },
      );
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["property_weakened"]);
      expect(r.status).toBe(1);
      expect(r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author])).toEqual([
        ["property_weakened", FUZZ_FILE, lineOf(FEWER_FUZZ, "max_examples=1"), p.commits[1], agent],
      ]);
      const row = r.report.signals.find((s) => s.id === "property_hold")!;
      expect(row.result).toBe("fail");
      expect(row.value).toBe(
        "off: no seeds in tests/properties/seeds at the base or head (on by default once there are); property tests still judged: 1 property test file touched",
      );
    },
  );

  it("the same change by a human with `Property-Seeds: human`: MERGE, and the row stays off", async () => {
    const p = project(
      { [FUZZ_FILE]: FEWER_FUZZ },
      { base: NO_SEEDS, who: HUMAN, message: "Faster\n\nProperty-Seeds: human\n" },
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.signals.find((s) => s.id === "property_hold")!.result).toBe("off");
  });

  it("`[properties] enabled = false` in the base's config is a human's choice: the property tests are not judged", async () => {
    const off = { ...NO_SEEDS, "proofgate.toml": `${NO_SEEDS["proofgate.toml"]}\n[properties]\nenabled = false\n` };
    const p = project({ [FUZZ_FILE]: FEWER_FUZZ }, { base: off });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.report.signals.find((s) => s.id === "property_hold")!.value).toMatch(
      /^off: \[properties\] enabled = false in proofgate.toml at [0-9a-f]{12}$/,
    );
  });
});

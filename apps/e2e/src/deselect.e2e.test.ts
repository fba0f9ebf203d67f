// proofgate deselect against the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3:
// a small project with awkward ids, collected for real, three leases, and every output format used
// the way a CI job uses it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, passed, proofgate, pytest, python, writeText } from "./helpers.js";

const SOURCE = `def add(a, b):
    return a + b


def frozen_only(x):
    if x > 0:
        return x * 2  # only test_x
    return -x  # nobody


def slow_only():
    return "slow"  # only test_x_slow


def describe(word):
    if " " in word:
        return "spaced"  # only test_words[hello world]
    if not word.isascii():
        return "non-ascii"  # only test_words[caf\\xe9]
    return "plain"
`;

const TEST_A = `import pytest
from calc import add, describe, frozen_only, slow_only


@pytest.mark.parametrize("word", ["hello world", "café", "plain"])
def test_words(word):
    assert describe(word) in ("spaced", "non-ascii", "plain")


def test_x():
    assert frozen_only(3) == 6


def test_x_slow():
    assert slow_only() == "slow"


class TestGroup:
    def test_one(self):
        assert add(2, 2) == 4

    @pytest.mark.parametrize("n", [1, 2])
    def test_two(self, n):
        assert add(n, 0) == n
`;

const TEST_B = `from calc import add


def test_b():
    assert add(0, 0) == 0
`;

const FILES = {
  "pytest.ini": "[pytest]\n",
  "calc/__init__.py": SOURCE,
  "tests/test_a.py": TEST_A,
  "pkg/tests/test_b.py": TEST_B,
};

// The ids as pytest 7.2 prints them: non-ASCII parameters escaped, spaces kept.
const X = "tests/test_a.py::test_x";
const X_SLOW = "tests/test_a.py::test_x_slow";
const SPACED = "tests/test_a.py::test_words[hello world]";
const CAFE = "tests/test_a.py::test_words[caf\\xe9]";
const ALL = [
  "pkg/tests/test_b.py::test_b",
  SPACED,
  CAFE,
  "tests/test_a.py::test_words[plain]",
  X,
  X_SLOW,
  "tests/test_a.py::TestGroup::test_one",
  "tests/test_a.py::TestGroup::test_two[1]",
  "tests/test_a.py::TestGroup::test_two[2]",
];
const LEASED = [X, SPACED, CAFE];
const without = (drop: readonly string[]): string[] => ALL.filter((id) => !drop.includes(id)).sort();

// TOML literal strings hold the ids byte for byte (the backslash of `caf\xe9` included).
const FREEZE = `version = 1
max_active_leases = 3
${LEASED.map(
  (id, i) => `
[[leases]]
nodeid = '${id}'
owner = "owner${i}"
reason = "e2e"
expires = "2099-12-31"
`,
).join("")}`;

const dirs: string[] = [];
let dir = "";

beforeAll(() => {
  dir = makeProject(FILES);
  dirs.push(dir);
  const collect = pytest(["--collect-only", "-q"], dir);
  expect(collect.status, collect.stdout + collect.stderr).toBe(0);
  writeText(join(dir, "collected.txt"), collect.stdout);
  writeText(join(dir, "freeze.toml"), FREEZE);
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const DESELECT = ["deselect", "--freeze", "freeze.toml", "--collected", "collected.txt"];

function writePlugin(): string {
  const r = proofgate([...DESELECT, "--format", "plugin", "--out", "plugin/proofgate_frozen.py"], dir);
  expect(r.status, r.stderr).toBe(0);
  return join(dir, "plugin");
}

describe("the collected universe", () => {
  it("is what pytest printed, and proofgate reads it", () => {
    const lines = readFileSync(join(dir, "collected.txt"), "utf8").split("\n");
    expect(lines.slice(0, ALL.length)).toEqual(ALL);
    expect(lines[ALL.length + 1]).toMatch(/^9 tests collected in /);

    const lint = proofgate(["ledger", "lint", "--freeze", "freeze.toml", "--collected", "collected.txt"], dir);
    expect(lint.status, lint.stderr).toBe(0);

    const json = proofgate([...DESELECT, "--format", "json"], dir);
    expect(json.status, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as { deselected: string[]; prefix_collateral: unknown[] };
    expect(plan.deselected).toEqual(LEASED);
    expect(plan.prefix_collateral).toEqual([{ lease: X, also_dropped_by_plain_deselect: [X_SLOW] }]);
  });
});

describe("--format args", () => {
  it("is pytest's prefix --deselect: it drops test_x_slow too, and proofgate says so", () => {
    const r = proofgate([...DESELECT, "--format", "args"], dir);
    expect(r.status, r.stderr).toBe(0);
    const args = r.stdout.split("\n").filter((l) => l !== "");
    expect(args).toEqual(LEASED.map((id) => `--deselect=${id}`));
    expect(r.stderr).toMatch(/prefix/);
    expect(r.stderr).toContain(`--deselect=${X} also drops: ${X_SLOW}`);
    expect(r.stderr).toContain("--format plugin");

    const run = pytest(["-rA", ...args], dir);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(passed(run.stdout)).toEqual(without([...LEASED, X_SLOW]));
    expect(run.stdout).toMatch(/\b5 passed, 4 deselected\b/);
  });
});

describe("--format plugin", () => {
  it("drops exactly the leased ids, spaces and non-ASCII included; test_x_slow still runs", () => {
    const pluginDir = writePlugin();
    const run = pytest(["-rA", "-p", "proofgate_frozen"], dir, { PYTHONPATH: pluginDir });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(passed(run.stdout)).toEqual(without(LEASED));
    expect(passed(run.stdout)).toContain(X_SLOW);
    expect(run.stdout).toMatch(/\b6 passed, 3 deselected\b/);
  });

  it("lets a shard that runs other files pass: leased tests of files it did not collect are not missing", () => {
    const pluginDir = writePlugin();
    const run = pytest(["-rA", "-p", "proofgate_frozen", "pkg/tests"], dir, { PYTHONPATH: pluginDir });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(passed(run.stdout)).toEqual(["pkg/tests/test_b.py::test_b"]);
    expect(run.stderr).not.toContain("proofgate:");
  });

  it("fails the run when a leased test was deleted, and deselect refuses the stale lease", () => {
    const pluginDir = writePlugin();
    const copy = makeProject({
      ...FILES,
      "tests/test_a.py": TEST_A.replace(/def test_x\(\):\n.*\n\n\n/, ""),
      "freeze.toml": FREEZE,
    });
    dirs.push(copy);
    expect(readFileSync(join(copy, "tests/test_a.py"), "utf8")).not.toMatch(/def test_x\(/);

    const run = pytest(["-rA", "-p", "proofgate_frozen"], copy, { PYTHONPATH: pluginDir });
    expect(run.status).not.toBe(0);
    expect(passed(run.stdout)).toEqual([]);
    expect(run.stderr).toContain(`proofgate: 1 leased test id(s) in freeze.toml were not collected: ${X}.`);

    const collect = pytest(["--collect-only", "-q"], copy);
    expect(collect.status).toBe(0);
    writeText(join(copy, "collected.txt"), collect.stdout);
    const refused = proofgate([...DESELECT, "--format", "plugin", "--out", "proofgate_frozen.py"], copy);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`(${X}) names no test in collected.txt`);
    expect(refused.stdout).toBe("");
  });
});

describe("--format contexts-regex", () => {
  interface FileReport {
    executed_lines: number[];
    missing_lines: number[];
    executed_branches: number[][];
  }
  const report = (name: string): FileReport =>
    (JSON.parse(readFileSync(join(dir, name), "utf8")) as { files: Record<string, FileReport> }).files[
      "calc/__init__.py"
    ]!;
  const line = (marker: string): number => SOURCE.split("\n").findIndex((l) => l.includes(marker)) + 1;

  it("is taken by coverage.py and leaves out exactly the frozen tests' contexts", () => {
    const cov = pytest(["-q", "--cov=calc", "--cov-context=test", "--cov-branch", "--cov-report="], dir);
    expect(cov.status, cov.stdout + cov.stderr).toBe(0);

    const r = proofgate([...DESELECT, "--format", "contexts-regex"], dir);
    expect(r.status, r.stderr).toBe(0);
    const regex = r.stdout.replace(/\n$/, "");
    expect(regex).not.toContain("\n");

    const full = python(["-m", "coverage", "json", "-o", "full.json"], dir);
    expect(full.status, full.stdout + full.stderr).toBe(0);
    const proven = python(["-m", "coverage", "json", `--contexts=${regex}`, "-o", "proven.json"], dir);
    expect(proven.status, proven.stdout + proven.stderr).toBe(0);

    // What coverage.py recorded per context, without any regex: the lines and arcs of every context
    // that is not a frozen test's setup, run or teardown.
    const frozen = LEASED.flatMap((id) => ["setup", "run", "teardown"].map((when) => `${id}|${when}`));
    const dump = python(
      [
        "-c",
        `import json, sys, coverage
frozen = set(json.loads(sys.argv[1]))
data = coverage.CoverageData()
data.read()
[path] = [f for f in data.measured_files() if f.endswith("__init__.py")]
contexts = sorted(data.measured_contexts())
lines, arcs = set(), set()
for ctx in contexts:
    if ctx in frozen:
        continue
    data.set_query_context(ctx)
    lines.update(data.lines(path) or [])
    arcs.update(data.arcs(path) or [])
print(json.dumps({"contexts": contexts, "lines": sorted(lines), "arcs": sorted(arcs)}))`,
        JSON.stringify(frozen),
      ],
      dir,
    );
    expect(dump.status, dump.stderr).toBe(0);
    const kept = JSON.parse(dump.stdout) as { contexts: string[]; lines: number[]; arcs: number[][] };
    // The data holds the empty context and every frozen context, spelled as the regex expects them.
    expect(kept.contexts).toContain("");
    for (const ctx of frozen) expect(kept.contexts).toContain(ctx);
    expect(kept.contexts).toContain(`${X_SLOW}|run`);

    const all = report("full.json");
    const got = report("proven.json");
    const statements = new Set([...all.executed_lines, ...all.missing_lines]);
    expect(got.executed_lines).toEqual(kept.lines.filter((n) => statements.has(n)));
    const keptArcs = new Set(kept.arcs.map((a) => a.join(",")));
    expect(got.executed_branches).toEqual(all.executed_branches.filter((a) => keptArcs.has(a.join(","))));

    // Lines only a frozen test reached: run in the full report, missing from the proven one.
    for (const marker of ["# only test_x", "# only test_words[hello world]", "# only test_words[caf"]) {
      expect(all.executed_lines, marker).toContain(line(marker));
      expect(got.missing_lines, marker).toContain(line(marker));
    }
    expect(got.executed_branches.some(([from]) => from === line("if x > 0"))).toBe(false);
    expect(all.executed_branches.some(([from]) => from === line("if x > 0"))).toBe(true);
    // test_x_slow shares test_x's prefix but is not frozen; the empty context (import) is kept.
    expect(got.executed_lines).toContain(line("# only test_x_slow"));
    expect(got.executed_lines).toContain(line("def frozen_only"));
    expect(got.executed_lines).toContain(line('return "plain"'));
    expect(all.missing_lines).toEqual([line("# nobody")]);
  });
});

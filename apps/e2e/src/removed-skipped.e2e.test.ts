// Issue 15, routes 1 and 2, end to end with the real pytest 7.2, pytest-cov 4.0, coverage.py 6.5 and git:
// every way an agent makes a test stop counting without the ledger (deleting, renaming, deleting its file,
// `collect_ignore`, `addopts = --ignore`, skip and xfail markers, `pytest.skip()` in the body, a
// module-level skip) is REJECT with `tests_removed` or `tests_skipped_unledgered` naming the tests, the
// commit and its author; the same change by a human with `Test-Removal: human` is MERGE; a reformat of
// pytest.ini or pyproject.toml is MERGE. `check --run` collects the base in a git worktree with the
// base's own [commands] collect and runs the base's skips there; the worktree is gone afterwards.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  COLLECT,
  HUMAN,
  PY,
  check,
  config,
  proofCommand,
  git,
  makeCheckProject,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Two tests whose coverage the rest of the suite repeats: dropping them moves no coverage number. */
const EXTRA = `from pkg.calc import label, total


def test_total_again():
    assert total([4]) == 4


def test_label_again():
    assert label(3) == "small"
`;
const EXTRA_IDS = ["tests/test_extra.py::test_total_again", "tests/test_extra.py::test_label_again"];
const PYTEST_INI = "[pytest]\n# the suite\ntestpaths = tests\n";
const PYPROJECT = '[project]\nname = "pkg"\nversion = "1.0"\n\n[tool.pytest.ini_options]\nxfail_strict = false\n';
/** The base's config with no max_unledgered_skips: what `proofgate init` leaves unset, as the issue found it. */
const NO_SKIP_BUDGET = config().replace("max_unledgered_skips = 0\n", "");

function project(
  patch: Record<string, FileChange>,
  o: { who?: Identity; message?: string; base?: Record<string, FileChange> } = {},
): Project {
  const p = makeCheckProject({
    base: {
      "tests/test_extra.py": EXTRA,
      "pytest.ini": PYTEST_INI,
      "pyproject.toml": PYPROJECT,
      "proofgate.toml": NO_SKIP_BUDGET,
      ...o.base,
    },
    patch: [{ message: o.message ?? "Tidy the tests\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

const short = (sha: string): string => sha.slice(0, 12);

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

/** The base's worktree as the gate's log names it: it must be gone once the gate answered. */
function baseWorktreeOf(r: CheckRun): string {
  const dir = /in a git worktree at (\S+), with the base's/.exec(r.stderr)?.[1];
  expect(dir, r.stderr).toBeDefined();
  return dir!;
}

/** Git worktrees the repository knows besides its own work tree. */
function worktrees(dir: string): string[] {
  return git(dir, ["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length))
    .filter((path) => path !== dir);
}

interface Route {
  name: string;
  files: Record<string, FileChange>;
  reason: "tests_removed" | "tests_skipped_unledgered";
  /** The finding's file, and the test ids its message must name. */
  file: string;
  names: string[];
  /** The route changes the test runner's settings too: a protected_path finding (file, line) comes first,
   *  and a human's commit needs `Gate-Change: human` as well. */
  protected?: [file: string, line: number | null];
}

const withoutTotalAgain = EXTRA.replace(/def test_total_again\(\):\n {4}assert total\(\[4\]\) == 4\n\n\n/, "");
const ROUTES: Route[] = [
  {
    name: "a deleted test",
    files: { "tests/test_extra.py": withoutTotalAgain },
    reason: "tests_removed",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again is collected at base but not at head"],
  },
  {
    name: "a test renamed so that pytest does not collect it",
    files: { "tests/test_extra.py": EXTRA.replace("def test_total_again", "def check_total_again") },
    reason: "tests_removed",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again is collected at base but not at head"],
  },
  {
    name: "a test renamed to another collected name (both names shown)",
    files: { "tests/test_extra.py": EXTRA.replace("def test_total_again", "def test_total_once_more") },
    reason: "tests_removed",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again (renamed: tests/test_extra.py::test_total_once_more)"],
  },
  {
    name: "a test file renamed (git's rename detection pairs the tests)",
    files: { "tests/test_extra.py": null, "tests/test_more.py": EXTRA },
    reason: "tests_removed",
    file: "tests/test_extra.py",
    names: [
      "tests/test_extra.py::test_total_again (renamed: tests/test_more.py::test_total_again)",
      "tests/test_extra.py::test_label_again (renamed: tests/test_more.py::test_label_again)",
    ],
  },
  {
    name: "a deleted test file",
    files: { "tests/test_extra.py": null },
    reason: "tests_removed",
    file: "tests/test_extra.py",
    names: [`2 tests of tests/test_extra.py collected at base are not collected at head: ${EXTRA_IDS.join(", ")}`],
  },
  {
    name: "`collect_ignore` in a conftest.py",
    files: { "tests/conftest.py": 'collect_ignore = ["test_extra.py"]\n' },
    reason: "tests_removed",
    protected: ["tests/conftest.py", null],
    file: "tests/test_extra.py",
    names: [...EXTRA_IDS, "and touched tests/conftest.py"],
  },
  {
    name: "`addopts = --ignore=...` in pytest.ini",
    files: { "pytest.ini": `${PYTEST_INI}addopts = --ignore=tests/test_extra.py\n` },
    reason: "tests_removed",
    protected: ["pytest.ini", 4],
    file: "tests/test_extra.py",
    names: [...EXTRA_IDS, "and touched pytest.ini"],
  },
  {
    name: "`@pytest.mark.skip`",
    files: {
      "tests/test_extra.py": `import pytest\n${EXTRA.replace("def test_total_again", '@pytest.mark.skip(reason="later")\ndef test_total_again')}`,
    },
    reason: "tests_skipped_unledgered",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again (later)", "and were not skipped at base"],
  },
  {
    name: "`pytest.skip()` in the body",
    files: {
      "tests/test_extra.py": `import pytest\n${EXTRA.replace("def test_total_again():\n", 'def test_total_again():\n    pytest.skip("flaky")\n')}`,
    },
    reason: "tests_skipped_unledgered",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again (flaky)"],
  },
  {
    name: "`@pytest.mark.xfail`",
    files: {
      "tests/test_extra.py": `import pytest\n${EXTRA.replace("def test_total_again", "@pytest.mark.xfail\ndef test_total_again").replace("== 4", "== 5")}`,
    },
    reason: "tests_skipped_unledgered",
    file: "tests/test_extra.py",
    names: ["tests/test_extra.py::test_total_again"],
  },
  {
    name: "a module-level `pytest.skip(allow_module_level=True)`",
    files: {
      "tests/test_extra.py": `import pytest\n\npytest.skip("not today", allow_module_level=True)\n\n${EXTRA}`,
    },
    reason: "tests_skipped_unledgered",
    file: "tests/test_extra.py",
    names: EXTRA_IDS.map((id) => `${id} (collection skipped: not today)`),
  },
];

describe("check --run: each route, by an agent, is REJECT naming the tests, the commit and its author", () => {
  it.concurrent.each(ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const p = project(route.files);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    const agent = `${AGENT.name} <${AGENT.email}>`;
    const runner = route.protected ? [["protected_path", ...route.protected, p.commits[1], agent]] : [];
    expect(r.report.reasons, explain(r)).toEqual([...(route.protected ? ["protected_path"] : []), route.reason]);
    expect(r.status).toBe(1);
    expect(r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author])).toEqual([
      ...runner,
      [route.reason, route.file, null, p.commits[1], agent],
    ]);
    const finding = r.report.details.find((d) => d.reason === route.reason);
    for (const name of route.names) expect(finding!.message).toContain(name);
    expect(finding!.message).toContain(`commit ${short(p.commits[1]!)} is an agent's`);
    expect((finding as unknown as { fix: string }).fix).toContain("Test-Removal: human");
    const row = r.report.signals.find((s) => s.reasons.includes(route.reason));
    expect(row?.result).toBe("fail");
    // The base was collected in a worktree that is gone.
    expect(r.stderr).toContain("▶ base collect");
    expect(worktrees(p.dir)).toEqual([]);
    expect(existsSync(baseWorktreeOf(r))).toBe(false);
    expect(r.report.inputs.map((i) => i.role)).toContain("base_universe");
  });
});

describe("check --run: the same change by a human with `Test-Removal: human` (and `Gate-Change: human` for runner settings) is MERGE", () => {
  it.concurrent.each(ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const gate = route.protected ? "Gate-Change: human\n" : "";
    const p = project(route.files, { who: HUMAN, message: `Drop a redundant test\n\n${gate}Test-Removal: human\n` });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    const row = r.report.signals.find(
      (s) => s.id === (route.reason === "tests_removed" ? "removed_tests" : "test_evidence"),
    );
    expect(row?.result).toBe("pass");
    expect(row?.value).toMatch(/approved/);
  });
});

describe("check --run: what is not a removal", () => {
  it.concurrent.each([
    ["pytest.ini", { "pytest.ini": "[pytest]\n\n# the whole suite, reformatted\ntestpaths =\n    tests\n" }],
    ["pyproject.toml", { "pyproject.toml": PYPROJECT.replace('name = "pkg"', "name = 'pkg'  # renamed quotes") }],
  ] as const)("an agent's pure reformat of %s: MERGE", async (_name, files) => {
    const p = project(files);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.signals.find((s) => s.id === "removed_tests")).toMatchObject({
      result: "pass",
      value: expect.stringMatching(
        /^0 of 10 base tests not collected at head; base: collected\.txt \(collected at base [0-9a-f]{12}\)$/,
      ),
    });
  });

  it.concurrent.each([
    [
      "pyproject.toml [tool.pytest]",
      { "pyproject.toml": `${PYPROJECT}\n[tool.pytest]\naddopts = ["-p", "no:warnings"]\n` },
      "pyproject.toml",
    ],
    ["a new pytest.toml", { "pytest.toml": '[pytest]\nfilterwarnings = ["ignore"]\n' }, "pytest.toml"],
  ] as const)(
    "pytest 9's settings (%s), which pytest 7 ignores, are still the runner's: an agent's edit is protected_path",
    async (_name, files, file) => {
      const p = project(files);
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["protected_path"]);
      expect(r.report.details[0]).toMatchObject({ reason: "protected_path", file });
    },
  );

  it("an agent adds a test: the base's 10 tests are all still collected, MERGE", async () => {
    const p = project({ "tests/test_extra.py": `${EXTRA}\n\ndef test_more():\n    assert total([]) == 0\n` });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.report.collected_tests).toBe(12);
  });

  it("a module that skips itself at the base and at head (an optional dependency missing) is no new skip", async () => {
    // importorskip of a module this machine does not have: the module collects nothing at base or head, so no
    // test id names it; the base's run shows its collection skip under the module's path.
    const OPTIONAL = `import pytest\n\nyaml = pytest.importorskip("no_such_optional_dependency")\n\n\ndef test_dump():\n    assert yaml\n`;
    const p = project({}, { base: { "tests/test_optional.py": OPTIONAL } });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status, explain(r)).toBe(0);
    // The same module new at head is a new skip (the base has no such module to have skipped).
    const added = project({ "tests/test_optional.py": OPTIONAL });
    const n = await check(added.dir, ["--run", "--base", added.base, "--format", "json"]);
    expect(n.report.reasons, explain(n)).toEqual(["tests_skipped_unledgered"]);
    expect(n.report.details[0]!.message).toContain("tests/test_optional.py (collection skipped");
    // A module the base has but that held no test there (so no JUnit case at the base at all): a new skip too.
    const helper = project(
      { "tests/test_optional.py": OPTIONAL },
      { base: { "tests/test_optional.py": "def helper():\n    return 1\n" } },
    );
    const h = await check(helper.dir, ["--run", "--base", helper.base, "--format", "json"]);
    expect(h.report.reasons, explain(h)).toEqual(["tests_skipped_unledgered"]);
    expect(h.status, explain(h)).toBe(1);
  });

  it("a test skipped at base by pytest.skip() and still skipped at head is no new skip: the base run says so", async () => {
    const skipped = `import pytest\n${EXTRA.replace("def test_total_again():\n", 'def test_total_again():\n    pytest.skip("old")\n')}`;
    const p = makeCheckProject({
      base: { "tests/test_extra.py": skipped, "proofgate.toml": NO_SKIP_BUDGET },
      patch: [
        { message: "Touch the skip\n", files: { "tests/test_extra.py": skipped.replace('"old"', '"still old"') } },
      ],
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.stderr).toContain("▶ base skips");
    expect(r.report.signals.find((s) => s.id === "test_evidence")?.value).toContain("0 new skips");
    expect(r.report.inputs.map((i) => i.role)).toEqual(expect.arrayContaining(["base_universe", "base_results"]));
  });

  it("a test its marks skip at base and still skipped at head: the base's run beside the proof run ran it, none after", async () => {
    const marked = `import sys\nimport pytest\n${EXTRA.replace("def test_total_again", '@pytest.mark.skip(reason="old")\ndef test_total_again')}\n\n@pytest.mark.skipif(sys.platform != "nowhere", reason="elsewhere")\ndef test_on_nowhere():\n    assert False\n`;
    const p = makeCheckProject({
      base: { "tests/test_extra.py": marked, "proofgate.toml": NO_SKIP_BUDGET },
      patch: [
        { message: "Touch the skip\n", files: { "tests/test_extra.py": marked.replace('"old"', '"still old"') } },
      ],
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.stderr).toContain("▶ base marked skips");
    expect(r.stderr).not.toContain("▶ base skips");
    expect(r.stderr).toContain("the base's run beside the proof run already ran the 2 test(s) skipped at head");
    const steps = r.report.commands?.map((c) => c.step) ?? [];
    expect(steps).toContain("base marked skips");
    expect(steps).not.toContain("base skips");
    expect(r.report.signals.find((s) => s.id === "test_evidence")?.value).toContain("0 new skips");
  });

  it("an agent's new skip mark is still a new skip: the base ran that test (the base's run after the proof run)", async () => {
    const marked = `import pytest\n${EXTRA.replace("def test_total_again", '@pytest.mark.skip(reason="old")\ndef test_total_again')}`;
    const p = makeCheckProject({
      base: { "tests/test_extra.py": marked, "proofgate.toml": NO_SKIP_BUDGET },
      patch: [
        {
          message: "Skip another\n",
          files: {
            "tests/test_extra.py": marked.replace(
              "def test_label_again",
              '@pytest.mark.skip(reason="new")\ndef test_label_again',
            ),
          },
        },
      ],
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["tests_skipped_unledgered"]);
    expect(r.stderr).toContain("▶ base marked skips");
    expect(r.stderr).toContain("▶ base skips");
    expect(r.stderr).toContain("(the base's run beside the proof run ran 1 more)");
    expect(r.report.details.map((d) => d.message).join("\n")).toContain("tests/test_extra.py::test_label_again");
  });

  it("a skipif that holds when the base collects but not in its proof command: the base's proof command decides (a new skip)", async () => {
    // The base's collection runs without RUN_SLOW, so the mark skips the test there; the base's proof command
    // sets it, so at the base the test ran. The agent skips it: a new skip, whatever the collection evaluated.
    const slow = `import os\nimport pytest\n${EXTRA.replace("def test_total_again", '@pytest.mark.skipif(not os.environ.get("RUN_SLOW"), reason="slow")\ndef test_total_again')}`;
    const base = config({ proof: proofCommand({ prefix: "RUN_SLOW=1 " }) }).replace("max_unledgered_skips = 0\n", "");
    const p = makeCheckProject({
      base: { "tests/test_extra.py": slow, "proofgate.toml": base },
      patch: [
        {
          message: "Skip the slow one\n",
          files: {
            "tests/test_extra.py": slow.replace(
              "@pytest.mark.skipif(",
              '@pytest.mark.skip(reason="later")\n@pytest.mark.skipif(',
            ),
          },
        },
      ],
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.stderr).toContain("▶ base marked skips");
    expect(r.report.reasons, explain(r)).toEqual(["tests_skipped_unledgered"]);
    expect(r.report.details.map((d) => d.message).join("\n")).toContain("tests/test_extra.py::test_total_again");
  });
});

describe("check: the base not measured, and the base that cannot be measured", () => {
  it("without --run and without [universe] base_collected: the row is not_measured and says how to turn it on", async () => {
    const p = project({ "tests/test_extra.py": withoutTotalAgain });
    const first = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(first.report.reasons).toEqual(["tests_removed"]);
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.report.signals.find((s) => s.id === "removed_tests")).toMatchObject({
      result: "not_measured",
      value: expect.stringContaining("Fix: run `proofgate check --run`"),
    });
  });

  it("[universe] base_collected written by a CI step: judged without --run; missing is exit 2 naming it", async () => {
    const p = project(
      { "tests/test_extra.py": withoutTotalAgain },
      { base: { "proofgate.toml": `${NO_SKIP_BUDGET}\n[universe]\nbase_collected = ["base-collected.txt"]\n` } },
    );
    // --run collects the base in a worktree itself (and writes the head's artifacts).
    const run = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(run.report.reasons, explain(run)).toEqual(["tests_removed"]);
    const missing = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(missing.status, explain(missing)).toBe(2);
    expect(missing.report.errors[0]).toMatchObject({ code: "file_missing", file: "base-collected.txt" });
    expect(missing.stderr).toContain("[universe] base_collected");
    // The CI step: the base collected in a worktree of its own, its output left beside the head's checkout.
    const wt = mkdtempSync(join(tmpdir(), "proofgate-ci-base-"));
    made.push(wt);
    git(p.dir, ["worktree", "add", "--detach", "-q", `${wt}/base`, p.base]);
    const collected = spawnSync("sh", ["-c", COLLECT], { cwd: `${wt}/base`, encoding: "utf8" });
    expect(collected.status, collected.stderr).toBe(0);
    writeFileSync(join(p.dir, "base-collected.txt"), readFileSync(join(wt, "base", "collected.txt")));
    git(p.dir, ["worktree", "remove", "--force", `${wt}/base`]);
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["tests_removed"]);
    expect(r.report.details[0]!.message).toContain("tests/test_extra.py::test_total_again");
    expect(r.report.inputs).toContainEqual(
      expect.objectContaining({ role: "base_universe", path: "base-collected.txt" }),
    );
  });

  it("a base whose [commands] collect fails in the worktree: exit 2 naming the command, the worktree removed", async () => {
    // The collection reads a file the base does not track (here: one only the work tree has). The head's
    // collection, run beside the base's, outlasts the base's failure.
    const collect = `test -f local-only.txt && sleep 3 && ${COLLECT}`;
    const p = makeCheckProject({
      base: {
        "proofgate.toml": config({ collect }),
        ".gitignore":
          "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-report/\n__pycache__/\nlocal-only.txt\n",
      },
    });
    made.push(p.dir);
    writeFileSync(join(p.dir, "local-only.txt"), "x\n");
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.errors[0]).toMatchObject({ code: "universe_invalid", file: `proofgate.toml at ${short(p.base)}` });
    expect(r.report.errors[0]!.message).toContain(`\`${collect}\``);
    expect(worktrees(p.dir)).toEqual([]);
    expect(existsSync(baseWorktreeOf(r))).toBe(false);
    // The base failed while the head collected: the head's proof run never started.
    expect((r.report.commands ?? []).map((c) => c.step)).not.toContain("proof");
    expect(r.stderr).not.toContain("▶ proof");
    expect(existsSync(join(p.dir, "results.xml"))).toBe(false);
  });
});

describe("a patch judged by the base's policy, with its own collection", () => {
  it("the agent also edits [commands] collect in the patch: the base's command collects both sides", async () => {
    const p = project({
      "tests/test_extra.py": withoutTotalAgain,
      "proofgate.toml": NO_SKIP_BUDGET.replace(COLLECT, `${PY} -c "print('nothing')" > collected.txt`),
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["protected_path", "tests_removed"]);
  });
});

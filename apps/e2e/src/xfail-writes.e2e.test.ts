// Issue 21, items 5 and 6, end to end with the real pytest 7.2, pytest-cov 4.0, coverage.py 6.5 and git.
// Item 5: a non-strict xfail that passes (XPASS) is a plain pass in pytest's JUnit XML; the run record
// tells it apart, so it is not proven and, added without a lease, it is `tests_skipped_unledgered`
// however the marker got there (decorator, module-level `pytestmark`, a conftest hook). Item 6: a step
// that writes the repository (a tracked source file, a locked fixture written and put back, a new module
// made by a subprocess) is `run_wrote_repository` naming the files and the step, whoever committed it;
// tracked files are restored from the commit. Caches and the steps' own evidence are not writes.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  GOLDEN,
  HUMAN,
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

/** Two passing tests whose coverage the rest of the suite repeats. */
const EXTRA = `import pytest

from pkg.calc import label, total


def test_total_again():
    assert total([4]) == 4


def test_label_again():
    assert label(3) == "small"
`;
const XPASS_ID = "tests/test_extra.py::test_total_again";
/** The base's config without a skip budget: only the base comparison judges a new xfail. */
const NO_SKIP_BUDGET = config().replace("max_unledgered_skips = 0\n", "");

function project(
  patch: Record<string, FileChange>,
  o: { who?: Identity; message?: string; base?: Record<string, FileChange> } = {},
): Project {
  const p = makeCheckProject({
    base: { "tests/test_extra.py": EXTRA, "proofgate.toml": NO_SKIP_BUDGET, ...o.base },
    patch: [{ message: o.message ?? "Tidy the tests\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

const run = (p: Project, env: Record<string, string> = {}): Promise<CheckRun> =>
  check(p.dir, ["--run", "--base", p.base, "--format", "json"], env);

/** 11 tests are collected (the base's 10 and the merge patch's test_describe), one of them leased. */
const counted = (r: CheckRun, xfailed: number) =>
  expect(r.report.accounting, explain(r)).toMatchObject({
    collected: 11,
    frozen: 1,
    skipped: xfailed,
    proven: 10 - xfailed,
  });

// ---------------------------------------------------------------------------------------------------
// Item 5: a test whose failure cannot fail the run proves nothing.

const XFAIL_ROUTES: { name: string; files: Record<string, FileChange>; others: string[]; xfailed: number }[] = [
  {
    name: "`@pytest.mark.xfail` on a passing test (non-strict: pytest's default)",
    files: { "tests/test_extra.py": EXTRA.replace("def test_total_again", "@pytest.mark.xfail\ndef test_total_again") },
    others: [],
    xfailed: 1,
  },
  {
    name: "a module-level `pytestmark = pytest.mark.xfail(strict=False)`",
    files: {
      "tests/test_extra.py": EXTRA.replace(
        "from pkg.calc import label, total\n",
        "from pkg.calc import label, total\n\npytestmark = pytest.mark.xfail(strict=False)\n",
      ),
    },
    others: [],
    xfailed: 2,
  },
  {
    name: "a conftest.py hook that adds the marker",
    files: {
      "tests/conftest.py": `import pytest


def pytest_itemcollected(item):
    if item.name == "test_total_again":
        item.add_marker(pytest.mark.xfail(reason="later"))
`,
    },
    others: ["protected_path"],
    xfailed: 1,
  },
];

describe("item 5: an agent's xfail on a passing test is an unledgered freeze, and the xpass is not proven", () => {
  it.concurrent.each(XFAIL_ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const p = project(route.files);
    const r = await run(p);
    expect(r.report.reasons, explain(r)).toEqual(expect.arrayContaining(["tests_skipped_unledgered"]));
    expect(r.report.reasons.filter((x) => x !== "tests_skipped_unledgered").sort()).toEqual([...route.others].sort());
    expect(r.status).toBe(1);
    const finding = r.report.details.find((d) => d.reason === "tests_skipped_unledgered")!;
    expect(finding.message).toContain(`${XPASS_ID} (XPASS: a non-strict xfail that passed`);
    expect(finding.message).toContain("were not skipped at base");
    expect(finding.commit).toBe(p.commits[1]);
    // pytest's JUnit XML writes it as a plain pass; the gate counts it from the run record.
    const junit = readFileSync(join(p.dir, "results.xml"), "utf8");
    expect(junit).toMatch(/<testcase classname="tests\.test_extra" name="test_total_again" [^>]*\/>/);
    counted(r, route.xfailed);
  });

  it("the same xfail by a human with `Test-Removal: human` is MERGE, and the xpass is still not proven", async () => {
    const p = project(XFAIL_ROUTES[0]!.files, {
      who: HUMAN,
      message: "Expect test_total_again to fail\n\nTest-Removal: human\n",
    });
    const r = await run(p);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.signals.find((s) => s.id === "test_evidence")?.value).toMatch(/approved/);
    counted(r, 1);
  });

  it("an xfail the base already had, xpassing at both ends, is no new skip: MERGE", async () => {
    const xfailed = EXTRA.replace("def test_total_again", '@pytest.mark.xfail(reason="old")\ndef test_total_again');
    const p = project(
      { "tests/test_extra.py": xfailed.replace('"old"', '"still old"') },
      { base: { "tests/test_extra.py": xfailed } },
    );
    const r = await run(p);
    expect(r.report.reasons, explain(r)).toEqual([]);
    // Its xfail mark holds at the base's collection: the base's run beside the proof run ran it (and saw it xpass).
    expect(r.stderr).toContain("▶ base marked skips");
    expect(r.stderr).not.toContain("▶ base skips");
    expect(r.report.signals.find((s) => s.id === "test_evidence")?.value).toContain("0 new skips");
    counted(r, 1);
  });
});

describe("item 5, single-run mode: an xpassing test's contexts are dropped like a frozen test's", () => {
  it("the line only an xfail-marked test reaches is not proven, though the human's xfail is approved", async () => {
    const contexts = config({ proof: proofCommand({ pytestArgs: "--cov-context=test" }), minProven: 50 })
      .replace("max_unledgered_skips = 0\n", "")
      .replace("[coverage]\n", '[coverage]\ncontexts = ".coverage"\n');
    const triple = (marker: string): Record<string, FileChange> => ({
      "pkg/extra.py": "def triple(x):\n    return x * 3\n",
      "tests/test_triple.py": `import pytest\n\nfrom pkg.extra import triple\n\n\n${marker}def test_triple():\n    assert triple(2) == 6\n`,
    });
    const message = "Add triple\n\nTest-Removal: human\n";
    const plain = project(triple(""), { who: HUMAN, message, base: { "proofgate.toml": contexts } });
    const xfailed = project(triple("@pytest.mark.xfail\n"), {
      who: HUMAN,
      message,
      base: { "proofgate.toml": contexts },
    });
    const [a, b] = await Promise.all([run(plain), run(xfailed)]);
    expect(a.report.reasons, explain(a)).toEqual([]);
    expect(b.report.reasons, explain(b)).toEqual([]);
    expect(b.report.signals.find((s) => s.id === "proven_coverage")?.value).toBeDefined();
    // Same statements; the xpassing test's line (`return x * 3`) is proven only in the plain run.
    expect(b.report.proven_coverage_percent!).toBeLessThan(a.report.proven_coverage_percent!);
    expect(a.report.accounting).toMatchObject({ proven: 11, skipped: 0 });
    expect(b.report.accounting).toMatchObject({ proven: 10, skipped: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------
// Item 6: the run leaves the commit as it found it.

const WRITERS: { name: string; test: string; files: string[]; says: string }[] = [
  {
    name: "a test that appends to a tracked source file",
    test: `from pathlib import Path


def test_writes_source():
    p = Path("pkg/calc.py")
    p.write_text(p.read_text() + "# touched by a test\\n")
`,
    files: ["pkg/calc.py"],
    says: "changed 1 file(s) the commit tracks: pkg/calc.py (by tests/test_w.py::test_writes_source); the gate restored them from the commit",
  },
  {
    name: "a test that rewrites a locked fixture and puts its bytes back (only the run record sees it)",
    test: `from pathlib import Path


def test_rewrites_fixture():
    p = Path("tests/fixtures/golden.txt")
    old = p.read_bytes()
    p.write_text("changed\\n")
    p.write_bytes(old)
`,
    files: ["tests/fixtures/golden.txt"],
    says: "opened 1 file(s) of the commit for writing (its run record; identical again when the step ended): tests/fixtures/golden.txt (by tests/test_w.py::test_rewrites_fixture)",
  },
  {
    name: "a test whose subprocess writes a new module (only git sees it)",
    test: `import subprocess


def test_generates_module():
    subprocess.run(["sh", "-c", "echo 'X = 1' > pkg/generated.py"], check=True)
`,
    files: ["pkg/generated.py"],
    says: "left 1 new file(s), not removed by the gate: pkg/generated.py",
  },
];

describe("item 6: a test that writes the repository during the run is REJECT naming the files and the step", () => {
  it.concurrent.each(WRITERS.map((w) => [w.name, w] as const))("%s", async (_name, w) => {
    const p = project({ "tests/test_w.py": w.test });
    const r = await run(p);
    expect(r.report.reasons, explain(r)).toEqual(["run_wrote_repository"]);
    expect(r.status).toBe(1);
    const [finding, ...more] = r.report.details;
    expect(more).toEqual([]);
    expect(finding!.message).toContain("[commands] proof wrote the repository while it ran: ");
    expect(finding!.message).toContain(w.says);
    expect(finding!.file).toBe(w.files[0]);
    expect(r.report.signals.find((s) => s.id === "test_runner")).toMatchObject({
      result: "fail",
      reasons: ["run_wrote_repository"],
    });
    // The commit's files are as the commit has them: the gate put a changed tracked file back.
    expect(readFileSync(join(p.dir, "pkg/calc.py"), "utf8")).toBe(git(p.dir, ["show", "HEAD:pkg/calc.py"]));
    expect(readFileSync(join(p.dir, "tests/fixtures/golden.txt"), "utf8")).toBe(GOLDEN);
    expect(git(p.dir, ["status", "--porcelain", "--untracked-files=no"])).toBe("");
  });

  it("the same test committed by a human with every trailer is still REJECT: no trailer makes it healthy", async () => {
    const p = project(
      { "tests/test_w.py": WRITERS[0]!.test },
      {
        who: HUMAN,
        message: "A test\n\nGate-Change: human\nTest-Removal: human\nFixture-Lock: human\nProperty-Seeds: human\n",
      },
    );
    const r = await run(p);
    expect(r.report.reasons, explain(r)).toEqual(["run_wrote_repository"]);
    expect(r.report.details[0]!.message).toContain("pkg/calc.py");
  });

  it("bytecode, pytest's cache, coverage's data and a tmp_path are no writes: MERGE, even when .gitignore does not list them", async () => {
    const p = project(
      {
        "tests/test_w.py": `def test_uses_tmp_path(tmp_path):
    (tmp_path / "out.txt").write_text("fine")
    assert (tmp_path / "out.txt").read_text() == "fine"
`,
      },
      {
        base: {
          ".gitignore": "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\nproofgate-report/\n",
          "proofgate.toml": NO_SKIP_BUDGET.replaceAll("-p no:cacheprovider ", ""),
        },
      },
    );
    const r = await run(p, { PYTHONDONTWRITEBYTECODE: "" });
    expect(r.report.reasons, explain(r)).toEqual([]);
    const untracked = git(p.dir, ["status", "--porcelain", "--untracked-files=all"]);
    expect(untracked).toContain("__pycache__/");
    expect(untracked).toContain(".coverage");
  });
});

// The proof plugin and its record against the real pytest 7.2, pytest-cov 4.0 and hypothesis of
// /usr/bin/python3: tiny projects in temp folders, each run with a fresh nonce and key, the record
// verified and judged by core's pure functions. Each way to hide a failing test that issue 15 lists
// for the runner is tried here as an agent would write it.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findToolShadows,
  judgeFileReads,
  judgeRunIntegrity,
  judgeRunnerHooks,
  judgeSeedReads,
  judgeSelection,
  judgeSkips,
  proofPluginModuleName,
  proofRunEnvironment,
  renderProofPlugin,
  verifyRunRecord,
  type RunRecord,
  type RunRecordResult,
} from "@proofgate/core/proof-run";
import { makeProject, python, type Run } from "./helpers.js";

const scratch: string[] = [];
const project = (files: Record<string, string>): string => {
  const dir = makeProject(files);
  scratch.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  // No Python, no pytest: these tests fail, loudly; they never pass by skipping.
  const probe = python(["-c", "import pytest, pytest_cov, hypothesis; print(pytest.__version__)"], process.cwd());
  if (probe.status !== 0)
    throw new Error(`/usr/bin/python3 cannot import pytest, pytest_cov and hypothesis: ${probe.stderr}`);
});

interface ProofRun {
  run: Run;
  /** The record's text; undefined when no record was written. */
  text: string | undefined;
  result: RunRecordResult;
  record: RunRecord;
  nonce: string;
  key: string;
}

interface ProofRunOptions {
  leased?: string[];
  pytestArgs?: string[];
  /** Python's own flags, before `-m pytest` (e.g. -P). */
  pythonArgs?: string[];
  /** Skip loading the plugin (as a command that drops PYTEST_ADDOPTS would). */
  noPlugin?: boolean;
  env?: Record<string, string>;
  mounts?: Array<{ dir: string; prefix: string; label: string }>;
  /** Verify against this nonce instead of the run's own. */
  expectNonce?: string;
}

/** One recorded proof run, as the gate would make it: plugin in <dir>/proofgate-report/pytest. */
function proofRun(dir: string, o: ProofRunOptions = {}): ProofRun {
  const nonce = randomBytes(16).toString("hex");
  const key = randomBytes(32).toString("hex");
  const out = join(dir, "proofgate-report");
  const pluginDir = join(out, "pytest");
  mkdirSync(pluginDir, { recursive: true });
  const moduleName = proofPluginModuleName(nonce);
  writeFileSync(
    join(pluginDir, `${moduleName}.py`),
    renderProofPlugin(
      { today: "2026-09-20", active: (o.leased ?? []).map((nodeid) => ({ nodeid })) },
      { ledgerFile: "freeze.toml", exclude: [out], mounts: o.mounts },
    ),
  );
  const record = join(out, "run-record.json");
  rmSync(record, { force: true });
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
  if (o.noPlugin) delete env.PYTEST_ADDOPTS;
  const run = python(
    [...(o.pythonArgs ?? []), "-m", "pytest", "-p", "no:cacheprovider", "-rA", ...(o.pytestArgs ?? [])],
    dir,
    { ...env, ...o.env },
  );
  const text = existsSync(record) ? readFileSync(record, "utf8") : undefined;
  const result = verifyRunRecord(text, {
    nonce: o.expectNonce ?? nonce,
    key,
    file: "proofgate-report/run-record.json",
  });
  return { run, text, result, record: result.record!, nonce, key };
}

const outcomes = (record: RunRecord): Record<string, string> =>
  Object.fromEntries(record.tests.map((t) => [t.id, t.outcome]));

const CALC = "def add(a, b):\n    return a + b\n";

describe("a clean run", () => {
  const dir = project({
    "calc.py": CALC,
    "tests/fixtures/expected.txt": "5\n",
    "tests/test_calc.py": `from calc import add


def test_add():
    assert add(2, 3) == int(open("tests/fixtures/expected.txt").read())


def test_x():
    assert add(1, 1) == 2


def test_x_slow():
    assert add(2, 2) == 4
`,
  });
  const r = proofRun(dir, { leased: ["tests/test_calc.py::test_x"] });

  it("writes a record that verifies, with every test's outcome as pytest logged it", () => {
    expect(r.run.status, r.run.stdout + r.run.stderr).toBe(0);
    expect(r.result.errors).toEqual([]);
    expect(r.record).toMatchObject({ pytest: "7.2.1", root: dir, exitstatus: 0, audit: true });
    expect(r.record.python.executable).toBe("/usr/bin/python3");
    expect(outcomes(r.record)).toEqual({
      "tests/test_calc.py::test_add": "passed",
      "tests/test_calc.py::test_x_slow": "passed",
    });
  });

  it("deselects exactly the leased id (not test_x_slow, which plain --deselect would drop too)", () => {
    expect(r.record.collected).toEqual([
      "tests/test_calc.py::test_add",
      "tests/test_calc.py::test_x",
      "tests/test_calc.py::test_x_slow",
    ]);
    expect(r.record.deselected).toEqual({ proofgate: ["tests/test_calc.py::test_x"], other: [] });
    expect(judgeSelection(r.record, { leased: ["tests/test_calc.py::test_x"] })).toEqual([]);
  });

  it("records the files the tests opened, repository-relative, and none of the gate's own", () => {
    expect(r.record.files.map((f) => [f.path, f.read, f.write, f.first])).toEqual([
      ["calc.py", true, false, null],
      ["tests/fixtures/expected.txt", true, false, "tests/test_calc.py::test_add"],
      ["tests/test_calc.py", true, false, null],
    ]);
    expect(judgeFileReads(r.record, { fixtures: ["tests/fixtures"], lock: "fixtures.lock" })).toEqual([]);
  });

  it("finds nothing wrong with the runner", () => {
    expect(judgeRunIntegrity(r.record)).toEqual([]);
    expect(judgeRunnerHooks(r.record)).toEqual([]);
    expect(r.record.guard).toEqual({
      pytest_runtest_call: true,
      pytest_runtest_logreport: true,
      pytest_runtest_makereport: true,
      pytest_runtest_setup: true,
      pytest_runtest_teardown: true,
    });
  });
});

describe("skips and expected failures are recorded with their kind and origin", () => {
  const dir = project({
    "calc.py": CALC,
    "tests/test_module_skip.py": `import pytest

pytest.skip("not on this platform", allow_module_level=True)


def test_hidden():
    assert False
`,
    "tests/test_calc.py": `import pytest
from calc import add


def test_body_skip():
    pytest.skip("flaky today")
    assert add(2, 2) == 5


@pytest.mark.xfail(reason="known regression")
def test_xfail_marker():
    assert add(2, 2) == 5


@pytest.mark.skipif(True, reason="skipif marker")
def test_skipif():
    assert False
`,
  });
  const r = proofRun(dir);

  it("the module-level skip (a skipped collect report), the body skip and the xfail", () => {
    expect(r.result.errors).toEqual([]);
    expect(outcomes(r.record)).toEqual({
      "tests/test_calc.py::test_body_skip": "skipped",
      "tests/test_calc.py::test_xfail_marker": "xfailed",
      "tests/test_calc.py::test_skipif": "skipped",
    });
    expect(r.record.collection).toEqual([
      expect.objectContaining({
        id: "tests/test_module_skip.py",
        scope: "module",
        logged: "skipped",
        reason: "Skipped: not on this platform",
        path: "tests/test_module_skip.py",
        line: 3,
      }),
    ]);
  });

  it("judgeSkips names each one and where it came from", () => {
    const found = judgeSkips(r.record);
    expect(found.map((f) => [f.code, f.tests![0]])).toEqual([
      ["test_skipped", "tests/test_calc.py::test_body_skip"],
      ["test_xfailed", "tests/test_calc.py::test_xfail_marker"],
      ["test_skipped", "tests/test_calc.py::test_skipif"],
      ["collection_skipped", "tests/test_module_skip.py"],
    ]);
    expect(found[0]!.message).toContain("by pytest.skip() at tests/test_calc.py:6, in the test body");
    expect(found[1]!.message).toContain("by an xfail marker");
    expect(found[2]!.message).toContain("by a skip or skipif marker");
    expect(found[3]!.message).toContain("the whole module was skipped while it was imported");
    // None of these is tampering: pytest made them so.
    expect(judgeRunIntegrity(r.record)).toEqual([]);
  });
});

describe("subtests: reports made and logged inside a test's call", () => {
  it("recorded apart from the test's own phases, so pytest 9's subtest reports are not taken for tampering", () => {
    // pytest 9's subtests fixture (src/_pytest/subtests.py) does this: it calls pytest_runtest_makereport
    // with a CallInfo of the subtest and logs the report while the test is still running.
    const dir = project({
      "tests/conftest.py": `import time
import pytest
from _pytest.runner import CallInfo


@pytest.fixture
def subtest(request):
    def run(check):
        try:
            check()
            excinfo = None
        except AssertionError:
            excinfo = pytest.ExceptionInfo.from_current()
        now = time.time()
        call = CallInfo(None, excinfo, start=now, stop=now, duration=0.0, when="call", _ispytest=True)
        report = request.node.ihook.pytest_runtest_makereport(item=request.node, call=call)
        request.node.ihook.pytest_runtest_logreport(report=report)

    return run
`,
      "tests/test_sub.py": `def test_with_subtests(subtest):
    subtest(lambda: None)
    subtest(lambda: (_ for _ in ()).throw(AssertionError("sub")))
`,
    });
    const r = proofRun(dir);
    expect(r.result.errors).toEqual([]);
    const test = r.record.tests.find((t) => t.id === "tests/test_sub.py::test_with_subtests")!;
    expect(test.subtests!.map((s) => [s.made, s.final, s.logged])).toEqual([
      ["passed", "passed", "passed"],
      ["failed", "failed", "failed"],
    ]);
    expect(test.phases.map((p) => [p.when, p.raised, p.made, p.logged])).toEqual([
      ["setup", "none", "passed", "passed"],
      ["call", "none", "passed", "passed"],
      ["teardown", "none", "passed", "passed"],
    ]);
    expect(test.outcome).toBe("failed");
    expect(judgeRunIntegrity(r.record)).toEqual([]);
  });
});

const FAILING = {
  "calc.py": CALC,
  "tests/test_calc.py": `from calc import add


def test_regression():
    assert add(2, 2) == 5


def test_fine():
    assert add(1, 1) == 2
`,
};

describe("a conftest.py hook that turns failures into passes", () => {
  it("a makereport hookwrapper: pytest says passed, the record says tampered", () => {
    const dir = project({
      ...FAILING,
      "tests/conftest.py": `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(r.run.stdout).toContain("2 passed");
    expect(outcomes(r.record)["tests/test_calc.py::test_regression"]).toBe("passed");
    const [finding] = judgeRunIntegrity(r.record);
    expect(finding).toMatchObject({ code: "outcome_tampered", tests: ["tests/test_calc.py::test_regression"] });
    expect(finding!.message).toContain("made failed, then changed to passed");
    expect(judgeRunnerHooks(r.record)).toEqual([
      expect.objectContaining({
        paths: ["tests/conftest.py"],
        message: expect.stringContaining("pytest_runtest_makereport (wrapper)"),
      }),
    ]);
  });

  it("a trylast wrapper (innermost among the conftests) and a tryfirst one (outermost): the gate's views still wrap them", () => {
    const dir = project({
      ...FAILING,
      "tests/conftest.py": `import pytest


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if outcome.get_result().failed:
        outcome.get_result().outcome = "passed"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    if report.when == "teardown":
        report.outcome = "passed"
`,
    });
    const r = proofRun(dir);
    expect(r.run.stdout).toContain("2 passed");
    expect(judgeRunIntegrity(r.record).map((f) => [f.code, f.tests])).toEqual([
      ["outcome_tampered", ["tests/test_calc.py::test_regression"]],
    ]);
  });

  it("a pytest_runtest_call wrapper that swallows the test's exception", () => {
    const dir = project({
      ...FAILING,
      "tests/conftest.py": `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    if outcome.excinfo is not None:
        outcome.force_result(None)
`,
    });
    const r = proofRun(dir);
    expect(r.run.stdout).toContain("2 passed");
    const [finding] = judgeRunIntegrity(r.record);
    expect(finding!.message).toContain("its call raised AssertionError, but the report was made passed");
  });

  it("a pytest_sessionfinish hook that sets the exit status to 0", () => {
    const dir = project({
      ...FAILING,
      "conftest.py": `def pytest_sessionfinish(session, exitstatus):
    session.exitstatus = 0
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(judgeRunIntegrity(r.record).map((f) => f.code)).toEqual(["exit_status_masked"]);
  });

  it("a pytest_collection_modifyitems hook that drops the failing test without deselecting it", () => {
    const dir = project({
      ...FAILING,
      "conftest.py": `def pytest_collection_modifyitems(items):
    items[:] = [i for i in items if "regression" not in i.name]
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(judgeSelection(r.record, { leased: [] }).map((f) => [f.code, f.tests])).toEqual([
      ["test_not_run", ["tests/test_calc.py::test_regression"]],
    ]);
  });
});

describe("a test module that monkeypatches pytest's report objects", () => {
  it("wrapping TestReport.from_item_and_call at import: detected as a made pass for a raise, and as patched", () => {
    const dir = project({
      ...FAILING,
      "tests/test_calc.py": `import _pytest.reports
from calc import add

_made = _pytest.reports.TestReport.from_item_and_call.__func__


def _lenient(cls, item, call):
    report = _made(cls, item, call)
    if report.failed:
        report.outcome = "passed"
    return report


_pytest.reports.TestReport.from_item_and_call = classmethod(_lenient)


def test_regression():
    assert add(2, 2) == 5
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(r.run.stdout).toContain("1 passed");
    const codes = judgeRunIntegrity(r.record).map((f) => f.code);
    expect(codes).toEqual(["outcome_tampered", "internals_patched"]);
    expect(r.record.patched.map((p) => p.name)).toContain("_pytest.reports.TestReport.from_item_and_call");
  });

  it("replacing BaseReport.failed with monkeypatch in the body: pytest exits 0, the record still says failed", () => {
    const dir = project({
      ...FAILING,
      "tests/test_calc.py": `import _pytest.reports
from calc import add


def test_regression(monkeypatch):
    monkeypatch.setattr(_pytest.reports.BaseReport, "failed", property(lambda self: False))
    assert add(2, 2) == 5
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(outcomes(r.record)["tests/test_calc.py::test_regression"]).toBe("failed");
    expect(judgeRunIntegrity(r.record).map((f) => f.code)).toEqual(["internals_patched", "exit_status_masked"]);
    expect(r.record.patched).toEqual([
      { name: "_pytest.reports.BaseReport.failed", first: "tests/test_calc.py::test_regression" },
    ]);
  });

  it("a plugin registered from a test, inside the gate's views: the made report contradicts the raise, and the lost position shows", () => {
    const dir = project({
      ...FAILING,
      "tests/test_a_register.py": `import pytest


class Lenient:
    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if outcome.get_result().failed:
            outcome.get_result().outcome = "passed"


def test_register(pytestconfig):
    pytestconfig.pluginmanager.register(Lenient(), "lenient")
`,
    });
    const r = proofRun(dir);
    expect(r.run.stdout).toContain("3 passed");
    // Registered later than the gate's innermost makereport view, the plugin sits inside it, so the made
    // report is already a pass; the innermost runtest view still saw the AssertionError.
    expect(judgeRunIntegrity(r.record).map((f) => [f.code, f.tests])).toEqual([
      ["outcome_tampered", ["tests/test_calc.py::test_regression"]],
      ["hook_order_lost", undefined],
    ]);
    expect(r.record.guard.pytest_runtest_makereport).toBe(false);
  });
  it("a plugin that swallows the failure and unregisters itself before the session ends: hook_order_lost", () => {
    const dir = project({
      ...FAILING,
      "tests/test_a_register.py": `import pytest


class Swallow:
    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_call(self, item):
        outcome = yield
        if outcome.excinfo is not None:
            outcome.force_result(None)
            item.config.pluginmanager.unregister(self)


def test_register(pytestconfig):
    pytestconfig.pluginmanager.register(Swallow(), "swallow")
`,
    });
    const r = proofRun(dir);
    expect(r.run.stdout).toContain("3 passed");
    // Inside the gate's innermost view, the swallow looks like a pass to it; gone by session end, it is
    // in no hook list; but it sat inside the view when the call began.
    expect(judgeRunIntegrity(r.record).map((f) => f.code)).toEqual(["hook_order_lost"]);
    expect(r.record.guard).toMatchObject({ pytest_runtest_call: false, pytest_runtest_makereport: true });
  });
});

describe("a repository-root pytest.py that shadows pytest", () => {
  const files = {
    ...FAILING,
    "pytest.py": "import sys\nprint('all tests passed')\nsys.exit(0)\n",
  };

  it("`python -m pytest` runs the work tree's pytest.py: exit 0, no record (file_missing); the shadow check refuses it", () => {
    const dir = project(files);
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    expect(r.run.stdout).toContain("all tests passed");
    expect(r.text).toBeUndefined();
    expect(r.result.errors[0]).toMatchObject({ code: "file_missing", problem: "missing" });
    expect(findToolShadows(Object.keys(files)).map((f) => [f.code, f.paths])).toEqual([
      ["tool_shadowed", ["pytest.py"]],
    ]);
  });

  it("with `python -P` (Python 3.11) the real pytest runs: the failure shows and the record says safe_path", () => {
    const dir = project({
      ...files,
      "tests/conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
    });
    const r = proofRun(dir, { pythonArgs: ["-P"] });
    expect(r.run.status).toBe(1);
    expect(r.result.errors).toEqual([]);
    expect(r.record.python.safePath).toBe(true);
    expect(r.record.sysPath).not.toContain(".");
    expect(outcomes(r.record)["tests/test_calc.py::test_regression"]).toBe("failed");
  });

  it("PYTHONSAFEPATH=1 does the same; without a root conftest the project's root modules are not importable", () => {
    const dir = project(files);
    const r = proofRun(dir, { env: { PYTHONSAFEPATH: "1" } });
    expect(r.run.status).toBe(2);
    expect(r.run.stdout).toContain("ModuleNotFoundError: No module named 'calc'");
    expect(r.record.collection[0]).toMatchObject({ id: "tests/test_calc.py", logged: "failed" });
  });
});

describe("a record that is not this run's", () => {
  const dir = project(FAILING);

  it("the plugin not loaded (PYTEST_ADDOPTS dropped by the command): no record, file_missing", () => {
    const r = proofRun(dir, { noPlugin: true });
    expect(r.run.status).toBe(1);
    expect(r.result.errors[0]).toMatchObject({ code: "file_missing", problem: "missing" });
  });

  it("an environment with the record's path but no key: a usage error (exit 4), no record", () => {
    const r = proofRun(dir, { env: { PROOFGATE_RUN_KEY: "" } });
    expect(r.run.status).toBe(4);
    expect(r.run.stderr).toContain(
      "the proof run's environment is incomplete: PROOFGATE_RUN_NONCE, PROOFGATE_RUN_RECORD set without PROOFGATE_RUN_KEY",
    );
    expect(r.result.errors[0]!.problem).toBe("missing");
  });

  it("a record from another run: wrong_nonce", () => {
    const r = proofRun(dir, { expectNonce: "f".repeat(32) });
    expect(r.text).toBeDefined();
    expect(r.result.errors[0]).toMatchObject({ code: "run_record_invalid", problem: "wrong_nonce" });
  });

  it("a record with its outcome edited after the run: bad_signature", () => {
    const r = proofRun(dir);
    const edited = r.text!.replace('"outcome":"failed"', '"outcome":"passed"');
    expect(edited).not.toBe(r.text);
    expect(verifyRunRecord(edited, { nonce: r.nonce, key: r.key, file: "x" }).errors[0]!.problem).toBe("bad_signature");
  });
});

describe("the run's variables are out of the test's environment", () => {
  it("os.environ and child processes lack them; /proc/self/environ still has them (documented)", () => {
    const dir = project({
      "tests/test_env.py": `import json, os, subprocess


def test_env():
    child = subprocess.run(["sh", "-c", "echo \${PROOFGATE_RUN_KEY:-unset}"], capture_output=True, text=True).stdout.strip()
    with open("/proc/self/environ", "rb") as f:
        proc = b"PROOFGATE_RUN_KEY=" in f.read()
    with open(os.path.join(os.environ["OUT"], "seen.json"), "w") as out:
        json.dump({"environ": "PROOFGATE_RUN_KEY" in os.environ, "child": child, "proc": proc}, out)
`,
    });
    const outside = project({});
    const r = proofRun(dir, { env: { OUT: outside } });
    expect(r.result.errors).toEqual([]);
    expect(JSON.parse(readFileSync(join(outside, "seen.json"), "utf8"))).toEqual({
      environ: false,
      child: "unset",
      proc: true,
    });
  });
});

describe("files the tests read", () => {
  it("a golden file copied out of the locked folder and read from there: unlocked_fixture_read naming the test", () => {
    const dir = project({
      "calc.py": CALC,
      "tests/fixtures/expected.txt": "5\n",
      "tests/golden_copy/expected.txt": "4\n",
      "tests/test_calc.py": `from pathlib import Path
from calc import add


def test_add():
    assert add(2, 2) == int(Path("tests/golden_copy/expected.txt").read_text())
`,
    });
    const r = proofRun(dir);
    expect(r.run.status).toBe(0);
    const [finding] = judgeFileReads(r.record, { fixtures: ["tests/fixtures"], lock: "fixtures.lock" });
    expect(finding).toMatchObject({
      code: "unlocked_fixture_read",
      paths: ["tests/golden_copy/expected.txt"],
      tests: ["tests/test_calc.py::test_add"],
    });
  });

  it("under pytest-cov and hypothesis: the record verifies, coverage's data file is a write, the seeds are read through their mount", () => {
    const seeds = project({ "tests/properties/seeds/a.txt": "1\n", "tests/properties/seeds/b.txt": "2\n" });
    const dir = project({
      "calc.py": CALC,
      ".coveragerc": "[run]\nbranch = True\n",
      "tests/properties/seeds/a.txt": "1\n",
      "tests/properties/seeds/b.txt": "2\n",
      "tests/properties/test_props.py": `import os
from hypothesis import given, settings, strategies as st
from calc import add

SEEDS = os.environ["PROOFGATE_SEEDS_DIR"]


def test_seed_a():
    with open(os.path.join(SEEDS, "tests/properties/seeds/a.txt")) as f:
        assert add(int(f.read()), 0) == 1


@settings(max_examples=20)
@given(st.integers(), st.integers())
def test_commutes(a, b):
    assert add(a, b) == add(b, a)
`,
    });
    const r = proofRun(dir, {
      pytestArgs: ["--cov=.", "--cov-report="],
      env: { PROOFGATE_SEEDS_DIR: seeds },
      mounts: [{ dir: seeds, prefix: "", label: "base-seeds" }],
    });
    expect(r.run.status, r.run.stdout).toBe(0);
    expect(r.result.errors).toEqual([]);
    expect(r.record.plugins).toEqual(expect.arrayContaining(["pytest-cov==4.0.0", "hypothesis==6.67.1"]));
    expect(r.record.files.find((f) => f.path === ".coverage")).toMatchObject({ write: true });
    expect(judgeFileReads(r.record, { fixtures: [], lock: "fixtures.lock" })).toEqual([]);
    const [finding] = judgeSeedReads(r.record, ["tests/properties/seeds/a.txt", "tests/properties/seeds/b.txt"], {
      via: "base-seeds",
    });
    expect(finding).toMatchObject({ code: "seed_not_read", paths: ["tests/properties/seeds/b.txt"] });
    expect(judgeRunIntegrity(r.record)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { scanRunnerTampering } from "./scan.js";

const file = (path: string, ...texts: string[]) => ({ path, lines: texts.map((text, i) => ({ line: i + 1, text })) });

describe("scanRunnerTampering", () => {
  it("finds imports of pytest's internals in every form", () => {
    const [finding] = scanRunnerTampering([
      file(
        "tests/test_a.py",
        "from _pytest.reports import TestReport",
        "import _pytest.runner",
        "import os, _pytest",
        "mod = importlib.import_module('_pytest.runner')",
        "from pluggy._callers import _multicall",
        "sys.modules['_pytest.reports'].x = 1",
      ),
    ]);
    expect(finding).toMatchObject({ code: "runner_tampering", paths: ["tests/test_a.py"] });
    expect(finding!.lines!.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(finding!.message).toContain("imports pytest's internals (_pytest) (line 1, 2, 3, 4)");
  });

  it("finds source that reaches the gate's plugin state through sys.modules, whatever the module's name", () => {
    const [finding, ...rest] = scanRunnerTampering([
      file(
        "pkg/calc.py",
        "for m in list(sys.modules.values()):",
        "    run = getattr(m, '_RUN', None)",
        "    if run is not None: run.above = ()",
        'vars(m)["_SHIPPED"] = None',
        "m._AUDIT = False",
        "RUN = 1  # a name of the project's own",
        "_RUN = 2",
      ),
    ]);
    expect(rest).toEqual([]);
    expect(finding!.lines!.map((l) => l.line)).toEqual([2, 4, 5]);
    expect(finding!.message).toContain("reaches the gate's plugin state (line 2, 4, 5)");
  });

  it("finds a test module that monkeypatches TestReport, and a conftest hook that rewrites outcomes", () => {
    const found = scanRunnerTampering([
      file(
        "tests/test_b.py",
        "    monkeypatch.setattr(TestReport, 'from_item_and_call', fake)",
        "TestReport.from_item_and_call = classmethod(fake)",
        'monkeypatch.setattr("_pytest.reports.TestReport.passed", property(lambda s: True))',
        "setattr(reports.BaseReport, 'failed', False)",
      ),
      file(
        "tests/conftest.py",
        "@pytest.hookimpl(hookwrapper=True)",
        "def pytest_runtest_makereport(item, call):",
        "    outcome = yield",
        "    rep = outcome.get_result()",
        "    rep.outcome = 'passed'",
        "    rep.longrepr = None",
        "    outcome.force_result(rep)",
        "    session.exitstatus = 0",
      ),
    ]);
    expect(found.map((f) => f.lines!.map((l) => l.line))).toEqual([
      [1, 2, 3, 4],
      [2, 5, 6, 7, 8],
    ]);
    expect(found[1]!.message).toContain("implements a hook that decides what runs or what a result is (line 2)");
  });

  it("finds a Hypothesis profile registered or loaded in a source module, and leaves @settings alone", () => {
    const [finding, ...rest] = scanRunnerTampering([
      file(
        "pkg/__init__.py",
        "from hypothesis import settings",
        'settings.register_profile("fast", max_examples=1)',
        'settings.load_profile("fast")',
        "hypothesis.settings._current_profile = 'fast'",
        "x = settings.get_profile('ci')  # reading is fine",
        '# settings.load_profile("fast") in a comment is not code',
      ),
      file("tests/properties/test_p.py", "@settings(max_examples=50)", "def test_p(): pass"),
    ]);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ code: "runner_tampering", paths: ["pkg/__init__.py"] });
    expect(finding!.lines!.map((l) => l.line)).toEqual([2, 3, 4]);
    expect(finding!.message).toContain("changes Hypothesis's settings for every property (a profile) (line 2, 3, 4)");
  });

  it("finds reads of the run key, plugin unregistration and tracer changes", () => {
    const [finding] = scanRunnerTampering([
      file(
        "tests/helpers.py",
        "key = open('/proc/self/environ').read()",
        "os.environ.get('PROOFGATE_RUN_KEY')",
        "config.pluginmanager.unregister(name='x')",
        "sys.settrace(None)",
      ),
    ]);
    expect(finding!.lines!.map((l) => l.line)).toEqual([1, 2, 3, 4]);
  });

  it("ignores comments, comparisons, `.outcome =` outside test code, and non-Python files", () => {
    expect(
      scanRunnerTampering([
        file(
          "tests/test_c.py",
          "# from _pytest import x",
          "assert rep.outcome == 'passed'",
          "x = 1  # import _pytest",
          "s = '# not a comment'",
        ),
        file("src/game.py", "self.outcome = 'won'"),
        file("docs/notes.md", "from _pytest import x"),
      ]),
    ).toEqual([]);
  });
});

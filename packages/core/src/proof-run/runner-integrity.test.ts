import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verifyRunRecord, type RunRecord } from "./record.js";
import { runnerIntegrityWarnings, runnerPartsOfProject } from "./runner-integrity.js";

const RECORDED = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
  nonce: "0123456789abcdef0123456789abcdef",
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  file: "run-record.json",
}).record!;
const withRecord = (edit: Partial<RunRecord>): RunRecord => ({ ...structuredClone(RECORDED), ...edit });
const hook = (plugin: string) => ({
  plugin,
  hook: "pytest_configure",
  wrapper: false,
  tryfirst: false,
  trylast: false,
});

describe("runnerPartsOfProject: where the project is part of its own test runner", () => {
  it("nothing for an ordinary project, its conftest.py plugins and test support plugins", () => {
    const paths = ["calc/__init__.py", "tests/test_calc.py", "conftest.py"];
    const record = withRecord({
      hooks: [hook("conftest.py"), hook("tests/conftest.py"), hook("tests/plugin.py"), hook("calc/tests/plugin.py")],
    });
    expect(runnerPartsOfProject({ paths, records: [record] })).toEqual([]);
    expect(runnerIntegrityWarnings({ paths, records: [record] })).toEqual([]);
  });

  it("pluggy's own repository (src layout) and a flat one whose package is pytest's", () => {
    expect(runnerPartsOfProject({ paths: ["src/pluggy/__init__.py", "testing/test_hooks.py"], records: [] })).toEqual([
      "src/pluggy/ is the runner's `pluggy`",
    ]);
    expect(runnerPartsOfProject({ paths: ["_pytest/__init__.py", "pytest/__init__.py"], records: [] })).toEqual([
      "_pytest/ is the runner's `_pytest`",
      "pytest/ is the runner's `pytest`",
    ]);
  });

  it("tomli's own repository: the runner's only on a Python before 3.11, where pytest loads tomli", () => {
    const paths = ["src/tomli/__init__.py", "src/tomli/_parser.py", "tests/test_data.py"];
    const on = (version: string) => withRecord({ python: { ...RECORDED.python, version } });
    expect(runnerPartsOfProject({ paths, records: [on("3.11.2")] })).toEqual([]);
    expect(runnerPartsOfProject({ paths, records: [on("3.13.0")] })).toEqual([]);
    expect(runnerPartsOfProject({ paths, records: [on("3.10.14")] })).toEqual(["src/tomli/ is the runner's `tomli`"]);
    // A proof run on 3.11 and a property run on 3.10: the older one decides.
    expect(runnerPartsOfProject({ paths, records: [on("3.11.2"), on("3.10.14")] })).toHaveLength(1);
    // No record (check without --run): the Python is unknown, so it is still said.
    expect(runnerPartsOfProject({ paths, records: [] })).toEqual(["src/tomli/ is the runner's `tomli`"]);
    // Only the backports: pluggy is pytest's on every Python.
    expect(runnerPartsOfProject({ paths: ["src/pluggy/__init__.py"], records: [on("3.12.1")] })).toHaveLength(1);
  });

  it("a pytest plugin of the repository that pytest loaded (an entry point), and a runner module the run imported", () => {
    const record = withRecord({
      hooks: [hook("src/pytest_randomly/__init__.py"), hook("conftest.py")],
      shadowed: [{ module: "coverage", path: "lib/coverage/__init__.py" }],
    });
    expect(runnerPartsOfProject({ paths: ["src/pytest_randomly/__init__.py"], records: [record] })).toEqual([
      "lib/coverage/__init__.py was imported as the runner's `coverage`",
      "src/pytest_randomly/__init__.py is loaded as a pytest plugin",
    ]);
  });

  it("the warning says the runner's integrity cannot be established", () => {
    const [warning] = runnerIntegrityWarnings({ paths: ["src/pluggy/__init__.py"], records: [] });
    expect(warning).toMatchObject({ code: "runner_unverifiable" });
    expect(warning!.message).toMatch(/^the runner's integrity cannot be established: .*src\/pluggy\//);
  });
});

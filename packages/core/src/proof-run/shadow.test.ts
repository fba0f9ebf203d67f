import { describe, expect, it } from "vitest";
import { findToolShadows, pytestImportRoot } from "./shadow.js";

const paths = (...p: string[]) => p;

describe("findToolShadows: work-tree modules ahead of the test tools or the standard library", () => {
  it("refuses a root pytest.py, _pytest/ package, pluggy, py.py, coverage/, hypothesis/ and pytest_cov", () => {
    const found = findToolShadows(
      paths(
        "pytest.py",
        "_pytest/__init__.py",
        "_pytest/runner.py",
        "pluggy/__init__.py",
        "py.py",
        "coverage/__init__.py",
        "hypothesis/__init__.py",
        "pytest_cov.py",
        "src/app.py",
      ),
    );
    expect(found.map((f) => f.paths![0])).toEqual([
      "_pytest/",
      "coverage/",
      "hypothesis/",
      "pluggy/",
      "py.py",
      "pytest.py",
      "pytest_cov.py",
    ]);
    expect(found.find((f) => f.paths![0] === "pytest.py")).toMatchObject({
      code: "tool_shadowed",
      message: expect.stringContaining(
        "shadows the test tool module `pytest`: `python -m pytest` puts the working directory first",
      ),
      fix: expect.stringContaining("python -P"),
    });
  });

  it("refuses a root json.py or hmac.py (the standard library, imported after the root is on sys.path)", () => {
    expect(findToolShadows(["json.py", "hmac.py", "logging/__init__.py"]).map((f) => f.paths![0])).toEqual([
      "hmac.py",
      "json.py",
      "logging/",
    ]);
    expect(findToolShadows(["json.py"], { stdlib: false })).toEqual([]);
  });

  it("ignores modules loaded before any work-tree folder is on sys.path, namespace folders and nested modules", () => {
    expect(
      findToolShadows(["os.py", "site.py", "pytest/conftest_helper.py", "src/pkg/json.py", "src/pkg/__init__.py"]),
    ).toEqual([]);
  });

  it("with safePath the root is not on sys.path, unless pytest puts it there for a root conftest.py", () => {
    expect(findToolShadows(["pytest.py", "tests/test_a.py"], { safePath: true })).toEqual([]);
    expect(findToolShadows(["pytest.py", "conftest.py"], { safePath: true }).map((f) => f.paths![0])).toEqual([
      "pytest.py",
    ]);
  });

  it("finds shadows in the folders pytest inserts for test modules (prepend import mode)", () => {
    const found = findToolShadows(["tests/test_a.py", "tests/hypothesis.py", "tests/json.py"], { safePath: true });
    expect(found.map((f) => f.paths![0])).toEqual(["tests/hypothesis.py", "tests/json.py"]);
    expect(found[0]!.message).toContain("pytest inserts it into sys.path to import tests/test_a.py");
  });

  it("a test package's modules are imported by package name, so its folder is not a root", () => {
    expect(findToolShadows(["tests/__init__.py", "tests/test_a.py", "tests/json.py"], { safePath: true })).toEqual([]);
  });

  it("extra roots (pytest's pythonpath, src)", () => {
    expect(findToolShadows(["src/coverage.py"], { extraRoots: ["src"] }).map((f) => f.paths![0])).toEqual([
      "src/coverage.py",
    ]);
  });

  it("the gate's own plugin names and extension modules", () => {
    expect(
      findToolShadows(["proofgate_run_0123456789abcdef.py", "_pytest.cpython-311-x86_64-linux-gnu.so"]).map(
        (f) => f.paths![0],
      ),
    ).toEqual(["_pytest.cpython-311-x86_64-linux-gnu.so", "proofgate_run_0123456789abcdef.py"]);
  });
});

describe("pytestImportRoot", () => {
  const has = (set: string[]) => (p: string) => set.includes(p);
  it("is the first folder up that is not a package", () => {
    expect(pytestImportRoot("tests/unit/test_a.py", has([]))).toBe("tests/unit");
    expect(pytestImportRoot("tests/unit/test_a.py", has(["tests/unit/__init__.py"]))).toBe("tests");
    expect(pytestImportRoot("tests/unit/test_a.py", has(["tests/unit/__init__.py", "tests/__init__.py"]))).toBe("");
    expect(pytestImportRoot("conftest.py", has([]))).toBe("");
  });
});

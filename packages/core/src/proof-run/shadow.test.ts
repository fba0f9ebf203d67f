import { describe, expect, it } from "vitest";
import { findToolShadows, pytestImportRoot, shadowMadeBy, topLevelModule } from "./shadow.js";

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

// more-itertools' own layout (github:more-itertools/more-itertools): the package at the root, tests in a
// package, so pytest puts the root on sys.path even under `python -P`.
const MORE_ITERTOOLS = [
  "more_itertools/__init__.py",
  "more_itertools/more.py",
  "more_itertools/recipes.py",
  "tests/__init__.py",
  "tests/test_more.py",
  "tests/test_recipes.py",
  "pyproject.toml",
];

describe("shadowing judged against the base: the base's tree is the project's own", () => {
  it("topLevelModule: a module file or a package folder, and the folder that must be on sys.path", () => {
    expect(topLevelModule("more_itertools/__init__.py")).toEqual({
      module: "more_itertools",
      root: "",
      shown: "more_itertools/",
    });
    expect(topLevelModule("tests/json.py")).toEqual({ module: "json", root: "tests", shown: "tests/json.py" });
    expect(topLevelModule("__init__.py")).toBeUndefined();
    expect(topLevelModule("README.md")).toBeUndefined();
  });

  it("a package the base already had (more_itertools, also installed as a dependency of pytest) is quiet", () => {
    const trees = { base: MORE_ITERTOOLS, head: [...MORE_ITERTOOLS, "more_itertools/extra.py"] };
    expect(shadowMadeBy("more_itertools", "more_itertools/__init__.py", trees)).toBeUndefined();
    expect(
      shadowMadeBy("more_itertools", "more_itertools/__init__.py", { ...trees, options: { safePath: true } }),
    ).toBe(undefined);
  });

  it("an installed package in the checkout's ignored virtual environment is the environment's; tracked, it is judged", () => {
    // cachetools with its `.venv` inside the clone: setuptools' _distutils_hack loads at start from there.
    const venvHack = ".venv/lib/python3.11/site-packages/_distutils_hack/__init__.py";
    const trees = { base: MORE_ITERTOOLS, head: MORE_ITERTOOLS };
    expect(shadowMadeBy("_distutils_hack", venvHack, trees)).toBeUndefined();
    expect(shadowMadeBy("_distutils_hack", "venv/lib/python3/dist-packages/_distutils_hack/__init__.py", trees)).toBe(
      undefined,
    );
    // The patch commits a module into that folder: its own.
    const committed = { base: MORE_ITERTOOLS, head: [...MORE_ITERTOOLS, venvHack] };
    expect(shadowMadeBy("_distutils_hack", venvHack, committed)).toEqual([venvHack]);
    // Not an installed packages folder: a module no commit tracks is still judged.
    expect(shadowMadeBy("json", "build/json.py", trees)).toEqual(["build/json.py"]);
  });

  it("a module the patch adds is the patch's: json.py or pluggy.py next to the tests, a package renamed to pytest", () => {
    const head = [...MORE_ITERTOOLS, "json.py", "pluggy.py", "pytest/__init__.py"];
    const trees = { base: MORE_ITERTOOLS, head };
    expect(shadowMadeBy("json", "json.py", trees)).toEqual(["json.py"]);
    expect(shadowMadeBy("pluggy", "pluggy.py", trees)).toEqual(["pluggy.py"]);
    expect(shadowMadeBy("pytest", "pytest/__init__.py", trees)).toEqual(["pytest/__init__.py"]);
  });

  it("a module loaded under a name its file does not give is the patch's", () => {
    expect(shadowMadeBy("json", "more_itertools/__init__.py", { base: MORE_ITERTOOLS, head: MORE_ITERTOOLS })).toEqual([
      "more_itertools/__init__.py",
    ]);
  });

  it("a module whose name becomes shadowing in the patch: its folder stops being a package", () => {
    const base = [...MORE_ITERTOOLS, "tests/json.py"];
    const head = base.filter((p) => p !== "tests/__init__.py");
    expect(shadowMadeBy("json", "tests/json.py", { base, head })).toEqual(["tests/__init__.py"]);
  });

  it("a module whose name becomes shadowing in the patch: a test module added to a folder pytest never inserted", () => {
    const base = [...MORE_ITERTOOLS, "scripts/json.py"];
    const head = [...base, "scripts/test_json.py"];
    expect(shadowMadeBy("json", "scripts/json.py", { base, head })).toEqual(["scripts/test_json.py"]);
    // The same folder already on the base's path (a test module there) is the project's own.
    expect(shadowMadeBy("json", "scripts/json.py", { base: head, head })).toBeUndefined();
  });

  it("a src layout with `pythonpath = src` at the base: its own package there is quiet, a new root is not", () => {
    const base = ["src/more_itertools/__init__.py", "tests/test_more.py"];
    const trees = { base, head: base, baseOptions: { extraRoots: ["src"] } };
    expect(shadowMadeBy("more_itertools", "src/more_itertools/__init__.py", trees)).toBeUndefined();
    // Without the base's pythonpath (the head's own settings added it), it is the patch's.
    expect(shadowMadeBy("more_itertools", "src/more_itertools/__init__.py", { base, head: base })).toEqual([
      "src/more_itertools/__init__.py",
    ]);
  });

  it("findToolShadows with the base reports only what the patch made, naming what made it", () => {
    const base = [...MORE_ITERTOOLS, "tests/typing.py"];
    const head = [...base.filter((p) => p !== "tests/__init__.py"), "pluggy.py"];
    const found = findToolShadows(head, {}, base);
    expect(found.map((f) => [f.paths![0], f.madeBy])).toEqual([
      ["pluggy.py", ["pluggy.py"]],
      ["tests/typing.py", ["tests/__init__.py"]],
    ]);
    // The package renamed to pytest: the new folder is the patch's.
    const renamed = MORE_ITERTOOLS.map((p) => p.replace(/^more_itertools\//, "pytest/"));
    expect(findToolShadows(renamed, {}, MORE_ITERTOOLS).map((f) => [f.paths![0], f.madeBy])).toEqual([
      ["pytest/", ["pytest/__init__.py"]],
    ]);
    // The root's own json.py at the base stays quiet; without the base it is reported as before.
    expect(findToolShadows([...MORE_ITERTOOLS, "json.py"], {}, [...MORE_ITERTOOLS, "json.py"])).toEqual([]);
    expect(findToolShadows([...MORE_ITERTOOLS, "json.py"]).map((f) => f.paths![0])).toEqual(["json.py"]);
  });

  it("suggests `python -P` only where it keeps the module off sys.path", () => {
    // A tests package makes pytest insert the root itself: -P would not help.
    const [inPackage] = findToolShadows([...MORE_ITERTOOLS, "json.py"], {}, MORE_ITERTOOLS);
    expect(inPackage!.fix).toBe("rename or remove json.py");
    const [plain] = findToolShadows(["tests/test_a.py", "json.py"], {}, ["tests/test_a.py"]);
    expect(plain!.fix).toContain("python -P");
    const [safe] = findToolShadows(["conftest.py", "json.py"], { safePath: true }, ["conftest.py"]);
    expect(safe!.fix).toBe("rename or remove json.py");
  });
});

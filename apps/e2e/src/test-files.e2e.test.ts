// Issue 21 items 4 and 7, end to end with `check --run` (real pytest 7.2, pytest-cov 4.0, coverage.py 6.5,
// git). A test file is what pytest collects: with the tests inside the package (`testpaths = pkg`, tests
// in pkg/tests/), the package's modules are still source, so an agent's `# pragma: no cover` there is
// REJECT and a harmless change is MERGE. Code that runs is measured wherever it lives: a module the patch
// puts under tests/ that the package imports and runs, outside the coverage report, is unmeasured_source.
// The same changes by a human with `Gate-Change: human` are MERGE. Test support, a module only test code
// uses (no non-test module is its first importer in the run's record, none names it at head), is not
// source: an agent's edit to tests/helpers.py or a new tests/strategies.py is MERGE, while a tests/ module
// the package names is REJECT even when a test imported it first.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  CALC,
  HUMAN,
  MERGE_PATCH,
  PY,
  check,
  config,
  makeCheckProject,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) {
    spawnSync("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

interface RecordedImports {
  modules: string[];
  importers: Record<string, string | null>;
}
const recordOf = (p: Project): RecordedImports =>
  JSON.parse(readFileSync(join(p.dir, "proofgate-report", "proof-record.json"), "utf8")) as RecordedImports;

// ---------------------------------------------------------------------------------------------------
// Tests inside the package: pytest.ini's testpaths is the package, the tests are in pkg/tests/.

const INSIDE_TESTS = `import pytest

from pkg.calc import decode, encode, label, total


def test_total():
    assert total([1, 2, 3]) == 6
    assert total([100], discount=10) == 90


def test_negative():
    with pytest.raises(ValueError):
        total([-1])


@pytest.mark.parametrize("n, size", [(1, "small"), (5000, "big")])
def test_label(n, size):
    assert label(n) == size


def test_roundtrip():
    assert decode(encode("abc")) == "abc"
`;

/** The proof run over pytest's testpaths (the package), measuring the package. */
const INSIDE_PROOF = `${PY} -m pytest -p no:cacheprovider -q --cov=pkg --cov-branch --cov-report= -o junit_family=xunit1 --junitxml=results.xml; s=$?; ${PY} -m coverage json -q -o proven_coverage.json; exit $s`;

const INSIDE_BASE: Record<string, FileChange> = {
  "pytest.ini": "[pytest]\ntestpaths = pkg\n",
  "pkg/tests/__init__.py": "",
  "pkg/tests/test_calc.py": INSIDE_TESTS,
  "tests/test_a.py": null,
  "tests/test_b.py": null,
  "freeze.toml": "version = 1\nmax_active_leases = 0\n",
  "proofgate.toml": config({
    collect: `${PY} -m pytest -p no:cacheprovider --collect-only -q > collected.txt`,
    proof: INSIDE_PROOF,
    extra: "\n[fixtures]\nenabled = false\n",
  }),
};

/** The agent's change to the package: a clamp whose low branch no test reaches, excluded with a pragma. */
const CLAMP = `${CALC}

def clamp(n, low, high):
    if n < low:  # pragma: no cover
        return low
    return min(n, high)
`;
const CLAMP_TEST = "from pkg.calc import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n";

function project(
  base: Record<string, FileChange>,
  files: Record<string, FileChange>,
  who: Identity,
  message: string,
): Project {
  const p = makeCheckProject({ base, mergePatch: false, patch: [{ message, files, who }] });
  made.push(p.dir);
  return p;
}

describe("tests inside the package (testpaths = pkg, tests in pkg/tests/)", { timeout: 240_000 }, () => {
  it.concurrent(
    "an agent's `# pragma: no cover` in pkg/calc.py is REJECT coverage_exclusions_added, naming the file, line and commit",
    async () => {
      const p = project(
        INSIDE_BASE,
        { "pkg/calc.py": CLAMP, "pkg/tests/test_clamp.py": CLAMP_TEST },
        AGENT,
        "Add clamp\n",
      );
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["coverage_exclusions_added"]);
      expect(r.status).toBe(1);
      expect(r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author])).toEqual([
        [
          "coverage_exclusions_added",
          "pkg/calc.py",
          lineOf(CLAMP, "if n < low:"),
          p.commits[0],
          `${AGENT.name} <${AGENT.email}>`,
        ],
      ]);
      // The run really collected the tests from inside the package, and coverage.py measured the package.
      expect(readFileSync(join(p.dir, "collected.txt"), "utf8")).toContain("pkg/tests/test_clamp.py::test_clamp");
      const measurement = r.report.signals.find((s) => s.id === "measurement");
      expect(measurement?.value).toMatch(/1 excluded line added; 0 of 1 changed source file unmeasured/);
    },
  );

  it.concurrent("the same pragma by a human with `Gate-Change: human` is MERGE", async () => {
    const p = project(
      INSIDE_BASE,
      { "pkg/calc.py": CLAMP, "pkg/tests/test_clamp.py": CLAMP_TEST },
      HUMAN,
      "Add clamp\n\nGate-Change: human\n",
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it.concurrent("a harmless agent change to the package and its tests is MERGE", async () => {
    const files = {
      "pkg/calc.py": MERGE_PATCH.files["pkg/calc.py"] as string,
      "pkg/tests/test_describe.py":
        'from pkg.calc import describe\n\n\ndef test_describe():\n    assert describe([]) == "empty"\n    assert describe([1, 2]) == "2 items"\n',
    };
    const p = project(INSIDE_BASE, files, AGENT, "Add describe()\n");
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    // The package's module was judged as source (and measured), the new test module was not.
    expect(r.report.signals.find((s) => s.id === "measurement")?.value).toMatch(
      /0 of 1 changed source file unmeasured/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Code that runs is measured wherever it lives: real logic under tests/ that the package imports.

const HELPER_IMPL = `def shipping(weight):
    if weight > 20:
        return 15
    if weight > 5:
        return 8
    return 4
`;
const CALC_USING_HELPER = `${CALC}

def with_shipping(prices, weight):
    from tests.helpers_impl import shipping

    return total(prices) + shipping(weight)
`;
const SHIPPING_TEST = `from pkg.calc import with_shipping


def test_with_shipping():
    assert with_shipping([1, 2], 1) == 7
`;
const IMPORTED_FROM_TESTS = {
  "tests/helpers_impl.py": HELPER_IMPL,
  "pkg/calc.py": CALC_USING_HELPER,
  "tests/test_shipping.py": SHIPPING_TEST,
};

describe("a module under tests/ that the package imports and runs", { timeout: 240_000 }, () => {
  it.concurrent("added by an agent, outside the coverage report: REJECT unmeasured_source under --run", async () => {
    const p = project({}, IMPORTED_FROM_TESTS, AGENT, "Add shipping\n");
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["unmeasured_source"]);
    expect(r.status).toBe(1);
    expect(r.report.details.map((d) => [d.reason, d.file, d.commit, d.author])).toEqual([
      ["unmeasured_source", "tests/helpers_impl.py", p.commits[0], `${AGENT.name} <${AGENT.email}>`],
    ]);
    expect(r.report.details[0]!.message).toContain("the proof run loaded it and did not measure it");
    // coverage.py really did not measure it: the report lists the package only.
    const json = JSON.parse(readFileSync(join(p.dir, "proven_coverage.json"), "utf8")) as { files: object };
    expect(Object.keys(json.files)).not.toContain("tests/helpers_impl.py");
    // The signed record names the repository's modules the run loaded, and only those.
    const record = JSON.parse(readFileSync(join(p.dir, "proofgate-report", "proof-record.json"), "utf8")) as {
      modules: string[];
    };
    expect(record.modules).toEqual(
      expect.arrayContaining(["pkg/__init__.py", "pkg/calc.py", "tests/helpers_impl.py", "tests/test_shipping.py"]),
    );
    expect(record.modules.filter((m) => m.startsWith("proofgate-report/") || !m.endsWith(".py"))).toEqual([]);
    // Its first importer is the package's module (the frame below the import machinery).
    expect(recordOf(p).importers["tests/helpers_impl.py"]).toBe("pkg/calc.py");
  });

  it.concurrent(
    "imported by the package through importlib under a computed name (no import statement names it): REJECT, from the run's side",
    async () => {
      const computed = CALC_USING_HELPER.replace(
        "    from tests.helpers_impl import shipping\n",
        '    import importlib\n\n    shipping = importlib.import_module(".".join(["tests", "helpers_impl"])).shipping\n',
      );
      const p = project({}, { ...IMPORTED_FROM_TESTS, "pkg/calc.py": computed }, AGENT, "Add shipping\n");
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["unmeasured_source"]);
      expect(r.report.details.map((d) => d.file)).toEqual(["tests/helpers_impl.py"]);
      // The plugin walked past importlib's frames to the package's module.
      expect(recordOf(p).importers["tests/helpers_impl.py"]).toBe("pkg/calc.py");
    },
  );

  it.concurrent("taken out of sys.modules after the import, it is still REJECT: the run saw its body run", async () => {
    const dropping = CALC_USING_HELPER.replace(
      "    from tests.helpers_impl import shipping\n",
      '    import sys\n\n    from tests.helpers_impl import shipping\n\n    sys.modules.pop("tests.helpers_impl", None)\n',
    );
    const p = project({}, { ...IMPORTED_FROM_TESTS, "pkg/calc.py": dropping }, AGENT, "Add shipping\n");
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["unmeasured_source"]);
    expect(r.report.details.map((d) => d.file)).toEqual(["tests/helpers_impl.py"]);
  });

  it.concurrent("the same change by a human with `Gate-Change: human` is MERGE", async () => {
    const p = project({}, IMPORTED_FROM_TESTS, HUMAN, "Add shipping\n\nGate-Change: human\n");
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------
// Test support: a module only test code uses (no non-test module is its first importer in the run, none
// names it in an import statement) is not source, wherever it lies.

const HELPERS = `def priced(items):
    return [int(i) for i in items]
`;
const HELPERS_EDITED = `def priced(items):
    return [int(i) for i in items]


def bulk(n, price=1):
    if n <= 0:
        raise ValueError("n")
    return [price] * n
`;
const HELPERS_TEST = `from pkg.calc import total
from tests.helpers import priced


def test_priced_total():
    assert total(priced(["1", "2"])) == 3
`;
const HELPERS_BASE: Record<string, FileChange> = {
  "tests/__init__.py": "",
  "tests/helpers.py": HELPERS,
  "tests/test_priced.py": HELPERS_TEST,
};

describe("test support: a module only test code uses", { timeout: 240_000 }, () => {
  it.concurrent("an agent edits tests/helpers.py and tests/__init__.py, used only by test modules: MERGE", async () => {
    const p = project(
      HELPERS_BASE,
      {
        "tests/__init__.py": '"""The tests."""\n\nSEED = 7\n',
        "tests/helpers.py": HELPERS_EDITED,
        "tests/test_priced.py": `${HELPERS_TEST}

def test_bulk_total():
    from tests.helpers import bulk

    assert total(bulk(3, price=2)) == 6
`,
      },
      AGENT,
      "Tests: a bulk helper\n",
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    // The run loaded both and neither is in the coverage report: the record's first importers decide.
    const record = recordOf(p);
    expect(record.modules).toEqual(expect.arrayContaining(["tests/__init__.py", "tests/helpers.py"]));
    expect(record.importers["tests/helpers.py"]).toBe("tests/test_priced.py");
    expect(record.importers["tests/__init__.py"]).toBeNull();
    const json = JSON.parse(readFileSync(join(p.dir, "proven_coverage.json"), "utf8")) as { files: object };
    expect(Object.keys(json.files)).not.toContain("tests/helpers.py");
  });

  it.concurrent("an agent adds tests/strategies.py, used only by tests: MERGE", async () => {
    const p = project(
      {},
      {
        "tests/strategies.py": `def price_lists():
    for n in range(1, 4):
        yield list(range(n))


def discounts():
    return [0, 10]
`,
        "tests/test_strategies_use.py": `from pkg.calc import total
from tests.strategies import discounts, price_lists


def test_total_without_discount_is_the_sum():
    for prices in price_lists():
        assert total(prices) == sum(prices)
    assert discounts()[0] == 0
`,
      },
      AGENT,
      "Tests: case generators\n",
    );
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(recordOf(p).importers["tests/strategies.py"]).toBe("tests/test_strategies_use.py");
  });

  it.concurrent(
    "the package imports a module under tests/ that a test imported first: still REJECT unmeasured_source (the package names it)",
    async () => {
      const p = project(
        {},
        {
          ...IMPORTED_FROM_TESTS,
          // Collected (and imported) before any module that imports the package's calc.
          "tests/test_0_shipping.py":
            "from tests.helpers_impl import shipping\n\n\ndef test_shipping():\n    assert shipping(1) == 4\n",
        },
        AGENT,
        "Add shipping\n",
      );
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["unmeasured_source"]);
      expect(r.status).toBe(1);
      expect(r.report.details.map((d) => d.file)).toEqual(["tests/helpers_impl.py"]);
      // The run's side alone says "only tests": the test was its first importer.
      expect(recordOf(p).importers["tests/helpers_impl.py"]).toBe("tests/test_0_shipping.py");
    },
  );
});

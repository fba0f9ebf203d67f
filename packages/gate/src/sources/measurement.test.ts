// Measurement and the runner's protected settings, through evaluateGate on real git histories (scratch
// repositories, no cli): each route an agent can take is REJECT with its reason, file, line and commit;
// the same change by a human with `Gate-Change: human` is MERGE; a reformat or a dependency bump is
// MERGE; a configuration the gate cannot read, or a report without its files, is a GateError (exit 2).
import { afterEach, describe, expect, it } from "vitest";
import { GateError, type GateReport } from "@proofgate/core";
import { evaluateGate, type CheckRequest } from "../evaluate.js";
import { silentLog } from "../log.js";
import { nodePorts } from "../node/index.js";
import { ADA, scratchRepo, type ScratchFile, type ScratchIdentity, type ScratchRepo } from "../testing/git-scratch.js";
import { stampEvidence } from "../testing/index.js";

const AGENT: ScratchIdentity = { name: "coding-agent[bot]", email: "7+coding-agent[bot]@users.noreply.github.com" };
const APPROVED = "\n\nGate-Change: human\n";

const CALC = `def total(prices):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative")
        result += p
    return result
`;

const COVERAGERC = `[run]
branch = True
source = pkg

[report]
exclude_lines =
    pragma: no cover
`;

const PYPROJECT = `[project]
name = "pkg"
dependencies = ["attrs>=22"]

[tool.pytest.ini_options]
addopts = "-ra"
testpaths = ["tests"]
`;

/** coverage.py's JSON report of the proof run: it measured pkg/__init__.py and pkg/calc.py. */
const REPORT = JSON.stringify({
  meta: { format: 3 },
  files: {
    "pkg/__init__.py": { summary: { covered_lines: 0, num_statements: 0 } },
    "pkg/calc.py": { summary: { covered_lines: 6, num_statements: 6 } },
  },
  totals: { covered_lines: 6, num_statements: 6, percent_covered: 100.0 },
});

const CONFIG = (extra = ""): string => `[fixtures]
enabled = false

[properties]
enabled = false

[commands]
proof = "make test; python -m coverage json -o proven_coverage.json"
${extra}`;

function baseFiles(over: Record<string, ScratchFile> = {}): Record<string, ScratchFile> {
  return {
    "proofgate.toml": CONFIG(),
    "freeze.toml": "version = 1\nmax_active_leases = 0\n",
    "collected.txt": "tests/test_calc.py::test_total\n\n1 test collected in 0.01s\n",
    "proven_coverage.json": REPORT,
    ".gitignore": "proofgate-report/\n",
    ".coveragerc": COVERAGERC,
    "pyproject.toml": PYPROJECT,
    Makefile: "test:\n\tpython -m pytest --cov=pkg\n",
    "pkg/__init__.py": "",
    "pkg/calc.py": CALC,
    "tests/test_calc.py": "from pkg.calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
    ...over,
  };
}

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

interface Step {
  message: string;
  files: Record<string, ScratchFile>;
  /** Default: the agent. */
  who?: ScratchIdentity;
}

/** A base commit, then the steps; the work tree is left at the last. */
function history(
  steps: Step[],
  base: Record<string, ScratchFile> = {},
): { repo: ScratchRepo; base: string; commits: string[] } {
  const repo = scratchRepo("proofgate-measure-");
  repos.push(repo);
  const baseSha = repo.commit("base", baseFiles(base));
  const commits = steps.map((s) => repo.commit(s.message, s.files, { author: s.who ?? AGENT }));
  return { repo, base: baseSha, commits };
}

function request(base: string): CheckRequest {
  return {
    kind: "check",
    clock: { today: "2026-12-02", override: false },
    base: { revision: base, from: "flag" },
    shallowFix: "git fetch --unshallow",
    outDir: "proofgate-report",
  };
}

async function judge(repo: ScratchRepo, base: string): Promise<GateReport> {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  return evaluateGate(
    request(base),
    nodePorts({ root: repo.dir, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } }),
    silentLog,
  );
}

const where = (r: GateReport) =>
  r.findings.map((f) => `${f.reason} ${f.file ?? "-"}:${f.line ?? "-"} ${f.commit?.slice(0, 7) ?? "-"}`);

interface Route {
  name: string;
  files: Record<string, ScratchFile>;
  base?: Record<string, ScratchFile>;
  /** `reason file:line` of each finding; the commit is the route's. */
  expected: string[];
}

const ROUTES: Route[] = [
  {
    name: "`# pragma: no cover` on the line the change left uncovered",
    files: {
      "pkg/calc.py": CALC.replace('raise ValueError("negative")', 'raise ValueError("negative")  # pragma: no cover'),
    },
    expected: ["coverage_exclusions_added pkg/calc.py:5"],
  },
  {
    name: "omit added to .coveragerc",
    files: { ".coveragerc": COVERAGERC.replace("source = pkg\n", "source = pkg\nomit = pkg/calc.py\n") },
    expected: ["coverage_exclusions_added .coveragerc:4"],
  },
  {
    name: "omit added to [tool.coverage.run] of pyproject.toml (its coverage.py file)",
    base: { ".coveragerc": null, "pyproject.toml": `${PYPROJECT}\n[tool.coverage.run]\nbranch = true\n` },
    files: { "pyproject.toml": `${PYPROJECT}\n[tool.coverage.run]\nbranch = true\nomit = ["pkg/calc.py"]\n` },
    expected: ["coverage_exclusions_added pyproject.toml:11"],
  },
  {
    name: "a new exclusion pattern in exclude_lines",
    files: { ".coveragerc": `${COVERAGERC}    raise ValueError\n` },
    expected: ["coverage_exclusions_added .coveragerc:6"],
  },
  {
    name: "new code placed where --cov does not measure it",
    files: { "helpers/fast.py": "def fast_total(prices):\n    return sum(prices)\n" },
    expected: ["unmeasured_source helpers/fast.py:-"],
  },
  {
    // Without a proof run's record, the head's import statements still show the package using it.
    name: "a module under tests/ that the package imports, without a proof run's record",
    files: {
      "tests/helpers_impl.py": "def fast_total(prices):\n    return sum(prices)\n",
      "pkg/calc.py": `${CALC}\n\ndef fast(prices):\n    from tests.helpers_impl import fast_total\n\n    return fast_total(prices)\n`,
    },
    expected: ["unmeasured_source tests/helpers_impl.py:-"],
  },
  {
    name: "a module under tests/ that pyproject.toml ships as a console script",
    files: {
      "tests/cli_impl.py": "def main():\n    return 0\n",
      "pyproject.toml": `${PYPROJECT}\n[project.scripts]\npkg-cli = "tests.cli_impl:main"\n`,
    },
    expected: ["unmeasured_source tests/cli_impl.py:-"],
  },
  {
    // Without a proof run's record too: every file under testpaths used to count as test code.
    name: "tests inside the package (testpaths = pkg): `# pragma: no cover` in the package's module",
    base: {
      "pyproject.toml": PYPROJECT.replace('testpaths = ["tests"]', 'testpaths = ["pkg"]'),
      "collected.txt": "pkg/tests/test_calc.py::test_total\n\n1 test collected in 0.01s\n",
      "tests/test_calc.py": null,
      "pkg/tests/__init__.py": "",
      "pkg/tests/test_calc.py": "from pkg.calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
    },
    files: {
      "pkg/calc.py": CALC.replace('raise ValueError("negative")', 'raise ValueError("negative")  # pragma: no cover'),
      "pkg/tests/test_calc.py":
        "from pkg.calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3  # pragma: no cover\n",
    },
    expected: ["coverage_exclusions_added pkg/calc.py:5"],
  },
  {
    name: "addopts changed in [tool.pytest.ini_options]",
    files: {
      "pyproject.toml": PYPROJECT.replace(
        'addopts = "-ra"',
        'addopts = "-ra --deselect tests/test_calc.py::test_total"',
      ),
    },
    expected: ["protected_path pyproject.toml:6"],
  },
  {
    name: "addopts changed in a new pytest.ini (pytest reads it first)",
    files: { "pytest.ini": "[pytest]\naddopts = -k 'not total'\n" },
    expected: ["protected_path pytest.ini:2"],
  },
  {
    name: "a conftest.py hook added",
    files: { "tests/conftest.py": "def pytest_collection_modifyitems(items):\n    items.clear()\n" },
    // The file is protected, and the hook it adds reaches into what runs.
    expected: ["runner_tampering tests/conftest.py:1", "protected_path tests/conftest.py:-"],
  },
  {
    name: "the Makefile the proof command runs",
    files: { Makefile: "test:\n\tpython -m pytest --cov=pkg --deselect tests/test_calc.py::test_total\n" },
    expected: ["protected_path Makefile:-"],
  },
  {
    name: "coverage.py's data_file moved (a setting that is not measurement, still protected)",
    files: { ".coveragerc": COVERAGERC.replace("source = pkg\n", "source = pkg\ndata_file = .other\n") },
    expected: ["protected_path .coveragerc:4"],
  },
];

describe("each route: the agent's patch is REJECT, the human's with the trailer MERGE", { timeout: 60_000 }, () => {
  it.each(ROUTES)("$name", async (route) => {
    const agent = history([{ message: "the patch", files: route.files }], route.base);
    const rejected = await judge(agent.repo, agent.base);
    const commit = agent.commits[0]!.slice(0, 7);
    expect(where(rejected)).toEqual(route.expected.map((e) => `${e} ${commit}`));
    expect(rejected.findings.every((f) => f.author === `${AGENT.name} <${AGENT.email}>`)).toBe(true);
    expect(rejected.decision).toBe("REJECT");

    const human = history([{ message: `the patch${APPROVED}`, files: route.files, who: ADA }], route.base);
    const merged = await judge(human.repo, human.base);
    expect(where(merged)).toEqual([]);
    expect(merged.decision).toBe("MERGE");

    const plain = history([{ message: "the patch", files: route.files, who: ADA }], route.base);
    // A human commit without the trailer approves nothing.
    expect((await judge(plain.repo, plain.base)).reasons).toEqual(rejected.reasons);
  });
});

describe("no change by meaning: MERGE", { timeout: 60_000 }, () => {
  const cases: [name: string, files: Record<string, ScratchFile>][] = [
    [
      ".coveragerc reformatted",
      {
        ".coveragerc":
          "# coverage.py\n[coverage:report]\nexclude_lines = pragma: no cover\n\n[coverage:run]\nsource: pkg\nbranch=true\n",
      },
    ],
    [
      "pyproject.toml reformatted, and a dependency bumped",
      {
        "pyproject.toml": `[tool.pytest.ini_options]\ntestpaths = [\n  "tests",\n]\naddopts = "-ra"\n\n[project]\nname = "pkg"\ndependencies = ["attrs>=23.1"]\n`,
      },
    ],
    ["a covered change to measured code", { "pkg/calc.py": `${CALC}\n\ndef double(x):\n    return 2 * x\n` }],
    [
      "an empty __init__.py in a new package, a test helper",
      { "tools/__init__.py": "# tools\n", "tests/helpers.py": "X = 1\n" },
    ],
    [
      "a test helper that only tests import",
      {
        "tests/helpers.py": "def priced(items):\n    return [int(i) for i in items]\n",
        "tests/test_priced.py":
          "from tests.helpers import priced\n\n\ndef test_priced():\n    assert priced(['1']) == [1]\n",
      },
    ],
  ];
  it.each(cases)("%s", async (_name, files) => {
    const { repo, base } = history([{ message: "the patch", files }]);
    const report = await judge(repo, base);
    expect(where(report)).toEqual([]);
    expect(report.signals.find((s) => s.id === "measurement")?.result).toBe("pass");
  });
});

describe("who wrote the line", { timeout: 60_000 }, () => {
  it("a pragma added and removed within the range is no finding; one that predates the base and is moved with its file is none", async () => {
    const pragma = CALC.replace("result += p", "result += p  # pragma: no cover");
    const { repo, base } = history(
      [
        { message: "add", files: { "pkg/calc.py": pragma } },
        { message: "remove", files: { "pkg/calc.py": CALC } },
      ],
      { "pkg/legacy.py": "def old():  # pragma: no cover\n    return 1\n" },
    );
    expect(where(await judge(repo, base))).toEqual([]);
    const moved = history(
      [
        {
          message: "move",
          files: { "pkg/legacy.py": null, "pkg/old.py": "def old():  # pragma: no cover\n    return 1\n" },
        },
      ],
      {
        "pkg/legacy.py": "def old():  # pragma: no cover\n    return 1\n",
        "proven_coverage.json": REPORT.replace(
          '"pkg/calc.py"',
          '"pkg/old.py": {"summary": {"covered_lines": 0, "num_statements": 0}}, "pkg/calc.py"',
        ),
      },
    );
    expect(where(await judge(moved.repo, moved.base))).toEqual([]);
  });

  it("an agent's pragma in a human's approved commit's file is still the agent's", async () => {
    const { repo, base, commits } = history([
      { message: `refactor${APPROVED}`, files: { "pkg/calc.py": `${CALC}\n\ndef f():\n    return 1\n` }, who: ADA },
      { message: "hide", files: { "pkg/calc.py": `${CALC}\n\ndef f():  # pragma: no cover\n    return 1\n` } },
    ]);
    expect(where(await judge(repo, base))).toEqual([
      `coverage_exclusions_added pkg/calc.py:10 ${commits[1]!.slice(0, 7)}`,
    ]);
  });
});

describe("fail closed", { timeout: 60_000 }, () => {
  it("a .coveragerc coverage.py cannot read is exit 2 naming the file and line", async () => {
    const { repo, base, commits } = history([{ message: "break", files: { ".coveragerc": "[run]\nomit\n" } }]);
    const error = await judge(repo, base).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GateError);
    expect((error as GateError).issues).toEqual([
      expect.objectContaining({
        code: "coverage_config_invalid",
        file: `.coveragerc at ${commits[0]!.slice(0, 12)}`,
        line: 2,
      }),
    ]);
  });

  it("a base whose .coveragerc cannot be read is compared with nothing: its fix needs a human's trailer, and can merge", async () => {
    const broken = { ".coveragerc": "[run]\nomit\n" };
    const agent = history([{ message: "fix", files: { ".coveragerc": COVERAGERC } }], broken);
    const report = await judge(agent.repo, agent.base);
    expect(where(report)).toEqual([`coverage_exclusions_added .coveragerc:- ${agent.commits[0]!.slice(0, 7)}`]);
    expect(report.findings[0]?.message).toMatch(
      /at the base \(\.coveragerc:2\), so the head's cannot be compared with it/,
    );
    const human = history([{ message: `fix${APPROVED}`, files: { ".coveragerc": COVERAGERC }, who: ADA }], broken);
    expect((await judge(human.repo, human.base)).decision).toBe("MERGE");
  });

  it("a coverage report that does not list its files is exit 2", async () => {
    const { repo, base } = history([{ message: "x", files: { "pkg/calc.py": `${CALC}# more\n` } }], {
      "proven_coverage.json":
        '{"meta": {"format": 3}, "totals": {"covered_lines": 6, "num_statements": 6, "percent_covered": 100.0}}',
    });
    const error = await judge(repo, base).catch((e: unknown) => e);
    expect((error as GateError).issues[0]).toMatchObject({ code: "coverage_invalid", file: "proven_coverage.json" });
  });

  it("[measurement] enabled = false: the row says off, and a pragma passes", async () => {
    const { repo, base } = history(
      [{ message: "hide", files: { "pkg/calc.py": CALC.replace("result += p", "result += p  # pragma: no cover") } }],
      {
        "proofgate.toml": CONFIG("\n[measurement]\nenabled = false\n"),
      },
    );
    const report = await judge(repo, base);
    expect(report.decision).toBe("MERGE");
    expect(report.signals.find((s) => s.id === "measurement")?.result).toBe("off");
  });

  it("[protect] commands = false leaves the Makefile open; a team's [protect] sections replaces the defaults", async () => {
    const { repo, base } = history(
      [
        {
          message: "m",
          files: { Makefile: "test:\n\tpython -m pytest -k 'not total'\n", "pytest.ini": "[pytest]\naddopts = -x\n" },
        },
      ],
      {
        "proofgate.toml": CONFIG(
          '\n[protect]\ncommands = false\nsections = ["pyproject.toml [tool.pytest.ini_options]"]\n',
        ),
      },
    );
    expect(where(await judge(repo, base))).toEqual([]);
  });
});

describe("the ledger read along the range", () => {
  it("a ledger invalid at one commit of a chain is read once: one warning, though it is also the next commit's parent", async () => {
    const valid = "version = 1\nmax_active_leases = 0\n";
    const { repo, base, commits } = history([
      {
        message: "break the ledger",
        files: { "freeze.toml": `${valid}\n[[leases]]\nnodeid = "tests/test_calc.py::test_total"\n` },
      },
      { message: "mend it", files: { "freeze.toml": valid } },
    ]);
    const r = await judge(repo, base);
    const about = r.warnings.filter((w) => w.message.includes("the ledger was not valid at this commit"));
    expect(about, JSON.stringify(r.warnings)).toHaveLength(1);
    expect(about[0]!.file).toBe(`freeze.toml at ${commits[0]!.slice(0, 12)}`);
  });
});

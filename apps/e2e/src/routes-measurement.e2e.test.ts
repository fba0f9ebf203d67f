// Issue 15's measurement and runner routes, end to end with `check --run` on the e2e project (real pytest
// 7.2, pytest-cov 4.0, coverage.py 6.5, git): each way an agent can make code stop being measured or a
// test stop counting through the runner's configuration is REJECT with the named reason, the file and
// line, the commit and its author; the same change by a human with `Gate-Change: human` is MERGE; a pure
// reformat of every config file (pytest.ini, .coveragerc, pyproject.toml, setup.cfg, tox.ini) is MERGE.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  HUMAN,
  MERGE_PATCH,
  check,
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

/** The project with `base` at the base, MERGE_PATCH (the agent's), then one commit of `files` by `who`. */
function project(
  base: Record<string, FileChange>,
  files: Record<string, FileChange>,
  who: Identity,
  message: string,
): Project {
  const p = makeCheckProject({ base, patch: [{ message, files, who }] });
  made.push(p.dir);
  return p;
}

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** pkg/calc.py after MERGE_PATCH. */
const MERGED_CALC = MERGE_PATCH.files["pkg/calc.py"] as string;

const COVERAGERC = `[run]
branch = True

[report]
exclude_lines =
    pragma: no cover
`;

const PYPROJECT = `[project]
name = "pkg"
version = "1.0"
dependencies = ["attrs>=22"]

[tool.coverage.run]
branch = true
`;

const PYTEST_INI = `[pytest]
markers =
    slow: slow tests
`;

/** Untested code the agent adds to the measured package. */
const EXTRA = `def rarely(n):
    if n > 10:
        return n * 2
    if n > 5:
        return n + 1
    return n
`;

interface Route {
  name: string;
  base?: Record<string, FileChange>;
  files: Record<string, FileChange>;
  reasons: string[];
  /** (reason, file, line) of each finding, in order; each names the route's commit. */
  findings: [reason: string, file: string, line: number | null][];
  also?: (r: CheckRun) => void;
  /** The trailers a human's commit needs for the same change (default `Gate-Change: human`). */
  trailers?: string;
}

const CLAMP = `${MERGED_CALC}

def clamp(n, low, high):
    if n < low:  # pragma: no cover
        return low
    return min(n, high)
`;

const ROUTES: Route[] = [
  {
    name: "`# pragma: no cover` on the lines the change left uncovered",
    files: {
      "pkg/calc.py": CLAMP,
      "tests/test_clamp.py": "from pkg.calc import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n",
    },
    reasons: ["coverage_exclusions_added"],
    findings: [["coverage_exclusions_added", "pkg/calc.py", lineOf(CLAMP, "if n < low:")]],
    // coverage.py really excluded it: the uncovered branch is not in the report.
    also: (r) => expect(r.report.proven_coverage_percent).toBeGreaterThanOrEqual(80),
  },
  {
    name: "`omit` added to .coveragerc, over new untested code",
    base: { ".coveragerc": COVERAGERC },
    files: {
      ".coveragerc": COVERAGERC.replace("branch = True\n", "branch = True\nomit = pkg/extra.py\n"),
      "pkg/extra.py": EXTRA,
    },
    reasons: ["coverage_exclusions_added", "unmeasured_source"],
    findings: [
      ["coverage_exclusions_added", ".coveragerc", 3],
      ["unmeasured_source", "pkg/extra.py", null],
    ],
  },
  {
    name: "`omit` added to [tool.coverage.run] of pyproject.toml",
    base: { "pyproject.toml": PYPROJECT },
    files: { "pyproject.toml": `${PYPROJECT}omit = ["pkg/extra.py"]\n`, "pkg/extra.py": EXTRA },
    reasons: ["coverage_exclusions_added", "unmeasured_source"],
    findings: [
      ["coverage_exclusions_added", "pyproject.toml", 8],
      ["unmeasured_source", "pkg/extra.py", null],
    ],
  },
  {
    name: "new code placed where --cov=pkg does not measure it",
    files: {
      "helpers/__init__.py": "",
      "helpers/fast.py": EXTRA,
      "tests/test_fast.py": "from helpers.fast import rarely\n\n\ndef test_rarely():\n    assert rarely(1) == 1\n",
    },
    reasons: ["unmeasured_source"],
    findings: [["unmeasured_source", "helpers/fast.py", null]],
  },
  {
    // (`--deselect` or `-k` in addopts already stop the gate: the collection reports them.)
    name: "`addopts` changed in pytest.ini to ignore a test module",
    base: {
      "pytest.ini": PYTEST_INI,
      "tests/test_c.py": "from pkg.calc import total\n\n\ndef test_again():\n    assert total([1, 1]) == 2\n",
    },
    files: { "pytest.ini": `${PYTEST_INI}addopts = --ignore=tests/test_c.py\n` },
    // Both holes are named: the runner's settings changed, and a base test is no longer collected.
    reasons: ["protected_path", "tests_removed"],
    findings: [
      ["protected_path", "pytest.ini", 4],
      ["tests_removed", "tests/test_c.py", null],
    ],
    trailers: "Gate-Change: human\nTest-Removal: human",
  },
  {
    // A conftest.py is protected whatever it holds: a hook there can change what runs or what a result is
    // (a hook that hides a failure is runner_tampering as well: check.e2e.test.ts).
    name: "a conftest.py added",
    files: {
      "tests/conftest.py": `import pytest


@pytest.fixture
def prices():
    return [1, 2, 3]
`,
    },
    reasons: ["protected_path"],
    findings: [["protected_path", "tests/conftest.py", null]],
  },
];

describe("each route: the agent's patch is REJECT; the same change by a human with the trailer is MERGE", () => {
  it.concurrent.each(ROUTES.map((r) => [r.name, r] as const))("%s", async (_name, route) => {
    const agent = project(route.base ?? {}, route.files, AGENT, "The change\n");
    const r = await check(agent.dir, ["--run", "--base", agent.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(route.reasons);
    expect(r.status).toBe(1);
    const commit = agent.commits[1]!;
    expect(
      r.report.details.map((d) => [d.reason, d.file, d.line, d.commit, d.author]),
      explain(r),
    ).toEqual(
      route.findings.map(([reason, file, line]) => [reason, file, line, commit, `${AGENT.name} <${AGENT.email}>`]),
    );
    route.also?.(r);

    const trailers = route.trailers ?? "Gate-Change: human";
    const human = project(route.base ?? {}, route.files, HUMAN, `The change\n\n${trailers}\n`);
    const h = await check(human.dir, ["--run", "--base", human.base, "--format", "json"]);
    expect(h.report.reasons, explain(h)).toEqual([]);
    expect(h.status).toBe(0);
  });
});

const CONFIGS: Record<string, string> = {
  "pytest.ini": `[pytest]
addopts = -ra
markers =
    slow: slow tests
`,
  ".coveragerc": `[run]
branch = True
source = pkg
omit =
    pkg/vendored/*

[report]
exclude_lines =
    pragma: no cover
    raise NotImplementedError
`,
  "pyproject.toml": `[project]
name = "pkg"
version = "1.0"
dependencies = ["attrs>=22"]

[tool.pytest.ini_options]
addopts = "-ra"

[tool.coverage.run]
branch = true
omit = ["pkg/vendored/*"]
`,
  "setup.cfg": `[metadata]
name = pkg

[tool:pytest]
addopts = -ra

[coverage:run]
branch = True
omit = pkg/vendored/*
`,
  "tox.ini": `[tox]
envlist = py311

[pytest]
addopts = -ra

[coverage:run]
branch = True
`,
};

/** Each file rewritten with the same meaning: keys and sections reordered, spacing, `:` for `=`, comments. */
const REFORMATTED: Record<string, string> = {
  "pytest.ini": `# pytest's settings
[pytest]
markers =
        slow: slow tests
addopts: -ra
`,
  ".coveragerc": `# coverage.py's settings
[coverage:report]
exclude_lines = pragma: no cover
  raise NotImplementedError

[coverage:run]
omit: pkg/vendored/*
source   =   pkg
branch=true
`,
  "pyproject.toml": `[tool.coverage.run]
omit = [
  "pkg/vendored/*",
]
branch = true

[tool.pytest.ini_options]
addopts = "-ra"  # as before

[project]
dependencies = ["attrs>=23.1"]  # a dependency bump is no change to the runner's settings
name = "pkg"
version = "1.0"
`,
  "setup.cfg": `[coverage:run]
omit=pkg/vendored/*
branch=true

[metadata]
name = pkg

[tool:pytest]
addopts   =   -ra
`,
  "tox.ini": `[coverage:run]
branch: true

[pytest]
addopts=-ra

[tox]
envlist = py311
`,
};

describe("a pure reformat of every config file is MERGE", () => {
  it("pytest.ini, .coveragerc, pyproject.toml, setup.cfg and tox.ini, each reformatted in an agent's commit", async () => {
    const p = makeCheckProject({
      base: CONFIGS,
      patch: Object.entries(REFORMATTED).map(([file, text]) => ({
        message: `Reformat ${file}\n`,
        files: { [file]: text },
        who: AGENT,
      })),
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.commits).toBe(6);
    expect(r.report.signals.find((s) => s.id === "measurement")?.value).toMatch(/^config \.coveragerc: 0 loosenings/);
    // The real run used the configs as reformatted: coverage.py read .coveragerc's branch = true.
    const json = JSON.parse(readFileSync(join(p.dir, "proven_coverage.json"), "utf8")) as {
      meta: { branch_coverage: boolean };
    };
    expect(json.meta.branch_coverage).toBe(true);
  });

  it("the same commits changing a value instead are REJECT, one finding per file, each naming its section", async () => {
    const changed: Record<string, string> = {
      "pytest.ini": REFORMATTED["pytest.ini"]!.replace("addopts: -ra", "addopts: -ra -x"),
      ".coveragerc": REFORMATTED[".coveragerc"]!.replace(
        "omit: pkg/vendored/*",
        "omit: pkg/vendored/*, pkg/generated/*",
      ),
      "pyproject.toml": REFORMATTED["pyproject.toml"]!.replace('addopts = "-ra"', 'addopts = "-ra -x"'),
      "setup.cfg": REFORMATTED["setup.cfg"]!.replace("addopts   =   -ra", "addopts = -ra -x"),
      "tox.ini": REFORMATTED["tox.ini"]!.replace("addopts=-ra", "addopts=-ra -x"),
    };
    const p = makeCheckProject({
      base: CONFIGS,
      patch: Object.entries(changed).map(([file, text]) => ({
        message: `Change ${file}\n`,
        files: { [file]: text },
        who: AGENT,
      })),
    });
    made.push(p.dir);
    const withRun = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(withRun.report.reasons, explain(withRun)).toEqual(["coverage_exclusions_added", "protected_path"]);
    const byFile = withRun.report.details.map(
      (d) =>
        `${d.reason} ${d.file}:${d.line ?? "-"} ${d.commit === p.commits[Object.keys(changed).indexOf(d.file!) + 1] ? "own" : d.commit}`,
    );
    expect(byFile).toEqual([
      "coverage_exclusions_added .coveragerc:7 own",
      "protected_path pytest.ini:5 own",
      "protected_path pyproject.toml:8 own",
      "protected_path setup.cfg:9 own",
      "protected_path tox.ini:5 own",
    ]);
    expect(withRun.report.details.find((d) => d.file === "pyproject.toml")?.message).toContain(
      "pyproject.toml [tool.pytest] (tool.pytest.ini_options.addopts)",
    );
  });
});

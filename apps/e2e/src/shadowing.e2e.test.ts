// Shadowing judged against the base, end to end with /usr/bin/python3's real pytest 7.2, pytest-cov 4.0 and
// coverage.py 6.5, in the environment issue 21 found: Debian's python3-pytest pulls in python3-more-itertools
// (8.10, /usr/lib/python3/dist-packages), so a project whose own package is `more_itertools`, with its tests
// in a `tests/` package (more-itertools' own layout), imports its work-tree copy in place of an installed
// one. That is the project's own package, not tampering; a module the patch adds that shadows the standard
// library is, for an agent; a human may add it with `Gate-Change: human`. A project whose package is part
// of its own runner (a pytest plugin pytest loads) gets a warning that the runner's integrity cannot be
// established.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  HUMAN,
  check,
  config,
  makeCheckProject,
  proofCommand,
  type CheckRun,
  type FileChange,
  type PatchCommit,
  type Project,
} from "./check-project.js";
import { PYTHON } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const MORE = `"""A few of more-itertools' functions."""


def chunked(iterable, n):
    items = list(iterable)
    return [items[i : i + n] for i in range(0, len(items), n)]


def first(iterable, default=None):
    for item in iterable:
        return item
    return default
`;

const TEST_MORE = `from more_itertools import chunked, first


def test_chunked():
    assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_first():
    assert first([7, 8]) == 7
    assert first([], default=0) == 0
`;

/** more-itertools' layout: the package at the root, the tests a package; both measured. */
function moreItertoolsBase(o: { prefix?: string; files?: Record<string, FileChange> } = {}) {
  return {
    "tests/__init__.py": "",
    "more_itertools/__init__.py": "from .more import chunked, first\n",
    "more_itertools/more.py": MORE,
    "tests/test_more.py": TEST_MORE,
    "proofgate.toml": config({
      proof: proofCommand({ cov: "pkg --cov=more_itertools", ...(o.prefix === undefined ? {} : { prefix: o.prefix }) }),
    }),
    ...o.files,
  };
}

function project(o: Parameters<typeof makeCheckProject>[0] = {}): Project {
  const p = makeCheckProject(o);
  made.push(p.dir);
  return p;
}

const explain = (r: CheckRun): string =>
  `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\nwarnings ${JSON.stringify(r.report.warnings, null, 1)}\n${r.stderr.slice(-3000)}`;

/** The modules the proof run's record says were loaded from the work tree in place of installed ones. */
const shadowedInRecord = (dir: string): string[] =>
  (
    JSON.parse(readFileSync(join(dir, "proofgate-report", "proof-record.json"), "utf8")) as {
      shadowed: { module: string; path: string }[];
    }
  ).shadowed.map((s) => `${s.module} from ${s.path}`);

/** The agent's harmless change to the project's own package, with its test. */
const HARMLESS: PatchCommit = {
  message: "Add last()\n",
  who: AGENT,
  files: {
    "more_itertools/more.py": `${MORE}

def last(iterable, default=None):
    item = default
    for item in iterable:
        pass
    return item
`,
    "tests/test_more.py": `${TEST_MORE}

def test_last():
    from more_itertools.more import last

    assert last([1, 2, 3]) == 3
    assert last([], default=0) == 0
`,
  },
};

/** A root colorsys.py that shadows the standard library's, and a test that imports it. */
const shadowing = (who: typeof AGENT, message: string): PatchCommit => ({
  message,
  who,
  files: {
    "colorsys.py": "def rgb_to_hsv(r, g, b):\n    return (0.0, 0.0, max(r, g, b))\n",
    "tests/test_colours.py":
      "import colorsys\n\n\ndef test_value():\n    assert colorsys.rgb_to_hsv(1, 1, 1)[2] == 1\n",
  },
});

describe("the project's own package, also installed, is not tampering", () => {
  it("the environment is issue 21's: Debian's python3 has more_itertools installed", () => {
    const r = spawnSync(PYTHON, ["-c", "import more_itertools; print(more_itertools.__file__)"], { encoding: "utf8" });
    expect(r.stdout.trim()).toBe("/usr/lib/python3/dist-packages/more_itertools/__init__.py");
  });

  it("an agent's harmless change to more_itertools MERGEs, although the run imported the work tree's copy", async () => {
    const p = project({ base: moreItertoolsBase(), patch: [HARMLESS] });
    const r = await check(p.dir, ["--run"]);
    // The record still names the shadowing: what changed is that the base's own package is not judged.
    expect(shadowedInRecord(p.dir)).toContain("more_itertools from more_itertools/__init__.py");
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.status).toBe(0);
    expect(r.report.warnings.join("\n")).not.toContain("runner's integrity");
  });
});

describe("a src layout on pytest's pythonpath, its package also installed", () => {
  it("an agent's harmless change MERGEs: the base's `pythonpath = src` is the base's import path", async () => {
    const p = project({
      base: {
        ...moreItertoolsBase(),
        "more_itertools/__init__.py": null,
        "more_itertools/more.py": null,
        "src/more_itertools/__init__.py": "from .more import chunked, first\n",
        "src/more_itertools/more.py": MORE,
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
      },
      patch: [
        {
          ...HARMLESS,
          files: {
            ...HARMLESS.files,
            "more_itertools/more.py": null,
            "src/more_itertools/more.py": HARMLESS.files["more_itertools/more.py"]!,
          },
        },
      ],
    });
    const r = await check(p.dir, ["--run"]);
    expect(shadowedInRecord(p.dir)).toContain("more_itertools from src/more_itertools/__init__.py");
    expect(r.report.decision, explain(r)).toBe("MERGE");
  });
});

describe("a module the patch adds that shadows the standard library", () => {
  it("an agent's root colorsys.py is REJECTed as runner_tampering naming it, from the run and statically", async () => {
    const p = project({ base: moreItertoolsBase(), patch: [shadowing(AGENT, "Faster colours\n")] });
    const r = await check(p.dir, ["--run"]);
    expect(shadowedInRecord(p.dir)).toEqual([
      "colorsys from colorsys.py",
      "more_itertools from more_itertools/__init__.py",
    ]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    // colorsys.py is also source outside the measurement (another rule's finding); the shadow is runner_tampering.
    expect(r.report.reasons, explain(r)).toEqual(["runner_tampering", "unmeasured_source"]);
    expect(r.status).toBe(1);
    const tampering = r.report.details.filter((d) => d.reason === "runner_tampering");
    expect(
      tampering.map((d) => [d.file, d.message]),
      explain(r),
    ).toEqual([
      [
        "colorsys.py",
        "the run imported work-tree modules in place of installed or standard ones: colorsys from colorsys.py",
      ],
      [
        "colorsys.py",
        "colorsys.py in the repository root shadows the standard library's `colorsys`: `python -m pytest` puts the working directory first on sys.path, so the run imports the work tree's colorsys instead",
      ],
    ]);
    // The tests are a package, so pytest puts the root on sys.path itself: `python -P` is not offered.
    const report = JSON.parse(r.json) as { details: { reason: string; fix: string | null }[] };
    const fixes = report.details.filter((f) => f.reason === "runner_tampering").map((f) => f.fix);
    expect(fixes).toEqual([
      "rename or remove colorsys.py; a human who means it commits it with `Gate-Change: human`",
      "rename or remove colorsys.py; a human who means it commits it with `Gate-Change: human`",
    ]);
  });

  it("the same module added by a human with `Gate-Change: human` MERGEs", async () => {
    const p = project({
      base: moreItertoolsBase(),
      patch: [shadowing(HUMAN, "Faster colours\n\nGate-Change: human\n")],
    });
    const r = await check(p.dir, ["--run"]);
    expect(shadowedInRecord(p.dir)).toContain("colorsys from colorsys.py");
    expect(r.report.decision, explain(r)).toBe("MERGE");
  });
});

describe("a project that is part of its own runner", () => {
  it("a pytest plugin of the measured package, loaded by its entry point: MERGE, with a warning that the runner's integrity cannot be established", async () => {
    // What `pip install -e .` of a pytest plugin leaves: a dist-info whose entry point pytest loads.
    const site = mkdtempSync(join(tmpdir(), "proofgate-site-"));
    made.push(site);
    const info = join(site, "more_itertools_plugin-1.0.dist-info");
    mkdirSync(info);
    writeFileSync(join(info, "METADATA"), "Metadata-Version: 2.1\nName: more-itertools-plugin\nVersion: 1.0\n");
    writeFileSync(join(info, "entry_points.txt"), "[pytest11]\nmoreit = more_itertools.pytest_plugin\n");
    const p = project({
      base: moreItertoolsBase({
        prefix: `PYTHONPATH=${site}:$PYTHONPATH `,
        files: {
          "more_itertools/pytest_plugin.py": 'def pytest_report_header(config):\n    return "more_itertools"\n',
        },
      }),
      patch: [HARMLESS],
    });
    const r = await check(p.dir, ["--run"]);
    const warning =
      "the runner's integrity cannot be established: the project is part of its own test runner (more_itertools/pytest_plugin.py is loaded as a pytest plugin)";
    expect(r.report.warnings.join("\n"), explain(r)).toContain(warning);
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.stdout).toContain(warning);
    expect(readFileSync(join(p.dir, "proofgate-report", "report.md"), "utf8")).toContain(
      "the runner's integrity cannot be established: the project is part of its own test runner",
    );
  });
});

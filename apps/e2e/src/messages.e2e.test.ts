// Issue 21 item 10, end to end with the real pytest 7.2, pytest-cov 4.0, coverage.py 6.5 and git: messages
// that tell the truth. A `-k` or `--deselect` the patch puts in the runner's settings, and a conftest.py hook
// that drops collected items, are `tests_removed` naming the test, the commit and the file it touched (with
// and without --run), not an input error about a summary count; the same change by a human with the
// trailers is MERGE. A human trailer on an agent's commit is named as ignored. A step that fails says so,
// with its exit code and the end of its stderr.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  HUMAN,
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
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Two tests whose coverage the rest of the suite repeats: dropping one moves no coverage number. */
const EXTRA = `from pkg.calc import label, total


def test_total_again():
    assert total([4]) == 4


def test_label_again():
    assert label(3) == "small"
`;
const GONE = "tests/test_extra.py::test_total_again";
const PYTEST_INI = "[pytest]\n# the suite\ntestpaths = tests\n";
const NO_SKIP_BUDGET = config().replace("max_unledgered_skips = 0\n", "");
const DROP_HOOK = `def pytest_collection_modifyitems(items):
    items[:] = [item for item in items if item.name != "test_total_again"]
`;

function project(patch: Record<string, FileChange>, o: { who?: Identity; message?: string } = {}): Project {
  const p = makeCheckProject({
    base: { "tests/test_extra.py": EXTRA, "pytest.ini": PYTEST_INI, "proofgate.toml": NO_SKIP_BUDGET },
    patch: [{ message: o.message ?? "Speed up the suite\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

const short = (sha: string): string => sha.slice(0, 12);
const agent = `${AGENT.name} <${AGENT.email}>`;

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-3000)}`;
}

interface Narrowing {
  name: string;
  files: Record<string, FileChange>;
  /** The file the agent's commit touched, as findings name it. */
  touched: string;
  /** How the head's summary line reads, and what the message says narrowed it. */
  summary: RegExp;
  how: string;
}

const NARROWINGS: Narrowing[] = [
  {
    name: "`addopts = -k` in pytest.ini",
    files: { "pytest.ini": `${PYTEST_INI}addopts = -k "not test_total_again"\n` },
    touched: "pytest.ini",
    summary: /`10\/11 tests collected \(1 deselected\) in [\d.]+s` at collected\.txt:12/,
    how: "1 deselected (-k, -m or --deselect in the runner's settings, or a hook)",
  },
  {
    name: "`addopts = --deselect` in pytest.ini",
    files: { "pytest.ini": `${PYTEST_INI}addopts = --deselect ${GONE}\n` },
    touched: "pytest.ini",
    summary: /`10\/11 tests collected \(1 deselected\) in [\d.]+s` at collected\.txt:12/,
    how: "1 deselected (-k, -m or --deselect in the runner's settings, or a hook)",
  },
  {
    name: "a conftest.py hook that drops the item without deselecting it",
    files: { "tests/conftest.py": DROP_HOOK },
    touched: "tests/conftest.py",
    summary: /`11 tests collected in [\d.]+s` at collected\.txt:12/,
    how: "1 dropped without being deselected (a pytest_collection_modifyitems hook)",
  },
];

describe("check: a collection the patch narrowed is tests_removed naming the test, the commit and the file", () => {
  it.concurrent.each(NARROWINGS.map((n) => [n.name, n] as const))(
    "%s, by an agent: REJECT, with --run and without",
    async (_n, n) => {
      const p = project(n.files);
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.status, explain(r)).toBe(1);
      expect(r.report.errors).toEqual([]);
      expect(r.report.reasons).toContain("tests_removed");
      expect(r.report.reasons).toContain("protected_path");
      const removed = r.report.details.filter((d) => d.reason === "tests_removed");
      expect(removed.map((d) => [d.file, d.commit, d.author])).toEqual([["tests/test_extra.py", p.commits[1], agent]]);
      expect(removed[0]!.message).toContain(`${GONE} is collected at base but not at head`);
      expect(removed[0]!.message).toContain(`commit ${short(p.commits[1]!)} is an agent's`);
      expect(removed[0]!.message).toContain(
        `and touched ${n.touched}; pytest left tests out of the collection at head: ${n.how}`,
      );
      expect(removed[0]!.message).toMatch(n.summary);
      expect((removed[0] as unknown as { fix: string }).fix).toContain("Test-Removal: human");
      expect(r.report.details.find((d) => d.reason === "protected_path")).toMatchObject({
        file: n.touched,
        commit: p.commits[1],
      });

      // Without --run (the CI wrote collected.txt; the base's universe unknown): the same reason, at the
      // summary line, naming the commit that touched the runner's settings.
      const again = await check(p.dir, ["--base", p.base, "--format", "json"]);
      expect(again.status, explain(again)).toBe(1);
      expect(again.report.errors).toEqual([]);
      const narrowed = again.report.details.filter((d) => d.reason === "tests_removed");
      expect(narrowed.map((d) => [d.file, d.line, d.commit])).toEqual([["collected.txt", 12, p.commits[1]]]);
      expect(narrowed[0]!.message).toContain(`pytest left tests out of the collection at head: ${n.how}`);
      expect(narrowed[0]!.message).toContain(`commit ${short(p.commits[1]!)} is an agent's`);
      expect(narrowed[0]!.message).toContain(`and touched ${n.touched}`);
    },
  );

  it.concurrent.each(NARROWINGS.map((n) => [n.name, n] as const))(
    "%s, by a human with `Gate-Change: human` and `Test-Removal: human`: MERGE",
    async (_n, n) => {
      const p = project(n.files, {
        who: HUMAN,
        message: "Drop a redundant test\n\nGate-Change: human\nTest-Removal: human\n",
      });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual([]);
      expect(r.status).toBe(0);
      expect(r.report.signals.find((s) => s.id === "removed_tests")?.value).toMatch(/approved/);
      expect(r.report.signals.find((s) => s.id === "universe")?.value).toBe(
        "10 tests collected (1 left out by the runner's settings or a hook), 0 collection errors",
      );
    },
  );
});

describe("check: a human trailer on an agent's commit", () => {
  it("is named as ignored, with the identity and the agent pattern that made the commit an agent's", async () => {
    const p = project(NARROWINGS[0]!.files, {
      message: "Drop a redundant test\n\nGate-Change: human\nTest-Removal: human\n",
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(1);
    expect(r.report.reasons).toEqual(["protected_path", "tests_removed"]);
    const why = `commit ${short(p.commits[1]!)} is an agent's (author "${agent}" matches "*[bot]*"; committer "${agent}" matches "*[bot]*"; its`;
    const [gate, removed] = r.report.details;
    expect(gate!.message).toContain(
      `${why} \`Gate-Change: human\` trailer was ignored: a human trailer counts only on a human's commit)`,
    );
    expect(removed!.message).toContain(
      `${why} \`Test-Removal: human\` trailer was ignored: a human trailer counts only on a human's commit)`,
    );
  });
});

describe("check --run: a step that fails says so", () => {
  it("a conftest.py that exits during collection: the collect step's exit code and the end of its stderr lead the error", async () => {
    const conftest = `import sys\n\nsys.stderr.write("conftest: cannot reach the database\\n")\nraise SystemExit(3)\n`;
    const p = project({ "tests/conftest.py": conftest });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.errors[0]!.message).toMatch(
      /^\[commands\] collect \(`.*--collect-only.*`\) exited with 3; its stderr ended: conftest: cannot reach the database$/,
    );
    expect(r.report.errors.map((e) => e.message).join("\n")).not.toContain("earlier run");
    expect(r.stderr).toContain("✘ collect exited with 3");
  });

  it("a proof step that cannot start pytest and writes no results: its exit code and stderr, not 'a file left from an earlier run'", async () => {
    // The agent's addopts names an option pytest does not know: pytest exits 4 with a usage error and
    // writes no results. The base's collection reads no settings file (-c /dev/null), so it passes and
    // the proof step is the one that fails.
    const p = makeCheckProject({
      base: {
        "proofgate.toml": config({
          collect: `/usr/bin/python3 -m pytest -p no:cacheprovider -c /dev/null --rootdir . --collect-only -q tests --ignore=tests/properties > collected.txt`,
        }).replace("max_unledgered_skips = 0\n", ""),
      },
      patch: [{ message: "Faster\n", files: { "pytest.ini": `${PYTEST_INI}addopts = --no-such-option\n` } }],
    });
    made.push(p.dir);
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.status, explain(r)).toBe(2);
    const error = r.report.errors.find((e) => e.file === "results.xml") ?? r.report.errors[0]!;
    expect(error.message).toMatch(
      /^\[commands\] proof \(`.*`\) exited with 4 and did not write it; its stderr ended: .*unrecognized arguments: --no-such-option/,
    );
    expect(error.message).not.toContain("earlier run");
  });
});

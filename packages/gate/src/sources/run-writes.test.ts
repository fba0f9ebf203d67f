// run_wrote_repository through evaluateGate on Node's ports and a scratch git repository: git status is
// read around every step, a tracked file a step changed is put back from the commit, a new file is named
// and left, and the steps' evidence and the tools' caches are not writes. The steps are small Node
// scripts (no Python, no run record); real pytest, and the record's writes, are in apps/e2e.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GateReport } from "@proofgate/core";
import { evaluateGate, type CheckRequest } from "../evaluate.js";
import type { GateLog } from "../log.js";
import { nodePorts } from "../node/index.js";
import { scratchRepo, type ScratchRepo } from "../testing/git-scratch.js";

const NODE = JSON.stringify(process.execPath);
const TESTS = ["tests/test_a.py::test_one", "tests/test_a.py::test_two"];
const TEST_A = "def test_one(): pass\ndef test_two(): pass\n";

const COLLECT = `import { mkdirSync, writeFileSync } from "node:fs";
writeFileSync("collected.txt", ${JSON.stringify(`${TESTS.join("\n")}\n\n2 tests collected in 0.01s\n`)});
mkdirSync("tests/__pycache__", { recursive: true });
writeFileSync("tests/__pycache__/test_a.cpython-311.pyc", "bytecode");
writeFileSync(".coverage", "data");
`;

/** The proof run: passes every test; WRITE (a JS statement) is what the "tests" do to the repository. */
const proof = (write: string): string => `import { appendFileSync, rmSync, writeFileSync } from "node:fs";
${write}
const cases = ${JSON.stringify(TESTS)}.map((id) => {
  const [file, name] = id.split("::");
  return '<testcase classname="tests.test_a" name="' + name + '" file="' + file + '" time="0"></testcase>';
});
writeFileSync("results.xml", '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">' + cases.join("") + "</testsuite></testsuites>");
writeFileSync("proven_coverage.json", '{"meta": {"format": 3}, "files": {"src/app.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\\n');
`;

const CONFIG = `[fixtures]
enabled = false

[properties]
enabled = false

[results]
junit = ["results.xml"]

[commands]
collect = ${JSON.stringify(`${NODE} collect.mjs`)}
proof = ${JSON.stringify(`${NODE} proof.mjs`)}
record = false
`;

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

async function gate(write: string): Promise<{ repo: ScratchRepo; report: GateReport; warnings: string[] }> {
  const repo = scratchRepo("proofgate-run-writes-");
  repos.push(repo);
  const base = repo.commit("base", {
    "proofgate.toml": CONFIG,
    "freeze.toml": "version = 1\nmax_active_leases = 0\n",
    "collect.mjs": COLLECT,
    "proof.mjs": proof(""),
    "tests/test_a.py": TEST_A,
    "notes.txt": "kept\n",
    ".gitignore": "collected.txt\nresults.xml\nproven_coverage.json\nproofgate-report/\n*.log\n*_gen.py\n",
  });
  repo.commit("the patch", { "proof.mjs": proof(write) });
  const warnings: string[] = [];
  // Only what the steps wrote: this fixture's base collect is no pytest run (record = false), which the
  // base-imports check warns about on its own.
  const isWriteNote = (line: string) => line.startsWith("[commands] ");
  const log: GateLog = {
    info: () => {},
    warn: (line) => {
      if (isWriteNote(line)) warnings.push(line);
    },
    issues: () => {},
    stepStarted: () => {},
    stepEnded: () => {},
    output: () => {},
  };
  const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  const request: CheckRequest = {
    kind: "check",
    clock: { today: "2026-12-02", override: false },
    base: { revision: base, from: "flag" },
    shallowFix: "git fetch --unshallow",
    outDir: "proofgate-report",
    run: { env },
  };
  const report = await evaluateGate(request, nodePorts({ root: repo.dir, env }), log);
  return { repo, report, warnings };
}

describe("check --run: a step that writes the repository is run_wrote_repository", () => {
  it("a tracked file changed and a new file: named with the step; the tracked file is restored, the new one left", async () => {
    const { repo, report, warnings } = await gate(
      'appendFileSync("tests/test_a.py", "def test_three(): pass\\n"); writeFileSync("stray.txt", "x");',
    );
    expect(report.reasons).toEqual(["run_wrote_repository"]);
    const [finding, ...more] = report.findings;
    expect(more).toEqual([]);
    expect(finding).toMatchObject({ reason: "run_wrote_repository", file: "tests/test_a.py" });
    expect(finding!.message).toBe(
      "[commands] proof wrote the repository while it ran: changed 1 file(s) the commit tracks: tests/test_a.py; the gate restored them from the commit; left 1 new file(s), not removed by the gate: stray.txt",
    );
    expect(readFileSync(join(repo.dir, "tests/test_a.py"), "utf8")).toBe(TEST_A);
    // What the step (or a person editing meanwhile) wrote is kept, not lost, under the report folder.
    const kept = join(repo.dir, "proofgate-report", "restored");
    expect(readFileSync(join(kept, "tests/test_a.py"), "utf8")).toBe(`${TEST_A}def test_three(): pass\n`);
    expect(repo.git(["status", "--porcelain", "--untracked-files=all"])).toBe(
      "?? .coverage\n?? proofgate-evidence.json\n?? stray.txt\n?? tests/__pycache__/test_a.cpython-311.pyc\n",
    );
    expect(warnings).toEqual([
      `[commands] proof changed 1 file(s) the commit tracks (tests/test_a.py): restored from the commit; what they held is kept in ${kept}`,
      "[commands] proof left 1 new file(s) in the repository (stray.txt): left in place",
    ]);
  });

  it("a tracked file deleted, and a new Python module .gitignore hides: both named", async () => {
    const { repo, report } = await gate('rmSync("notes.txt"); writeFileSync("calc_gen.py", "X = 1");');
    expect(report.reasons).toEqual(["run_wrote_repository"]);
    expect(report.findings[0]!.message).toContain("changed 1 file(s) the commit tracks: notes.txt");
    expect(report.findings[0]!.message).toContain("new file(s), not removed by the gate: calc_gen.py");
    expect(readFileSync(join(repo.dir, "notes.txt"), "utf8")).toBe("kept\n");
  });

  it("the evidence the config names, bytecode, coverage's data and ignored files are no writes: MERGE", async () => {
    const { report, warnings } = await gate('writeFileSync("debug.log", "ignored by .gitignore");');
    expect(report.reasons).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

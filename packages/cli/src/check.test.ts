// `proofgate check` in-process on scripted git repositories (no Python: artifacts are written by the
// test, and `--run` commands are small shell commands). The real pytest runs are in apps/e2e.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scratchRepo, type ScratchIdentity, type ScratchRepo, stampEvidence } from "@proofgate/gate/testing";
import { run, type CliIo } from "./main.js";
import { runCheck } from "./commands/check.js";
import { localPlatform } from "@proofgate/core";

const NOW = new Date("2026-12-02T12:00:00Z");
const AGENT: ScratchIdentity = { name: "coding-agent[bot]", email: "7+coding-agent[bot]@users.noreply.github.com" };

const COLLECTED = "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n";
// The report lists the source files the histories below change: the proof run measured them.
const COVERAGE = (percent: number) =>
  `{"meta": {"format": 3}, "files": {"src.py": {"summary": {"covered_lines": ${percent}, "num_statements": 100}}, "other.py": {"summary": {"covered_lines": 0, "num_statements": 0}}}, "totals": {"covered_lines": ${percent}, "num_statements": 100, "percent_covered": ${percent}.0}}\n`;
const LEDGER =
  'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';
const OFF = "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n";

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** A repository whose base commit holds the config, the ledger and the artifacts. */
function project(config = OFF, files: Record<string, string> = {}): { repo: ScratchRepo; base: string } {
  const repo = scratchRepo("proofgate-check-");
  repos.push(repo);
  const base = repo.commit("base", {
    "proofgate.toml": config,
    "freeze.toml": LEDGER,
    "collected.txt": COLLECTED,
    "proven_coverage.json": COVERAGE(80),
    ".gitignore": "proofgate-report/\n",
    ...files,
  });
  return { repo, base };
}

interface Ran {
  code: number;
  out: string;
  err: string;
  report: Record<string, unknown>;
}

async function check(repo: ScratchRepo, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    now: () => NOW,
    cwd: repo.dir,
    env: { PATH: process.env.PATH ?? "", ...env },
    isTTY: false,
  };
  // As the binary runs: in the repository (config paths are read relative to the process's folder).
  const previous = process.cwd();
  process.chdir(repo.dir);
  let code: number;
  try {
    code = await run(["check", ...args], io);
  } finally {
    process.chdir(previous);
  }
  const path = join(repo.dir, "proofgate-report", "report.json");
  const report = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  return { code, out, err, report };
}

// Several in-process checks per case (git runs each time): past the 5 s default on a loaded machine.
describe("proofgate check", { timeout: 60_000 }, () => {
  it("MERGE from the config's artifacts: the table on stdout, report.json, report.md and report.txt written", async () => {
    const { repo, base } = project();
    repo.commit("a human change", { "src.py": "x = 1\n" });
    const r = await check(repo, ["--base", base]);
    expect(r.code).toBe(0);
    expect(r.report).toMatchObject({
      decision: "MERGE",
      reasons: [],
      proven_coverage_percent: 80,
      active_leases: 1,
      base,
      commits: 1,
    });
    expect(r.out.split("\n")[0]).toMatch(/^proofgate: MERGE {2}[0-9a-f]{12}\.\.[0-9a-f]{12} {2}\(2026-12-02 UTC\)$/);
    expect(r.out).toMatch(/Fixture digests +off/);
    expect(readFileSync(join(repo.dir, "proofgate-report", "report.md"), "utf8")).toContain("### proofgate: ✅ MERGE");
    // report.txt keeps every cell whole; stdout (a CI log here) fits the table to 120 columns.
    const txt = readFileSync(join(repo.dir, "proofgate-report", "report.txt"), "utf8");
    expect(txt.split("\n\nReasons")[0]!.split("\n")[0]).toBe(r.out.split("\n")[0]);
    const roles = (r.report.inputs as { role: string; path: string }[]).map((i) => `${i.role}:${i.path}`);
    expect(roles).toEqual([
      `config:proofgate.toml at ${base.slice(0, 12)}`,
      "ledger:freeze.toml",
      "universe:collected.txt",
      "coverage:proven_coverage.json",
    ]);
  });

  it("writes the HTML view and the badge beside report.json: the per-file table, each file's lines, shields.io's JSON and the SVG", async () => {
    const lines = JSON.stringify({
      meta: { format: 3 },
      files: {
        "src.py": {
          executed_lines: [1, 2, 3],
          missing_lines: [4],
          excluded_lines: [],
          summary: { covered_lines: 3, num_statements: 4, percent_covered: 75.0 },
        },
      },
      totals: { covered_lines: 3, num_statements: 4, percent_covered: 75.0 },
    });
    const { repo, base } = project(`${OFF}\n[coverage]\nmin_proven = 70\n`, { "proven_coverage.json": lines });
    repo.commit("a human change", { "src.py": "a = 1\nb = 2\nc = 3\nd = '<script>'\n" });
    const r = await check(repo, ["--base", base]);
    expect(r.code, r.err).toBe(0);
    const dir = join(repo.dir, "proofgate-report");
    expect(r.err).toContain("proofgate-report/index.html, proofgate-report/badge.json, proofgate-report/badge.svg");
    expect(JSON.parse(readFileSync(join(dir, "badge.json"), "utf8"))).toEqual({
      schemaVersion: 1,
      label: "proven coverage",
      message: "75.0%",
      color: "yellowgreen",
    });
    expect(readFileSync(join(dir, "badge.svg"), "utf8")).toContain("<title>proven coverage: 75.0%</title>");
    const html = readFileSync(join(dir, "index.html"), "utf8");
    // The patch added src.py: its four statements are the patch's, three of them proven.
    expect(html).toContain(
      '<tr><td><a href="#f0">src.py</a></td><td>4</td><td>n/a</td><td>75.00%</td><td>n/a</td><td>75.00%</td></tr>',
    );
    expect(html).toContain(
      '<tr id="f0-L4" data-l="4" class="missed patch"><td class="n">4</td><td class="m">+</td><td class="c">d = &#39;&lt;script&gt;&#39;</td></tr>',
    );
  });

  it("the policy is the base's: a patch that lowers min_proven in proofgate.toml is still judged by the base's floor", async () => {
    const { repo, base } = project(`${OFF}\n[coverage]\nmin_proven = 90\n`);
    repo.commit("lower the floor", { "proofgate.toml": `${OFF}\n[coverage]\nmin_proven = 10\n` }, { author: AGENT });
    const r = await check(repo, ["--base", base, "--format", "json"]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["proven_coverage", "protected_path"]);
    expect(r.report.min_proven_coverage_percent).toBe(90);
    expect(r.err).toContain("the work tree's proofgate.toml differs from the base's");
    expect(JSON.parse(r.out)).toEqual(r.report);
  });

  it("the adoption patch: a base without proofgate.toml is judged by the defaults, said plainly; default signals with nothing to judge are off", async () => {
    const repo = scratchRepo("proofgate-check-");
    repos.push(repo);
    const base = repo.commit("before the gate", {
      "freeze.toml": LEDGER,
      "collected.txt": COLLECTED,
      "proven_coverage.json": COVERAGE(80),
      ".gitignore": "proofgate-report/\n",
    });
    repo.commit("Adopt proofgate\n\nGate-Change: human\n", { "proofgate.toml": "[coverage]\nmin_proven = 90\n" });
    const r = await check(repo, ["--base", base, "--format", "json", "--run"]);
    // The patch's own floor (90) is not its judge: the defaults' 70 is.
    expect(r.code, r.err).toBe(0);
    expect(r.report).toMatchObject({ decision: "MERGE", base, min_proven_coverage_percent: 70 });
    const rows = Object.fromEntries((r.report.signals as { id: string; value: string }[]).map((s) => [s.id, s.value]));
    expect(rows.policy).toBe("defaults: the base has no proofgate.toml (this patch's applies once merged)");
    expect(rows.fixture_digests).toBe(
      "off: no tests/fixtures or fixtures.lock at the base or head (on by default once there are)",
    );
    expect(rows.property_hold).toBe(
      "off: no seeds in tests/properties/seeds at the base or head (on by default once there are); property tests still judged: 0 property test files touched",
    );
    expect(r.err).toContain("--run ran no command: the base has no proofgate.toml, so the defaults apply");
  });

  it("a default signal whose files exist at the base stays on: seeds deleted by the patch are seeds_empty, not off", async () => {
    const repo = scratchRepo("proofgate-check-");
    repos.push(repo);
    const base = repo.commit("before the gate", {
      "freeze.toml": LEDGER,
      "collected.txt": COLLECTED,
      "proven_coverage.json": COVERAGE(80),
      "tests/properties/seeds/a.txt": "seed\n",
      ".gitignore": "proofgate-report/\n",
    });
    repo.commit("drop the seeds", { "tests/properties/seeds/a.txt": null }, { author: AGENT });
    const r = await check(repo, ["--base", base, "--format", "json"]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(expect.arrayContaining(["seeds_empty", "seed_rewrite"]));
  });

  it("a missing input is exit 2: the error names the file, and report.json says REJECT with input_error", async () => {
    const { repo, base } = project();
    repo.commit("drop the coverage", { "proven_coverage.json": null });
    const r = await check(repo, ["--base", base]);
    expect(r.code).toBe(2);
    expect(r.report).toMatchObject({
      decision: "REJECT",
      reasons: ["input_error"],
      errors: [{ code: "file_missing", file: "proven_coverage.json" }],
    });
    expect(r.out).toContain("The gate could not evaluate (1 error):");
    expect(r.out).toContain("proven_coverage.json: the coverage report does not exist");
  });

  it("no config and no ledger (a monorepo's root, a folder never adopted): says no gate is set up here, exit 2", async () => {
    const repo = scratchRepo("proofgate-check-");
    repos.push(repo);
    const base = repo.commit("base", { "README.md": "r\n", ".gitignore": "proofgate-report/\n" });
    repo.commit("more", { "README.md": "r2\n" });
    const r = await check(repo, ["--base", base]);
    expect(r.code).toBe(2);
    expect(r.report).toMatchObject({ decision: "REJECT", errors: [{ code: "file_missing", file: "proofgate.toml" }] });
    expect(r.out).toContain(
      "proofgate.toml: no gate is set up in this folder: no proofgate.toml (at the base or in the work tree) and no freeze ledger (freeze.toml)",
    );
    expect(r.out).toContain("run `proofgate init` in the project's folder");
  });

  it("a --base that names nothing in the clone: the history is the cause, said first, before what it kept from being read", async () => {
    // Found on a real project (a clone whose default branch is master, judged with --base main): the
    // report said only that collected.txt did not exist.
    const { repo } = project();
    repo.commit("drop the collection", { "collected.txt": null });
    const r = await check(repo, ["--base", "trunk"]);
    expect(r.code).toBe(2);
    const errors = r.report.errors as { code: string; message: string }[];
    expect(errors[0]).toMatchObject({ code: "shallow_history" });
    expect(errors[0]!.message).toContain("the base trunk is not in this clone");
    expect(errors[0]!.message).toContain("so the evidence could not be judged");
    expect(errors.slice(1)).toEqual([expect.objectContaining({ code: "file_missing", file: "collected.txt" })]);
    expect(r.out.indexOf("the base trunk is not in this clone")).toBeLessThan(r.out.indexOf("collected.txt"));
  });

  it("a report from an earlier run is replaced, never left saying MERGE", async () => {
    const { repo, base } = project();
    expect((await check(repo, ["--base", base])).code).toBe(0);
    writeFileSync(join(repo.dir, "freeze.toml"), "version = [\n");
    const r = await check(repo, ["--base", base]);
    expect(r.code).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(readFileSync(join(repo.dir, "proofgate-report", "report.md"), "utf8")).toContain("❌ REJECT");
  });

  it("properties on with no results named is property_hold; their JUnit results count failures", async () => {
    const props =
      '<testsuites><testsuite name="p" tests="2"><testcase classname="tests.props" name="test_p1"/><testcase classname="tests.props" name="test_p2"><failure message="boom"/></testcase></testsuite></testsuites>\n';
    const { repo, base } = project("[fixtures]\nenabled = false\n", { "tests/properties/seeds/one.txt": "1\n" });
    let r = await check(repo, ["--base", base]);
    expect(r.report.reasons).toEqual(["property_hold"]);
    expect((r.report.details as { message: string }[])[0]!.message).toBe(
      "the property suite is on, but no results were given",
    );
    const withResults = project('[fixtures]\nenabled = false\n[properties]\nresults = ["props.xml"]\n', {
      "tests/properties/seeds/one.txt": "1\n",
      "props.xml": props,
    });
    r = await check(withResults.repo, ["--base", withResults.base]);
    expect(r.code).toBe(1);
    expect(r.report).toMatchObject({
      reasons: ["property_hold"],
      property_failures: 1,
      properties: { enabled: true, result_files: ["props.xml"], tests: 2, failures: 1, skipped: 0 },
    });
  });

  it("the work tree must be the head it judges: another commit, or changed tracked files, is exit 2", async () => {
    const { repo, base } = project();
    const good = repo.commit("good", { "src.py": "x = 1\n" });
    repo.git(["checkout", "-q", base]);
    let r = await check(repo, ["--base", base, "--head", good]);
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "usage",
        message: expect.stringContaining(`but the patch's head is ${good.slice(0, 12)}`),
      }),
    ]);
    // A CI's test merge of the head into the target branch is that head as it would land.
    repo.git(["checkout", "-q", "-b", "target", base]);
    repo.commit("meanwhile on the target branch", { "other.py": "y = 2\n" });
    repo.git(["merge", "-q", "--no-ff", "-m", "test merge", good]);
    r = await check(repo, ["--base", base, "--head", good]);
    expect(r.code).toBe(0);
    expect(r.report).toMatchObject({ decision: "MERGE", head: good, commits: 1 });
    repo.git(["checkout", "-q", "main"]);
    writeFileSync(join(repo.dir, "freeze.toml"), LEDGER.replace("2026-12-20", "2027-12-20"));
    r = await check(repo, ["--base", base]);
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "work_tree_dirty",
        file: "freeze.toml",
        message: expect.stringContaining("has uncommitted changes: the gate judges commit"),
      }),
    ]);
    // Artifacts the config names may be rewritten by CI: they are what the run produced.
    repo.git(["checkout", "-q", "--", "freeze.toml"]);
    writeFileSync(join(repo.dir, "proven_coverage.json"), COVERAGE(75));
    r = await check(repo, ["--base", base]);
    expect(r.code).toBe(0);
    expect(r.report.proven_coverage_percent).toBe(75);
  });

  it("proven patch coverage: the lines git's diff adds, numbered as measured, also in a CI's test merge", async () => {
    const { repo, base } = project(`${OFF}\n[coverage]\nmin_patch_proven = 100\n`, {
      "src.py": "a = 1\nb = 2\nc = 3\n",
    });
    // coverage.py JSON of src.py: `run` lines executed, every other statement missing.
    const report = (statements: number, run: number[]) => {
      const missing = Array.from({ length: statements }, (_, i) => i + 1).filter((l) => !run.includes(l));
      const file = {
        executed_lines: run,
        missing_lines: missing,
        excluded_lines: [],
        summary: {
          covered_lines: run.length,
          num_statements: statements,
          percent_covered: (100 * run.length) / statements,
          missing_lines: missing.length,
          excluded_lines: 0,
        },
      };
      return `${JSON.stringify({ meta: { format: 2 }, files: { "src.py": file }, totals: file.summary })}\n`;
    };
    const good = repo.commit("c changes", {
      "src.py": "a = 1\nb = 2\nc = 30\n",
      "proven_coverage.json": report(3, [1, 2, 3]),
    });
    let r = await check(repo, ["--base", base]);
    expect(r.report.reasons).toEqual([]);
    expect((r.report.coverage as { patch: unknown }).patch).toMatchObject({ coverable: 1, covered: 1, percent: 100 });
    // The target branch moved on: two lines above. The test merge is measured; the patch's line is line 5 there.
    repo.git(["checkout", "-q", "-b", "target", base]);
    repo.commit("meanwhile on the target branch", { "src.py": "x = 0\ny = 0\na = 1\nb = 2\nc = 3\n" });
    repo.git(["merge", "-q", "--no-ff", "-m", "test merge", good]);
    writeFileSync(join(repo.dir, "proven_coverage.json"), report(5, [1, 2, 3, 4]));
    r = await check(repo, ["--base", base, "--head", good]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["patch_unproven"]);
    expect((r.report.coverage as { patch: unknown }).patch).toMatchObject({
      coverable: 1,
      covered: 0,
      files: [{ path: "src.py", uncovered: [5], frozen_only: null }],
    });
  });

  it("a report that cannot be written turns a MERGE into exit 2, and what is printed says so", async () => {
    const { repo, base } = project();
    const r = await check(repo, ["--base", base, "--out-dir", "freeze.toml/report"]);
    expect(r.code).toBe(2);
    expect(r.out.split("\n")[0]).toMatch(/^proofgate: REJECT/);
    expect(r.out).toContain("The gate could not evaluate (1 error):");
    expect(r.err).toMatch(/proofgate: error: \S*freeze\.toml\/report\/report\.json: cannot write: ENOTDIR/);
    expect(r.err).not.toContain("proofgate: wrote");
  });

  it("with fixtures on, the lock they were checked against is among the inputs, with its digest", async () => {
    const golden = "expected output\n";
    const lock = `${createHash("sha256").update(golden).digest("hex")}  tests/fixtures/golden.txt\n`;
    const { repo, base } = project("[properties]\nenabled = false\n", {
      "tests/fixtures/golden.txt": golden,
      "fixtures.lock": lock,
    });
    repo.commit("a human change", { "src.py": "x = 1\n" });
    const r = await check(repo, ["--base", base]);
    expect(r.code).toBe(0);
    expect(r.report.inputs).toContainEqual({
      role: "fixtures_lock",
      path: "fixtures.lock",
      sha256: createHash("sha256").update(lock).digest("hex"),
    });
    expect(r.out).toMatch(/Fixture digests +pass +delta 0; 0 file\(s\) differ from the lock/);
  });

  it("a named platform that this build lacks is a usage error (exit 2), never a silent local run", async () => {
    const { repo, base } = project();
    const io: CliIo = { stdout: () => {}, stderr: () => {}, now: () => NOW, cwd: repo.dir, env: {}, isTTY: false };
    // A build with the local platform alone (every platform package is wired in by now): the error is the
    // report, written and shown locally.
    expect(await runCheck({ base, platform: "buildkite" }, io, [localPlatform])).toBe(2);
    const report = JSON.parse(readFileSync(join(repo.dir, "proofgate-report", "report.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(report).toMatchObject({
      decision: "REJECT",
      reasons: ["input_error"],
      errors: [{ code: "usage", message: "the buildkite platform is not available in this build" }],
    });
  });

  it("a platform's base that is the target branch's tip (GitHub's pull_request.base.sha) is judged from the merge-base; a --base flag is taken as given", async () => {
    const { repo, base } = project();
    repo.git(["checkout", "-q", "-b", "feature"]);
    const head = repo.commit("the patch", { "src.py": "x = 1\n" });
    repo.git(["checkout", "-q", "main"]);
    const tip = repo.commit("main moved on", { "other.py": "y = 2\n" });
    repo.git(["checkout", "-q", "feature"]);
    const ciLike = {
      ...localPlatform,
      provider: "github" as const,
      detect: () => true,
      context: () => ({ provider: "github" as const, base: tip, head }),
    };
    let err = "";
    let out = "";
    const io: CliIo = {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      now: () => NOW,
      cwd: repo.dir,
      env: {},
      isTTY: false,
    };
    stampEvidence(repo.dir);
    const previous = process.cwd();
    process.chdir(repo.dir);
    try {
      expect(await runCheck({ format: "json" }, io, [ciLike])).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ decision: "MERGE", base, head, commits: 1 });
      expect(err).toContain(
        `the github base ${tip.slice(0, 12)} is the target branch's tip; the patch is judged from its merge-base ${base.slice(0, 12)}`,
      );
      out = "";
      expect(await runCheck({ format: "json", base: tip }, io, [ciLike])).toBe(1);
      expect(JSON.parse(out).reasons).toEqual(["shallow_history"]);
    } finally {
      process.chdir(previous);
    }
  });

  it("a platform's workflow commands go to stderr when stdout carries the report (--format json, markdown)", async () => {
    const { repo, base } = project();
    // As GitHub's publish writes annotations: workflow commands, which the runner reads on stdout and stderr.
    const annotating = {
      ...localPlatform,
      provider: "github" as const,
      detect: () => true,
      context: () => ({ provider: "github" as const }),
      publish: async (_r: unknown, _c: unknown, tools: { stdout: (t: string) => void }) => (
        tools.stdout("::warning title=proofgate::a note\n"),
        { published: [], failures: [] }
      ),
    };
    stampEvidence(repo.dir);
    const previous = process.cwd();
    process.chdir(repo.dir);
    try {
      for (const format of ["json", "markdown", "text"]) {
        let out = "";
        let err = "";
        const io: CliIo = {
          stdout: (t) => (out += t),
          stderr: (t) => (err += t),
          now: () => NOW,
          cwd: repo.dir,
          env: {},
          isTTY: false,
        };
        expect(await runCheck({ format, base }, io, [annotating])).toBe(0);
        if (format === "text") {
          expect(out).toContain("::warning title=proofgate::a note\n");
          expect(err).not.toContain("::warning");
        } else {
          expect(out).not.toContain("::warning");
          expect(err).toContain("::warning title=proofgate::a note\n");
          if (format === "json") expect(JSON.parse(out)).toMatchObject({ decision: "MERGE" });
        }
      }
    } finally {
      process.chdir(previous);
    }
  });

  it("--name names the gate for the platform; PROOFGATE_NAME when no flag; the flag beats the variable", async () => {
    const { repo, base } = project();
    const names: (string | undefined)[] = [];
    const recording = {
      ...localPlatform,
      provider: "github" as const,
      detect: () => true,
      context: () => ({ provider: "github" as const }),
      publish: async (_r: unknown, _c: unknown, tools: { name?: string | undefined }) => (
        names.push(tools.name),
        { published: [], failures: [] }
      ),
    };
    stampEvidence(repo.dir);
    const previous = process.cwd();
    process.chdir(repo.dir);
    try {
      const cases: [Record<string, unknown>, Record<string, string>][] = [
        [{}, {}],
        [{}, { PROOFGATE_NAME: "web" }],
        [{ name: "api" }, { PROOFGATE_NAME: "web" }],
        [{ name: "services/api" }, {}],
      ];
      for (const [args, env] of cases) {
        const io: CliIo = { stdout: () => {}, stderr: () => {}, now: () => NOW, cwd: repo.dir, env, isTTY: false };
        expect(await runCheck({ format: "json", base, ...args }, io, [recording])).toBe(0);
      }
      expect(names).toEqual(["proofgate", "web", "api", "services/api"]);
    } finally {
      process.chdir(previous);
    }
  });

  it("--root names the gate proofgate/<folder> unless named; a folder that is no name asks for --name", async () => {
    const pkg = {
      "proofgate.toml": OFF,
      "freeze.toml": LEDGER,
      "collected.txt": COLLECTED,
      "proven_coverage.json": COVERAGE(80),
      ".gitignore": "proofgate-report/\n",
    };
    const { repo, base } = project(OFF, {
      ...Object.fromEntries(Object.entries(pkg).map(([p, t]) => [`svc/api/${p}`, t])),
      ...Object.fromEntries(Object.entries(pkg).map(([p, t]) => [`my pkg/${p}`, t])),
    });
    const names: (string | undefined)[] = [];
    const recording = {
      ...localPlatform,
      provider: "github" as const,
      detect: () => true,
      context: () => ({ provider: "github" as const }),
      publish: async (_r: unknown, _c: unknown, tools: { name?: string | undefined }) => (
        names.push(tools.name),
        { published: [], failures: [] }
      ),
    };
    for (const dir of ["svc/api", "my pkg"]) stampEvidence(join(repo.dir, dir));
    let err = "";
    const io = (env: Record<string, string>): CliIo => ({
      stdout: () => {},
      stderr: (t) => (err += t),
      now: () => NOW,
      cwd: repo.dir,
      env,
      isTTY: false,
    });
    expect(await runCheck({ format: "json", base, root: "svc/api" }, io({}), [recording])).toBe(0);
    expect(await runCheck({ format: "json", base, root: "svc/api" }, io({ PROOFGATE_NAME: "web" }), [recording])).toBe(
      0,
    );
    expect(await runCheck({ format: "json", base, root: "svc/api", name: "api" }, io({}), [recording])).toBe(0);
    expect(await runCheck({ format: "json", base, root: "my pkg", name: "mine" }, io({}), [recording])).toBe(0);
    expect(names).toEqual(["proofgate/svc/api", "web", "api", "mine"]);
    // Without --out-dir each package's report is in its own folder: the second does not overwrite the first's.
    expect(JSON.parse(readFileSync(join(repo.dir, "svc/api/proofgate-report/report.json"), "utf8"))).toMatchObject({
      root: "svc/api",
    });
    expect(JSON.parse(readFileSync(join(repo.dir, "my pkg/proofgate-report/report.json"), "utf8"))).toMatchObject({
      root: "my pkg",
    });
    expect(existsSync(join(repo.dir, "proofgate-report"))).toBe(false);
    expect(await runCheck({ format: "json", base, root: "my pkg" }, io({}), [recording])).toBe(2);
    expect(err).toContain('the name from --root "proofgate/my pkg" is not a gate name');
    expect(err).toContain("name the gate with --name");
  });

  it("a name no platform can carry is exit 2: the report is that usage error, naming the flag and the fix", async () => {
    const { repo, base } = project();
    for (const [args, env, source, name] of [
      [["--name", "a b"], {}, "--name", "a b"],
      [["--name", "x-->y"], {}, "--name", "x-->y"],
      [[], { PROOFGATE_NAME: "-api" }, "PROOFGATE_NAME", "-api"],
    ] as const) {
      const r = await check(repo, ["--base", base, "--format", "json", ...args], env);
      expect(r.code).toBe(2);
      expect(r.report).toMatchObject({
        decision: "REJECT",
        reasons: ["input_error"],
        errors: [
          {
            code: "usage",
            message: expect.stringMatching(new RegExp(`^${source} "${name}" is not a gate name: `)) as unknown,
            fix: "name the gate like proofgate-api or api/unit",
          },
        ],
      });
      expect(r.err).toContain(`proofgate: error: ${source} "${name}" is not a gate name`);
    }
  });

  it("colour on a terminal only, and never with NO_COLOR", async () => {
    const { repo, base } = project();
    let out = "";
    const io = (env: Record<string, string>): CliIo => ({
      stdout: (t) => (out += t),
      stderr: () => {},
      now: () => NOW,
      cwd: repo.dir,
      env,
      isTTY: true,
    });
    stampEvidence(repo.dir);
    await run(["check", "--base", base], io({}));
    expect(out).toContain("\u001b[32m");
    out = "";
    await run(["check", "--base", base], io({ NO_COLOR: "1" }));
    expect(out).not.toContain("\u001b[");
  });
});

describe("proofgate check --run", () => {
  // Shell commands, not pytest: no run record (`record = false`); the recorded runs are in apps/e2e.
  const RUN_CONFIG = (proof: string, record = false) =>
    `${OFF}\n[commands]\nrecord = ${record}\ncollect = "printf 'tests/test_a.py::test_one\\\\ntests/test_a.py::test_two\\\\n\\\\n2 tests collected in 0.01s\\\\n' > collected.txt"\nproof = "${proof}"\n`;

  it("runs collect then proof, streams their output, hands the proof run the deselection, and judges what they wrote", async () => {
    const proof = `echo proof-ran; cat \\"$PROOFGATE_FROZEN_IDS\\"; echo \\"$PYTEST_ADDOPTS\\"; cp cov80.json proven_coverage.json`;
    const { repo, base } = project(RUN_CONFIG(proof), { "cov80.json": COVERAGE(80) });
    const r = await check(repo, ["--base", base, "--run", "--verbose"]);
    expect(r.err).toContain("proof-ran\ntests/test_a.py::test_two\n-p proofgate_frozen\n");
    expect(r.err).toMatch(/▶ collect.*\n(.|\n)*✔ collect \(\d+\.\d s\)/);
    expect(r.code).toBe(0);
    // Every step, the base's in its worktree included, with its time (commands[].seconds).
    const timed = { exit_code: 0, seconds: expect.any(Number) };
    expect(r.report.commands).toEqual([
      { step: "base collect", command: expect.stringContaining("printf"), ...timed },
      { step: "collect", command: expect.stringContaining("printf"), ...timed },
      { step: "proof", command: proof.replace(/\\"/g, '"'), ...timed },
    ]);
    const commands = r.report.commands as { seconds: number }[];
    expect(commands.every((c) => c.seconds >= 0)).toBe(true);
    // --verbose: where the time went, the steps, the base's worktree and the gate's own work, at the end.
    const times = r.err.split("\n").filter((l) => l.startsWith("proofgate: time: "));
    // In the order they started; the base's collection runs beside the head's collect, either may start first.
    const named = times.map((l) => l.replace(/ \d+\.\d\d s$/, "").replace("proofgate: time: ", ""));
    expect(named.slice(-2)).toEqual(["gate (Node, git, reading, deciding, writing)", "total"]);
    expect([...named.slice(0, -2)].sort()).toEqual([
      "base collect",
      "base worktree",
      "base worktree removed",
      "collect",
      "proof",
    ]);
    expect(named.indexOf("base worktree")).toBeLessThan(named.indexOf("base collect"));
    expect(named.indexOf("collect")).toBeLessThan(named.indexOf("proof"));
    const plugin = readFileSync(join(repo.dir, "proofgate-report", "pytest", "proofgate_frozen.py"), "utf8");
    expect(plugin).toContain('"tests/test_a.py::test_two",');
  });

  it("with run records on, a proof step that writes none is runner_tampering: the plugin was bypassed, or it is not pytest", async () => {
    // No collect: with run records on, the base's collect must be pytest with the gate's plugin (a printf is
    // exit 2, base-tests.test.ts); the proof step is the one judged here.
    const config = RUN_CONFIG("cp cov80.json proven_coverage.json", true).replace(/^collect = .*\n/m, "");
    const { repo, base } = project(config, {
      "cov80.json": COVERAGE(80),
    });
    const r = await check(repo, ["--base", base, "--run", "--format", "json"]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["runner_tampering"]);
    const [finding] = r.report.details as { message: string; fix: string; file: string }[];
    expect(finding!.message).toMatch(/^the proof run wrote no valid run record: /);
    expect(finding!.file).toBe("proofgate-report/proof-record.json");
    expect(finding!.fix).toContain("set [commands] record = false");
  });

  it("a proof command that fails is tests_failed, even when its coverage looks fine", async () => {
    const { repo, base } = project(RUN_CONFIG("cp cov80.json proven_coverage.json; exit 3"), {
      "cov80.json": COVERAGE(80),
    });
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["tests_failed"]);
    expect(r.err).toContain("✘ proof exited with 3");
  });

  it("a file the step should have written but did not is exit 2: a report left from an earlier run is not evidence", async () => {
    const { repo, base } = project(RUN_CONFIG("echo forgot to write the report"));
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "file_missing",
        file: "proven_coverage.json",
        message:
          "[commands] proof (`echo forgot to write the report`) did not rewrite it: a file left from an earlier run is not evidence",
      }),
    ]);
  });

  it("a step that fails and writes nothing says so: its exit code and the last lines of its stderr, not 'a file left from an earlier run'", async () => {
    const { repo, base } = project(RUN_CONFIG("echo one >&2; echo 'E   ImportError: no module named pkg' >&2; exit 4"));
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(2);
    const [error] = r.report.errors as { code: string; file: string; message: string; fix: string }[];
    expect(error).toMatchObject({ code: "file_missing", file: "proven_coverage.json" });
    expect(error!.message).toMatch(
      /^\[commands\] proof \(`.*`\) exited with 4 and did not write it; its stderr ended: one \| E {3}ImportError: no module named pkg$/,
    );
    expect(error!.message).not.toContain("earlier run");
    expect(error!.fix).toContain("make the proof command succeed");
  });

  it("a collect step that fails but still writes its file (a shell redirect) leads with its own failure, then what reading the file found", async () => {
    // The base collects; the patch breaks the collection (its file still written by the redirect).
    const collect =
      "if [ -e broken ]; then echo 'ERROR: usage: unrecognized arguments: --bogus' >&2; : > collected.txt; exit 4; fi; cp ok.txt collected.txt";
    const { repo, base } = project(`${OFF}\n[commands]\nrecord = false\ncollect = "${collect}"\nproof = "true"\n`, {
      "ok.txt": COLLECTED,
    });
    repo.commit("break the collection", { broken: "" });
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(2);
    const errors = r.report.errors as { code: string; file: string; message: string }[];
    expect(errors[0]).toMatchObject({
      code: "usage",
      file: `proofgate.toml at ${base.slice(0, 12)}`,
      message: `[commands] collect (\`${collect}\`) exited with 4; its stderr ended: ERROR: usage: unrecognized arguments: --bogus`,
    });
    expect(errors[1]).toMatchObject({ code: "file_empty", file: "collected.txt" });
    expect(r.err).not.toContain("▶ proof");
  });

  it("with --run, an untracked file is exit 2: an uncommitted test would add coverage that head does not have", async () => {
    const { repo, base } = project(RUN_CONFIG("cp cov80.json proven_coverage.json"), { "cov80.json": COVERAGE(80) });
    writeFileSync(join(repo.dir, "test_extra.py"), "def test_x():\n    pass\n");
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "work_tree_dirty",
        file: "test_extra.py",
        message: expect.stringContaining("is uncommitted or untracked"),
      }),
    ]);
    expect(r.err).not.toContain("▶ collect");
  });

  it("--run without [commands] is a usage error", async () => {
    const { repo, base } = project();
    const r = await check(repo, ["--base", base, "--run"]);
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({ code: "usage", message: "--run was given, but the config names no [commands]" }),
    ]);
  });
});

describe("proofgate check in a CI log (stdout no terminal, no COLUMNS)", { timeout: 60_000 }, () => {
  it("the table fits 120 columns, wrapped; report.txt, report.md and report.json keep every cell whole", async () => {
    const { repo, base } = project();
    repo.commit("a human change", { "src.py": "x = 1\n" });
    const r = await check(repo, ["--base", base]);
    const removed = (r.report.signals as { id: string; value: string }[]).find((s) => s.id === "removed_tests")!.value;
    expect(removed.length).toBeGreaterThan(120);
    const table = r.out.split("\n\n")[1]!;
    expect(table.split("\n")[0]).toMatch(/^Signal +Result +Value +Policy$/);
    for (const line of table.split("\n")) expect(line.length, line).toBeLessThanOrEqual(120);
    expect(table).not.toContain(removed);
    expect(table).toContain("not measured: no universe at the base.");
    const txt = readFileSync(join(repo.dir, "proofgate-report", "report.txt"), "utf8");
    expect(txt).toContain(removed);
    expect(readFileSync(join(repo.dir, "proofgate-report", "report.md"), "utf8")).toContain(
      "run \\`proofgate check --run\\`, or set \\[universe\\] base\\_collected \\(the base's",
    );
  });

  it("COLUMNS wins over the log's 120", async () => {
    const { repo, base } = project();
    repo.commit("a human change", { "src.py": "x = 1\n" });
    const r = await check(repo, ["--base", base], { COLUMNS: "80" });
    const table = r.out.split("\n\n")[1]!;
    expect(table.split("\n")[0]).toMatch(/^Signal +Result +Value \/ policy$/);
    for (const line of table.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

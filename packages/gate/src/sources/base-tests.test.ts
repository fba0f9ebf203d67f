// The base's side of tests_removed and tests_skipped_unledgered through evaluateGate on Node's ports, on
// scratch git repositories. No Python: the collection and the proof run are small Node scripts that write
// pytest's shapes (collect-only text, JUnit XML with pytest's classnames) from the tree they run in, and
// honour the base run's plugin the way pytest would (only the ids it names). Real pytest: apps/e2e.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GateError, type GateReport } from "@proofgate/core";
import { evaluateGate, type CheckRequest } from "../evaluate.js";
import { silentLog, type GateLog } from "../log.js";
import { nodePorts } from "../node/index.js";
import { scratchRepo, type ScratchIdentity, type ScratchRepo } from "../testing/git-scratch.js";
import { asAtRoot } from "./base-tests.js";

const AGENT: ScratchIdentity = { name: "coding-agent[bot]", email: "7+coding-agent[bot]@users.noreply.github.com" };
const HUMAN: ScratchIdentity = { name: "Ada Lovelace", email: "ada@example.org" };
const NODE = JSON.stringify(process.execPath);

/**
 * What the base steps' plugin (`-p proofgate_base_imports`, core's base-imports.ts) does in pytest, for the
 * Node scripts: a line in its report saying the step imported nothing from the work tree.
 */
const HONOUR_BASE_IMPORTS = `import { appendFileSync as _append, existsSync as _exists, readFileSync as _read } from "node:fs";
if ((process.env.PYTEST_ADDOPTS ?? "").includes("-p proofgate_base_imports")) {
  const _dir = process.env.PYTHONPATH.split(":").find((d) => _exists(d + "/proofgate_base_imports.py"));
  const _plugin = _read(_dir + "/proofgate_base_imports.py", "utf8");
  _append(JSON.parse(/^_REPORT = (".*")$/m.exec(_plugin)[1]), JSON.stringify({ pid: process.pid, local: 1, foreign: [] }) + "\\n");
}`;

/** `tests.txt` (one id a line) as `pytest --collect-only -q` prints it. */
const COLLECT_SCRIPT = `import { readFileSync, writeFileSync } from "node:fs";
${HONOUR_BASE_IMPORTS}
const ids = readFileSync("tests.txt", "utf8").split("\\n").filter(Boolean);
writeFileSync("collected.txt", ids.join("\\n") + "\\n\\n" + ids.length + " tests collected in 0.01s\\n");
`;

/**
 * A proof run: every id of tests.txt passes unless skips.txt names it. With the base run's plugin loaded
 * (PYTEST_ADDOPTS "-p proofgate_only", the plugin on PYTHONPATH), only the ids the plugin names run.
 */
const PROOF_SCRIPT = `import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
${HONOUR_BASE_IMPORTS}
const lines = (f) => (existsSync(f) ? readFileSync(f, "utf8").split("\\n").filter(Boolean) : []);
let ids = lines("tests.txt");
const skips = new Set(lines("skips.txt"));
if ((process.env.PYTEST_ADDOPTS ?? "").includes("-p proofgate_only")) {
  const dir = process.env.PYTHONPATH.split(":").find((d) => existsSync(d + "/proofgate_only.py"));
  const only = new Set([...readFileSync(dir + "/proofgate_only.py", "utf8").matchAll(/^    "(.*)",$/gm)].map((m) => m[1]));
  writeFileSync(process.env.ONLY_RAN_LOG, [...only].join("\\n"));
  if (process.env.ONLY_ADDOPTS_LOG) writeFileSync(process.env.ONLY_ADDOPTS_LOG, process.env.PYTEST_ADDOPTS);
  ids = ids.filter((id) => only.has(id));
}
const esc = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const cases = ids.map((id) => {
  const [file, name] = id.split("::");
  const cls = file.replace(/\\.py$/, "").replaceAll("/", ".");
  const body = skips.has(id) ? '<skipped type="pytest.skip" message="later">later</skipped>' : "";
  return '<testcase classname="' + esc(cls) + '" name="' + esc(name) + '" file="' + esc(file) + '" time="0">' + body + "</testcase>";
});
writeFileSync("results.xml", '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">' + cases.join("") + "</testsuite></testsuites>");
writeFileSync("proven_coverage.json", '{"meta": {"format": 3}, "files": {"src/app.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\\n');
`;

const CONFIG = (extra = ""): string => `[fixtures]
enabled = false

[properties]
enabled = false

[results]
junit = ["results.xml"]

[commands]
collect = ${JSON.stringify(`${NODE} collect.mjs`)}
proof = ${JSON.stringify(`${NODE} proof.mjs`)}
# Node scripts, not pytest: no run record (the recorded runs with real pytest are in apps/e2e).
record = false
${extra}`;

const TESTS = ["tests/test_a.py::test_one", "tests/test_a.py::test_two", "tests/test_b.py::test_three"];

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function project(files: Record<string, string> = {}): { repo: ScratchRepo; base: string } {
  const repo = scratchRepo("proofgate-base-tests-");
  repos.push(repo);
  const base = repo.commit("base", {
    "proofgate.toml": CONFIG(),
    "freeze.toml": "version = 1\nmax_active_leases = 0\n",
    "collect.mjs": COLLECT_SCRIPT,
    "proof.mjs": PROOF_SCRIPT,
    "tests.txt": `${TESTS.join("\n")}\n`,
    "tests/test_a.py": "def test_one(): pass\ndef test_two(): pass\n",
    "tests/test_b.py": "def test_three(): pass\n",
    ".gitignore":
      "collected.txt\nresults.xml\nproven_coverage.json\nonly-ran.txt\nproofgate-report/\nbase-collected.txt\nbase-results.xml\n",
    ...files,
  });
  return { repo, base };
}

interface Gate {
  report: GateReport;
  info: string[];
  steps: string[];
}

async function gate(repo: ScratchRepo, base: string, o: { run?: boolean } = {}): Promise<Gate> {
  const info: string[] = [];
  const steps: string[] = [];
  const log: GateLog = {
    info: (line) => info.push(line),
    warn: (line) => info.push(`warning: ${line}`),
    issues: () => {},
    stepStarted: (step) => steps.push(step),
    stepEnded: () => {},
    output: () => {},
  };
  const env = {
    PATH: process.env.PATH ?? "",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ONLY_RAN_LOG: join(repo.dir, "only-ran.txt"),
    ONLY_ADDOPTS_LOG: join(repo.dir, ".git", "only-addopts.txt"),
  };
  const request: CheckRequest = {
    kind: "check",
    clock: { today: "2026-12-02", override: false },
    base: { revision: base, from: "flag" },
    shallowFix: "git fetch --unshallow",
    outDir: "proofgate-report",
    ...(o.run === false ? {} : { run: { env } }),
  };
  const report = await evaluateGate(request, nodePorts({ root: repo.dir, env }), log);
  return { report, info, steps };
}

async function gateError(promise: Promise<unknown>): Promise<GateError> {
  try {
    await promise;
  } catch (error) {
    if (GateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a GateError");
}

/** The worktree the log named, and the worktrees git still knows besides the repository's own. */
function leftovers(repo: ScratchRepo, info: readonly string[]): { dir: string | undefined; known: string[] } {
  const dir = info.map((l) => /in a git worktree at (\S+),/.exec(l)?.[1]).find(Boolean);
  const known = repo
    .git(["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((l) => l.startsWith("worktree ") && l.slice(9) !== repo.dir);
  return { dir: dir && existsSync(dir) ? dir : undefined, known };
}

const row = (report: GateReport, id: string) => report.signals.find((s) => s.id === id)!;

describe("check --run: the base collected in a git worktree with the base's own [commands] collect", () => {
  it("an agent drops a test: tests_removed names it, the commit and the author; the worktree is gone", async () => {
    const { repo, base } = project();
    const head = repo.commit(
      "drop a test",
      { "tests.txt": `${TESTS[0]}\n${TESTS[2]}\n`, "tests/test_a.py": "def test_one(): pass\n" },
      { author: AGENT },
    );
    const { report, info, steps } = await gate(repo, base);
    expect(report.reasons).toEqual(["tests_removed"]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        reason: "tests_removed",
        file: "tests/test_a.py",
        commit: head,
        author: `${AGENT.name} <${AGENT.email}>`,
      }),
    ]);
    expect(report.findings[0]!.message).toContain("tests/test_a.py::test_two is collected at base but not at head");
    expect(steps).toEqual(["base collect", "collect", "proof"]);
    expect(row(report, "removed_tests")).toMatchObject({
      result: "fail",
      value: `1 of 3 base tests not collected at head; base: collected.txt (collected at base ${base.slice(0, 12)})`,
    });
    expect(report.inputs.filter((i) => i.role === "base_universe").map((i) => i.path)).toEqual([
      `collected.txt (collected at base ${base.slice(0, 12)})`,
    ]);
    expect(leftovers(repo, info)).toEqual({ dir: undefined, known: [] });
    // The base's collection wrote into the worktree, never the repository.
    expect(readFileSync(join(repo.dir, "collected.txt"), "utf8")).not.toContain("test_two");
  });

  it("the same removal by a human with `Test-Removal: human`: MERGE, counted as approved", async () => {
    const { repo, base } = project();
    repo.commit(
      "drop a test\n\nTest-Removal: human\n",
      { "tests.txt": `${TESTS[0]}\n${TESTS[2]}\n`, "tests/test_a.py": "def test_one(): pass\n" },
      { author: HUMAN },
    );
    const { report } = await gate(repo, base);
    expect(report.reasons).toEqual([]);
    expect(row(report, "removed_tests").value).toMatch(/^1 of 3 base tests not collected at head, 1 approved; /);
  });

  it("a file the collect command names (tests.txt, through a shell script) is collection configuration", async () => {
    const { repo, base } = project({
      "proofgate.toml": CONFIG().replace(`${JSON.stringify(`${NODE} collect.mjs`)}`, '"sh ci/collect.sh tests.txt"'),
      "ci/collect.sh": `${NODE} collect.mjs "$1"\n`,
    });
    const head = repo.commit("narrow", { "tests.txt": `${TESTS[0]}\n` }, { author: AGENT });
    const { report } = await gate(repo, base);
    expect(report.reasons).toEqual(["tests_removed"]);
    expect(report.findings.map((f) => [f.file, f.commit])).toEqual([
      ["tests/test_a.py", head],
      ["tests/test_b.py", head],
    ]);
    expect(report.findings[0]!.message).toContain("and touched tests.txt");
  });

  it("a base whose collection fails: exit 2 naming the command, and the worktree is removed all the same", async () => {
    const { repo, base } = project({ "collect.mjs": "process.exit(3);\n" });
    repo.commit("fix the collection", { "collect.mjs": COLLECT_SCRIPT }, { author: AGENT });
    const info: string[] = [];
    const error = await gateError(
      evaluateGate(
        {
          kind: "check",
          clock: { today: "2026-12-02", override: false },
          base: { revision: base, from: "flag" },
          shallowFix: "",
          outDir: "proofgate-report",
          run: { env: { PATH: process.env.PATH ?? "" } },
        },
        nodePorts({ root: repo.dir, env: { PATH: process.env.PATH ?? "" } }),
        {
          info: (l) => info.push(l),
          warn: () => {},
          issues: () => {},
          stepStarted: () => {},
          stepEnded: () => {},
          output: () => {},
        },
      ),
    );
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: "universe_invalid",
        file: `proofgate.toml at ${base.slice(0, 12)}`,
        message: expect.stringContaining(`exited with 3 on the base ${base.slice(0, 12)}`),
      }),
    ]);
    expect(error.issues[0]!.message).toContain(`\`${NODE} collect.mjs\``);
    expect(leftovers(repo, info)).toEqual({ dir: undefined, known: [] });
  });

  it("a base with collection errors cannot be judged: exit 2, never a pass", async () => {
    const { repo, base } = project({
      "collect.mjs": `import { writeFileSync } from "node:fs";\nwriteFileSync("collected.txt", "tests/test_a.py::test_one\\n\\n==== ERRORS ====\\nERROR tests/test_b.py\\n1 test collected, 1 error in 0.01s\\n");\n`,
    });
    repo.commit("fix", { "collect.mjs": COLLECT_SCRIPT }, { author: AGENT });
    const error = await gateError(gate(repo, base));
    expect(error.issues[0]).toMatchObject({ code: "universe_invalid" });
    expect(error.issues[0]!.message).toContain("the base's collection reported an error");
  });
});

describe("check --run: the base's collection runs beside the head's collect and proof", () => {
  /**
   * A collect script that, in the base's worktree only (/tmp/proofgate-base-<pid>-...), first waits for
   * `flag` (written by the head's proof as it starts, or the stamp the gate writes once the head's steps
   * ended), then leaves `stray` in the repository.
   */
  const waitingCollect = (flag: string, stray?: string): string => `import { existsSync, writeFileSync } from "node:fs";
if (/\\/proofgate-base-\\d+-/.test(process.cwd())) {
  const until = Date.now() + 20000;
  while (!existsSync(${JSON.stringify(flag)}) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(${JSON.stringify(flag)})) process.exit(4);
  ${stray ? `writeFileSync(${JSON.stringify(stray)}, "left by the base\\n");` : ""}
}
await import("./collect-ids.mjs");
`;
  const proofWithFlag = (flag: string): string => `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(flag)}, "proof started\\n");
await import("./proof-run.mjs");
`;

  it("the base's collection is still running when the head's proof starts; its output is shown after, and it is judged", async () => {
    const repo = scratchRepo("proofgate-base-tests-");
    repos.push(repo);
    const flag = join(repo.dir, "..", `${repo.dir.split("/").pop()}-proof-started`);
    const base = repo.commit("base", {
      "proofgate.toml": CONFIG(),
      "freeze.toml": "version = 1\nmax_active_leases = 0\n",
      "collect.mjs": waitingCollect(flag),
      "collect-ids.mjs": `${COLLECT_SCRIPT}console.log("base-or-head collect output");\n`,
      "proof.mjs": proofWithFlag(flag),
      "proof-run.mjs": PROOF_SCRIPT,
      "tests.txt": `${TESTS.join("\n")}\n`,
      ".gitignore": "collected.txt\nresults.xml\nproven_coverage.json\nproofgate-report/\n",
    });
    repo.commit("drop a test", { "tests.txt": `${TESTS[0]}\n${TESTS[2]}\n` }, { author: AGENT });
    const events: string[] = [];
    const log: GateLog = {
      ...silentLog,
      info: (line) => events.push(`info ${line}`),
      stepStarted: (step) => events.push(`start ${step}`),
      stepEnded: (step) => events.push(`end ${step}`),
      output: (text) => events.push(`output ${text.trim()}`),
    };
    const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
    try {
      const report = await evaluateGate(
        {
          kind: "check",
          clock: { today: "2026-12-02", override: false },
          base: { revision: base, from: "flag" },
          shallowFix: "",
          outDir: "proofgate-report",
          run: { env },
        },
        nodePorts({ root: repo.dir, env }),
        log,
      );
      // The base waited for the head's proof to start: they ran together, and the base was still judged.
      expect(events.indexOf("start proof")).toBeLessThan(events.indexOf("end base collect"));
      expect(events.indexOf("start base collect")).toBeLessThan(events.indexOf("end collect"));
      expect(report.reasons).toEqual(["tests_removed"]);
      // The head's collect output streams as it comes; the base's is held until the head's steps ended.
      const outputs = events.flatMap((e, i) => (e === "output base-or-head collect output" ? [i] : []));
      expect(outputs).toHaveLength(2);
      expect(outputs[1]).toBeGreaterThan(events.indexOf("end proof"));
      expect(report.commands?.map((c) => c.step).sort()).toEqual(["base collect", "collect", "proof"]);
      expect(
        leftovers(
          repo,
          events.map((e) => e.replace(/^info /, "")),
        ),
      ).toEqual({ dir: undefined, known: [] });
    } finally {
      rmSync(flag, { force: true });
    }
  });

  it("what the base's steps left in the repository meanwhile is theirs (run_wrote_repository); a base that fails after the head passed is exit 2", async () => {
    const repo = scratchRepo("proofgate-base-tests-");
    repos.push(repo);
    const flag = join(repo.dir, "..", `${repo.dir.split("/").pop()}-proof-started`);
    const files = {
      "proofgate.toml": CONFIG(),
      "freeze.toml": "version = 1\nmax_active_leases = 0\n",
      // After the head's steps and their watches: the stamp check --run writes then.
      "collect.mjs": waitingCollect(join(repo.dir, "proofgate-evidence.json"), join(repo.dir, "stray.txt")),
      "collect-ids.mjs": COLLECT_SCRIPT,
      "proof.mjs": proofWithFlag(flag),
      "proof-run.mjs": PROOF_SCRIPT,
      "tests.txt": `${TESTS.join("\n")}\n`,
      ".gitignore": "collected.txt\nresults.xml\nproven_coverage.json\nproofgate-report/\n",
    };
    const base = repo.commit("base", files);
    repo.commit("a change", { "tests.txt": `${TESTS.join("\n")}\n\n` }, { author: AGENT });
    const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
    const request: CheckRequest = {
      kind: "check",
      clock: { today: "2026-12-02", override: false },
      base: { revision: base, from: "flag" },
      shallowFix: "",
      outDir: "proofgate-report",
      run: { env },
    };
    try {
      const report = await evaluateGate(request, nodePorts({ root: repo.dir, env }), silentLog);
      expect(report.reasons).toContain("run_wrote_repository");
      expect(report.findings.find((f) => f.reason === "run_wrote_repository")?.message).toContain("stray.txt");
      expect(report.findings.find((f) => f.reason === "run_wrote_repository")?.message).toContain("base collect");
      // The base's collection fails once the head's proof has started: exit 2, whatever the head did.
      rmSync(join(repo.dir, "stray.txt"), { force: true });
      rmSync(flag, { force: true });
      const failing = scratchRepo("proofgate-base-tests-");
      repos.push(failing);
      const failingBase = failing.commit("base", {
        ...files,
        "collect.mjs": `if (/\\/proofgate-base-\\d+-/.test(process.cwd())) process.exit(5);\nawait import("./collect-ids.mjs");\n`,
      });
      failing.commit("a change", { "tests.txt": `${TESTS.join("\n")}\n\n` }, { author: AGENT });
      const error = await gateError(
        evaluateGate(
          { ...request, base: { revision: failingBase, from: "flag" } },
          nodePorts({ root: failing.dir, env }),
          silentLog,
        ),
      );
      expect(error.issues).toEqual([
        expect.objectContaining({ code: "universe_invalid", message: expect.stringContaining("exited with 5") }),
      ]);
    } finally {
      rmSync(flag, { force: true });
    }
  });
});

describe("check --run: the base's steps import the base's code (an editable install points at the work tree)", () => {
  /** The collect script, but what it "imported" is reported as the plugin would, or not at all. */
  const collectReporting = (foreign: { module: string; file: string }[] | "no plugin"): string =>
    COLLECT_SCRIPT.replace(
      HONOUR_BASE_IMPORTS,
      foreign === "no plugin"
        ? ""
        : HONOUR_BASE_IMPORTS.replace("foreign: [] }", `foreign: ${JSON.stringify(foreign)} }`),
    );

  it("a module loaded from the work tree: exit 2 naming the step, the module and its file", async () => {
    const { repo } = project();
    const file = join(repo.dir, "src/pkg/__init__.py");
    repo.commit("reporting", { "collect.mjs": collectReporting([{ module: "pkg", file }]) }, { author: HUMAN });
    const at = repo.git(["rev-parse", "HEAD"]).trim();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const error = await gateError(gate(repo, at));
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: "universe_invalid",
        message: `the base collect step (\`${NODE} collect.mjs\`) imported pkg from ${file}, the work tree's copy, not the base ${at.slice(0, 12)}'s worktree: the base would be judged with the head's code`,
      }),
    ]);
  });

  it("a step that never loaded the plugin: exit 2 with [commands] record, a warning without it", async () => {
    const { repo, base } = project();
    repo.commit(
      "no plugin",
      {
        "collect.mjs": collectReporting("no plugin"),
        "proofgate.toml": CONFIG().replace("record = false", "record = true"),
      },
      { author: HUMAN },
    );
    const strict = repo.git(["rev-parse", "HEAD"]).trim();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const error = await gateError(gate(repo, strict));
    expect(error.issues[0]!.message).toContain("the base collect step");
    expect(error.issues[0]!.message).toContain("did not load proofgate's plugin (-p proofgate_base_imports");

    repo.git(["checkout", "-q", "-b", "lenient", base]);
    repo.commit("no plugin", { "collect.mjs": collectReporting("no plugin") }, { author: HUMAN });
    const lenient = repo.git(["rev-parse", "HEAD"]).trim();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const { report, info } = await gate(repo, lenient);
    expect(report.decision).toBe("MERGE");
    expect(info).toContain(
      "warning: the base collect step loaded no pytest plugin of proofgate's ([commands] record = false): nothing shows that it imported the base's code rather than the work tree's",
    );
  });
});

describe("check --run: [commands] base_setup prepares the base's worktree", () => {
  /** A setup that notes where it ran and whether a node_modules was there, then exits with `code`. */
  const setupScript = (log: string, code = 0): string => `import { appendFileSync, existsSync } from "node:fs";
appendFileSync(${JSON.stringify(log)}, JSON.stringify({ cwd: process.cwd(), nodeModules: existsSync("node_modules") }) + "\\n");
process.exit(${code});
`;

  it("runs once in the worktree before the base's collection, which then has no node_modules of the work tree's", async () => {
    const { repo } = project();
    const log = join(repo.dir, ".git", "setup-log.jsonl");
    repo.commit(
      "setup",
      {
        "setup.mjs": setupScript(log),
        "proofgate.toml": CONFIG(`base_setup = ${JSON.stringify(`${NODE} setup.mjs`)}`),
        ".gitignore": `${readFileSync(join(repo.dir, ".gitignore"), "utf8")}node_modules/\n`,
      },
      { author: HUMAN },
    );
    const base = repo.git(["rev-parse", "HEAD"]).trim();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    // The work tree's installed packages: linked into the worktree when the base has no setup of its own.
    mkdirSync(join(repo.dir, "node_modules"));
    const { report, info, steps } = await gate(repo, base);
    expect(report.decision).toBe("MERGE");
    const runs = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cwd: string; nodeModules: boolean });
    expect(runs).toHaveLength(1);
    const worktree = info
      .map((l) => /worktree at (\S+) with the base's \[commands\] base_setup/.exec(l)?.[1])
      .find(Boolean);
    expect(runs[0]).toEqual({ cwd: worktree, nodeModules: false });
    expect(steps.indexOf("base setup")).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf("base setup")).toBeLessThan(steps.indexOf("base collect"));
    expect(report.commands?.map((c) => c.step)).toContain("base setup");
    expect(leftovers(repo, info).known).toEqual([]);
  });

  it("a setup that fails is exit 2 naming it and its exit code; it ran once; the worktree is removed", async () => {
    const { repo } = project();
    const log = join(repo.dir, ".git", "setup-log.jsonl");
    repo.commit(
      "setup",
      {
        "setup.mjs": setupScript(log, 3),
        "proofgate.toml": CONFIG(`base_setup = ${JSON.stringify(`${NODE} setup.mjs`)}`),
      },
      { author: HUMAN },
    );
    const base = repo.git(["rev-parse", "HEAD"]).trim();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const error = await gateError(gate(repo, base));
    expect(error.issues[0]!.message).toContain("[commands] base_setup (");
    expect(error.issues[0]!.message).toContain("exited with 3 on the base");
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
    expect(leftovers(repo, []).known).toEqual([]);
  });
});

describe("check --run: skips at head against the base's run of those tests", () => {
  it("an agent skips a test: the base runs only it (the plugin), ran it, so tests_skipped_unledgered", async () => {
    const { repo, base } = project();
    const head = repo.commit(
      "skip",
      { "skips.txt": `${TESTS[1]}\n`, "tests/test_a.py": "# skip test_two\n" },
      { author: AGENT },
    );
    const { report, info, steps } = await gate(repo, base);
    expect(steps).toEqual(["base collect", "collect", "proof", "base skips"]);
    expect(report.reasons).toEqual(["tests_skipped_unledgered"]);
    expect(report.findings[0]).toMatchObject({ file: "tests/test_a.py", commit: head });
    expect(report.findings[0]!.message).toContain("tests/test_a.py::test_two (later)");
    expect(report.findings[0]!.message).toContain("and were not skipped at base");
    expect(report.inputs.filter((i) => i.role === "base_results").map((i) => i.path)).toEqual([
      `results.xml (base run at ${base.slice(0, 12)})`,
    ]);
    expect(row(report, "test_evidence").value).toBe("2 proven, 0 frozen, 1 skipped, 0 failed, 0 missing; 1 new skip");
    // The base ran only the test skipped at head.
    expect(readFileSync(join(repo.dir, "only-ran.txt"), "utf8")).toBe(TESTS[1]);
    expect(leftovers(repo, info)).toEqual({ dir: undefined, known: [] });
  });

  it("a proof command with pytest-cov runs on the base with --no-cov: only the outcomes are read", async () => {
    const { repo, base } = project({
      "proofgate.toml": CONFIG().replace("proof.mjs", "proof.mjs --cov=src --cov-branch"),
    });
    repo.commit("skip", { "skips.txt": `${TESTS[1]}\n`, "tests/test_a.py": "# skip test_two\n" }, { author: AGENT });
    const { report } = await gate(repo, base);
    expect(report.reasons).toEqual(["tests_skipped_unledgered"]);
    expect(readFileSync(join(repo.dir, ".git", "only-addopts.txt"), "utf8")).toMatch(
      /^-p proofgate_base_imports -p proofgate_only --no-cov$/,
    );
    // Without pytest-cov in the command, nothing is added (pytest would not know the flag).
    const plain = project();
    plain.repo.commit("skip", { "skips.txt": `${TESTS[1]}\n`, "tests/test_a.py": "# skip\n" }, { author: AGENT });
    await gate(plain.repo, plain.base);
    expect(readFileSync(join(plain.repo.dir, ".git", "only-addopts.txt"), "utf8")).not.toContain("--no-cov");
  });

  it("a test skipped at base too is no new skip", async () => {
    const { repo, base } = project({ "skips.txt": `${TESTS[1]}\n` });
    repo.commit("touch", { "tests/test_a.py": "# still skipped\n" }, { author: AGENT });
    const { report } = await gate(repo, base);
    expect(report.reasons).toEqual([]);
    expect(row(report, "test_evidence").value).toContain("0 new skips");
    expect(readFileSync(join(repo.dir, "only-ran.txt"), "utf8")).toBe(TESTS[1]);
  });

  it("a new test born skipped is not at base: a new skip, without running the base", async () => {
    const { repo, base } = project();
    repo.commit(
      "new",
      { "tests.txt": `${TESTS.join("\n")}\ntests/test_c.py::test_new\n`, "skips.txt": "tests/test_c.py::test_new\n" },
      { author: AGENT },
    );
    const { report, steps } = await gate(repo, base);
    expect(steps).not.toContain("base skips");
    expect(report.reasons).toEqual(["tests_skipped_unledgered"]);
  });

  it("[results] max_new_skips = 1: one new skip is counted, not rejected", async () => {
    const { repo, base } = project({
      "proofgate.toml": CONFIG("\n").replace('junit = ["results.xml"]', 'junit = ["results.xml"]\nmax_new_skips = 1'),
    });
    repo.commit("skip", { "skips.txt": `${TESTS[1]}\n` }, { author: AGENT });
    const { report } = await gate(repo, base);
    expect(report.reasons).toEqual([]);
    expect(row(report, "test_evidence").policy).toContain("new skips <= 1 unless a human's Test-Removal: human");
  });
});

describe("check without --run: [universe] base_collected and [results] base_junit", () => {
  /** The head's artifacts, as a CI's own steps would leave them (the head's collection and proof run). */
  async function artifacts(repo: ScratchRepo, base: string): Promise<void> {
    await gate(repo, base);
  }

  it("neither set: the removed-tests row is not_measured and says how to turn it on; skips count as new", async () => {
    const { repo, base } = project();
    repo.commit(
      "drop and skip",
      { "tests.txt": `${TESTS[0]}\n${TESTS[1]}\n`, "skips.txt": `${TESTS[1]}\n` },
      { author: AGENT },
    );
    await artifacts(repo, base);
    const { report } = await gate(repo, base, { run: false });
    expect(row(report, "removed_tests")).toMatchObject({
      result: "not_measured",
      value:
        "not measured: no universe at the base. Fix: run `proofgate check --run`, or set [universe] base_collected (the base's `pytest --collect-only -q`, written by CI)",
    });
    // Said once, in the row, not as a warning on every run.
    expect(report.warnings.filter((w) => w.message.includes("removed"))).toEqual([]);
    // No base results: the skip is new (fail closed), and the fix says how to give the base's evidence.
    expect(report.reasons).toEqual(["tests_skipped_unledgered"]);
    expect(report.findings[0]!.message).toContain("and no base results show them skipped there");
    expect(report.findings[0]!.fix).toContain("[results] base_junit");
  });

  it("base_collected set and present: judged; set and missing: exit 2 naming the file and the key", async () => {
    const extra = '\n[universe]\nbase_collected = ["base-collected.txt"]\n';
    const { repo, base } = project({ "proofgate.toml": CONFIG(extra) });
    repo.commit("drop", { "tests.txt": `${TESTS[0]}\n` }, { author: AGENT });
    await artifacts(repo, base);
    const missing = await gateError(gate(repo, base, { run: false }));
    expect(missing.issues[0]).toMatchObject({ code: "file_missing", file: "base-collected.txt" });
    expect(missing.message).toContain("[universe] base_collected");
    const tree = repo
      .git(["show", `${base}:tests.txt`])
      .trim()
      .split("\n");
    writeFileSync(
      join(repo.dir, "base-collected.txt"),
      `${tree.join("\n")}\n\n${tree.length} tests collected in 0.01s\n`,
    );
    const { report } = await gate(repo, base, { run: false });
    expect(report.reasons).toEqual(["tests_removed"]);
    expect(report.findings.map((f) => f.file)).toEqual(["tests/test_a.py", "tests/test_b.py"]);
    expect(report.inputs).toContainEqual(
      expect.objectContaining({ role: "base_universe", path: "base-collected.txt" }),
    );
  });

  it("base_junit says the skip is old: no new skip; a malformed base_junit is exit 2 naming it", async () => {
    const extra = '\n[universe]\nbase_collected = ["base-collected.txt"]\n';
    const cfg = CONFIG(extra).replace(
      'junit = ["results.xml"]',
      'junit = ["results.xml"]\nbase_junit = ["base-results.xml"]',
    );
    const { repo, base } = project({ "proofgate.toml": cfg, "skips.txt": `${TESTS[1]}\n` });
    repo.commit("touch", { "tests/test_a.py": "# x\n" }, { author: AGENT });
    await artifacts(repo, base);
    writeFileSync(join(repo.dir, "base-collected.txt"), readFileSync(join(repo.dir, "collected.txt")));
    writeFileSync(join(repo.dir, "base-results.xml"), readFileSync(join(repo.dir, "results.xml")));
    const { report } = await gate(repo, base, { run: false });
    expect(report.reasons).toEqual([]);
    expect(report.inputs).toContainEqual(expect.objectContaining({ role: "base_results", path: "base-results.xml" }));
    writeFileSync(join(repo.dir, "base-results.xml"), "<testsuites><testsuite");
    const bad = await gateError(gate(repo, base, { run: false }));
    expect(bad.issues[0]).toMatchObject({ code: "results_invalid", file: "base-results.xml" });
  });
});

describe("the base's evidence is CI's, never the patch's", () => {
  it("a base_collected file the head commit tracks is refused (exit 2): it would be the patch's word", async () => {
    const extra = '\n[universe]\nbase_collected = ["base-list.txt"]\n';
    const { repo, base } = project({ "proofgate.toml": CONFIG(extra) });
    await gate(repo, base);
    // The agent drops a test and commits a "base" universe that already lacks it.
    const head = repo.commit(
      "drop",
      {
        "tests.txt": `${TESTS[0]}\n${TESTS[2]}\n`,
        "base-list.txt": `${TESTS[0]}\n${TESTS[2]}\n\n2 tests collected in 0.01s\n`,
      },
      { author: AGENT },
    );
    await gate(repo, base);
    const error = await gateError(gate(repo, base, { run: false }));
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: "usage",
        file: "base-list.txt",
        message: `[universe] base_collected names a file the head commit ${head.slice(0, 12)} tracks: the patch would be telling the gate what the base had`,
      }),
    ]);
  });
});

describe("[coverage] max_drop: the base pipeline's proven figure", () => {
  // The proof script's proven coverage is 80%.
  const DROP = (extra = ""): string => CONFIG(`\n[coverage]\nmax_drop = 2\n${extra}`);
  const IGNORE =
    "collected.txt\nresults.xml\nproven_coverage.json\nonly-ran.txt\nproofgate-report/\nbase-report.json\n";
  const baseReport = (percent: number | null, head: string): string =>
    JSON.stringify({ decision: "MERGE", proven_coverage_percent: percent, head });

  it("within max_drop: pass; beyond it: coverage_dropped naming both figures and the file", async () => {
    const { repo, base } = project({
      "proofgate.toml": DROP('base_report = "base-report.json"\n'),
      ".gitignore": IGNORE,
    });
    repo.commit("touch", { "tests/test_a.py": "def test_one(): pass\ndef test_two(): pass\n# x\n" }, { author: AGENT });
    writeFileSync(join(repo.dir, "base-report.json"), baseReport(81.5, base));
    const within = await gate(repo, base);
    expect(within.report.reasons).toEqual([]);
    expect(row(within.report, "coverage_drop")).toMatchObject({
      result: "pass",
      value: "81.50% at the base, 80.00% now: down 1.50 points (base: base-report.json)",
      policy: "drop <= 2 points below the base's proven coverage",
    });
    expect(within.report.inputs).toContainEqual(
      expect.objectContaining({ role: "base_coverage", path: "base-report.json" }),
    );
    writeFileSync(join(repo.dir, "base-report.json"), baseReport(82.01, base));
    const beyond = await gate(repo, base, { run: false });
    expect(beyond.report.reasons).toEqual(["coverage_dropped"]);
    expect(beyond.report.findings[0]).toMatchObject({
      file: "base-report.json",
      message: "proven coverage fell 2.01 points, from 82.01% at the base to 80.00%: more than [coverage] max_drop = 2",
    });
  });

  it("no base_report: not_measured, saying how; a missing, stale or figureless report is exit 2", async () => {
    const unset = project({ "proofgate.toml": DROP(), ".gitignore": IGNORE });
    const { report } = await gate(unset.repo, unset.base);
    expect(report.reasons).toEqual([]);
    expect(row(report, "coverage_drop")).toMatchObject({
      result: "not_measured",
      value: expect.stringMatching(
        /^not measured: no proven figure of the base \(\[coverage\] base_report is not set\)\. Fix: /,
      ),
    });

    const { repo, base } = project({
      "proofgate.toml": DROP('base_report = "base-report.json"\n'),
      ".gitignore": IGNORE,
    });
    const missing = await gateError(gate(repo, base));
    expect(missing.issues[0]).toMatchObject({ code: "file_missing", file: "base-report.json" });
    expect(missing.message).toContain("[coverage] base_report");
    const other = "c".repeat(40);
    writeFileSync(join(repo.dir, "base-report.json"), baseReport(90, other));
    const stale = await gateError(gate(repo, base, { run: false }));
    expect(stale.issues[0]).toMatchObject({
      code: "coverage_invalid",
      file: "base-report.json",
      message: expect.stringContaining(`is the report of commit ${other.slice(0, 12)}, not of the base`),
    });
    writeFileSync(join(repo.dir, "base-report.json"), baseReport(null, base));
    const none = await gateError(gate(repo, base, { run: false }));
    expect(none.issues[0]!.message).toContain("could not evaluate");
  });

  it("a base_report the head commit tracks is refused (exit 2): the patch would be naming the base's figure", async () => {
    const { repo, base } = project({ "proofgate.toml": DROP('base_report = "base-figure.json"\n') });
    const head = repo.commit("figure", { "base-figure.json": baseReport(10, "") }, { author: AGENT });
    const error = await gateError(gate(repo, base));
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: "usage",
        file: "base-figure.json",
        message: `[coverage] base_report names a file the head commit ${head.slice(0, 12)} tracks: the patch would be telling the gate what the base had`,
      }),
    ]);
  });
});

/**
 * The property suite as a Node script: `props.txt` is its ids. With the base run's plugin on PYTHONPATH
 * (`-p proofgate_property_ids`), it appends them to the file the plugin names, as the plugin would.
 * It logs where it ran and the seeds it was given to props-seen.jsonl (absolute, from the config).
 */
const PROPS_SCRIPT = `import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
const ids = readFileSync("props.txt", "utf8").split("\\n").filter(Boolean);
const addopts = process.env.PYTEST_ADDOPTS ?? "";
appendFileSync(process.argv[2], JSON.stringify({ cwd: process.cwd(), seeds: process.env.PROOFGATE_SEEDS_DIR, addopts }) + "\\n");
if (addopts.includes("-p proofgate_property_ids")) {
  const dir = process.env.PYTHONPATH.split(":").find((d) => existsSync(d + "/proofgate_property_ids.py"));
  const plugin = readFileSync(dir + "/proofgate_property_ids.py", "utf8");
  appendFileSync(JSON.parse(/^PROOFGATE_IDS_FILE = (".*")$/m.exec(plugin)[1]), JSON.stringify(ids) + "\\n");
}
${HONOUR_BASE_IMPORTS}
writeFileSync("properties.xml", '<testsuites><testsuite name="pytest">' + ids.map((id) => '<testcase classname="p" name="' + id + '" time="0"></testcase>').join("") + "</testsuite></testsuites>");
`;

describe("check --run: the base's property test ids, collected by the base's [commands] properties in its worktree", () => {
  const PROPS = ["tests/properties/test_p.py::test_one", "tests/properties/test_p.py::test_two"];

  function propertyProject(
    o: { properties?: string; record?: boolean; enabled?: boolean; files?: Record<string, string> } = {},
  ) {
    const made = project();
    const seen = join(made.repo.dir, ".git", "props-seen.jsonl");
    const cfg = CONFIG()
      .replace(
        "[properties]\nenabled = false\n",
        `[properties]\nenabled = ${o.enabled ?? true}\nresults = ["properties.xml"]\n`,
      )
      .replace("record = false", `record = ${o.record ?? true}`)
      .replace(
        "[commands]\n",
        `[commands]\nproperties = ${JSON.stringify(o.properties ?? `${NODE} props.mjs ${seen}`)}\n`,
      );
    const base = made.repo.commit("property suite", {
      "proofgate.toml": cfg,
      "props.mjs": PROPS_SCRIPT,
      "props.txt": `${PROPS.join("\n")}\n`,
      "tests/properties/seeds/s1": "1\n",
      ".gitignore": `${readFileSync(join(made.repo.dir, ".gitignore"), "utf8")}properties.xml\n`,
      ...o.files,
    });
    const lines = (): { cwd: string; seeds?: string; addopts: string }[] =>
      existsSync(seen)
        ? readFileSync(seen, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { cwd: string; seeds?: string; addopts: string })
        : [];
    return { repo: made.repo, base, seen: lines };
  }

  it("runs after the base collect, in the worktree on the base's seeds, with the plugin; the ids file is an input", async () => {
    const { repo, base, seen } = propertyProject();
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const { report, info, steps } = await gate(repo, base);
    // The base's steps, in their order, run beside the head's (which keep theirs).
    expect(steps.filter((st) => st.startsWith("base "))).toEqual(["base collect", "base properties"]);
    expect(steps.filter((st) => !st.startsWith("base "))).toEqual(["collect", "proof", "properties"]);
    const [atBase, atHead] = seen();
    const worktree = info.map((l) => /in a git worktree at (\S+),/.exec(l)?.[1]).find(Boolean)!;
    expect(atBase).toMatchObject({ cwd: worktree, seeds: worktree });
    expect(atBase!.addopts).toMatch(/^-p proofgate_base_imports -p proofgate_property_ids/);
    // The head's property step is the recorded one, with the base's seeds copied out; no ids plugin there.
    expect(atHead!.cwd).toBe(repo.dir);
    expect(atHead!.seeds).toBe(join(repo.dir, "proofgate-report", "seeds"));
    expect(atHead!.addopts).not.toContain("proofgate_property_ids");
    const ids = readFileSync(join(repo.dir, "proofgate-report", "base-properties", "property-ids.jsonl"), "utf8");
    expect(ids).toBe(`${JSON.stringify(PROPS)}\n`);
    expect(report.inputs).toContainEqual({
      role: "base_properties",
      path: `property test ids (collected at base ${base.slice(0, 12)})`,
      sha256: createHash("sha256").update(ids).digest("hex"),
    });
    expect(info).toContain(
      `collecting the base ${base.slice(0, 12)}'s property tests in its worktree, with the base's [commands] properties`,
    );
    expect(leftovers(repo, info)).toEqual({ dir: undefined, known: [] });
  });

  it("a base property run that exits non-zero: exit 2 naming the command; the worktree is removed", async () => {
    const { repo, base } = propertyProject({ properties: `${NODE} -e "process.exit(4)"` });
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const info: string[] = [];
    const error = await gateError(
      evaluateGate(
        {
          kind: "check",
          clock: { today: "2026-12-02", override: false },
          base: { revision: base, from: "flag" },
          shallowFix: "",
          outDir: "proofgate-report",
          run: { env: { PATH: process.env.PATH ?? "" } },
        },
        nodePorts({ root: repo.dir, env: { PATH: process.env.PATH ?? "" } }),
        { ...silentLog, info: (l) => info.push(l) },
      ),
    );
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: "universe_invalid",
        file: `proofgate.toml at ${base.slice(0, 12)}`,
        message: expect.stringContaining(`exited with 4 on the base ${base.slice(0, 12)}`),
      }),
    ]);
    expect(error.issues[0]!.message).toContain(`[commands] properties (\`${NODE} -e "process.exit(4)"\`)`);
    expect(error.issues[0]!.fix).toContain("PROOFGATE_SEEDS_DIR");
    expect(leftovers(repo, info)).toEqual({ dir: undefined, known: [] });
  });

  it("a base property run that writes no ids (the plugin never loaded): exit 2, never a pass", async () => {
    const { repo, base } = propertyProject({ properties: `${NODE} -e "0"` });
    repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
    const error = await gateError(gate(repo, base));
    expect(error.issues).toEqual([
      {
        code: "file_missing",
        file: `proofgate.toml at ${base.slice(0, 12)}`,
        message: `[commands] properties (\`${NODE} -e "0"\`) wrote no property test ids on the base ${base.slice(0, 12)}: the gate's plugin (-p proofgate_property_ids, through PYTEST_ADDOPTS) never saw a collection, so the property tests the base runs cannot be known`,
        fix: "run the property suite with `python -m pytest`, leaving PYTEST_ADDOPTS and PYTHONPATH to the gate; a runner that is not pytest sets [commands] record = false (a human change)",
      },
    ]);
  });

  it("not run without [commands] record (no run record at head to compare) or with the property suite off", async () => {
    for (const o of [{ record: false }, { enabled: false }]) {
      const { repo, base } = propertyProject(o);
      repo.commit("touch", { "src.txt": "x\n" }, { author: AGENT });
      const { report, steps } = await gate(repo, base);
      expect(steps).not.toContain("base properties");
      expect(report.inputs.map((i) => i.role)).not.toContain("base_properties");
    }
  });
});

describe("asAtRoot: what a base step wrote, as if the base were checked out at the root", () => {
  const dir = "/tmp/proofgate-base-42-AbC123";
  it("writes the worktree's folder as the root, wherever it occurs (a name built from process.cwd())", () => {
    const list = `[{"name":"resolves ${dir}/src","file":"${dir}/test/a.test.ts"}]`;
    expect(asAtRoot(list, dir, "/work/repo")).toBe(
      `[{"name":"resolves /work/repo/src","file":"/work/repo/test/a.test.ts"}]`,
    );
    expect(asAtRoot(`tests/test_a.py::test_p[${dir}/x]\n`, dir, "/work/repo")).toBe(
      "tests/test_a.py::test_p[/work/repo/x]\n",
    );
  });
  it("leaves the text alone when the root would need escaping in JSON or XML, or the folder is not in it", () => {
    const text = `{"file":"${dir}/a.test.ts"}`;
    expect(asAtRoot(text, dir, '/work/a"b')).toBe(text);
    expect(asAtRoot(text, dir, "/work/a&b")).toBe(text);
    expect(asAtRoot(text, dir, "C:\\work")).toBe(text);
    expect(asAtRoot("no path here", dir, "/work/repo")).toBe("no path here");
  });
});

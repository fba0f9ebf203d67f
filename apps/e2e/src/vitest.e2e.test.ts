// Vitest as a first-class runner, end to end: a temp vitest project (real vitest 4.1.12 and
// @vitest/coverage-v8 4.1.12 from this repository's node_modules, linked in, untracked) with git history,
// judged by `proofgate check --run`. The leases name tests as `vitest list` does (`<file> > <describe> >
// <test>`); the gate's reporter and runner deselect exactly those and write the signed run record.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  AGENT,
  HUMAN,
  applyFiles,
  check,
  cleanEnv,
  git,
  type CheckRun,
  type FileChange,
  type Identity,
} from "./check-project.js";
import { PROOFGATE } from "./helpers.js";

const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url));
const VITEST = "node_modules/.bin/vitest";

const MATH = `export function add(a, b) {
  return a + b;
}

export function sub(a, b) {
  if (a < 0) {
    return -1;
  }
  return a - b;
}

export function scale(a, k) {
  if (k === 0) {
    return 0;
  }
  return a * k;
}
`;

// "adds" is a prefix of "adds more", both inside nested describes; "math > sub" is in both files.
const TEST_A = `import { describe, expect, it } from "vitest";
import { add, sub } from "../src/math.js";

describe("math", () => {
  describe("add", () => {
    it("adds", () => expect(add(1, 2)).toBe(3));
    it("adds more", () => expect(add(2, 2)).toBe(4));
  });
  it("sub", () => expect(sub(3, 1)).toBe(2));
});
`;

const TEST_B = `import { describe, expect, it } from "vitest";
import { scale, sub } from "../src/math.js";

describe("math", () => {
  it("sub", () => expect(sub(-1, 1)).toBe(-1));
  it("scale", () => expect(scale(2, 3)).toBe(6));
  it("scale by zero", () => expect(scale(2, 0)).toBe(0));
});
`;

// A human's vitest.config.js with a globalSetup file, which runs in vitest's main process before the tests.
const GLOBAL_SETUP_BASE = {
  "vitest.config.js": `export default { test: { globalSetup: ["./test/global-setup.js"] } };\n`,
  "test/global-setup.js": `export default function setup() {\n  process.env.TZ = "UTC";\n}\n`,
  "src/extra.js": "export const half = (x) => {\n  if (x > 0) return x / 2;\n  return 0;\n};\n",
  "test/extra.test.js": `import { expect, it } from "vitest";\nimport { half } from "../src/extra.js";\n\nit("half", () => expect([half(4), half(-1)]).toEqual([2, 0]));\n`,
};

// A describe and two tests outside it: what `describe.skip`, `.todo` and `skipIf(true)` take out.
const TEST_C = `import { describe, expect, it } from "vitest";
import { add, scale } from "../src/math.js";

describe("extra", () => {
  it("one", () => expect(add(0, 0)).toBe(0));
  it("two", () => expect(scale(1, 1)).toBe(1));
});
it("three", () => expect(add(1, 1)).toBe(2));
it("four", () => expect(add(2, 1)).toBe(3));
`;

const RUNTIME_SKIP = `import { expect, it } from "vitest";
import { add } from "../src/math.js";

it("needs a database", (ctx) => {
  if (!process.env.PROOFGATE_E2E_DATABASE) ctx.skip();
  expect(add(1, 1)).toBe(2);
});
`;

const LEASED = ["test/a.test.js > math > add > adds", "test/b.test.js > math > sub"];

const lease = (nodeid: string): string => `
[[leases]]
nodeid = ${JSON.stringify(nodeid)}
owner = "ada"
reason = "flaky on CI"
expires = "2099-12-31"
`;

const ledger = (ids: readonly string[], max = ids.length): string =>
  `version = 1\nmax_active_leases = ${max}\n${ids.map(lease).join("")}`;

const PROOF = `${VITEST} run --coverage.enabled --coverage.provider=v8 --coverage.reporter=json --coverage.include='src/**' --reporter=default --reporter=junit --outputFile.junit=results.xml \${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}`;

const CONFIG = `[universe]
collected = ["collected.json"]

[coverage]
reports = ["coverage/coverage-final.json"]
min_proven = 50

[results]
junit = ["results.xml"]

[fixtures]
enabled = false

[properties]
enabled = false
judge_tests = false

[commands]
runner = "vitest"
collect = "${VITEST} list --json > collected.json"
proof = ${JSON.stringify(PROOF)}
`;

function baseFiles(): Record<string, FileChange> {
  return {
    ".gitignore": "node_modules\ncollected.json\ncoverage/\nresults.xml\nproofgate-report/\nproofgate-evidence.json\n",
    "package.json": '{ "name": "vitest-project", "type": "module", "private": true }\n',
    "src/math.js": MATH,
    "test/a.test.js": TEST_A,
    "test/b.test.js": TEST_B,
    "freeze.toml": ledger(LEASED, 3),
    "proofgate.toml": CONFIG,
  };
}

interface Commit {
  message: string;
  files: Record<string, FileChange>;
  who?: Identity;
}

interface VitestProject {
  dir: string;
  commits: string[];
}

/** The base (a human's commit) on `main`, then the patch's commits on `patch`. */
function project(o: { base?: Record<string, FileChange> | undefined; patch?: Commit[] } = {}): VitestProject {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-vitest-"));
  symlinkSync(NODE_MODULES, join(dir, "node_modules"), "dir");
  git(dir, ["init", "-q", "-b", "main", "."]);
  applyFiles(dir, { ...baseFiles(), ...o.base });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Base"]);
  git(dir, ["checkout", "-q", "-b", "patch"]);
  const commits: string[] = [];
  for (const c of o.patch ?? [{ message: "Touch\n", files: { "README.md": "vitest project\n" } }]) {
    applyFiles(dir, c.files);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", c.message], c.who ?? AGENT);
    commits.push(git(dir, ["rev-parse", "HEAD"]).trim());
  }
  return { dir, commits };
}

const run = (p: VitestProject): Promise<CheckRun> => check(p.dir, ["--run", "--base", "main"]);

const explain = (r: CheckRun): string =>
  `exit ${r.status}\n${r.report.details.map((d) => `${d.reason}: ${d.message}`).join("\n")}\n${r.report.errors.map((e) => e.message).join("\n")}\n${r.stderr.slice(-3000)}`;

interface RecordFile {
  collected: string[];
  deselected: { proofgate: string[]; other: string[] };
  tests: { id: string; outcome: string }[];
}

const readRecord = (dir: string): RecordFile =>
  JSON.parse(readFileSync(join(dir, "proofgate-report", "proof-record.json"), "utf8")) as RecordFile;

/** The `<testcase>`s of vitest's JUnit XML: `<file> > <name>` and whether it was skipped. */
function junitCases(dir: string): Map<string, "skipped" | "ran"> {
  const xml = readFileSync(join(dir, "results.xml"), "utf8");
  const out = new Map<string, "skipped" | "ran">();
  const re = /<testcase classname="([^"]*)" name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const name = m[2]!.replace(/&gt;/g, ">");
    out.set(`${m[1]} > ${name}`, m[3]!.includes("<skipped") ? "skipped" : "ran");
  }
  return out;
}

const edit = (text: string, from: string, to: string): string => {
  if (!text.includes(from)) throw new Error(`not found: ${from}`);
  return text.replace(from, to);
};

describe("vitest: universe, exact deselection and the run record", () => {
  it("MERGE: the leases deselect exactly their tests (a prefix, nested describes, the same name in two files)", async () => {
    const p = project();
    const r = await run(p);
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.status).toBe(0);
    expect(r.report.collected_tests).toBe(6);
    const universe = JSON.parse(readFileSync(join(p.dir, "collected.json"), "utf8")) as { file: string }[];
    expect(universe[0]!.file.startsWith("/")).toBe(true);
    const record = readRecord(p.dir);
    expect(record.deselected).toEqual({ proofgate: LEASED, other: [] });
    expect(record.collected).toHaveLength(6);
    expect(record.tests.map((t) => [t.id, t.outcome])).toEqual([
      ["test/a.test.js > math > add > adds more", "passed"],
      ["test/a.test.js > math > sub", "passed"],
      ["test/b.test.js > math > scale", "passed"],
      ["test/b.test.js > math > scale by zero", "passed"],
    ]);
    // vitest's own JUnit reporter sees the same: the leased two skipped, every other test run.
    const cases = junitCases(p.dir);
    expect([...cases].filter(([, how]) => how === "skipped").map(([id]) => id)).toEqual(LEASED);
    expect(cases.size).toBe(6);
    expect(r.report.accounting).toMatchObject({ proven: 4, frozen: 2, skipped: 0, failed: 0, missing: 0 });
    expect(r.report.signals.find((s) => s.id === "test_runner")?.result).toBe("pass");

    // Proven coverage equals the coverage of a run where the leased tests were deleted by hand.
    const byHand = mkdtempSync(join(tmpdir(), "proofgate-vitest-hand-"));
    cpSync(p.dir, byHand, { recursive: true, verbatimSymlinks: true });
    rmSync(join(byHand, "coverage"), { recursive: true, force: true });
    writeFileSync(
      join(byHand, "test/a.test.js"),
      edit(TEST_A, '    it("adds", () => expect(add(1, 2)).toBe(3));\n', ""),
    );
    writeFileSync(
      join(byHand, "test/b.test.js"),
      edit(TEST_B, '  it("sub", () => expect(sub(-1, 1)).toBe(-1));\n', ""),
    );
    const proof = spawnSync("sh", ["-c", PROOF], { cwd: byHand, env: cleanEnv(), encoding: "utf8", timeout: 110_000 });
    expect(proof.status, proof.stderr).toBe(0);
    const measured = spawnSync(
      process.execPath,
      [PROOFGATE, "coverage", "--report", "coverage/coverage-final.json", "--format", "json"],
      { cwd: byHand, env: cleanEnv(), encoding: "utf8" },
    );
    expect(measured.status, measured.stderr).toBe(0);
    const hand = JSON.parse(measured.stdout) as Record<string, number>;
    expect(r.report.coverage).toMatchObject({
      proven_coverage_percent: hand.proven_coverage_percent,
      num_statements: hand.num_statements,
      covered_lines: hand.covered_lines,
      num_branches: hand.num_branches,
      covered_branches: hand.covered_branches,
    });
    // Without the leases, `sub`'s negative branch is run: the frozen test's coverage did not count.
    expect(hand.covered_branches).toBeLessThan(hand.num_branches!);
  });

  it("a lease of pytest's shape in a vitest project: exit 2 naming the ledger's line and the fix", async () => {
    const p = project({
      base: { "freeze.toml": ledger(["test/a.test.js::test_adds"]) },
    });
    const r = await run(p);
    expect(r.status).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toEqual(["input_error"]);
    expect(r.report.errors[0]).toMatchObject({ file: "freeze.toml", line: 4 });
    expect(r.report.errors[0]!.message).toMatch(
      /lease #1 \(test\/a\.test\.js::test_adds\) is a pytest test id, but this project's tests run under vitest/,
    );
  });

  it("a leased test the proof run does not hold stops vitest's run (the runner checks each file)", () => {
    const p = project();
    const out = mkdtempSync(join(tmpdir(), "proofgate-vitest-runner-"));
    // The gate's runner and reporter, as check --run writes them, with a lease on a test that is gone.
    const script = `
      import { renderVitestReporter, renderVitestRunner } from "@proofgate/core/proof-run";
      import { writeFileSync } from "node:fs";
      const leased = ["test/a.test.js > math > add > gone"];
      writeFileSync(${JSON.stringify(join(out, "runner.mjs"))}, renderVitestRunner({ root: ${JSON.stringify(p.dir)}, leased }));
      writeFileSync(${JSON.stringify(join(out, "reporter.mjs"))}, renderVitestReporter({ root: ${JSON.stringify(p.dir)}, runner: ${JSON.stringify(join(p.dir, "node_modules", ".proofgate-runner.mjs"))}, leased }));
    `;
    const wrote = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
    });
    expect(wrote.status, wrote.stderr).toBe(0);
    // The runner imports vitest: it must sit where the project's node_modules resolve.
    cpSync(join(out, "runner.mjs"), join(p.dir, "runner.mjs"));
    const reporter = readFileSync(join(out, "reporter.mjs"), "utf8").replace(
      JSON.stringify(join(p.dir, "node_modules", ".proofgate-runner.mjs")),
      JSON.stringify(join(p.dir, "runner.mjs")),
    );
    writeFileSync(join(p.dir, "reporter.mjs"), reporter);
    const r = spawnSync("sh", ["-c", `${VITEST} run --reporter=default --reporter=./reporter.mjs`], {
      cwd: p.dir,
      env: cleanEnv(),
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(
      /leased test\(s\) no longer in their file: test\/a\.test\.js > math > add > gone/,
    );
    expect(existsSync(join(p.dir, "proofgate-report"))).toBe(false);
  });
});

describe("vitest: the base's run of the tests skipped at head", () => {
  it("runs only those tests: every other test of the base is marked skipped, its result unread", async () => {
    const p = project({ base: { "test/d.test.js": RUNTIME_SKIP } });
    const r = await run(p);
    expect(r.report.decision, explain(r)).toBe("MERGE");
    expect(r.report.commands?.map((c) => c.step)).toContain("base skips");
    const log = r.stderr.replace(/\u001b\[[0-9;]*m/g, "");
    const section = log.slice(log.indexOf("▶ base skips"), log.indexOf("✔ base skips"));
    // Seven tests at the base (six of a.test.js and b.test.js, d's one): the one skipped at head ran (and
    // skipped itself), the rest were marked skipped.
    expect(section).toMatch(/Tests\s+7 skipped \(7\)/);
    expect(section).not.toMatch(/Tests\s+\d+ passed/);
  });
});

describe("vitest: what a patch does, the same reasons as pytest's", () => {
  const failing = `import { describe, expect, it } from "vitest";
import { scale } from "../src/math.js";

describe("flip", () => {
  it("is wrong", () => expect(scale(2, 2)).toBe(5));
});
`;
  const flipSetup = `import { afterEach } from "vitest";

afterEach((context) => {
  const result = context.task.result;
  if (result && result.state === "fail") {
    result.state = "pass";
    result.errors = [];
  }
});
`;

  const cases: {
    name: string;
    base?: Record<string, FileChange>;
    patch: Commit[];
    reasons: string[];
    message?: RegExp;
    /** The report's Measurement row. */
    measurement?: string;
  }[] = [
    {
      name: "agent_added_lease: the agent leases `math > scale`",
      patch: [
        {
          message: "Freeze scale\n",
          files: { "freeze.toml": ledger([...LEASED, "test/b.test.js > math > scale"], 3) },
        },
      ],
      reasons: ["agent_added_lease"],
    },
    {
      name: "a human's lease with `Freeze-Lease: human`: MERGE",
      patch: [
        {
          message: "Freeze scale\n\nFreeze-Lease: human\n",
          files: { "freeze.toml": ledger([...LEASED, "test/b.test.js > math > scale"], 3) },
          who: HUMAN,
        },
      ],
      reasons: [],
    },
    {
      name: "tests_removed: the agent deletes `math > scale by zero`",
      patch: [
        {
          message: "Drop a test\n",
          files: {
            "test/b.test.js": edit(TEST_B, '  it("scale by zero", () => expect(scale(2, 0)).toBe(0));\n', ""),
          },
        },
      ],
      reasons: ["tests_removed"],
      message: /test\/b\.test\.js > math > scale by zero is collected at base but not at head/,
    },
    {
      // unjs/ufo's `hasProtocol` cases "\0https://" and "https://": one id once control characters are dropped;
      // two tests with the same name are the same case. Deleting one leaves the id listed, once.
      name: "tests_removed: the agent deletes one of two tests that share an id",
      base: {
        "test/dup.test.js": `import { expect, it } from "vitest";\nimport { add } from "../src/math.js";\n\nit("adds", () => expect(add(1, 1)).toBe(2));\nit("\\0adds", () => expect(add(0, 0)).toBe(0));\n`,
      },
      patch: [
        {
          message: "Drop a test\n",
          files: {
            "test/dup.test.js": `import { expect, it } from "vitest";\nimport { add } from "../src/math.js";\n\nit("adds", () => expect(add(1, 1)).toBe(2));\n`,
          },
        },
      ],
      reasons: ["tests_removed"],
      message: /test\/dup\.test\.js > adds is collected at head, but listed 2 times at base, 1 at head/,
    },
    {
      name: "a human deletes it with `Test-Removal: human`: MERGE",
      patch: [
        {
          message: "Drop a test\n\nTest-Removal: human\n",
          files: {
            "test/b.test.js": edit(TEST_B, '  it("scale by zero", () => expect(scale(2, 0)).toBe(0));\n', ""),
          },
          who: HUMAN,
        },
      ],
      reasons: [],
    },
    {
      // `vitest list` leaves out the tests vitest would skip; the signed run record shows the test collected
      // and skipped, so it is pytest's twin: a new skip, not a removal.
      name: "tests_skipped_unledgered: the agent adds `it.skip` (vitest list no longer names the test)",
      patch: [
        {
          message: "Skip a test\n",
          files: { "test/a.test.js": edit(TEST_A, '  it("sub"', '  it.skip("sub"') },
        },
      ],
      reasons: ["tests_skipped_unledgered"],
      message:
        /test\/a\.test\.js > math > sub \(skipped in the proof run, so `vitest list` leaves it out\).*is an agent's/,
    },
    {
      name: "tests_skipped_unledgered: the agent adds `describe.skip`, `.todo` and `skipIf(true)`",
      base: { "test/c.test.js": TEST_C },
      patch: [
        {
          message: "Skip more\n",
          files: {
            "test/c.test.js": TEST_C.replace('describe("extra"', 'describe.skip("extra"')
              .replace('it("three", () => expect(add(1, 1)).toBe(2));', 'it.todo("three");')
              .replace('it("four"', 'it.skipIf(true)("four"'),
          },
        },
      ],
      reasons: ["tests_skipped_unledgered"],
      message: new RegExp(
        ["extra > one", "extra > two", "three", "four"]
          .map((t) => `test/c\\.test\\.js > ${t} \\(skipped in the proof run`)
          .join("[^]*"),
      ),
    },
    {
      name: "a human adds `it.skip` with `Test-Removal: human`: MERGE",
      patch: [
        {
          message: "Skip a test\n\nTest-Removal: human\n",
          files: { "test/a.test.js": edit(TEST_A, '  it("sub"', '  it.skip("sub"') },
          who: HUMAN,
        },
      ],
      reasons: [],
    },
    {
      name: "coverage_exclusions_added: the agent adds a `/* v8 ignore next */` comment",
      patch: [
        {
          message: "Ignore a branch\n",
          files: { "src/math.js": edit(MATH, "  if (k === 0) {", "  /* v8 ignore next */\n  if (k === 0) {") },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /the patch adds `\/\* v8 ignore next \*\/`, code the coverage tool no longer measures/,
    },
    {
      name: "a human adds `/* istanbul ignore next */` with `Gate-Change: human`: MERGE",
      patch: [
        {
          message: "Ignore a branch\n\nGate-Change: human\n",
          files: { "src/math.js": edit(MATH, "  if (k === 0) {", "  /* istanbul ignore next */\n  if (k === 0) {") },
          who: HUMAN,
        },
      ],
      reasons: [],
    },
    {
      // Compared by meaning: the base's settings read by its own proof command, the head's by the proof
      // run's reporter; a pattern that matches no file today still stops measuring the files added under it.
      name: "coverage_exclusions_added: the agent's vitest.config.js adds a coverage.exclude pattern",
      patch: [
        {
          message: "Tidy coverage\n",
          files: { "vitest.config.js": `export default { test: { coverage: { exclude: ["src/legacy/**"] } } };\n` },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /vitest's coverage\.exclude adds "src\/legacy\/\*\*": the files it matches are no longer measured/,
      measurement: "vitest's coverage settings (vitest.config.js): 1 loosening; 0 ignore comments added",
    },
    {
      // vitest never measures a setup file: a source file of the base's made one leaves the report.
      name: "coverage_exclusions_added: the agent makes a source file of the base's a setup file",
      base: { "src/extra.js": "export const half = (x) => {\n  if (x > 0) return x / 2;\n  return 0;\n};\n" },
      patch: [
        {
          message: "Load extra first\n",
          files: { "vitest.config.js": `export default { test: { setupFiles: ["./src/extra.js"] } };\n` },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /vitest's setupFiles adds "src\/extra\.js", a file of the base's that coverage would measure/,
    },
    {
      // Test selection in the config is judged by its effect on the tests, as pytest's is.
      name: "tests_removed: the agent's vitest.config.js excludes a test file",
      base: { "test/c.test.js": TEST_C },
      patch: [
        {
          message: "Faster runs\n",
          files: {
            "vitest.config.js": `export default { test: { exclude: ["**/node_modules/**", "test/c.test.js"] } };\n`,
          },
        },
      ],
      reasons: ["tests_removed"],
      message: /test\/c\.test\.js > extra > one is collected at base but not at head/,
    },
    {
      name: "the agent's vitest.config.js sets testNamePattern: the tests it leaves out are not run",
      base: { "test/c.test.js": TEST_C },
      patch: [
        {
          message: "Focus\n",
          files: { "vitest.config.js": `export default { test: { testNamePattern: "^(?!extra)" } };\n` },
        },
      ],
      reasons: ["tests_skipped_unledgered"],
      message: /test\/c\.test\.js > extra > one \(skipped in the proof run/,
    },
    {
      name: "a human adds the same exclude with `Gate-Change: human`: MERGE",
      patch: [
        {
          message: "Tidy coverage\n\nGate-Change: human\n",
          files: { "vitest.config.js": `export default { test: { coverage: { exclude: ["src/legacy/**"] } } };\n` },
          who: HUMAN,
        },
      ],
      reasons: [],
    },
    {
      // vitest measures only the files changed since main: the rest leave the report, proven goes up.
      name: "coverage_exclusions_added: the agent's vitest.config.js sets coverage.changed",
      base: { "src/extra.js": "export const half = (x) => {\n  if (x > 0) return x / 2;\n  return 0;\n};\n" },
      patch: [
        {
          message: "Faster coverage\n",
          files: {
            "vitest.config.js": `export default { test: { coverage: { changed: "main" } } };\n`,
            "src/math.js": `// arithmetic\n${MATH}`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /vitest's coverage\.changed is set \("main"\)/,
    },
    {
      // Code that runs in vitest's main process after it read its config (a globalSetup file, a plugin's
      // later hook) can change the settings coverage filters with: read again when the run ends.
      name: "coverage_exclusions_added: the agent's globalSetup file pushes a coverage.exclude pattern while the tests run",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `export default function setup(project) {\n  process.env.TZ = "UTC";\n  project.vitest.config.coverage.exclude?.push("src/math.js");\n}\n`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message:
        /vitest's coverage\.exclude adds "src\/math\.js".*\(set while the tests ran\)[^]*changed while the tests ran/,
    },
    {
      name: "coverage_exclusions_added: the agent's globalSetup file wraps the coverage provider's file filter",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `export default function setup(project) {\n  const provider = project.vitest.coverageProvider;\n  if (!provider) return;\n  const own = provider.isIncluded.bind(provider);\n  provider.isIncluded = (file, root) => !file.endsWith("/math.js") && own(file, root);\n}\n`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /the coverage provider's file filter \(isIncluded\) was replaced after vitest read its config/,
    },
    {
      name: "coverage_exclusions_added: the agent's globalSetup file seeds the filter's cache with `not measured`",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `import { resolve } from "node:path";\n\nexport default function setup(project) {\n  project.vitest.coverageProvider?.globCache.set(resolve("src/math.js"), false);\n}\n`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /the coverage provider's cached answer for src\/math\.js is not what its settings give/,
    },
    {
      name: "coverage_exclusions_added: the agent's globalSetup file narrows the provider to some 'changed' files",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `import { resolve } from "node:path";\n\nexport default function setup(project) {\n  const provider = project.vitest.coverageProvider;\n  if (provider) provider.changedFiles = [resolve("src/extra.js")];\n}\n`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /the coverage provider was told to measure only some changed files \(changedFiles\)/,
    },
    {
      name: "coverage_exclusions_added: the agent's globalSetup file adds a reporter that edits the coverage map",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `export default function setup(project) {\n  project.vitest.reporters.unshift({ onCoverage(map) { for (const f of map.files()) if (f.endsWith("/math.js")) map.filter((x) => x !== f); } });\n}\n`,
          },
        },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /vitest's reporters were changed/,
    },
    {
      // The provider learns the changed files once the run starts: a setup file's reading must not move.
      name: "coverage.changed and a setup file under the include, at the base and at head: MERGE",
      base: {
        "vitest.config.js": `export default { test: { setupFiles: ["./src/setup.js"], coverage: { changed: "main" } } };\n`,
        "src/setup.js": "globalThis.ready = true;\n",
      },
      patch: [{ message: "Comment\n", files: { "src/math.js": `// arithmetic\n${MATH}` } }],
      reasons: [],
    },
    {
      // A human approves a harmless edit of the config; the agent edits the module the config imports.
      name: "coverage_exclusions_added: the agent edits a module the config imports, beside a human's approved config edit",
      base: {
        "vitest.config.js": `import excludes from "./coverage-excludes.js";\n\nexport default { test: { coverage: { exclude: excludes } } };\n`,
        "coverage-excludes.js": "export default [];\n",
        "src/extra.js": "export const half = (x) => {\n  if (x > 0) return x / 2;\n  return 0;\n};\n",
        "test/extra.test.js": `import { expect, it } from "vitest";\nimport { half } from "../src/extra.js";\n\nit("half", () => expect([half(4), half(-1)]).toEqual([2, 0]));\n`,
      },
      patch: [
        {
          message: "Longer timeout\n\nGate-Change: human\n",
          files: {
            "vitest.config.js": `import excludes from "./coverage-excludes.js";\n\nexport default { test: { testTimeout: 10000, coverage: { exclude: excludes } } };\n`,
          },
          who: HUMAN,
        },
        { message: "Tidy\n", files: { "coverage-excludes.js": `export default ["src/extra.js"];\n` } },
      ],
      reasons: ["coverage_exclusions_added"],
      message: /vitest's coverage\.exclude adds "src\/extra\.js"/,
    },
    {
      name: "the agent's globalSetup file changes no coverage setting: MERGE",
      base: GLOBAL_SETUP_BASE,
      patch: [
        {
          message: "Set up once\n",
          files: {
            "test/global-setup.js": `export default function setup(project) {\n  process.env.TZ = "Europe/Paris";\n  void project.vitest.config.coverage.exclude.length;\n}\n`,
          },
        },
      ],
      reasons: [],
    },
    {
      name: "the base's coverage.exclude respelled `./src/legacy/**/*` by the agent: the same setting, MERGE",
      base: { "vitest.config.js": `export default { test: { coverage: { exclude: ["src/legacy/**"] } } };\n` },
      patch: [
        {
          message: "Style\n",
          files: { "vitest.config.js": `export default { test: { coverage: { exclude: ["./src/legacy/**/*"] } } };\n` },
        },
      ],
      reasons: [],
    },
    {
      name: "a vitest.config.js that changes no coverage setting (a timeout, the reporter's output): MERGE",
      patch: [
        {
          message: "Slower machines\n",
          files: {
            "vitest.config.js": `// CI machines are slow\nexport default { test: { testTimeout: 20000, coverage: { reportOnFailure: true } } };\n`,
          },
        },
      ],
      reasons: [],
    },
    {
      // `ctx.skip()` at run time ends the test without vitest's onAfterRunTask: the runner notes the
      // result after the hooks, so a skip the base has too is no tampering.
      name: "a test that skips itself at run time (`ctx.skip()`), at the base too, and a change to the code it tests: MERGE",
      base: { "test/d.test.js": RUNTIME_SKIP },
      patch: [{ message: "Tidy\n", files: { "src/math.js": `// arithmetic\n${MATH}` } }],
      reasons: [],
    },
    {
      // The base is collected in a worktree elsewhere: a name holding the current folder is written as at
      // the root (pathe's tests do this), not a test removed and another added.
      name: "a test named after the current folder, and a harmless patch: MERGE",
      base: {
        "test/e.test.js": `import { expect, it } from "vitest";\n\nit(\`resolves \${process.cwd()}/src\`, () => expect(process.cwd().length).toBeGreaterThan(0));\n`,
      },
      patch: [{ message: "Docs\n", files: { "README.md": "vitest project\n" } }],
      reasons: [],
    },
    {
      // The base's run of that test (only it) passed: the skip is the patch's.
      name: "tests_skipped_unledgered: the agent makes a test skip itself at run time",
      patch: [
        {
          message: "Skip sub for now\n",
          files: {
            "test/a.test.js": edit(TEST_A, '  it("sub", () => expect', '  it("sub", (ctx) => ctx.skip() || expect'),
          },
        },
      ],
      reasons: ["tests_skipped_unledgered"],
      message: /test\/a\.test\.js > math > sub/,
    },
    {
      name: "runner_tampering: the agent's afterEach turns a failure into a run-time skip",
      patch: [
        {
          message: "Quieter tests\n",
          files: {
            "vitest.config.js": `export default { test: { setupFiles: ["./test/setup.js"] } };\n`,
            "test/setup.js": `import { afterEach } from "vitest";\n\nafterEach((context) => {\n  if (context.task.result?.state === "fail") context.skip();\n});\n`,
            "test/flip.test.js": failing,
          },
        },
      ],
      reasons: ["tests_skipped_unledgered", "runner_tampering"],
      message: /test\/flip\.test\.js > flip > is wrong: its call report was made failed, then changed to skipped/,
    },
    {
      name: "runner_tampering: the agent's setup file turns a failure into a pass",
      patch: [
        {
          message: "Steady tests\n",
          files: {
            "vitest.config.js": `export default { test: { setupFiles: ["./test/setup.js"] } };\n`,
            "test/setup.js": flipSetup,
            "test/flip.test.js": failing,
          },
        },
      ],
      reasons: ["runner_tampering"],
      message: /test\/flip\.test\.js > flip > is wrong: its call report was made failed, then changed to passed/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const p = project({ base: c.base, patch: c.patch });
      const r = await run(p);
      expect(r.report.reasons, explain(r)).toEqual(c.reasons);
      expect(r.report.decision).toBe(c.reasons.length === 0 ? "MERGE" : "REJECT");
      if (c.message) expect(r.report.details.map((d) => d.message).join("\n")).toMatch(c.message);
      if (c.measurement) expect(r.report.signals.find((s) => s.id === "measurement")?.value).toBe(c.measurement);
    });
  }
});

describe("vitest: a changed source file no test loads (unmeasured_source)", () => {
  // Without coverage.include, vitest's coverage lists only the files the tests load: a new module no test
  // imports would leave the report silently. The record says which changed files the settings measure.
  const loadedOnly = CONFIG.replace(" --coverage.include='src/**'", "");
  const UNUSED = "export function unused(x) {\n  if (x > 1) return x * 2;\n  return x;\n}\n";
  const cases: {
    name: string;
    base?: Record<string, FileChange>;
    patch: Commit[];
    reasons: string[];
    message?: RegExp;
  }[] = [
    {
      name: "unmeasured_source: the agent adds src/unused.js, which no test imports",
      patch: [{ message: "Add a helper\n", files: { "src/unused.js": UNUSED } }],
      reasons: ["unmeasured_source"],
      message: /src\/unused\.js was added or changed by the patch, but no test of the proof run loaded it/,
    },
    {
      // Names are the patch's to choose: a file named like a tool's config is judged by what it holds.
      name: "unmeasured_source: the agent's untested code in src/feature.config.js, named like a tool's config",
      patch: [{ message: "Add a helper\n", files: { "src/feature.config.js": UNUSED } }],
      reasons: ["unmeasured_source"],
      message: /src\/feature\.config\.js was added or changed by the patch, but no test of the proof run loaded it/,
    },
    {
      name: "a file a test imports is measured: MERGE",
      patch: [
        {
          message: "Add a helper with its test\n",
          files: {
            "src/unused.js": UNUSED,
            "test/unused.test.js": `import { expect, it } from "vitest";\nimport { unused } from "../src/unused.js";\n\nit("doubles", () => expect([unused(2), unused(1)]).toEqual([4, 1]));\n`,
          },
        },
      ],
      reasons: [],
    },
    {
      name: "declarations alone, a tool's config and a script outside the report's folders: MERGE",
      patch: [
        {
          message: "Types, lint and a script\n",
          files: {
            "src/types.ts":
              "export interface Point {\n  x: number;\n  y: number;\n}\nexport type Pair = [Point, Point];\n",
            "eslint.config.js": "export default [];\n",
            "scripts/release.mjs": "console.log('release');\n",
          },
        },
      ],
      reasons: [],
    },
    {
      name: "a file the base's coverage.exclude leaves out is the team's choice: MERGE",
      base: { "vitest.config.js": `export default { test: { coverage: { exclude: ["src/generated/**"] } } };\n` },
      patch: [{ message: "Generated\n", files: { "src/generated/table.js": UNUSED } }],
      reasons: [],
    },
    {
      name: "a human's commit with `Gate-Change: human`: MERGE",
      patch: [{ message: "Add a helper\n\nGate-Change: human\n", files: { "src/unused.js": UNUSED }, who: HUMAN }],
      reasons: [],
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const p = project({ base: { "proofgate.toml": loadedOnly, ...c.base }, patch: c.patch });
      const r = await run(p);
      expect(r.report.reasons, explain(r)).toEqual(c.reasons);
      expect(r.report.decision).toBe(c.reasons.length === 0 ? "MERGE" : "REJECT");
      if (c.message) expect(r.report.details.map((d) => d.message).join("\n")).toMatch(c.message);
      // The record names every changed source the gate asked about.
      const record = JSON.parse(readFileSync(join(p.dir, "proofgate-report", "proof-record.json"), "utf8")) as {
        vitest_measures?: Record<string, boolean>;
      };
      expect(Object.keys(record.vitest_measures ?? {}).length, explain(r)).toBeGreaterThan(0);
    });
  }
});

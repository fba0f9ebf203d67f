import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { CONFIG_SCHEMA, DEFAULT_AGENT_PATTERNS, defaultConfig, parseConfig, parseLedger } from "@proofgate/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { proofgateCommand } from "@proofgate/core";
import { GITLAB_COVERAGE_REGEX } from "@proofgate/gitlab";
import { ciSnippet } from "../ci-snippets.js";
import type { CliIo } from "../io.js";
import { DEFAULT_LOCK_SETTINGS, writeNew } from "@proofgate/gate/node";
import type { PythonTools } from "../layout/python-tools.js";
import type { CommandTry, CommandTryRunner } from "../layout/try-collect.js";
import { configTemplate, runInit } from "./init.js";
import { lockFixtures, runLock } from "./lock.js";

// `proofgate init` in-process, in temp repos. The hash worker comes from dist/, as in lock.test.ts. The
// Python is stood in by its probe's answer: Debian's test stack (pytest-cov 4.0) unless a test says.
const WORKER = new URL("../../dist/hash-worker.cjs", import.meta.url);
const HASH = { workerUrl: WORKER, threads: 2 };
const DEBIAN = { python: "3.11.2", pytest: "7.2.1", pytestCov: "4.0.0", coverage: "6.5.0", hypothesis: "6.67.1" };
let tools: Omit<PythonTools, "command"> = DEBIAN;
const probe = (chosen: string | undefined): PythonTools => ({ command: chosen ?? "python", ...tools });
// The one try of the collect command: it works unless a test says (the real runs are in apps/e2e).
let tried: CommandTry = { exitCode: 0, stdout: "1 test collected in 0.01s\n", stderr: "" };
const tryCommand: CommandTryRunner = () => tried;

let repo: string;
let twin: string;

function write(root: string, rel: string, content: string): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function read(rel: string): string {
  return readFileSync(join(repo, rel), "utf8");
}

function memoryIo(cwd = repo): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    now: () => new Date("2026-12-02T09:30:00Z"),
    cwd,
    env: process.env,
  };
  return io;
}

/** `proofgate init` with no CI in the environment unless `env` says so. */
async function init(
  args: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await runInit(args, io, { env, hash: HASH, probe, tryCommand });
  return { code, out: io.out, err: io.err };
}

function writeFixtures(root: string): void {
  write(root, "tests/fixtures/golden.json", '{"total": 12.5}\n');
  write(root, "tests/fixtures/nested/with space.csv", "a,b\n1,2\n");
  write(root, "tests/fixtures/ünïcödé.txt", "é\n");
}

/** Uncomments the commented-out TOML block that starts with `# <first>`, through its `# ]`. */
function uncommentList(text: string, first: string): string {
  const lines = text.split("\n");
  const start = lines.indexOf(`# ${first}`);
  expect(start).toBeGreaterThan(0);
  for (let i = start; i < lines.length; i++) {
    const done = lines[i] === "# ]";
    lines[i] = lines[i]!.slice(2);
    if (done) break;
  }
  return lines.join("\n");
}

beforeEach(() => {
  tools = DEBIAN;
  tried = { exitCode: 0, stdout: "1 test collected in 0.01s\n", stderr: "" };
  repo = mkdtempSync(join(tmpdir(), "proofgate-init-"));
  twin = mkdtempSync(join(tmpdir(), "proofgate-init-twin-"));
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(twin, { recursive: true, force: true });
});

describe("proofgate init: the files", () => {
  it("writes a ledger that core parses: version 1, a budget of 0, both rejects on, no lease", async () => {
    const r = await init();
    expect(r.code).toBe(0);
    expect(r.out).toContain("wrote freeze.toml: the freeze ledger, no lease, a budget of 0\n");
    const parsed = parseLedger(read("freeze.toml"), "freeze.toml");
    expect(parsed.errors).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.ledger).toMatchObject({
      version: 1,
      maxActiveLeases: 0,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      leases: [],
    });
  });

  it("shows a lease example that is valid once uncommented, dated from the clock", async () => {
    await init();
    const text = read("freeze.toml");
    expect(text).toContain('# expires = "2026-12-16"');
    const uncommented = text
      .replace("max_active_leases = 0", "max_active_leases = 1")
      .split("\n")
      .map((l) => (/^# (\[\[leases\]\]|[a-z]+ = )/.test(l) ? l.slice(2) : l))
      .join("\n");
    const parsed = parseLedger(uncommented, "freeze.toml");
    expect(parsed.errors).toEqual([]);
    expect(parsed.ledger?.leases).toMatchObject([
      {
        nodeid: "tests/test_billing.py::test_invoice_total_currency_round",
        owner: "platform-billing",
        expires: "2026-12-16",
        created: "2026-12-02",
        ticket: "BILL-42",
      },
    ]);
  });

  it("the template of the defaults has every table and parses to exactly the defaults, without a warning", () => {
    const defaults = defaultConfig(DEFAULT_AGENT_PATTERNS);
    const text = configTemplate(defaults);
    for (const table of Object.keys(defaults).filter((k) => k !== "file"))
      expect(text).toMatch(new RegExp(`^\\[${table}\\]$`, "m"));
    for (const key of ["shards", "contexts", "max_unledgered_skips", "collect", "proof", "properties"])
      expect(text).toMatch(new RegExp(`^# ${key} = `, "m"));
    const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(parsed.errors).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.config).toEqual(defaults);
  });

  it("a template with contexts (one file, or one per shard) and a step timeout parses back to them", () => {
    const defaults = defaultConfig(DEFAULT_AGENT_PATTERNS);
    for (const contexts of [[".coverage"], ["cov/1.coverage", "cov/2.coverage"]]) {
      const config = {
        ...defaults,
        coverage: { ...defaults.coverage, contexts, reports: contexts.map((_, i) => `cov/${i + 1}.json`) },
        commands: { ...defaults.commands, timeout: 600 },
      };
      const text = configTemplate(config);
      expect(text).toContain(
        contexts.length === 1 ? 'contexts = ".coverage"\n' : 'contexts = ["cov/1.coverage", "cov/2.coverage"]\n',
      );
      const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
      expect(parsed.errors).toEqual([]);
      expect(parsed.config).toEqual(config);
    }
  });

  it("the template names every key the config accepts, in its table, set or commented out", () => {
    const text = configTemplate(defaultConfig(DEFAULT_AGENT_PATTERNS));
    for (const [table, keys] of Object.entries(CONFIG_SCHEMA)) {
      const start = text.indexOf(`\n[${table}]\n`);
      expect(start, table).toBeGreaterThan(0);
      const end = text.indexOf("\n[", start + 1);
      const section = text.slice(start, end === -1 ? undefined : end);
      for (const key of Object.keys(keys))
        expect(section, `[${table}] ${key}`).toMatch(new RegExp(`^(# )?${key} = `, "m"));
    }
  });

  it("writes the commands for the layout it finds, with test evidence on, and says what it found", async () => {
    write(
      repo,
      "pyproject.toml",
      '[project]\nname = "toolz"\n\n[tool.pytest.ini_options]\ntestpaths = ["toolz"]\n\n[tool.coverage.run]\nsource = ["toolz"]\nomit = ["toolz/tests/test*"]\n',
    );
    write(repo, "toolz/__init__.py", "");
    write(repo, "toolz/tests/test_a.py", "");
    write(repo, ".github/workflows/test.yml", "on: push\n");
    const r = await init();
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "wrote proofgate.toml: the policy, and the commands for this layout:\n" +
        "  pytest settings: pyproject.toml [tool.pytest.ini_options] (testpaths toolz)\n" +
        "  tests: toolz/tests\n" +
        "  coverage source: toolz (source in pyproject.toml [tool.coverage.run])\n" +
        "  golden files: none found, so [fixtures] enabled = false\n" +
        "  seeds: none found, so [properties] enabled = false\n" +
        "  python: `python` (Python 3.11.2, pytest 7.2.1, pytest-cov 4.0.0, coverage 6.5.0): `coverage json` writes the JSON report (pytest-cov before 4.1 has none)\n" +
        "  floor: min_proven = 70: not measured ([commands] proof wrote no proven_coverage.json); raise it to the project's proven coverage\n" +
        "wrote freeze.toml",
    );
    const parsed = parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(parsed.errors).toEqual([]);
    expect(parsed.config).toMatchObject({
      universe: { collected: ["collected.txt"] },
      coverage: { reports: ["proven_coverage.json"], minProven: 70 },
      results: { junit: ["results.xml"] },
      fixtures: { enabled: false },
      // No seeds and no hypothesis test: the seed signals off; a property test added later is judged.
      properties: { enabled: false, judgeTests: true },
      commands: {
        collect: "python -m pytest --collect-only -q > collected.txt",
        proof:
          "python -m pytest --cov=toolz --cov-branch -o junit_family=xunit1 --junitxml=results.xml; s=$?; python -m coverage json -q -o proven_coverage.json; exit $s",
      },
    });
    expect(parsed.config?.commands.properties).toBeUndefined();
    expect(r.out).toContain("skipped fixtures.lock: [fixtures] enabled = false in proofgate.toml\n");
    expect(r.out).not.toContain("seeds_empty");
  });

  it("hypothesis tests and no seed folder: the seeds are left unset, so the property tests are judged", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "def test_a():\n    pass\n");
    write(repo, "tests/fuzz/test_fuzz.py", "from hypothesis import given, strategies as st\n");
    const r = await init();
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "  seeds: none found; 1 test module(s) import hypothesis, so the property tests are judged (the seed signals wait for seeds)\n",
    );
    const text = read("proofgate.toml");
    expect(text).toMatch(/^# enabled = true$/m);
    expect(text).toMatch(/^# seeds = \["tests\/properties\/seeds"\]$/m);
    expect(text).toContain("found no seed folder, and test modules that import hypothesis (tests/fuzz/test_fuzz.py).");
    const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(parsed.errors).toEqual([]);
    expect(parsed.config?.properties).toMatchObject({ enabled: true, seeds: ["tests/properties/seeds"] });
    // judge_tests alone: the property tests are judged, and it names no seeds (they stay off until there are).
    expect((parsed.given ?? []).filter((k) => k.startsWith("properties."))).toEqual(["properties.judge_tests"]);
    expect(text).toMatch(/^judge_tests = true$/m);
  });

  it("with pytest-cov 4.1 or later, pytest-cov writes the JSON; --python goes into every command", async () => {
    tools = { ...DEBIAN, pytestCov: "5.0.0" };
    write(repo, "src/pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
    await init({ python: ".venv/bin/python" });
    const config = parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS).config;
    expect(config?.commands).toEqual({
      collect: ".venv/bin/python -m pytest --collect-only -q tests > collected.txt",
      proof:
        ".venv/bin/python -m pytest tests --cov=src/pkg --cov-branch --cov-report=json:proven_coverage.json -o junit_family=xunit1 --junitxml=results.xml",
      record: true,
      collectBesideProof: true,
      safePath: false,
      timeout: 1800,
    });
  });

  it("warns, in the output, about what will make the first run fail", async () => {
    tools = { python: "3.12.0" };
    write(repo, "tests/test_a.py", "");
    const r = await init();
    expect(r.out).toContain(
      "  warning: `python` has no pytest, pytest-cov, coverage: install pytest pytest-cov coverage into it (pip install), or pass --python <interpreter>\n",
    );
    expect(r.out).toContain("  warning: no package folder found (src/<pkg>/, <pkg>/__init__.py)");
  });

  it("shows the built-in agent patterns and protected paths, which uncommented give the same config", () => {
    const defaults = defaultConfig(DEFAULT_AGENT_PATTERNS);
    const text = uncommentList(uncommentList(configTemplate(defaults), "patterns = ["), "paths = [");
    expect(text).toMatch(/^ {2}"\*\[bot\]\*",$/m);
    const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(parsed.errors).toEqual([]);
    expect(parsed.config).toEqual(defaults);
    // And they are written out: a team that edits them starts from the real lists.
    expect(parseConfig(text, "proofgate.toml", ["nobody"]).config?.agents.patterns).toEqual([
      ...DEFAULT_AGENT_PATTERNS,
    ]);
  });

  it("writes the lock byte for byte as `proofgate lock` does, and `lock --check` is clean", async () => {
    writeFixtures(repo);
    writeFixtures(twin);
    const r = await init();
    expect(r.code).toBe(0);
    expect(r.out).toContain("wrote fixtures.lock: 3 fixture file(s) from tests/fixtures\n");
    expect(await runLock({}, memoryIo(twin), { ...DEFAULT_LOCK_SETTINGS, hash: HASH })).toBe(0);
    expect(read("fixtures.lock")).toBe(readFileSync(join(twin, "fixtures.lock"), "utf8"));
    const check = memoryIo();
    expect(await lockFixtures({ ...DEFAULT_LOCK_SETTINGS, hash: HASH }, true, check)).toBe(0);
    expect(check.out).toBe("fixtures.lock matches the 3 fixture file(s)\n");
  });

  it("turns the fixture signals off when no golden files exist, and writes no lock", async () => {
    mkdirSync(join(repo, "tests/fixtures/empty"), { recursive: true });
    const r = await init();
    expect(r.code).toBe(0);
    expect(parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS).config?.fixtures.enabled).toBe(
      false,
    );
    expect(read("proofgate.toml")).toContain("# Off: `proofgate init` found no golden-file folder");
    expect(r.out).toContain("skipped fixtures.lock: [fixtures] enabled = false in proofgate.toml\n");
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
  });

  it("with a kept config that turns fixtures on, writes no lock while the folder is empty, and says what to do", async () => {
    write(repo, "proofgate.toml", "[fixtures]\nenabled = true\n");
    mkdirSync(join(repo, "tests/fixtures/empty"), { recursive: true });
    const r = await init();
    expect(r.code).toBe(0);
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
    expect(r.out).toContain(
      "skipped fixtures.lock: no fixture file in tests/fixtures yet, and an empty lock verifies nothing.\n",
    );
  });

  it("refuses fixtures that `proofgate lock` refuses: the other files are written, the lock is not, exit 2", async () => {
    writeFixtures(repo);
    symlinkSync("golden.json", join(repo, "tests/fixtures/link.json"));
    const io = memoryIo();
    await expect(runInit({}, io, { env: {}, hash: HASH, probe, tryCommand })).rejects.toMatchObject({
      issues: [expect.objectContaining({ file: "tests/fixtures/link.json" })],
    });
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
    expect(existsSync(join(repo, "freeze.toml"))).toBe(true);
    expect(io.out).toContain("skipped fixtures.lock: `proofgate lock` would refuse the fixture files (below)\n");
    // The CI snippet is printed before the error.
    expect(io.out).toContain("proofgate check --run");
  });

  it("finds seeds beside a property suite and runs the suite on its own", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
    write(repo, "tests/properties/test_props.py", "");
    write(repo, "tests/properties/seeds/a/seed-1", "0");
    const r = await init();
    expect(r.out).toContain("  seeds: tests/properties/seeds\n  property suite: tests/properties\n");
    expect(r.out).not.toContain("seeds_empty");
    const config = parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS).config;
    expect(config?.properties).toEqual({
      enabled: true,
      seeds: ["tests/properties/seeds"],
      results: ["properties.xml"],
      tests: ["tests/properties"],
      judgeTests: true,
    });
    expect(config?.commands.properties).toBe(
      "python -m pytest tests/properties -o junit_family=xunit1 --junitxml=properties.xml",
    );
  });

  it("notes an empty seed corpus under a kept config that turns seeds on, and not a filled one", async () => {
    write(repo, "proofgate.toml", "[properties]\nenabled = true\n");
    expect((await init()).out).toContain("note: no seed file in tests/properties/seeds: the gate says seeds_empty");
    write(repo, "tests/properties/seeds/a/seed-1", "0");
    expect((await init()).out).not.toContain("seeds_empty");
  });
});

describe("proofgate init: the ignore entries", () => {
  function gitInit(): void {
    const r = spawnSync("git", ["init", "-q", repo], { env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
    expect(r.status).toBe(0);
  }

  it("--no-gitignore lists what `check --run` writes that git does not ignore, and writes no .gitignore", async () => {
    gitInit();
    write(repo, ".gitignore", "*.pyc\n.coverage\n");
    const r = await init({ gitignore: false });
    expect(r.out).toContain(
      "`check --run` writes files git does not ignore yet, and refuses untracked files: add these to .gitignore (or run `proofgate init` again without --no-gitignore):\n" +
        "  collected.txt\n  proven_coverage.json\n  results.xml\n  proofgate-evidence.json\n  .coverage.*\n  proofgate-report/\n  .hypothesis/\n",
    );
    expect(read(".gitignore")).toBe("*.pyc\n.coverage\n");
  });

  it("appends only the missing lines by default (--gitignore too), and a second init finds them ignored", async () => {
    gitInit();
    write(repo, ".gitignore", "*.pyc\n.coverage\n");
    const r = await init();
    expect(r.out).toContain(
      "added to .gitignore (what `check --run` writes): collected.txt proven_coverage.json results.xml proofgate-evidence.json .coverage.* proofgate-report/ .hypothesis/\n",
    );
    expect(read(".gitignore")).toBe(
      "*.pyc\n.coverage\n\n# proofgate check --run writes these\ncollected.txt\nproven_coverage.json\nresults.xml\nproofgate-evidence.json\n.coverage.*\nproofgate-report/\n.hypothesis/\n",
    );
    const again = await init({ gitignore: true });
    expect(again.out).toContain("git ignores the files `check --run` writes already\n");
    expect(again.out).toContain("nothing to write: every file exists\n");
  });

  it("names the evidence files of a kept config", async () => {
    write(repo, "proofgate.toml", '[universe]\ncollected = ["out/ids.txt"]\n[results]\njunit = ["out/junit.xml"]\n');
    tools = { ...DEBIAN, hypothesis: undefined };
    await init({ gitignore: true });
    expect(read(".gitignore")).toBe(
      "# proofgate check --run writes these\nout/ids.txt\nproven_coverage.json\nout/junit.xml\nproofgate-evidence.json\n.coverage\n.coverage.*\nproofgate-report/\n__pycache__/\n",
    );
  });
});

describe("proofgate init: never overwrites", () => {
  it("keeps every existing file byte for byte, says so, and exits 0", async () => {
    writeFixtures(repo);
    const mine = {
      "freeze.toml": "version = 1\nmax_active_leases = 3 # ours\r\n",
      "proofgate.toml": "[coverage]\nmin_proven = 85\n",
      "fixtures.lock": "stale, and not ours to fix\n",
    };
    for (const [rel, text] of Object.entries(mine)) write(repo, rel, text);
    const r = await init({ gitignore: false });
    expect(r.code).toBe(0);
    for (const [rel, text] of Object.entries(mine)) expect(read(rel)).toBe(text);
    expect(r.out).toContain("kept proofgate.toml (exists)\nkept freeze.toml (exists)\nkept fixtures.lock (exists)\n");
    expect(r.out).toContain("nothing to write: every file exists\n");
    expect(r.out).not.toContain("wrote ");
  });

  it("writes only what is missing, and a second run writes nothing", async () => {
    write(repo, "freeze.toml", "version = 1\n");
    const first = await init();
    expect(first.out).toContain("wrote proofgate.toml");
    expect(first.out).toContain("kept freeze.toml (exists)\n");
    expect(read("freeze.toml")).toBe("version = 1\n");
    const config = read("proofgate.toml");
    const second = await init();
    expect(second.code).toBe(0);
    expect(second.out).toContain("nothing to write: every file exists\n");
    expect(read("proofgate.toml")).toBe(config);
  });

  it("puts the ledger and the lock where an existing config says", async () => {
    write(
      repo,
      "proofgate.toml",
      '[ledger]\npath = "ci/freeze.toml"\n\n[fixtures]\npaths = ["golden"]\nlock = "golden.lock"\n\n[trailers]\nfreeze_lease = "Lease-Approved"\n',
    );
    write(repo, "golden/a.txt", "a\n");
    const r = await init();
    expect(r.code).toBe(0);
    expect(r.out).toContain("wrote ci/freeze.toml");
    expect(r.out).toContain("wrote golden.lock: 1 fixture file(s) from golden\n");
    expect(read("ci/freeze.toml")).toContain("`Lease-Approved: human`");
    expect(existsSync(join(repo, "freeze.toml"))).toBe(false);
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
  });

  it("skips the lock when [fixtures] is off", async () => {
    write(repo, "proofgate.toml", "[fixtures]\nenabled = false\n");
    writeFixtures(repo);
    const r = await init();
    expect(r.out).toContain("skipped fixtures.lock: [fixtures] enabled = false in proofgate.toml\n");
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
  });

  it("stops at an invalid existing config (exit 2) and leaves it as it was", async () => {
    write(repo, "proofgate.toml", "[coverage]\nmin_proven = 170\n");
    await expect(init()).rejects.toMatchObject({
      issues: [expect.objectContaining({ code: "config_invalid", file: "proofgate.toml", line: 2 })],
    });
    expect(read("proofgate.toml")).toBe("[coverage]\nmin_proven = 170\n");
    expect(existsSync(join(repo, "freeze.toml"))).toBe(false);
  });

  it("writeNew: creates a file whole, never replaces one, and leaves no temp file", () => {
    const path = join(repo, "sub/dir/f.txt");
    expect(writeNew(path, "first\n")).toBe(true);
    expect(writeNew(path, "second\n")).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("first\n");
    expect(readdirSync(join(repo, "sub/dir"))).toEqual(["f.txt"]);
    // A dangling symlink is a name that exists: not followed, not replaced.
    symlinkSync("nowhere", join(repo, "dangling"));
    expect(writeNew(join(repo, "dangling"), "x")).toBe(false);
    expect(existsSync(join(repo, "nowhere"))).toBe(false);
  });
});

describe("proofgate init: the CI snippet", () => {
  const cases: Array<{ platform: string; heading: string; lines: string[] }> = [
    {
      platform: "github",
      heading: "GitHub Actions (--platform), in .github/workflows/proofgate.yml:",
      lines: [
        "      - uses: actions/checkout@v7",
        "          fetch-depth: 0 #",
        "  checks: write #",
        "  pull-requests: write #",
        "      - uses: proofgate/proofgate-action@main",
        "          run: true #",
        "          path: proofgate-report/",
      ],
    },
    {
      platform: "gitlab",
      heading: "GitLab CI (--platform), in .gitlab-ci.yml:",
      lines: [
        '    GIT_DEPTH: "0" #',
        '    - if: $CI_PIPELINE_SOURCE == "merge_request_event"',
        String.raw`  coverage: '/^(?:proofgate: gitlab: )?Proven coverage: \d+\.\d+%/'`,
        "      junit: proofgate-report/",
        "      codequality: proofgate-report/",
        "      dotenv: proofgate-report/",
        "proofgate check --run",
      ],
    },
    {
      platform: "buildkite",
      heading: "Buildkite (--platform), in .buildkite/pipeline.yml:",
      lines: ["steps:", "git fetch --unshallow", "proofgate check --run", '      - "proofgate-report/**/*"'],
    },
    {
      platform: "local",
      heading: "a git pre-push hook (--platform), in .git/hooks/pre-push",
      lines: ["#!/bin/sh\n", "chmod +x .git/hooks/pre-push", "proofgate check --run"],
    },
  ];
  it.each(cases)("--platform $platform prints its snippet", async ({ platform, heading, lines }) => {
    const r = await init({ platform });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`\n${heading}`);
    for (const line of lines) expect(r.out).toContain(line);
    expect(r.out.endsWith(ciSnippet(platform as "github").text)).toBe(true);
  });

  it.each([
    [{ GITHUB_ACTIONS: "true" }, "GitHub Actions (detected)"],
    [{ GITLAB_CI: "true" }, "GitLab CI (detected)"],
    [{ BUILDKITE: "true" }, "Buildkite (detected)"],
    [
      {},
      "a git pre-push hook (no CI detected), in .git/hooks/pre-push (for a CI job: --platform github, gitlab, buildkite):",
    ],
  ])("--platform auto in %o: %s", async (env, heading) => {
    const r = await init({ platform: "auto" }, env);
    expect(r.out).toContain(`\n${heading}`);
  });

  it("--platform auto finds the CI the repository is configured for, and the environment comes first", async () => {
    write(repo, ".github/workflows/test.yml", "on: push\n");
    const found = await init();
    expect(found.out).toContain("\nGitHub Actions (found .github/workflows/), in .github/workflows/proofgate.yml:\n");
    expect(found.out).not.toContain("pre-push");
    const running = await init({}, { GITLAB_CI: "true" });
    expect(running.out).toContain("\nGitLab CI (detected), in .gitlab-ci.yml:");
    expect(running.out).not.toContain("GitHub Actions");
  });

  it("in a workspace member's folder: vitest, the install and the CI from the repository's root, the gate by --root", async () => {
    spawnSync("git", ["init", "-q", repo]);
    write(repo, "package.json", JSON.stringify({ private: true, devDependencies: { vitest: "4.1.12" } }));
    write(repo, "pnpm-workspace.yaml", "packages:\n  - packages/*\n");
    write(repo, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    write(repo, ".github/workflows/ci.yml", "on: push\n");
    write(repo, "packages/web/package.json", JSON.stringify({ name: "web" }));
    write(repo, "packages/web/test/__snapshots__/a.test.ts.snap", "// snapshot\n");
    const io = memoryIo(join(repo, "packages/web"));
    const env = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", HOME: repo };
    expect(await runInit({ minProven: "80" }, io, { env, hash: HASH, probe, tryCommand })).toBe(0);
    expect(io.out).toContain(
      "vitest: vitest in the workspace root's package.json devDependencies (../../package.json)",
    );
    const config = readFileSync(join(repo, "packages/web/proofgate.toml"), "utf8");
    expect(config).toContain('base_setup = "cd ../.. && pnpm install --frozen-lockfile --prefer-offline"');
    expect(config).toContain('collect = "pnpm exec vitest list');
    expect(io.out).toContain(
      "\nGitHub Actions (found .github/workflows/), in .github/workflows/proofgate.yml at the repository's root (../..):",
    );
    expect(io.out).toContain("`proofgate check --run --root packages/web`");
    // The job itself gates the package as pasted: the action runs in its folder.
    const job = ciSnippet("github", undefined, {
      root: "packages/web",
      runner: "vitest",
      install: "corepack enable && pnpm install --frozen-lockfile --prefer-offline",
    }).text;
    expect(io.out).toContain(job);
    expect(job).toContain("working-directory: packages/web #");
    // A vitest workspace's job installs its Node dependencies with the root's lockfile, not Python's tools.
    expect(job).toContain(
      "      - run: corepack enable && pnpm install --frozen-lockfile --prefer-offline # the project's dependencies",
    );
    expect(job).not.toMatch(/python|pip/);
    expect(ciSnippet("local", undefined, { root: "packages/web" }).text).toMatch(
      / check --run --root packages\/web\n$/,
    );
  });

  it("prints a job for each CI the repository has", async () => {
    write(repo, ".gitlab-ci.yml", "test:\n  script: [pytest]\n");
    write(repo, ".buildkite/pipeline.yml", "steps: []\n");
    const r = await init();
    expect(r.out).toContain("\nGitLab CI (found .gitlab-ci.yml), in .gitlab-ci.yml:");
    expect(r.out).toContain("\nBuildkite (found .buildkite/), in .buildkite/pipeline.yml:");
    expect(r.out.endsWith(ciSnippet("buildkite").text)).toBe(true);
  });

  it("is a usage error (exit 2) for an unknown --platform, and writes nothing", async () => {
    await expect(init({ platform: "circleci" })).rejects.toMatchObject({
      issues: [
        {
          code: "usage",
          message: '--platform "circleci" is not a platform proofgate knows',
          fix: "write --platform auto, github, gitlab, buildkite, local",
        },
      ],
    });
    expect(readdirSync(repo)).toEqual([]);
  });

  it("GitLab's coverage regex matches the line the gate prints", () => {
    const regex = new RegExp(GITLAB_COVERAGE_REGEX.slice(1, -1), "m");
    expect(regex.exec("decision REJECT\nProven coverage: 68.42%\n")?.[0]).toBe("Proven coverage: 68.42%");
    expect(regex.exec("proofgate: gitlab: Proven coverage: 68.42%\n")?.[0]).toBe(
      "proofgate: gitlab: Proven coverage: 68.42%",
    );
    // A test's own output that merely contains the words does not match.
    expect(regex.exec("tests/test_x.py::test_y PASSED  Proven coverage: 100.00%\n")).toBeNull();
    expect(ciSnippet("gitlab").text).toContain(`coverage: '${GITLAB_COVERAGE_REGEX}'`);
  });

  it("runs @proofgate/cli pinned to a release, never the unscoped npm name; GitHub's action at the release's tag", () => {
    expect(proofgateCommand("0.4.1")).toBe("npx --yes --package=@proofgate/cli@0.4.1 proofgate");
    expect(proofgateCommand("0.0.0-dev")).toBe("npx --yes --package=@proofgate/cli proofgate");
    for (const platform of ["gitlab", "buildkite", "local"] as const) {
      expect(ciSnippet(platform, "1.2.3").text).toContain(
        "npx --yes --package=@proofgate/cli@1.2.3 proofgate check --run\n",
      );
    }
    expect(ciSnippet("github", "1.2.3").text).toContain("      - uses: proofgate/proofgate-action@v1.2.3\n");
  });
});

describe("proofgate init: the collect command, run once", () => {
  it("runs it with the proof run's coverage flags, and removes what it wrote", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
    const calls: { command: string; addopts: string | undefined; cwd: string }[] = [];
    const io = memoryIo();
    const code = await runInit({}, io, {
      env: { PATH: "/usr/bin" },
      hash: HASH,
      probe,
      tryCommand: (command, { cwd, env }) => {
        calls.push({ command, addopts: env.PYTEST_ADDOPTS, cwd });
        if (command.includes("--collect-only"))
          write(repo, "collected.txt", "tests/test_a.py::test_x\n\n1 test collected in 0.01s\n");
        write(repo, ".coverage", "data");
        return { exitCode: 0, stdout: "", stderr: "" };
      },
    });
    expect(code).toBe(0);
    // The proof command first (init's floor, below), then the collect command.
    expect(calls[0]!.command).toMatch(/^python -m pytest .*--cov=pkg /);
    expect(calls.slice(1)).toEqual([
      {
        command: "python -m pytest --collect-only -q tests > collected.txt",
        addopts: "--cov=pkg --cov-branch --cov-report=",
        cwd: repo,
      },
    ]);
    expect(existsSync(join(repo, "collected.txt"))).toBe(false);
    expect(existsSync(join(repo, ".coverage"))).toBe(false);
    expect(io.out).toContain("ran [commands] collect once with the proof run's coverage flags: it works\n");
  });

  it("a collect that fails (pytest settings that turn warnings into errors): the files are written, exit 2 naming the command, its exit code and output", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
    tried = {
      exitCode: 1,
      stdout: "",
      stderr:
        "Traceback (most recent call last):\n  ...\ncoverage.exceptions.CoverageWarning: Unrecognized option '[tool.coverage.report] exclude_also=' in config file pyproject.toml\n",
    };
    write(
      repo,
      "pyproject.toml",
      '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n\n[tool.coverage.report]\nexclude_also = ["if TYPE_CHECKING:"]\n',
    );
    const io = memoryIo();
    const error = await runInit({}, io, { env: {}, hash: HASH, probe, tryCommand }).catch((e: unknown) => e);
    expect(existsSync(join(repo, "proofgate.toml"))).toBe(true);
    expect(existsSync(join(repo, "freeze.toml"))).toBe(true);
    expect(io.out).toContain(
      "ran [commands] collect once with the proof run's coverage flags: it exited with 1 (below)\n",
    );
    expect(error).toMatchObject({
      issues: [
        {
          code: "coverage_config_invalid",
          file: "pyproject.toml",
          line: 5,
          message:
            "[tool.coverage.report] exclude_also is a setting coverage.py 6.5.0 (the one `python` runs) does not know: it warns on every run, and pytest settings that turn warnings into errors stop the proof run on it",
          fix: "upgrade coverage.py in `python` (pip install -U coverage) to a release that knows exclude_also, or remove the setting",
        },
        {
          code: "usage",
          file: "proofgate.toml",
          message: expect.stringMatching(
            /^\[commands\] collect \(`python -m pytest --collect-only -q tests > collected.txt`\), run once by init with the proof run's coverage flags \(PYTEST_ADDOPTS=--cov=pkg --cov-branch --cov-report=\), exited with 1; its output ended: Traceback .* \| coverage\.exceptions\.CoverageWarning: Unrecognized option/,
          ),
          fix: expect.stringContaining("filterwarnings = error"),
        },
      ],
    });
  });

  it("coverage.py's warning alone (the run passed): the setting is still named, file and line", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, ".coveragerc", "[run]\nbranch = true\n\n[report]\nexclude_also =\n    if TYPE_CHECKING:\n");
    tried = {
      exitCode: 0,
      stdout: "",
      stderr:
        "/usr/lib/python3/dist-packages/coverage/config.py:304: CoverageWarning: Unrecognized option '[report] exclude_also=' in config file .coveragerc\n",
    };
    const error = await runInit({}, memoryIo(), { env: {}, hash: HASH, probe, tryCommand }).catch((e: unknown) => e);
    expect(error).toMatchObject({ issues: [{ code: "coverage_config_invalid", file: ".coveragerc", line: 5 }] });
  });

  it("coverage.py's source listing the test folder: --cov leaves it out, and init says so", async () => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
    write(repo, ".coveragerc", "[run]\nsource =\n    pkg\n    tests\n");
    const r = await init();
    const config = parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS).config;
    expect(config?.commands.proof).toContain(" --cov=pkg ");
    expect(config?.commands.proof).not.toContain("--cov=tests");
    expect(r.out).toContain(
      "warning: coverage.py's source in .coveragerc [run] lists tests: test code is not source, so the proof run does not measure it (--cov=pkg)",
    );
  });
});

describe("proofgate init: the floor fits the project", () => {
  const coverageJson = (covered: number, statements: number, file = "pkg/__init__.py"): string =>
    JSON.stringify({
      meta: { version: "6.5.0", branch_coverage: false },
      files: {
        [file]: {
          executed_lines: [],
          summary: { covered_lines: covered, num_statements: statements },
        },
      },
      totals: {
        covered_lines: covered,
        num_statements: statements,
        percent_covered: (100 * covered) / statements,
        missing_lines: statements - covered,
        excluded_lines: 0,
      },
    });
  const floorOf = (): number =>
    parseConfig(read("proofgate.toml"), "proofgate.toml", DEFAULT_AGENT_PATTERNS).config!.coverage.minProven;

  /** A runner whose proof command writes a coverage.py JSON report of `covered` of `statements`. */
  function measuring(covered: number, statements: number, exitCode = 0, file?: string): CommandTryRunner {
    return (command) => {
      if (!command.includes("--cov=")) return tried;
      write(repo, "proven_coverage.json", coverageJson(covered, statements, file));
      write(repo, "results.xml", "<testsuite/>");
      return { exitCode, stdout: "", stderr: "" };
    };
  }

  beforeEach(() => {
    write(repo, "pkg/__init__.py", "");
    write(repo, "tests/test_a.py", "");
  });

  it("writes the proof run's coverage, rounded down, and removes what the run wrote", async () => {
    const io = memoryIo();
    expect(await runInit({}, io, { env: {}, hash: HASH, probe, tryCommand: measuring(8746, 10000) })).toBe(0);
    expect(floorOf()).toBe(87);
    expect(read("proofgate.toml")).toContain(
      "# Measured by `proofgate init`: the proof run covered 87.46%, rounded down.",
    );
    expect(io.out).toContain("  floor: min_proven = 87: the proof run, run once by init, covered 87.46%\n");
    expect(existsSync(join(repo, "proven_coverage.json"))).toBe(false);
    expect(existsSync(join(repo, "results.xml"))).toBe(false);
  });

  it("a run that measured an installed copy (attrs: pytest imported Debian's attr first): a warning with the fix", async () => {
    const io = memoryIo();
    const installed = "/usr/lib/python3/dist-packages/pkg/__init__.py";
    expect(
      await runInit({}, io, { env: {}, hash: HASH, probe, tryCommand: measuring(7954, 10000, 0, installed) }),
    ).toBe(0);
    expect(io.out).toContain(
      `  warning: the proof run measured 1 file(s) outside the repository (${installed}): the tests ran an installed copy`,
    );
    expect(io.out).toContain("`PYTHONPATH=src ...` for a src layout), then run init again");
    // The repository's own files, relative or absolute under it: no warning.
    rmSync(join(repo, "proofgate.toml"));
    const quiet = memoryIo();
    await runInit({}, quiet, {
      env: {},
      hash: HASH,
      probe,
      tryCommand: measuring(5, 10, 0, join(repo, "pkg/__init__.py")),
    });
    expect(quiet.out).not.toContain("outside the repository");
  });

  it("a project at 100% gets 100; at 59.99% it gets 59, not the 70 it would fail", async () => {
    await runInit({}, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: measuring(40, 40) });
    expect(floorOf()).toBe(100);
    rmSync(join(repo, "proofgate.toml"));
    await runInit({}, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: measuring(5999, 10000) });
    expect(floorOf()).toBe(59);
  });

  it("--min-proven names the floor and runs nothing for it", async () => {
    const calls: string[] = [];
    const run: CommandTryRunner = (command) => {
      calls.push(command);
      return tried;
    };
    await runInit({ minProven: "65.5" }, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: run });
    expect(floorOf()).toBe(65.5);
    expect(read("proofgate.toml")).toContain("# Set by `proofgate init --min-proven`.\nmin_proven = 65.5\n");
    expect(calls.filter((c) => c.includes("--cov="))).toEqual([]);
    await expect(
      runInit({ minProven: "170" }, memoryIo(twin), { env: {}, hash: HASH, probe, tryCommand: run }),
    ).rejects.toMatchObject({
      issues: [{ code: "usage", message: expect.stringContaining("--min-proven") }],
    });
  });

  it("gives the measuring run the suite's own limit, [commands] timeout (1800 s), not the collection's five minutes", async () => {
    const limits: (number | undefined)[] = [];
    const inner = measuring(90, 100);
    const run: CommandTryRunner = (command, options) => {
      if (command.includes("--cov=")) limits.push(options.timeoutSeconds);
      return inner(command, options);
    };
    await runInit({}, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: run });
    expect(floorOf()).toBe(90);
    expect(limits.at(-1)).toBe(1800);
  });

  it("keeps 70 with a note to raise it when it cannot measure: --no-measure, a failing run, leases in the ledger", async () => {
    await runInit({ measure: false }, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: measuring(90, 100) });
    expect(floorOf()).toBe(70);
    expect(read("proofgate.toml")).toContain(
      "# Not measured (init --no-measure): 70 is a placeholder. Raise it to the project's proven coverage,",
    );
    rmSync(join(repo, "proofgate.toml"));
    const io = memoryIo();
    await runInit({}, io, { env: {}, hash: HASH, probe, tryCommand: measuring(90, 100, 1) });
    expect(floorOf()).toBe(70);
    expect(io.out).toContain("not measured ([commands] proof exited with 1 when init ran it)");
    rmSync(join(repo, "proofgate.toml"));
    write(
      repo,
      "freeze.toml",
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_x"\nowner = "o"\nreason = "r"\nexpires = "2099-01-01"\n',
    );
    await runInit({}, memoryIo(), { env: {}, hash: HASH, probe, tryCommand: measuring(90, 100) });
    expect(floorOf()).toBe(70);
    expect(read("proofgate.toml")).toContain("the ledger has 1 lease(s)");
  });
});

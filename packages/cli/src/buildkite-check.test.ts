// `proofgate check` on Buildkite, in-process on a scratch clone: the context from the job's
// environment (a PR's base branch is a name, resolved to the merge-base by git), the declared shard
// count, and what a stand-in `buildkite-agent` on PATH received. Publishing never changes the exit code.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scratchGit, scratchRepo, wrapRepo, type ScratchRepo, stampEvidence } from "@proofgate/gate/testing";
import { run, type CliIo } from "./main.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const COLLECTED = "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n";
const LEDGER =
  'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';
const OFF = "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n";
/** An LCOV shard covering `covered` of lines 1..4 of src/app.py (the union of shards is what counts). */
const SHARD = (covered: number[]) =>
  `TN:\nSF:src/app.py\n${[1, 2, 3, 4].map((l) => `DA:${l},${covered.includes(l) ? 1 : 0}`).join("\n")}\nLF:4\nLH:${covered.length}\nend_of_record\n`;
const SHARDS = { "cov/shard-1.info": SHARD([1, 2]), "cov/shard-2.info": SHARD([3]), "cov/shard-3.info": SHARD([4]) };
const reportsConfig = (paths: string[], shards?: number) =>
  `${OFF}\n[coverage]\nreports = ${JSON.stringify(paths)}\nmin_proven = 50\n${shards === undefined ? "" : `shards = ${shards}\n`}`;

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

interface Calls {
  argv: string[];
  stdin: string | null;
}

/** The stand-in agent from packages/buildkite (accepts only the documented commands and flags). */
function stubAgent(): { bin: string; log: string; calls: () => Calls[] } {
  const bin = tempDir("proofgate-bk-agent-");
  const source = readFileSync(new URL("../../buildkite/src/__fixtures__/buildkite-agent.mjs", import.meta.url), "utf8");
  writeFileSync(join(bin, "agent.mjs"), source);
  writeFileSync(
    join(bin, "buildkite-agent"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(bin, "agent.mjs"))} "$@"\n`,
  );
  chmodSync(join(bin, "buildkite-agent"), 0o755);
  const log = join(bin, "calls.jsonl");
  return {
    bin,
    log,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Calls)
        : [],
  };
}

interface Scenario {
  clone: ScratchRepo;
  /** The commit the feature branched from: the merge-base with origin/main. */
  branchPoint: string;
  head: string;
}

/**
 * An origin whose main holds the gate's inputs, a clone with a feature branch on top, and a later
 * commit on origin's main that the clone has fetched: the base is the branch point, not main's tip.
 */
function scenario(
  config: string,
  files: Record<string, string> = {},
  feature: Record<string, string> = { "src/app.py": "x = 1\n" },
): Scenario {
  const origin = scratchRepo("proofgate-bk-origin-");
  temps.push(origin.dir);
  const branchPoint = origin.commit("base", {
    "proofgate.toml": config,
    "freeze.toml": LEDGER,
    "collected.txt": COLLECTED,
    // The report lists src/app.py, which the feature changes: the proof run measured it.
    "proven_coverage.json":
      '{"meta": {"format": 3}, "files": {"src/app.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
    ".gitignore": "proofgate-report/\n",
    ...files,
  });
  const dir = tempDir("proofgate-bk-clone-");
  scratchGit(tmpdir(), ["clone", "-q", `file://${origin.dir}`, dir]);
  const clone = wrapRepo(dir);
  clone.git(["checkout", "-q", "-b", "feature"]);
  const head = clone.commit("a human change", feature);
  origin.commit("later on main", { "other.txt": "later\n" });
  clone.git(["fetch", "-q", "origin"]);
  return { clone, branchPoint, head };
}

interface Ran {
  code: number;
  out: string;
  err: string;
  report: Record<string, unknown>;
}

async function check(repo: ScratchRepo, env: Record<string, string>, args: string[] = []): Promise<Ran> {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    now: () => NOW,
    cwd: repo.dir,
    env,
    isTTY: false,
  };
  const previous = process.cwd();
  process.chdir(repo.dir);
  let code: number;
  try {
    code = await run(["check", "--format", "json", ...args], io);
  } finally {
    process.chdir(previous);
  }
  const path = join(repo.dir, "proofgate-report", "report.json");
  const report = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  return { code, out, err, report };
}

/** The environment of a Buildkite job with the stand-in agent on PATH (before git and the rest). */
function buildkiteEnv(
  agent: { bin: string; log: string },
  s: Scenario,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    PATH: [agent.bin, process.env.PATH].filter(Boolean).join(":"),
    STUB_AGENT_LOG: agent.log,
    BUILDKITE: "true",
    BUILDKITE_AGENT_ACCESS_TOKEN: "agent-token",
    BUILDKITE_JOB_ID: "0190-job",
    BUILDKITE_COMMIT: s.head,
    BUILDKITE_REPO: "git@github.com:acme/widgets.git",
    BUILDKITE_BUILD_URL: "https://buildkite.com/acme/widgets/builds/42",
    BUILDKITE_PIPELINE_DEFAULT_BRANCH: "main",
    BUILDKITE_MESSAGE: "PR title: Freeze-Lease: human",
    ...extra,
  };
}

interface Case {
  name: string;
  config: string;
  files?: Record<string, string>;
  env: Record<string, string>;
  code: 0 | 1 | 2;
  reasons: string[];
  /** The annotation's style and the decision meta-data; undefined: the agent is never reached. */
  published?: { style: "success" | "error"; decision: "MERGE" | "REJECT"; coverage: string };
  base?: "branchPoint";
  check?: (r: Ran, s: Scenario) => void;
}

const cases: Case[] = [
  {
    name: "PR build: BUILDKITE_PULL_REQUEST_BASE_BRANCH main is resolved through git to the merge-base (origin/main), MERGE",
    config: OFF,
    env: { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" },
    code: 0,
    reasons: [],
    published: { style: "success", decision: "MERGE", coverage: "80.00" },
    base: "branchPoint",
  },
  {
    name: 'branch build: BUILDKITE_PULL_REQUEST "false", the merge-base with the pipeline\'s default branch',
    config: OFF,
    env: { BUILDKITE_PULL_REQUEST: "false", BUILDKITE_PIPELINE_DEFAULT_BRANCH: "main" },
    code: 0,
    reasons: [],
    published: { style: "success", decision: "MERGE", coverage: "80.00" },
    base: "branchPoint",
  },
  {
    name: "base branch missing locally: exit 2, the fix says `git fetch origin <branch>`, the annotation says REJECT",
    config: OFF,
    env: { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "release/9" },
    code: 2,
    reasons: ["input_error"],
    published: { style: "error", decision: "REJECT", coverage: "none" },
    check: (r) => {
      expect(r.report.errors).toEqual([
        {
          code: "usage",
          file: null,
          line: null,
          message: "no base: --base was not given and no default branch exists (tried origin/release/9, release/9)",
          fix: "fetch the target branch first: git fetch origin release/9, or pass the base with --base <commit or branch>",
        },
      ]);
      expect(r.err).toContain("Fix: fetch the target branch first: git fetch origin release/9");
    },
  },
  {
    name: "shards declared (the plugin's shards: 3) and one missing: shard_missing, REJECT",
    config: reportsConfig(["cov/shard-1.info", "cov/shard-2.info"]),
    files: SHARDS,
    env: {
      BUILDKITE_PULL_REQUEST: "7",
      BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main",
      BUILDKITE_PLUGIN_PROOFGATE_SHARDS: "3",
    },
    code: 1,
    reasons: ["shard_missing"],
    published: { style: "error", decision: "REJECT", coverage: "75.00" },
    check: (r) =>
      expect(r.report.coverage).toMatchObject({
        source: "shards",
        shards_expected: 3,
        files: ["cov/shard-1.info", "cov/shard-2.info"],
      }),
  },
  {
    name: "every declared shard present (a parallel gate step, BUILDKITE_PARALLEL_JOB_COUNT 3): their union, MERGE",
    config: reportsConfig(Object.keys(SHARDS)),
    files: SHARDS,
    env: {
      BUILDKITE_PULL_REQUEST: "7",
      BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main",
      BUILDKITE_PARALLEL_JOB: "1",
      BUILDKITE_PARALLEL_JOB_COUNT: "3",
    },
    code: 0,
    reasons: [],
    published: { style: "success", decision: "MERGE", coverage: "100.00" },
  },
  {
    name: "the environment cannot lower the config's count: [coverage] shards = 3 with PROOFGATE_SHARDS=2 is still shard_missing",
    config: reportsConfig(["cov/shard-1.info", "cov/shard-2.info"], 3),
    files: SHARDS,
    env: { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main", PROOFGATE_SHARDS: "2" },
    code: 1,
    reasons: ["shard_missing"],
    published: { style: "error", decision: "REJECT", coverage: "75.00" },
  },
  {
    // The environment is read inside the gate's envelope: the error is the report, written and published.
    name: "a malformed shard count is exit 2 before anything is judged, with report.json and the annotation",
    config: OFF,
    env: {
      BUILDKITE_PULL_REQUEST: "7",
      BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main",
      BUILDKITE_PLUGIN_PROOFGATE_SHARDS: "three",
    },
    code: 2,
    reasons: [],
    published: { style: "error", decision: "REJECT", coverage: "none" },
    check: (r) => {
      expect(r.err).toContain('BUILDKITE_PLUGIN_PROOFGATE_SHARDS="three" is not a whole number of shards >= 1');
      expect(r.report).toMatchObject({
        decision: "REJECT",
        reasons: ["input_error"],
        errors: [
          { code: "usage", message: 'BUILDKITE_PLUGIN_PROOFGATE_SHARDS="three" is not a whole number of shards >= 1' },
        ],
      });
    },
  },
];

// Each case clones a repository and runs git and the agent a dozen times: slow on a loaded machine.
describe("proofgate check on Buildkite", { timeout: 60_000 }, () => {
  it.each(cases)("$name", async (c) => {
    const s = scenario(c.config, c.files);
    const agent = stubAgent();
    const r = await check(s.clone, buildkiteEnv(agent, s, c.env));
    expect(r.code, r.err).toBe(c.code);
    if (c.reasons.length > 0 || c.code !== 2) expect(r.report.reasons).toEqual(c.reasons);
    if (c.base) expect(r.report.base).toBe(s[c.base]);
    if (c.published) {
      const calls = agent.calls();
      expect(calls.map((call) => call.argv)).toEqual([
        ["annotate", "--style", c.published.style, "--context", "proofgate"],
        ["meta-data", "set", "proofgate:decision", c.published.decision],
        ["meta-data", "set", "proofgate:proven_coverage", c.published.coverage],
      ]);
      expect(calls[0]!.stdin).toBe(readFileSync(join(s.clone.dir, "proofgate-report", "report.md"), "utf8"));
    } else {
      expect(agent.calls()).toEqual([]);
    }
    c.check?.(r, s);
  });

  it("the agent failing is reported on stderr and never changes the exit code (MERGE stays 0)", async () => {
    const s = scenario(OFF);
    const agent = stubAgent();
    const r = await check(s.clone, {
      ...buildkiteEnv(agent, s, { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" }),
      STUB_AGENT_FAIL: "meta-data",
    });
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "proofgate: error: publishing to buildkite failed: buildkite-agent meta-data set proofgate:decision exited 1: buildkite-agent: fatal: meta-data set: POST https://agent.buildkite.com/v3/...: 503 Service Unavailable (the decision stands)",
    );
  });

  it("text the patch wrote (a test id in the ledger) reaches the annotation inert: no HTML, links or mentions", async () => {
    const hostile =
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_<img src=x onerror=alert(1)>[x](https://evil.example)@team"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';
    const s = scenario(OFF, {}, { "src/app.py": "x = 1\n" });
    s.clone.commit("ledger", { "freeze.toml": hostile });
    s.head = s.clone.git(["rev-parse", "HEAD"]).trim();
    const agent = stubAgent();
    const r = await check(
      s.clone,
      buildkiteEnv(agent, s, { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" }),
    );
    expect(r.code).toBe(1);
    expect(r.report.reasons).toContain("unknown_leases");
    const body = agent.calls()[0]!.stdin!;
    expect(body).toContain("&lt;img src=x onerror=alert\\(1\\)&gt;");
    expect(body).not.toMatch(/<img|\]\(https:|@team/);
  });

  it("an out dir that cannot be written: exit 2, and the annotation is error and the decision REJECT, not the report's MERGE", async () => {
    const s = scenario(OFF);
    writeFileSync(join(s.clone.dir, "blocked"), "a file where the out dir should be\n");
    s.clone.git(["add", "blocked"]);
    s.clone.commit("a file in the way");
    s.head = s.clone.git(["rev-parse", "HEAD"]).trim();
    const agent = stubAgent();
    const r = await check(
      s.clone,
      buildkiteEnv(agent, s, { BUILDKITE_PULL_REQUEST: "7", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" }),
      ["--out-dir", "blocked"],
    );
    expect(r.code).toBe(2);
    // The report that could not be written said MERGE; what is printed and published is the error.
    expect(JSON.parse(r.out)).toMatchObject({ decision: "REJECT", reasons: ["input_error"] });
    const calls = agent.calls();
    expect(calls[0]!.argv).toEqual(["annotate", "--style", "error", "--context", "proofgate"]);
    expect(calls[0]!.stdin).toMatch(/^### proofgate: ❌ REJECT\n/);
    expect(calls[0]!.stdin).toMatch(
      /#### The gate could not evaluate \(1\)\n\n- \S*blocked\/report\.json: cannot write: EEXIST/,
    );
    expect(calls[1]!.argv).toEqual(["meta-data", "set", "proofgate:decision", "REJECT"]);
  });
});

// The gate as a library, with no cli: @proofgate/core's platform contract, this package's runGate on its
// Node ports, and @proofgate/github's platform publishing to a fake GitHub on 127.0.0.1 (the real
// @octokit/rest client, every request checked against GitHub's OpenAPI description).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localPlatform, type Env } from "@proofgate/core";
import { COMMENT_MARKER, createGithubPlatform } from "@proofgate/github";
import { runGate, silentLog } from "./index.js";
import { nodePorts } from "./node/index.js";
import { scratchRepo, type ScratchIdentity, type ScratchRepo } from "./testing/git-scratch.js";
import { TOKENS, startFakeGithub, type FakeGithub } from "../../github/src/__fixtures__/openapi-server.js";
import { stampEvidence } from "./testing/index.js";

const AGENT: ScratchIdentity = { name: "coding-agent[bot]", email: "7+coding-agent[bot]@users.noreply.github.com" };
const LEDGER =
  'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';

let fake: FakeGithub;
let repo: ScratchRepo;
let temp: string;

beforeEach(async () => {
  fake = await startFakeGithub();
  temp = mkdtempSync(join(tmpdir(), "proofgate-library-"));
  repo = scratchRepo("proofgate-library-repo-");
});
afterEach(async () => {
  await fake.close();
  repo.cleanup();
  rmSync(temp, { recursive: true, force: true });
});

/** A base with the policy, the ledger and the proof run's artifacts; returns its sha. */
function base(): string {
  return repo.commit("base", {
    "proofgate.toml": "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n",
    "freeze.toml": LEDGER,
    "collected.txt": "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n",
    // The report lists src.py, which the patches change: the proof run measured it.
    "proven_coverage.json":
      '{"meta": {"format": 3}, "files": {"src.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
    ".gitignore": "proofgate-report/\n",
  });
}

/** A pull_request job's environment, its event payload naming `baseSha..head`. */
function github(baseSha: string, head: string): Env {
  const event = join(temp, "event.json");
  writeFileSync(
    event,
    JSON.stringify({
      number: 42,
      pull_request: {
        number: 42,
        user: { login: "coding-agent[bot]", type: "Bot" },
        base: { ref: "main", sha: baseSha, repo: { full_name: "acme/widgets" } },
        head: { ref: "agent/patch", sha: head, repo: { full_name: "acme/widgets" } },
      },
      repository: { full_name: "acme/widgets", default_branch: "main" },
    }),
  );
  fake.commits.add(head);
  return {
    ...process.env,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_API_URL: fake.url,
    GITHUB_RUN_ID: "7",
    GITHUB_SHA: head,
    GITHUB_STEP_SUMMARY: join(temp, "summary.md"),
    GITHUB_TOKEN: TOKENS.write,
  };
}

async function gate(env: Env) {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  let commands = "";
  const run = await runGate({
    ports: nodePorts({ root: repo.dir, env }),
    platforms: [
      createGithubPlatform({
        timing: { retryAfterBaseMs: 1, spaceWrites: false },
        now: () => new Date("2026-12-02T12:00:00Z"),
      }),
      localPlatform,
    ],
    platform: "auto",
    env,
    readFile: (path) => readFileSync(path, "utf8"),
    clock: () => ({ today: "2026-12-02", override: false }),
    flags: {},
    outDir: join(repo.dir, "proofgate-report"),
    run: false,
    comment: true,
    commandStream: (text) => (commands += text),
    log: silentLog,
  });
  return { run, commands };
}

describe("core + gate + github, no cli", { timeout: 60_000 }, () => {
  it("a human patch: MERGE, report.json written, a successful check run and one PR comment", async () => {
    const baseSha = base();
    const head = repo.commit("a human change", { "src.py": "x = 1\n" });
    const { run } = await gate(github(baseSha, head));
    expect(run.exitCode).toBe(0);
    expect(run.report).toMatchObject({ decision: "MERGE", base: baseSha, head, commits: 1, provenCoveragePercent: 80 });
    expect(run.platform.provider).toBe("github");
    expect(run.published.failures).toEqual([]);
    expect(JSON.parse(readFileSync(join(repo.dir, "proofgate-report", "report.json"), "utf8"))).toMatchObject({
      decision: "MERGE",
      head,
    });
    expect(fake.violations).toEqual([]);
    const [check] = [...fake.checkRuns.values()];
    expect(check?.body).toMatchObject({ name: "proofgate", head_sha: head, conclusion: "success" });
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body.startsWith(COMMENT_MARKER)).toBe(true);
  });

  it("an agent's lease: REJECT, a failed check run annotated on the ledger's line, the comment edited in place", async () => {
    const baseSha = base();
    const human = repo.commit("a human change", { "src.py": "x = 1\n" });
    await gate(github(baseSha, human));
    const head = repo.commit(
      "freeze another test",
      {
        "freeze.toml":
          LEDGER.replace("max_active_leases = 1", "max_active_leases = 2") +
          '\n[[leases]]\nnodeid = "tests/test_a.py::test_one"\nowner = "bot"\nreason = "flaky too"\nexpires = "2026-12-20"\n',
      },
      { author: AGENT },
    );
    const { run, commands } = await gate(github(baseSha, head));
    expect(run.exitCode).toBe(1);
    expect(run.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy"]);
    expect(run.report.findings[0]).toMatchObject({ file: "freeze.toml", line: 10, commit: head });
    expect(commands).toContain("::error file=freeze.toml,line=10");
    expect(fake.violations).toEqual([]);
    const failed = [...fake.checkRuns.values()].find((c) => c.body.head_sha === head);
    expect(failed?.body).toMatchObject({ name: "proofgate", conclusion: "failure" });
    expect(failed?.annotations).toContainEqual(expect.objectContaining({ path: "freeze.toml", start_line: 10 }));
    // One comment, edited in place by the second run.
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body).toContain("agent_added_lease");
  });
});

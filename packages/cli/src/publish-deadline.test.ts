// Publishing's deadline (`[publish] timeout`, `check --publish-timeout`): the built cli, in a scratch repo,
// publishing to a stand-in API on 127.0.0.1 that answers every request late. The real @octokit/rest and
// @gitbeaker/rest clients make the requests. The job must end at the deadline with the decision's exit
// code, and say that publishing timed out.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scratchRepo, stampEvidence, type ScratchRepo } from "@proofgate/gate/testing";

const BIN = fileURLToPath(new URL("../dist/proofgate.js", import.meta.url));
/** How late the stand-in API answers: far past the deadlines below. */
const LATE_MS = 8000;

interface LateApi {
  url: string;
  /** Requests seen, as `METHOD /path`. */
  seen: string[];
  /** When the first request arrived (performance.now()). */
  firstAt: () => number | undefined;
  close: () => Promise<void>;
}

/** An API that answers every request LATE_MS late, with 201 and an empty object. */
async function startLateApi(): Promise<LateApi> {
  const seen: string[] = [];
  let first: number | undefined;
  const server: Server = createServer((req, res) => {
    first ??= performance.now();
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    const timer = setTimeout(() => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end("{}");
    }, LATE_MS);
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    firstAt: () => first,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs the built cli; resolves with its exit code, output and wall time. */
function runCli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; endedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, endedAt: performance.now() }));
  });
}

/** The environment with no CI of the machine running the tests. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(GITHUB_|GITLAB_|CI_|CI$|BUILDKITE|PROOFGATE_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: "1" };
}

let api: LateApi;
let repo: ScratchRepo;
let temp: string;

beforeEach(async () => {
  api = await startLateApi();
  repo = scratchRepo("proofgate-publish-deadline-");
  temp = mkdtempSync(join(tmpdir(), "proofgate-publish-deadline-env-"));
});
afterEach(async () => {
  await api.close();
  repo.cleanup();
  rmSync(temp, { recursive: true, force: true });
});

/**
 * Milliseconds from the first API request to the end of the process: publishing's share of the job (the
 * evaluation before it takes what the machine makes it take).
 */
function publishingMs(endedAt: number): number {
  const first = api.firstAt();
  if (first === undefined) throw new Error("the API got no request");
  return endedAt - first;
}

/** A base with a passing policy (the deadline in its config when given), and a human patch on it. */
function patch(publish?: number): { base: string; head: string } {
  const base = repo.commit("base", {
    "proofgate.toml":
      "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n" +
      (publish === undefined ? "" : `\n[publish]\ntimeout = ${publish}\n`),
    "freeze.toml": "version = 1\nmax_active_leases = 0\n",
    "collected.txt": "tests/test_a.py::test_one\n\n1 test collected in 0.01s\n",
    "proven_coverage.json":
      '{"meta": {"format": 3}, "files": {"src.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
    ".gitignore": "proofgate-report/\n",
  });
  const head = repo.commit("a human change", { "src.py": "x = 1\n" });
  stampEvidence(repo.dir);
  return { base, head };
}

describe("publishing's deadline, against an API that answers every call late", { timeout: 60_000 }, () => {
  it("GitHub (@octokit/rest), [publish] timeout = 2: the job ends at the deadline, exit 0 as decided, and says so", async () => {
    const { base, head } = patch(2);
    const event = join(temp, "event.json");
    writeFileSync(
      event,
      JSON.stringify({
        number: 42,
        pull_request: {
          number: 42,
          user: { login: "ada", type: "User" },
          base: { ref: "main", sha: base, repo: { full_name: "acme/widgets" } },
          head: { ref: "ada/patch", sha: head, repo: { full_name: "acme/widgets" } },
        },
        repository: { full_name: "acme/widgets", default_branch: "main" },
      }),
    );
    const r = await runCli(["check"], repo.dir, {
      ...cleanEnv(),
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: "acme/widgets",
      GITHUB_API_URL: api.url,
      GITHUB_RUN_ID: "7",
      GITHUB_SHA: head,
      GITHUB_STEP_SUMMARY: join(temp, "summary.md"),
      GITHUB_TOKEN: "ghs_token",
    });
    expect(r.stderr).toContain("publishing to github failed: publishing timed out after 2 s");
    expect(r.stderr).toContain("(the decision stands)");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.dir, "proofgate-report", "report.json"), "utf8"))).toMatchObject({
      decision: "MERGE",
      head,
    });
    // The check run was asked for, and the job did not wait for its late answer (nor retry it).
    expect(api.seen.some((s) => s.startsWith("POST /repos/acme/widgets/check-runs"))).toBe(true);
    expect(api.seen).toHaveLength(1);
    // Within the deadline (2 s) and a margin for the process's exit, never the API's late answer.
    expect(publishingMs(r.endedAt)).toBeLessThan(2000 + 2500);
  });

  it("GitLab (@gitbeaker/rest), check --publish-timeout 1 over the config's: the job ends at the deadline, exit 1 as decided", async () => {
    const { base, head } = patch(30);
    const r = await runCli(["check", "--today", "2026-12-02", "--publish-timeout", "1"], repo.dir, {
      ...cleanEnv(),
      GITLAB_CI: "true",
      CI_API_V4_URL: `${api.url}/api/v4`,
      CI_PROJECT_ID: "7",
      CI_PROJECT_PATH: "acme/widgets",
      CI_COMMIT_SHA: head,
      CI_MERGE_REQUEST_IID: "42",
      CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main",
      CI_PIPELINE_ID: "9",
      PROOFGATE_GITLAB_TOKEN: "glpat-token",
    });
    expect(r.stderr).toContain("publishing to gitlab failed: publishing timed out after 1 s");
    // A date given on the command line is a REJECT (clock_override): publishing's failure keeps it exit 1.
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(JSON.parse(readFileSync(join(repo.dir, "proofgate-report", "report.json"), "utf8"))).toMatchObject({
      decision: "REJECT",
      reasons: ["clock_override"],
    });
    expect(api.seen.some((s) => s.startsWith("POST /api/v4/projects/7/statuses/"))).toBe(true);
    expect(api.seen).toHaveLength(1);
    expect(publishingMs(r.endedAt)).toBeLessThan(1000 + 2500);
  });

  it("Buildkite (its REST API, no agent on PATH), check --publish-timeout 1: the job ends at the deadline, exit 0", async () => {
    const { base, head } = patch();
    const r = await runCli(["check", "--base", base, "--publish-timeout", "1"], repo.dir, {
      ...cleanEnv(),
      BUILDKITE: "true",
      BUILDKITE_COMMIT: head,
      BUILDKITE_ORGANIZATION_SLUG: "acme",
      BUILDKITE_PIPELINE_SLUG: "widgets",
      BUILDKITE_BUILD_NUMBER: "7",
      BUILDKITE_PULL_REQUEST: "false",
      PROOFGATE_BUILDKITE_TOKEN: "bkua_token",
      PROOFGATE_BUILDKITE_API_URL: `${api.url}/`,
      // No buildkite-agent: the annotation goes through the REST API.
      PATH: "/usr/bin:/bin",
    });
    expect(r.stderr).toContain("publishing to buildkite failed: publishing timed out after 1 s");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(api.seen).toEqual(["POST /v2/organizations/acme/pipelines/widgets/builds/7/annotations"]);
    expect(publishingMs(r.endedAt)).toBeLessThan(1000 + 2500);
  });

  it("a deadline outside 1 to 3600 s is a usage error (exit 2, never MERGE)", async () => {
    patch();
    const r = await runCli(["check", "--today", "2026-12-02", "--publish-timeout", "0"], repo.dir, cleanEnv());
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain("--publish-timeout must be at least 1");
    const bad = await runCli(["check", "--today", "2026-12-02", "--publish-timeout", "3601"], repo.dir, cleanEnv());
    expect(bad.code).toBe(2);
    expect(bad.stderr + bad.stdout).toContain("--publish-timeout 3601 is more than 3600 seconds");
  });
});

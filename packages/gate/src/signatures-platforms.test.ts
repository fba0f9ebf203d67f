// `[agents] human_signatures = "required"` where the platform vouches: runGate with the GitHub platform
// against the fake GitHub on 127.0.0.1 (the real @octokit/rest client; pulls.listCommits with
// `commit.verification`), and with the GitLab platform against the GitLab stand-in (the real
// @gitbeaker/rest client; GET /projects/:id/repository/commits/:sha/signature). The platform's word comes
// through the Platform contract (`verifiedCommits`), never from anything the patch wrote.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { localPlatform, type Env, type Platform } from "@proofgate/core";
import { createGithubPlatform } from "@proofgate/github";
import { createGitlabPlatform } from "@proofgate/gitlab";
import { runGate, silentLog } from "./index.js";
import { nodePorts } from "./node/index.js";
import { ADA, ISOLATED_GIT_ENV, scratchRepo, type ScratchRepo } from "./testing/git-scratch.js";
import { signingKeys, type SigningKey, type SigningKeys } from "./testing/signing-keys.js";
import { TOKENS, startFakeGithub, type FakeGithub } from "../../github/src/__fixtures__/openapi-server.js";
import { startGitlabServer, type Handler } from "../../gitlab/src/__fixtures__/gitlab-server.js";
import { stampEvidence } from "./testing/index.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const SIGNERS = ".github/allowed_signers";
const LEDGER =
  'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';
/** The human's change: one more lease, and the budget raised for it (both need `Freeze-Lease: human`). */
const LEDGER_PLUS =
  LEDGER.replace("max_active_leases = 1", "max_active_leases = 2") +
  '\n[[leases]]\nnodeid = "tests/test_a.py::test_one"\nowner = "ada"\nreason = "flaky too"\nexpires = "2026-12-20"\n';
const LEASE_MESSAGE = "Freeze test_one while the cache is fixed\n\nFreeze-Lease: human\n";
const REQUIRED =
  '[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n\n[agents]\nhuman_signatures = "required"\n';
const REJECTED = ["agent_added_lease", "agent_loosened_policy", "unverified_human_trailer"];

let keys: SigningKeys;
let ada: SigningKey;
let fake: FakeGithub;
let temp: string;
beforeAll(async () => {
  keys = signingKeys();
  ada = keys.make("ada");
  fake = await startFakeGithub();
  temp = mkdtempSync(join(tmpdir(), "proofgate-signatures-"));
});
afterAll(async () => {
  keys.cleanup();
  await fake.close();
  rmSync(temp, { recursive: true, force: true });
});

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
  fake.pullCommits.splice(0);
});

/** The base: the policy (signatures required; `signers`: an allowed-signers file too), ledger and artifacts. */
function project(signers = false): { repo: ScratchRepo; base: string } {
  const repo = scratchRepo("proofgate-signatures-repo-");
  repos.push(repo);
  const base = repo.commit("base", {
    "proofgate.toml": signers ? `${REQUIRED}allowed_signers = "${SIGNERS}"\n` : REQUIRED,
    ...(signers ? { [SIGNERS]: ada.signerLine(ADA.email) } : {}),
    "freeze.toml": LEDGER,
    "collected.txt": "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n",
    "proven_coverage.json":
      '{"meta": {"format": 3}, "files": {"src/app.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
    ".gitignore": "proofgate-report/\n",
  });
  return { repo, base };
}

async function gate(repo: ScratchRepo, env: Env, platforms: readonly Platform[]) {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  const full: Env = { PATH: process.env.PATH, HOME: process.env.HOME, ...ISOLATED_GIT_ENV, ...env };
  return runGate({
    ports: nodePorts({ root: repo.dir, env: full }),
    platforms,
    platform: "auto",
    env: full,
    readFile: (path) => readFileSync(path, "utf8"),
    clock: () => ({ today: NOW.toISOString().slice(0, 10), override: false }),
    flags: {},
    outDir: join(repo.dir, "proofgate-report"),
    run: false,
    comment: false,
    commandStream: () => {},
    log: silentLog,
  });
}
const unverifiedWhy = (report: { findings: { reason: string; message: string }[] }) =>
  report.findings.find((f) => f.reason === "unverified_human_trailer")?.message ?? "";

/** A pull_request job's environment: its event payload names base..head and pull request #42. */
function githubEnv(base: string, head: string, token: string | null = TOKENS.write): Env {
  const event = join(temp, `${head.slice(0, 12)}-event.json`);
  writeFileSync(
    event,
    JSON.stringify({
      number: 42,
      pull_request: {
        number: 42,
        user: { login: "ada", type: "User" },
        base: { ref: "main", sha: base, repo: { full_name: "acme/widgets" } },
        head: { ref: "lease", sha: head, repo: { full_name: "acme/widgets" } },
      },
      repository: { full_name: "acme/widgets", default_branch: "main" },
    }),
  );
  fake.commits.add(head);
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_API_URL: fake.url,
    GITHUB_RUN_ID: "7",
    GITHUB_SHA: head,
    GITHUB_TOKEN: token ?? undefined,
  };
}
const github = (): Platform[] => [
  createGithubPlatform({ timing: { retryAfterBaseMs: 1, spaceWrites: false }, now: () => NOW }),
  localPlatform,
];
const listCommits = () => fake.requests.filter((r) => r.operationId === "pulls/list-commits");

describe("GitHub vouches: verification.verified through pulls.listCommits", { timeout: 60_000 }, () => {
  it("verified counts; unverified does not; GitHub's own signature (web-flow) does not", async () => {
    const { repo, base } = project();
    const head = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS });
    const env = githubEnv(base, head);

    fake.pullCommits.push({ sha: head, verified: true });
    const verified = await gate(repo, env, github());
    expect(verified.report.findings).toEqual([]);
    expect(verified.exitCode).toBe(0);
    expect(verified.report.signals.find((s) => s.id === "human_signatures")).toMatchObject({
      result: "pass",
      value: "1 human-trailer commit, 1 verified",
      policy: "human trailers on commits verified by GitHub's verification",
    });
    expect(listCommits().at(-1)).toMatchObject({ path: "/repos/acme/widgets/pulls/42/commits" });

    fake.pullCommits.splice(0, 1, { sha: head, verified: false });
    const unsigned = await gate(repo, env, github());
    expect(unsigned.exitCode).toBe(1);
    expect(unsigned.report.reasons).toEqual(REJECTED);
    expect(unverifiedWhy(unsigned.report)).toContain(
      "no allowed-signers file is set ([agents] allowed_signers); GitHub: not verified (unsigned)",
    );

    fake.pullCommits.splice(0, 1, { sha: head, verified: true, webFlow: true });
    const webFlow = await gate(repo, env, github());
    expect(webFlow.exitCode).toBe(1);
    expect(webFlow.report.reasons).toEqual(REJECTED);
    expect(unverifiedWhy(webFlow.report)).toContain("GitHub: signed by GitHub itself (web-flow)");
    expect(fake.violations).toEqual([]);
  });

  it("no token and no allowed signers: exit 2 saying why, never a MERGE", async () => {
    const { repo, base } = project();
    const head = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS });
    fake.pullCommits.push({ sha: head, verified: true });
    const run = await gate(repo, githubEnv(base, head, null), github());
    expect(run.exitCode, JSON.stringify(run.report, null, 1)).toBe(2);
    expect(run.report.decision).toBe("REJECT");
    expect(run.report.errors).toEqual([expect.objectContaining({ code: "platform_failed" })]);
    expect(run.report.errors[0]!.message).toContain("no GITHUB_TOKEN or PROOFGATE_GITHUB_TOKEN");
  });

  it("with allowed signers too: what they verify needs no API call; what they do not, GitHub may vouch for", async () => {
    const { repo, base } = project(true);
    const signed = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, undefined, { sign: ada.privateKey });
    const before = listCommits().length;
    const local = await gate(repo, githubEnv(base, signed), github());
    expect(local.report.findings).toEqual([]);
    expect(local.exitCode).toBe(0);
    expect(listCommits()).toHaveLength(before);

    const other = repo.commit("Extend the new lease\n\nFreeze-Lease: human\n", {
      "freeze.toml": LEDGER_PLUS.replaceAll("2026-12-20", "2026-12-24"),
    });
    fake.pullCommits.push({ sha: signed, verified: false }, { sha: other, verified: true });
    const byGithub = await gate(repo, githubEnv(base, other), github());
    expect(byGithub.report.findings).toEqual([]);
    expect(byGithub.exitCode).toBe(0);
    expect(listCommits()).toHaveLength(before + 1);

    // GitHub cannot be asked: the allowed signers still judge, and the unverified commit's trailer does not count.
    const noToken = await gate(repo, githubEnv(base, other, null), github());
    expect(noToken.exitCode).toBe(1);
    expect(noToken.report.reasons).toEqual(["agent_extended_lease", "unverified_human_trailer"]);
    expect(unverifiedWhy(noToken.report)).toContain("GitHub: could not be asked (no GITHUB_TOKEN");
    expect(noToken.report.warnings.map((w) => w.message).join("\n")).toContain(
      "GitHub could not be asked about 1 commit(s)",
    );
  });
});

describe("GitLab vouches: the commit signature endpoint", { timeout: 60_000 }, () => {
  it("`verified` counts; a 404 (unsigned) does not", async () => {
    const { repo, base } = project();
    const head = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS });
    const status: Handler = () => ({ status: 201, body: { id: 1, sha: head, status: "success", name: "proofgate" } });
    const run = async (signature: Handler) => {
      const server = await startGitlabServer([signature, status]);
      try {
        const result = await gate(
          repo,
          {
            GITLAB_CI: "true",
            CI_API_V4_URL: server.apiUrl,
            CI_PROJECT_ID: "42",
            CI_PROJECT_PATH: "acme/widgets",
            CI_MERGE_REQUEST_IID: "7",
            CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
            CI_COMMIT_SHA: head,
            PROOFGATE_GITLAB_TOKEN: "glpat-x",
          },
          [createGitlabPlatform({ retry: { retries: 0 } }), localPlatform],
        );
        expect(server.seen[0]).toMatchObject({
          method: "GET",
          path: `/gitlab/api/v4/projects/42/repository/commits/${head}/signature`,
        });
        expect(server.pending()).toBe(0);
        return result;
      } finally {
        await server.close();
      }
    };
    const verified = await run(() => ({
      status: 200,
      body: { signature_type: "SSH", verification_status: "verified", commit_source: "gitaly" },
    }));
    expect(verified.report.findings).toEqual([]);
    expect(verified.exitCode).toBe(0);
    const unsigned = await run(() => ({ status: 404, body: { message: "404 GPG Signature Not Found" } }));
    expect(unsigned.exitCode).toBe(1);
    expect(unsigned.report.reasons).toEqual(REJECTED);
    expect(unverifiedWhy(unsigned.report)).toContain("GitLab: not signed (404 GPG Signature Not Found)");
  });
});

// GitLab's word on commits' signatures (`[agents] human_signatures`): the real @gitbeaker/rest client
// (Commits.showGPGSignature) against the GitLab stand-in on 127.0.0.1. Answers as GitLab's API
// documentation gives them: GET /projects/:id/repository/commits/:sha/signature is 200 with
// signature_type and verification_status for a signed commit, 404 "404 GPG Signature Not Found" for an
// unsigned one.
import type { Env } from "@proofgate/core";
import { afterEach, describe, expect, it } from "vitest";
import { createGitlabApi } from "./api.js";
import { createGitlabPlatform, gitlabVerdict } from "./platform.js";
import { startGitlabServer, type GitlabServer, type Handler } from "./__fixtures__/gitlab-server.js";

const SHA = (n: number) => n.toString(16).padStart(40, "0");
const SSH_VERIFIED = {
  signature_type: "SSH",
  verification_status: "verified",
  key: { id: 11, title: "ada", key: "ssh-ed25519 AAAA ada", usage_type: "auth_and_signing" },
  commit_source: "gitaly",
};
const UNSIGNED: Handler = () => ({ status: 404, body: { message: "404 GPG Signature Not Found" } });
const answer =
  (body: unknown): Handler =>
  () => ({ status: 200, body });

let server: GitlabServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = (apiUrl: string, over: Env = {}): Env => ({
  GITLAB_CI: "true",
  CI_API_V4_URL: apiUrl,
  CI_PROJECT_ID: "42",
  CI_MERGE_REQUEST_IID: "7",
  CI_COMMIT_SHA: SHA(9),
  PROOFGATE_GITLAB_TOKEN: "glpat-x",
  ...over,
});

describe("GitLab's commit signature endpoint", () => {
  it("api.commitSignature: GET .../repository/commits/:sha/signature with the token; a 404 is an unsigned commit", async () => {
    server = await startGitlabServer([answer(SSH_VERIFIED), UNSIGNED]);
    const api = createGitlabApi({ apiUrl: server.apiUrl, token: "glpat-x", retry: { retries: 0 } });
    expect(await api.commitSignature(42, SHA(1))).toEqual({ signed: true, type: "SSH", status: "verified" });
    expect(await api.commitSignature(42, SHA(2))).toEqual({ signed: false, detail: "404 GPG Signature Not Found" });
    expect(server.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /gitlab/api/v4/projects/42/repository/commits/${SHA(1)}/signature`,
      `GET /gitlab/api/v4/projects/42/repository/commits/${SHA(2)}/signature`,
    ]);
    expect(server.seen[0]!.headers["private-token"]).toBe("glpat-x");
  });

  it("platform.verifiedCommits: only `verified` counts; GitLab's own signature (verified_system) vouches for no author", async () => {
    server = await startGitlabServer([
      answer(SSH_VERIFIED),
      answer({ ...SSH_VERIFIED, verification_status: "verified_system" }),
      answer({ signature_type: "PGP", verification_status: "unverified", gpg_key_id: 1 }),
      UNSIGNED,
    ]);
    const platform = createGitlabPlatform({ retry: { retries: 0 } });
    const e = env(server.apiUrl);
    const log: string[] = [];
    const verdicts = await platform.verifiedCommits!(platform.context(e), [SHA(1), SHA(2), SHA(3), SHA(4)], {
      env: e,
      log: (line) => void log.push(line),
    });
    expect(verdicts).toEqual([
      { sha: SHA(1), verified: true, detail: "SSH signature verified" },
      {
        sha: SHA(2),
        verified: false,
        detail:
          "signed by GitLab itself (verified_system): made in GitLab's web editor or API, which vouches for no author",
      },
      { sha: SHA(3), verified: false, detail: "PGP signature not verified (unverified)" },
      { sha: SHA(4), verified: false, detail: "not signed (404 GPG Signature Not Found)" },
    ]);
    expect(server.pending()).toBe(0);
  });

  it("cannot ask without a token (CI_JOB_TOKEN is not one) or outside a GitLab job; a failed request says so", async () => {
    const platform = createGitlabPlatform({ retry: { retries: 0 } });
    const tools = (e: Env) => ({ env: e, log: () => {} });
    const noToken = env("http://127.0.0.1:9/gitlab/api/v4", { PROOFGATE_GITLAB_TOKEN: undefined, CI_JOB_TOKEN: "j" });
    await expect(platform.verifiedCommits!({ provider: "gitlab" }, [SHA(1)], tools(noToken))).rejects.toThrow(
      /no PROOFGATE_GITLAB_TOKEN or GITLAB_TOKEN/,
    );
    const noProject = env("http://127.0.0.1:9/gitlab/api/v4", { CI_PROJECT_ID: undefined });
    await expect(platform.verifiedCommits!({ provider: "gitlab" }, [SHA(1)], tools(noProject))).rejects.toThrow(
      /CI_PROJECT_ID/,
    );
    server = await startGitlabServer([() => ({ status: 403, body: { message: "403 Forbidden" } })]);
    await expect(
      platform.verifiedCommits!({ provider: "gitlab" }, [SHA(1)], tools(env(server.apiUrl))),
    ).rejects.toThrow(/HTTP 403 \(403 Forbidden\)/);
  });

  it("gitlabVerdict reads every other status as not verified, naming it", () => {
    expect(gitlabVerdict(SHA(1), { signed: true, type: "X509", status: "unverified_key" })).toEqual({
      sha: SHA(1),
      verified: false,
      detail: "X509 signature not verified (unverified_key)",
    });
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubClient } from "./client.js";
import { githubVerdict, listPullCommits, verifiedHuman } from "./pull-commits.js";
import { TOKENS, startFakeGithub, type FakeGithub } from "./__fixtures__/openapi-server.js";

let fake: FakeGithub;
beforeEach(async () => {
  fake = await startFakeGithub();
});
afterEach(() => fake.close());

const client = () =>
  createGithubClient({
    token: TOKENS.write,
    baseUrl: fake.url,
    log: () => {},
    retryAfterBaseMs: 1,
    spaceWrites: false,
  });
const sha = (i: number) => i.toString(16).padStart(40, "0");

describe("pulls.listCommits, only where asked", () => {
  it("lists every commit of a small pull request, with GitHub's verification", async () => {
    fake.pullCommits.push({ sha: sha(1), verified: true }, { sha: sha(2), verified: false });
    const listed = await listPullCommits(client(), { owner: "acme", repo: "widgets", number: 42 });
    expect(fake.violations).toEqual([]);
    expect(listed).toEqual({
      complete: true,
      commits: [
        { sha: sha(1), verified: true, verificationReason: "valid", signedByGithub: false },
        { sha: sha(2), verified: false, verificationReason: "unsigned", signedByGithub: false },
      ],
    });
    expect(verifiedHuman(sha(1), listed)).toBe(true);
    expect(verifiedHuman(sha(2), listed)).toBe(false);
    expect(verifiedHuman(sha(3), listed)).toBe(false);
  });

  it("says the list is incomplete at GitHub's 250 commits", async () => {
    for (let i = 1; i <= 300; i++) fake.pullCommits.push({ sha: sha(i), verified: true });
    const listed = await listPullCommits(client(), { owner: "acme", repo: "widgets", number: 42 });
    expect(fake.violations).toEqual([]);
    expect(fake.requests.map((r) => r.query.page ?? "1")).toEqual(["1", "2", "3"]);
    expect(listed.commits).toHaveLength(250);
    expect(listed.complete).toBe(false);
    expect(listed.note).toMatch(/at most 250 commits/);
    expect(verifiedHuman(sha(260), listed)).toBe(false);
  });

  it("a commit GitHub signed itself (web-flow) vouches for no author; each verdict says why", async () => {
    fake.pullCommits.push(
      { sha: sha(1), verified: true, webFlow: true },
      { sha: sha(2), verified: false, reason: "bad_email" },
      { sha: sha(3), verified: true },
    );
    const listed = await listPullCommits(client(), { owner: "acme", repo: "widgets", number: 42 });
    expect(fake.violations).toEqual([]);
    expect(listed.commits[0]).toMatchObject({ verified: true, signedByGithub: true });
    expect(verifiedHuman(sha(1), listed)).toBe(false);
    expect(githubVerdict(sha(1), listed)).toEqual({
      sha: sha(1),
      verified: false,
      detail: "signed by GitHub itself (web-flow): made on github.com or through its API, which vouches for no author",
    });
    expect(githubVerdict(sha(2), listed)).toEqual({ sha: sha(2), verified: false, detail: "not verified (bad_email)" });
    expect(githubVerdict(sha(3), listed)).toEqual({ sha: sha(3), verified: true, detail: "verified (valid)" });
    expect(githubVerdict(sha(4), listed)).toEqual({
      sha: sha(4),
      verified: false,
      detail: "not among the pull request's commits",
    });
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Env } from "@proofgate/core";
import { detectGithub, readGithubRun } from "./context.js";
import { githubPlatform } from "./platform.js";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/events/${name}.json`, import.meta.url), "utf8");
const files: Record<string, string> = Object.fromEntries(
  [
    "pull_request",
    "pull_request-fork",
    "pull_request-dependabot",
    "merge_group",
    "push",
    "push-created",
    "workflow_dispatch",
  ].map((n) => [`/events/${n}.json`, fixture(n)]),
);
const readFile = (path: string) => files[path];
const MERGE_SHA = "9".repeat(40);

function actions(event: string, payload: string | undefined, more: Env = {}): Env {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: event,
    ...(payload ? { GITHUB_EVENT_PATH: `/events/${payload}.json` } : {}),
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: "https://api.github.com",
    GITHUB_RUN_ID: "123456",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_SHA: MERGE_SHA,
    ...more,
  };
}

const run = "https://github.com/acme/widgets/actions/runs/123456";

describe("the context from the Actions environment", () => {
  it.each([
    {
      name: "pull_request: the head is the PR's head, not GITHUB_SHA's test merge",
      env: actions("pull_request", "pull_request"),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "2".repeat(40),
        change: 42,
        targetBranch: "main",
        buildUrl: run,
      },
      fork: false,
      notes: [],
    },
    {
      name: "pull_request_target: the same range, and a warning about its write token",
      env: actions("pull_request_target", "pull_request"),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "2".repeat(40),
        change: 42,
        targetBranch: "main",
        buildUrl: run,
      },
      fork: false,
      notes: [
        expect.stringMatching(
          /^pull_request_target runs with the base repository's write token: never check out and run/,
        ),
      ],
    },
    {
      name: "a fork's pull request",
      env: actions("pull_request", "pull_request-fork"),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "3".repeat(40),
        change: 7,
        targetBranch: "main",
        buildUrl: run,
      },
      fork: true,
      notes: [],
    },
    {
      name: "merge_group: the queue's merge commit against its base",
      env: actions("merge_group", "merge_group", { GITHUB_SHA: "5".repeat(40) }),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "5".repeat(40),
        targetBranch: "main",
        buildUrl: run,
      },
      fork: false,
      notes: [],
    },
    {
      name: "push: before..after",
      env: actions("push", "push", { GITHUB_SHA: "6".repeat(40) }),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "6".repeat(40),
        targetBranch: "main",
        buildUrl: run,
      },
      fork: false,
      notes: [],
    },
    {
      name: "push that created the branch: no base (git's merge-base with the default branch)",
      env: actions("push", "push-created", { GITHUB_SHA: "7".repeat(40) }),
      context: { provider: "github", repo: "acme/widgets", head: "7".repeat(40), targetBranch: "main", buildUrl: run },
      fork: false,
      notes: [],
    },
    {
      name: "workflow_dispatch: GITHUB_SHA against the default branch",
      env: actions("workflow_dispatch", "workflow_dispatch"),
      context: { provider: "github", repo: "acme/widgets", head: MERGE_SHA, targetBranch: "main", buildUrl: run },
      fork: false,
      notes: [],
    },
    {
      name: "a pull request whose payload is unreadable: no head at all rather than the test merge",
      env: actions("pull_request", "missing"),
      context: { provider: "github", repo: "acme/widgets", buildUrl: run },
      fork: false,
      notes: [
        "the event payload /events/missing.json (GITHUB_EVENT_PATH) is unreadable: base and head come from flags or git",
      ],
    },
    {
      name: "GitHub Enterprise Server, a re-run",
      env: actions("pull_request", "pull_request", {
        GITHUB_SERVER_URL: "https://ghe.acme.test",
        GITHUB_API_URL: "https://ghe.acme.test/api/v3",
        GITHUB_RUN_ATTEMPT: "3",
      }),
      context: {
        provider: "github",
        repo: "acme/widgets",
        base: "1".repeat(40),
        head: "2".repeat(40),
        change: 42,
        targetBranch: "main",
        buildUrl: "https://ghe.acme.test/acme/widgets/actions/runs/123456/attempts/3",
      },
      fork: false,
      notes: [],
    },
  ])("$name", ({ env, context, fork, notes }) => {
    const got = readGithubRun(env, readFile);
    expect(got.context).toEqual(context);
    expect(got.fork).toBe(fork);
    expect(got.notes).toEqual(notes);
    expect(githubPlatform.context(env, readFile)).toEqual(context);
  });

  it("reads the API root for GitHub Enterprise Server and the PR's author type", () => {
    const ghes = readGithubRun(
      actions("pull_request", "pull_request-dependabot", { GITHUB_API_URL: "https://ghe.acme.test/api/v3/" }),
      readFile,
    );
    expect(ghes.apiUrl).toBe("https://ghe.acme.test/api/v3");
    expect(ghes.prAuthor).toEqual({ login: "dependabot[bot]", type: "Bot" });
    expect(readGithubRun({ GITHUB_ACTIONS: "true" }).apiUrl).toBe("https://api.github.com");
  });

  it("takes no all-zero or malformed commit id from a payload", () => {
    const hostile = JSON.stringify({
      number: 1,
      pull_request: { number: 1, base: { sha: "0".repeat(40) }, head: { sha: "HEAD~3; rm -rf /" } },
    });
    const got = readGithubRun(actions("pull_request", "hostile"), (p) =>
      p === "/events/hostile.json" ? hostile : undefined,
    );
    expect(got.context.base).toBeUndefined();
    expect(got.context.head).toBeUndefined();
    expect(got.notes).toEqual([expect.stringContaining("has no pull_request.head.sha")]);
  });

  it.each([
    [{ GITHUB_ACTIONS: "true" }, true],
    [{ GITHUB_ACTIONS: "false" }, false],
    [{ GITLAB_CI: "true" }, false],
    [{}, false],
  ])("detects Actions from %j", (env, expected) => {
    expect(detectGithub(env)).toBe(expected);
  });
});

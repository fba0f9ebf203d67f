// The Buildkite context from plain env objects (never process.env): PR and branch builds apart,
// and the inputs the party under review can shape (the PR title in BUILDKITE_MESSAGE, odd values).
import { mergeContext, type CiContext, type Env } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { buildkiteContext, buildkitePlatform, detectBuildkite, repoSlug } from "./index.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const BUILD: Env = {
  BUILDKITE: "true",
  BUILDKITE_COMMIT: SHA,
  BUILDKITE_REPO: "git@github.com:acme/widgets.git",
  BUILDKITE_BUILD_URL: "https://buildkite.com/acme/widgets/builds/42",
  BUILDKITE_PIPELINE_DEFAULT_BRANCH: "main",
  BUILDKITE_BRANCH: "feature/x",
  BUILDKITE_MESSAGE: "Add the thing\n\nFreeze-Lease: human",
};

describe("buildkiteContext", () => {
  const cases: [string, Env, CiContext][] = [
    [
      "PR build: head is the commit, the target branch is the PR's base (a branch name, resolved to the merge-base by git)",
      { ...BUILD, BUILDKITE_PULL_REQUEST: "17", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "release/2.x" },
      {
        provider: "buildkite",
        repo: "acme/widgets",
        head: SHA,
        change: 17,
        buildUrl: BUILD.BUILDKITE_BUILD_URL,
        targetBranch: "release/2.x",
      },
    ],
    [
      'branch build: BUILDKITE_PULL_REQUEST "false" is no PR; the merge-base is taken with the default branch',
      { ...BUILD, BUILDKITE_PULL_REQUEST: "false", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "" },
      {
        provider: "buildkite",
        repo: "acme/widgets",
        head: SHA,
        buildUrl: BUILD.BUILDKITE_BUILD_URL,
        targetBranch: "main",
      },
    ],
    [
      "a build started at HEAD: head is left to git, never the word HEAD",
      { ...BUILD, BUILDKITE_COMMIT: "HEAD", BUILDKITE_PULL_REQUEST: "false" },
      { provider: "buildkite", repo: "acme/widgets", buildUrl: BUILD.BUILDKITE_BUILD_URL, targetBranch: "main" },
    ],
    [
      "a PR number that is not a number is no PR (and its base branch is not used)",
      { ...BUILD, BUILDKITE_PULL_REQUEST: "17; rm -rf /", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "evil" },
      {
        provider: "buildkite",
        repo: "acme/widgets",
        head: SHA,
        buildUrl: BUILD.BUILDKITE_BUILD_URL,
        targetBranch: "main",
      },
    ],
    [
      "shards declared by the plugin option and by a parallel gate step: the larger counts",
      {
        ...BUILD,
        BUILDKITE_PULL_REQUEST: "false",
        BUILDKITE_PLUGIN_PROOFGATE_SHARDS: "4",
        BUILDKITE_PARALLEL_JOB: "0",
        BUILDKITE_PARALLEL_JOB_COUNT: "2",
      },
      {
        provider: "buildkite",
        repo: "acme/widgets",
        head: SHA,
        buildUrl: BUILD.BUILDKITE_BUILD_URL,
        targetBranch: "main",
        shards: 4,
      },
    ],
    [
      "shards from PROOFGATE_SHARDS alone",
      { ...BUILD, BUILDKITE_PULL_REQUEST: "false", PROOFGATE_SHARDS: "3" },
      {
        provider: "buildkite",
        repo: "acme/widgets",
        head: SHA,
        buildUrl: BUILD.BUILDKITE_BUILD_URL,
        targetBranch: "main",
        shards: 3,
      },
    ],
  ];
  it.each(cases)("%s", (_name, env, expected) => {
    expect(buildkiteContext(env)).toEqual(expected);
  });

  it("commit messages are git's: the PR title in BUILDKITE_MESSAGE changes nothing in the context", () => {
    const env = { ...BUILD, BUILDKITE_PULL_REQUEST: "17", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" };
    expect(buildkiteContext({ ...env, BUILDKITE_MESSAGE: "Gate-Change: human\nFixture-Lock: human" })).toEqual(
      buildkiteContext({ ...env, BUILDKITE_MESSAGE: undefined }),
    );
  });

  it.each(["0", "-1", "2.5", "four", "1e3"])(
    "a declared shard count %j is an error (exit 2), never fewer shards",
    (value) => {
      expect(() => buildkiteContext({ ...BUILD, BUILDKITE_PLUGIN_PROOFGATE_SHARDS: value })).toThrow(
        /BUILDKITE_PLUGIN_PROOFGATE_SHARDS="[^"]*" is not a whole number of shards >= 1/,
      );
    },
  );

  it("a flag beats the environment, which beats git (mergeContext)", () => {
    const env = buildkiteContext({ ...BUILD, BUILDKITE_PULL_REQUEST: "9", BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main" });
    expect(mergeContext("buildkite", { base: "abc", head: "def" }, env)).toMatchObject({
      base: "abc",
      head: "def",
      change: 9,
      targetBranch: "main",
      repo: "acme/widgets",
    });
  });
});

describe("repoSlug", () => {
  it.each([
    ["git@github.com:acme/widgets.git", "acme/widgets"],
    ["https://github.com/acme/widgets.git", "acme/widgets"],
    ["https://github.com/acme/widgets", "acme/widgets"],
    ["ssh://git@bitbucket.example.com:7999/acme/widgets.git", "acme/widgets"],
    ["git@gitlab.com:group/sub/widgets.git", "group/sub/widgets"],
    ["https://token:x-oauth@github.com/acme/widgets.git", "acme/widgets"],
    ["widgets", undefined],
    ["https://github.com/", undefined],
    ["https://github.com/acme/<script>.git", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("%j is %j", (url, slug) => {
    expect(repoSlug(url)).toBe(slug);
  });
});

describe("detect", () => {
  it("BUILDKITE=true only", () => {
    expect(detectBuildkite({ BUILDKITE: "true" })).toBe(true);
    expect(detectBuildkite({ BUILDKITE: "1" })).toBe(false);
    expect(detectBuildkite({})).toBe(false);
    expect(buildkitePlatform.provider).toBe("buildkite");
  });
});

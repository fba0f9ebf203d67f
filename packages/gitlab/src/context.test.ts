import { mergeContext, selectPlatform, localPlatform, type CiContext, type Env } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { detectGitlab, gitlabContext, gitlabPipeline } from "./context.js";
import { gitlabPlatform } from "./platform.js";

const HEAD = "1".repeat(40);
const MERGE_SHA = "2".repeat(40);
const BASE = "3".repeat(40);

/** What every GitLab CI job has. */
const job: Env = {
  GITLAB_CI: "true",
  CI_PROJECT_ID: "42",
  CI_PROJECT_PATH: "group/sub/app",
  CI_API_V4_URL: "https://gitlab.example.com/api/v4",
  CI_JOB_URL: "https://gitlab.example.com/group/sub/app/-/jobs/9",
  CI_PIPELINE_URL: "https://gitlab.example.com/group/sub/app/-/pipelines/8",
  CI_PIPELINE_ID: "8",
  CI_DEFAULT_BRANCH: "main",
};

/** The variables of a merge request pipeline (docs: predefined variables for merge request pipelines). */
const mr: Env = {
  ...job,
  CI_PIPELINE_SOURCE: "merge_request_event",
  CI_MERGE_REQUEST_IID: "7",
  CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "release/2",
};

const jobUrl = "https://gitlab.example.com/group/sub/app/-/jobs/9";

describe("gitlabContext", () => {
  const cases: { name: string; env: Env; context: CiContext; kind: string }[] = [
    {
      name: "detached merge request pipeline: the head is CI_COMMIT_SHA (CI_MERGE_REQUEST_SOURCE_BRANCH_SHA is empty there)",
      env: {
        ...mr,
        CI_MERGE_REQUEST_EVENT_TYPE: "detached",
        CI_COMMIT_SHA: HEAD,
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "",
      },
      context: {
        provider: "gitlab",
        repo: "group/sub/app",
        base: BASE,
        head: HEAD,
        change: 7,
        buildUrl: jobUrl,
        targetBranch: "release/2",
      },
      kind: "detached",
    },
    {
      name: "merged results: CI_COMMIT_SHA is GitLab's merge commit, the head is the source branch's SHA",
      env: {
        ...mr,
        CI_MERGE_REQUEST_EVENT_TYPE: "merged_result",
        CI_COMMIT_SHA: MERGE_SHA,
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: HEAD,
      },
      context: {
        provider: "gitlab",
        repo: "group/sub/app",
        base: BASE,
        head: HEAD,
        change: 7,
        buildUrl: jobUrl,
        targetBranch: "release/2",
      },
      kind: "merged_result",
    },
    {
      name: "merge train: a train merge commit, the head is still the source branch's SHA",
      env: {
        ...mr,
        CI_MERGE_REQUEST_EVENT_TYPE: "merge_train",
        CI_COMMIT_SHA: MERGE_SHA,
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: HEAD,
      },
      context: {
        provider: "gitlab",
        repo: "group/sub/app",
        base: BASE,
        head: HEAD,
        change: 7,
        buildUrl: jobUrl,
        targetBranch: "release/2",
      },
      kind: "merge_train",
    },
    {
      name: "branch pipeline: no MR, no base (git's merge-base with the default branch decides), the default branch as target",
      env: { ...job, CI_PIPELINE_SOURCE: "push", CI_COMMIT_SHA: HEAD, CI_COMMIT_BRANCH: "feature" },
      context: {
        provider: "gitlab",
        repo: "group/sub/app",
        base: undefined,
        head: HEAD,
        change: undefined,
        buildUrl: jobUrl,
        targetBranch: "main",
      },
      kind: "branch",
    },
    {
      name: "missing variables: nothing is guessed",
      env: { GITLAB_CI: "true" },
      context: {
        provider: "gitlab",
        repo: undefined,
        base: undefined,
        head: undefined,
        change: undefined,
        buildUrl: undefined,
        targetBranch: undefined,
      },
      kind: "branch",
    },
    {
      name: "junk values count as unset: abbreviated or non-hex SHAs, a non-numeric IID, a URL that is not http(s)",
      env: {
        GITLAB_CI: "true",
        CI_COMMIT_SHA: "abc123",
        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: "--upload-pack=evil",
        CI_MERGE_REQUEST_IID: "7; rm",
        CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
        CI_JOB_URL: "javascript:alert(1)",
        CI_PROJECT_PATH: "  ",
      },
      context: {
        provider: "gitlab",
        repo: undefined,
        base: undefined,
        head: undefined,
        change: undefined,
        buildUrl: undefined,
        targetBranch: undefined,
      },
      kind: "branch",
    },
    {
      name: "a pipeline URL stands in for a missing job URL",
      env: { ...job, CI_JOB_URL: undefined, CI_COMMIT_SHA: HEAD },
      context: {
        provider: "gitlab",
        repo: "group/sub/app",
        base: undefined,
        head: HEAD,
        change: undefined,
        buildUrl: "https://gitlab.example.com/group/sub/app/-/pipelines/8",
        targetBranch: "main",
      },
      kind: "branch",
    },
  ];
  it.each(cases)("$name", ({ env, context, kind }) => {
    expect(gitlabContext(env)).toEqual(context);
    expect(gitlabPipeline(env).kind).toBe(kind);
  });

  it("a flag beats the environment, which beats git (core's mergeContext with this context)", () => {
    const env = {
      ...mr,
      CI_MERGE_REQUEST_EVENT_TYPE: "merged_result",
      CI_COMMIT_SHA: MERGE_SHA,
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: HEAD,
    };
    const merged = mergeContext("gitlab", { head: "f".repeat(40) }, gitlabContext(env), {
      base: "e".repeat(40),
      head: "e".repeat(40),
    });
    expect(merged.head).toBe("f".repeat(40));
    expect(merged.base).toBe(BASE);
  });
});

describe("detectGitlab", () => {
  it.each([
    [{ GITLAB_CI: "true" }, true],
    [{ GITLAB_CI: "false" }, false],
    [{ CI: "true", GITHUB_ACTIONS: "true" }, false],
    [{}, false],
  ] as [Env, boolean][])("%j -> %s", (env, detected) => {
    expect(detectGitlab(env)).toBe(detected);
  });

  it("is picked by core's selectPlatform in a GitLab job, and local stays the fallback", () => {
    expect(selectPlatform("auto", { GITLAB_CI: "true" }, [gitlabPlatform, localPlatform])).toBe(gitlabPlatform);
    expect(selectPlatform("auto", {}, [gitlabPlatform, localPlatform])).toBe(localPlatform);
  });
});

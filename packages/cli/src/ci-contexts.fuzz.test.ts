// Fuzzing the CI context readers (issue 25): GitHub's event payload and variables, GitLab's and
// Buildkite's variables. A job's environment and payload come from outside (a fork's branch name, a
// pull request's title, a tampered event file): for any of them the platform's context is a value or a
// GateError (the envelope turns it into an exit-2 report), never another exception; and what the gate
// hands to git (the base and head) is a commit id, never an option or a path. Fixed seed;
// PROOFGATE_FUZZ_RUNS raises the budget.
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GateError, type CiContext, type Env, type Platform } from "@proofgate/core";
import { buildkitePlatform, expectedShards, repoSlug } from "@proofgate/buildkite";
import { githubPlatform, readGithubRun } from "@proofgate/github";
import { gitlabPipeline, gitlabPlatform } from "@proofgate/gitlab";

const SEED = Number(process.env.PROOFGATE_FUZZ_SEED) || 20261205;
const RUNS = Math.max(1, Number(process.env.PROOFGATE_FUZZ_RUNS) || 1000);
const params = (share = 1) => ({ seed: SEED, numRuns: Math.max(1, Math.round(RUNS * share)), endOnFailure: true });
const TIMEOUT = 60_000 + RUNS * 60;

const EVENTS_DIR = new URL("../../github/src/__fixtures__/events/", import.meta.url);
const EVENTS = readdirSync(EVENTS_DIR)
  .filter((n) => n.endsWith(".json"))
  .map((n) => readFileSync(new URL(n, EVENTS_DIR), "utf8"));

const SHA = "0123456789abcdef0123456789abcdef01234567";
/** Values a variable may hold: shas and near-shas, numbers, URLs, options, paths, any text. */
const value = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom(
    "",
    SHA,
    SHA.toUpperCase(),
    SHA.slice(0, 39),
    "0".repeat(40),
    "--output=/tmp/x",
    "-n1",
    "HEAD~1",
    "main",
    "refs/heads/main",
    "../x",
    "42",
    "-1",
    "0",
    "1e3",
    "99999999999999999999",
    "NaN",
    " 3 ",
    "true",
    "https://gitlab.example/api/v4",
    "git@github.com:acme/widgets.git",
    "https://github.com/acme/widgets.git",
    "acme/widgets",
    "a/b/c",
    "\n",
    "pull_request",
    "pull_request_target",
    "merge_group",
    "push",
    "merge_request_event",
    "detached",
    "merged_result",
    "false",
  ),
);

const GITHUB_VARS = [
  "GITHUB_ACTIONS",
  "GITHUB_ACTOR",
  "GITHUB_API_URL",
  "GITHUB_BASE_REF",
  "GITHUB_EVENT_NAME",
  "GITHUB_EVENT_PATH",
  "GITHUB_REPOSITORY",
  "GITHUB_RUN_ATTEMPT",
  "GITHUB_RUN_ID",
  "GITHUB_SERVER_URL",
  "GITHUB_SHA",
];
const GITLAB_VARS = [
  "GITLAB_CI",
  "CI_API_V4_URL",
  "CI_COMMIT_SHA",
  "CI_DEFAULT_BRANCH",
  "CI_JOB_URL",
  "CI_MERGE_REQUEST_DIFF_BASE_SHA",
  "CI_MERGE_REQUEST_EVENT_TYPE",
  "CI_MERGE_REQUEST_IID",
  "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
  "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
  "CI_PIPELINE_ID",
  "CI_PIPELINE_URL",
  "CI_PROJECT_ID",
  "CI_PROJECT_PATH",
  "CI_NODE_TOTAL",
  "PROOFGATE_SHARDS",
];
const BUILDKITE_VARS = [
  "BUILDKITE",
  "BUILDKITE_BUILD_NUMBER",
  "BUILDKITE_BUILD_URL",
  "BUILDKITE_COMMIT",
  "BUILDKITE_MESSAGE",
  "BUILDKITE_ORGANIZATION_SLUG",
  "BUILDKITE_PARALLEL_JOB_COUNT",
  "BUILDKITE_PIPELINE_DEFAULT_BRANCH",
  "BUILDKITE_PIPELINE_SLUG",
  "BUILDKITE_PLUGIN_PROOFGATE_SHARDS",
  "BUILDKITE_PULL_REQUEST",
  "BUILDKITE_PULL_REQUEST_BASE_BRANCH",
  "BUILDKITE_REPO",
  "PROOFGATE_SHARDS",
];

/** An environment with any subset of `names` set to any value. */
const envOf = (names: readonly string[], forced: Env = {}): fc.Arbitrary<Env> =>
  fc
    .dictionary(fc.constantFrom(...names), value, { maxKeys: names.length })
    .map((env) => ({ ...env, ...forced }) as Env);

/** A platform's context for `env`: a value whose revisions git can only read as commit ids, or a GateError. */
function contextOf(platform: Platform, env: Env, readFile?: (path: string) => string | undefined): void {
  let context: CiContext;
  try {
    context = platform.context(env, readFile);
  } catch (error) {
    expect(GateError.isInstance(error), String(error)).toBe(true);
    for (const issue of (error as GateError).issues) expect(issue.message.length).toBeGreaterThan(0);
    return;
  }
  expect(context.provider).toBe(platform.provider);
  for (const revision of [context.base, context.head])
    if (revision !== undefined) expect(revision).toMatch(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
  if (context.change !== undefined) expect(Number.isSafeInteger(context.change) && context.change > 0).toBe(true);
  if (context.shards !== undefined) expect(Number.isSafeInteger(context.shards) && context.shards > 0).toBe(true);
}

/** A JSON payload with one field changed (any JSON value) or deleted. */
function fieldMutated(texts: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat({ max: texts.length - 1 }), fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.boolean())
    .map(([i, n, replacement, remove]) => {
      const root = JSON.parse(texts[i]!) as Record<string, unknown>;
      const paths: [Record<string, unknown>, string][] = [];
      const walk = (o: unknown) => {
        if (typeof o !== "object" || o === null) return;
        for (const [k, v] of Object.entries(o)) {
          paths.push([o as Record<string, unknown>, k]);
          walk(v);
        }
      };
      walk(root);
      const [parent, key] = paths[n % paths.length]!;
      if (remove && !Array.isArray(parent)) delete parent[key];
      else parent[key] = replacement;
      return JSON.stringify(root);
    });
}

describe("fuzz: GitHub's event payload and variables", { timeout: TIMEOUT }, () => {
  const payload = fc.oneof(
    { weight: 3, arbitrary: fieldMutated(EVENTS) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
    { weight: 1, arbitrary: fc.constantFrom(...EVENTS) },
  );
  it("any variables and any payload (a recorded event with one field changed, any JSON, any text)", () => {
    fc.assert(
      fc.property(
        envOf(GITHUB_VARS, { GITHUB_ACTIONS: "true", GITHUB_EVENT_PATH: "/event.json" }),
        fc.constantFrom("pull_request", "pull_request_target", "merge_group", "push", "workflow_dispatch", "schedule"),
        payload,
        (env, event, text) => {
          const e = { ...env, GITHUB_EVENT_NAME: env.GITHUB_EVENT_NAME ?? event };
          contextOf(githubPlatform, e, () => text);
          const run = readGithubRun(e, () => text);
          expect(typeof run.apiUrl).toBe("string");
          for (const note of run.notes) expect(typeof note).toBe("string");
        },
      ),
      params(),
    );
  });
  it("an unreadable or missing event file", () => {
    fc.assert(
      fc.property(envOf(GITHUB_VARS, { GITHUB_ACTIONS: "true" }), (env) => {
        contextOf(githubPlatform, env, () => undefined);
        contextOf(githubPlatform, env, () => {
          throw new Error("EACCES");
        });
      }),
      params(0.25),
    );
  });
});

describe("fuzz: GitLab's variables", { timeout: TIMEOUT }, () => {
  it("any variables: a context or a GateError; the pipeline's fields as given or absent", () => {
    fc.assert(
      fc.property(envOf(GITLAB_VARS, { GITLAB_CI: "true" }), (env) => {
        contextOf(gitlabPlatform, env);
        const pipeline = gitlabPipeline(env);
        if (pipeline.projectId !== undefined) expect(Number.isSafeInteger(pipeline.projectId)).toBe(true);
      }),
      params(),
    );
  });
});

describe("fuzz: Buildkite's variables", { timeout: TIMEOUT }, () => {
  it("any variables: a context or a GateError; shards a positive count or absent", () => {
    fc.assert(
      fc.property(envOf(BUILDKITE_VARS, { BUILDKITE: "true" }), (env) => {
        contextOf(buildkitePlatform, env);
        let shards: number | undefined;
        try {
          shards = expectedShards(env);
        } catch (error) {
          expect(GateError.isInstance(error), String(error)).toBe(true);
        }
        if (shards !== undefined) expect(Number.isSafeInteger(shards) && shards > 0).toBe(true);
        const slug = repoSlug(env.BUILDKITE_REPO);
        if (slug !== undefined) expect(slug).toMatch(/^[^\s]+\/[^\s]+$/);
      }),
      params(),
    );
  });
});

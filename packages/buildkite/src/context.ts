// https://buildkite.com/docs/pipelines/configure/environment-variables
// The Buildkite job's environment as proofgate's one normalised context. The base is never a sha
// here: Buildkite names the PR's target branch, and `proofgate check` resolves it to the merge-base
// through git (origin/<branch>, then <branch>). Commit messages come from git too, never from
// BUILDKITE_MESSAGE (on a new PR's first build it holds the PR title, which the PR's author wrote).
import { GateError, isFullSha, type CiContext, type Env } from "@proofgate/core";

/** True in a Buildkite job (the agent sets `BUILDKITE=true`). */
export function detectBuildkite(env: Env): boolean {
  return env.BUILDKITE === "true";
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();

/**
 * The context a Buildkite job's environment gives: head (`BUILDKITE_COMMIT`, when it is a full
 * sha: a build started at `HEAD` leaves it to git), the PR number and its target branch (a PR build),
 * else the pipeline's default branch as the branch to take the merge-base with, `owner/name` from
 * `BUILDKITE_REPO`, the build URL, and the expected coverage shard count (`expectedShards`).
 * A shard count that is set but is not a whole number >= 1 is a GateError: the gate cannot tell
 * how many shards to wait for, and it never guesses fewer.
 */
export function buildkiteContext(env: Env): CiContext {
  const pr = nonEmpty(env.BUILDKITE_PULL_REQUEST);
  const change = pr !== undefined && /^[1-9][0-9]{0,9}$/.test(pr) ? Number(pr) : undefined;
  const commit = nonEmpty(env.BUILDKITE_COMMIT);
  const head = isFullSha(commit?.toLowerCase()) ? commit!.toLowerCase() : undefined;
  const targetBranch =
    change !== undefined
      ? nonEmpty(env.BUILDKITE_PULL_REQUEST_BASE_BRANCH)
      : nonEmpty(env.BUILDKITE_PIPELINE_DEFAULT_BRANCH);
  const context: CiContext = { provider: "buildkite" };
  const repo = repoSlug(env.BUILDKITE_REPO);
  if (repo !== undefined) context.repo = repo;
  if (head !== undefined) context.head = head;
  if (change !== undefined) context.change = change;
  const buildUrl = nonEmpty(env.BUILDKITE_BUILD_URL);
  if (buildUrl !== undefined) context.buildUrl = buildUrl;
  if (targetBranch !== undefined) context.targetBranch = targetBranch;
  const shards = expectedShards(env);
  if (shards !== undefined) context.shards = shards;
  return context;
}

/**
 * `owner/name` (or `group/subgroup/name`) from a clone URL: `git@github.com:acme/widgets.git`,
 * `https://github.com/acme/widgets.git`, `ssh://git@host:7999/acme/widgets.git`. Undefined when the
 * value is not a URL of that shape.
 */
export function repoSlug(url: string | undefined): string | undefined {
  const value = nonEmpty(url);
  if (value === undefined) return undefined;
  let path: string | undefined;
  const scp = /^[\w.-]+@[\w.-]+:(?!\/\/)(.+)$/.exec(value);
  if (scp) path = scp[1];
  else {
    try {
      path = new URL(value).pathname;
    } catch {
      return undefined;
    }
  }
  const slug = (path ?? "")
    .replace(/^\/+/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  return /^[\w.-]+(?:\/[\w.-]+)+$/.test(slug) ? slug : undefined;
}

/** Where a declared shard count comes from, first found wins for the message; the largest counts. */
const SHARD_SOURCES = [
  // The plugin's `shards` option (Buildkite exports plugin options as BUILDKITE_PLUGIN_<NAME>_<OPTION>).
  "BUILDKITE_PLUGIN_PROOFGATE_SHARDS",
  // Set by hand in the gate step's `env:`, e.g. from the same YAML anchor as the tests' `parallelism`.
  "PROOFGATE_SHARDS",
  // The gate step itself is parallel: each of its jobs judges the same N shards.
  "BUILDKITE_PARALLEL_JOB_COUNT",
] as const;

/**
 * The number of coverage shards this build declares: the largest of the plugin's `shards` option,
 * `PROOFGATE_SHARDS` and `BUILDKITE_PARALLEL_JOB_COUNT`. The gate step is usually not parallel (the
 * parallel test steps are), so the count is declared to it; `check` then waits for the larger of this
 * and the config's `[coverage] shards`. A value that is set but not a whole number >= 1 throws.
 */
export function expectedShards(env: Env): number | undefined {
  let found: number | undefined;
  for (const name of SHARD_SOURCES) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    if (!/^[1-9][0-9]{0,5}$/.test(raw.trim())) {
      throw new GateError({
        code: "usage",
        message: `${name}=${JSON.stringify(raw)} is not a whole number of shards >= 1`,
        fix: `set ${name} to the test step's parallelism, e.g. 4`,
      });
    }
    found = Math.max(found ?? 0, Number(raw.trim()));
  }
  return found;
}

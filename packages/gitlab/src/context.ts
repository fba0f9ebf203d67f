// GitLab CI's predefined variables:
// https://docs.gitlab.com/ci/variables/predefined_variables/ (merge request pipelines:
// https://docs.gitlab.com/ci/variables/predefined_variables/#predefined-variables-for-merge-request-pipelines).
import { isFullSha, type CiContext, type Env } from "@proofgate/core";

/** True in a GitLab CI job: the runner sets `GITLAB_CI=true`. */
export function detectGitlab(env: Env): boolean {
  return env.GITLAB_CI === "true";
}

/** What a GitLab CI job's environment says about the pipeline, for publishing. */
export interface GitlabPipeline {
  /** `CI_API_V4_URL`: `https://gitlab.example.com/api/v4` (self-managed instances under a path too). */
  apiUrl?: string | undefined;
  /** `CI_PROJECT_ID`. */
  projectId?: number | undefined;
  /** `CI_MERGE_REQUEST_IID`; unset in branch pipelines. */
  mergeRequestIid?: number | undefined;
  /** The patch's head: the source branch's SHA, never the merged-results merge commit. */
  head?: string | undefined;
  /** `CI_COMMIT_SHA`: the commit the pipeline runs on (a merge commit in merged-results pipelines). */
  pipelineSha?: string | undefined;
  /** `CI_PIPELINE_ID`. */
  pipelineId?: number | undefined;
  /** `CI_JOB_URL`. */
  jobUrl?: string | undefined;
  /** `CI_PIPELINE_URL`. */
  pipelineUrl?: string | undefined;
  /** `merge_train`, `merged_result`, `detached` (`CI_MERGE_REQUEST_EVENT_TYPE`), or `branch`. */
  kind: "merge_train" | "merged_result" | "detached" | "branch";
}

/** A full commit SHA from the environment; anything else (empty, abbreviated, junk) counts as unset. */
function sha(value: string | undefined): string | undefined {
  const v = value?.trim().toLowerCase();
  return isFullSha(v) ? v : undefined;
}

function positiveInt(value: string | undefined): number | undefined {
  const v = value?.trim();
  if (v === undefined || !/^[1-9]\d{0,15}$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

function httpUrl(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  try {
    const url = new URL(v);
    return url.protocol === "https:" || url.protocol === "http:" ? v : undefined;
  } catch {
    return undefined;
  }
}

function text(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/**
 * The pipeline as GitLab's variables describe it. The head is `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA`
 * where it is set (merged-results pipelines and merge trains, where `CI_COMMIT_SHA` is a merge commit
 * GitLab made), else `CI_COMMIT_SHA` (detached merge request pipelines, branch pipelines).
 */
export function gitlabPipeline(env: Env): GitlabPipeline {
  const sourceSha = sha(env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA);
  const commitSha = sha(env.CI_COMMIT_SHA);
  const iid = positiveInt(env.CI_MERGE_REQUEST_IID);
  const event = env.CI_MERGE_REQUEST_EVENT_TYPE;
  const kind: GitlabPipeline["kind"] =
    iid === undefined
      ? "branch"
      : event === "merge_train"
        ? "merge_train"
        : event === "merged_result" || sourceSha !== undefined
          ? "merged_result"
          : "detached";
  return {
    apiUrl: httpUrl(env.CI_API_V4_URL),
    projectId: positiveInt(env.CI_PROJECT_ID),
    mergeRequestIid: iid,
    head: sourceSha ?? commitSha,
    pipelineSha: commitSha,
    pipelineId: positiveInt(env.CI_PIPELINE_ID),
    jobUrl: httpUrl(env.CI_JOB_URL),
    pipelineUrl: httpUrl(env.CI_PIPELINE_URL),
    kind,
  };
}

/**
 * The normalised context of a GitLab CI job. Merge request pipelines give the base
 * (`CI_MERGE_REQUEST_DIFF_BASE_SHA`), the head, the MR and its target branch; a branch pipeline gives
 * the head and leaves the base to git (the merge-base with the default branch). A variable that is
 * missing is left unknown, never guessed.
 */
export function gitlabContext(env: Env): CiContext {
  const pipeline = gitlabPipeline(env);
  const mr = pipeline.mergeRequestIid !== undefined;
  return {
    provider: "gitlab",
    repo: text(env.CI_PROJECT_PATH),
    base: mr ? sha(env.CI_MERGE_REQUEST_DIFF_BASE_SHA) : undefined,
    head: pipeline.head,
    change: pipeline.mergeRequestIid,
    buildUrl: pipeline.jobUrl ?? pipeline.pipelineUrl,
    targetBranch: mr ? text(env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME) : text(env.CI_DEFAULT_BRANCH),
  };
}

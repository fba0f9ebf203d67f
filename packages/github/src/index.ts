// proofgate on GitHub: context from the Actions environment, the job summary, workflow annotations, a
// check run and one PR comment (docs/contract.md §9).
export { githubPlatform, createGithubPlatform, githubToken, type GithubPlatformOptions } from "./platform.js";
export { detectGithub, readGithubRun, runUrl, splitRepo, GITHUB_EVENTS, type GithubRun } from "./context.js";
export {
  createGithubClient,
  describeRequestError,
  statusOf,
  type GithubClient,
  type GithubClientOptions,
  type GithubClientTiming,
} from "./client.js";
export {
  reportAnnotations,
  checkRunAnnotations,
  frozenOnlyAnnotation,
  FROZEN_ONLY_NOTICES,
  CHECK_RUN_ANNOTATIONS,
  type GateAnnotation,
  type CheckRunAnnotations,
} from "./annotations.js";
export {
  annotationCommand,
  escapeData,
  escapeProperty,
  inertText,
  type AnnotationCommand,
  type CommandAnnotation,
} from "./workflow-commands.js";
export { renderJobSummary, STEP_SUMMARY_LIMIT } from "./job-summary.js";
export {
  renderCheckRun,
  publishCheckRun,
  checkRunTitle,
  CHECK_RUN_NAME,
  ANNOTATIONS_PER_REQUEST,
  CHECK_OUTPUT_LIMIT,
  type CheckRunPlan,
  type CheckAnnotation,
  type CheckOutput,
} from "./check-run.js";
export {
  renderComment,
  upsertPrComment,
  findGateComment,
  commentMarker,
  COMMENT_MARKER,
  COMMENT_LIMIT,
} from "./pr-comment.js";
export {
  listPullCommits,
  verifiedHuman,
  githubVerdict,
  PULL_COMMITS_LIMIT,
  type PullCommit,
  type PullCommits,
} from "./pull-commits.js";
export {
  githubWorkflow,
  githubCliWorkflow,
  actionRef,
  ACTION_REPOSITORY,
  GITHUB_ACTIONS_USED,
  GITHUB_PERMISSIONS,
} from "./ci-snippet.js";

// proofgate on GitLab: the context of merge request and branch pipelines, the commit status, one MR
// note, the Code Quality, JUnit, dotenv and proven Cobertura reports, and the proven coverage line.
export {
  gitlabPlatform,
  createGitlabPlatform,
  apiToken,
  coverageLine,
  statusDescription,
  noteBody,
  gitlabVerdict,
  STATUS_NAME,
  NOTE_MARKER,
  noteMarker,
  type GitlabPlatformOptions,
} from "./platform.js";
export { detectGitlab, gitlabContext, gitlabPipeline, type GitlabPipeline } from "./context.js";
export {
  codeQualityIssues,
  codeQualityReport,
  frozenOnlyIssues,
  FROZEN_ONLY_ENTRIES,
  FROZEN_ONLY_CHECK,
  CODE_QUALITY_FILE,
  POLICY_FILE,
  type CodeQualityIssue,
} from "./code-quality.js";
export { provenCobertura, xmlText, PROVEN_COBERTURA_FILE } from "./cobertura.js";
export { junitReport, JUNIT_FILE, JUNIT_CLASSNAME } from "./junit-report.js";
export { dotenvReport, dotenvVariables, DOTENV_FILE, DOTENV_MAX_BYTES } from "./dotenv-report.js";
export {
  createGitlabApi,
  hostOf,
  type GitlabApi,
  type GitlabApiSettings,
  type StatusInput,
  type NoteSummary,
  type CommitSignatureAnswer,
} from "./api.js";
export { createRequesterFn, retryAfterMs, GitlabRequestError, type RetryOptions } from "./requester.js";
export {
  gitlabJob,
  gitlabComponentInclude,
  componentRef,
  COMPONENT_PROJECT,
  REPORT_FILES,
  COBERTURA_FILE,
  GITLAB_COVERAGE_REGEX,
} from "./ci-snippet.js";

// The Buildkite platform for `proofgate check` (docs/contract.md §9): the context from the job's environment,
// the report as an annotation and meta-data through `buildkite-agent` (REST fallback for the annotation).

export { buildkiteContext, detectBuildkite, expectedShards, repoSlug } from "./context.js";
export { agentRunner, describeAgentFailure, type AgentResult, type AgentRunner } from "./agent.js";
export {
  DEFAULT_API_URL,
  annotationsUrl,
  createAnnotation,
  restSettings,
  type AnnotationRequest,
  type BuildAddress,
  type RestSettings,
} from "./rest.js";
export {
  ANNOTATION_CONTEXT,
  MAX_ANNOTATION_BYTES,
  META_DATA_KEYS,
  metaDataKeys,
  fitAnnotation,
  provenCoverageValue,
  publishToBuildkite,
  type BuildkitePublishOptions,
} from "./publish.js";
export { buildkitePlatform, createBuildkitePlatform } from "./platform.js";
export {
  buildkiteStep,
  buildkitePluginStep,
  buildkiteShardedPipeline,
  pluginRef,
  PLUGIN_ID,
  UNSHALLOW,
} from "./ci-snippet.js";

// The Buildkite platform for `proofgate check` (GATE.md 9): the context from the job's environment,
// the report as an annotation and meta-data through `buildkite-agent` (REST fallback for the annotation).
import type { Platform } from "@proofgate/core";
import { buildkiteContext, detectBuildkite } from "./context.js";
import { publishToBuildkite, type BuildkitePublishOptions } from "./publish.js";

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

/** A Buildkite platform with an injected agent runner or fetch (tests); `buildkitePlatform` uses the real ones. */
export function createBuildkitePlatform(options: BuildkitePublishOptions = {}): Platform {
  return {
    provider: "buildkite",
    detect: detectBuildkite,
    context: (env) => buildkiteContext(env),
    publish: (report, _context, tools) => publishToBuildkite(report, tools, options),
    shallowHistoryFix: "Buildkite: run `git fetch --unshallow` (or clone without --depth) before proofgate",
    artifacts: [],
  };
}

/** proofgate on Buildkite: detected by `BUILDKITE=true`. */
export const buildkitePlatform: Platform = createBuildkitePlatform();
export {
  buildkiteStep,
  buildkitePluginStep,
  buildkiteShardedPipeline,
  pluginRef,
  PLUGIN_ID,
  UNSHALLOW,
} from "./ci-snippet.js";

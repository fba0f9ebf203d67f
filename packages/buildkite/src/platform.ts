// proofgate on Buildkite: detected by `BUILDKITE=true`, its context from the job's environment, and the
// report published as an annotation and meta-data.
import type { Platform } from "@proofgate/core";
import { buildkiteContext, detectBuildkite } from "./context.js";
import { publishToBuildkite, type BuildkitePublishOptions } from "./publish.js";

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

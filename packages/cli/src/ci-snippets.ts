import {
  proofgateCommand,
  shellQuote,
  type CiSnippet,
  type Provider as CiProvider,
  type SnippetOptions,
} from "@proofgate/core";
import { buildkiteStep } from "@proofgate/buildkite";
import { githubWorkflow } from "@proofgate/github";
import { gitlabJob } from "@proofgate/gitlab";
import { VERSION } from "./version.js";

// The CI configuration `proofgate init` prints: each platform package owns its snippet (the README and
// docs show the same text, written by tooling/release/snippets.mjs); the pre-push hook is the CLI's own.

/** The platforms `proofgate init --platform` knows; `local` is a pre-push hook. */
export const CI_PLATFORMS: readonly CiProvider[] = Object.freeze(["github", "gitlab", "buildkite", "local"]);

/** The snippet that runs the gate on `platform`, with proofgate pinned to `version`. */
export function ciSnippet(platform: CiProvider, version: string = VERSION, options: SnippetOptions = {}): CiSnippet {
  switch (platform) {
    case "github":
      return githubWorkflow(version, options);
    case "gitlab":
      return gitlabJob(version, options);
    case "buildkite":
      return buildkiteStep(version, options);
    case "local":
      return { title: "a git pre-push hook", file: ".git/hooks/pre-push", text: local(version, options.root) };
  }
}

function local(version: string, root?: string): string {
  // git runs a hook at the work tree's root: a package's gate names its folder.
  const scope = root === undefined ? "" : ` --root ${shellQuote(root)}`;
  return `#!/bin/sh
# proofgate before every push: the same command CI runs.
# Save as .git/hooks/pre-push, then: chmod +x .git/hooks/pre-push
exec ${proofgateCommand(version)} check --run${scope}
`;
}

import type { Provider as CiProvider } from "@proofgate/core";
import { VERSION } from "./version.js";

// The CI configuration that runs the gate, per platform: one place, so `proofgate init` prints and the
// docs show the same text. Every snippet runs `proofgate check --run`, which writes REPORT_DIR.

/** The platforms `proofgate init --platform` knows; `local` is a pre-push hook. */
export const CI_PLATFORMS: readonly CiProvider[] = Object.freeze(["github", "gitlab", "buildkite", "local"]);

/** Where `proofgate check --run` writes its report by default. */
export const REPORT_DIR = "proofgate-report";

/** The files of REPORT_DIR that CI picks up (GitLab's report artifacts read the last three). */
export const REPORT_FILES = Object.freeze({
  json: `${REPORT_DIR}/report.json`,
  markdown: `${REPORT_DIR}/report.md`,
  junit: `${REPORT_DIR}/junit.xml`,
  codeQuality: `${REPORT_DIR}/codequality.json`,
  dotenv: `${REPORT_DIR}/proofgate.env`,
});

/**
 * The regex for GitLab's `coverage:` keyword; the gate prints `Proven coverage: NN.NN%` (docs/contract.md §9).
 * Anchored to the gate's own line: GitLab takes the last match in the job log, and the patch's tests
 * write to the same log (a test printing "Proven coverage: 100.00%" must not set the number).
 */
export const GITLAB_COVERAGE_REGEX = String.raw`/^(?:proofgate: gitlab: )?Proven coverage: \d+\.\d+%/`;

/**
 * The command that runs proofgate where it is not installed. Not `npx proofgate`: that fetches the
 * unscoped npm package `proofgate`, which is not this one. Pinned to `version` (a release), so a
 * gate's verdict does not change under a team with an upgrade it did not review.
 */
export function proofgateCommand(version: string = VERSION): string {
  const pinned = /^\d+\.\d+\.\d+$/.test(version) ? `@proofgate/cli@${version}` : "@proofgate/cli";
  return `npx --yes --package=${pinned} proofgate`;
}

/** A CI snippet: what it is, where it goes, and its text (ends with a newline). */
export interface CiSnippet {
  platform: CiProvider;
  /** The platform's name, for a heading. */
  title: string;
  /** The file the snippet belongs in, relative to the repo root. */
  file: string;
  text: string;
}

/** The snippet that runs the gate on `platform`, with proofgate pinned to `version`. */
export function ciSnippet(platform: CiProvider, version: string = VERSION): CiSnippet {
  const run = `${proofgateCommand(version)} check --run`;
  switch (platform) {
    case "github":
      return { platform, title: "GitHub Actions", file: ".github/workflows/proofgate.yml", text: github(run) };
    case "gitlab":
      return { platform, title: "GitLab CI", file: ".gitlab-ci.yml", text: gitlab(run) };
    case "buildkite":
      return { platform, title: "Buildkite", file: ".buildkite/pipeline.yml", text: buildkite(run) };
    case "local":
      return { platform, title: "a git pre-push hook", file: ".git/hooks/pre-push", text: local(run) };
  }
}

function github(run: string): string {
  return `name: proofgate
on:
  pull_request:
permissions:
  contents: read
jobs:
  proofgate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # every commit of the patch; a shallow clone is shallow_history
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - run: python -m pip install pytest pytest-cov # and your project's test dependencies
      - run: ${run}
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: ${REPORT_DIR}
          path: ${REPORT_DIR}/
`;
}

function gitlab(run: string): string {
  return `proofgate:
  stage: test
  # The image needs your Python test stack and Node.js >= 20.11 (for npx).
  variables:
    GIT_DEPTH: "0" # every commit of the merge request; a shallow clone is shallow_history
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - python -m pip install pytest pytest-cov # and your project's test dependencies
    - ${run}
  coverage: '${GITLAB_COVERAGE_REGEX}'
  artifacts:
    when: always
    paths:
      - ${REPORT_DIR}/
    reports:
      junit: ${REPORT_FILES.junit}
      codequality: ${REPORT_FILES.codeQuality}
      dotenv: ${REPORT_FILES.dotenv}
`;
}

function buildkite(run: string): string {
  return `steps:
  - label: ":lock: proofgate"
    # Pull request builds; the agent needs your Python test stack and Node.js >= 20.11 (for npx).
    if: build.pull_request.id != null
    command:
      # every commit of the patch: a clone made with --depth is shallow_history
      - if git rev-parse --is-shallow-repository | grep -qx true; then git fetch --unshallow; fi
      - ${run}
    artifact_paths:
      - "${REPORT_DIR}/**/*"
`;
}

function local(run: string): string {
  return `#!/bin/sh
# proofgate before every push: the same command CI runs.
# Save as .git/hooks/pre-push, then: chmod +x .git/hooks/pre-push
exec ${run}
`;
}

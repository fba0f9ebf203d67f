// The GitLab CI configuration that runs the gate: one source for `proofgate init`, the READMEs, the docs
// and the component's example (tooling/release/snippets.mjs writes them there). Every job clones the
// whole history and wires the reports that publish() writes.
import {
  REPORT_DIR,
  isRelease,
  packageFlags,
  proofgateCommand,
  testSetupLine,
  type CiSnippet,
  type SnippetOptions,
} from "@proofgate/core";
import { CODE_QUALITY_FILE } from "./code-quality.js";
import { PROVEN_COBERTURA_FILE } from "./cobertura.js";
import { DOTENV_FILE } from "./dotenv-report.js";
import { JUNIT_FILE } from "./junit-report.js";

/** The catalog project's path on a GitLab instance: `include: component: $CI_SERVER_FQDN/<it>/proofgate@<version>`. */
export const COMPONENT_PROJECT = "proofgate/proofgate";

/** The files of the report folder that the job's reports read. */
export const REPORT_FILES = Object.freeze({
  json: `${REPORT_DIR}/report.json`,
  markdown: `${REPORT_DIR}/report.md`,
  junit: `${REPORT_DIR}/${JUNIT_FILE}`,
  codeQuality: `${REPORT_DIR}/${CODE_QUALITY_FILE}`,
  dotenv: `${REPORT_DIR}/${DOTENV_FILE}`,
  cobertura: `${REPORT_DIR}/${PROVEN_COBERTURA_FILE}`,
});

/**
 * The Cobertura XML that the MR diff's line coverage reads (`artifacts:reports:coverage_report`): the gate
 * writes the proven lines there (a line is covered when a test that is not frozen ran it), in either
 * coverage mode.
 */
export const COBERTURA_FILE = REPORT_FILES.cobertura;

/**
 * The regex for GitLab's `coverage:` keyword; the gate prints `Proven coverage: NN.NN%`. Anchored to the
 * gate's own line: GitLab takes the last match in the job log, and the patch's tests write to the same
 * log (a test printing "Proven coverage: 100.00%" must not set the number).
 */
export const GITLAB_COVERAGE_REGEX = String.raw`/^(?:proofgate: gitlab: )?Proven coverage: \d+\.\d+%/`;

/** The component at `version` (a release tag `1.2.3`; a development build: `main`). */
export function componentRef(version: string): string {
  return `$CI_SERVER_FQDN/${COMPONENT_PROJECT}/proofgate@${isRelease(version) ? version : "main"}`;
}

const JOB = (run: string, options: SnippetOptions = {}) => `proofgate:
  stage: test
${
  options.runner === "vitest"
    ? `  # Node.js >= 20: your tests' and npx's.
  image: node:24`
    : `  # Your Python test stack and Node.js >= 20 (for npx).
  image: registry.example.com/python-node:3.12-24`
}
  variables:
    GIT_DEPTH: "0" # every commit of the merge request; a shallow clone is shallow_history
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - ${testSetupLine(options)}
    # PROOFGATE_GITLAB_TOKEN (a masked CI/CD variable: project access token, api scope) posts the
    # commit status and the MR note; CI_JOB_TOKEN can post neither.
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
      # Line coverage in the MR diff: the proven lines, frozen tests left out (proofgate writes it).
      coverage_report:
        coverage_format: cobertura
        path: ${COBERTURA_FILE}
`;

/** The job written out, with the CLI from npm pinned to `version`: `.gitlab-ci.yml`. */
export function gitlabJob(version: string, options: SnippetOptions = {}): CiSnippet {
  return {
    title: "GitLab CI",
    file: ".gitlab-ci.yml",
    text: JOB(`${proofgateCommand(version)} check --run${packageFlags(options.root)}`, options),
  };
}

/** The same job through the CI/CD component at `version`. */
export function gitlabComponentInclude(version: string): CiSnippet {
  return {
    title: "GitLab CI (the CI/CD component)",
    file: ".gitlab-ci.yml",
    text: `include:
  - component: ${componentRef(version)}
    inputs:
      image: registry.example.com/python-node:3.12-24 # your Python test stack and Node.js >= 20
# Set PROOFGATE_GITLAB_TOKEN (a masked CI/CD variable: project access token, api scope) for the commit
# status and the MR note; CI_JOB_TOKEN can post neither.
`,
  };
}

// The GitHub Actions workflows that run the gate: one source for `proofgate init`, the READMEs and the
// docs (tooling/release/snippets.mjs writes them there). Each checks out the whole history, grants the
// token what the check run and the comment need, and uses actions that run on Node 24.
import {
  REPORT_DIR,
  isRelease,
  proofgateCommand,
  testSetupLine,
  type CiSnippet,
  type SnippetOptions,
} from "@proofgate/core";

/** The repository that holds the action's release tree (action.yml at its root): `uses: <it>@v<version>`. */
export const ACTION_REPOSITORY = "proofgate/proofgate-action";

/** GitHub's own actions the workflows use, at majors whose `runs.using` is node24. */
export const GITHUB_ACTIONS_USED = Object.freeze({
  checkout: "actions/checkout@v7",
  setupPython: "actions/setup-python@v7",
  setupNode: "actions/setup-node@v7",
  uploadArtifact: "actions/upload-artifact@v7",
});

/** The permissions the job needs: the checkout, the check run, the PR comment; nothing else. */
export const GITHUB_PERMISSIONS = Object.freeze({
  contents: "read",
  checks: "write",
  "pull-requests": "write",
});

/** `uses:` of proofgate's action at `version` (a release tag `v1.2.3`; a development build: `main`). */
export function actionRef(version: string): string {
  return `${ACTION_REPOSITORY}@${isRelease(version) ? `v${version}` : "main"}`;
}

const HEADER = `name: proofgate
on:
  pull_request:
  merge_group:
permissions:
  contents: read # the checkout
  checks: write # the proofgate check run on the head commit
  pull-requests: write # the one PR comment, edited in place
`;

const CHECKOUT = (options: SnippetOptions = {}) => `      - uses: ${GITHUB_ACTIONS_USED.checkout}
        with:
          fetch-depth: 0 # every commit of the patch; a shallow clone is shallow_history
${
  options.runner === "vitest"
    ? `      - uses: ${GITHUB_ACTIONS_USED.setupNode}
        with:
          node-version: 24
`
    : `      - uses: ${GITHUB_ACTIONS_USED.setupPython}
        with:
          python-version: "3.12"
`
}      - run: ${testSetupLine(options)}
`;

const UPLOAD = (dir: string = REPORT_DIR) => `      - uses: ${GITHUB_ACTIONS_USED.uploadArtifact}
        if: always()
        with:
          name: ${REPORT_DIR}
          path: ${dir}/
`;

/** A YAML scalar: as it is when plain, else double-quoted (JSON's quoting is YAML's). */
const yamlScalar = (text: string): string => (/^[\w./-]+$/.test(text) ? text : JSON.stringify(text));

/**
 * The workflow with proofgate's action pinned to `version`: `.github/workflows/proofgate.yml`. The
 * action's `token` defaults to the job's GITHUB_TOKEN, which the permissions above let write. With `root`
 * (a package's folder in a monorepo), the action's `working-directory`, and the report is uploaded from there.
 */
export function githubWorkflow(version: string, options: SnippetOptions = {}): CiSnippet {
  const { root } = options;
  const scoped = root !== undefined && root !== "";
  return {
    title: "GitHub Actions",
    file: ".github/workflows/proofgate.yml",
    text: `${HEADER}jobs:
  proofgate:
    runs-on: ubuntu-latest
    steps:
${CHECKOUT(options)}      - uses: ${actionRef(version)}
        id: proofgate
        with:
          run: true # collect, prove and run the property suite from proofgate.toml
${scoped ? `          working-directory: ${yamlScalar(root)} # the package's folder: its proofgate.toml (check --root)\n` : ""}${UPLOAD(scoped ? `${root}/${REPORT_DIR}` : REPORT_DIR)}`,
  };
}

/** The same job without the action: the CLI from npm, pinned to `version`, with the token passed to it. */
export function githubCliWorkflow(version: string): CiSnippet {
  return {
    title: "GitHub Actions (the CLI, without the action)",
    file: ".github/workflows/proofgate.yml",
    text: `${HEADER}jobs:
  proofgate:
    runs-on: ubuntu-latest
    steps:
${CHECKOUT()}      - uses: ${GITHUB_ACTIONS_USED.setupNode}
        with:
          node-version: 24
      - run: ${proofgateCommand(version)} check --run
        env:
          GITHUB_TOKEN: \${{ github.token }} # the check run and the comment
${UPLOAD()}`,
  };
}

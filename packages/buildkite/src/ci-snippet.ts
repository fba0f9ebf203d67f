// The Buildkite pipeline steps that run the gate: one source for `proofgate init`, the READMEs, the
// docs and the plugin's example pipeline (tooling/release/snippets.mjs writes them there). Every step
// gives the gate the whole history; the agent's own token publishes, so no secret is named.
import {
  REPORT_DIR,
  isRelease,
  packageFlags,
  proofgateCommand,
  testSetupLine,
  type CiSnippet,
  type SnippetOptions,
} from "@proofgate/core";

/** The plugin's id: the repository proofgate/proofgate-buildkite-plugin, used as `proofgate/proofgate#v<version>`. */
export const PLUGIN_ID = "proofgate/proofgate";

/** The line that unshallows a clone made with --depth (a shallow clone is shallow_history). */
export const UNSHALLOW = "if git rev-parse --is-shallow-repository | grep -qx true; then git fetch --unshallow; fi";

/** The plugin at `version` (a release tag `v1.2.3`; a development build: `main`). */
export function pluginRef(version: string): string {
  return `${PLUGIN_ID}#${isRelease(version) ? `v${version}` : "main"}`;
}

/**
 * One step with the CLI from npm pinned to `version`: `.buildkite/pipeline.yml`. With `root` (a package's folder in a
 * monorepo): `check --root` from the checkout's root, the report there where the step's artifacts read it.
 */
export function buildkiteStep(version: string, options: SnippetOptions = {}): CiSnippet {
  const vitest = options.runner === "vitest";
  return {
    title: "Buildkite",
    file: ".buildkite/pipeline.yml",
    text: `steps:
  - label: ":lock: proofgate"
    # Pull request builds; the agent needs ${vitest ? "Node.js >= 20 (your tests' and npx's)" : "your Python test stack and Node.js >= 20 (for npx)"}.
    if: build.pull_request.id != null
    command:
      # every commit of the patch: a clone made with --depth is shallow_history
      - ${UNSHALLOW}
${vitest ? `      - ${testSetupLine(options)}\n` : ""}      - ${proofgateCommand(version)} check --run${packageFlags(options.root)}
    artifact_paths:
      - "${REPORT_DIR}/**/*"
`,
  };
}

/** The same step through the plugin at `version` (it fetches the base branch and unshallows itself). */
export function buildkitePluginStep(version: string): CiSnippet {
  return {
    title: "Buildkite (the plugin)",
    file: ".buildkite/pipeline.yml",
    text: `steps:
  - label: ":lock: proofgate"
    if: build.pull_request.id != null
    plugins:
      - ${pluginRef(version)}:
          run: true # collect, prove and run the property suite from proofgate.toml
`,
  };
}

/**
 * A whole pipeline: parallel test jobs upload one coverage shard each, and one gate step downloads them
 * all through the plugin, which merges the shards by union per file. The shard count is written once.
 * Each test job runs its commands through `proofgate record`, which binds what they wrote to the commit
 * in the job's stamp: the gate reads no shard that another commit's run left.
 */
export function buildkiteShardedPipeline(version: string): CiSnippet {
  const proofgate = proofgateCommand(version);
  return {
    title: "Buildkite (parallel test jobs, one gate step)",
    file: ".buildkite/pipeline.yml",
    text: `# Four parallel test jobs each upload one coverage shard, and one gate step downloads them all and runs
# proofgate, which merges the shards by union per file.
#
# The shard count is written once (the YAML anchor) and feeds both the tests' \`parallelism\` and the
# plugin's \`shards\`. The base revision's proofgate.toml lists the shard files and the jobs' stamps:
#
#   [coverage]
#   reports = ["cov/shard-1.info", "cov/shard-2.info", "cov/shard-3.info", "cov/shard-4.info"]
#   shards = 4
#
#   [evidence]
#   stamps = ["cov/stamp-1.json", "cov/stamp-2.json", "cov/stamp-3.json", "cov/stamp-4.json"]
#
# proofgate waits for the larger of \`shards\` here and \`[coverage] shards\` there: a pipeline edit can add
# shards to wait for, never remove the base config's. .buildkite/** is a protected path (Gate-Change: human).
# \`proofgate record\` runs a command and writes a stamp: the commit, and the sha256 of each file the command
# wrote. The gate reads only files a stamp binds to the commit it judges (docs/config.md#evidence).

x-shards: &shards 4

steps:
  - label: ":pytest: tests %n"
    key: tests
    parallelism: *shards
    command:
      - mkdir -p cov
      # The universe (every collected test id); the gate reads the first job's.
      - >-
        ${proofgate} record --stamp "cov/stamp-$$((BUILDKITE_PARALLEL_JOB + 1)).json" --
        'python -m pytest --collect-only -q > collected.txt'
      - if [ "$$BUILDKITE_PARALLEL_JOB" = 0 ]; then buildkite-agent artifact upload collected.txt; fi
      # The proof run without the frozen tests (an exact pytest plugin), split with pytest-split.
      # BUILDKITE_PARALLEL_JOB is 0-based; groups, shard and stamp files are numbered 1..N.
      - ${proofgate} deselect --format plugin --out .proofgate/proofgate_frozen.py
      - >-
        ${proofgate} record --stamp "cov/stamp-$$((BUILDKITE_PARALLEL_JOB + 1)).json" --
        'PYTHONPATH=.proofgate python -m pytest -p proofgate_frozen --cov=src --cov-branch
        --splits "$$BUILDKITE_PARALLEL_JOB_COUNT" --group "$$((BUILDKITE_PARALLEL_JOB + 1))";
        s=$$?; python -m coverage lcov -o "cov/shard-$$((BUILDKITE_PARALLEL_JOB + 1)).info"; exit $$s'
    artifact_paths:
      - "cov/shard-*.info"
      - "cov/stamp-*.json"

  - label: ":lock: proofgate"
    key: gate
    depends_on: tests
    # Run the gate even when a test job failed: its REJECT says why, and a missing shard is shard_missing.
    allow_dependency_failure: true
    plugins:
      - ${pluginRef(version)}:
          shards: *shards
          download:
            - "cov/shard-*.info"
            - "cov/stamp-*.json"
            - "collected.txt"
`,
  };
}

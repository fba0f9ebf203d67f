// The pipelines users copy: parsed as YAML, and checked for the whole history before the gate runs and
// for proofgate pinned to the release. No step names a token: the agent's own publishes.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  PLUGIN_ID,
  UNSHALLOW,
  buildkitePluginStep,
  buildkiteShardedPipeline,
  buildkiteStep,
  pluginRef,
} from "./ci-snippet.js";

interface Step {
  label?: string;
  command?: string[];
  plugins?: Record<string, Record<string, unknown> | null>[];
  artifact_paths?: string[];
}
const steps = (text: string): Step[] => (parse(text) as { steps: Step[] }).steps;
const VERSION = "1.4.2";

describe("the plain step", () => {
  const [step] = steps(buildkiteStep(VERSION).text);
  it("unshallows the clone before the gate runs, pinned to the release", () => {
    expect(step!.command).toEqual([UNSHALLOW, `npx --yes --package=@proofgate/cli@${VERSION} proofgate check --run`]);
    expect(step!.artifact_paths).toEqual(["proofgate-report/**/*"]);
  });

  it("for a package of a monorepo: check --root from the checkout's root, the report where the artifacts read it", () => {
    const [scoped] = steps(buildkiteStep(VERSION, { root: "my pkg" }).text);
    expect(scoped!.command![1]).toBe(
      `npx --yes --package=@proofgate/cli@${VERSION} proofgate check --run --root 'my pkg' --out-dir proofgate-report`,
    );
    expect(scoped!.artifact_paths).toEqual(["proofgate-report/**/*"]);
  });

  it("for a vitest project: installs the project's dependencies before the gate", () => {
    const [step] = steps(buildkiteStep(VERSION, { runner: "vitest", install: "npm ci" }).text);
    expect(step!.command).toEqual([
      UNSHALLOW,
      "npm ci",
      `npx --yes --package=@proofgate/cli@${VERSION} proofgate check --run`,
    ]);
  });
});

describe.each([
  ["the plugin step", buildkitePluginStep(VERSION).text],
  ["the sharded pipeline", buildkiteShardedPipeline(VERSION).text],
])("%s", (_name, text) => {
  const gate = steps(text).find((s) => s.plugins)!;
  const [entry] = gate.plugins!;
  it("uses the plugin at the release's tag, which fetches the base and unshallows (fetch-base is not turned off)", () => {
    expect(Object.keys(entry!)).toEqual([`${PLUGIN_ID}#v${VERSION}`]);
    expect(entry![`${PLUGIN_ID}#v${VERSION}`]).not.toHaveProperty("fetch-base");
    expect(text).not.toMatch(/TOKEN/);
  });
});

it("the sharded pipeline escapes runtime variables from upload-time interpolation and pins every CLI run", () => {
  const text = buildkiteShardedPipeline(VERSION).text;
  expect(text).not.toMatch(/[^$]\$BUILDKITE_PARALLEL_JOB/);
  for (const line of text.split("\n").filter((l) => l.includes("npx ")))
    expect(line).toContain(`--package=@proofgate/cli@${VERSION} `);
  const tests = steps(text)[0]!;
  expect(tests.command![0]).toBe("mkdir -p cov");
});

it("a development build points at main", () => {
  expect(pluginRef("0.0.0-dev")).toBe(`${PLUGIN_ID}#main`);
});

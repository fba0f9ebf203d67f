// The release workflow: parsed as YAML and checked for what would break a release that no test here can
// run (GitHub runs it): Node 24 actions, least privilege, and commands and files that exist.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { node20Uses } from "../../../packages/github/src/__fixtures__/node24-actions.js";

const ROOT = new URL("../../../", import.meta.url).pathname;
interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  needs?: string;
  if?: string;
  env?: Record<string, string>;
  steps: Step[];
}
const workflow = parse(readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8")) as {
  on: { push: { branches: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts;

describe(".github/workflows/release.yml", () => {
  it("runs on main only, with read-only defaults and each write permission on the job that needs it", () => {
    expect(workflow.on).toEqual({ push: { branches: ["main"] } });
    expect(workflow.permissions).toEqual({ contents: "read" });
    expect(workflow.jobs.npm!.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      "id-token": "write",
    });
    expect(workflow.jobs.platforms!.permissions).toBeUndefined();
  });

  it("uses only actions that run on Node 24, and checks out the whole history where tags are read", () => {
    expect(node20Uses(steps.flatMap((s) => (s.uses ? [s.uses] : [])))).toEqual([]);
    expect(workflow.jobs.npm!.steps[0]).toEqual({ uses: "actions/checkout@v7", with: { "fetch-depth": 0 } });
  });

  it("runs pnpm scripts and files that exist", () => {
    const runs = steps.flatMap((s) => (s.run ? [s.run] : [])).join("\n");
    for (const [, script] of runs.matchAll(/\bpnpm ([\w:-]+)/g))
      if (!["install", "test"].includes(script!)) expect(scripts, `pnpm ${script}`).toHaveProperty(script!);
    for (const [, file] of runs.matchAll(/\bnode (\S+\.mjs)/g)) expect(existsSync(join(ROOT, file!)), file).toBe(true);
    for (const [, dir] of runs.matchAll(/--tree (\S+)/g)) expect(dir).toMatch(/^apps\/[\w-]+\/release$/);
    expect(scripts["version-packages"]).toBe(
      "changeset version && turbo run build && node tooling/release/snippets.mjs",
    );
    expect(scripts["release:npm"]).toBe("turbo run build && changeset publish");
  });

  it("releases the action, the plugin and the component only after the CLI of that version is on npm, with its version as the tag", () => {
    const platforms = workflow.jobs.platforms!;
    expect(platforms.needs).toBe("npm");
    expect(platforms.if).toBe("needs.npm.outputs.cli-version != ''");
    const runs = platforms.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs.map((r) => /--tag "([^"]+)"/.exec(r)?.[1]).filter(Boolean)).toEqual([
      "v${VERSION}",
      "v${VERSION}",
      "${VERSION}",
    ]);
  });
});

// The workflows users copy: parsed as YAML, and checked for what the gate needs to give a true answer
// (the whole history), to publish (the token's permissions) and to run at all (Node 24 actions).
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ACTION_REPOSITORY, actionRef, githubCliWorkflow, githubWorkflow } from "./ci-snippet.js";
import { node20Uses } from "./__fixtures__/node24-actions.js";

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  if?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { "runs-on": string; steps: Step[] }>;
}

const VERSION = "1.4.2";
const workflows = { action: githubWorkflow(VERSION), cli: githubCliWorkflow(VERSION) };

describe.each(Object.entries(workflows))("the %s workflow", (_kind, snippet) => {
  const workflow = parse(snippet.text) as Workflow;
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const gate = steps.find((s) => s.uses?.startsWith(ACTION_REPOSITORY) || s.run?.includes("proofgate check"))!;

  it("runs on pull requests and the merge queue, and goes in .github/workflows", () => {
    expect(Object.keys(workflow.on)).toEqual(["pull_request", "merge_group"]);
    expect(snippet.file).toBe(".github/workflows/proofgate.yml");
  });

  it("checks out the whole history before the gate runs (fetch-depth: 0)", () => {
    const checkout = steps.findIndex((s) => s.uses?.startsWith("actions/checkout@"));
    expect(checkout).toBeGreaterThanOrEqual(0);
    expect(steps[checkout]!.with).toMatchObject({ "fetch-depth": 0 });
    expect(steps.indexOf(gate)).toBeGreaterThan(checkout);
  });

  it("grants the token the check run and the comment, and no more", () => {
    expect(workflow.permissions).toEqual({ contents: "read", checks: "write", "pull-requests": "write" });
    // The action passes its token input (github.token by default); the CLI reads GITHUB_TOKEN.
    if (gate.run) expect(gate.env).toEqual({ GITHUB_TOKEN: "${{ github.token }}" });
    else expect(gate.with?.token).toBeUndefined();
  });

  it("uses only actions that run on Node 24, and proofgate pinned to the release", () => {
    const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []));
    expect(node20Uses(uses, [ACTION_REPOSITORY])).toEqual([]);
    if (gate.uses) expect(gate.uses).toBe(`${ACTION_REPOSITORY}@v${VERSION}`);
    else expect(gate.run).toBe(`npx --yes --package=@proofgate/cli@${VERSION} proofgate check --run`);
  });

  it("uploads the report folder whatever the decision", () => {
    const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"))!;
    expect(upload.if).toBe("always()");
    expect(upload.with).toEqual({ name: "proofgate-report", path: "proofgate-report/" });
  });
});

describe("the Node 24 check itself", () => {
  it("rejects node20 majors, unknown actions and pins that are not a major tag", () => {
    expect(
      node20Uses([
        "actions/checkout@v4",
        "actions/setup-python@v5",
        "actions/upload-artifact@v5",
        "actions/checkout@v7",
        "someone/else@v9",
        "actions/checkout@main",
      ]),
    ).toEqual([
      "actions/checkout@v4",
      "actions/setup-python@v5",
      "actions/upload-artifact@v5",
      "someone/else@v9",
      "actions/checkout@main",
    ]);
  });

  it("a development build pins the action to main, a release to its tag", () => {
    expect(actionRef("0.0.0-dev")).toBe(`${ACTION_REPOSITORY}@main`);
    expect(actionRef("2.0.1")).toBe(`${ACTION_REPOSITORY}@v2.0.1`);
  });
});

describe("the workflow for a package of a monorepo (init in its folder)", () => {
  it("runs the action in the package's folder and uploads the report from there", () => {
    for (const [root, written] of [
      ["packages/api", "packages/api"],
      ["my pkg", '"my pkg"'],
    ] as const) {
      const snippet = githubWorkflow(VERSION, { root });
      expect(snippet.text).toContain(`working-directory: ${written} #`);
      const steps = Object.values((parse(snippet.text) as Workflow).jobs).flatMap((j) => j.steps);
      const gate = steps.find((s) => s.uses?.startsWith(ACTION_REPOSITORY))!;
      expect(gate.with).toEqual({ run: true, "working-directory": root });
      const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"))!;
      expect(upload.with).toEqual({ name: "proofgate-report", path: `${root}/proofgate-report/` });
    }
    // The repository's own gate: no working-directory.
    expect(githubWorkflow(VERSION, { root: "" }).text).toBe(githubWorkflow(VERSION).text);
  });
});

describe("the workflow for a vitest project", () => {
  it("sets up Node.js 24 and installs the project's dependencies, not Python's tools", () => {
    const snippet = githubWorkflow(VERSION, {
      runner: "vitest",
      install: "corepack enable && pnpm install --frozen-lockfile",
    });
    const steps = Object.values((parse(snippet.text) as Workflow).jobs).flatMap((j) => j.steps);
    const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []));
    expect(node20Uses(uses, [ACTION_REPOSITORY])).toEqual([]);
    expect(steps.find((s) => s.uses?.startsWith("actions/setup-node@"))!.with).toEqual({ "node-version": 24 });
    expect(steps.some((s) => s.uses?.startsWith("actions/setup-python@"))).toBe(false);
    const install = steps.findIndex((s) => s.run?.startsWith("corepack enable && pnpm install --frozen-lockfile"));
    expect(install).toBeGreaterThan(0);
    expect(steps.findIndex((s) => s.uses?.startsWith(ACTION_REPOSITORY))).toBeGreaterThan(install);
  });
});

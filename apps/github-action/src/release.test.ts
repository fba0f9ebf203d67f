// The action as a user gets it: the release tree that `pnpm release:action` builds, copied into a fresh
// folder with no node_modules, run as GitHub's runner runs a node24 action (`node main.mjs`, the inputs
// as INPUT_* with action.yml's defaults, GITHUB_* and an event payload, GITHUB_OUTPUT), on a real git
// checkout, against the fake GitHub on 127.0.0.1 that checks every request against GitHub's OpenAPI
// description.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { TOKENS, startFakeGithub, type FakeGithub } from "../../../packages/github/src/__fixtures__/openapi-server.js";
import { ISOLATED_GIT_ENV, scratchRepo, stampEvidence, type ScratchRepo } from "@proofgate/gate/testing";

const HERE = new URL("..", import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(HERE, "../../packages/cli/package.json"), "utf8")) as { version: string })
  .version;

let temp: string;
let action: string;

beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), "proofgate-action-"));
  // The one command's packaging step (`pnpm release:action` is `pnpm build` and then this).
  const built = spawnSync(process.execPath, [join(HERE, "release.mjs"), "--out", join(temp, "built")], {
    encoding: "utf8",
  });
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
  // A fresh folder, as a checkout of the release tag: nothing but the tree.
  action = join(temp, "proofgate-action");
  cpSync(join(temp, "built"), action, { recursive: true });
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [`${name}/`, ...walk(path).map((p) => `${name}/${p}`)] : [name];
  });
}

describe("the release tree", () => {
  it("holds action.yml at its root, on node24, with main.mjs, the bundled CLI, README and LICENSE, and no node_modules", () => {
    const files = walk(action);
    expect([...new Set(files.map((f) => f.replace(/\/.+$/, "/")))].sort()).toEqual([
      "LICENSE",
      "README.md",
      "action.yml",
      "dist/",
      "main.mjs",
    ]);
    expect(files).toContain("dist/proofgate.js");
    expect(files).toContain("dist/hash-worker.cjs");
    expect(files).toContain("dist/shard-worker.cjs");
    expect(files).toContain("dist/sql-wasm.wasm");
    expect(files.some((f) => f.includes("node_modules") || f.startsWith("dist/types"))).toBe(false);
    const meta = parse(readFileSync(join(action, "action.yml"), "utf8")) as {
      runs: { using: string; main: string };
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    expect(meta.runs).toEqual({ using: "node24", main: "main.mjs" });
    expect(Object.keys(meta.outputs)).toEqual(["decision", "exit-code", "proven-coverage", "report"]);
    expect(meta.inputs).toHaveProperty("name");
    // The bundle is the CLI of this release, and runs from the tree alone.
    const version = spawnSync(process.execPath, [join(action, "dist", "proofgate.js"), "--version"], {
      encoding: "utf8",
    });
    expect(version.stdout).toBe(`${VERSION}\n`);
  });
});

const OFF = "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n";
const COLLECTED = "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n";
const coverage = (percent: number) =>
  `{"meta": {"format": 3}, "files": {"src.py": {"summary": {"covered_lines": ${percent}, "num_statements": 100}}}, "totals": {"covered_lines": ${percent}, "num_statements": 100, "percent_covered": ${percent}.0}}\n`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

/** GITHUB_OUTPUT's `key<<DELIM ... DELIM` and `key=value` lines, as the runner reads them. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
  }
  return out;
}

let fake: FakeGithub;
let repo: ScratchRepo;
let base: string;
let head: string;

beforeEach(async () => {
  fake = await startFakeGithub();
  repo = scratchRepo("proofgate-action-checkout-");
  base = repo.commit("base", {
    "proofgate.toml": OFF,
    "freeze.toml": "version = 1\n",
    "collected.txt": COLLECTED,
    "proven_coverage.json": coverage(80),
    ".gitignore": "proofgate-report/\n",
  });
  head = repo.commit("a human change", { "notes.txt": "x = 1\n" });
  fake.commits.add(head);
  // The CI's test job bound the committed evidence to the head (proofgate record), as docs/config.md#evidence asks.
  stampEvidence(repo.dir);
});
afterEach(async () => {
  await fake.close();
  repo.cleanup();
});

/** Runs the action as the runner does: `node main.mjs` in the workspace, inputs from action.yml's defaults and `with`. */
async function runAction(withInputs: Record<string, string> = {}): Promise<Run> {
  const dir = mkdtempSync(join(temp, "run-"));
  const event = join(dir, "event.json");
  writeFileSync(
    event,
    JSON.stringify({
      action: "synchronize",
      number: 42,
      pull_request: {
        number: 42,
        user: { login: "ada", type: "User" },
        base: { ref: "main", sha: base, repo: { full_name: "acme/widgets" } },
        head: { ref: "feature", sha: head, repo: { full_name: "acme/widgets" } },
      },
      repository: { full_name: "acme/widgets", default_branch: "main" },
    }),
  );
  const outputFile = join(dir, "output");
  writeFileSync(outputFile, "");
  const meta = parse(readFileSync(join(action, "action.yml"), "utf8")) as {
    inputs: Record<string, { default?: string }>;
  };
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(meta.inputs)) {
    const value = withInputs[name] ?? input.default ?? "";
    // The runner evaluates expressions in defaults; the only one is the job's token.
    inputs[`INPUT_${name.toUpperCase()}`] = value === "${{ github.token }}" ? TOKENS.write : value;
  }
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    ...ISOLATED_GIT_ENV,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_API_URL: fake.url,
    GITHUB_RUN_ID: "99",
    // A pull request's GITHUB_SHA is the test merge; here the checkout is the head itself.
    GITHUB_SHA: head,
    GITHUB_WORKSPACE: repo.dir,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
    ...inputs,
  };
  // Asynchronous: the fake GitHub answers from this process while the action runs.
  const child = spawn(process.execPath, [join(action, "main.mjs")], { cwd: repo.dir, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((ok) => child.on("close", ok));
  return { code, stdout, stderr, outputs: readOutputs(readFileSync(outputFile, "utf8")) };
}

describe("the action, run from the release tree", () => {
  it("MERGE: a check run on the PR head, one comment, the job summary, and the four outputs", async () => {
    const r = await runAction();
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^proofgate: MERGE /m);
    expect(fake.violations).toEqual([]);
    expect([...fake.checkRuns.values()].map((c) => c.body)).toEqual([
      expect.objectContaining({ name: "proofgate", head_sha: head, conclusion: "success", status: "completed" }),
    ]);
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!).toMatchObject({ issue: 42, user: { login: "github-actions[bot]" } });
    expect(fake.comments[0]!.body).toMatch(/^<!-- proofgate:report .*-->\n### proofgate: ✅ MERGE/);
    expect(fake.requests.every((q) => q.token === TOKENS.write)).toBe(true);
    expect(r.outputs).toEqual({
      decision: "MERGE",
      "exit-code": "0",
      "proven-coverage": "80.00",
      report: join(repo.dir, "proofgate-report", "report.json"),
    });
    expect(JSON.parse(readFileSync(r.outputs.report!, "utf8"))).toMatchObject({ decision: "MERGE", head });
  });

  it("REJECT: exit 1, a failed check run, decision REJECT in the outputs", async () => {
    repo.git(["checkout", "-q", base]);
    repo.git(["checkout", "-q", "-b", "low"]);
    // The floor is the base's: a base that asks for 90% judges this head's 80%.
    const strictBase = repo.commit("floor 90", { "proofgate.toml": `${OFF}\n[coverage]\nmin_proven = 90\n` });
    base = strictBase;
    head = repo.commit("a human change", { "notes.txt": "x = 2\n" });
    fake.commits.add(head);
    stampEvidence(repo.dir);
    const r = await runAction({ comment: "false" });
    expect(r.code).toBe(1);
    expect([...fake.checkRuns.values()].map((c) => [c.body.name, c.body.conclusion, c.body.head_sha])).toEqual([
      ["proofgate", "failure", head],
    ]);
    expect(fake.comments).toEqual([]);
    expect(r.outputs).toMatchObject({ decision: "REJECT", "exit-code": "1", "proven-coverage": "80.00" });
  });

  it("two gates with different names on one PR keep two check runs and two comments; a re-run edits its own", async () => {
    expect((await runAction({ name: "api" })).code).toBe(0);
    expect((await runAction({ name: "web", comment: "true" })).code).toBe(0);
    expect((await runAction({ name: "api" })).code).toBe(0);
    expect(fake.violations).toEqual([]);
    expect([...fake.checkRuns.values()].map((c) => c.body.name)).toEqual(["api", "web", "api"]);
    expect(fake.comments.map((c) => c.body.split("\n")[0])).toEqual([
      "<!-- proofgate:report:api (edited in place by every run; do not copy this line) -->",
      "<!-- proofgate:report:web (edited in place by every run; do not copy this line) -->",
    ]);
    expect(fake.requests.filter((q) => q.operationId === "issues/update-comment")).toHaveLength(1);
  });

  it("two packages of a monorepo by working-directory: each gate judges its folder, under proofgate/<folder>", async () => {
    const pkg = (coverageOf: number) => ({
      "proofgate.toml": OFF,
      "freeze.toml": "version = 1\n",
      "collected.txt": COLLECTED,
      "proven_coverage.json": coverage(coverageOf),
      ".gitignore": "proofgate-report/\n",
    });
    const prefixed = (dir: string, files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([path, text]) => [`${dir}/${path}`, text]));
    base = repo.commit("two packages", { ...prefixed("pkgs/api", pkg(80)), ...prefixed("pkgs/web", pkg(50)) });
    head = repo.commit("a human change in api", { "pkgs/api/notes.txt": "x = 1\n" });
    fake.commits.add(head);
    for (const dir of ["pkgs/api", "pkgs/web"]) stampEvidence(join(repo.dir, dir));
    const api = await runAction({ "working-directory": "pkgs/api" });
    const web = await runAction({ "working-directory": "pkgs/web" });
    expect(api.code, api.stdout + api.stderr).toBe(0);
    expect(web.code, web.stdout + web.stderr).toBe(1);
    expect(fake.violations).toEqual([]);
    expect([...fake.checkRuns.values()].map((c) => [c.body.name, c.body.conclusion])).toEqual([
      ["proofgate/pkgs/api", "success"],
      ["proofgate/pkgs/web", "failure"],
    ]);
    expect(fake.comments.map((c) => c.body.split("\n")[0])).toEqual([
      "<!-- proofgate:report:proofgate/pkgs/api (edited in place by every run; do not copy this line) -->",
      "<!-- proofgate:report:proofgate/pkgs/web (edited in place by every run; do not copy this line) -->",
    ]);
    // Each report is in its folder's out dir, and names the folder its paths are relative to.
    expect(api.outputs.report).toBe(join(repo.dir, "pkgs/api", "proofgate-report", "report.json"));
    expect(JSON.parse(readFileSync(web.outputs.report!, "utf8"))).toMatchObject({
      decision: "REJECT",
      reasons: ["proven_coverage"],
      root: "pkgs/web",
    });
  });

  it("a name no platform can carry is exit 2 before any request: the error in the report, the outputs REJECT", async () => {
    const r = await runAction({ name: "a b" });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/--name "a b" is not a gate name/);
    // A flag the gate cannot use stops it before it publishes: no check run or comment under another name.
    expect(fake.requests).toEqual([]);
    expect(r.outputs).toMatchObject({ decision: "REJECT", "exit-code": "2" });
    expect(JSON.parse(readFileSync(r.outputs.report!, "utf8"))).toMatchObject({
      decision: "REJECT",
      errors: [{ code: "usage" }],
    });
  });

  it("with an empty token input: the summary only, and the note names the action's `token` input", async () => {
    const r = await runAction({ token: "" });
    expect(r.code, r.stdout).toBe(0);
    expect(fake.requests).toEqual([]);
    expect(`${r.stdout}${r.stderr}`).toContain(
      "note: no token: the action's `token` input is empty: the job summary and annotations only, no check run or comment (give the action `with: token: ${{ github.token }}` (its default)",
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain("GITHUB_TOKEN");
  });

  it("writes into out-dir exactly the files its README and action.yml say it writes", async () => {
    const r = await runAction({ "out-dir": "gate-out" });
    expect(r.code, r.stdout).toBe(0);
    const written = readdirSync(join(repo.dir, "gate-out")).sort();
    const readme = readFileSync(join(action, "README.md"), "utf8");
    const row = readme.split("\n").find((line) => line.startsWith("| `out-dir` |"))!;
    expect([...row.matchAll(/`((?:report|badge|index)\.\w+)`/g)].map((m) => m[1]).sort()).toEqual(written);
    const meta = parse(readFileSync(join(action, "action.yml"), "utf8")) as {
      inputs: Record<string, { description: string }>;
    };
    expect(
      [...meta.inputs["out-dir"]!.description.matchAll(/((?:report|badge|index)\.\w+)/g)].map((m) => m[1]).sort(),
    ).toEqual(written);
  });

  it("a bad boolean input is exit 2 with the input named", async () => {
    const r = await runAction({ run: "yes" });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('proofgate: error: input run is "yes", not true or false\n');
    expect(existsSync(join(repo.dir, "proofgate-report"))).toBe(false);
  });
});

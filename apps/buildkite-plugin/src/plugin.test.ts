// The plugin as Buildkite takes it from a release: the repository tree that
// `pnpm release:buildkite-plugin` builds, plugin.yml and the README's examples checked as Buildkite's
// plugin linter checks them, and hooks/command run by bash in a pull request build's environment (a
// real shallow clone of a real origin, the stand-in `buildkite-agent` on PATH, the CLI through a
// stand-in `npx`, the options as BUILDKITE_PLUGIN_PROOFGATE_* variables).
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { writeNpxStandIn } from "../../../packages/cli/src/__fixtures__/npx-stand-in.js";
import { ISOLATED_GIT_ENV, scratchGit, scratchRepo, stampEvidence, type ScratchRepo } from "@proofgate/gate/testing";

const HERE = new URL("..", import.meta.url).pathname;
const ROOT = join(HERE, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
  .version;
const ID = "proofgate/proofgate";

let temp: string;
let plugin: string;
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), "proofgate-plugin-"));
  plugin = join(temp, "proofgate-buildkite-plugin");
  const built = spawnSync(process.execPath, [join(HERE, "release.mjs"), "--out", plugin], { encoding: "utf8" });
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface PluginYml {
  name: string;
  description: string;
  author: string;
  requirements: string[];
  configuration: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
}
const pluginYml = (): PluginYml => parse(readFileSync(join(plugin, "plugin.yml"), "utf8")) as PluginYml;

/** The plugin configs of the README's YAML examples that use `ID#v…`, as the linter collects them. */
function readmeConfigs(): { key: string; config: unknown }[] {
  const readme = readFileSync(join(plugin, "README.md"), "utf8");
  const key = new RegExp(`^${ID}#v.+$`);
  return [...readme.matchAll(/```ya?ml\n+(.*?)\n+```/gs)]
    .map((m) => m[1]!)
    .filter((example) => example.includes(`${ID}#v`))
    .flatMap((example) => {
      const doc = parse(example) as { steps?: { plugins?: unknown }[] } | { plugins?: unknown }[];
      const steps = Array.isArray(doc) ? doc : (doc.steps ?? []);
      return steps.flatMap((step) => {
        expect(Array.isArray(step.plugins) || step.plugins === undefined, "plugins is a list, not a map").toBe(true);
        return ((step.plugins ?? []) as (string | Record<string, unknown>)[]).flatMap((entry) =>
          typeof entry === "string"
            ? key.test(entry)
              ? [{ key: entry, config: null }]
              : []
            : Object.entries(entry)
                .filter(([k]) => key.test(k))
                .map(([k, config]) => ({ key: k, config })),
        );
      });
    });
}

describe("the plugin repository's tree", () => {
  it("holds plugin.yml, an executable hooks/command, README.md and LICENSE at its root", () => {
    expect(readdirSync(plugin, { recursive: true }).map(String).sort()).toEqual([
      "LICENSE",
      "README.md",
      "hooks",
      "hooks/command",
      "plugin.yml",
    ]);
    expect(statSync(join(plugin, "hooks", "command")).mode & 0o111).toBe(0o111);
    expect(spawnSync("bash", ["-n", join(plugin, "hooks", "command")]).status).toBe(0);
  });

  it("plugin.yml has what the linter requires: name, description, author, requirements, a closed configuration schema", () => {
    const yml = pluginYml();
    expect(yml.name).toBe("proofgate");
    expect(yml.description).toMatch(/\w/);
    expect(yml.author).toMatch(/^https:\/\//);
    expect(yml.requirements).toEqual(["git", "npx"]);
    expect(yml.configuration.additionalProperties).toBe(false);
    expect(yml.configuration.required).toEqual([]);
    expect(Object.keys(yml.configuration.properties)).toEqual([
      "version",
      "name",
      "working-directory",
      "shards",
      "download",
      "out-dir",
      "run",
      "fetch-base",
    ]);
  });

  it("the README's examples use the plugin at this release's version, and each validates against plugin.yml's schema", () => {
    const configs = readmeConfigs();
    expect(configs.length).toBeGreaterThanOrEqual(2);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(pluginYml().configuration);
    for (const { key, config } of configs) {
      expect(key).toBe(`${ID}#v${VERSION}`);
      expect(validate(config ?? {}), JSON.stringify(validate.errors)).toBe(true);
    }
    // The schema is not a formality: a typo or a wrong type is refused.
    expect(validate({ shards: "four" })).toBe(false);
    expect(validate({ "fetch-bsae": false })).toBe(false);
    expect(validate({ name: "a b" })).toBe(false);
  });
});

const CONFIG = `[coverage]\nreports = ["coverage.xml"]\nmin_proven = 70\n\n[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n`;
const COBERTURA = join(ROOT, "packages/core/src/coverage/__fixtures__/cobertura-coveragepy-6.5-lines.xml");

interface Build {
  code: number | null;
  log: string;
  calls: { argv: string[]; stdin: string | null }[];
  checkout: string;
  uploads: string;
}

/** An origin with main (the base) and a pull request's branch, and the agent's shallow clone of the branch. */
function pullRequest(minProven = 70): { origin: ScratchRepo; head: string } {
  const origin = scratchRepo("proofgate-plugin-origin-");
  origin.commit("base", {
    "proofgate.toml": CONFIG.replace("min_proven = 70", `min_proven = ${minProven}`),
    "freeze.toml": "version = 1\n",
    "collected.txt": "tests/test_a.py::test_one\n\n1 test collected in 0.01s\n",
    ".gitignore": "proofgate-report/\ncoverage.xml\n",
  });
  origin.commit("main moves on", { README: "main\n" });
  origin.git(["checkout", "-q", "-b", "feature", "HEAD~1"]);
  origin.commit("a human change", { "notes.txt": "x = 1\n" });
  const head = origin.commit("another", { "notes.txt": "x = 2\n" });
  origin.git(["checkout", "-q", "main"]);
  return { origin, head };
}

/** Runs hooks/command as the agent does: in the checkout, with the plugin's options as environment variables. */
async function runHook(
  options: Record<string, string>,
  minProven = 70,
  prepare: (checkout: string) => void = () => {},
): Promise<Build> {
  const { origin, head } = pullRequest(minProven);
  const dir = mkdtempSync(join(temp, "build-"));
  const checkout = join(dir, "checkout");
  // The agent's clone: shallow, of the pull request's branch only.
  scratchGit(dir, ["clone", "-q", "--depth", "1", "--branch", "feature", `file://${origin.dir}`, checkout]);
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "agent.mjs"),
    readFileSync(join(ROOT, "packages/buildkite/src/__fixtures__/buildkite-agent.mjs")),
  );
  writeFileSync(
    join(bin, "buildkite-agent"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(bin, "agent.mjs"))} "$@"\n`,
  );
  chmodSync(join(bin, "buildkite-agent"), 0o755);
  // The test steps bound their evidence to the commit (proofgate record): the stamp for the committed
  // universe and the coverage report the hook downloads, byte for byte.
  cpSync(COBERTURA, join(checkout, "coverage.xml"));
  stampEvidence(checkout, ["collected.txt", "coverage.xml"]);
  rmSync(join(checkout, "coverage.xml"));
  prepare(checkout);
  writeNpxStandIn(bin, VERSION);
  // The artifact the test steps uploaded: the proof run's coverage.
  const artifacts = join(dir, "artifacts");
  mkdirSync(artifacts);
  cpSync(COBERTURA, join(artifacts, "coverage.xml"));
  const uploads = join(dir, "uploads");
  const log = join(dir, "agent.jsonl");
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: dir,
    ...ISOLATED_GIT_ENV,
    BUILDKITE: "true",
    CI: "true",
    BUILDKITE_AGENT_ACCESS_TOKEN: "agent-token",
    BUILDKITE_JOB_ID: "0190-job",
    BUILDKITE_BUILD_URL: "https://buildkite.com/acme/widgets/builds/12",
    BUILDKITE_REPO: "git@github.com:acme/widgets.git",
    BUILDKITE_COMMIT: head,
    BUILDKITE_BRANCH: "feature",
    BUILDKITE_PULL_REQUEST: "7",
    BUILDKITE_PULL_REQUEST_BASE_BRANCH: "main",
    BUILDKITE_PIPELINE_DEFAULT_BRANCH: "main",
    STUB_AGENT_LOG: log,
    STUB_AGENT_ARTIFACTS: artifacts,
    STUB_AGENT_UPLOADS: uploads,
    ...options,
  };
  const child = spawn("bash", [join(plugin, "hooks", "command")], { cwd: checkout, env });
  let text = "";
  child.stdout.on("data", (c: Buffer) => (text += c.toString()));
  child.stderr.on("data", (c: Buffer) => (text += c.toString()));
  const code = await new Promise<number | null>((ok) => child.on("close", ok));
  origin.cleanup();
  const calls = existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { argv: string[]; stdin: string | null })
    : [];
  return { code, log: text, calls, checkout, uploads };
}

describe("hooks/command in a pull request build", () => {
  it("unshallows, fetches the base, downloads the shard, runs the pinned CLI under the gate's name, and uploads the report", async () => {
    const b = await runHook({
      BUILDKITE_PLUGIN_PROOFGATE_NAME: "api",
      BUILDKITE_PLUGIN_PROOFGATE_DOWNLOAD: "coverage.xml",
    });
    expect(b.code, b.log).toBe(0);
    expect(b.log).toContain("--- :git: git fetch --unshallow");
    expect(b.log).toContain("--- :git: git fetch origin main");
    expect(b.log).toContain("+++ :lock: proofgate check --out-dir proofgate-report --name api");
    expect(b.log).toMatch(/^proofgate: MERGE /m);
    expect(scratchGit(b.checkout, ["rev-parse", "--is-shallow-repository"]).trim()).toBe("false");
    expect(b.calls.map((c) => c.argv)).toEqual([
      ["artifact", "download", "coverage.xml", "."],
      ["annotate", "--style", "success", "--context", "api"],
      ["meta-data", "set", "api:decision", "MERGE"],
      ["meta-data", "set", "api:proven_coverage", "73.33"],
      ["artifact", "upload", "proofgate-report/**/*"],
    ]);
    expect(b.calls[1]!.stdin).toMatch(/^### proofgate: ✅ MERGE/);
    expect(readdirSync(join(b.uploads, "proofgate-report")).sort()).toEqual([
      "badge.json",
      "badge.svg",
      "index.html",
      "report.json",
      "report.md",
    ]);
  });

  it("a REJECT exits 1 and still uploads the report; the default name keeps the context proofgate", async () => {
    const b = await runHook({ BUILDKITE_PLUGIN_PROOFGATE_DOWNLOAD_0: "coverage.xml" }, 90);
    expect(b.code, b.log).toBe(1);
    expect(b.calls.map((c) => c.argv.slice(0, 5))).toEqual([
      ["artifact", "download", "coverage.xml", "."],
      ["annotate", "--style", "error", "--context", "proofgate"],
      ["meta-data", "set", "proofgate:decision", "REJECT"],
      ["meta-data", "set", "proofgate:proven_coverage", "73.33"],
      ["artifact", "upload", "proofgate-report/**/*"],
    ]);
  });

  it("uploads the report folder's subfolders too (with --run: the proof run's plugin and record)", async () => {
    const b = await runHook({ BUILDKITE_PLUGIN_PROOFGATE_DOWNLOAD: "coverage.xml" }, 70, (checkout) => {
      mkdirSync(join(checkout, "proofgate-report", "pytest"), { recursive: true });
      writeFileSync(join(checkout, "proofgate-report", "pytest", "proofgate_run_0123.py"), "# the run's plugin\n");
    });
    expect(b.code, b.log).toBe(0);
    expect(readdirSync(join(b.uploads, "proofgate-report")).sort()).toEqual([
      "badge.json",
      "badge.svg",
      "index.html",
      "pytest",
      "report.json",
      "report.md",
    ]);
    expect(readdirSync(join(b.uploads, "proofgate-report", "pytest"))).toEqual(["proofgate_run_0123.py"]);
  });

  it("passes working-directory as --root: the package's folder is the project", async () => {
    const b = await runHook({
      BUILDKITE_PLUGIN_PROOFGATE_WORKING_DIRECTORY: ".",
      BUILDKITE_PLUGIN_PROOFGATE_DOWNLOAD: "coverage.xml",
    });
    expect(b.code, b.log).toBe(0);
    expect(b.log).toContain("+++ :lock: proofgate check --out-dir proofgate-report --root .");
    const refused = await runHook({ BUILDKITE_PLUGIN_PROOFGATE_WORKING_DIRECTORY: "--help" });
    expect(refused.code).toBe(2);
    expect(refused.log).toBe("proofgate plugin: working-directory must not start with -\n");
    expect(refused.calls).toEqual([]);
  });

  it("refuses a version that is not a release, before it runs anything", async () => {
    const b = await runHook({ BUILDKITE_PLUGIN_PROOFGATE_VERSION: "latest" });
    expect(b.code).toBe(2);
    expect(b.log).toBe("proofgate plugin: version must be a release like 0.1.0, not latest\n");
    expect(b.calls).toEqual([]);
  });
});

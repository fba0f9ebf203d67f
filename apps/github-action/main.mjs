// The action's entry: GitHub runs this file with no arguments and the inputs as INPUT_* variables, so it
// turns them into `proofgate check` flags and runs the bundled CLI. The exit code is the gate's: 0 MERGE,
// 1 REJECT, 2 could not evaluate. Policy comes from the base revision's proofgate.toml, never from here.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// A release copies the CLI bundle beside this file; in the monorepo it is packages/cli/dist after `pnpm build`.
const bundle = [
  join(here, "dist", "proofgate.js"),
  join(here, "..", "..", "packages", "cli", "dist", "proofgate.js"),
].find((p) => existsSync(p));
if (!bundle) {
  process.stderr.write(
    "proofgate: error: the CLI bundle is missing (dist/proofgate.js beside the action, or packages/cli/dist/proofgate.js): build it with pnpm build\n",
  );
  process.exit(2);
}

const input = (name) => (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
const flag = (name) => {
  const value = input(name).toLowerCase();
  if (value === "" || value === "true" || value === "false") return value === "true";
  process.stderr.write(`proofgate: error: input ${name} is ${JSON.stringify(input(name))}, not true or false\n`);
  process.exit(2);
};

const args = [
  "check",
  "--platform",
  "github",
  "--out-dir",
  input("out-dir") || "proofgate-report",
  "--format",
  input("format") || "text",
];
if (flag("run")) args.push("--run");
if (input("comment") !== "" && !flag("comment")) args.push("--no-comment");
if (input("base")) args.push("--base", input("base"));
if (input("head")) args.push("--head", input("head"));

const cwd = resolve(process.env.GITHUB_WORKSPACE ?? ".", input("working-directory") || ".");
const env = { ...process.env };
if (input("token")) env.GITHUB_TOKEN = input("token");
const result = spawnSync(process.execPath, [bundle, ...args], { cwd, env, stdio: "inherit" });
if (process.env.GITHUB_OUTPUT)
  appendFileSync(
    process.env.GITHUB_OUTPUT,
    `report=${join(cwd, input("out-dir") || "proofgate-report", "report.json")}\n`,
  );
process.exit(result.status ?? 2);

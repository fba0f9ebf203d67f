// The action's entry: GitHub runs this file with no arguments and the inputs as INPUT_* variables, so it
// turns them into `proofgate check` flags and runs the bundled CLI. The exit code is the gate's: 0 MERGE,
// 1 REJECT, 2 could not evaluate. Policy comes from the base revision's proofgate.toml, never from here.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// A release holds the CLI bundle beside this file (dist/); in the monorepo it is packages/cli/dist after `pnpm build`.
const bundle = [
  join(here, "dist", "proofgate.js"),
  join(here, "..", "..", "packages", "cli", "dist", "proofgate.js"),
].find((p) => existsSync(p));
if (!bundle) {
  process.stderr.write(
    "proofgate: error: the CLI bundle is missing (dist/proofgate.js beside the action, or packages/cli/dist/proofgate.js): build the release tree with pnpm release:action\n",
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

const outDir = input("out-dir") || "proofgate-report";
// The gate runs in working-directory, and that folder is the project (--root .): the checkout's root, or
// a package's folder of a monorepo, whose paths the CLI maps to the repository's (check --root).
const args = [
  "check",
  "--platform",
  "github",
  "--root",
  ".",
  "--out-dir",
  outDir,
  "--format",
  input("format") || "text",
];
if (flag("run")) args.push("--run");
if (input("comment") !== "" && !flag("comment")) args.push("--no-comment");
if (input("base")) args.push("--base", input("base"));
if (input("head")) args.push("--head", input("head"));
// The CLI checks the name (exit 2 with the fix for one no platform can carry); none: proofgate, or
// proofgate/<folder> for a package.
if (input("name")) args.push("--name", input("name"));

const cwd = resolve(process.env.GITHUB_WORKSPACE ?? ".", input("working-directory") || ".");
// The marker lets the CLI name the `token` input (not `env: GITHUB_TOKEN`) when the token is missing.
const env = { ...process.env, PROOFGATE_GITHUB_ACTION: "1" };
if (input("token")) env.GITHUB_TOKEN = input("token");
const result = spawnSync(process.execPath, [bundle, ...args], { cwd, env, stdio: "inherit" });
const exitCode = result.status ?? 2;

// The outputs come from report.json, which the gate writes even when it could not evaluate. MERGE only
// when the report says so and the gate exited 0: a report the job could not stand behind is a REJECT.
const reportPath = join(cwd, outDir, "report.json");
let report = {};
try {
  report = JSON.parse(readFileSync(reportPath, "utf8"));
} catch {
  // no report (the CLI could not start, or the out dir is unwritable): decision REJECT, coverage empty
}
const coverage = report.proven_coverage_percent;
const outputs = {
  decision: exitCode === 0 && report.decision === "MERGE" ? "MERGE" : "REJECT",
  "exit-code": String(exitCode),
  "proven-coverage": typeof coverage === "number" && Number.isFinite(coverage) ? coverage.toFixed(2) : "",
  report: reportPath,
};
if (process.env.GITHUB_OUTPUT) {
  // The multi-line form for every value: a path may hold any character, and a delimiter no value holds ends it.
  const delimiter = `proofgate_${randomBytes(12).toString("hex")}`;
  appendFileSync(
    process.env.GITHUB_OUTPUT,
    Object.entries(outputs)
      .map(([key, value]) => `${key}<<${delimiter}\n${value}\n${delimiter}\n`)
      .join(""),
  );
}
process.exit(exitCode);

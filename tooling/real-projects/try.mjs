#!/usr/bin/env node
// Tries proofgate on a public project as a new user would: adopt it with `init` (a human's commit), then
// one agent commit per scenario from the adoption (a harmless change, a regression, an unledgered skip,
// a pragma), each judged by `check --run --base <adoption>`. Prints a Markdown table of the verdicts and
// exits 1 when one differs from the expected verdict in projects.json, 2 on bad usage.
//
//   node tooling/real-projects/try.mjs <name> <clone>    (a clone of the project at the commit named in projects.json)
//
// It commits into the clone, creates branches `proofgate-try-*` and may create a venv inside it (`setup`):
// give it a throwaway clone. Needs `pnpm build` first (it runs packages/cli/dist/proofgate.js).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "..", "packages", "cli", "dist", "proofgate.js");
const projects = JSON.parse(readFileSync(join(here, "projects.json"), "utf8"));

const usage = (message) => {
  process.stderr.write(
    `try.mjs: ${message}\nusage: node tooling/real-projects/try.mjs <${Object.keys(projects).join("|")}> <clone>\n`,
  );
  process.exit(2);
};
const [name, cloneArg] = process.argv.slice(2);
const project = projects[name];
if (!project || !cloneArg)
  usage(project ? "the clone's folder is missing" : `unknown project ${JSON.stringify(name ?? "")}`);
if (!existsSync(cli)) usage(`${cli} is missing: run pnpm build first`);
const dir = resolve(cloneArg);

// Nothing from the caller's shell steers Python, pytest or coverage.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(PYTHON|PYTEST_|COVERAGE_)/.test(k)),
);
const HUMAN = {
  GIT_AUTHOR_NAME: "Ada Human",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada Human",
  GIT_COMMITTER_EMAIL: "ada@example.com",
};
const AGENT = {
  GIT_AUTHOR_NAME: "coder-agent[bot]",
  GIT_AUTHOR_EMAIL: "agent@example.com",
  GIT_COMMITTER_NAME: "coder-agent[bot]",
  GIT_COMMITTER_EMAIL: "agent@example.com",
};

function run(cmd, args, env = {}, { allowFail = false } = {}) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", env: { ...cleanEnv, ...env }, maxBuffer: 256 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0 && !allowFail) {
    process.stderr.write(`try.mjs: ${cmd} ${args.join(" ")} exited ${r.status}\n${r.stdout}${r.stderr}`);
    process.exit(2);
  }
  return r;
}
const git = (args, env) => run("git", args, env).stdout.trim();

if (git(["rev-parse", "HEAD"]) !== project.commit)
  usage(`${dir} is not at ${project.commit} (${project.repository}); check it out first`);
if (git(["status", "--porcelain"]) !== "") usage(`${dir} has changes: give it a fresh clone`);

for (const command of project.setup ?? []) run("bash", ["-c", command]);
const python = project.python ?? "/usr/bin/python3";
const pathEnv = project.path ? { PATH: `${resolve(dir, project.path)}:${process.env.PATH}` } : {};

// Adoption: init, the project's leases (a test that cannot pass here), a human commit with the trailer.
const initArgs = [cli, "init", "--python", python, "--platform", "local"];
let init = run(process.execPath, initArgs, pathEnv, { allowFail: true });
// `adopt`: the edits a user makes to what init wrote (e.g. a command init could not get right), then
// init again, which keeps the files and checks the collection; init may fail before them, not after.
const applyEdits = (label, edits) => {
  for (const edit of edits) {
    const path = join(dir, edit.file);
    const text = readFileSync(path, "utf8");
    if (text.split(edit.find).length !== 2)
      usage(`${label}: ${JSON.stringify(edit.find)} is not in ${edit.file} exactly once`);
    writeFileSync(path, text.replace(edit.find, edit.replace));
  }
};
if (project.adopt) {
  if (init.status !== 0) process.stderr.write(`try.mjs: init exited ${init.status} before the adoption's edits\n`);
  applyEdits("adopt", project.adopt.edits);
  init = run(process.execPath, initArgs, pathEnv, { allowFail: true });
}
if (init.status !== 0) {
  process.stderr.write(`try.mjs: init exited ${init.status}\n${init.stdout}${init.stderr}`);
  process.exit(1);
}
if (project.leases) {
  const ledger = readFileSync(join(dir, "freeze.toml"), "utf8").replace(
    /^max_active_leases = \d+/m,
    `max_active_leases = ${project.leases.length}`,
  );
  writeFileSync(join(dir, "freeze.toml"), ledger);
  for (const lease of project.leases)
    appendFileSync(
      join(dir, "freeze.toml"),
      `\n[[leases]]\nnodeid = ${JSON.stringify(lease.nodeid)}\nowner = "ada"\nreason = ${JSON.stringify(lease.reason)}\nexpires = "2099-01-01"\n`,
    );
}
git(["add", "-A"]);
git(["commit", "-qm", "Adopt proofgate", "-m", "Gate-Change: human\nFreeze-Lease: human"], HUMAN);
const adoption = git(["rev-parse", "HEAD"]);

const rows = [];
let wrong = 0;
for (const [scenario, spec] of Object.entries(project.scenarios)) {
  git(["checkout", "-q", "-B", `proofgate-try-${scenario}`, adoption]);
  applyEdits(scenario, spec.edits);
  git(["commit", "-qam", `agent: ${scenario}`], AGENT);
  const started = Date.now();
  const check = run(process.execPath, [cli, "check", "--run", "--base", adoption, "--platform", "local"], pathEnv, {
    allowFail: true,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let report;
  try {
    report = JSON.parse(readFileSync(join(dir, "proofgate-report", "report.json"), "utf8"));
  } catch {
    report = { decision: "no report", reasons: [] };
  }
  const codes = [...new Set((report.reasons ?? []).map((r) => (typeof r === "string" ? r : r.code)))];
  const ok =
    check.status === spec.expect.exit &&
    report.decision === spec.expect.decision &&
    (spec.expect.reasons ?? []).every((code) => codes.includes(code)) &&
    (spec.expect.decision === "REJECT" || codes.length === 0);
  if (!ok) {
    wrong++;
    process.stderr.write(`\n--- ${name} ${scenario}: exit ${check.status}\n${check.stdout}${check.stderr}\n`);
  }
  rows.push(
    `| ${name} | ${scenario} | ${spec.what} | ${check.status} ${report.decision} | ${codes.join(", ") || "none"} | ${ok ? "right" : "WRONG"} | ${seconds} s |`,
  );
  git(["checkout", "-q", "--", "."]);
}
git(["checkout", "-q", "--detach", adoption]);

process.stdout.write(
  `${project.repository} at ${project.commit} (${project.layout})\n\n| project | scenario | the agent's commit | verdict | reasons | | time |\n| --- | --- | --- | --- | --- | --- | --- |\n${rows.join("\n")}\n`,
);
process.exit(wrong ? 1 : 0);

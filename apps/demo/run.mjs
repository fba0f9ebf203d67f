// proofgate's demo. Builds a throwaway git repository from apps/demo/project (a small Python project with a
// freeze ledger, golden fixtures and their lock, a property suite and its seeds, and proofgate.toml), commits
// the base, then the same patch twice (patch.mjs):
//   1. by a coding agent alone: `proofgate check` says REJECT, and why;
//   2. made right: the lease, the golden file and the seed committed by a human with the trailers: MERGE.
//
//   node run.mjs          judges from artifacts recorded by real pytest/coverage.py runs (apps/demo/recorded,
//                         record.sh re-records them). Never starts Python.
//   node run.mjs --live   `proofgate check --run` runs [commands] of proofgate.toml: real pytest and coverage.py
//                         (/usr/bin/python3 with pytest-cov).
//   --record DIR          with --live: copy the artifacts of the MERGE run into DIR (record.sh does this).
//   --keep                keep the throwaway repository and print where it is.
// Exits 0 when every scenario ends as it should, 1 otherwise, 2 when it cannot run.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { STEPS, cli, writeBase } from "./patch.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const live = argv.includes("--live");
const keep = argv.includes("--keep");
const recordAt = argv.includes("--record") ? argv[argv.indexOf("--record") + 1] : undefined;
const unknown = argv.filter((a, i) => !["--live", "--keep", "--record"].includes(a) && argv[i - 1] !== "--record");
if (unknown.length > 0 || (argv.includes("--record") && (!recordAt || !live))) {
  console.error("usage: node run.mjs [--live [--record DIR]] [--keep]");
  process.exit(2);
}

/** What the proof run and the property suite write (proofgate.toml), and the whole suite's coverage (the "badge"). */
const ARTIFACTS = ["collected.txt", "proven_coverage.json", "proof-results.xml", "property-results.xml"];
const RAW = "raw_coverage.json";
const RECORDED = join(here, "recorded");
const PY = "/usr/bin/python3";
/** The whole suite's coverage, frozen tests included: what a badge would show (live only: starts Python). */
const RAW_RUN = `${PY} -m pytest -q -p no:cacheprovider --cov=invoicing --cov-branch --cov-report= && ${PY} -m coverage json -q -o ${RAW}`;

if (!existsSync(cli)) {
  console.error(`demo: ${cli} is missing: build first (pnpm build), or run \`pnpm demo\`, which builds`);
  process.exit(2);
}
if (live) {
  const probe = spawnSync(PY, ["-c", "import pytest, pytest_cov, coverage"], { encoding: "utf8" });
  if (probe.status !== 0) {
    const why = probe.error ? probe.error.message : probe.stderr.trim().split("\n").pop();
    console.error(`demo:live runs pytest and coverage.py with ${PY}, which cannot import them (${why}).`);
    console.error(
      "Install them (Debian/Ubuntu: apt-get install python3-pytest python3-pytest-cov python3-coverage), or run `pnpm demo`, which needs no Python.",
    );
    process.exit(2);
  }
} else {
  for (const name of [...ARTIFACTS, RAW]) {
    if (!existsSync(join(RECORDED, name))) {
      console.error(`demo: the recorded artifact ${join(RECORDED, name)} is missing: run apps/demo/record.sh`);
      process.exit(2);
    }
  }
}

const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
const sgr = (code) => (s) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
const bold = sgr("1");
const dim = sgr("2");
const green = sgr("32");
const red = sgr("31");

const HUMAN = { name: "Ada Lovelace", email: "ada@example.org" };
const AGENT = { name: "coding-agent[bot]", email: "coding-agent[bot]@users.noreply.github.com" };
// Git never reads this machine's config; identities are explicit.
const ISOLATED = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

const work = mkdtempSync(join(tmpdir(), "proofgate-demo-"));

function git(args, { who = HUMAN, input } = {}) {
  const r = spawnSync("git", args, {
    cwd: work,
    input,
    encoding: "utf8",
    env: {
      ...process.env,
      ...ISOLATED,
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout.trim();
}

function commit(who, subject, body, trailer) {
  git(["add", "-A"]);
  const message = [subject, "", body, ...(trailer ? ["", trailer] : [])].join("\n");
  git(["commit", "-q", "-F", "-"], { who, input: `${message}\n` });
}

function proofgate(args) {
  console.log(`\n${bold(`$ proofgate ${args.join(" ")}`)}`);
  const env = { ...process.env, ...ISOLATED, ...(color ? { FORCE_COLOR: "1" } : {}) };
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: work,
    encoding: "utf8",
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The patch's commits, oldest first: who wrote each, what it says, its trailers. */
function showLog(base) {
  const lines = git([
    "log",
    "--reverse",
    "--format=%h%x09%an%x09%s%x09%(trailers:only,unfold,separator=%x2C )",
    `${base}..HEAD`,
  ]).split("\n");
  for (const line of lines) {
    const [sha, author, subject, trailers] = line.split("\t");
    const tag = author.includes("[bot]") ? red("agent") : green("human");
    console.log(`  ${sha}  ${tag}  ${author.padEnd(18)} ${subject}${trailers ? `  ${bold(`[${trailers}]`)}` : ""}`);
  }
}

/**
 * Puts the proof run's artifacts in the work tree: the recorded ones, or none (live: check --run writes them).
 * The recorded ones come in as a CI's own test job's would: through `proofgate record`, which binds the
 * files the command wrote to the commit checked out (docs/config.md#evidence); here the command copies them.
 */
function stageArtifacts() {
  for (const name of [...ARTIFACTS, RAW, "proofgate-evidence.json"]) rmSync(join(work, name), { force: true });
  // Live, the whole suite's run ([coverage] full_report) is a CI test job's: recorded here, then
  // `check --run` makes the proof run itself. Recorded: every artifact is copied in.
  const command = live
    ? RAW_RUN
    : `cp ${[...ARTIFACTS, RAW].map((name) => JSON.stringify(join(RECORDED, name))).join(" ")} .`;
  const r = proofgate(["record", "--", command]);
  if (r.code !== 0) {
    process.stdout.write(r.out + r.err);
    console.error(red("demo: `proofgate record` could not bind the recorded artifacts"));
    process.exit(1);
  }
}

const failures = [];
function expect(what, ok) {
  console.log(ok ? green(`✔ as expected: ${what}`) : red(`✘ NOT as expected: ${what}`));
  if (!ok) failures.push(what);
}

/** Runs `proofgate check` on the branch's head and returns report.json. */
function check(base) {
  stageArtifacts();
  const r = proofgate(["check", "--base", base.slice(0, 12), "--platform", "local", ...(live ? ["--run"] : [])]);
  if (r.err.trim()) process.stdout.write(dim(r.err.replace(/^/gm, "  ").replace(/ +$/, "")));
  process.stdout.write(r.out);
  const report = JSON.parse(readFileSync(join(work, "proofgate-report/report.json"), "utf8"));
  return { ...r, report };
}

/** Commits the patch on a new branch from the base: each step by `whoFor(step)`, with the trailer it gets. */
function commitPatch(branch, base, whoFor) {
  git(["checkout", "-q", "-b", branch, base]);
  for (const step of STEPS) {
    step.apply(work);
    const { who, trailer } = whoFor(step);
    commit(who, step.subject, step.body, trailer);
  }
  showLog(base);
}

let exit = 0;
try {
  console.log(bold("proofgate demo: may an agent's patch merge?"));
  console.log(`A throwaway git repository (${work}) with a small Python project: a freeze ledger,`);
  console.log("golden fixtures pinned by fixtures.lock, a property suite with a seed corpus, and proofgate.toml.");
  console.log(
    live
      ? "Live: `proofgate check --run` runs pytest and coverage.py itself."
      : "Evidence: artifacts recorded from real pytest and coverage.py runs (apps/demo/recorded); `pnpm demo:live` runs them.",
  );

  git(["init", "-q", "-b", "main", "."]);
  writeBase(work);
  commit(
    HUMAN,
    "invoicing: the base",
    "Two frozen tests, two golden invoices, five property seeds, and the gate's policy.",
  );
  const base = git(["rev-parse", "HEAD"]);
  console.log(`\nbase ${base.slice(0, 12)} (main), committed by ${HUMAN.name}`);

  // 1. The agent alone.
  console.log(`\n${bold("== 1. A coding agent's patch: the tests pass, and it changes what proves them")}`);
  console.log("It freezes one more test, changes the JPY rendering, rewrites that golden file with its lock, and");
  console.log("drops a property seed. Every commit is by coding-agent[bot]:");
  commitPatch("agent-patch", base, () => ({ who: AGENT }));
  let r = check(base);
  const expected = ["agent_added_lease", "fixture_digest", "seed_rewrite"];
  expect(
    `REJECT (exit 1) for ${expected.join(", ")}`,
    r.code === 1 && r.report.decision === "REJECT" && r.report.reasons.join() === expected.join(),
  );
  console.log(
    dim("  agent_added_lease: an agent froze a test; fixture_digest: an agent changed a golden file and its lock;"),
  );
  console.log(
    dim("  seed_rewrite: an agent deleted a property seed. None of these is a failing test: each is a change to"),
  );
  console.log(
    dim("  what the tests prove, so it needs a human's say-so. (The new lease stays within max_active_leases = 3.)"),
  );

  // 2. The same changes, made right.
  console.log(`\n${bold("== 2. The same changes, made right")}`);
  console.log("The agent still writes the code; a human commits the lease, the golden file and the seed deletion,");
  console.log("each with the trailer that says a human approved it:");
  commitPatch("made-right", base, (step) =>
    step.trailer ? { who: HUMAN, trailer: `${step.trailer}: human` } : { who: AGENT },
  );
  const sameTree = git(["rev-parse", "made-right^{tree}"]) === git(["rev-parse", "agent-patch^{tree}"]);
  expect("both heads have the same files", sameTree);
  r = check(base);
  const merged = r.report;
  expect("MERGE (exit 0)", r.code === 0 && r.report.decision === "MERGE" && r.report.reasons.length === 0);
  const proven = r.report.proven_coverage_percent;
  const floor = r.report.min_proven_coverage_percent;

  if (recordAt) {
    const to = resolve(recordAt);
    mkdirSync(to, { recursive: true });
    // JUnit's hostname attribute is the recording machine's name: not evidence, and not for the repository.
    for (const name of [...ARTIFACTS, RAW])
      writeFileSync(
        join(to, name),
        readFileSync(join(work, name), "utf8").replace(/ hostname="[^"]*"/g, ' hostname="recorder"'),
      );
    console.log(`\nrecorded ${[...ARTIFACTS, RAW].join(", ")} into ${to}`);
  }

  // 3. A closer look at the merged head.
  console.log(`\n${bold("== 3. A closer look at the merged head")}`);
  r = proofgate(["ledger", "list", "--collected", "collected.txt"]);
  process.stdout.write(r.out + dim(r.err));
  expect("ledger list exits 0", r.code === 0);

  r = proofgate(["deselect"]);
  process.stdout.write(r.out + dim(r.err));
  expect(
    "deselect warns that pytest's --deselect (a prefix match) would also drop test_invoice_total_currency_round_half",
    r.code === 0 && r.err.includes("test_invoice_total_currency_round_half"),
  );

  const raw = JSON.parse(readFileSync(join(work, RAW), "utf8")).totals.percent_covered;
  console.log(`\nA coverage badge from the whole suite, frozen tests included, would show ${raw.toFixed(2)}%.`);
  console.log(`Proven coverage, from the tests that are not frozen: ${proven.toFixed(2)}% (min_proven: ${floor}%).`);
  expect("proven coverage is below the whole suite's", typeof proven === "number" && proven < raw);
  const cov = merged.coverage;
  expect(
    "the report puts the same raw figure beside proven, and the hidden debt in points",
    cov.raw?.percent_covered === raw && Math.abs(cov.hidden_debt_points - (raw - proven)) < 1e-9,
  );
  const only = cov.frozen_only;
  console.log(`\nWhat the frozen tests hide: ${only.lines} lines and ${only.branches} branches only they run:`);
  for (const f of only.files)
    for (const x of f.ranges) console.log(`  ${f.path}:${x.start === x.end ? x.start : `${x.start}-${x.end}`}`);
  expect("the frozen-only lines are listed per file", only.lines > 0 && only.files.length > 0);
  const patch = cov.patch;
  console.log(
    `Proven patch coverage: ${patch.percent === null ? `n/a (${patch.not_applicable})` : `${patch.percent.toFixed(2)}% (${patch.covered} of ${patch.coverable} changed statements)`}`,
  );
  expect("the patch has a proven patch coverage figure", patch !== null && patch.coverable > 0);
  const html = join(work, "proofgate-report/index.html");
  console.log(`The HTML view (proofgate-report/index.html, with badge.json and badge.svg) shows it line by line.`);
  expect(
    "the HTML view and the badge are written beside report.json",
    existsSync(html) && existsSync(join(work, "proofgate-report/badge.svg")),
  );
} catch (error) {
  console.error(red(`demo: ${error instanceof Error ? error.stack : String(error)}`));
  exit = 2;
} finally {
  if (keep) console.log(`\nkept the repository: ${work}`);
  else removeTree(work);
}

/** Removes the repository, including the read-only seed folders that `check --run` writes. */
function removeTree(dir) {
  const walk = (path) => {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  rmSync(dir, { recursive: true, force: true });
}

if (exit === 0 && failures.length > 0) exit = 1;
if (exit === 0) console.log(`\n${bold(green("demo: every scenario ended as expected"))}`);
else if (failures.length > 0) console.error(red(`\ndemo: unexpected outcome: ${failures.join("; ")}`));
process.exit(exit);

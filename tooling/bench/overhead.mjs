#!/usr/bin/env node
// What `proofgate check --run` costs over the tests' own run (issue 23, "Cost close to the tests' own"):
// the plain `python -m pytest --cov=<pkg> --cov-branch` of a project against `proofgate check --run` on an
// agent's patch to it, on the end-to-end project's shape (e2e-project.mjs) and on real public pytest
// suites pinned by commit, with the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3.
// The goal: check --run at most 1.10x the plain run plus 1 s (median of at least 5 runs).
//
//   pnpm build && pnpm --filter @proofgate/bench bench:overhead                 # from the repo root
//   node tooling/bench/overhead.mjs --runs 5 --repos /work/.mirror --baseline-cli /tmp/pg-main/packages/cli/dist/proofgate.js
//
// Options: --runs N (default 5, at least 5), --python PATH (default /usr/bin/python3), --cli PATH (default
// packages/cli/dist/proofgate.js), --baseline-cli PATH (another build, timed in the same rounds), --repos
// DIR (where the real suites' git repositories are: DIR/<owner>+<name>/repo, as the fetch tool leaves them,
// or DIR/<name>, a clone; default /work/.mirror), --only NAME[,NAME] (e2e, more-itertools, pyjwt), --keep.
// --variants NAME[,NAME]: the configurations measured, each in its own copy of every project: `beside` (the
// default, as init writes it: [commands] collect_beside_proof = true, the head's collection starting with the
// proof run) and `before` (the collection, then the proof run, as before init turned that setting on).
//
// The script builds each project itself: the upstream commit checked out as `main`, then a human commit
// adding proofgate.toml (the init template's commands: collect, then the proof run with pytest-cov and
// `coverage json`), freeze.toml and .gitignore (the base), then an agent's commit changing one source line
// (the head). Each round runs, per project, the plain run and `check --run --verbose` (and the baseline
// build), alternating the order every round; every check's exit code and reasons must be the warm-up's.
// The per-step split is the gate's own: the report's commands[].seconds and --verbose's lines.
// Output: Markdown on stdout, JSON under tooling/bench/results/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV, PATCHES, git, makeProject } from "./e2e-project.mjs";
import {
  absolutePath,
  fromRoot,
  interleave,
  machineInfo,
  machineLine,
  makeFail,
  median,
  parseOptions,
  publish,
  root,
  run,
  stats,
  table,
  wholeNumber,
} from "./lib.mjs";

const fail = makeFail("bench:overhead");

/** The goal: check --run within RATIO x the plain run plus SLACK_MS. */
const RATIO = 1.1;
const SLACK_MS = 1000;

const OPTIONS = {
  runs: { value: "N", default: 5, parse: wholeNumber(5, " (the issue asks for a median of at least 5 runs)") },
  python: { value: "PATH", default: "/usr/bin/python3", parse: absolutePath },
  cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js"), parse: absolutePath },
  "baseline-cli": { value: "PATH", default: undefined, parse: absolutePath },
  repos: { value: "DIR", default: "/work/.mirror", parse: absolutePath },
  only: { value: "NAMES", default: undefined },
  variants: { value: "NAMES", default: "beside" },
  keep: { default: false },
};

/** The real suites: pure-Python projects whose tests need only what /usr/bin/python3 has. */
const SUITES = [
  {
    name: "more-itertools",
    repo: "more-itertools/more-itertools",
    ref: "v8.10.0",
    commit: "d23124d2368600216cb0a5a3af121cf0a1964c74",
    pkg: "more_itertools",
    tests: "tests",
    patched: "more_itertools/recipes.py",
  },
  {
    name: "pyjwt",
    repo: "jpadilla/pyjwt",
    ref: "2.6.0",
    commit: "7665aa625506a11bae50b56d3e04413a3dc6fdf8",
    pkg: "jwt",
    tests: "tests",
    patched: "jwt/utils.py",
  },
];

const HUMAN = { name: "Ada Lovelace", email: "ada@example.org" };
const AGENT = { name: "patchbot[bot]", email: "patchbot@example.org" };

/** The environment of every run: no user git config, no inherited Python or pytest settings. */
const ENV = Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => k !== "PYTHONDONTWRITEBYTECODE"));

/**
 * The configurations measured (`--variants`), as the end of the base's [commands] table: `beside`, the head's
 * collection starting with the proof run (`collect_beside_proof`, what init writes: the default); `before`,
 * the collection first, then the proof run.
 */
const VARIANTS = { before: "", beside: "collect_beside_proof = true\n" };

/** proofgate.toml as `proofgate init` writes it for a project: collect, then the proof run with `coverage json`. */
function suiteConfig(py, suite, commandsExtra) {
  const collect = `${py} -m pytest -p no:cacheprovider --collect-only -q ${suite.tests} > collected.txt`;
  const proof = `${py} -m pytest -p no:cacheprovider -q ${suite.tests} --cov=${suite.pkg} --cov-branch --cov-report= -o junit_family=xunit1 --junitxml=results.xml; s=$?; ${py} -m coverage json -q -o proven_coverage.json; exit $s`;
  return `[coverage]
reports = ["proven_coverage.json"]
min_proven = 50

[results]
junit = ["results.xml"]

[fixtures]
enabled = false

[properties]
enabled = false

[commands]
collect = ${JSON.stringify(collect)}
proof = ${JSON.stringify(proof)}
${commandsExtra}`;
}

/** The suite's repository: DIR/<owner>+<name>/repo (the fetch tool's bare copy) or DIR/<name> (a clone). */
function suiteSource(repos, suite) {
  const candidates = [join(repos, suite.repo.replace("/", "+"), "repo"), join(repos, suite.repo.split("/")[1])];
  const found = candidates.find((dir) => existsSync(dir));
  if (!found)
    fail(
      `${suite.name}: no repository at ${candidates.join(" or ")}: git clone https://github.com/${suite.repo} ${candidates[1]} (the benchmark checks out ${suite.commit}, ${suite.ref})`,
    );
  return found;
}

/** The suite at its pinned commit with the gate's setup (the base), then an agent's one-line change (the head). */
function makeSuiteProject(dir, py, suite, source, commandsExtra) {
  const r = spawnSync("git", ["clone", "-q", "--no-checkout", source, dir], { encoding: "utf8", env: ENV });
  if (r.status !== 0) fail(`git clone ${source} failed: ${r.stderr}`);
  try {
    git(dir, ["checkout", "-q", "-b", "main", suite.commit], HUMAN);
  } catch (error) {
    fail(`${suite.name}: ${source} lacks ${suite.commit} (${suite.ref}): ${error.message}`);
  }
  const ignore = join(dir, ".gitignore");
  const ignored = existsSync(ignore) ? readFileSync(ignore, "utf8") : "";
  writeFileSync(
    ignore,
    `${ignored}${ignored.endsWith("\n") || ignored === "" ? "" : "\n"}collected.txt\nproven_coverage.json\nresults.xml\n.coverage\n.pytest_cache/\nproofgate-report/\n__pycache__/\n`,
  );
  writeFileSync(join(dir, "freeze.toml"), "version = 1\nmax_active_leases = 0\n");
  writeFileSync(join(dir, "proofgate.toml"), suiteConfig(py, suite, commandsExtra));
  git(dir, ["add", "-A"], HUMAN);
  git(dir, ["commit", "-q", "-m", "proofgate setup"], HUMAN);
  const base = git(dir, ["rev-parse", "HEAD"], HUMAN);
  const file = join(dir, suite.patched);
  writeFileSync(file, `${readFileSync(file, "utf8")}\n# A note by the agent.\n`);
  git(dir, ["commit", "-q", "-a", "-m", "The agent's change"], AGENT);
  return base;
}

// ---------------------------------------------------------------------------------------------- runs

/** `proofgate: time: <phase> 1.23 s` lines of --verbose, in ms. */
function verboseTimes(stderr) {
  const out = {};
  for (const m of stderr.matchAll(/^proofgate: time: (.+?) (\d+\.\d+) s$/gm)) out[m[1]] = Number(m[2]) * 1000;
  return out;
}

function plainOnce(project, py) {
  // The e2e project's property tests read their seeds from PROOFGATE_SEEDS_DIR: here, the repository's own.
  const r = run([py, "-m", "pytest", `--cov=${project.pkg}`, "--cov-branch", project.tests], {
    cwd: project.dir,
    env: { ...ENV, PROOFGATE_SEEDS_DIR: project.dir },
  });
  if (r.status !== 0) fail(`${project.name}: the plain run exited with ${r.status}:\n${r.stdout.slice(-2000)}`);
  return { ms: r.ms };
}

function checkOnce(cli, project) {
  const r = run([process.execPath, cli, "check", "--run", "--verbose", "--base", project.base, "--platform", "local"], {
    cwd: project.dir,
    env: ENV,
  });
  let report;
  try {
    report = JSON.parse(readFileSync(join(project.dir, "proofgate-report", "report.json"), "utf8"));
  } catch {
    fail(`${cli} wrote no report.json in ${project.dir} (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
  }
  const steps = Object.fromEntries((report.commands ?? []).map((c) => [c.step, (c.seconds ?? NaN) * 1000]));
  return {
    ms: r.ms,
    status: r.status,
    reasons: report.reasons,
    steps,
    verbose: verboseTimes(r.stderr),
    stderr: r.stderr,
  };
}

const STEPS = [
  "base worktree",
  "base collect",
  "collect",
  "proof",
  "properties",
  "base properties",
  "base marked skips",
  "base skips",
];

function main() {
  const options = parseOptions("overhead.mjs", OPTIONS, fail);
  if (!existsSync(options.cli)) fail(`${options.cli} is missing: run \`pnpm build\` first (or pass --cli PATH)`);
  if (options.baselineCli && !existsSync(options.baselineCli)) fail(`--baseline-cli ${options.baselineCli} is missing`);
  const names = ["e2e", ...SUITES.map((s) => s.name)];
  const only = options.only ? options.only.split(",") : names;
  for (const n of only) if (!names.includes(n)) fail(`--only takes ${names.join(", ")}; got ${n}`);
  const variants = options.variants.split(",");
  for (const v of variants)
    if (!(v in VARIANTS)) fail(`--variants takes ${Object.keys(VARIANTS).join(", ")}; got ${v}`);
  const probe = spawnSync(options.python, ["-c", "import pytest, pytest_cov, coverage"], { encoding: "utf8" });
  if (probe.status !== 0) fail(`${options.python} lacks pytest, pytest-cov or coverage.py: ${probe.stderr.trim()}`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const temp = mkdtempSync(join(tmpdir(), "proofgate-bench-overhead-"));
  try {
    const projects = [];
    // One repository per project and variant (the variant is in the base's proofgate.toml); the plain run
    // runs in the first.
    const copies = (make) =>
      Object.fromEntries(
        variants.map((v) => {
          const dir = join(temp, v);
          mkdirSync(dir, { recursive: true });
          return [v, make(dir, VARIANTS[v])];
        }),
      );
    if (only.includes("e2e")) {
      const at = copies((folder, extra) => {
        const dir = join(folder, "e2e");
        return { dir, base: makeProject(dir, options.python, PATCHES.merge, extra) };
      });
      projects.push({
        name: "e2e",
        at,
        ...at[variants[0]],
        pkg: "pkg",
        tests: "tests",
        source: "tooling/bench/e2e-project.mjs (merge patch)",
      });
    }
    for (const suite of SUITES.filter((s) => only.includes(s.name))) {
      const at = copies((folder, extra) => {
        const dir = join(folder, suite.name);
        mkdirSync(dir);
        return { dir, base: makeSuiteProject(dir, options.python, suite, suiteSource(options.repos, suite), extra) };
      });
      projects.push({
        ...suite,
        at,
        ...at[variants[0]],
        source: `github.com/${suite.repo} at ${suite.commit} (${suite.ref})`,
      });
    }
    const clis = [{ label: "check --run", cli: options.cli }];
    if (options.baselineCli) clis.push({ label: "baseline check --run", cli: options.baselineCli });
    const named = variants.length > 1 || variants[0] !== OPTIONS.variants.default;
    const builds = clis.flatMap((c) =>
      variants.map((variant) => ({ ...c, variant, label: named ? `${c.label} (${variant})` : c.label })),
    );
    const members = [];
    const labels = [];
    for (const p of projects) {
      labels.push(`${p.name} / plain`);
      members.push(() => plainOnce(p, options.python));
      for (const b of builds) {
        labels.push(`${p.name} / ${b.label}`);
        members.push((round) => {
          const r = checkOnce(b.cli, p.at[b.variant]);
          if (round === "warm-up") p[b.label] = { status: r.status, reasons: r.reasons };
          else if (r.status !== p[b.label].status || JSON.stringify(r.reasons) !== JSON.stringify(p[b.label].reasons))
            fail(
              `${p.name}, ${b.label}, ${round}: exit ${r.status} reasons ${JSON.stringify(r.reasons)}, the warm-up gave exit ${p[b.label].status} ${JSON.stringify(p[b.label].reasons)}\n${r.stderr.slice(-3000)}`,
            );
          if (r.status === 2) fail(`${p.name}, ${b.label}: exit 2\n${r.stderr.slice(-3000)}`);
          return r;
        });
      }
    }
    const samples = interleave(members, options.runs, {
      alternate: true,
      afterRound: (n) => process.stderr.write(`bench:overhead: round ${n}/${options.runs} done\n`),
    });

    const s = (v) => (v === undefined || Number.isNaN(v) ? "n/a" : `${(v / 1000).toFixed(2)} s`);
    const results = labels.map((label, i) => {
      const runs = samples[i];
      const med = (pick) => {
        const values = runs.map(pick).filter((v) => v !== undefined && !Number.isNaN(v));
        return values.length ? median(values) : undefined;
      };
      const checkRun = runs[0].steps !== undefined;
      return {
        label,
        wall: stats(runs.map((r) => r.ms)),
        ...(checkRun && {
          exit: runs[0].status,
          reasons: runs[0].reasons,
          steps: Object.fromEntries(STEPS.map((st) => [st, med((r) => r.steps[st] ?? r.verbose[st])])),
          gate: med((r) => r.verbose["gate (Node, git, reading, deciding, writing)"]),
          worktree_removed: med((r) => r.verbose["base worktree removed"]),
        }),
      };
    });
    const rows = projects.flatMap((p) =>
      builds.map((b) => {
        const plain = results.find((r) => r.label === `${p.name} / plain`);
        const check = results.find((r) => r.label === `${p.name} / ${b.label}`);
        // The ratio of each round's pair (same round, neighbouring runs), then the median: the load moves.
        const ratios = samples[labels.indexOf(check.label)].map(
          (c, k) => c.ms / samples[labels.indexOf(plain.label)][k].ms,
        );
        const budget = plain.wall.median_ms * RATIO + SLACK_MS;
        return {
          project: p.name,
          source: p.source,
          build: b.label,
          plain_ms: plain.wall.median_ms,
          check_ms: check.wall.median_ms,
          ratio: check.wall.median_ms / plain.wall.median_ms,
          paired_ratio: median(ratios),
          budget_ms: budget,
          met: check.wall.median_ms <= budget,
          exit: check.exit,
          reasons: check.reasons,
          steps: check.steps,
          gate_ms: check.gate,
          worktree_removed_ms: check.worktree_removed,
        };
      }),
    );
    const machine = machineInfo(loadBefore, {
      python: spawnSync(options.python, ["--version"], { encoding: "utf8" }).stdout.trim(),
    });
    const md = [`## check --run against the plain pytest --cov run (${startedAt.toISOString()})`, ""];
    md.push(machineLine(machine, { also: [machine.python] }));
    md.push(
      `Median of ${options.runs} rounds after a warm-up round, each round running every member once in alternating order; wall clock of whole processes. Goal: check --run <= ${RATIO}x plain + ${SLACK_MS / 1000} s. Ratio: of the medians; paired: the median of each round's check/plain.`,
      "",
    );
    md.push(
      ...table(
        ["project", "build", "plain pytest --cov", "check --run", "ratio", "paired", "goal", "met", "exit"],
        rows.map((r) => [
          r.project,
          r.build,
          s(r.plain_ms),
          s(r.check_ms),
          `${r.ratio.toFixed(2)}x`,
          `${r.paired_ratio.toFixed(2)}x`,
          `<= ${s(r.budget_ms)}`,
          r.met ? "yes" : "no",
          `${r.exit}${r.reasons.length ? ` (${r.reasons.join(", ")})` : ""}`,
        ]),
      ),
    );
    md.push(
      "",
      "Where check --run's time goes (medians of the gate's own timings: report.json commands[].seconds and --verbose).",
      "",
    );
    md.push(
      ...table(
        ["project", "build", ...STEPS, "worktree removed", "gate (Node, git, reading, deciding)"],
        rows.map((r) => [
          r.project,
          r.build,
          ...STEPS.map((st) => s(r.steps[st])),
          s(r.worktree_removed_ms),
          s(r.gate_ms),
        ]),
      ),
    );
    md.push("", "Projects:", ...projects.map((p) => `- ${p.name}: ${p.source}`));
    publish({
      tag: "bench:overhead",
      script: "overhead.mjs",
      prefix: "overhead",
      startedAt,
      markdown: md,
      data: {
        machine,
        runs: options.runs,
        cli: fromRoot(options.cli),
        baseline_cli: options.baselineCli ?? null,
        goal: { ratio: RATIO, slack_ms: SLACK_MS },
        rows,
        results: results.map(({ label, wall }) => ({ label, wall })),
      },
    });
  } finally {
    if (options.keep) process.stderr.write(`bench:overhead: kept ${temp}\n`);
    else rmSync(temp, { recursive: true, force: true });
  }
}

main();

#!/usr/bin/env node
// What `proofgate check --run` pays for the base (issue 15, "Show", last bullet): the base collected in a
// temporary git worktree with the base's own [commands] collect (`tests_removed`), and the base's proof
// command run there on the tests skipped at head (`tests_skipped_unledgered`), on the e2e project's shape
// (apps/e2e/src/check-project.ts: a package, 10 tests, a frozen test, a property suite on seeds, a golden
// fixture), with the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3.
//
//   pnpm build && pnpm --filter @proofgate/bench bench:base                      # from the repo root
//   node tooling/bench/base-worktree.mjs --baseline-cli /tmp/pg-3a75315/packages/cli/dist/proofgate.js
//
// Options: --runs N (default 7, at least 5), --python PATH (default /usr/bin/python3), --cli PATH
// (default packages/cli/dist/proofgate.js), --baseline-cli PATH (a build from before the base worktree,
// e.g. main at 3a75315, timed interleaved on the same patches), --keep.
//
// Three patches by an agent on one base: `merge` (a covered change: the base is collected, nothing is
// skipped), `removal` (a test deleted: tests_removed) and `skip` (a test marked skipped: the base's proof
// command also runs, on that one test). Each is checked with `check --run`, interleaved, after a warm-up
// round; the script checks every run's exit code and reasons, and reads the gate's own step timings
// (`✔ base collect (0.4 s)`) from its log. Output: Markdown on stdout, JSON under tooling/bench/results/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV, PATCHES, makeProject } from "./e2e-project.mjs";
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

const fail = makeFail("bench:base");

const OPTIONS = {
  runs: { value: "N", default: 7, parse: wholeNumber(5, " (a median of at least 5 runs)") },
  python: { value: "PATH", default: "/usr/bin/python3", parse: absolutePath },
  cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js"), parse: absolutePath },
  "baseline-cli": { value: "PATH", default: undefined, parse: absolutePath },
  keep: { default: false },
};

// ---------------------------------------------------------------------------------------------- runs

/** The gate's own step timings from its log: `✔ base collect (0.4 s)`, or `✘ proof exited with 1 (1.2 s)`. */
function stepTimes(stderr) {
  const out = {};
  for (const m of stderr.matchAll(/[✔✘] ([a-z ]+?)(?: exited with \d+)? \((\d+\.\d) s\)/g))
    out[m[1]] = Number(m[2]) * 1000;
  return out;
}

function checkOnce(cli, dir, base) {
  const r = run([process.execPath, cli, "check", "--run", "--base", base, "--platform", "local", "--format", "json"], {
    cwd: dir,
    env: GIT_ENV,
  });
  let report;
  try {
    report = JSON.parse(readFileSync(join(dir, "proofgate-report", "report.json"), "utf8"));
  } catch {
    fail(`${cli} wrote no report.json in ${dir} (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
  }
  return { ms: r.ms, status: r.status, reasons: report.reasons, steps: stepTimes(r.stderr), stderr: r.stderr };
}

function main() {
  const options = parseOptions("base-worktree.mjs", OPTIONS, fail);
  if (!existsSync(options.cli)) fail(`${options.cli} is missing: run \`pnpm build\` first (or pass --cli PATH)`);
  if (options.baselineCli && !existsSync(options.baselineCli)) fail(`--baseline-cli ${options.baselineCli} is missing`);
  const probe = spawnSync(options.python, ["-c", "import pytest, pytest_cov, coverage"], { encoding: "utf8" });
  if (probe.status !== 0) fail(`${options.python} lacks pytest, pytest-cov or coverage.py: ${probe.stderr.trim()}`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const temp = mkdtempSync(join(tmpdir(), "proofgate-bench-base-"));
  try {
    const projects = Object.entries(PATCHES).map(([name, patch]) => {
      const dir = join(temp, name);
      return { name, patch, dir, base: makeProject(dir, options.python, patch) };
    });
    const builds = [{ label: "this build", cli: options.cli }];
    if (options.baselineCli) builds.push({ label: "baseline", cli: options.baselineCli });
    const members = [];
    for (const p of projects) {
      for (const b of builds) {
        members.push((round) => {
          const r = checkOnce(b.cli, p.dir, p.base);
          if (
            b.label === "this build" &&
            (r.status !== p.patch.exit || JSON.stringify(r.reasons) !== JSON.stringify(p.patch.reasons))
          )
            fail(
              `${p.name}, ${round}: exit ${r.status} reasons ${JSON.stringify(r.reasons)}, expected exit ${p.patch.exit} ${JSON.stringify(p.patch.reasons)}\n${r.stderr.slice(-3000)}`,
            );
          if (b.label === "this build" && round !== "warm-up" && !r.steps["base collect"])
            fail(`${p.name}: the log names no base collect step:\n${r.stderr.slice(-2000)}`);
          return r;
        });
      }
    }
    const labels = projects.flatMap((p) => builds.map((b) => `${p.name} / ${b.label}`));
    const samples = interleave(members, options.runs, {
      afterRound: (n) => process.stderr.write(`bench:base: round ${n}/${options.runs} done\n`),
    });

    const ms = (v) => (v === undefined ? "n/a" : `${(v / 1000).toFixed(2)} s`);
    const results = labels.map((label, i) => {
      const runs = samples[i];
      const step = (name) => {
        const values = runs.map((r) => r.steps[name]).filter((v) => v !== undefined);
        return values.length ? median(values) : undefined;
      };
      return {
        label,
        wall: stats(runs.map((r) => r.ms)),
        steps: Object.fromEntries(
          ["base collect", "base properties", "collect", "proof", "properties", "base skips"].map((s) => [s, step(s)]),
        ),
      };
    });
    const machine = machineInfo(loadBefore, {
      python: spawnSync(options.python, ["--version"], { encoding: "utf8" }).stdout.trim(),
    });
    const md = [`## check --run with the base's worktree (${startedAt.toISOString()})`, ""];
    md.push(machineLine(machine, { also: [machine.python] }));
    md.push(
      `Median (min-max) of ${options.runs} interleaved runs after a warm-up round, wall clock of the whole \`proofgate check --run\` process; the steps are the gate's own timings from its log (medians).`,
      "",
    );
    md.push(
      ...table(
        ["patch / build", "wall", "base collect", "base properties", "collect", "proof", "properties", "base skips"],
        results.map((r) => [
          r.label,
          `${ms(r.wall.median_ms)} (${ms(r.wall.min_ms)}-${ms(r.wall.max_ms)})`,
          ...["base collect", "base properties", "collect", "proof", "properties", "base skips"].map((s) =>
            ms(r.steps[s]),
          ),
        ]),
      ),
    );
    if (options.baselineCli) {
      md.push("", "What the base costs: this build's median minus the baseline's, per patch.", "");
      md.push(
        ...table(
          ["patch", "this build", "baseline", "added"],
          projects.map((p) => {
            const mine = results.find((r) => r.label === `${p.name} / this build`).wall.median_ms;
            const before = results.find((r) => r.label === `${p.name} / baseline`).wall.median_ms;
            return [
              p.name,
              ms(mine),
              ms(before),
              `${ms(mine - before)} (${(((mine - before) / before) * 100).toFixed(0)}%)`,
            ];
          }),
        ),
      );
    }
    publish({
      tag: "bench:base",
      script: "base-worktree.mjs",
      prefix: "base-worktree",
      startedAt,
      markdown: md,
      data: {
        machine,
        runs: options.runs,
        cli: fromRoot(options.cli),
        baseline_cli: options.baselineCli ?? null,
        results,
      },
    });
  } finally {
    if (options.keep) process.stderr.write(`bench:base: kept ${temp}\n`);
    else rmSync(temp, { recursive: true, force: true });
  }
}

main();

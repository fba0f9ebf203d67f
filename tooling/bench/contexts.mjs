#!/usr/bin/env node
// proofgate's single-run benchmark (issue 3, "Show", last bullet): `proofgate coverage --contexts` on a
// `.coverage` data file with 20k contexts over 2k files and 1k frozen tests, against coverage.py's own
// `coverage json --contexts=<proofgate deselect --format contexts-regex>` on the same file.
//
//   pnpm build && pnpm --filter @proofgate/bench bench:contexts          # from the repo root
//   node tooling/bench/contexts.mjs --small                               # a quick check (200 files)
//
// Options: --runs N (default 5, at least 5), --small, --python PATH (default /usr/bin/python3, which
// must have coverage.py), --cli PATH (default packages/cli/dist/proofgate.js), --data DIR (generate
// there, or reuse it when it already holds the inputs), --keep (keep the generated temp folder).
//
// The data file is written by tooling/bench/make_contexts_data.py with coverage.py's CoverageData API,
// next to the 2k source files coverage.py needs for its analysis. Before timing, both tools must give
// the same statements, covered lines, branches, covered branches and percent (to the last digit);
// every timed run is checked again. Runs are interleaved (coverage.py, proofgate, coverage.py, ...)
// and reported as medians. Output: Markdown on stdout, JSON under tooling/bench/results/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  absolutePath,
  benchDir as here,
  coverageCounts,
  firstDifference,
  interleave,
  machineInfo,
  machineLine,
  makeFail,
  parseOptions,
  peakRss,
  publish,
  root,
  run,
  stats,
  table,
  wholeNumber,
} from "./lib.mjs";

const TARGET_SPEEDUP = 10;
const SIZES = {
  full: { files: 2000, tests: 20000, frozen: 1000 },
  small: { files: 200, tests: 2000, frozen: 100 },
};

const fail = makeFail("bench:contexts");

const OPTIONS = {
  runs: { value: "N", default: 5, parse: wholeNumber(5, " (the issue asks for a median of at least 5 runs)") },
  small: { default: false },
  python: { value: "PATH", default: "/usr/bin/python3" },
  cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js"), parse: absolutePath },
  data: { value: "DIR", default: undefined, parse: absolutePath },
  keep: { default: false },
};

/** Runs cmd in cwd, timed (lib's run, with room for a large stdout). */
const runIn = (cmd, cwd) => run(cmd, { cwd, maxBuffer: 256 * 1024 * 1024 });

function must(result, what) {
  if (result.status !== 0) fail(`${what} exited ${result.status}:\n${result.stderr.slice(0, 3000)}`);
  return result;
}

/** The four counts and the percent, from coverage.py's JSON totals or proofgate's JSON. */
function fromCoveragePy(file) {
  const t = JSON.parse(readFileSync(file, "utf8")).totals;
  return { ...coverageCounts(t), percent: t.percent_covered };
}
function fromProofgate(stdout) {
  const j = JSON.parse(stdout);
  return { ...coverageCounts(j), percent: j.proven_coverage_percent };
}
function sameNumbers(a, b, when) {
  const key = firstDifference(a, b);
  if (key !== undefined) fail(`${when}: ${key} differs: coverage.py ${a[key]}, proofgate ${b[key]}`);
}

async function main() {
  const options = parseOptions("contexts.mjs", OPTIONS, fail);
  const size = options.small ? SIZES.small : SIZES.full;
  if (!existsSync(options.cli)) fail(`${options.cli} is missing: run \`pnpm build\` first (or pass --cli PATH)`);
  const covVersion = spawnSync(options.python, ["-c", "import coverage; print(coverage.__version__)"], {
    encoding: "utf8",
  });
  if (covVersion.status !== 0)
    fail(`${options.python} has no coverage.py (pass --python PATH to a Python that has it)`);

  const startedAt = new Date();
  const loadBefore = loadavg();
  const dir = options.data ?? mkdtempSync(join(tmpdir(), "proofgate-bench-contexts-"));
  const node = process.execPath;
  try {
    mkdirSync(dir, { recursive: true });
    // 1. Inputs: source files, .coverage, collected.txt, freeze.toml; then coverage.py's full report.
    let generation = null;
    const summaryFile = join(dir, "generated.json");
    const wanted = JSON.stringify(size);
    const reuse =
      existsSync(summaryFile) &&
      JSON.stringify(JSON.parse(readFileSync(summaryFile, "utf8")).size) === wanted &&
      existsSync(join(dir, "full.json"));
    if (reuse) {
      generation = JSON.parse(readFileSync(summaryFile, "utf8"));
      process.stderr.write(`bench:contexts: reusing the inputs in ${dir}\n`);
    } else {
      process.stderr.write(
        `bench:contexts: writing ${size.files} files, ${size.tests} test contexts, ${size.frozen} frozen into ${dir} ...\n`,
      );
      const gen = must(
        runIn([
          options.python,
          join(here, "make_contexts_data.py"),
          dir,
          "--files",
          String(size.files),
          "--tests",
          String(size.tests),
          "--frozen",
          String(size.frozen),
        ]),
        "make_contexts_data.py",
      );
      const made = JSON.parse(gen.stdout.trim().split("\n").pop());
      const full = must(runIn([options.python, "-m", "coverage", "json", "-o", "full.json"], dir), "coverage json");
      generation = { size, made, generate_ms: gen.ms, plain_coverage_json_ms: full.ms };
      writeFileSync(summaryFile, `${JSON.stringify(generation, null, 2)}\n`);
    }
    const regex = must(
      runIn(
        [
          node,
          options.cli,
          "deselect",
          "--freeze",
          "freeze.toml",
          "--collected",
          "collected.txt",
          "--format",
          "contexts-regex",
        ],
        dir,
      ),
      "proofgate deselect --format contexts-regex",
    ).stdout.trim();

    const cmds = {
      coveragepy: [options.python, "-m", "coverage", "json", "-q", "-o", "contexts.json", `--contexts=${regex}`],
      proofgate: [
        node,
        options.cli,
        "coverage",
        "--freeze",
        "freeze.toml",
        "--contexts",
        ".coverage",
        "--report",
        "full.json",
        "--format",
        "json",
      ],
      plain: [options.python, "-m", "coverage", "json", "-q", "-o", "plain.json"],
    };

    // 2. Parity (also the warm-up round): the same numbers, to the last digit.
    const refRun = must(runIn(cmds.coveragepy, dir), "coverage json --contexts");
    const pgRun = must(runIn(cmds.proofgate, dir), "proofgate coverage --contexts");
    const expected = fromCoveragePy(join(dir, "contexts.json"));
    sameNumbers(expected, fromProofgate(pgRun.stdout), "parity");
    const all = fromCoveragePy(join(dir, "full.json"));
    if (all.covered_lines === expected.covered_lines && all.covered_branches === expected.covered_branches)
      fail("dropping the frozen tests changed nothing: the inputs do not test the dropping");
    process.stderr.write(
      `bench:contexts: parity ok: ${JSON.stringify(expected)} (warm-up: coverage.py ${(refRun.ms / 1000).toFixed(1)} s, proofgate ${(pgRun.ms / 1000).toFixed(2)} s)\n`,
    );

    // 3. Interleaved timing; every run checked again.
    const [coveragepy, proofgate, plain] = interleave(
      [
        (when) => {
          const a = must(runIn(cmds.coveragepy, dir), `coverage json --contexts (${when})`);
          sameNumbers(expected, fromCoveragePy(join(dir, "contexts.json")), `coverage.py ${when}`);
          return a.ms;
        },
        (when) => {
          const b = must(runIn(cmds.proofgate, dir), `proofgate coverage --contexts (${when})`);
          sameNumbers(expected, fromProofgate(b.stdout), `proofgate ${when}`);
          return b.ms;
        },
        (when) => must(runIn(cmds.plain, dir), `coverage json (${when})`).ms,
      ],
      options.runs,
      {
        warmUp: false,
        afterRound: (r, [a, b, c]) =>
          process.stderr.write(
            `bench:contexts: run ${r}/${options.runs}: coverage.py --contexts ${(a[r - 1] / 1000).toFixed(1)} s, proofgate ${(b[r - 1] / 1000).toFixed(2)} s, plain coverage json ${(c[r - 1] / 1000).toFixed(1)} s\n`,
          ),
      },
    );
    const rss = { proofgate: peakRss(cmds.proofgate, { cwd: dir, dir, okOnly: true }) };

    const wall = {
      coveragepy_contexts: stats(coveragepy),
      proofgate_contexts: stats(proofgate),
      coveragepy_plain_json: stats(plain),
    };
    const speedup = wall.coveragepy_contexts.median_ms / wall.proofgate_contexts.median_ms;
    const met = speedup >= TARGET_SPEEDUP;
    const machine = machineInfo(loadBefore, {
      python: spawnSync(options.python, ["--version"], { encoding: "utf8" }).stdout.trim(),
      coverage_py: covVersion.stdout.trim(),
    });

    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const cell = (m) => `${s(m.median_ms)} (${s(m.min_ms)}-${s(m.max_ms)})`;
    const md = [];
    md.push(`## Single-run proven coverage benchmark (${startedAt.toISOString()})`, "");
    md.push(
      `Inputs${options.small ? " (--small)" : ""}: ${size.files.toLocaleString("en")} source files, ${(size.tests + 1).toLocaleString("en")} contexts (${size.tests.toLocaleString("en")} \`<nodeid>|run\` + the empty one), ${size.frozen.toLocaleString("en")} frozen tests, ${generation.made.arc_rows.toLocaleString("en")} arc rows, a ${(generation.made.data_file_bytes / 2 ** 20).toFixed(1)} MiB \`.coverage\` written by coverage.py ${generation.made.coverage_version}'s CoverageData API (branch data).`,
    );
    md.push(machineLine(machine, { also: [machine.python, `coverage.py ${machine.coverage_py}`] }));
    md.push(
      `Parity checked before timing and after every run: ${expected.statements} statements, ${expected.covered_lines} covered lines, ${expected.branches} branches, ${expected.covered_branches} covered branches, ${expected.percent}% from both (all contexts: ${all.covered_lines} lines, ${all.covered_branches} branches).`,
    );
    md.push(
      `Whole-process wall clock, median (min-max) of ${options.runs} interleaved runs after a warm-up (the parity run).`,
      "",
    );
    md.push(
      ...table(
        ["Command", "Wall, median (min-max)"],
        [
          ["`coverage json --contexts=<contexts-regex>` (coverage.py)", cell(wall.coveragepy_contexts)],
          ["`proofgate coverage --contexts .coverage --report full.json --format json`", cell(wall.proofgate_contexts)],
          ["`coverage json`, all contexts (info: the report proofgate reads)", cell(wall.coveragepy_plain_json)],
        ],
      ),
      "",
    );
    md.push(
      `Speed-up (coverage.py median / proofgate median): **${speedup.toFixed(1)}x**; target >= ${TARGET_SPEEDUP}x: **${met ? "met" : "not met"}**${options.small ? " (the target is for the full size; --small is a quick check of the harness)" : ""}.`,
    );
    if (rss.proofgate) md.push(`proofgate peak RSS (GNU time %M, one run): ${(rss.proofgate / 1024).toFixed(0)} MiB.`);
    publish({
      tag: "bench:contexts",
      script: "contexts.mjs",
      prefix: "contexts",
      startedAt,
      markdown: md,
      data: {
        runs: options.runs,
        machine,
        inputs: generation,
        parity: { contexts: expected, all_contexts: all },
        wall,
        peak_rss_kib: rss,
        speedup,
        target: { speedup: TARGET_SPEEDUP, met },
      },
    });
  } finally {
    if (!options.keep && !options.data) rmSync(dir, { recursive: true, force: true });
  }
}

await main();

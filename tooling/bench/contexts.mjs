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
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const TARGET_SPEEDUP = 10;
const SIZES = {
  full: { files: 2000, tests: 20000, frozen: 1000 },
  small: { files: 200, tests: 2000, frozen: 100 },
};

function parseOptions(argv) {
  const options = { runs: 5, small: false, python: "/usr/bin/python3", cli: join(root, "packages/cli/dist/proofgate.js"), data: undefined, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value`);
      return v;
    };
    if (flag === "--runs") {
      options.runs = Number(value());
      if (!Number.isInteger(options.runs) || options.runs < 5) fail("--runs must be a whole number >= 5 (the issue asks for a median of at least 5 runs)");
    } else if (flag === "--small") options.small = true;
    else if (flag === "--python") options.python = value();
    else if (flag === "--cli") options.cli = resolve(value());
    else if (flag === "--data") options.data = resolve(value());
    else if (flag === "--keep") options.keep = true;
    else if (flag === "--help" || flag === "-h") {
      process.stdout.write("usage: node tooling/bench/contexts.mjs [--runs N] [--small] [--python PATH] [--cli PATH] [--data DIR] [--keep]\n");
      process.exit(0);
    } else fail(`unknown option ${arg}`);
  }
  return options;
}

function fail(message) {
  process.stderr.write(`bench:contexts: error: ${message}\n`);
  process.exit(2);
}

function run(cmd, cwd) {
  const start = process.hrtime.bigint();
  const result = spawnSync(cmd[0], cmd.slice(1), { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.error) throw result.error;
  return { ms, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function must(result, what) {
  if (result.status !== 0) fail(`${what} exited ${result.status}:\n${result.stderr.slice(0, 3000)}`);
  return result;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Peak RSS in KiB through GNU time, or null when it is not available. */
function peakRss(cmd, cwd, dir) {
  if (!existsSync("/usr/bin/time")) return null;
  const out = join(dir, "rss.txt");
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", out, ...cmd], { cwd, stdio: "ignore" });
  if (result.error || result.status !== 0 || !existsSync(out)) return null;
  const kib = Number(readFileSync(out, "utf8").trim().split("\n").pop());
  return Number.isFinite(kib) && kib > 0 ? kib : null;
}

/** The four counts and the percent, from coverage.py's JSON totals or proofgate's JSON. */
function fromCoveragePy(file) {
  const t = JSON.parse(readFileSync(file, "utf8")).totals;
  return { statements: t.num_statements, covered_lines: t.covered_lines, branches: t.num_branches, covered_branches: t.covered_branches, percent: t.percent_covered };
}
function fromProofgate(stdout) {
  const j = JSON.parse(stdout);
  return { statements: j.num_statements, covered_lines: j.covered_lines, branches: j.num_branches, covered_branches: j.covered_branches, percent: j.proven_coverage_percent };
}
function sameNumbers(a, b, when) {
  for (const key of Object.keys(a)) {
    if (a[key] !== b[key]) fail(`${when}: ${key} differs: coverage.py ${a[key]}, proofgate ${b[key]}`);
  }
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const size = options.small ? SIZES.small : SIZES.full;
  if (!existsSync(options.cli)) fail(`${options.cli} is missing: run \`pnpm build\` first (or pass --cli PATH)`);
  const covVersion = spawnSync(options.python, ["-c", "import coverage; print(coverage.__version__)"], { encoding: "utf8" });
  if (covVersion.status !== 0) fail(`${options.python} has no coverage.py (pass --python PATH to a Python that has it)`);

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
    const reuse = existsSync(summaryFile) && JSON.stringify(JSON.parse(readFileSync(summaryFile, "utf8")).size) === wanted && existsSync(join(dir, "full.json"));
    if (reuse) {
      generation = JSON.parse(readFileSync(summaryFile, "utf8"));
      process.stderr.write(`bench:contexts: reusing the inputs in ${dir}\n`);
    } else {
      process.stderr.write(`bench:contexts: writing ${size.files} files, ${size.tests} test contexts, ${size.frozen} frozen into ${dir} ...\n`);
      const gen = must(run([options.python, join(here, "make_contexts_data.py"), dir, "--files", String(size.files), "--tests", String(size.tests), "--frozen", String(size.frozen)]), "make_contexts_data.py");
      const made = JSON.parse(gen.stdout.trim().split("\n").pop());
      const full = must(run([options.python, "-m", "coverage", "json", "-o", "full.json"], dir), "coverage json");
      generation = { size, made, generate_ms: gen.ms, plain_coverage_json_ms: full.ms };
      writeFileSync(summaryFile, `${JSON.stringify(generation, null, 2)}\n`);
    }
    const regex = must(run([node, options.cli, "deselect", "--freeze", "freeze.toml", "--collected", "collected.txt", "--format", "contexts-regex"], dir), "proofgate deselect --format contexts-regex").stdout.trim();

    const cmds = {
      coveragepy: [options.python, "-m", "coverage", "json", "-q", "-o", "contexts.json", `--contexts=${regex}`],
      proofgate: [node, options.cli, "coverage", "--freeze", "freeze.toml", "--contexts", ".coverage", "--report", "full.json", "--format", "json"],
      plain: [options.python, "-m", "coverage", "json", "-q", "-o", "plain.json"],
    };

    // 2. Parity (also the warm-up round): the same numbers, to the last digit.
    const refRun = must(run(cmds.coveragepy, dir), "coverage json --contexts");
    const pgRun = must(run(cmds.proofgate, dir), "proofgate coverage --contexts");
    const expected = fromCoveragePy(join(dir, "contexts.json"));
    sameNumbers(expected, fromProofgate(pgRun.stdout), "parity");
    const all = fromCoveragePy(join(dir, "full.json"));
    if (all.covered_lines === expected.covered_lines && all.covered_branches === expected.covered_branches) fail("dropping the frozen tests changed nothing: the inputs do not test the dropping");
    process.stderr.write(`bench:contexts: parity ok: ${JSON.stringify(expected)} (warm-up: coverage.py ${(refRun.ms / 1000).toFixed(1)} s, proofgate ${(pgRun.ms / 1000).toFixed(2)} s)\n`);

    // 3. Interleaved timing; every run checked again.
    const samples = { coveragepy: [], proofgate: [], plain: [] };
    for (let r = 1; r <= options.runs; r++) {
      const a = must(run(cmds.coveragepy, dir), `coverage json --contexts (run ${r})`);
      sameNumbers(expected, fromCoveragePy(join(dir, "contexts.json")), `coverage.py run ${r}`);
      const b = must(run(cmds.proofgate, dir), `proofgate coverage --contexts (run ${r})`);
      sameNumbers(expected, fromProofgate(b.stdout), `proofgate run ${r}`);
      const c = must(run(cmds.plain, dir), `coverage json (run ${r})`);
      samples.coveragepy.push(a.ms);
      samples.proofgate.push(b.ms);
      samples.plain.push(c.ms);
      process.stderr.write(`bench:contexts: run ${r}/${options.runs}: coverage.py --contexts ${(a.ms / 1000).toFixed(1)} s, proofgate ${(b.ms / 1000).toFixed(2)} s, plain coverage json ${(c.ms / 1000).toFixed(1)} s\n`);
    }
    const rss = { proofgate: peakRss(cmds.proofgate, dir, dir) };

    const stat = (xs) => ({ samples_ms: xs, median_ms: median(xs), min_ms: Math.min(...xs), max_ms: Math.max(...xs) });
    const wall = { coveragepy_contexts: stat(samples.coveragepy), proofgate_contexts: stat(samples.proofgate), coveragepy_plain_json: stat(samples.plain) };
    const speedup = wall.coveragepy_contexts.median_ms / wall.proofgate_contexts.median_ms;
    const met = speedup >= TARGET_SPEEDUP;
    const machine = {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? "unknown",
      memory_gib: +(totalmem() / 2 ** 30).toFixed(1),
      os: `${platform()} ${release()}`,
      node: process.version,
      python: spawnSync(options.python, ["--version"], { encoding: "utf8" }).stdout.trim(),
      coverage_py: covVersion.stdout.trim(),
      loadavg_before: loadBefore.map((x) => +x.toFixed(2)),
      loadavg_after: loadavg().map((x) => +x.toFixed(2)),
    };

    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const cell = (m) => `${s(m.median_ms)} (${s(m.min_ms)}-${s(m.max_ms)})`;
    const md = [];
    md.push(`## Single-run proven coverage benchmark (${startedAt.toISOString()})`, "");
    md.push(`Inputs${options.small ? " (--small)" : ""}: ${size.files.toLocaleString("en")} source files, ${(size.tests + 1).toLocaleString("en")} contexts (${size.tests.toLocaleString("en")} \`<nodeid>|run\` + the empty one), ${size.frozen.toLocaleString("en")} frozen tests, ${generation.made.arc_rows.toLocaleString("en")} arc rows, a ${(generation.made.data_file_bytes / 2 ** 20).toFixed(1)} MiB \`.coverage\` written by coverage.py ${generation.made.coverage_version}'s CoverageData API (branch data).`);
    md.push(`Machine: ${machine.cpus} cores (${machine.cpu_model}), ${machine.os}, Node ${machine.node}, ${machine.python}, coverage.py ${machine.coverage_py}; load average ${machine.loadavg_before.join(" ")} before, ${machine.loadavg_after.join(" ")} after.`);
    md.push(`Parity checked before timing and after every run: ${expected.statements} statements, ${expected.covered_lines} covered lines, ${expected.branches} branches, ${expected.covered_branches} covered branches, ${expected.percent}% from both (all contexts: ${all.covered_lines} lines, ${all.covered_branches} branches).`);
    md.push(`Whole-process wall clock, median (min-max) of ${options.runs} interleaved runs after a warm-up (the parity run).`, "");
    md.push("| Command | Wall, median (min-max) |");
    md.push("|---|---|");
    md.push(`| \`coverage json --contexts=<contexts-regex>\` (coverage.py) | ${cell(wall.coveragepy_contexts)} |`);
    md.push(`| \`proofgate coverage --contexts .coverage --report full.json --format json\` | ${cell(wall.proofgate_contexts)} |`);
    md.push(`| \`coverage json\`, all contexts (info: the report proofgate reads) | ${cell(wall.coveragepy_plain_json)} |`);
    md.push("");
    md.push(`Speed-up (coverage.py median / proofgate median): **${speedup.toFixed(1)}x**; target >= ${TARGET_SPEEDUP}x: **${met ? "met" : "not met"}**${options.small ? " (the target is for the full size; --small is a quick check of the harness)" : ""}.`);
    if (rss.proofgate) md.push(`proofgate peak RSS (GNU time %M, one run): ${(rss.proofgate / 1024).toFixed(0)} MiB.`);
    const markdown = `${md.join("\n")}\n`;
    process.stdout.write(markdown);

    const resultsDir = join(here, "results");
    mkdirSync(resultsDir, { recursive: true });
    const json = {
      started_at: startedAt.toISOString(),
      command: `node tooling/bench/contexts.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(" ")}` : ""}`,
      runs: options.runs,
      machine,
      inputs: generation,
      parity: { contexts: expected, all_contexts: all },
      wall,
      peak_rss_kib: rss,
      speedup,
      target: { speedup: TARGET_SPEEDUP, met },
    };
    const file = join(resultsDir, `contexts-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(join(resultsDir, "contexts-latest.json"), `${JSON.stringify(json, null, 2)}\n`);
    process.stderr.write(`bench:contexts: wrote ${file.replace(`${root}/`, "")}\n`);
  } finally {
    if (!options.keep && !options.data) rmSync(dir, { recursive: true, force: true });
  }
}

await main();

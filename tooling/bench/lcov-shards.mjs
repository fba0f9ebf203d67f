#!/usr/bin/env node
// proofgate's shard-merge memory benchmark (issue 3, "Show", last bullet): `proofgate coverage` merging
// 20 LCOV shards of about 25 MB each, with a peak memory target of at most 1 GiB.
//
//   pnpm build && pnpm --filter @proofgate/bench bench:lcov     # from the repo root
//   node tooling/bench/lcov-shards.mjs --small                   # a quick check (20 shards of ~1 MB)
//
// Options: --runs N (default 3), --small, --cli PATH (default packages/cli/dist/proofgate.js),
// --baseline-cli PATH (also measure another build once, e.g. one from before streaming), --keep.
//
// The shards describe the same files and the same statements and branches; each covered line and
// branch is covered by exactly one shard (some by none), so the union is meaningful and its totals are
// known in advance. Checks before measuring: proofgate's totals equal those known totals, and on a
// small case (3 shards of the same shape) they also equal core's non-streamed `readLcov` +
// `mergeCoverageShards` from the core dist beside the CLI. Peak RSS comes from GNU time (`%M`, needs
// /usr/bin/time). Output: Markdown on stdout, JSON under tooling/bench/results/.
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  absolutePath,
  clock,
  coverageCounts,
  firstDifference,
  fromRoot,
  GNU_TIME,
  hasGnuTime,
  machineInfo,
  machineLine,
  makeFail,
  median,
  parseOptions,
  publish,
  root,
  run,
  table,
  wholeNumber,
} from "./lib.mjs";

const SHARDS = 20;
const TARGET_KIB = 1024 * 1024;
const SIZES = {
  full: { files: 4160, lines: 500, branchLines: 50 },
  small: { files: 150, lines: 500, branchLines: 50 },
};

const fail = makeFail("bench:lcov");

const OPTIONS = {
  runs: { value: "N", default: 3, parse: wholeNumber(1) },
  small: { default: false },
  cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js"), parse: absolutePath },
  "baseline-cli": { value: "PATH", default: undefined, parse: absolutePath },
  keep: { default: false },
};

// ---------------------------------------------------------------------------------------------- shards

/** Which shard covers statement `line` of file `f`: 0..SHARDS-1, or -1 (no shard: a missed line). */
const lineOwner = (f, line) => {
  const c = (f * 7 + line * 13) % 25;
  return c < SHARDS ? c : -1;
};
/** Which shard takes branch `b` (0 or 1) of branch line `line` of file `f`, or -1. */
const branchOwner = (f, line, b) => {
  const c = (f * 11 + line * 3 + b * 17) % 23;
  return c < SHARDS ? c : -1;
};

/** The statement lines of every file: `lines` of them, with a gap every 7th line (comments, blanks). */
function statementLines(count) {
  const out = [];
  for (let line = 1; out.length < count; line++) if (line % 7 !== 0) out.push(line);
  return out;
}

/** Writes the shards; returns their paths, sizes and the totals the union must have. */
function writeShards(dir, size, shards) {
  const lines = statementLines(size.lines);
  const branchLines = lines
    .filter((_, i) => i % Math.floor(size.lines / size.branchLines) === 3)
    .slice(0, size.branchLines);
  const totals = { statements: 0, covered_lines: 0, branches: 0, covered_branches: 0 };
  for (let f = 0; f < size.files; f++) {
    for (const line of lines) {
      totals.statements++;
      if (lineOwner(f, line) >= 0 && lineOwner(f, line) < shards) totals.covered_lines++;
    }
    for (const line of branchLines) {
      for (const b of [0, 1]) {
        totals.branches++;
        const owner = branchOwner(f, line, b);
        if (owner >= 0 && owner < shards) totals.covered_branches++;
      }
    }
  }
  const paths = [];
  for (let s = 0; s < shards; s++) {
    const path = join(dir, `shard-${String(s + 1).padStart(2, "0")}.info`);
    const fd = openSync(path, "w");
    let buf = "";
    const flush = () => {
      writeSync(fd, buf);
      buf = "";
    };
    for (let f = 0; f < size.files; f++) {
      const name = `src/area_${String(f % 40).padStart(2, "0")}/module_${String(f).padStart(5, "0")}.ts`;
      buf += `TN:\nSF:${name}\nFN:1,${lines.at(-1)},module_${f}\nFNDA:1,module_${f}\nFNF:1\nFNH:1\n`;
      let hit = 0;
      for (const line of lines) {
        const mine = lineOwner(f, line) === s;
        if (mine) hit++;
        buf += `DA:${line},${mine ? 1 + ((f + line) % 9) : 0}\n`;
      }
      let taken = 0;
      for (const line of branchLines) {
        for (const b of [0, 1]) {
          const mine = branchOwner(f, line, b) === s;
          if (mine) taken++;
          buf += `BRDA:${line},0,${b},${mine ? 1 + (line % 5) : "-"}\n`;
        }
      }
      buf += `LF:${lines.length}\nLH:${hit}\nBRF:${branchLines.length * 2}\nBRH:${taken}\nend_of_record\n`;
      if (buf.length > 1 << 20) flush();
    }
    flush();
    closeSync(fd);
    paths.push(path);
  }
  const bytes = paths.map((p) => statSync(p).size);
  return { paths, bytes, totals };
}

// ---------------------------------------------------------------------------------------------- runs

/** Runs the command once: wall time, peak RSS (KiB) of the process, exit status and stdout. */
function measure(cmd, cwd, dir) {
  const result = run(cmd, {
    cwd,
    stdio: "pipe",
    maxBuffer: 1 << 26,
    time: { format: "%M", out: join(dir, "rss.txt") },
  });
  return {
    ms: result.ms,
    kib: result.fields ? result.fields[0] : null,
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/** The core build beside a CLI build: <repo>/packages/cli/dist/proofgate.js -> <repo>/packages/core/dist/index.js. */
const coreOf = (cli) => resolve(dirname(cli), "../../core/dist/index.js");

function totalsOf(stdout, what) {
  let j;
  try {
    j = JSON.parse(stdout);
  } catch {
    fail(`${what} did not print JSON: ${stdout.slice(0, 500)}`);
  }
  return coverageCounts(j);
}

function same(expected, got, what) {
  const key = firstDifference(expected, got);
  if (key !== undefined) fail(`${what}: ${key} is ${got[key]}, expected ${expected[key]}`);
}

/** The small-case check against core's non-streamed reader and merge. */
async function nonStreamedCheck(dir, options, node) {
  const core = await import(pathToFileURL(coreOf(options.cli)).href);
  const smallDir = join(dir, "check");
  mkdirSync(smallDir, { recursive: true });
  // Files large enough (well over 64 KiB each) that the CLI streams them.
  const size = { files: 60, lines: 500, branchLines: 50 };
  const { paths, bytes, totals } = writeShards(smallDir, size, 3);
  const parsed = paths.map((p) => core.readLcov(readFileSync(p, "utf8"), p, { root: smallDir }));
  const bad = parsed.flatMap((r) => r.errors);
  if (bad.length) fail(`core's readLcov rejected the generated shards: ${JSON.stringify(bad).slice(0, 500)}`);
  const merged = core.mergeCoverageShards(parsed.map((r) => r.data));
  if (merged.errors.length) fail(`core's mergeCoverageShards failed: ${JSON.stringify(merged.errors).slice(0, 500)}`);
  const s = core.summarizeCoverage(merged.data);
  const reference = {
    statements: s.statements,
    covered_lines: s.coveredLines,
    branches: s.branches,
    covered_branches: s.coveredBranches,
  };
  same(totals, reference, "non-streamed readLcov + mergeCoverageShards against the generator's totals");
  const cli = measure(
    [
      node,
      options.cli,
      "coverage",
      "--freeze",
      join(dir, "freeze.toml"),
      ...paths.flatMap((p) => ["--report", p]),
      "--format",
      "json",
    ],
    smallDir,
    dir,
  );
  if (cli.status !== 0) fail(`proofgate coverage (small check) exited ${cli.status}:\n${cli.stderr.slice(0, 2000)}`);
  same(
    reference,
    totalsOf(cli.stdout, "proofgate coverage (small check)"),
    "proofgate (streamed) against non-streamed core on 3 small shards",
  );
  // Per-file, too: the streamed reader fed in odd-sized chunks gives the same model as readLcov.
  const text = readFileSync(paths[0], "utf8");
  const whole = core.readLcov(text, paths[0]);
  const stream = new core.LcovStreamReader(paths[0]);
  for (let at = 0; at < text.length; at += 9973) stream.push(text.slice(at, at + 9973));
  const streamed = stream.end();
  const dump = (r) =>
    JSON.stringify(
      [...r.data.files.values()].map((f) => [
        f.path,
        [...f.statements],
        [...f.coveredStatements],
        [...f.branches],
        [...f.coveredBranches],
      ]),
    );
  if (dump(whole) !== dump(streamed))
    fail("LcovStreamReader fed in 9,973-character chunks differs from readLcov on the same text");
  return { shards: paths.length, bytes: bytes.reduce((a, b) => a + b, 0), totals: reference };
}

async function main() {
  const options = parseOptions("lcov-shards.mjs", OPTIONS, fail);
  const size = options.small ? SIZES.small : SIZES.full;
  if (!existsSync(options.cli)) fail(`${options.cli} is missing: run \`pnpm build\` first (or pass --cli PATH)`);
  if (!existsSync(coreOf(options.cli))) fail(`${coreOf(options.cli)} is missing: run \`pnpm build\` first`);
  if (!hasGnuTime) fail(`${GNU_TIME} (GNU time) is missing: it measures the peak RSS`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), "proofgate-bench-lcov-"));
  const node = process.execPath;
  try {
    writeFileSync(join(dir, "freeze.toml"), "version = 1\nmax_active_leases = 0\n");
    const check = await nonStreamedCheck(dir, options, node);
    process.stderr.write(
      `bench:lcov: small check ok: 3 shards, streamed CLI = non-streamed core = ${JSON.stringify(check.totals)}\n`,
    );

    process.stderr.write(`bench:lcov: writing ${SHARDS} shards of ${size.files} files into ${dir} ...\n`);
    const generation = clock();
    const { paths, bytes, totals } = writeShards(dir, size, SHARDS);
    const generateMs = generation();
    const cmd = (cli) => [
      node,
      cli,
      "coverage",
      "--freeze",
      "freeze.toml",
      ...paths.flatMap((p) => ["--report", p]),
      "--format",
      "json",
    ];

    const runs = [];
    for (let r = 1; r <= options.runs; r++) {
      const m = measure(cmd(options.cli), dir, dir);
      if (m.status !== 0) fail(`proofgate coverage exited ${m.status}:\n${m.stderr.slice(0, 2000)}`);
      same(
        totals,
        totalsOf(m.stdout, "proofgate coverage"),
        `run ${r}: proofgate's merged totals against the generator's`,
      );
      runs.push({ ms: m.ms, kib: m.kib });
      process.stderr.write(
        `bench:lcov: run ${r}/${options.runs}: ${(m.ms / 1000).toFixed(1)} s, peak RSS ${m.kib === null ? "n/a" : `${(m.kib / 1024).toFixed(0)} MiB`}\n`,
      );
    }
    let baseline = null;
    if (options.baselineCli) {
      const m = measure(cmd(options.baselineCli), dir, dir);
      baseline = {
        cli: options.baselineCli,
        ms: m.ms,
        kib: m.kib,
        status: m.status,
        totals_match:
          m.status === 0 ? JSON.stringify(totalsOf(m.stdout, "baseline")) === JSON.stringify(totals) : false,
      };
      process.stderr.write(
        `bench:lcov: baseline: exit ${m.status}, ${(m.ms / 1000).toFixed(1)} s, peak RSS ${m.kib === null ? "n/a" : `${(m.kib / 1024).toFixed(0)} MiB`}\n`,
      );
    }

    const kibs = runs.map((r) => r.kib).filter((k) => k !== null);
    const peak = kibs.length ? Math.max(...kibs) : null;
    const met = peak !== null && peak <= TARGET_KIB;
    const machine = machineInfo(loadBefore);
    const mib = (kib) => (kib === null ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`);
    const totalBytes = bytes.reduce((a, b) => a + b, 0);
    const md = [];
    md.push(`## LCOV shard merge benchmark (${startedAt.toISOString()})`, "");
    md.push(
      `Inputs${options.small ? " (--small)" : ""}: ${SHARDS} LCOV shards, ${(Math.min(...bytes) / 1e6).toFixed(1)}-${(Math.max(...bytes) / 1e6).toFixed(1)} MB each (${(totalBytes / 1e6).toFixed(0)} MB in all), ${size.files.toLocaleString("en")} files x ${size.lines} statements and ${size.branchLines * 2} branches each; every covered line and branch covered by exactly one shard. Union: ${totals.statements.toLocaleString("en")} statements, ${totals.covered_lines.toLocaleString("en")} covered, ${totals.branches.toLocaleString("en")} branches, ${totals.covered_branches.toLocaleString("en")} covered.`,
    );
    md.push(machineLine(machine));
    md.push(
      `Checks: every run's totals equal the known union; on 3 smaller shards (${(check.bytes / 1e6).toFixed(1)} MB, streamed by the CLI) the CLI equals core's non-streamed \`readLcov\` + \`mergeCoverageShards\`, and \`LcovStreamReader\` fed in 9,973-character chunks gives the same per-file model as \`readLcov\`.`,
      "",
    );
    const rows = [
      [
        "`proofgate coverage --report shard-01.info ... --report shard-20.info --format json`",
        runs.length,
        mib(peak),
        `${(median(runs.map((r) => r.ms)) / 1000).toFixed(1)} s`,
      ],
    ];
    if (baseline)
      rows.push([
        `the same with ${fromRoot(baseline.cli)} (baseline)`,
        1,
        mib(baseline.kib),
        `${(baseline.ms / 1000).toFixed(1)} s${baseline.status !== 0 ? ` (exit ${baseline.status})` : ""}`,
      ]);
    md.push(...table(["Command", "Runs", "Peak RSS (GNU time %M), max", "Wall, median"], rows), "");
    md.push(
      `Target: peak memory <= 1 GiB: **${met ? "met" : "not met"}** (${mib(peak)})${options.small ? " (the target is for the full size; --small is a quick check of the harness)" : ""}.`,
    );
    publish({
      tag: "bench:lcov",
      script: "lcov-shards.mjs",
      prefix: "lcov",
      startedAt,
      markdown: md,
      data: {
        machine,
        inputs: { shards: SHARDS, ...size, shard_bytes: bytes, generate_ms: generateMs },
        totals,
        small_check: check,
        runs,
        peak_rss_kib: peak,
        baseline,
        target: { peak_rss_kib: TARGET_KIB, met },
      },
    });
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`bench:lcov: inputs kept in ${dir}\n`);
  }
}

await main();

#!/usr/bin/env node
// proofgate's `lock` benchmark (issue 4, "Show"): hashing the fixtures into fixtures.lock, against the
// article's pipeline `find tests/fixtures -type f -print0 | sort -z | xargs -0 sha256sum > fixtures.lock`.
//
//   pnpm build && pnpm --filter @proofgate/bench bench:lock        # or: node tooling/bench/lock.mjs
//
// Options: --runs N (rounds after one warm-up, default 5, at least 3: fewer than 5 only when asked, and
// the report says so), --only SHAPE[,SHAPE...] (default big,small), --keep (keep the generated trees),
// --dir PATH (where to generate them; default the OS temp folder).
//
// The trees, each generated once into a temp folder (with a fixed seed):
//   big:   1 GiB in 10,000 files (sizes 0.5x-1.5x of the mean, summing to exactly 1 GiB), 100 folders (issue 4)
//   small: 100,000 files of 2 KiB, 100 folders of 1,000 (issue 4)
//   mid:   192 MiB in 96 files of 2 MiB, one per folder (issue 25 item 3, target >= 2x)
//   20k:   20,000 files of 2 KiB, 100 folders of 200 (issue 25 item 3, target >= 1.5x)
// Before any timing, both tools run once and their locks must list the same paths with the same digests
// (and, in the C.UTF-8 or C locale, be byte-identical). Then whole processes are timed by wall clock,
// interleaved (A, B, then B, A, ...), and the median is reported; peak RSS of proofgate comes from
// `/usr/bin/time -f %M`. The page cache is warm: the trees were just written and fit in memory. They are
// flushed to disk (`sync`) before any run, so the kernel's writeback of the generator's dirty pages does
// not compete with the timed runs.
// Output: a Markdown report on stdout and JSON under tooling/bench/results/ (gitignored).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import {
  absolutePath,
  hasGnuTime,
  interleave,
  makeFail,
  median,
  oneOf,
  parseOptions,
  root,
  run,
  table,
  wholeNumber,
  writeResults,
} from "./lib.mjs";

const BUNDLE = join(root, "packages/cli/dist/proofgate.js");
const PIPELINE = "find tests/fixtures -type f -print0 | sort -z | xargs -0 sha256sum > fixtures.lock";
const TARGET_RSS_MIB = 256;
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** The trees: file count, sizes (a fixed size, or varying around the mean to an exact total), the target. */
const SHAPES = {
  big: { label: "1 GiB in 10,000 files", files: 10_000, total: GiB, ext: "bin", seed: 1, target: 2 },
  small: { label: "100,000 files of 2 KiB", files: 100_000, size: 2048, ext: "json", seed: 2, target: 2 },
  mid: { label: "192 MiB in 96 files", files: 96, size: 2 * MiB, ext: "bin", seed: 3, target: 2 },
  "20k": { label: "20,000 files of 2 KiB", files: 20_000, size: 2048, ext: "json", seed: 4, target: 1.5 },
};

const fail = makeFail("bench lock");

const OPTIONS = {
  runs: { value: "N", default: 5, parse: wholeNumber(3) },
  only: {
    value: Object.keys(SHAPES).join("|"),
    default: undefined,
    parse: (text, context) => text.split(",").map((name) => oneOf(...Object.keys(SHAPES))(name, context)),
  },
  keep: { default: false },
  dir: { value: "PATH", default: tmpdir(), parse: absolutePath },
  // Another build of the CLI (e.g. one without the lock fast path), timed in the same rounds.
  "baseline-cli": { value: "PATH", default: undefined, parse: absolutePath },
};

// ---------------------------------------------------------------------------------------------- inputs

/** A deterministic generator (mulberry32), so every run hashes the same trees. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 16 MiB of pseudo-random bytes; files are slices at varying offsets (sha256 cost does not depend on content). */
function pool(seed) {
  const bytes = Buffer.alloc(16 * 1024 * 1024);
  let block = createHash("sha256").update(String(seed)).digest();
  for (let i = 0; i < bytes.length; i += 32) {
    block.copy(bytes, i);
    block = createHash("sha256").update(block).digest();
  }
  return bytes;
}

function generate(dir, name) {
  const shape = SHAPES[name];
  const repo = join(dir, name);
  const fixtures = join(repo, "tests/fixtures");
  const rnd = random(shape.seed);
  const bytes = pool(shape.seed);
  const count = shape.files;
  const folders = Math.min(100, count);
  const digits = String(count - 1).length;
  let sizes;
  if (shape.size !== undefined) sizes = new Array(count).fill(shape.size);
  else {
    const mean = shape.total / count;
    sizes = Array.from({ length: count }, () => Math.floor(mean * (0.5 + rnd())));
    const sum = sizes.reduce((a, b) => a + b, 0);
    sizes[count - 1] += shape.total - sum; // exactly the total
  }
  let total = 0;
  for (let i = 0; i < count; i++) {
    const folder = join(fixtures, `d${String(i % folders).padStart(2, "0")}`);
    if (i < folders) mkdirSync(folder, { recursive: true });
    const size = sizes[i];
    // Pool-sized files (2 MiB is within 16 MiB) are slices at varying offsets, like the others.
    const offset = Math.floor(rnd() * (bytes.length - size));
    writeFileSync(
      join(folder, `f${String(i).padStart(digits, "0")}.${shape.ext}`),
      bytes.subarray(offset, offset + size),
    );
    total += size;
  }
  return { name, repo, files: count, bytes: total };
}

// ---------------------------------------------------------------------------------------------- runs

const members = {
  pipeline: (repo) => ({ cmd: ["bash", "-c", PIPELINE], cwd: repo, lock: join(repo, "fixtures.lock") }),
  proofgate: (repo) => ({
    cmd: [process.execPath, BUNDLE, "lock", "--lock", "proofgate.lock"],
    cwd: repo,
    lock: join(repo, "proofgate.lock"),
  }),
  baseline: (repo) => ({
    cmd: [process.execPath, baselineCli, "lock", "--lock", "baseline.lock"],
    cwd: repo,
    lock: join(repo, "baseline.lock"),
  }),
};

/**
 * One whole run: wall clock from spawn to exit, and from GNU time (when present) the CPU seconds
 * (user + sys, children included: bash waits for its pipeline) and the peak RSS in MiB (%M).
 */
function runOnce(member, repo) {
  const m = members[member](repo);
  rmSync(m.lock, { force: true }); // both write a fresh lock every run
  const out = join(dirname(repo), `time-${member}.out`);
  const r = run(m.cmd, { cwd: m.cwd, time: hasGnuTime ? { format: "%U %S %M", out } : undefined });
  if (r.status !== 0) fail(`${member} exited ${r.status} in ${repo}: ${r.stderr}`);
  if (!hasGnuTime) return { ms: r.ms };
  if (!r.fields) fail(`${member}: GNU time wrote nothing to ${out}`);
  const [user, sys, kib] = r.fields;
  rmSync(out);
  return { ms: r.ms, cpuMs: (user + sys) * 1000, rssMiB: kib / 1024 };
}

function parity(tree) {
  runOnce("pipeline", tree.repo);
  runOnce("proofgate", tree.repo);
  const ref = readFileSync(members.pipeline(tree.repo).lock, "utf8");
  const pg = readFileSync(members.proofgate(tree.repo).lock, "utf8");
  const asMap = (text) =>
    new Map(
      text
        .trimEnd()
        .split("\n")
        .map((l) => [l.slice(66), l.slice(0, 64)]),
    );
  const a = asMap(ref);
  const b = asMap(pg);
  if (a.size !== tree.files || b.size !== tree.files)
    fail(`${tree.name}: expected ${tree.files} lines, the pipeline wrote ${a.size} and proofgate ${b.size}`);
  for (const [path, digest] of a)
    if (b.get(path) !== digest)
      fail(`${tree.name}: digests differ for ${path}: ${digest} (sha256sum) vs ${b.get(path)} (proofgate)`);
  return { sameDigests: true, byteIdentical: ref === pg };
}

function bench(tree, runs) {
  const [pipeline, proofgate, baseline] = interleave(
    [
      () => runOnce("pipeline", tree.repo),
      () => runOnce("proofgate", tree.repo),
      ...(baselineCli ? [() => runOnce("baseline", tree.repo)] : []),
    ],
    runs,
    {
      alternate: true,
      afterRun: () => process.stderr.write("."),
    },
  );
  process.stderr.write("\n");
  return baseline ? { pipeline, proofgate, baseline } : { pipeline, proofgate };
}

// ---------------------------------------------------------------------------------------------- main

const options = parseOptions("lock.mjs", OPTIONS, fail);
if (!existsSync(BUNDLE)) fail(`${BUNDLE} is missing: run \`pnpm build\` first`);
const baselineCli = options.baselineCli;
if (baselineCli && !existsSync(baselineCli)) fail(`--baseline-cli ${baselineCli} does not exist`);
if (!existsSync(options.dir)) fail(`--dir ${options.dir} does not exist: make it first, or leave --dir out`);
const dir = mkdtempSync(join(options.dir, "proofgate-bench-lock-"));
const loadBefore = loadavg();
const started = new Date();
const results = [];
try {
  for (const name of options.only ?? ["big", "small"]) {
    const t0 = Date.now();
    const tree = generate(dir, name);
    const synced = run(["sync"], {});
    if (synced.status !== 0) fail(`sync exited ${synced.status}: ${synced.stderr}`);
    process.stderr.write(
      `bench lock: ${name}: ${tree.files} files, ${(tree.bytes / 2 ** 20).toFixed(0)} MiB generated in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const same = parity(tree);
    const samples = bench(tree, options.runs);
    const pick = (member, key) => samples[member].map((x) => x[key]);
    const result = {
      name,
      files: tree.files,
      bytes: tree.bytes,
      ...same,
      samples,
      loadAfter: loadavg()[0],
      pipelineMs: median(pick("pipeline", "ms")),
      proofgateMs: median(pick("proofgate", "ms")),
      pipelineCpuMs: hasGnuTime ? median(pick("pipeline", "cpuMs")) : undefined,
      proofgateCpuMs: hasGnuTime ? median(pick("proofgate", "cpuMs")) : undefined,
      // The largest peak over every timed run, not one sample.
      peakRssMiB: hasGnuTime ? Math.max(...pick("proofgate", "rssMiB")) : undefined,
    };
    result.speedup = result.pipelineMs / result.proofgateMs;
    if (samples.baseline) {
      result.baselineMs = median(pick("baseline", "ms"));
      result.baselineCpuMs = hasGnuTime ? median(pick("baseline", "cpuMs")) : undefined;
    }
    results.push(result);
    process.stderr.write(
      `bench lock: ${name}: pipeline ${result.pipelineMs.toFixed(0)} ms, proofgate ${result.proofgateMs.toFixed(0)} ms (${result.speedup.toFixed(2)}x), peak RSS ${result.peakRssMiB?.toFixed(1)} MiB${result.baselineMs ? `; baseline build ${result.baselineMs.toFixed(0)} ms (${(result.baselineMs / result.proofgateMs).toFixed(3)}x this build's time)` : ""}\n`,
    );
    if (!options.keep) rmSync(tree.repo, { recursive: true, force: true });
  }
} finally {
  if (!options.keep) rmSync(dir, { recursive: true, force: true });
}
const loadAfter = loadavg();

const fmtMs = (runs, key = "ms") => {
  const xs = runs.map((x) => x[key]);
  return `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
};
let md = `## lock: run of ${started.toISOString().slice(0, 16)}Z, ${options.runs} interleaved runs after one warm-up${options.runs < 5 ? " (fewer than 5: see the note)" : ""}\n\n`;
md += `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / GiB).toFixed(1)} GiB, Linux ${release()}, Node ${process.version}; load average ${loadBefore[0].toFixed(2)} before, ${loadAfter[0].toFixed(2)} after.\n\n`;
const lines = (rows) => `${rows.join("\n")}\n`;
md += lines(
  table(
    [
      "Tree",
      "Pipeline (find, sort -z, xargs sha256sum)",
      "proofgate lock",
      "Speedup",
      "Target",
      "Peak RSS",
      "Target <= 256 MiB",
      "Same digests",
    ],
    results.map((r) => [
      SHAPES[r.name].label,
      fmtMs(r.samples.pipeline),
      fmtMs(r.samples.proofgate),
      `${r.speedup.toFixed(2)}x`,
      `>= ${SHAPES[r.name].target}x: ${r.speedup >= SHAPES[r.name].target ? "met" : "**not met**"}`,
      r.peakRssMiB === undefined ? "n/a" : `${r.peakRssMiB.toFixed(1)} MiB`,
      r.peakRssMiB === undefined ? "n/a" : r.peakRssMiB <= TARGET_RSS_MIB ? "met" : "**not met**",
      `yes${r.byteIdentical ? ", byte-identical lock" : ""}`,
    ]),
  ),
);
if (hasGnuTime) {
  md +=
    "\nCPU time (user + sys, children included), median of the same runs; less sensitive to load than wall clock:\n\n";
  md += lines(
    table(
      ["Tree", "Pipeline CPU", "proofgate CPU", "proofgate CPU / pipeline CPU"],
      results.map((r) => [
        SHAPES[r.name].label,
        fmtMs(r.samples.pipeline, "cpuMs"),
        fmtMs(r.samples.proofgate, "cpuMs"),
        (r.proofgateCpuMs / r.pipelineCpuMs).toFixed(2),
      ]),
    ),
  );
}
process.stdout.write(md);
writeResults(
  "lock",
  started,
  {
    started: started.toISOString(),
    runs: options.runs,
    loadBefore,
    loadAfter,
    cores: availableParallelism(),
    node: process.version,
    results,
  },
  { newline: false },
);

#!/usr/bin/env node
// Issue 22 ("Show"): "the frozen-only map and patch coverage add at most 20 % to the single-run contexts
// benchmark". On the data of contexts.mjs (20k contexts over 2k files, 1k frozen, 824k arc rows), in one
// Node process, interleaved, medians of --runs rounds:
//
//   before  provenCoverageFromContexts as it was at --baseline (default 5eed8b4, the commit before the
//           frozen-only lines: no raw sets, no per-frozen-test rows)
//   after   provenCoverageFromContexts now (raw and frozenTests kept) + buildCoverageMap + frozenOnlyFiles
//           (+ patch coverage, once it lands: see PATCH_HOOK below)
//
// Both are bundled from source by the same esbuild (the one packages/cli builds with), so the comparison
// is of the code, not of the toolchains. The rows of `.coverage` are read once (sql.js, as the CLI reads
// them) and handed to both; that read, and the whole `proofgate coverage --contexts` process, are timed
// too, so the added cost can be put against the benchmark as contexts.mjs measures it (the whole process).
// Before timing, both give the same proven totals, and the map's raw totals equal `coverage json`'s
// (full.json, every context kept); every timed round is checked again.
//
//   node tooling/bench/contexts.mjs --data /tmp/ctx --runs 5     # once: makes (and keeps) the inputs
//   node tooling/bench/frozen-only.mjs --data /tmp/ctx --runs 9
//
// Options: --data DIR (required: a folder contexts.mjs made, or make_contexts_data.py + `coverage json -o
// full.json`), --runs N (default 7, at least 5), --baseline REF (a git revision of this repository),
// --after REF (time core's coverage code at REF instead of the work tree's), --cli PATH (the built CLI,
// for the whole-process time; default packages/cli/dist/proofgate.js).
// Output: Markdown on stdout, JSON under tooling/bench/results/frozen-only-*.json.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  absolutePath,
  clock,
  interleave,
  machineInfo,
  machineLine,
  makeFail,
  median,
  parseOptions,
  publish,
  root,
  stats,
  table,
  wholeNumber,
} from "./lib.mjs";

const TARGET = 0.2;
const fail = makeFail("bench:frozen-only");

const OPTIONS = {
  data: { value: "DIR", default: undefined, parse: absolutePath },
  runs: { value: "N", default: 7, parse: wholeNumber(5, " (a median of at least 5 runs)") },
  baseline: { value: "REF", default: "5eed8b4" },
  after: { value: "REF", default: undefined },
  cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js"), parse: absolutePath },
};

/**
 * Stages timed after the map, as part of "after". Patch coverage (issue 22): a patch that changes the first
 * ten statements and five lines past the last of every measured file (2,000 files: a large patch), made
 * once from the first map and handed to `patchCoverage` every round. Added when --after's core has it.
 */
const EXTRA_STAGES = [];
let patchChanges;
const PATCH_STAGE = {
  name: "patchCoverage",
  run: (mod, s) => {
    patchChanges ??= [...s.map.files.values()].map((f) => {
      const last = f.statements.at(-1) ?? 0;
      return { path: f.path, added: [...f.statements.slice(0, 10), last + 1, last + 2, last + 3, last + 4, last + 5] };
    });
    const p = mod.patchCoverage(patchChanges, s.map);
    if (p.coverable === 0) fail("patchCoverage: the synthetic patch covers no statement");
    return p;
  },
};

const CORE_COVERAGE = join(root, "packages/core/src/coverage");
const AFTER_ENTRY = `export { provenCoverageFromContexts } from "./contexts.js";
export { buildCoverageMap, frozenOnlyFiles } from "./frozen-only.js";
`;

/** packages/core/src as it was at `sha`, extracted under `dir`: its coverage folder. */
function coreAt(sha, dir) {
  const to = join(dir, sha);
  mkdirSync(to, { recursive: true });
  const tar = spawnSync("sh", ["-c", `git archive ${sha} packages/core/src | tar -x -C '${to}'`], {
    cwd: root,
    encoding: "utf8",
  });
  if (tar.status !== 0) fail(`git archive ${sha}: ${tar.stderr}`);
  return join(to, "packages/core/src/coverage");
}

/** Bundles TypeScript `contents` (resolved from `from`, a core coverage folder) to an ES module in `dir`; imports it. */
async function bundle(esbuild, contents, name, dir, from) {
  const out = join(dir, `${name}.mjs`);
  await esbuild.build({
    stdin: { contents, resolveDir: from, sourcefile: `${name}.ts`, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile: out,
    logLevel: "error",
  });
  return import(pathToFileURL(out).href);
}

const frozenIds = (ledger) =>
  [...ledger.matchAll(/^nodeid\s*=\s*"((?:[^"\\]|\\.)*)"/gm)].map((m) => JSON.parse(`"${m[1]}"`));

const totals = (s) => ({
  statements: s.statements,
  covered_lines: s.coveredLines,
  branches: s.branches,
  covered_branches: s.coveredBranches,
});

function same(a, b, what) {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  if (x !== y) fail(`${what} differ:\n  ${x}\n  ${y}`);
}

async function main() {
  const options = parseOptions("frozen-only.mjs", OPTIONS, fail);
  const dir = options.data;
  if (!dir) fail("--data DIR is required (run `node tooling/bench/contexts.mjs --data DIR` once to make it)");
  for (const f of [".coverage", "full.json", "freeze.toml"])
    if (!existsSync(join(dir, f))) fail(`${join(dir, f)} is missing: make the inputs with contexts.mjs --data ${dir}`);
  if (!existsSync(join(root, "packages/gate/dist/node/coverage-data-file.js")))
    fail("packages/gate/dist is missing: run `pnpm build` first");
  const startedAt = new Date();
  const loadBefore = loadavg();
  const esbuild = createRequire(join(root, "packages/cli/package.json"))("esbuild");
  const baselineSha = execFileSync("git", ["rev-parse", options.baseline], { cwd: root, encoding: "utf8" }).trim();
  const headSha = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  const afterSha =
    options.after === undefined
      ? undefined
      : execFileSync("git", ["rev-parse", options.after], { cwd: root, encoding: "utf8" }).trim();
  const scratch = mkdtempSync(join(tmpdir(), "proofgate-bench-frozen-only-"));
  try {
    const before = await bundle(
      esbuild,
      'export { provenCoverageFromContexts } from "./contexts.js";\n',
      "before",
      scratch,
      coreAt(baselineSha, scratch),
    );
    // The work tree's core, or --after's.
    const afterDir = afterSha === undefined ? CORE_COVERAGE : coreAt(afterSha, scratch);
    const withPatch = existsSync(join(afterDir, "patch-coverage.ts"));
    if (withPatch) EXTRA_STAGES.push(PATCH_STAGE);
    const after = await bundle(
      esbuild,
      AFTER_ENTRY + (withPatch ? 'export { patchCoverage } from "./patch-coverage.js";\n' : ""),
      "after",
      scratch,
      afterDir,
    );
    const { readCoverageDataFile } = await import(
      pathToFileURL(join(root, "packages/gate/dist/node/coverage-data-file.js")).href
    );

    // The shared inputs, read once: the rows (as the CLI reads them), the report text, the frozen ids.
    let t = clock();
    const rows = await readCoverageDataFile(join(dir, ".coverage"), dir);
    const readRowsMs = t();
    const reportText = readFileSync(join(dir, "full.json"), "utf8");
    const frozen = frozenIds(readFileSync(join(dir, "freeze.toml"), "utf8"));
    if (frozen.length === 0) fail("freeze.toml names no frozen test");
    const sources = new Map();
    const sourceOf = (path) => {
      if (!sources.has(path)) {
        let text;
        try {
          text = readFileSync(path, "utf8");
        } catch {
          text = undefined;
        }
        sources.set(path, text);
      }
      return sources.get(path);
    };
    for (const f of rows.files) sourceOf(f.path); // read every source once, outside the timings

    const fullTotals = JSON.parse(reportText).totals;
    const expectedRaw = {
      statements: fullTotals.num_statements,
      covered_lines: fullTotals.covered_lines,
      branches: fullTotals.num_branches,
      covered_branches: fullTotals.covered_branches,
    };

    const runBefore = () => {
      const r = before.provenCoverageFromContexts(rows, reportText, "full.json", frozen, sourceOf);
      if (r.errors.length > 0) fail(`before: ${JSON.stringify(r.errors[0])}`);
      return r;
    };
    const parts = {
      contexts: [],
      buildCoverageMap: [],
      frozenOnlyFiles: [],
      ...Object.fromEntries(EXTRA_STAGES.map((s) => [s.name, []])),
    };
    const runAfter = (record) => {
      let tt = clock();
      const r = after.provenCoverageFromContexts(rows, reportText, "full.json", frozen, sourceOf);
      const contextsMs = tt();
      if (r.errors.length > 0) fail(`after: ${JSON.stringify(r.errors[0])}`);
      tt = clock();
      const built = after.buildCoverageMap(r.data, r.raw, r.frozenTests, { proven: "full.json" });
      const mapMs = tt();
      if (built.errors.length > 0 || !built.map) fail(`buildCoverageMap: ${JSON.stringify(built.errors[0])}`);
      tt = clock();
      const files = after.frozenOnlyFiles(built.map);
      const frozenOnlyMs = tt();
      const state = { result: r, map: built.map, files };
      const extra = EXTRA_STAGES.map((s) => {
        const ts = clock();
        s.run(after, state);
        return ts();
      });
      if (record) {
        parts.contexts.push(contextsMs);
        parts.buildCoverageMap.push(mapMs);
        parts.frozenOnlyFiles.push(frozenOnlyMs);
        EXTRA_STAGES.forEach((s, i) => parts[s.name].push(extra[i]));
      }
      return state;
    };

    // Parity (and the warm-up): the same proven totals; the map's raw is `coverage json`'s.
    const b0 = runBefore();
    const a0 = runAfter(false);
    same(totals(b0.summary), totals(a0.result.summary), "proven totals (before, after)");
    same(totals(a0.map.proven), totals(a0.result.summary), "proven totals (map, contexts)");
    same(totals(a0.map.raw), expectedRaw, "raw totals (map, full.json)");
    const frozenLines = a0.files.reduce((n, f) => n + f.lines, 0);
    const frozenBranches = a0.files.reduce((n, f) => n + f.branches, 0);
    if (frozenLines + frozenBranches === 0) fail("no frozen-only line or branch: the inputs do not test the map");
    process.stderr.write(
      `bench:frozen-only: parity ok: proven ${JSON.stringify(totals(b0.summary))}, raw ${JSON.stringify(expectedRaw)}; frozen-only ${frozenLines} lines, ${frozenBranches} branches in ${a0.files.length} files\n`,
    );

    const gc = globalThis.gc ?? (() => {});
    // Wall clock and this process's CPU time (user + system, every thread: the GC's too). On a machine
    // shared with other jobs the CPU time is the steadier of the two: waiting for a core is not in it.
    const cpu = { before: [], after: [] };
    const timed = (side, fn) => {
      gc();
      const c = process.cpuUsage();
      const tt = clock();
      fn();
      const wall = tt();
      const used = process.cpuUsage(c);
      cpu[side].push((used.user + used.system) / 1000);
      return wall;
    };
    const [beforeMs, afterMs] = interleave(
      [
        () => timed("before", () => same(totals(runBefore().summary), totals(b0.summary), "before's totals")),
        () => timed("after", () => same(totals(runAfter(true).map.raw), expectedRaw, "after's raw totals")),
      ],
      options.runs,
      {
        warmUp: true,
        alternate: true,
        afterRound: (r, [x, y]) =>
          process.stderr.write(
            `bench:frozen-only: run ${r}/${options.runs}: before ${x[r - 1].toFixed(0)} ms, after ${y[r - 1].toFixed(0)} ms\n`,
          ),
      },
    );

    // The whole process, as contexts.mjs times it (`proofgate coverage --contexts`, this build: its map included).
    const cliArgs = [
      "coverage",
      "--freeze",
      "freeze.toml",
      "--contexts",
      ".coverage",
      "--report",
      "full.json",
      "--format",
      "json",
    ];
    const cliMs = [];
    if (existsSync(options.cli)) {
      for (let i = 0; i < Math.min(5, options.runs); i++) {
        const tt = clock();
        const r = spawnSync(process.execPath, [options.cli, ...cliArgs], {
          cwd: dir,
          encoding: "utf8",
          maxBuffer: 1 << 28,
        });
        const ms = tt();
        if (r.status !== 0) fail(`proofgate coverage --contexts exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
        cliMs.push(ms);
      }
    }

    const mb = median(beforeMs);
    const ma = median(afterMs);
    // Each round's after / before (the two ran back to back, under the same load), then their median:
    // steadier than the ratio of the medians on a shared machine.
    const ratio = median(afterMs.map((x, i) => x / beforeMs[i]));
    // The warm-up round is in the CPU samples: drop it.
    const cpuBefore = cpu.before.slice(-options.runs);
    const cpuAfter = cpu.after.slice(-options.runs);
    const cpuRatio = median(cpuAfter.map((x, i) => x / cpuBefore[i]));
    const added = (ratio - 1) * mb;
    const cli = cliMs.length > 0 ? median(cliMs) : null;
    // Against the whole benchmark: the process minus what this build adds is what the baseline's process took.
    const ofBenchmark = cli === null ? null : added / (cli - added);
    const partMedians = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v)]));
    const machine = machineInfo(loadBefore, { node: process.version });
    const verdict = (x) => (x <= TARGET ? "met" : "NOT met");
    const ms = (x) => `${x.toFixed(0)} ms`;
    const markdown = [
      `### Issue 22: the frozen-only map on the single-run benchmark (${startedAt.toISOString()})`,
      "",
      machineLine(machine),
      "",
      `Data: ${dir} (${rows.contexts.length} contexts, ${rows.files.length} files, ${rows.arcs.fileId.length} arc rows, ${frozen.length} frozen). Baseline ${baselineSha.slice(0, 7)}, after ${afterSha === undefined ? `the work tree (HEAD ${headSha.slice(0, 7)})` : afterSha.slice(0, 7)}; ${options.runs} interleaved rounds in one process, medians (min-max).`,
      "",
      ...table(
        ["stage", "median"],
        [
          [
            `before: provenCoverageFromContexts at ${baselineSha.slice(0, 7)}`,
            `${ms(mb)} (${ms(Math.min(...beforeMs))}-${ms(Math.max(...beforeMs))})`,
          ],
          [
            "after: contexts + buildCoverageMap + frozenOnlyFiles",
            `${ms(ma)} (${ms(Math.min(...afterMs))}-${ms(Math.max(...afterMs))})`,
          ],
          ...Object.entries(partMedians).map(([k, v]) => [`  of which ${k}`, ms(v)]),
          ["before, CPU time", ms(median(cpuBefore))],
          ["after, CPU time", ms(median(cpuAfter))],
          ["reading `.coverage` with sql.js (once, shared)", ms(readRowsMs)],
          ["`proofgate coverage --contexts`, whole process (this build)", cli === null ? "not run" : ms(cli)],
        ],
      ),
      "",
      `After / before (median of the rounds' ratios): **${ratio.toFixed(3)}** (+${ms(added)} on the median before; ratio of the medians ${(ma / mb).toFixed(3)}); against the whole benchmark process: ${ofBenchmark === null ? "not measured" : `**+${(100 * ofBenchmark).toFixed(1)} %**`}. CPU time after / before (median of the rounds' ratios): **${cpuRatio.toFixed(3)}**. Target +${100 * TARGET} %: ${verdict(ofBenchmark ?? ratio - 1)} on the whole process; in process ${verdict(ratio - 1)} (wall), ${verdict(cpuRatio - 1)} (CPU).`,
      EXTRA_STAGES.length === 0 ? "Patch coverage: not in this build (no patch-coverage.ts in its core)." : "",
    ];
    publish({
      tag: "bench:frozen-only",
      script: "frozen-only.mjs",
      prefix: "frozen-only",
      startedAt,
      markdown,
      data: {
        machine,
        data: dir,
        baseline: baselineSha,
        head: headSha,
        after_ref: afterSha ?? "work tree",
        frozen_only: { lines: frozenLines, branches: frozenBranches, files: a0.files.length },
        before: stats(beforeMs),
        after: stats(afterMs),
        after_parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, stats(v)])),
        read_rows_ms: readRowsMs,
        cli: cliMs.length > 0 ? stats(cliMs) : null,
        ratio,
        ratio_of_medians: ma / mb,
        cpu_before: stats(cpuBefore),
        cpu_after: stats(cpuAfter),
        cpu_ratio: cpuRatio,
        added_of_benchmark: ofBenchmark,
        target: TARGET,
        patch_coverage: EXTRA_STAGES.length > 0,
      },
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();

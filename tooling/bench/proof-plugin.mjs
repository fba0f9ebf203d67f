#!/usr/bin/env node
// What the proof plugin costs (issue 15): a pytest run of a few hundred tests without any plugin, with
// today's deselection plugin, and with the proof plugin writing its signed run record (audit hook,
// per-phase views, the record at session end); each also under pytest-cov, as the gate's proof step runs.
//
//   pnpm build && pnpm --filter @proofgate/bench bench:proof-plugin        # from the repo root
//   node tooling/bench/proof-plugin.mjs --runs 11 --tests 400
//
// Options: --runs N (default 11, at least 5), --tests N (default 400), --python PATH (default
// /usr/bin/python3, with pytest and pytest-cov), --keep (keep the generated project).
//
// Before timing, every variant must pass the same tests, the deselecting ones must deselect the same
// leased ids, and the proof plugin's record must verify with one outcome per test; every timed run is
// checked for its exit code and, for the proof plugin, a fresh verified record. Runs are interleaved
// (A, B, C, ..., then again) after one warm-up round; the report gives medians and the min-max range.
// Output: Markdown on stdout, JSON under tooling/bench/results/.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { renderDeselectPlugin } from "../../packages/core/dist/index.js";
import {
  proofPluginModuleName,
  proofRunEnvironment,
  renderProofPlugin,
  verifyRunRecord,
} from "../../packages/core/dist/proof-run/index.js";
import {
  clock,
  hasGnuTime,
  interleave,
  machineInfo,
  machineLine,
  makeFail,
  median,
  parseOptions,
  publish,
  run,
  stats,
  table,
  wholeNumber,
} from "./lib.mjs";

const fail = makeFail("bench:proof-plugin");

const OPTIONS = {
  runs: { value: "N", default: 11, parse: wholeNumber(5, " (a median of at least 5 runs)") },
  tests: { value: "N", default: 400, parse: wholeNumber(20, "") },
  python: { value: "PATH", default: "/usr/bin/python3" },
  keep: { default: false },
};

const PER_MODULE = 20;
const LEASED = 10;

/** A project of `tests` tests in modules of 20: arithmetic, a fixture, every fifth test reads a locked file. */
function makeProject(dir, tests) {
  const write = (path, text) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write(
    "src/calc.py",
    "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    if a == 0:\n        return 0\n    return a * b\n",
  );
  write("tests/fixtures/expected.txt", "42\n");
  write("tests/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef base():\n    return 40\n");
  const ids = [];
  for (let m = 0; m * PER_MODULE < tests; m++) {
    const lines = ["from calc import add, mul", ""];
    for (let t = 0; t < PER_MODULE && m * PER_MODULE + t < tests; t++) {
      const n = m * PER_MODULE + t;
      lines.push("");
      if (n % 5 === 0) {
        lines.push(
          `def test_${n}(base):`,
          '    with open("tests/fixtures/expected.txt") as f:',
          "        assert add(base, 2) == int(f.read())",
        );
      } else {
        lines.push(`def test_${n}():`, `    assert mul(${n}, 2) == add(${n}, ${n})`);
      }
      lines.push("");
      ids.push(`tests/test_m${m}.py::test_${n}`);
    }
    write(`tests/test_m${m}.py`, lines.join("\n"));
  }
  return ids;
}

async function main() {
  const options = parseOptions("proof-plugin.mjs", OPTIONS, fail);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), "proofgate-bench-plugin-"));
  try {
    const ids = makeProject(dir, options.tests);
    const leased = ids.filter((_, i) => i % Math.floor(ids.length / LEASED) === 1).slice(0, LEASED);
    const plan = { today: "2026-09-20", active: leased.map((nodeid) => ({ nodeid })) };
    const out = join(dir, "proofgate-report");
    const pluginDir = join(out, "pytest");
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(join(pluginDir, "proofgate_frozen.py"), renderDeselectPlugin(plan, "freeze.toml"));
    const record = join(out, "run-record.json");
    const base = {
      PATH: process.env.PATH,
      PYTHONPATH: join(dir, "src"),
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const pytest = (extra) => [options.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", ...extra];
    const cov = ["--cov=src", "--cov-branch", "--cov-report="];

    /** A fresh nonce, key and plugin module per run, as the gate makes them. */
    const proofEnv = () => {
      const nonce = randomBytes(16).toString("hex");
      const key = randomBytes(32).toString("hex");
      const moduleName = proofPluginModuleName(nonce);
      writeFileSync(
        join(pluginDir, `${moduleName}.py`),
        renderProofPlugin(plan, { ledgerFile: "freeze.toml", exclude: [out] }),
      );
      rmSync(record, { force: true });
      const env = proofRunEnvironment({
        nonce,
        key,
        record,
        root: dir,
        pluginDir,
        moduleName,
        inherited: { PYTHONPATH: base.PYTHONPATH },
        delimiter: ":",
      });
      return { env: { ...base, ...env }, nonce, key, moduleName };
    };
    const deselectEnv = {
      ...base,
      PYTHONPATH: `${pluginDir}:${base.PYTHONPATH}`,
      PYTEST_ADDOPTS: "-p proofgate_frozen",
    };

    const expectedPassed = ids.length - leased.length;
    const summary = (stdout) => {
      const line = stdout.trim().split("\n").pop();
      const count = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
      return { passed: count("passed"), deselected: count("deselected"), failed: count("failed"), line };
    };

    const variants = [
      { name: "pytest, no plugin", cmd: pytest([]), env: () => ({ env: base }), passed: ids.length, deselected: 0 },
      {
        name: "deselection plugin (today's)",
        cmd: pytest([]),
        env: () => ({ env: deselectEnv }),
        passed: expectedPassed,
        deselected: leased.length,
      },
      {
        name: "proof plugin, recording",
        cmd: pytest([]),
        env: proofEnv,
        passed: expectedPassed,
        deselected: leased.length,
        proof: true,
      },
      {
        name: "pytest --cov, no plugin",
        cmd: pytest(cov),
        env: () => ({ env: base }),
        passed: ids.length,
        deselected: 0,
      },
      {
        name: "proof plugin, recording, --cov",
        cmd: pytest(cov),
        env: proofEnv,
        passed: expectedPassed,
        deselected: leased.length,
        proof: true,
      },
    ];

    let recordBytes = 0;
    let verifyMs = [];
    // CPU time (user + system, from GNU time) beside the wall clock: on a loaded machine it moves less.
    const cpu = variants.map(() => []);
    const once = (variant, label) => {
      const { env, nonce, key } = variant.env();
      const time = hasGnuTime ? { format: "%U %S", out: join(dir, "time.txt") } : undefined;
      const result = run(variant.cmd, { cwd: dir, env, time });
      const s = summary(result.stdout);
      if (result.status !== 0 || s.passed !== variant.passed || s.deselected !== variant.deselected || s.failed !== 0)
        fail(
          `${variant.name} (${label}): exit ${result.status}, "${s.line}"; expected ${variant.passed} passed, ${variant.deselected} deselected\n${result.stderr}`,
        );
      if (variant.proof) {
        const text = readFileSync(record, "utf8");
        const elapsed = clock();
        const verified = verifyRunRecord(text, { nonce, key, file: record });
        verifyMs.push(elapsed());
        if (verified.errors.length > 0) fail(`${variant.name} (${label}): ${verified.errors[0].message}`);
        if (
          verified.record.tests.length !== expectedPassed ||
          verified.record.deselected.proofgate.length !== leased.length
        )
          fail(
            `${variant.name} (${label}): the record has ${verified.record.tests.length} tests, ${verified.record.deselected.proofgate.length} deselected`,
          );
        recordBytes = statSync(record).size;
      }
      if (result.fields && label.startsWith("run "))
        cpu[variants.indexOf(variant)].push((result.fields[0] + result.fields[1]) * 1000);
      return result.ms;
    };

    // Parity: every variant once, checked, before any timing.
    for (const variant of variants) once(variant, "parity");
    verifyMs = [];
    process.stderr.write(
      `bench:proof-plugin: ${ids.length} tests, ${leased.length} leased; timing ${options.runs} rounds\n`,
    );
    const samples = interleave(
      variants.map((variant) => (label) => once(variant, label)),
      options.runs,
      { afterRound: (r) => process.stderr.write(`  round ${r}/${options.runs}\n`) },
    );
    const wall = Object.fromEntries(variants.map((v, i) => [v.name, stats(samples[i])]));
    const cpuStats = Object.fromEntries(variants.map((v, i) => [v.name, cpu[i].length > 0 ? stats(cpu[i]) : null]));
    const med = (name) => wall[name].median_ms;
    const cpuMed = (name) => cpuStats[name]?.median_ms;
    const delta = (get, a, b) => {
      const d = get(a) - get(b);
      const pct = (get(a) / get(b) - 1) * 100;
      return `${d >= 0 ? "+" : "-"}${Math.abs(d).toFixed(0)} ms (${pct >= 0 ? "+" : "-"}${Math.abs(pct).toFixed(1)}%)`;
    };
    const versus = (a, b, what) =>
      `wall ${delta(med, a, b)}${cpuMed(a) === undefined ? "" : `, CPU ${delta(cpuMed, a, b)}`} vs ${what}`;
    const machine = machineInfo(loadBefore, {
      python: run([options.python, "--version"]).stdout.trim(),
      pytest: run([options.python, "-c", "import pytest; print(pytest.__version__)"]).stdout.trim(),
    });
    const fmt = (name) =>
      `${med(name).toFixed(0)} ms (${wall[name].min_ms.toFixed(0)}-${wall[name].max_ms.toFixed(0)})`;
    const fmtCpu = (name) => (cpuStats[name] ? `${cpuMed(name).toFixed(0)} ms` : "n/a");
    const row = (name, against, what) => [name, fmt(name), fmtCpu(name), against ? versus(name, against, what) : ""];
    const md = [
      `### Results (${startedAt.toISOString().slice(0, 16)}Z, \`node tooling/bench/proof-plugin.mjs --runs ${options.runs} --tests ${options.tests}\`)`,
      "",
      `Whole-process wall clock and CPU time (user + system) of \`python -m pytest -q\` on ${ids.length} tests (${leased.length} leased), median (min-max) of ${options.runs} interleaved runs after one warm-up.`,
      "",
      ...table(
        ["Variant", "Wall clock", "CPU", "Difference"],
        [
          row("pytest, no plugin"),
          row("deselection plugin (today's)", "pytest, no plugin", "no plugin"),
          row("proof plugin, recording", "deselection plugin (today's)", "today's plugin"),
          row("pytest --cov, no plugin"),
          row("proof plugin, recording, --cov", "pytest --cov, no plugin", "--cov, no plugin"),
        ],
      ),
      "",
      `Record: ${(recordBytes / 1024).toFixed(1)} KiB for ${expectedPassed} tests; verifying it in Node (\`verifyRunRecord\`, pure-TypeScript HMAC): median ${median(verifyMs).toFixed(1)} ms.`,
      "",
      machineLine(machine, { also: [machine.python, `pytest ${machine.pytest}`] }),
    ];
    publish({
      tag: "bench:proof-plugin",
      script: "proof-plugin.mjs",
      prefix: "proof-plugin",
      startedAt,
      markdown: md,
      data: {
        runs: options.runs,
        tests: ids.length,
        leased: leased.length,
        machine,
        wall,
        cpu_ms: cpuStats,
        record_bytes: recordBytes,
        verify_ms: stats(verifyMs),
      },
    });
  } finally {
    if (options.keep) process.stderr.write(`bench:proof-plugin: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();

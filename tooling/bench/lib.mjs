// What the benchmark scripts in tooling/bench share: options, errors, timed processes, GNU time,
// medians, machine details, Markdown tables and the JSON results. Plain ESM, no dependencies.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** This folder, tooling/bench. */
export const benchDir = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const root = resolve(benchDir, "../..");

/** Where the scripts write their JSON results (gitignored). */
const resultsDir = join(benchDir, "results");

/** GNU time, which gives the peak RSS (%M) and the CPU seconds (%U, %S) of a process. */
export const GNU_TIME = "/usr/bin/time";

/** Whether GNU time is installed. */
export const hasGnuTime = existsSync(GNU_TIME);

// ---------------------------------------------------------------------------------------------- options

/** A `fail(message)` that prints `<prefix>: error: <message>` on stderr and exits 2. */
export function makeFail(prefix) {
  return (message) => {
    process.stderr.write(`${prefix}: error: ${message}\n`);
    process.exit(2);
  };
}

/** An option parser that keeps a whole number >= min, or fails with `--name must be a whole number >= min<why>`. */
export const wholeNumber =
  (min, why = "") =>
  (value, { flag, fail }) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) fail(`${flag} must be a whole number >= ${min}${why}`);
    return n;
  };

/** An option parser that keeps one of the given words, or fails with `--name takes a or b`. */
export const oneOf =
  (...choices) =>
  (value, { flag, fail }) => {
    if (!choices.includes(value)) fail(`${flag} takes ${choices.join(" or ")}`);
    return value;
  };

/** An option parser that makes a path absolute (against the working directory). */
export const absolutePath = (value) => resolve(value);

/**
 * Parses argv with node:util parseArgs. `spec` maps each long option (kebab-case) to { value: "N" (a
 * placeholder: the option takes a value; without it, a flag), default, parse(value, { flag, fail }) };
 * the result has the same keys in camelCase. Handled in order, as given: --help/-h prints the usage
 * (built from `spec`) and exits 0; an unknown option, a positional or a missing value calls fail.
 */
export function parseOptions(script, spec, fail, argv = process.argv.slice(2)) {
  const config = { help: { type: "boolean", short: "h" } };
  for (const [name, o] of Object.entries(spec)) config[name] = { type: o.value ? "string" : "boolean" };
  const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  const options = Object.fromEntries(Object.entries(spec).map(([name, o]) => [camel(name), o.default]));
  const { tokens } = parseArgs({ args: argv, options: config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === "option-terminator") fail("unknown option --");
    if (token.kind === "positional") fail(`unknown option ${token.value}`);
    if (token.kind !== "option") continue;
    if (token.name === "help") {
      const usage = Object.entries(spec).map(([name, o]) => `[--${name}${o.value ? ` ${o.value}` : ""}]`);
      process.stdout.write(`usage: node tooling/bench/${script} ${usage.join(" ")}\n`);
      process.exit(0);
    }
    const o = Object.hasOwn(spec, token.name) ? spec[token.name] : undefined;
    if (!o) fail(`unknown option ${token.rawName}${token.inlineValue ? `=${token.value}` : ""}`);
    const flag = `--${token.name}`;
    if (!o.value) options[camel(token.name)] = true;
    else if (token.value === undefined) fail(`${flag} needs a value`);
    else options[camel(token.name)] = o.parse ? o.parse(token.value, { flag, fail }) : token.value;
  }
  return options;
}

// ---------------------------------------------------------------------------------------------- processes

/** A stopwatch: call the returned function for the milliseconds since `clock()`. */
export function clock() {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Runs `cmd` to completion and times it, spawn to exit, in ms (throws when it cannot be spawned).
 * With `time: { format, out }` it runs under GNU time (`-f format -o out`; `out` is removed first) and
 * `fields` holds the numbers of the last line GNU time wrote, or null when it wrote none.
 */
export function run(cmd, { cwd, env, time, stdio = ["ignore", "pipe", "pipe"], maxBuffer = 64 * 1024 * 1024 } = {}) {
  let argv = cmd;
  if (time) {
    rmSync(time.out, { force: true });
    argv = [GNU_TIME, "-f", time.format ?? "%M", "-o", time.out, ...cmd];
  }
  const elapsed = clock();
  const result = spawnSync(argv[0], argv.slice(1), { cwd, env, encoding: "utf8", maxBuffer, stdio });
  const ms = elapsed();
  if (result.error) throw result.error;
  const fields =
    time && existsSync(time.out)
      ? readFileSync(time.out, "utf8").trim().split("\n").pop().split(" ").map(Number)
      : null;
  return { ms, status: result.status, stdout: result.stdout, stderr: result.stderr, fields };
}

/** Peak RSS in KiB of one run of `cmd` through GNU time (output discarded, `rss.txt` in `dir`), or null when GNU time is missing or gives nothing (or, with okOnly, the command failed). */
export function peakRss(cmd, { cwd, env, dir, okOnly = false }) {
  if (!hasGnuTime) return null;
  const result = run(cmd, { cwd, env, stdio: "ignore", time: { format: "%M", out: join(dir, "rss.txt") } });
  if (okOnly && result.status !== 0) return null;
  const kib = result.fields?.[0];
  return Number.isFinite(kib) && kib > 0 ? kib : null;
}

/**
 * Times members interleaved: a warm-up round (unless warmUp is false), then `runs` rounds A, B, A, B, ...
 * (with alternate: A, B, then B, A, ...). Each member is called with "warm-up" or "run N" and returns
 * its sample; afterRun(index) and afterRound(n, samples) report progress. Returns the samples per member.
 */
export function interleave(members, runs, { warmUp = true, alternate = false, afterRun, afterRound } = {}) {
  if (warmUp) for (const member of members) member("warm-up");
  const samples = members.map(() => []);
  const forward = members.map((_, i) => i);
  const backward = [...forward].reverse();
  for (let r = 1; r <= runs; r++) {
    for (const i of alternate && r % 2 === 0 ? backward : forward) {
      samples[i].push(members[i](`run ${r}`));
      afterRun?.(i);
    }
    afterRound?.(r, samples);
  }
  return samples;
}

// ---------------------------------------------------------------------------------------------- numbers

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** { samples_ms, median_ms, min_ms, max_ms } of a list of timings. */
export function stats(samples) {
  return {
    samples_ms: samples,
    median_ms: median(samples),
    min_ms: Math.min(...samples),
    max_ms: Math.max(...samples),
  };
}

/** The four coverage counts of a coverage.py JSON `totals` or a proofgate JSON report (the same field names). */
export function coverageCounts(report) {
  return {
    statements: report.num_statements,
    covered_lines: report.covered_lines,
    branches: report.num_branches,
    covered_branches: report.covered_branches,
  };
}

/** The first key of `expected` whose value `got` does not have, or undefined when all agree. */
export function firstDifference(expected, got) {
  return Object.keys(expected).find((key) => expected[key] !== got[key]);
}

// ---------------------------------------------------------------------------------------------- report

/** The machine, for the JSON results: cores, CPU, memory, OS, Node, then `extra`, then the load averages. */
export function machineInfo(loadBefore, extra = {}) {
  return {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? "unknown",
    memory_gib: +(totalmem() / 2 ** 30).toFixed(1),
    os: `${platform()} ${release()}`,
    node: process.version,
    ...extra,
    loadavg_before: loadBefore.map((x) => +x.toFixed(2)),
    loadavg_after: loadavg().map((x) => +x.toFixed(2)),
  };
}

/** The report's `Machine: ...` line from machineInfo: `also` joins the first part with commas, `notes` follow with semicolons. */
export function machineLine(machine, { also = [], notes = [] } = {}) {
  const head = [`${machine.cpus} cores (${machine.cpu_model})`, machine.os, `Node ${machine.node}`, ...also].join(", ");
  const load = `load average ${machine.loadavg_before.join(" ")} before, ${machine.loadavg_after.join(" ")} after`;
  return `Machine: ${[head, ...notes, load].join("; ")}.`;
}

/** A Markdown table as lines: the header row, the `|---|` row, then one row per array of cells. */
export function table(header, rows) {
  const line = (cells) => `|${cells.map((c) => (c === "" ? " " : ` ${c} `)).join("|")}|`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)];
}

/** A path with the repository root taken off the front. */
export const fromRoot = (path) => path.replace(`${root}/`, "");

/** How the script was called, for the JSON results: `node tooling/bench/<script> <args>`. */
function commandLine(script) {
  const args = process.argv.slice(2);
  return `node tooling/bench/${script}${args.length ? ` ${args.join(" ")}` : ""}`;
}

/**
 * Prints the Markdown report (`markdown`, lines) on stdout, writes { started_at, command, ...data } with
 * writeResults(prefix, startedAt, ..., { latest }) and says so on stderr as `<tag>: wrote <file><note>`.
 */
export function publish({ tag, script, prefix, startedAt, markdown, data, latest, note = "" }) {
  process.stdout.write(`${markdown.join("\n")}\n`);
  const file = writeResults(
    prefix,
    startedAt,
    { started_at: startedAt.toISOString(), command: commandLine(script), ...data },
    { latest },
  );
  process.stderr.write(`${tag}: wrote ${fromRoot(file)}${note}\n`);
}

/**
 * Writes `data` as JSON to results/<prefix>-<startedAt, with : and . as ->.json and to results/<latest>
 * (default <prefix>-latest.json), with a final newline unless newline is false. Returns the first path.
 */
export function writeResults(prefix, startedAt, data, { latest = `${prefix}-latest.json`, newline = true } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const text = `${JSON.stringify(data, null, 2)}${newline ? "\n" : ""}`;
  const file = join(resultsDir, `${prefix}-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, text);
  writeFileSync(join(resultsDir, latest), text);
  return file;
}

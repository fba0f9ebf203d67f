// `init` runs the collect command it wrote once, with the proof run's coverage flags, so a config whose
// commands cannot run is named at adoption, not found by the first `check --run`: pytest settings that
// turn warnings into errors, a coverage.py setting the installed coverage.py does not know (coverage
// reads its settings when pytest-cov starts it, before any test runs).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Env, GateConfig, GateIssue } from "@proofgate/core";
import type { PythonTools } from "./python-tools.js";

/** How a command ended, and what it printed (stdout, then stderr). */
export interface CommandTry {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a shell command in `cwd`; injected in tests. */
export type CommandTryRunner = (
  command: string,
  options: { cwd: string; env: Env; /** Seconds to wait; 0: no limit. Default 300. */ timeoutSeconds?: number },
) => CommandTry;

/**
 * `sh -c command`, waiting at most `timeoutSeconds` (default five minutes: a collection that takes longer
 * says so as a failure, exit 124).
 */
export const shellTry: CommandTryRunner = (command, { cwd, env, timeoutSeconds = 300 }) => {
  const r = spawnSync("sh", ["-c", command], {
    cwd,
    env,
    encoding: "utf8",
    ...(timeoutSeconds > 0 ? { timeout: timeoutSeconds * 1000 } : {}),
    maxBuffer: 64 * 1024 * 1024,
  });
  const timedOut = r.error !== undefined && (r.error as NodeJS.ErrnoException).code === "ETIMEDOUT";
  return {
    exitCode: r.status ?? (timedOut ? 124 : 127),
    stdout: r.stdout ?? "",
    stderr: `${r.stderr ?? ""}${r.error && !timedOut ? `${r.error.message}\n` : ""}${timedOut ? `timed out after ${timeoutSeconds} s\n` : ""}`,
  };
};

/** The warning filter init adds for coverage.py's "--include is ignored because --source is set" (coverage.py 5 to 7). */
export const INCLUDE_IGNORED = "ignore:--include is ignored because --source is set";

/**
 * The proof command's `--cov=` words, with branches on and no report: what makes pytest-cov read coverage.py's
 * settings; with the proof command's filter of coverage.py's include-ignored warning, when it has one.
 */
export function coverageFlags(proof: string | undefined): string | undefined {
  const cov = proof?.match(/--cov=\S+/g);
  if (!cov || cov.length === 0) return undefined;
  const filter = proof!.includes(INCLUDE_IGNORED) ? `-W '${INCLUDE_IGNORED}' ` : "";
  return `${filter}${cov.join(" ")} --cov-branch --cov-report=`;
}

/** A setting coverage.py warned it does not know: `Unrecognized option '[run] foo=' in config file setup.cfg`. */
export interface UnknownCoverageOption {
  section: string;
  key: string;
  file: string;
}

/** Every setting coverage.py said it does not know, once each. */
export function unknownCoverageOptions(output: string): UnknownCoverageOption[] {
  const out = new Map<string, UnknownCoverageOption>();
  for (const m of output.matchAll(/Unrecognized option '\[([^\]]+)\] ([^=']+)=' in config file (\S+)/g)) {
    out.set(`${m[1]}\u0000${m[2]}\u0000${m[3]}`, { section: m[1]!, key: m[2]!, file: m[3]! });
  }
  return [...out.values()];
}

/** The 1-based line of `key = ...` in `text` (the first one), or undefined. */
export function settingLine(text: string | undefined, key: string): number | undefined {
  if (text === undefined) return undefined;
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const at = text.split(/\r?\n/).findIndex((l) => new RegExp(`^\\s*["']?${escaped}["']?\\s*[=:]`).test(l));
  return at < 0 ? undefined : at + 1;
}

/** Terminal colour codes (vitest colours its output even into a pipe): never quoted in a message. */
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The last non-blank lines of `text`, joined, colour codes removed: what a failure quotes. */
export function tail(text: string, lines = 5): string {
  const kept = text
    .replace(ANSI, "")
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(-lines)
    .map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
  return kept.length > 0 ? kept.join(" | ") : "(no output)";
}

/**
 * What pytest said went wrong, from output the collect command sent to a file (its `> collected.txt`): the
 * `ERROR collecting` headers and the exception lines (`E   ModuleNotFoundError: ...`), each once, at most
 * `max`. A failed import there is the usual cause; stderr then holds only coverage.py's "no data" warnings.
 */
export function pytestErrorLines(text: string, max = 4): string[] {
  const out = new Set<string>();
  for (const line of text.replace(ANSI, "").split(/\r?\n/)) {
    const l = line.trimEnd();
    if (/^E {3}\S/.test(l) || /^(?:_+ )?ERROR collecting /.test(l) || /^ERROR:? /.test(l))
      out.add(l.replace(/^_+ | _+$/g, "").slice(0, 200));
    if (out.size >= max) break;
  }
  return [...out];
}

/** What `init` knows to name a try's problems. */
export interface TryContext {
  /** The config file the command is written in. */
  configFile: string;
  /** The interpreter the commands run, and its coverage.py's version. */
  python: string;
  coverage?: string | undefined;
  /** `[commands] runner`: vitest's failures are not pytest's. */
  runner?: "pytest" | "vitest" | undefined;
  /** Reads a repository file, for the line of a setting. */
  read: (path: string) => string | undefined;
  /** What the command wrote to the universe file (`[universe] collected`), and its name, before init removed it. */
  written?: { file: string; text: string } | undefined;
}

/**
 * The problems one try of the collect command shows: each coverage.py setting the installed coverage.py
 * does not know (file, line, version), and a non-zero exit with the end of its stderr.
 */
export function collectTryIssues(
  command: string,
  flags: string | undefined,
  tried: CommandTry,
  ctx: TryContext,
): GateIssue[] {
  const issues: GateIssue[] = [];
  const version = ctx.coverage === undefined ? "the installed coverage.py" : `coverage.py ${ctx.coverage}`;
  for (const o of unknownCoverageOptions(`${tried.stdout}\n${tried.stderr}`)) {
    issues.push({
      code: "coverage_config_invalid",
      file: o.file,
      line: settingLine(ctx.read(o.file), o.key),
      message: `[${o.section}] ${o.key} is a setting ${version} (the one \`${ctx.python}\` runs) does not know: it warns on every run, and pytest settings that turn warnings into errors stop the proof run on it`,
      fix: `upgrade coverage.py in \`${ctx.python}\` (pip install -U coverage) to a release that knows ${o.key}, or remove the setting`,
    });
  }
  if (tried.exitCode !== 0) {
    const said = ctx.written ? pytestErrorLines(ctx.written.text) : [];
    const inFile = ctx.written && said.length > 0 ? `; pytest wrote to ${ctx.written.file}: ${said.join(" | ")}` : "";
    const missing = /ModuleNotFoundError: No module named '([^']+)'/.exec(said.join("\n"))?.[1];
    issues.push({
      code: "usage",
      file: ctx.configFile,
      message: `[commands] collect (\`${command}\`), run once by init${flags ? ` with the proof run's coverage flags (PYTEST_ADDOPTS=${flags})` : ""}, exited with ${tried.exitCode}${inFile}; its output ended: ${tail(tried.stderr || tried.stdout)}`,
      fix: `${
        missing
          ? `pytest cannot import ${missing}: install the project into \`${ctx.python}\` (pip install -e .), or add its folder to pytest's pythonpath setting; then `
          : ""
      }make it run: fix what the output names (${
        ctx.runner === "vitest"
          ? "the package manager in the command must run here: a project that pins another pnpm or yarn in package.json's packageManager needs that one on PATH"
          : "pytest settings such as filterwarnings = error turn a warning from coverage.py or a plugin into an error"
      }), or edit [commands] in ${ctx.configFile}; then run \`proofgate check --run\``,
    });
  }
  return issues;
}

/**
 * Runs `[commands] collect` once in `root`, with the proof run's coverage flags through PYTEST_ADDOPTS,
 * says how it went on `io`, and returns the problems it showed. What the try wrote that was not there
 * before (the universe, coverage.py's data file) is removed.
 */
export function tryCollectOnce(
  root: string,
  config: GateConfig,
  tools: Pick<PythonTools, "command" | "coverage">,
  env: Env,
  io: { stdout: (text: string) => void },
  run: CommandTryRunner = shellTry,
): GateIssue[] {
  const command = config.commands.collect;
  if (command === undefined) return [];
  const at = (p: string): string => (isAbsolute(p) ? p : join(root, p));
  const written = [...config.universe.collected, ".coverage"].filter((p) => !existsSync(at(p)));
  const flags = coverageFlags(config.commands.proof);
  const addopts = [env.PYTEST_ADDOPTS, flags].filter(Boolean).join(" ");
  let tried: CommandTry;
  let universe: { file: string; text: string } | undefined;
  try {
    tried = run(command, {
      cwd: root,
      env: { ...env, PYTHONDONTWRITEBYTECODE: "1", ...(addopts ? { PYTEST_ADDOPTS: addopts } : {}) },
    });
    // pytest's own report of a failed collection goes where the command sends its output (collected.txt).
    const file = config.universe.collected.find((p) => written.includes(p) && existsSync(at(p)));
    if (file !== undefined && tried.exitCode !== 0) universe = { file, text: readFileSync(at(file), "utf8") };
  } finally {
    for (const p of written) rmSync(at(p), { force: true });
  }
  const issues = collectTryIssues(command, flags, tried, {
    configFile: config.file,
    python: tools.command,
    coverage: tools.coverage,
    runner: config.commands.runner,
    written: universe,
    read: (path) => {
      try {
        return readFileSync(at(path), "utf8");
      } catch {
        return undefined;
      }
    },
  });
  if (issues.length === 0) {
    io.stdout(`ran [commands] collect once${flags ? " with the proof run's coverage flags" : ""}: it works\n`);
  } else {
    io.stdout(
      `ran [commands] collect once${flags ? " with the proof run's coverage flags" : ""}: it ${tried.exitCode === 0 ? "ran, with problems" : `exited with ${tried.exitCode}`} (below)\n`,
    );
  }
  return issues;
}

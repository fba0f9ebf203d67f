import { spawn } from "node:child_process";
import { chmodSync, existsSync, readdirSync, rmSync, statSync, lstatSync } from "node:fs";
import { constants } from "node:os";
import { delimiter, join } from "node:path";
import {
  GateError,
  palette,
  planDeselection,
  renderDeselectPlugin,
  type CommandOutcome,
  type GateConfig,
  type IsoDate,
} from "@proofgate/core";
import { colorWanted, writeAtomic, type CliIo } from "./io.js";
import { loadLedger, loadUniverses } from "./inputs.js";
import { runSeedsMaterialize } from "./commands/seeds.js";

/** What `check --run` needs to run the config's commands. */
export interface RunCommandsOptions {
  io: CliIo;
  config: GateConfig;
  /** The patch's base: the property suite runs on the seeds as they were there. */
  base: string;
  /** The report folder: the deselection plugin and the base's seeds are written under it. */
  outDir: string;
  today: IsoDate;
  /** A config path as this process reads it. */
  at: (path: string) => string;
}

/** The name the frozen-test plugin is loaded by (`-p proofgate_frozen`). */
export const PLUGIN_MODULE = "proofgate_frozen";

/**
 * Runs `[commands] collect`, `proof` and `properties` in that order, each through `sh -c` in the
 * repository root with its output streamed to stderr. The proof run gets the frozen tests' deselection
 * (a pytest plugin loaded through PYTEST_ADDOPTS, and their ids in PROOFGATE_FROZEN_IDS); the property
 * suite gets the base revision's seeds in PROOFGATE_SEEDS_DIR. Every file a step should write must be
 * rewritten by it: a file left from an earlier run is an error, never evidence.
 */
export async function runConfiguredCommands(o: RunCommandsOptions): Promise<CommandOutcome[]> {
  const { config, io } = o;
  const { collect, proof, properties } = config.commands;
  if (collect === undefined && proof === undefined && properties === undefined) {
    throw new GateError({
      code: "usage",
      file: config.file,
      message: "--run was given, but the config names no [commands]",
      fix: 'add [commands] with collect = "...", proof = "..." and properties = "..." to proofgate.toml, or drop --run',
    });
  }
  const outcomes: CommandOutcome[] = [];
  const baseEnv = { ...(io.env ?? process.env) };
  if (collect !== undefined) {
    outcomes.push(await runStep(o, "collect", collect, baseEnv, config.universe.collected));
  }
  if (proof !== undefined) {
    const env = { ...baseEnv, ...proofEnvironment(o) };
    const outputs = [
      ...config.coverage.reports,
      ...(config.coverage.contexts === undefined ? [] : [config.coverage.contexts]),
      ...config.results.junit,
    ];
    outcomes.push(await runStep(o, "proof", proof, env, outputs));
  }
  if (properties !== undefined && config.properties.enabled) {
    const env = { ...baseEnv, ...seedsEnvironment(o) };
    outcomes.push(await runStep(o, "properties", properties, env, config.properties.results));
  }
  return outcomes;
}

/**
 * The proof run's environment: the exact deselection of the active leases as a pytest plugin (not in
 * the single-run mode, whose full run records every test's context). The ledger and universe are read
 * here; a bad one stops the run with exit 2 before any proof is made.
 */
function proofEnvironment(o: RunCommandsOptions): Record<string, string> {
  const { config, io } = o;
  const ledger = loadLedger(o.at(config.ledger.path));
  const universe = loadUniverses(config.universe.collected.map(o.at));
  const plan = planDeselection(ledger.value, universe.value, o.today);
  // Only leases that name a collected test: an unknown lease is judged as unknown_leases, and must not
  // make the plugin stop the proof run.
  const collected = universe.value.index ?? new Set(universe.value.ids);
  const exact = { ...plan, active: plan.active.filter((l) => collected.has(l.nodeid)) };
  const pluginDir = join(o.outDir, "pytest");
  const idsFile = join(o.outDir, "frozen-ids.txt");
  writeAtomic(idsFile, exact.active.map((l) => `${l.nodeid}\n`).join(""));
  const env: Record<string, string> = { PROOFGATE_FROZEN_IDS: idsFile };
  if (config.coverage.contexts === undefined) {
    writeAtomic(join(pluginDir, `${PLUGIN_MODULE}.py`), renderDeselectPlugin(exact, config.ledger.path));
    const inherited = io.env ?? process.env;
    env.PYTHONPATH = [pluginDir, inherited.PYTHONPATH].filter(Boolean).join(delimiter);
    env.PYTEST_ADDOPTS = [`-p ${PLUGIN_MODULE}`, inherited.PYTEST_ADDOPTS].filter(Boolean).join(" ");
  }
  return env;
}

/** The property suite's environment: the seeds as they were at the base, read-only. */
function seedsEnvironment(o: RunCommandsOptions): Record<string, string> {
  const dir = join(o.outDir, "seeds");
  removeReadOnlyTree(dir);
  runSeedsMaterialize({ ref: o.base, out: dir, seeds: o.config.properties.seeds }, { ...o.io, stdout: o.io.stderr });
  return { PROOFGATE_SEEDS_DIR: dir };
}

/** Deletes a folder that `seeds materialize` made read-only. */
function removeReadOnlyTree(dir: string): void {
  if (!existsSync(dir)) return;
  const walk = (path: string): void => {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  rmSync(dir, { recursive: true, force: true });
}

type Stamp = { mtimeMs: number; size: number; ino: number } | undefined;

function stamp(path: string): Stamp {
  try {
    const s = statSync(path);
    return { mtimeMs: s.mtimeMs, size: s.size, ino: s.ino };
  } catch {
    return undefined;
  }
}

async function runStep(
  o: RunCommandsOptions,
  step: CommandOutcome["step"],
  command: string,
  env: NodeJS.ProcessEnv,
  outputs: readonly string[],
): Promise<CommandOutcome> {
  const { io } = o;
  const c = palette(colorWanted(io));
  const before = outputs.map((p) => stamp(o.at(p)));
  io.stderr(`proofgate: ${c.bold(`▶ ${step}`)}: ${command}\n`);
  const started = Date.now();
  const exitCode = await new Promise<number>((resolveExit, reject) => {
    const child = spawn("sh", ["-c", command], { cwd: io.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => io.stderr(chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => io.stderr(chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code, signal) => resolveExit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  }).catch((error: unknown) => {
    throw new GateError({
      code: "usage",
      file: o.config.file,
      message: `[commands] ${step} could not be started: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that sh exists and the command is right",
    });
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.stderr(
    `proofgate: ${exitCode === 0 ? c.green(`✔ ${step}`) : c.red(`✘ ${step} exited with ${exitCode}`)} (${seconds} s)\n`,
  );
  const stale = outputs.filter((p, i) => {
    const now = stamp(o.at(p));
    const was = before[i];
    return (
      now === undefined ||
      (was !== undefined && now.mtimeMs === was.mtimeMs && now.size === was.size && now.ino === was.ino)
    );
  });
  if (stale.length > 0) {
    throw new GateError(
      stale.map((p) => ({
        code: "file_missing" as const,
        file: p,
        message: `[commands] ${step} (\`${command}\`) did not ${stamp(o.at(p)) ? "rewrite" : "write"} it${exitCode === 0 ? "" : ` (it exited with ${exitCode})`}: a file left from an earlier run is not evidence`,
        fix: `make the ${step} command write ${p}, or change the path in proofgate.toml`,
      })),
    );
  }
  return { step, command, exitCode };
}

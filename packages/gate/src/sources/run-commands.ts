// `check --run`: the base config's [commands] collect, proof and properties, in that order. The proof run
// gets the exact deselection of the frozen tests (a pytest plugin through PYTEST_ADDOPTS); the property
// suite gets the base revision's seeds, read-only. A file a step should write and did not rewrite is an
// error: a file left from an earlier run is not evidence.
import {
  GateError,
  renderDeselectPlugin,
  type CommandOutcome,
  type CommandStep,
  type Env,
  type GateConfig,
  type IsoDate,
} from "@proofgate/core";
import type { GatePorts } from "../ports.js";
import type { GateLog, LogStep } from "../log.js";
import type { LeaseBook } from "../lease-book.js";

/** The name the frozen-test plugin is loaded by (`-p proofgate_frozen`). */
export const PLUGIN_MODULE = "proofgate_frozen";

/** What running the config's commands needs. */
export interface RunCommandsOptions {
  ports: GatePorts;
  config: GateConfig;
  /** The environment the commands inherit. */
  env: Env;
  /** The patch's base: the property suite runs on the seeds as they were there. */
  base: string;
  /** The report folder (repository-relative or absolute): the plugin and the base's seeds go under it. */
  outDir: string;
  today: IsoDate;
  /** The ledger and the universe with the leases judged, read after the collection. */
  leases: () => LeaseBook;
  log: GateLog;
}

const join = (...parts: string[]): string => parts.join("/").replace(/\/+/g, "/");

/** Runs `[commands]` collect, proof and properties; returns how each ended. */
export async function runConfiguredCommands(o: RunCommandsOptions): Promise<CommandOutcome[]> {
  const { config } = o;
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
  if (collect !== undefined) outcomes.push(await runStep(o, "collect", collect, o.env, config.universe.collected));
  if (proof !== undefined) {
    const outputs = [
      ...config.coverage.reports,
      ...(config.coverage.contexts === undefined ? [] : [config.coverage.contexts]),
      ...config.results.junit,
    ];
    outcomes.push(await runStep(o, "proof", proof, { ...o.env, ...proofEnvironment(o) }, outputs));
  }
  if (properties !== undefined && config.properties.enabled) {
    const env = { ...o.env, ...seedsEnvironment(o) };
    outcomes.push(await runStep(o, "properties", properties, env, config.properties.results));
  }
  return outcomes;
}

/**
 * The proof run's environment: the exact deselection of the active leases as a pytest plugin (not in
 * the single-run mode, whose full run records every test's context). A bad ledger or universe stops
 * the run with exit 2 before any proof is made.
 */
function proofEnvironment(o: RunCommandsOptions): Record<string, string> {
  const { config, ports } = o;
  const { universe, leases } = o.leases();
  // Only leases that name a collected test: an unknown lease is judged as unknown_leases, and must not
  // make the plugin stop the proof run.
  const collected = universe.value.index ?? new Set(universe.value.ids);
  const exact = { today: o.today, active: leases.active.filter((l) => collected.has(l.nodeid)) };
  const pluginDir = join(o.outDir, "pytest");
  const idsFile = join(o.outDir, "frozen-ids.txt");
  ports.files.writeAtomic(idsFile, exact.active.map((l) => `${l.nodeid}\n`).join(""));
  const absolute = (path: string): string => (path.startsWith("/") ? path : join(ports.files.root, path));
  const env: Record<string, string> = { PROOFGATE_FROZEN_IDS: absolute(idsFile) };
  if (config.coverage.contexts === undefined) {
    ports.files.writeAtomic(join(pluginDir, `${PLUGIN_MODULE}.py`), renderDeselectPlugin(exact, config.ledger.path));
    env.PYTHONPATH = [absolute(pluginDir), o.env.PYTHONPATH].filter(Boolean).join(":");
    env.PYTEST_ADDOPTS = [`-p ${PLUGIN_MODULE}`, o.env.PYTEST_ADDOPTS].filter(Boolean).join(" ");
  }
  return env;
}

/** The property suite's environment: the seeds as they were at the base, read-only. */
function seedsEnvironment(o: RunCommandsOptions): Record<string, string> {
  const dir = join(o.outDir, "seeds");
  o.ports.files.removeTree(dir);
  const { sha, files } = o.ports.seeds({ ref: o.base, dirs: o.config.properties.seeds, out: dir });
  o.log.info(`wrote ${files.length} seed file(s) from ${o.base} (${sha.slice(0, 12)}) under ${dir}, read-only`);
  if (files.length === 0) {
    o.log.warn(
      `${o.config.properties.seeds.join(", ")} has no files at ${o.base}: the property suite would run on no seeds (seeds_empty)`,
    );
  }
  return { PROOFGATE_SEEDS_DIR: dir.startsWith("/") ? dir : join(o.ports.files.root, dir) };
}

async function runStep(
  o: RunCommandsOptions,
  step: CommandStep,
  command: string,
  env: Env,
  outputs: readonly string[],
): Promise<CommandOutcome> {
  return { step, command, exitCode: await runCommandStep(o, step, command, env, outputs) };
}

/**
 * Runs one configured command (in the repository root, or in `cwd`, e.g. the base's worktree) and
 * returns its exit code. Each of `outputs` (relative to where it ran) must be written or rewritten:
 * otherwise a GateError, since a file left from an earlier run is not evidence.
 */
export async function runCommandStep(
  o: Pick<RunCommandsOptions, "ports" | "config" | "log">,
  step: LogStep,
  command: string,
  env: Env,
  outputs: readonly string[],
  cwd?: string,
  /** Called with the exit code before the outputs are checked: it may throw its own GateError. */
  exited?: (exitCode: number) => void,
): Promise<number> {
  const { files } = o.ports;
  const at = (p: string): string => (cwd === undefined || p.startsWith("/") ? p : join(cwd, p));
  const before = outputs.map((p) => files.stamp(at(p)));
  o.log.stepStarted(step, command);
  const started = Date.now();
  let exitCode: number;
  try {
    exitCode = await o.ports.commands.run(command, { env, output: o.log.output, cwd });
  } catch (error) {
    throw new GateError({
      code: "usage",
      file: o.config.file,
      message: `[commands] ${step} could not be started: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that sh exists and the command is right",
    });
  }
  o.log.stepEnded(step, exitCode, (Date.now() - started) / 1000);
  exited?.(exitCode);
  const stale = outputs.filter((p, i) => {
    const now = files.stamp(at(p));
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
        message: `[commands] ${step} (\`${command}\`) did not ${files.stamp(at(p)) ? "rewrite" : "write"} it${cwd === undefined ? "" : ` in ${cwd}`}${exitCode === 0 ? "" : ` (it exited with ${exitCode})`}: a file left from an earlier run is not evidence`,
        fix: `make the ${step} command write ${p}, or change the path in proofgate.toml`,
      })),
    );
  }
  return exitCode;
}

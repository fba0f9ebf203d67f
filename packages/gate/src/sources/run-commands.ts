// `check --run`: the base config's [commands] collect, proof and properties, in that order. The proof run
// gets the exact deselection of the frozen tests (a pytest plugin through PYTEST_ADDOPTS); the property
// suite gets the base revision's seeds, read-only. A file a step should write and did not rewrite is an
// error: a file left from an earlier run is not evidence.
import { randomBytes } from "node:crypto";
import {
  PROOF_RUN_ENV,
  VITEST_REPORTER_ENV,
  VITEST_RUN_ENV,
  diffWorkTree,
  renderVitestReporter,
  renderVitestRunner,
  vitestReporterFile,
  vitestRunnerFile,
  proofPluginModuleName,
  proofRunEnvironment,
  renderProofPlugin,
  verifyDistributedRun,
  verifyRunRecord,
  workerRecordDir,
  type RunRecordResult,
  type RunWritePolicy,
  type StepWrites,
  type WorkTreeEntry,
} from "@proofgate/core/proof-run";
import {
  GateError,
  renderDeselectPlugin,
  type Lease,
  type CommandOutcome,
  type CommandStep,
  type Env,
  type GateConfig,
  type IsoDate,
} from "@proofgate/core";
import { CommandTimedOut, type GatePorts } from "../ports.js";
import type { GateLog, LogStep } from "../log.js";
import type { LeaseBook } from "../lease-book.js";
import { join, underRoot } from "./paths.js";
import { stderrNote, stderrTail } from "./step-stderr.js";

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
  /**
   * The ledger's active leases, read without the universe: what the proof run deselects when the collection
   * runs beside it (`[commands] collect_beside_proof`), since no universe comes before it.
   */
  activeLeases?: (() => Lease[]) | undefined;
  log: GateLog;
  /** Watches the repository around each step; undefined: not watched. */
  watch?: RepositoryWatch | undefined;
  /** Every step that ran (the base's too), in the order they ended, with its time: the report's `commands`. */
  steps?: CommandOutcome[] | undefined;
  /**
   * The error that stops the steps not yet started (the base's, run beside them, once it failed): a gate that
   * will exit 2 on the base does not spend the proof run first. Undefined or returning undefined: they run.
   */
  stopped?: (() => Error | undefined) | undefined;
  /**
   * With `[commands] collect_beside_proof`: what the head's collection waits for before it starts beside the
   * proof run (the base's collection, so that two processes at most run beside the proof run's).
   */
  besideAfter?: Promise<unknown> | undefined;
  /**
   * The JavaScript and TypeScript source files the patch changed (repository paths): a vitest proof run's
   * reporter records whether its coverage settings measure each (`vitest_measures`).
   */
  vitestSources?: readonly string[] | undefined;
  /**
   * The repository's top folder (absolute) when the gate judges a package folder inside it (`check --root`):
   * the recording plugin then records what the tests read elsewhere in the repository (a golden file
   * beside the package is outside its lock: unlocked_fixture_read).
   */
  repositoryTop?: string | undefined;
}

/** What the steps wrote in the repository (`run_wrote_repository`), step by step, as git saw it. */
export interface RepositoryWatch {
  policy: RunWritePolicy;
  /** The absolute folder where a changed tracked file is kept before it is restored from the commit. */
  keepIn?: string | undefined;
  /** Filled as the steps run: the steps that left something. */
  steps: StepWrites[];
}

/** A head step's outcome. */
export type HeadOutcome = CommandOutcome & { step: CommandStep };

/** What running the commands gave: each step's outcome, and the run records of the pytest steps. */
export interface CommandsRun {
  outcomes: HeadOutcome[];
  /** The proof and property runs' records, as verified (with `[commands] record`). */
  records: {
    proof?: (RecordedStep & { leased: string[] }) | undefined;
    properties?: (RecordedStep & { seeds: string[]; via: string }) | undefined;
  };
}

/** A step's record file and what verifying it gave. */
export interface RecordedStep {
  file: string;
  result: RunRecordResult;
}

/** Runs `[commands]` collect, proof and properties; returns how each ended and what the pytest steps recorded. */
export async function runConfiguredCommands(o: RunCommandsOptions): Promise<CommandsRun> {
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
  const run: CommandsRun = { outcomes: [], records: {} };
  // [commands] collect_beside_proof: the head's collection starts with the proof run, not before it.
  const beside = collectBesideProof(config);
  if (collect !== undefined && !beside) {
    let failure = "";
    const exitCode = await runCommandStep(
      o,
      "collect",
      collect,
      o.env,
      stepOutputs(config, "collect"),
      undefined,
      (_, f) => {
        failure = f;
      },
    );
    run.outcomes.push(lastOutcome(o, "collect", collect, exitCode));
    if (exitCode !== 0) readAfterFailure(o, collect, exitCode, failure);
  }
  if (proof !== undefined) {
    stopIfAsked(o);
    const setup = proofSetup(o);
    const collecting = beside && collect !== undefined ? collectBeside(o, collect) : undefined;
    let outcome: HeadOutcome;
    try {
      outcome = await runStep(o, "proof", proof, { ...o.env, ...setup.env }, stepOutputs(config, "proof"));
    } finally {
      // The collection ends (and its output is shown) before anything else happens, whatever the proof did.
      await collecting?.settled;
      collecting?.flush();
    }
    if (collecting) {
      const { exitCode, failure } = await collecting.done;
      run.outcomes.push(lastOutcome(o, "collect", collect!, exitCode));
      if (exitCode !== 0) readAfterFailure(o, collect!, exitCode, failure);
    }
    run.outcomes.push(outcome);
    // The record's deselection is judged against the leases the plugin was given (every active one,
    // beside the collection), among the tests the run collected.
    if (setup.record) run.records.proof = { ...readRecord(o, setup.record), leased: setup.leased };
  }
  // The seed signals judge its results; the property-test rule its record (the settings as they ran).
  if (properties !== undefined && (config.properties.enabled || config.properties.judgeTests)) {
    stopIfAsked(o);
    const seeds = seedsSetup(o);
    run.outcomes.push(
      await runStep(o, "properties", properties, { ...o.env, ...seeds.env }, stepOutputs(config, "properties")),
    );
    if (seeds.record) run.records.properties = { ...readRecord(o, seeds.record), seeds: seeds.files, via: SEEDS_VIA };
  }
  return run;
}

/** Before a step starts: throws the error that stops the rest (`stopped`), if there is one. */
function stopIfAsked(o: RunCommandsOptions): void {
  const error = o.stopped?.();
  if (error !== undefined) throw error;
}

/** Whether the head's collect step runs beside the proof run (`[commands] collect_beside_proof`, pytest). */
function collectBesideProof(config: GateConfig): boolean {
  const { collectBesideProof: on, collect, proof, record } = config.commands;
  return on && collect !== undefined && proof !== undefined && record;
}

/**
 * Starts the head's collect step beside the proof run, once `besideAfter` settled: unwatched on its own (the
 * proof step's watch, and the phase's, see what it leaves), its output held for `flush` (after the proof
 * run's, not inside it). `settled` resolves when it ended, however; `done` gives its exit code (and stderr note) or
 * its error.
 */
function collectBeside(
  o: RunCommandsOptions,
  command: string,
): { settled: Promise<unknown>; done: Promise<{ exitCode: number; failure: string }>; flush: () => void } {
  // Its output is held; its start and end are logged as they happen (the steps' times come from them).
  const held: string[] = [];
  const log: GateLog = { ...o.log, output: (text) => void held.push(text) };
  let failure = "";
  const done = (o.besideAfter ?? Promise.resolve())
    .then(() =>
      runCommandStep(
        { ...o, watch: undefined, log },
        "collect",
        command,
        o.env,
        stepOutputs(o.config, "collect"),
        undefined,
        (_, f) => {
          failure = f;
        },
      ),
    )
    .then((exitCode) => ({ exitCode, failure }));
  const settled = done.then(
    () => undefined,
    () => undefined,
  );
  const flush = () => {
    for (const text of held.splice(0)) o.log.output(text);
  };
  return { settled, done, flush };
}

/** The files a `[commands]` step must write, as `check --run` requires them. */
export function stepOutputs(config: GateConfig, step: CommandStep): string[] {
  if (step === "collect") return [...config.universe.collected];
  if (step === "proof")
    return [...config.coverage.reports, ...(config.coverage.contexts ?? []), ...config.results.junit];
  if (step === "properties") return [...config.properties.results];
  return [];
}

/** The mount label of the base's seeds in the property run's record. */
const SEEDS_VIA = "base-seeds";

/** A fresh nonce and key for one run: what a committed file or an earlier run cannot know. */
function freshRun(): { nonce: string; key: string } {
  return { nonce: randomBytes(16).toString("hex"), key: randomBytes(32).toString("hex") };
}

/** What a pytest step is given: its environment, and the record it must write (with the nonce and key). */
interface StepSetup {
  env: Record<string, string>;
  record?: { file: string; nonce: string; key: string } | undefined;
}

const SAFE_PATH = { PYTHONSAFEPATH: "1" };

/**
 * Writes a step's plugin and returns its environment: with `[commands] record`, the recording plugin
 * under a fresh name, nonce and key; else the plain deselection plugin (or none, with nothing to deselect).
 */
function pluginStep(
  o: RunCommandsOptions,
  name: string,
  active: readonly Lease[],
  mounts: { dir: string; prefix: string; label: string }[],
): StepSetup {
  const { config, ports } = o;
  const pluginDir = join(o.outDir, "pytest");
  // The proof step is the first to write here: what earlier checks wrote goes (each run's plugin has a
  // name of its own), and what this check's steps write stays beside its report.
  if (name === "proof") ports.files.removeTree(pluginDir);
  const absolute = underRoot(ports.files.root);
  const inherited = { PYTHONPATH: o.env.PYTHONPATH, PYTEST_ADDOPTS: o.env.PYTEST_ADDOPTS };
  const safe = config.commands.safePath ? SAFE_PATH : {};
  if (!config.commands.record) {
    if (active.length === 0) return { env: { ...safe } };
    const plugin = renderDeselectPlugin({ today: o.today, active: [...active] }, config.ledger.path);
    ports.files.writeAtomic(join(pluginDir, `${PLUGIN_MODULE}.py`), plugin);
    return {
      env: {
        PYTHONPATH: [absolute(pluginDir), inherited.PYTHONPATH].filter(Boolean).join(":"),
        PYTEST_ADDOPTS: [`-p ${PLUGIN_MODULE}`, inherited.PYTEST_ADDOPTS].filter(Boolean).join(" "),
        ...safe,
      },
    };
  }
  const { nonce, key } = freshRun();
  const moduleName = proofPluginModuleName(nonce);
  const file = join(o.outDir, `${name}-record.json`);
  ports.files.removeTree(file);
  ports.files.removeTree(workerRecordDir(file));
  const plugin = renderProofPlugin(
    { today: o.today, active },
    {
      ledgerFile: config.ledger.path,
      mounts,
      exclude: [absolute(o.outDir)],
      outer: o.repositoryTop,
      stopOnUncollected: !(name === "proof" && collectBesideProof(config)),
    },
  );
  ports.files.writeAtomic(join(pluginDir, `${moduleName}.py`), plugin);
  const env = proofRunEnvironment({
    nonce,
    key,
    record: absolute(file),
    root: ports.files.root,
    pluginDir: absolute(pluginDir),
    moduleName,
    inherited,
    delimiter: ":",
    safePath: config.commands.safePath,
  });
  return { env, record: { file, nonce, key } };
}

/**
 * The proof run's setup: the exact deselection of the active leases that name a collected test (none in
 * the single-run mode, whose full run records every test's context). A bad ledger or universe stops the
 * run with exit 2 before any proof is made.
 */
function proofSetup(o: RunCommandsOptions): StepSetup & { leased: string[] } {
  const active = o.config.coverage.contexts === undefined ? plannedLeases(o, collectBesideProof(o.config)) : [];
  const absolute = underRoot(o.ports.files.root);
  const idsFile = join(o.outDir, "frozen-ids.txt");
  o.ports.files.writeAtomic(idsFile, active.map((l) => `${l.nodeid}\n`).join(""));
  const setup = stepRunner(o) === "vitest" ? vitestStep(o, "proof", active) : pluginStep(o, "proof", active, []);
  return {
    ...setup,
    env: { PROOFGATE_FROZEN_IDS: absolute(idsFile), ...setup.env },
    leased: active.map((l) => l.nodeid),
  };
}

/**
 * The leases the proof run deselects. Only those that name a collected test: an unknown lease is judged as
 * unknown_leases, and must not make the plugin stop the proof run. `beforeCollection` (the collection runs
 * beside the proof run): there is no universe yet, so every active lease, and the plugin lets one that
 * matches nothing pass.
 */
function plannedLeases(o: RunCommandsOptions, beforeCollection: boolean): Lease[] {
  if (beforeCollection) {
    if (o.activeLeases === undefined)
      throw new Error("runConfiguredCommands: [commands] collect_beside_proof needs activeLeases");
    return o.activeLeases();
  }
  const { universe, leases } = o.leases();
  const collected = universe.value.index ?? new Set(universe.value.ids);
  return leases.active.filter((l) => collected.has(l.nodeid));
}

/** The runner the steps run: `[commands] runner`, else the universe's format says (pytest, when it is collected beside). */
function stepRunner(o: RunCommandsOptions): "pytest" | "vitest" {
  if (collectBesideProof(o.config)) return "pytest";
  return o.config.commands.runner ?? o.leases().universe.value.runner ?? "pytest";
}

/**
 * A vitest step's setup: the gate's reporter and runner under `<out>/vitest/`, named afresh each run. The
 * command loads the reporter (`--reporter=$PROOFGATE_VITEST_REPORTER`), which puts the runner in every
 * project; the runner marks the leased tests skipped by file and name path, and, with `[commands] record`,
 * the reporter writes the signed run record (the nonce and key in the environment, the key deleted from
 * it before any worker starts).
 */
function vitestStep(o: RunCommandsOptions, name: string, active: readonly Lease[]): StepSetup {
  const { config, ports } = o;
  const absolute = underRoot(ports.files.root);
  const dir = join(o.outDir, "vitest");
  ports.files.removeTree(dir);
  const { nonce, key } = freshRun();
  const leased = active.map((l) => l.nodeid);
  const reporterPath = writeVitestModules(ports.files, absolute(dir), nonce, {
    root: ports.files.root,
    leased,
    sources: o.vitestSources,
  });
  const env: Record<string, string> = { ...VITEST_RUN_ENV, [VITEST_REPORTER_ENV]: reporterPath };
  if (!config.commands.record) return { env };
  const file = join(o.outDir, `${name}-record.json`);
  ports.files.removeTree(file);
  return {
    env: {
      ...env,
      [PROOF_RUN_ENV.nonce]: nonce,
      [PROOF_RUN_ENV.key]: key,
      [PROOF_RUN_ENV.record]: absolute(file),
      [PROOF_RUN_ENV.root]: ports.files.root,
    },
    record: { file, nonce, key },
  };
}

/**
 * The gate's vitest runner and reporter for one run, written in `dir` (absolute) under names made from the
 * nonce; returns the reporter's path, what the command's `$PROOFGATE_VITEST_REPORTER` names. The runner
 * deselects `leased`, or with `only` runs only those tests (the base's run of the tests skipped at head).
 */
export function writeVitestModules(
  files: RunCommandsOptions["ports"]["files"],
  dir: string,
  nonce: string,
  plan: {
    root: string;
    leased: readonly string[];
    only?: readonly string[] | undefined;
    sources?: readonly string[] | undefined;
  },
): string {
  const runner = join(dir, vitestRunnerFile(nonce));
  const reporter = join(dir, vitestReporterFile(nonce));
  files.writeAtomic(runner, renderVitestRunner(plan));
  files.writeAtomic(
    reporter,
    renderVitestReporter({ root: plan.root, runner, leased: plan.leased, sources: plan.sources }),
  );
  return reporter;
}

/** The property suite's setup: the base's seeds, read-only, and the plugin that records their reads. */
function seedsSetup(o: RunCommandsOptions): StepSetup & { files: string[] } {
  const dir = join(o.outDir, "seeds");
  o.ports.files.removeTree(dir);
  const { sha, files } = o.ports.seeds({ ref: o.base, dirs: o.config.properties.seeds, out: dir });
  o.log.info(`wrote ${files.length} seed file(s) from ${o.base} (${sha.slice(0, 12)}) under ${dir}, read-only`);
  if (files.length === 0 && o.config.properties.enabled) {
    o.log.warn(
      `${o.config.properties.seeds.join(", ")} has no files at ${o.base}: the property suite would run on no seeds (seeds_empty)`,
    );
  }
  const abs = dir.startsWith("/") ? dir : join(o.ports.files.root, dir);
  // The seeds' repository paths: the folder mirrors the repository.
  const seeds = files.map((f) => (f.startsWith(`${abs}/`) ? f.slice(abs.length + 1) : f));
  // vitest's step loads the gate's reporter (its record has no file reads: the seeds' reads are not judged).
  const setup =
    stepRunner(o) === "vitest"
      ? vitestStep(o, "properties", [])
      : pluginStep(o, "properties", [], [{ dir: abs, prefix: "", label: SEEDS_VIA }]);
  return { ...setup, env: { PROOFGATE_SEEDS_DIR: abs, ...setup.env }, files: seeds };
}

/**
 * The record a step wrote, verified against its nonce and key; no file is judged like a bad one. Under
 * pytest-xdist, with every worker's part verified and merged in (verifyDistributedRun).
 */
function readRecord(o: RunCommandsOptions, record: { file: string; nonce: string; key: string }): RecordedStep {
  const { files } = o.ports;
  const read = (file: string): string | undefined =>
    files.exists(file) ? files.readText(file, "the run record", "[commands] record").text : undefined;
  const expected = { nonce: record.nonce, key: record.key, file: record.file };
  return {
    file: record.file,
    result: verifyDistributedRun(verifyRunRecord(read(record.file), expected), read, expected),
  };
}

async function runStep(
  o: RunCommandsOptions,
  step: CommandStep,
  command: string,
  env: Env,
  outputs: readonly string[],
): Promise<HeadOutcome> {
  const exitCode = await runCommandStep(o, step, command, env, outputs);
  return lastOutcome(o, step, command, exitCode);
}

/** The outcome runCommandStep recorded for this step (with its time), or one without a time (no `steps`). */
function lastOutcome(o: RunCommandsOptions, step: CommandStep, command: string, exitCode: number): HeadOutcome {
  const timed = o.steps?.findLast((s) => s.step === step && s.command === command);
  return { step, command, exitCode, seconds: timed?.seconds };
}

/**
 * Runs one configured command (in the repository root, or in `cwd`, e.g. the base's worktree) and
 * returns its exit code. Each of `outputs` (relative to where it ran) must be written or rewritten:
 * otherwise a GateError, since a file left from an earlier run is not evidence.
 */
export async function runCommandStep(
  o: Pick<RunCommandsOptions, "ports" | "config" | "log" | "watch" | "steps">,
  step: LogStep,
  command: string,
  env: Env,
  outputs: readonly string[],
  cwd?: string,
  /** Called with the exit code (and `its stderr ended: ...`) before the outputs are checked: it may throw its own GateError. */
  exited?: (exitCode: number, failure: string) => void,
): Promise<number> {
  const { files } = o.ports;
  const at = (p: string): string => (cwd === undefined || p.startsWith("/") ? p : join(cwd, p));
  const before = outputs.map((p) => files.stamp(at(p)));
  const tree = o.watch ? o.ports.git.workTreeStatus() : undefined;
  o.log.stepStarted(step, command);
  const now = o.ports.now ?? Date.now;
  const started = now();
  const stderr = stderrTail();
  let exitCode: number;
  const timeout = o.config.commands.timeout;
  try {
    exitCode = await o.ports.commands.run(command, {
      env,
      output: o.log.output,
      errors: stderr.push,
      cwd,
      timeoutSeconds: timeout,
    });
  } catch (error) {
    if (CommandTimedOut.isInstance(error)) {
      const tail = stderr.lines();
      throw timedOutError(o.config, step, command, error, tail.length > 0 ? stderrNote(tail) : undefined);
    }
    throw new GateError({
      code: "usage",
      file: o.config.file,
      message: `[commands] ${step} could not be started: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that sh exists and the command is right",
    });
  }
  const seconds = (now() - started) / 1000;
  if (step !== "record") o.steps?.push({ step, command, exitCode, seconds });
  o.log.stepEnded(step, exitCode, seconds);
  const failure = stderrNote(stderr.lines());
  if (o.watch && tree) watchStep(o, o.watch, step, tree);
  exited?.(exitCode, failure);
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
        message:
          exitCode === 0
            ? `[commands] ${step} (\`${command}\`) did not ${files.stamp(at(p)) ? "rewrite" : "write"} it${cwd === undefined ? "" : ` in ${cwd}`}: a file left from an earlier run is not evidence`
            : `[commands] ${step} (\`${command}\`) exited with ${exitCode} and did not write it${cwd === undefined ? "" : ` in ${cwd}`}; ${failure}`,
        fix:
          exitCode === 0
            ? `make the ${step} command write ${p}, or change the path in proofgate.toml`
            : `make the ${step} command succeed (run it by hand; its whole output is above in the log), then it writes ${p}`,
      })),
    );
  }
  return exitCode;
}

/**
 * A step stopped at its time limit: exit 2 naming it and the limit. Nothing it wrote is read (it may be
 * half written), and its processes are gone (the runner waits for them).
 */
function timedOutError(
  config: Pick<GateConfig, "file">,
  step: string,
  command: string,
  error: CommandTimedOut,
  failure?: string,
): GateError {
  return new GateError({
    code: "command_timeout",
    file: config.file,
    message: `[commands] ${step} (\`${command}\`) was still running after its timeout of ${error.seconds} s and was stopped with every process it started (${error.signal === "SIGKILL" ? "SIGTERM, then SIGKILL" : "SIGTERM"})${failure ? `; ${failure}` : ""}`,
    fix: "find the test that hangs (the step's output is above in the log: pytest -v names each test as it starts), or raise [commands] timeout in proofgate.toml (seconds; 0: no limit) or pass --timeout SECONDS",
  });
}

/**
 * A collect step that failed and still wrote its file (a shell redirect writes it whatever pytest did):
 * what reading it finds is a symptom, so the error leads with the step's exit code and stderr.
 */
function readAfterFailure(o: RunCommandsOptions, command: string, exitCode: number, failure: string): void {
  try {
    o.leases();
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    throw new GateError([
      {
        code: "usage",
        file: o.config.file,
        message: `[commands] collect (\`${command}\`) exited with ${exitCode}; ${failure}`,
        fix: "make the collect command succeed (run it by hand; its whole output is above in the log)",
      },
      ...error.issues,
    ]);
  }
}

/**
 * What a step left in the repository against `before`: recorded for `run_wrote_repository`. Tracked files
 * it changed are put back from the commit, so later steps and the report judge the commit; new files
 * stay where they are, named, for the user to look at.
 */
function watchStep(
  o: Pick<RunCommandsOptions, "ports" | "log">,
  watch: RepositoryWatch,
  step: string,
  before: readonly WorkTreeEntry[],
): void {
  const writes = diffWorkTree(step, before, o.ports.git.workTreeStatus(), watch.policy);
  if (writes.changed.length + writes.added.length === 0) return;
  if (writes.changed.length > 0) {
    o.ports.git.restoreTracked(writes.changed, watch.keepIn);
    writes.restored = [...writes.changed];
    o.log.warn(
      `[commands] ${step} changed ${writes.changed.length} file(s) the commit tracks (${writes.changed.slice(0, 5).join(", ")}${writes.changed.length > 5 ? ", ..." : ""}): restored from the commit${watch.keepIn ? `; what they held is kept in ${watch.keepIn}` : ""}`,
    );
  }
  if (writes.added.length > 0) {
    o.log.warn(
      `[commands] ${step} left ${writes.added.length} new file(s) in the repository (${writes.added.slice(0, 5).join(", ")}${writes.added.length > 5 ? ", ..." : ""}): left in place`,
    );
  }
  watch.steps.push(writes);
}

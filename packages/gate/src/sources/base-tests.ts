// The base's side of `tests_removed`, `tests_skipped_unledgered` and `property_weakened` (docs/reasons.md):
// the universe at the base, the base's outcomes of the tests skipped at head, and the base's property
// tests. With `check --run` the gate makes them itself, in a temporary git worktree of the base, with the
// base's own [commands]; without it, it reads the files a CI step wrote ([universe] base_collected,
// [results] base_junit; the property ids need --run). When the signal is on and
// its evidence cannot be made or read, that is exit 2, never a pass.
import { randomBytes } from "node:crypto";
import {
  BASE_IMPORTS_PLUGIN_MODULE,
  GateError,
  accountEvidence,
  baseImportIssues,
  basePythonPath,
  parseBaseImports,
  parseBaseCoverageReport,
  renderBaseImportsPlugin,
  commandFiles,
  goneSinceBase,
  rootdirMoved,
  testFilesOf,
  testIdPaths,
  mergeJunitResults,
  mergeUniverses,
  parseJunitXml,
  parseXpassedIds,
  parseSkipMarkedIds,
  parsePropertyIds,
  parsePropertySettingsFile,
  renderOnlyPlugin,
  renderPropertyIdsPlugin,
  renderSkipMarksPlugin,
  PROPERTY_IDS_PLUGIN_MODULE,
  shortRevision,
  skipsAtHead,
  type BaseSkips,
  type CommandOutcome,
  type CoverageDropEvidence,
  type Env,
  type GateConfig,
  type GateIssue,
  type InputDigest,
  type Lease,
  type PropertyIdEvidence,
  type RootdirFacts,
  type TestChangeEvidence,
  type TestResult,
  type Universe,
} from "@proofgate/core";
import { VITEST_REPORTER_ENV, VITEST_RUN_ENV } from "@proofgate/core/proof-run";
import type { GateLog } from "../log.js";
import type { GatePorts } from "../ports.js";
import { join, underRoot } from "./paths.js";
import { loadUniverse, parseUniverseText } from "./inputs.js";
import { runCommandStep, writeVitestModules, type RepositoryWatch } from "./run-commands.js";
import { isVitestCommand } from "./vitest-steps.js";

/** A pytest-cov flag in a command (`--cov`, `--cov=pkg`): pytest-cov is loaded, so `--no-cov` is known to it. */
const PYTEST_COV_FLAG = /(^|[\s"'])--cov(=|[\s"']|$)/;

/** The name the base run's plugin is loaded by (`-p proofgate_only`). */
export const ONLY_PLUGIN_MODULE = "proofgate_only";

/** The name the base collection's skip-marks plugin is loaded by (`-p proofgate_skip_marks`). */
export const SKIP_MARKS_PLUGIN_MODULE = "proofgate_skip_marks";

/** What reading the base needs. */
export interface BaseTestsOptions {
  ports: GatePorts;
  /** The base's config: its [commands] are the ones run on the base. */
  config: GateConfig;
  /** The base commit (full object name). */
  base: string;
  /** The head commit: the base's evidence files must not be files the patch committed. */
  head: string;
  /** With `check --run`: the environment, and the base's worktree (made on first use). */
  run?: { env: Env; checkout: () => string } | undefined;
  /** The report folder (repository-relative or absolute): the base run's plugin goes under it. */
  outDir: string;
  log: GateLog;
  /** Watches the repository around each step (`run_wrote_repository`). */
  watch?: RepositoryWatch | undefined;
  /** Where each step that ran is listed with its time (the report's `commands`). */
  steps?: CommandOutcome[] | undefined;
}

/** The base's universe as judged, with the files it came from. */
export interface BaseUniverseRead {
  base: TestChangeEvidence["base"];
  universe?: Universe | undefined;
  /**
   * The base's tests that their marks skip or xfail (pytest's `skip`, and `skipif` or `xfail` whose condition holds), read
   * at the base's collection with `--run`; undefined when not known (vitest, no such file written).
   */
  skipMarked?: ReadonlySet<string> | undefined;
  inputs: InputDigest[];
  warnings: GateIssue[];
}

/**
 * The universe at the base: collected by the base's `[commands] collect` in a worktree of the base
 * (`--run`), else read from `[universe] base_collected`, else not measured (the row says how to turn it
 * on). A base collection that fails, or a file that is missing or malformed, is a GateError.
 */
export async function loadBaseUniverse(o: BaseTestsOptions): Promise<BaseUniverseRead> {
  const { config, ports } = o;
  const at = shortRevision(o.base);
  const collect = config.commands.collect;
  if (o.run && collect !== undefined) {
    const ready = baseCheckout(o);
    const dir = typeof ready === "string" ? ready : await ready;
    o.log.info(`collecting the base ${at} in a git worktree at ${dir}, with the base's [commands] collect`);
    const step = baseCodeStep(o, dir, "base collect", collect, o.run.env);
    const marks = skipMarksStep(o, collect, step.env);
    await runCommandStep(o, "base collect", collect, marks.env, config.universe.collected, dir, (exit, stderr) => {
      if (exit === 0) return;
      throw new GateError({
        code: "universe_invalid",
        file: config.file,
        message: `[commands] collect (\`${collect}\`) exited with ${exit} on the base ${at} (a git worktree of it): the tests removed since the base cannot be judged; ${stderr}`,
        fix: `make the collection work on a clean checkout of the base (git worktree add --detach /tmp/base ${at}, and run it there); its output is above in the log`,
      });
    });
    step.check();
    const read = config.universe.collected.map((p) => {
      const file = ports.files.readText(
        p.startsWith("/") ? p : join(dir, p),
        "the base's collected test list",
        "[universe] collected (written by [commands] collect on the base)",
      );
      const name = `${p} (collected at base ${at})`;
      // Paths in it are under the root once written as at the root; else still under the worktree.
      const text = asAtRoot(file.text, dir, ports.files.root);
      const under = text === file.text ? dir : ports.files.root;
      return { name, sha256: file.sha256, ...parseUniverseText(text, name, under, config.commands.runner) };
    });
    const universe = mergeUniverses(read.map((r) => r.universe));
    failOnCollectionErrors(universe, config.file);
    return {
      base: { kind: "measured", universe },
      universe,
      skipMarked: marks.read(),
      inputs: read.map((r) => ({ role: "base_universe", path: r.name, sha256: r.sha256 })),
      warnings: read.flatMap((r) => r.warnings),
    };
  }
  if (config.universe.baseCollected.length > 0) {
    refuseCommitted(o, config.universe.baseCollected, "[universe] base_collected");
    const loaded = loadUniverse(
      ports.files,
      config.universe.baseCollected,
      "[universe] base_collected",
      config.commands.runner,
    );
    failOnCollectionErrors(loaded.value, config.file);
    return {
      base: { kind: "measured", universe: loaded.value },
      universe: loaded.value,
      inputs: loaded.files.map((f) => ({ role: "base_universe", path: f.path, sha256: f.sha256 })),
      warnings: loaded.warnings,
    };
  }
  // Said once, in the row: not measured, and how to turn it on.
  const why = "no universe at the base";
  const fix = o.run
    ? "add [commands] collect to proofgate.toml, or set [universe] base_collected"
    : "run `proofgate check --run`, or set [universe] base_collected (the base's `pytest --collect-only -q`, written by CI)";
  return { base: { kind: "not_measured", why, fix }, inputs: [], warnings: [] };
}

/**
 * The base collection's skip-marks plugin (pytest only): added to the step's environment, and what it wrote,
 * read once the step ended (undefined: nothing written, so nothing is known).
 */
function skipMarksStep(
  o: BaseTestsOptions,
  collect: string,
  env: Env,
): { env: Env; read: () => ReadonlySet<string> | undefined } {
  const { config, ports } = o;
  if (isVitestCommand(config, collect)) return { env, read: () => undefined };
  const absolute = underRoot(ports.files.root);
  const pluginDir = absolute(join(o.outDir, "base-collect"));
  const file = join(pluginDir, "skip-marks.jsonl");
  ports.files.removeTree(file);
  ports.files.writeAtomic(join(pluginDir, `${SKIP_MARKS_PLUGIN_MODULE}.py`), renderSkipMarksPlugin(file, o.base));
  return {
    env: {
      ...env,
      PYTHONPATH: [pluginDir, env.PYTHONPATH].filter(Boolean).join(":"),
      PYTEST_ADDOPTS: [`-p ${SKIP_MARKS_PLUGIN_MODULE}`, env.PYTEST_ADDOPTS].filter(Boolean).join(" "),
    },
    read: () =>
      ports.files.exists(file)
        ? new Set(
            parseSkipMarkedIds(ports.files.readText(file, "the base's skip-marked tests", "[commands] collect").text),
          )
        : undefined,
  };
}

/** The base's property test ids, with the file they came from. */
export interface BasePropertyIdsRead {
  base: PropertyIdEvidence["base"];
  inputs: InputDigest[];
}

/**
 * The property test ids the base runs (`property_weakened`): with `check --run`, `[properties] judge_tests`,
 * `[commands] properties` and `record`, the base's own property command in its worktree, with a plugin
 * that writes the ids it would run and deselects them all. Its seeds are the worktree's, the base's.
 * A step that exits non-zero or writes no ids is a GateError; otherwise undefined (not judged), as for vitest.
 */
export async function loadBasePropertyIds(
  o: BaseTestsOptions,
  /** The base universe's runner (its format), when [commands] runner does not say. */
  universeRunner?: "pytest" | "vitest" | undefined,
): Promise<BasePropertyIdsRead | undefined> {
  const { config, ports } = o;
  const command = config.commands.properties;
  if (!o.run || !config.properties.judgeTests || command === undefined || !config.commands.record) return undefined;
  // The ids plugin is pytest's; vitest's property tests that stop running leave the universe (tests_removed).
  if ((config.commands.runner ?? universeRunner ?? "pytest") === "vitest") return undefined;
  const at = shortRevision(o.base);
  const ready = baseCheckout(o);
  const dir = typeof ready === "string" ? ready : await ready;
  const pluginDir = join(o.outDir, "base-properties");
  const absolute = underRoot(ports.files.root);
  const idsFile = absolute(join(pluginDir, "property-ids.jsonl"));
  const settingsFile = absolute(join(pluginDir, "property-settings.jsonl"));
  ports.files.removeTree(idsFile);
  ports.files.removeTree(settingsFile);
  ports.files.writeAtomic(
    join(pluginDir, `${PROPERTY_IDS_PLUGIN_MODULE}.py`),
    renderPropertyIdsPlugin(idsFile, o.base, settingsFile),
  );
  const env: Env = {
    ...o.run.env,
    // The base's tests read the base's seeds: the worktree mirrors the repository, as the seeds folder does.
    PROOFGATE_SEEDS_DIR: dir,
    PYTHONPATH: [absolute(pluginDir), o.run.env.PYTHONPATH].filter(Boolean).join(":"),
    PYTEST_ADDOPTS: [`-p ${PROPERTY_IDS_PLUGIN_MODULE}`, o.run.env.PYTEST_ADDOPTS].filter(Boolean).join(" "),
  };
  o.log.info(`collecting the base ${at}'s property tests in its worktree, with the base's [commands] properties`);
  const step = baseCodeStep(o, dir, "base properties", command, env);
  await runCommandStep(o, "base properties", command, step.env, [idsFile], dir, (exit, stderr) => {
    if (exit !== 0) {
      throw new GateError({
        code: "universe_invalid",
        file: config.file,
        message: `[commands] properties (\`${command}\`) exited with ${exit} on the base ${at} (a git worktree of it, every test deselected): the property tests the base runs cannot be known, so the ones that stopped running cannot be judged; ${stderr}`,
        fix: `make the property suite collect on a clean checkout of the base (git worktree add --detach /tmp/base ${at}, and run it there with PROOFGATE_SEEDS_DIR=/tmp/base); its output is above in the log`,
      });
    }
    if (!ports.files.exists(idsFile)) {
      throw new GateError({
        code: "file_missing",
        file: config.file,
        message: `[commands] properties (\`${command}\`) wrote no property test ids on the base ${at}: the gate's plugin (-p ${PROPERTY_IDS_PLUGIN_MODULE}, through PYTEST_ADDOPTS) never saw a collection, so the property tests the base runs cannot be known`,
        fix: "run the property suite with `python -m pytest`, leaving PYTEST_ADDOPTS and PYTHONPATH to the gate; a runner that is not pytest sets [commands] record = false (a human change)",
      });
    }
  });
  step.check();
  const name = `property test ids (collected at base ${at})`;
  const file = ports.files.readText(idsFile, "the base's property test ids", "[commands] properties");
  const parsed = parsePropertyIds(asAtRoot(file.text, dir, ports.files.root), name);
  if (!parsed.ids) throw new GateError(parsed.errors);
  // The base's Hypothesis settings, written beside the ids by the same hook (none: not compared).
  const settingsName = `property test settings (collected at base ${at})`;
  const settingsRead = ports.files.exists(settingsFile)
    ? ports.files.readText(settingsFile, "the base's property test settings", "[commands] properties")
    : undefined;
  const settings = settingsRead && parsePropertySettingsFile(settingsRead.text, settingsName);
  if (settings && !settings.settings) throw new GateError(settings.errors);
  return {
    base: { file: name, ids: parsed.ids, settings: settings?.settings },
    inputs: [
      { role: "base_properties", path: name, sha256: file.sha256 },
      ...(settingsRead ? [{ role: "base_properties" as const, path: settingsName, sha256: settingsRead.sha256 }] : []),
    ],
  };
}

/** The base's worktree of each check (its `run`), once `[commands] base_setup` has run in it. */
const preparedWorktrees = new WeakMap<object, Promise<string>>();

/**
 * The base's worktree, made on first use; with `[commands] base_setup`, that command runs there first, once
 * (the base's own install and build), and a failure of it is exit 2 naming it: the base's steps would
 * otherwise run without the base's packages, or with the work tree's.
 */
export function baseCheckout(o: BaseTestsOptions): string | Promise<string> {
  const run = o.run!;
  // Without a setup, synchronously: the base's step starts before the head's (the log's order).
  if (o.config.commands.baseSetup === undefined) return run.checkout();
  let ready = preparedWorktrees.get(run);
  if (ready === undefined) {
    ready = prepareWorktree(o, run.checkout());
    preparedWorktrees.set(run, ready);
  }
  return ready;
}

async function prepareWorktree(o: BaseTestsOptions, dir: string): Promise<string> {
  const setup = o.config.commands.baseSetup!;
  const at = shortRevision(o.base);
  o.log.info(`preparing the base ${at}'s worktree at ${dir} with the base's [commands] base_setup`);
  await runCommandStep(o, "base setup", setup, o.run!.env, [], dir, (exit, stderr) => {
    if (exit === 0) return;
    throw new GateError({
      code: "usage",
      file: o.config.file,
      message: `[commands] base_setup (\`${setup}\`) exited with ${exit} on the base ${at} (a git worktree of it): the base's steps cannot run on the base's own packages; ${stderr}`,
      fix: `make the setup work on a clean checkout of the base (git worktree add --detach /tmp/base ${at}, and run it there); its output is above in the log`,
    });
  });
  return dir;
}

/** A base step's environment, and the check of what it imported (run after it). */
interface BaseCodeStep {
  env: Env;
  check: () => void;
}

/**
 * Makes a base step import the worktree's code (docs/config.md, [commands]): the plugin of
 * base-imports.ts loaded first through PYTEST_ADDOPTS, and the inherited PYTHONPATH's entries in a checkout
 * of the repository moved to the worktree. `check` reads what each Python process of the step loaded: a
 * module from a checkout, or no process that loaded the plugin, is a GateError; the head is never judged
 * against itself. With `[commands] record = false` (a runner that is not pytest) a step that loaded no
 * plugin is a warning instead.
 */
function baseCodeStep(o: BaseTestsOptions, dir: string, step: string, command: string, env: Env): BaseCodeStep {
  const { ports, config } = o;
  if (isVitestCommand(config, command)) {
    // vitest imports the base's test files and their relative imports from the worktree; its packages come
    // from the work tree's node_modules, linked into the worktree (a workspace package linked there is the
    // work tree's code: docs/config.md says so). There is no pytest plugin to load.
    return { env, check: () => undefined };
  }
  const absolute = underRoot(ports.files.root);
  const pluginDir = absolute(join(o.outDir, "base-imports"));
  const report = join(pluginDir, `${step.replace(/[^a-z]+/g, "-")}.jsonl`);
  const checkouts = [...new Set([ports.files.root, ...ports.git.listWorktrees()])].filter((c) => c !== dir);
  const setup = { worktree: dir, checkouts, keep: [absolute(o.outDir)], report };
  ports.files.removeTree(report);
  ports.files.writeAtomic(join(pluginDir, `${BASE_IMPORTS_PLUGIN_MODULE}.py`), renderBaseImportsPlugin(setup, o.base));
  return {
    env: {
      ...env,
      PYTHONPATH: [pluginDir, basePythonPath(env.PYTHONPATH, setup)].filter(Boolean).join(":"),
      PYTEST_ADDOPTS: [`-p ${BASE_IMPORTS_PLUGIN_MODULE}`, env.PYTEST_ADDOPTS].filter(Boolean).join(" "),
    },
    check: () => {
      const text = ports.files.exists(report)
        ? ports.files.readText(report, "what the base's step imported", "[commands]").text
        : "";
      const parsed = parseBaseImports(text, report);
      if (!parsed.lines) throw new GateError(parsed.errors);
      const issues = baseImportIssues(parsed.lines, { step, command, configFile: config.file, base: o.base });
      if (issues.length === 0) return;
      if (parsed.lines.length === 0 && !config.commands.record) {
        o.log.warn(
          `the ${step} step loaded no pytest plugin of proofgate's ([commands] record = false): nothing shows that it imported the base's code rather than the work tree's`,
        );
        return;
      }
      throw new GateError(issues);
    },
  };
}

/**
 * The base's evidence is written by CI, never by the patch: a path the head commit tracks is the
 * patch's own word about the base (it could list the head's tests as the base's), so it is refused.
 */
function refuseCommitted(o: BaseTestsOptions, paths: readonly string[], key: string): void {
  const committed = paths.filter((p) => !p.startsWith("/") && o.ports.git.readBlobAt(o.head, p) !== undefined);
  if (committed.length === 0) return;
  throw new GateError(
    committed.map((file) => ({
      code: "usage" as const,
      file,
      message: `${key} names a file the head commit ${shortRevision(o.head)} tracks: the patch would be telling the gate what the base had`,
      fix: `have CI write it (untracked, in .gitignore), and delete it from the repository; or run \`proofgate check --run\`, which collects the base itself`,
    })),
  );
}

/** A base whose universe has collection errors is incomplete: its removals cannot be judged. */
function failOnCollectionErrors(universe: Universe, configFile: string): void {
  if (universe.collectionErrors.length === 0) return;
  throw new GateError(
    universe.collectionErrors.map((e) => ({
      code: "universe_invalid" as const,
      file: universe.file,
      line: e.line,
      message: `the base's collection reported an error (${e.text}): its universe is incomplete, so removals since the base cannot be judged`,
      fix: `collect the base without errors, or correct [universe] base_collected in ${configFile}`,
    })),
  );
}

/** What the head's proof run shows, for choosing the base run's tests. */
export interface HeadRun {
  universe: Universe;
  active: readonly Lease[];
  results: readonly TestResult[];
  /** The proof run's record: where pytest's rootdir lies, for the ids (`testIdPaths`). */
  record?: RootdirFacts | undefined;
}

/**
 * Whether the base's ids are the root's paths: a test file they name is at that path of the base (pytest's
 * rootdir was the root there). Asked of one file: `rootdirMoved` reads the base's ids in the head's terms only then.
 */
export function baseIdsAtRoot(ports: GatePorts, base: string, ids: readonly string[]): boolean {
  const first = testFilesOf(ids).values().next();
  return !first.done && ports.git.readBlobAt(base, first.value) !== undefined;
}

/** The base's outcomes of the tests skipped at head, with the files they came from. */
export interface BaseSkipsRead {
  /** Undefined: no base results were given (every skip at head is new). */
  skips?: BaseSkips | undefined;
  inputs: InputDigest[];
  warnings: GateIssue[];
}

/** The base's run of some of its tests (`preRunMarkedSkips`): the ids it ran, and their outcomes. */
export interface BaseOnlyRun {
  ran: readonly string[];
  read: BaseSkipsRead;
}

/** Whether `check --run` can run the base's `[commands] proof` on some tests: results it writes under the worktree. */
function canRunBase(o: BaseTestsOptions): boolean {
  const { config } = o;
  return (
    o.run !== undefined &&
    config.commands.proof !== undefined &&
    config.results.junit.length > 0 &&
    !config.results.junit.some((p) => p.startsWith("/"))
  );
}

/**
 * Beside the head's proof run (pytest, `check --run`): the base's own `[commands] proof`, in its worktree, on
 * the tests the base's marks skip or xfail as its collection evaluated them (`BaseUniverseRead.skipMarked`). The
 * marks were evaluated in the collection's environment, which need not be the proof command's: they only
 * choose what to run early. What counts is what the base's proof command made of each, as for the base run
 * after the proof run, which then need not run the tests skipped at head that this run ran (pyjwt's
 * `skipif(not has_crypto)` tests: its base run left the critical path). Undefined when there is nothing to run.
 */
export async function preRunMarkedSkips(
  o: BaseTestsOptions,
  tests: BaseUniverseRead | undefined,
): Promise<BaseOnlyRun | undefined> {
  const marked = tests?.skipMarked;
  const proof = o.config.commands.proof;
  if (!marked || marked.size === 0 || !canRunBase(o) || proof === undefined || isVitestCommand(o.config, proof))
    return undefined;
  const index = tests?.universe ? (tests.universe.index ?? new Set(tests.universe.ids)) : undefined;
  const ids = [...marked].filter((id) => index?.has(id) ?? true).sort();
  if (ids.length === 0) return undefined;
  try {
    const read = await runBaseOnly(
      o,
      ids,
      tests?.universe,
      "base marked skips",
      `the ${ids.length} test(s) the base's marks skip or xfail (as its collection evaluated them), beside the head's proof run`,
    );
    return read.skips ? { ran: ids, read } : undefined;
  } catch (error) {
    // Only a head start: the base run after the proof run runs what is needed, and stops the gate if it fails.
    o.log.warn(
      `the base's run of the tests its marks skip or xfail failed (${error instanceof Error ? error.message : String(error)}); the tests skipped at head run on the base after the proof run instead`,
    );
    return undefined;
  }
}

/**
 * Whether the tests skipped at head were skipped at the base. With `--run`: the base's `[commands] proof`
 * in its worktree, with a plugin that keeps only those tests (the cost is theirs, plus a collection),
 * except those the base's run beside the proof run (`early`, `preRunMarkedSkips`) already ran; else
 * `[results] base_junit`; else none (then every skip at head counts as new).
 */
export async function loadBaseSkips(
  o: BaseTestsOptions,
  head: HeadRun,
  base: Universe | undefined,
  early?: BaseOnlyRun | undefined,
  /** `baseIdsAtRoot` of `base`'s ids, when the caller asked already. */
  idsAtRoot: boolean = base !== undefined && baseIdsAtRoot(o.ports, o.base, base.ids),
): Promise<BaseSkipsRead> {
  const { config } = o;
  const at = shortRevision(o.base);
  const accounting = accountEvidence(head.universe, head.active, head.results);
  // pytest's rootdir moved above the root since the base: the head's ids are the base's in the head's terms, and
  // the base's run is asked for them as the base names them.
  const headIndex = head.universe.index ?? new Set(head.universe.ids);
  const moved = base && rootdirMoved(base.ids, headIndex, testIdPaths(head.record), idsAtRoot);
  const asBase = moved ? new Map(base!.ids.map((id) => [moved(id), id])) : undefined;
  const inBase = (id: string) => asBase?.get(id) ?? id;
  const gone = base
    ? goneSinceBase(
        base.ids.map((id) => (moved ? moved(id) : id)),
        head.universe,
        head.active,
      )
    : [];
  const wanted = [...new Set(skipsAtHead(accounting, gone).map((s) => inBase(s.id)))];
  if (wanted.length === 0)
    return { skips: { file: "(no test skipped at head)", skipped: [] }, inputs: [], warnings: [] };
  if (canRunBase(o)) {
    const index = base ? (base.index ?? new Set(base.ids)) : undefined;
    // A module that skipped itself at head and lost no base test is asked for by its path: no collected id
    // names it, and the base's run shows whether it skipped itself there too (an optional dependency missing,
    // another platform), as the base's JUnit XML writes its collection skip under that path (pytest's rootdir's,
    // as the ids are). A module the base lacks, or has without skipping itself, shows no such skip: a new skip.
    const modules = new Set(accounting.moduleSkips.map((m) => m.id));
    const collected = index ? wanted.filter((id) => index.has(id) || modules.has(id)) : wanted;
    if (collected.length === 0)
      return { skips: { file: `(not collected at base ${at})`, skipped: [] }, inputs: [], warnings: [] };
    const ranEarly = new Set(early?.ran ?? []);
    const skippedEarly = new Set(early?.read.skips?.skipped ?? []);
    const known = collected.filter((id) => ranEarly.has(id));
    const ids = collected.filter((id) => !ranEarly.has(id));
    const fromEarly: BaseSkipsRead = {
      skips: { file: early?.read.skips?.file ?? "", skipped: known.filter((id) => skippedEarly.has(id)) },
      inputs: early?.read.inputs ?? [],
      warnings: early?.read.warnings ?? [],
    };
    if (ids.length === 0) {
      o.log.info(
        `the base's run beside the proof run already ran the ${known.length} test(s) skipped at head: no base run after it`,
      );
      return fromEarly;
    }
    const read = await runBaseOnly(
      o,
      ids,
      base,
      "base skips",
      `the ${ids.length} test(s) skipped at head` +
        (known.length > 0 ? ` (the base's run beside the proof run ran ${known.length} more)` : ""),
    );
    if (known.length === 0 || !read.skips) return read;
    return {
      skips: { file: read.skips.file, skipped: [...new Set([...read.skips.skipped, ...fromEarly.skips!.skipped])] },
      inputs: [...fromEarly.inputs, ...read.inputs],
      warnings: [...fromEarly.warnings, ...read.warnings],
    };
  }
  if (config.results.junit.some((p) => p.startsWith("/")) && o.run) {
    o.log.warn(
      "[results] junit names an absolute path, which a run on the base would overwrite: the base's skips are read from [results] base_junit, if set",
    );
  }
  if (config.results.baseJunit.length > 0) {
    refuseCommitted(o, config.results.baseJunit, "[results] base_junit");
    const names = config.results.baseJunit.map((p) => ({ path: p, name: p }));
    return readBaseResults(o, undefined, names, base, "[results] base_junit");
  }
  return { inputs: [], warnings: [] };
}

/**
 * The base's `[commands] proof` in its worktree on `ids` only (step `step`): a plugin keeps only those tests
 * (the cost is theirs, plus a collection), and their `[results] junit` there says which were skipped at the
 * base. Its exit code says nothing (a test may fail at the base).
 */
async function runBaseOnly(
  o: BaseTestsOptions,
  ids: readonly string[],
  base: Universe | undefined,
  step: "base marked skips" | "base skips",
  what: string,
): Promise<BaseSkipsRead> {
  const { config, ports } = o;
  const proof = config.commands.proof!;
  const run = o.run!;
  const at = shortRevision(o.base);
  const ready = baseCheckout(o);
  const dir = typeof ready === "string" ? ready : await ready;
  const pluginDir = join(o.outDir, step.replace(/ /g, "-"));
  const absolute = underRoot(ports.files.root);
  // JUnit XML writes a non-strict xpass as a pass: the plugin names them, so an xfail the base had counts.
  const xpassedFile = absolute(join(pluginDir, "xpassed.jsonl"));
  ports.files.removeTree(xpassedFile);
  let env: Env;
  if (isVitestCommand(config, proof)) {
    // vitest: the gate's runner (through its reporter) marks every other test skipped, so only these
    // run; no record is written (only the JUnit outcomes are read).
    const nonce = randomBytes(16).toString("hex");
    const reporter = writeVitestModules(ports.files, absolute(pluginDir), nonce, { root: dir, leased: [], only: ids });
    env = { ...run.env, ...VITEST_RUN_ENV, [VITEST_REPORTER_ENV]: reporter };
  } else {
    ports.files.writeAtomic(join(pluginDir, `${ONLY_PLUGIN_MODULE}.py`), renderOnlyPlugin(ids, o.base, xpassedFile));
    // Only the outcomes are read here: a proof command that measures with pytest-cov is told not to
    // (`--no-cov`), which spares the coverage tracing and the base's 0 % table in the log.
    const noCov = PYTEST_COV_FLAG.test(proof) ? "--no-cov" : undefined;
    env = {
      ...run.env,
      PYTHONPATH: [absolute(pluginDir), run.env.PYTHONPATH].filter(Boolean).join(":"),
      PYTEST_ADDOPTS: [`-p ${ONLY_PLUGIN_MODULE}`, noCov, run.env.PYTEST_ADDOPTS].filter(Boolean).join(" "),
    };
  }
  o.log.info(`running the base ${at}'s [commands] proof on ${what}, in its worktree`);
  const code = baseCodeStep(o, dir, step, proof, env);
  await runCommandStep(o, step, proof, code.env, config.results.junit, dir);
  code.check();
  const which = step === "base skips" ? "base run" : "base run beside the proof run";
  const names = config.results.junit.map((p) => ({ path: join(dir, p), name: `${p} (${which} at ${at})` }));
  // Asked only for modules that skipped themselves at head (none of whose tests the base collected): a module
  // that neither skips itself nor holds a test at the base leaves no <testcase> at all. Not skipped at the base,
  // so their skips at head are new (as when the run wrote nothing it should have: fail-closed).
  if (ids.every((id) => !id.includes("::"))) {
    const files = names.map(({ path, name }) => ({
      name,
      file: ports.files.readText(path, "the base's JUnit XML results", "[results] junit"),
    }));
    if (files.every(({ file }) => !/<testcase\b/.test(file.text)))
      return {
        skips: { file: files.map((f) => f.name).join(", "), skipped: [] },
        inputs: files.map(({ name, file }) => ({ role: "base_results", path: name, sha256: file.sha256 })),
        warnings: [],
      };
  }
  const read = readBaseResults(o, dir, names, base, "[results] junit (written by [commands] proof on the base)");
  // No file: no xpass is known at the base, so an xpass at head counts as new (fail-closed).
  const xpassed = ports.files.exists(xpassedFile)
    ? parseXpassedIds(ports.files.readText(xpassedFile, "the base's xpassed tests", "[commands] proof").text)
    : [];
  if (xpassed.length === 0 || !read.skips) return read;
  return { ...read, skips: { ...read.skips, skipped: [...new Set([...read.skips.skipped, ...xpassed])] } };
}

function readBaseResults(
  o: BaseTestsOptions,
  /** The worktree the files were written in; undefined: written by CI in the work tree. */
  dir: string | undefined,
  files: readonly { path: string; name: string }[],
  base: Universe | undefined,
  flag: string,
): BaseSkipsRead {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const shards: TestResult[][] = [];
  const inputs: InputDigest[] = [];
  for (const { path, name } of files) {
    const file = o.ports.files.readText(path, "the base's JUnit XML results", flag);
    inputs.push({ role: "base_results", path: name, sha256: file.sha256 });
    const text = dir === undefined ? file.text : asAtRoot(file.text, dir, o.ports.files.root);
    const parsed = parseJunitXml(text, name, base ? { universe: base } : {});
    errors.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    if (parsed.results) shards.push(parsed.results);
  }
  if (errors.length > 0) throw new GateError(errors);
  const merged = mergeJunitResults(shards);
  if (merged.errors.length > 0 || !merged.results) throw new GateError(merged.errors);
  const skipped = merged.results.filter((r) => r.outcome === "skipped" || r.outcome === "xfail").map((r) => r.id);
  return {
    skips: { file: files.map((f) => f.name).join(", "), skipped },
    inputs,
    warnings: [...warnings, ...merged.warnings],
  };
}

/**
 * What a base step wrote in its worktree, with the worktree's folder written as the work tree's root: a
 * test whose name holds the current folder (a path built from \`process.cwd()\`, a parametrized path) is
 * then named alike at the base and at head, as the base's files would be were it checked out in place.
 * Only when the root needs no escaping in JSON or XML (the files are either); otherwise unchanged.
 */
export function asAtRoot(text: string, dir: string, root: string): string {
  if (dir === root || /[&<>"'\\\u0000-\u001f]/.test(root) || !text.includes(dir)) return text;
  return text.split(dir).join(root);
}

/**
 * The files `[commands] collect` names (and those a tool in it reads: a Makefile, tox.ini, noxfile.py)
 * that are files at the base: a commit touching one may have narrowed the collection.
 */
export function collectionFilesAt(ports: GatePorts, base: string, collect: string | undefined): string[] {
  if (collect === undefined) return [];
  const candidates = commandFiles(collect);
  if (candidates.length === 0) return [];
  const files = new Set(ports.git.listFilesAt(base, "").map((e) => e.path));
  return candidates.filter((p) => files.has(p));
}

/** The base's proven figure for `[coverage] max_drop`, with the file it came from. */
export interface BaseCoverageRead {
  evidence: CoverageDropEvidence;
  inputs: InputDigest[];
}

/**
 * The base's proven coverage (`[coverage] max_drop`): read from `[coverage] base_report`, the report the
 * base pipeline's own gate wrote (a CI artifact; a file the head commit tracks is refused, as the patch
 * would be telling the gate the base's figure). `check --run` does not make it: the base run it makes
 * runs only the tests skipped at head, never the base's whole proof. Unset: not measured, and the row
 * says how to turn it on. Off (undefined) without `max_drop`. A report that is missing, malformed or of
 * another commit is a GateError.
 */
export function loadBaseCoverage(o: BaseTestsOptions): BaseCoverageRead | undefined {
  const { config, ports } = o;
  const maxDrop = config.coverage.maxDrop;
  if (maxDrop === undefined) return undefined;
  const path = config.coverage.baseReport;
  if (path === undefined)
    return {
      evidence: {
        kind: "not_measured",
        maxDrop,
        why: "no proven figure of the base ([coverage] base_report is not set)",
        fix: "keep the base pipeline's report.json as a CI artifact and set [coverage] base_report to where this job downloads it",
      },
      inputs: [],
    };
  refuseCommitted(o, [path], "[coverage] base_report");
  const file = ports.files.readText(path, "the base pipeline's proofgate report", "[coverage] base_report");
  const parsed = parseBaseCoverageReport(file.text, file.path, o.base);
  if (parsed.percent === undefined) throw new GateError(parsed.errors);
  return {
    evidence: { kind: "measured", maxDrop, basePercent: parsed.percent, file: file.path },
    inputs: [{ role: "base_coverage", path: file.path, sha256: file.sha256 }],
  };
}

// evaluateGate: the one pipeline from the inputs to the report. `check` reads what to judge from the
// base revision's proofgate.toml; `decide` from the article's flags. Both load the same way and ask
// core's decide() for the answer. Any input it cannot read or trust throws a GateError (exit 2).
import {
  decide,
  parseGitDiff,
  evidencePaths,
  isTestFile,
  mergeOwnChanges,
  readPytestPythonpath,
  readPytestSettings,
  runMeasurementFacts,
  testFilesOf,
  testFolderOf,
  testIdFile,
  testIdPaths,
  isDocumentation,
  unexpectedChanges,
  GateError,
  hasHumanTrailer,
  type CommandOutcome,
  type CoverageDropEvidence,
  type CommitPaths,
  type CoverageMap,
  type DecideInput,
  type DiffFile,
  type Env,
  type GateConfig,
  type GateIssue,
  type GateReport,
  type InputDigest,
  type IsoDate,
  type Lease,
  type Ledger,
  type LockDelta,
  type PatchEvidence,
  type PatchSource,
  type PropertyIdEvidence,
  type PropertySource,
  type TestChangeEvidence,
  type TestResult,
  type Universe,
  type RootdirFacts,
} from "@proofgate/core";
import type { GateLog } from "./log.js";
import type { GatePorts, OutsideChange } from "./ports.js";
import { activePytestLeases, leaseBook, type LeaseBook } from "./lease-book.js";
import { CONFIG_FILE, readWorkTreeConfig } from "./sources/config.js";
import { loadProvenCoverage, type CoverageSources } from "./sources/coverage.js";
import { loadLedger, loadPropertyResults, loadResults, type Loaded } from "./sources/inputs.js";
import { loadMeasurement, type PatchMeasurement } from "./sources/measurement.js";
import {
  loadBaseVitestCoverage,
  vitestCoverageChanges,
  type BaseVitestCoverageRead,
} from "./sources/vitest-coverage.js";
import { loadPatchEvidence, type LoadedPatch, type PatchRequest } from "./sources/patch.js";
import { pathScope, repositoryTopOf } from "./scoped-git.js";
import { verifyHumanSignatures, type PlatformVerifier } from "./sources/signatures.js";
import { runConfiguredCommands, stepOutputs, type CommandsRun, type RepositoryWatch } from "./sources/run-commands.js";
import { readStamps, requireBoundEvidence, stampOwnRun, UNBOUND_POLICY } from "./sources/evidence-binding.js";
import {
  DEFAULT_READ_ALLOW,
  diffWorkTree,
  findToolShadows,
  runnerIntegrityWarnings,
  runnerParts,
  scanRunnerTampering,
  testsNotProven,
  withRecordedXpasses,
  isOutsidePath,
  isPythonFile,
  type ChangedSourceFile,
  type ChangedRead,
  type RunnerEvidence,
  type ShippedEvidence,
  type WorkTreeEntry,
} from "@proofgate/core/proof-run";
import {
  collectionFilesAt,
  loadBasePropertyIds,
  loadBaseSkips,
  baseIdsAtRoot,
  loadBaseUniverse,
  preRunMarkedSkips,
  type BaseOnlyRun,
  type BasePropertyIdsRead,
  type BaseTestsOptions,
  type BaseUniverseRead,
  loadBaseCoverage,
} from "./sources/base-tests.js";

/** The clock the gate judges by: the machine's, or a date given for a preview (then never MERGE). */
export interface GateClock {
  today: IsoDate;
  /** True when `today` was given, not read from the machine's clock. */
  override: boolean;
}

/** `check`: every signal, from the base revision's proofgate.toml. */
export interface CheckRequest {
  kind: "check";
  clock: GateClock;
  /** The patch's base: a flag (taken as given) or a platform's (judged from its merge-base with head). */
  base?: { revision: string; from: "flag" } | { revision: string; from: "platform"; platform: string } | undefined;
  head?: string | undefined;
  /** The branch the patch targets: its merge-base is the base when none is given. */
  defaultBranch?: string | undefined;
  /** Coverage shards the CI declares; the gate waits for the larger of this and `[coverage] shards`. */
  shards?: number | undefined;
  /** How to fetch the whole history where the gate runs. */
  shallowFix: string;
  /** The report folder (absolute, or relative to the repository root). */
  outDir: string;
  /**
   * First run `[commands]`, with this environment; `timeout` (seconds, 0: none) replaces the config's
   * `[commands] timeout` (`check --timeout`): how long a step may hang decides no verdict, only when exit 2 comes.
   */
  run?: { env: Env; timeout?: number | undefined } | undefined;
  /** The platform's verification of commits' signatures, where it has one (`[agents] human_signatures`). */
  platformVerifier?: PlatformVerifier | undefined;
  /** A package's folder in the repository (`check --root`, repository-relative): its gate protects the shared CI files too. */
  root?: string | undefined;
}

/** `decide`: the article's inputs, named one by one. */
export interface DecideRequest {
  /** The package's folder (repository-relative) when decide runs in one with `--base`: as `check --root`. */
  root?: string | undefined;
  kind: "decide";
  clock: GateClock;
  ledger: string;
  collected: string;
  coverage: Omit<CoverageSources, "frozen">;
  results: string[];
  maxUnledgeredSkips?: number | undefined;
  minProven: number;
  propertyFailures: number;
  /** The article's manual counts, or the patch read from git. */
  patch:
    | { kind: "counts"; agentAddedLeases: number; fixtureDelta: number; humanFixtureLock: boolean }
    | { kind: "git"; base?: string | undefined; head?: string | undefined; shallowFix: string };
}

/** What the gate judges. */
export type GateRequest = CheckRequest | DecideRequest;

/** What the gate read before it stopped, so a report of a failure still says what it judged. */
export interface GateTrace {
  inputs: InputDigest[];
  base?: string | undefined;
  head?: string | undefined;
  /** The coverage's line map, for the HTML view (the report keeps only its totals and frozen-only lines). */
  coverageMap?: CoverageMap | undefined;
  /** The judging config's `[publish] timeout` (seconds), once the config is read. */
  publishTimeout?: number | undefined;
}

/**
 * Judges the patch: reads every input through `ports`, and returns core's report. Problems that keep the
 * gate from evaluating are thrown as a GateError; `trace` keeps what was read until then.
 */
export async function evaluateGate(
  request: GateRequest,
  ports: GatePorts,
  log: GateLog,
  trace: GateTrace = { inputs: [] },
): Promise<GateReport> {
  return request.kind === "check"
    ? evaluateCheck(request, ports, log, trace)
    : evaluateDecide(request, ports, log, trace);
}

/** What checking the fixtures found: the lock's digest (for the report's inputs) and the lock's warnings. */
interface FixturesFound {
  lock?: InputDigest;
  warnings: GateIssue[];
}

/** The fixture files against the lock, as the patch's `unlocked` evidence. */
function unlockedFixtures(ports: GatePorts, found: FixturesFound) {
  return async (config: GateConfig): Promise<LockDelta> => {
    const { comparison, lockSha256, warnings } = await ports.fixtures.check(config.fixtures);
    found.warnings.push(...warnings);
    found.lock = { role: "fixtures_lock", path: config.fixtures.lock, sha256: lockSha256 };
    return { changed: comparison.changed, added: comparison.added, removed: comparison.removed };
  };
}

/**
 * The base as the platform gives it. GitHub's `pull_request.base.sha` is the target branch's tip when
 * the event fired: once the target moved on it is no ancestor of the head, and the patch's own commits
 * start at their merge-base. A `--base` flag is taken as given.
 */
function judgedBase(request: CheckRequest, ports: GatePorts, log: GateLog): string | undefined {
  const base = request.base;
  if (base === undefined || base.from === "flag") return base?.revision;
  const { git } = ports;
  const baseSha = git.resolveCommit(base.revision);
  const headSha = git.resolveCommit(request.head ?? "HEAD");
  if (baseSha === undefined || headSha === undefined || git.isAncestor(baseSha, headSha)) return base.revision;
  const fork = git.mergeBase(baseSha, headSha);
  if (fork === undefined) return base.revision;
  log.info(
    `the ${base.platform} base ${baseSha.slice(0, 12)} is the target branch's tip; the patch is judged from its merge-base ${fork.slice(0, 12)}`,
  );
  return fork;
}

/**
 * The gate reads the ledger, the fixtures and the artifacts from the work tree, and the patch from git:
 * the two must be the same revision (the head, or a CI's test merge of it), with no change to a tracked
 * file and, with `--run`, no untracked one; only the evidence the config names and the report folder
 * may differ.
 */
function requireWorkTreeAtHead(ports: GatePorts, head: string, config: GateConfig, request: CheckRequest): void {
  const { git, files } = ports;
  const current = git.resolveCommit("HEAD");
  // A CI's test merge (GitHub's refs/pull/N/merge, GitLab's merged results) checks out a merge of the
  // head into the target branch: its tests are the head's changes as they would land.
  const testMerge = current !== undefined && current !== head && git.commitParents(current).includes(head);
  if (current !== head && !testMerge) {
    throw new GateError({
      code: "usage",
      message: `the work tree is at ${current ? current.slice(0, 12) : "no commit"}, but the patch's head is ${head.slice(0, 12)} (and the work tree is not a merge of it): the gate judges the files it reads from the work tree as that head`,
      fix: `check out ${head.slice(0, 12)} first (git checkout ${head}), or leave out --head`,
    });
  }
  const run = request.run !== undefined;
  const outDir = repoRelative(files.root, request.outDir);
  const changed = unexpectedChanges(git.workTreeChanges({ untracked: run }), config, outDir);
  if (changed.length > 0) {
    const shown = changed.slice(0, 10);
    throw new GateError(
      shown.map((file, i) => ({
        code: "work_tree_dirty" as const,
        file,
        message: `${run ? "is uncommitted or untracked" : "has uncommitted changes"}: the gate judges commit ${head.slice(0, 12)}, and the work tree must be it${i === shown.length - 1 && changed.length > shown.length ? ` (and ${changed.length - shown.length} more file(s))` : ""}`,
        fix: run
          ? "commit or stash the changes, and delete or .gitignore untracked files (git status shows them)"
          : "commit or stash the changes (git status shows them)",
      })),
    );
  }
}

/** A repository path's first folder ("" for a file at the root). */
const topFolder = (path: string): string => path.slice(0, Math.max(0, path.indexOf("/")));

/** `path` relative to `root`, as git names paths; undefined when it lies outside. */
function repoRelative(root: string, path: string): string | undefined {
  if (!path.startsWith("/")) return path.replace(/^\.\//, "").replace(/\/+$/, "");
  const prefix = root.endsWith("/") ? root : `${root}/`;
  if (path === root) return "";
  return path.startsWith(prefix) ? path.slice(prefix.length).replace(/\/+$/, "") : undefined;
}

async function evaluateCheck(
  request: CheckRequest,
  ports: GatePorts,
  log: GateLog,
  trace: GateTrace,
): Promise<GateReport> {
  const { files } = ports;
  const found: FixturesFound = { warnings: [] };
  // Without --run the coverage shards are on disk already: their reading starts now, beside the patch's
  // evidence, for the reports the work tree's config names (used only if the judge's, the base's, names the same).
  if (request.run === undefined) prefetchShards(ports, request, workTreeConfigOrUndefined(ports));
  const loaded = await loadJudgedPatch(request, ports, log, found);
  trace.base = loaded.patch.base;
  trace.head = loaded.patch.head;
  const shallow = loaded.patch.shallow !== undefined;
  const warnings: GateIssue[] = [...loaded.warnings, ...found.warnings];
  const { judgeConfig, config } = judgeConfigOf(request, ports, loaded);
  trace.publishTimeout = judgeConfig.publish.timeout;
  recordJudgeInputs(ports, loaded, trace.inputs, warnings);
  if (!shallow) requireWorkTreeAtHead(ports, loaded.patch.head, config, request);
  const measurement = measurementSource(ports, config, loaded);

  // No config at the base or here, and no ledger: no gate was set up in this folder (a monorepo's root, or
  // a package never adopted). Said so, rather than "the ledger does not exist".
  if (!shallow && loaded.configSource === undefined && !files.exists(CONFIG_FILE) && !files.exists(config.ledger.path))
    throw new GateError({
      code: "file_missing",
      file: CONFIG_FILE,
      message: `no gate is set up in ${request.root ? `the package ${request.root}` : "this folder"}: no ${CONFIG_FILE} (at the base or in the work tree) and no freeze ledger (${config.ledger.path})`,
      fix: "run `proofgate init` in the project's folder (a monorepo's package: in its folder) and commit what it writes in a human commit with `Gate-Change: human`; in a monorepo, run the gate in a package's folder or pass --root <folder>",
    });
  const ledger = loadLedger(files, config.ledger.path, "[ledger] path");
  const readBook = lazyLeaseBook(files, config, ledger, request.clock.today);
  // With --run, the base's own commands run on the base's files, in a worktree removed afterwards
  // whatever happens (once every base step has ended).
  let checkout: string | undefined;
  const base = loaded.patch.base;
  const timed = phaseTimer(ports.now ?? Date.now, log);
  const run =
    request.run && !shallow
      ? {
          env: request.run.env,
          // With [commands] base_setup the base installs its own packages; else the work tree's are linked.
          checkout: () =>
            (checkout ??= timed("base worktree", () =>
              ports.git.addWorktree(base, { linkNodeModules: config.commands.baseSetup === undefined }),
            )),
        }
      : undefined;
  // Every step, the base's included, is watched: the run must leave the commit as it found it.
  const watch: RepositoryWatch | undefined = run && repositoryWatch(config, files.root, request.outDir);
  // Every step that ran, the base's included, with its time (the report's `commands`); the rules read the head's.
  const commands: CommandOutcome[] = [];
  const baseOptions: BaseTestsOptions = {
    ports,
    config,
    base,
    head: loaded.patch.head,
    run,
    outDir: request.outDir,
    log,
    watch,
    steps: commands,
  };
  // With --run and the head's commands to run, the base's collection runs beside them (its worktree is
  // outside the repository; its output is held and shown after the head's steps). The phase is watched
  // whole: what the base's steps left in the repository that no head step's own watch saw is theirs.
  const parallel = run !== undefined && watch !== undefined && loaded.configSource !== undefined;
  const held = parallel ? heldLog(log) : undefined;
  let pending: Promise<unknown> | undefined;
  try {
    const phaseBefore = parallel ? ports.git.workTreeStatus() : undefined;
    const watchedBefore = watch?.steps.length ?? 0;
    // The head's collection, run beside the proof run ([commands] collect_beside_proof), waits for the
    // base's to end: two processes at a time beside the proof run's would slow it on two cores.
    let baseCollected: () => void = () => {};
    const baseCollectEnded = new Promise<void>((resolve) => (baseCollected = resolve));
    const baseRun = readBaseSteps(
      shallow ? undefined : held ? { ...baseOptions, log: held.log, watch: undefined } : baseOptions,
      baseCollected,
      parallel,
    );
    // Once the base failed, the head's steps not yet started do not start: the gate exits 2 on the base.
    let baseFailure: Error | undefined;
    pending = baseRun.catch((e: unknown) => {
      baseFailure = e instanceof Error ? e : new Error(String(e));
    });
    // Without the parallel phase, the base is read first: a base that cannot be collected stops early.
    let baseRead = parallel ? undefined : await baseRun;
    // The base's proven figure ([coverage] max_drop): read before any step runs, so a bad one stops early.
    const baseCoverage = loadBaseCoverage(baseOptions);
    const records = await runHeadSteps({
      request,
      ports,
      config,
      loaded,
      baseRun,
      parallel,
      readBook,
      ledger,
      log,
      watch,
      commands,
      stopped: () => baseFailure,
      besideAfter: baseCollectEnded,
      warnings,
      vitestSources: measurement?.kind === "evidence" ? measurement.evidence.scriptSources.map((f) => f.path) : [],
    });
    // The proof run wrote the shards: their reading starts beside what is read before they are judged.
    if (request.run !== undefined) prefetchShards(ports, request, config);
    if (parallel) {
      // The base's steps end before anything is judged; a base that failed stops the gate here (exit 2).
      try {
        baseRead = await baseRun;
      } finally {
        held?.flush();
      }
      if (watch && phaseBefore) watchPhase(ports, watch, phaseBefore, watchedBefore, log);
    }
    const stamps = shallow ? [] : readStamps(ports, config.evidence.stamps);

    // vitest's run record has no file reads (docs/vitest.md): the reads outside the lock are not judged
    // there, and the report says so; the lock itself (fixtures_unlocked, fixture_digest) still is.
    const readsRecorded = (config.commands.runner ?? readBook().universe.value.runner ?? "pytest") !== "vitest";
    const changed =
      shallow || !readsRecorded ? [] : await changedReads(ports, loaded, config, records, request.platformVerifier);
    const runner = shallow ? undefined : runnerEvidence(ports, loaded, config, records, watch, readsRecorded, changed);
    if (runner) warnings.push(...runnerIntegrity(ports, loaded, config, runner));
    if (runner?.proof && config.fixtures.enabled && !readsRecorded) {
      warnings.push({
        code: "runner_unverifiable",
        file: config.file,
        message:
          "the vitest proof run does not record the files its tests read: a golden file read from outside [fixtures] paths (unlocked_fixture_read) is not judged; the fixture lock is",
        fix: "keep every golden file the tests read under [fixtures] paths",
      });
    }
    return await judge(
      checkSources({
        request,
        ports,
        config,
        loaded,
        book: readBook(),
        baseCoverage,
        stamps,
        found,
        commands,
        runner,
        warnings,
        measurement,
        baseRead,
        baseOptions,
      }),
      ports,
      log,
      trace,
    );
  } catch (error) {
    throw withShallowCause(error, loaded.patch.shallow, Boolean(request.run));
  } finally {
    // A head step that failed leaves the base's steps running: they end before their worktree goes.
    await pending;
    held?.flush();
    if (checkout !== undefined) {
      const dir = checkout;
      timed("base worktree removed", () => ports.git.removeWorktree(dir));
    }
  }
}

/** Everything `check` hands the one loader: where each input is, the base's side, and what was learned before. */
function checkSources(s: {
  request: CheckRequest;
  ports: GatePorts;
  config: GateConfig;
  loaded: LoadedPatch;
  book: LeaseBook;
  baseCoverage: JudgeSources["coverageDrop"];
  stamps: ReturnType<typeof readStamps>;
  found: FixturesFound;
  commands: CommandOutcome[];
  runner: RunnerEvidence | undefined;
  warnings: GateIssue[];
  measurement: JudgeSources["measurement"];
  baseRead: Awaited<ReturnType<typeof readBaseSteps>> | undefined;
  baseOptions: BaseTestsOptions;
}): JudgeSources {
  const { request, ports, config, loaded, book, baseCoverage, stamps, found, commands, runner, warnings, measurement } =
    s;
  const shallow = loaded.patch.shallow !== undefined;
  const baseTests = s.baseRead?.tests;
  const baseProperties = s.baseRead?.properties;
  return {
    clock: request.clock,
    book,
    coverage: coverageSources(request, config),
    coverageRoles: "by-source",
    results: config.results.junit,
    maxUnledgeredSkips: config.results.maxUnledgeredSkips,
    minProven: config.coverage.minProven,
    minPatchProven: config.coverage.minPatchProven,
    patchLines: shallow
      ? { notMeasured: "the history does not reach the base" }
      : patchLines(ports, loaded.patch.base, loaded.patch.head),
    coverageDrop: baseCoverage,
    maxLeaseDays: config.ledger.maxLeaseDays,
    properties: config.properties.enabled
      ? { kind: "results", paths: config.properties.results }
      : { kind: "off", why: loaded.off.properties },
    fixturesOff: config.fixtures.enabled ? false : (loaded.off.fixtures ?? true),
    policySource: shallow
      ? "the work tree's proofgate.toml: the history does not reach the base"
      : `${loaded.policySource}${config.evidence.bound ? "" : `; ${UNBOUND_POLICY}`}`,
    bindEvidence: shallow ? undefined : (read) => requireBoundEvidence(ports, config, loaded.patch.head, read, stamps),
    patch: { kind: "git", patch: loaded.patch, policy: loaded.policy },
    fixtureLock: () => found.lock,
    commands,
    runner,
    warnings,
    measurement: withBaseSides(
      measurement,
      loaded,
      baseTests,
      s.baseRead?.vitestCoverage,
      runner,
      (path) => ports.git.readFileAt(loaded.patch.base, path) !== undefined,
    ),
    propertyIds: baseProperties && propertyIdsSource(ports, loaded, config, baseProperties),
    testChanges: baseTests && testChangesSource(s.baseOptions, loaded, baseTests, s.baseRead?.markedSkips),
  };
}

/**
 * Measurement with what the base's steps read: the base's test ids (which files hold tests), and vitest's
 * coverage settings compared with the proof run's (its record), each loosening charged to the commits that
 * could have made it. Without the proof run's record (runner_tampering already) they are not compared.
 */
function withBaseSides(
  measurement: JudgeSources["measurement"],
  loaded: LoadedPatch,
  baseTests: BaseUniverseRead | undefined,
  baseVitest: BaseVitestCoverageRead | undefined,
  runner: RunnerEvidence | undefined,
  existedAtBase: (path: string) => boolean,
): JudgeSources["measurement"] {
  if (measurement?.kind !== "evidence") return measurement;
  const baseIds = baseTests?.base.kind === "measured" ? baseTests.base.universe.ids : undefined;
  const record = runner?.proof?.result.record;
  if (!baseVitest || !record) return { ...measurement, baseIds };
  const vitest = vitestCoverageChanges(
    baseVitest.settings,
    { start: record.vitestCoverage ?? null, end: record.vitestCoverageEnd },
    loaded.patch.commits,
    loaded.touched,
    existedAtBase,
  );
  const evidence = measurement.evidence;
  return {
    ...measurement,
    baseIds,
    inputs: baseVitest.inputs,
    evidence: { ...evidence, net: [...evidence.net, ...vitest.net], commits: [...evidence.commits, ...vitest.commits] },
  };
}

/** The ledger, read now; the lease book, read on first use (after the collection with --run: the universe the proof run is planned on is the one judged). */
function lazyLeaseBook(
  files: GatePorts["files"],
  config: GateConfig,
  ledger: Loaded<Ledger>,
  today: IsoDate,
): () => LeaseBook {
  const universe = { paths: config.universe.collected, flag: "[universe] collected" };
  let book: LeaseBook | undefined;
  return (): LeaseBook =>
    (book ??= leaseBook(
      files,
      ledger,
      universe,
      today,
      config.commands.runner === undefined ? undefined : { name: config.commands.runner, file: config.file },
    ));
}

/** A package's gate (`root`): the shared files above it, protected whole or by section; none at the root. */
function sharedOf(root: string | undefined): Pick<PatchRequest, "sharedProtected" | "sharedSections"> {
  if (!root) return {};
  const { sharedPatterns, sharedSections } = pathScope(root);
  return { sharedProtected: sharedPatterns, sharedSections };
}

/** The patch from git, judged from the base `check` resolves, with the fixtures checked on the way. */
function loadJudgedPatch(
  request: CheckRequest,
  ports: GatePorts,
  log: GateLog,
  found: FixturesFound,
): Promise<LoadedPatch> {
  return loadPatchEvidence(ports.git, {
    base: judgedBase(request, ports, log),
    head: request.head,
    defaultBranch: request.defaultBranch,
    shallowFix: request.shallowFix,
    unlocked: unlockedFixtures(ports, found),
    platformVerifier: request.platformVerifier,
    ...sharedOf(request.root),
  });
}

/** The judge (the base's config) and the config the steps run with (`--run`'s timeout over it). */
function judgeConfigOf(
  request: CheckRequest,
  ports: GatePorts,
  loaded: LoadedPatch,
): { judgeConfig: GateConfig; config: GateConfig } {
  const shallow = loaded.patch.shallow !== undefined;
  // The judge is the base's config. A truncated history has no base: its paths then come from the work
  // tree, so the report can still say what it could (the answer is REJECT on shallow_history anyway).
  const judgeConfig = shallow ? (workTreeConfigOrUndefined(ports) ?? loaded.config) : loaded.config;
  const timeout = request.run?.timeout;
  const config =
    timeout === undefined ? judgeConfig : { ...judgeConfig, commands: { ...judgeConfig.commands, timeout } };
  return { judgeConfig, config };
}

/** Lists the config and signers read as inputs; warns when the work tree's config is not the base's. */
function recordJudgeInputs(ports: GatePorts, loaded: LoadedPatch, inputs: InputDigest[], warnings: GateIssue[]): void {
  const { files } = ports;
  if (loaded.configSource) inputs.push({ role: "config", ...loaded.configSource });
  if (loaded.signersSource) inputs.push({ role: "allowed_signers", ...loaded.signersSource });
  if (loaded.patch.shallow === undefined && files.exists(CONFIG_FILE)) {
    if (files.readText(CONFIG_FILE, "the config", CONFIG_FILE).sha256 !== loaded.configSource?.sha256) {
      warnings.push({
        code: "config_invalid",
        file: CONFIG_FILE,
        message: `the work tree's ${CONFIG_FILE} differs from the base's: the gate is run by the base's, a patch cannot change its own judge`,
      });
    }
  }
}

/** Measurement as judged from the base's config on a range that reaches the base; off is shown as off. */
function measurementSource(ports: GatePorts, config: GateConfig, loaded: LoadedPatch): JudgeSources["measurement"] {
  if (!config.measurement.enabled) return { kind: "off" };
  if (loaded.patch.shallow !== undefined) return undefined;
  return {
    kind: "evidence",
    evidence: loadMeasurement(ports.git, {
      base: loaded.patch.base,
      head: loaded.patch.head,
      commits: loaded.patch.commits,
      touched: loaded.touched,
      config,
      rcfile: loaded.invoked.coverageRc,
    }),
  };
}

/** Runs `work` and logs its time as `phase`, whatever happens. */
function phaseTimer(now: () => number, log: GateLog): <T>(phase: string, work: () => T) => T {
  return <T>(phase: string, work: () => T): T => {
    const started = now();
    try {
      return work();
    } finally {
      log.timing?.(phase, (now() - started) / 1000);
    }
  };
}

/** What `--run`'s steps must leave as they found it: the evidence, the report folder, the data files. */
function repositoryWatch(config: GateConfig, root: string, outDir: string): RepositoryWatch {
  return {
    policy: {
      outputs: evidencePaths(config),
      outDir: repoRelative(root, outDir),
      data: [...config.fixtures.paths, config.fixtures.lock, ...config.properties.seeds, config.ledger.path],
    },
    // What a restored file held (a person may have edited it while the steps ran): under the report folder.
    keepIn: `${(outDir.startsWith("/") ? outDir : `${root}/${outDir}`).replace(/\/+$/, "")}/restored`,
    steps: [],
  };
}

/** The base's steps (its universe, then its property ids); none without options (a truncated history). */
async function readBaseSteps(
  options: BaseTestsOptions | undefined,
  /** Called once the base's collection ended (or there is none), however it ended. */
  collected: () => void = () => {},
  /** The base's steps run beside the head's: its run of the tests its skip marks skip joins them. */
  beside = false,
): Promise<{
  tests?: BaseUniverseRead | undefined;
  properties?: BasePropertyIdsRead | undefined;
  vitestCoverage?: BaseVitestCoverageRead | undefined;
  markedSkips?: BaseOnlyRun | undefined;
}> {
  let tests: BaseUniverseRead;
  try {
    if (!options) return {};
    tests = await loadBaseUniverse(options);
  } finally {
    collected();
  }
  const properties = await loadBasePropertyIds(options, tests.universe?.runner);
  const vitestCoverage = await loadBaseVitestCoverage(options);
  const markedSkips = beside ? await preRunMarkedSkips(options, tests) : undefined;
  return { tests, properties, vitestCoverage, markedSkips };
}

/** `--run`'s head steps (the base's [commands]), stamped as this run's; a warning when none can run. */
async function runHeadSteps(s: {
  request: CheckRequest;
  ports: GatePorts;
  config: GateConfig;
  loaded: LoadedPatch;
  baseRun: Promise<unknown>;
  parallel: boolean;
  readBook: () => LeaseBook;
  ledger: Loaded<Ledger>;
  log: GateLog;
  watch: RepositoryWatch | undefined;
  commands: CommandOutcome[];
  stopped: () => Error | undefined;
  /** What the head's collection beside the proof run waits for (the base's collection). */
  besideAfter: Promise<unknown>;
  warnings: GateIssue[];
  /** The JavaScript and TypeScript source the patch changed: a vitest proof run's record says which its coverage measures. */
  vitestSources: readonly string[];
}): Promise<CommandsRun["records"]> {
  const { request, ports, config, loaded, warnings } = s;
  if (!request.run) return {};
  if (loaded.patch.shallow !== undefined) {
    // The commands are the base's, which a truncated history cannot show; the work tree's are the patch's.
    warnings.push({
      code: "shallow_history",
      message:
        "--run ran no command: the history does not reach the base, whose [commands] are the only ones the gate runs",
    });
    return {};
  }
  if (loaded.configSource === undefined) {
    // The adoption patch: the base has no proofgate.toml, so no [commands], and the patch's own may not run
    // as its judge. The evidence files the defaults name are judged as they are.
    warnings.push({
      code: "config_invalid",
      file: CONFIG_FILE,
      message: `--run ran no command: the base has no ${CONFIG_FILE}, so the defaults apply and name no [commands]; this patch's ${CONFIG_FILE} applies once merged`,
      fix: "run the collection and the proof run in a CI step before `proofgate check` for this patch, each through `proofgate record -- '<command>'`, writing the files the defaults name (collected.txt, proven_coverage.json)",
    });
    return {};
  }
  const env = request.run.env;
  const ran = await baseFirst(s.baseRun, s.parallel, () =>
    runConfiguredCommands({
      ports,
      config,
      env,
      base: loaded.patch.base,
      outDir: request.outDir,
      today: request.clock.today,
      leases: () => s.readBook(),
      activeLeases: () => activePytestLeases(s.ledger, request.clock.today),
      log: s.log,
      watch: s.watch,
      steps: s.commands,
      stopped: s.stopped,
      besideAfter: s.besideAfter,
      vitestSources: s.vitestSources,
      repositoryTop: request.root ? repositoryTopOf(ports.files.root, request.root) : undefined,
    }),
  );
  // What this run wrote is bound to this commit; a file no step wrote still needs a stamp of its own.
  stampOwnRun(
    ports,
    config,
    ran.outcomes.map((o) => ({ ...o, outputs: stepOutputs(config, o.step) })),
  );
  return ran.records;
}

/** The coverage reports to read, waiting for the larger of the config's and the CI's shard counts. */
function coverageSources(request: CheckRequest, config: GateConfig): JudgeSources["coverage"] {
  return {
    reports: config.coverage.reports,
    contexts: config.coverage.contexts,
    fullReport: config.coverage.fullReport,
    // The base's config and the CI's declared parallel jobs: wait for the larger count, so neither lowers the other.
    shards:
      request.shards === undefined ? config.coverage.shards : Math.max(request.shards, config.coverage.shards ?? 0),
  };
}

/** Starts reading the shards `config` names in the ports' workers, when it names several and no contexts. */
function prefetchShards(ports: GatePorts, request: CheckRequest, config: GateConfig | undefined): void {
  if (!ports.coverageShards || !config) return;
  const sources = coverageSources(request, config);
  if (sources.contexts === undefined && sources.reports.length > 1)
    ports.coverageShards.prefetch(sources.reports, undefined);
}

/** The base's property test ids beside what the range touched (`property_test_removed` and kin). */
function propertyIdsSource(
  ports: GatePorts,
  loaded: LoadedPatch,
  config: GateConfig,
  baseProperties: BasePropertyIdsRead,
): JudgeSources["propertyIds"] {
  return {
    evidence: {
      base: {
        ...baseProperties.base,
        idsAtRoot: baseIdsAtRoot(ports, loaded.patch.base, baseProperties.base.ids),
      },
      touched: touchedByCommit(loaded),
      renames: loaded.renames,
      collectionFiles: collectionFilesAt(ports, loaded.patch.base, config.commands.properties),
    },
    inputs: baseProperties.inputs,
  };
}

/** The base's side of removed and newly skipped tests, read once the head's results are known. */
function testChangesSource(
  baseOptions: BaseTestsOptions,
  loaded: LoadedPatch,
  baseTests: BaseUniverseRead,
  /** The base's run, beside the head's proof run, of the tests its skip marks skip. */
  markedSkips: BaseOnlyRun | undefined,
): NonNullable<JudgeSources["testChanges"]> {
  const { ports, config, base } = baseOptions;
  return async (head) => {
    // Read in the head's terms when pytest's rootdir moved since the base: only if the base's ids are its paths.
    const idsAtRoot = baseTests.universe !== undefined && baseIdsAtRoot(ports, base, baseTests.universe.ids);
    const skips = head.results
      ? await loadBaseSkips(baseOptions, { ...head, results: head.results }, baseTests.universe, markedSkips, idsAtRoot)
      : { inputs: [], warnings: [] };
    const measured =
      baseTests.base.kind === "measured"
        ? { ...baseTests.base, universe: { ...baseTests.base.universe, idsAtRoot } }
        : baseTests.base;
    return {
      evidence: {
        base: measured,
        baseSkips: skips.skips,
        touched: touchedByCommit(loaded),
        renames: loaded.renames,
        collectionFiles: collectionFilesAt(ports, base, config.commands.collect),
        maxNewSkips: config.results.maxNewSkips,
      },
      inputs: [...baseTests.inputs, ...skips.inputs],
      warnings: [...baseTests.warnings, ...skips.warnings],
    };
  };
}

/** Without the base, what the work tree lacks is a consequence: the history is the cause, said first. */
function withShallowCause(error: unknown, cut: PatchEvidence["shallow"], ran: boolean): unknown {
  if (!cut || !GateError.isInstance(error)) return error;
  return new GateError(
    [
      {
        code: "shallow_history",
        message: `${cut.message}; so the evidence could not be judged${ran ? " (--run ran no command: they are the base's)" : ""}`,
        fix: cut.fix,
      },
      ...error.issues,
    ],
    { cause: error },
  );
}

/**
 * The head's steps, run while the base's are: when they fail and the base's failed too, the base's error
 * is the one reported, as when the base ran first (its output is shown once the head's steps ended).
 */
async function baseFirst<T>(base: Promise<unknown>, parallel: boolean, head: () => Promise<T>): Promise<T> {
  try {
    return await head();
  } catch (error) {
    if (!parallel) throw error;
    const baseError = await base.then(
      () => undefined,
      (e: unknown) => e,
    );
    throw baseError ?? error;
  }
}

/** A log whose commands' output is held until `flush` (the base's steps, run beside the head's). */
function heldLog(log: GateLog): { log: GateLog; flush: () => void } {
  let held: string[] = [];
  return {
    log: { ...log, output: (text) => void held.push(text) },
    flush: () => {
      for (const text of held) log.output(text);
      held = [];
    },
  };
}

/**
 * The base's steps ran beside the head's, unwatched one by one: what the repository holds now that it did
 * not before the phase, and that no head step's watch (from `watchedBefore` on) already named, is theirs.
 * Tracked files they changed are put back from the commit, as for every step.
 */
function watchPhase(
  ports: GatePorts,
  watch: RepositoryWatch,
  before: readonly WorkTreeEntry[],
  watchedBefore: number,
  log: GateLog,
): void {
  const seen = new Set(watch.steps.slice(watchedBefore).flatMap((w) => [...w.changed, ...w.added]));
  const writes = diffWorkTree("base collect", before, ports.git.workTreeStatus(), watch.policy);
  writes.changed = writes.changed.filter((p) => !seen.has(p));
  writes.added = writes.added.filter((p) => !seen.has(p));
  if (writes.changed.length + writes.added.length === 0) return;
  if (writes.changed.length > 0) {
    ports.git.restoreTracked(writes.changed, watch.keepIn);
    writes.restored = [...writes.changed];
  }
  log.warn(
    `the base's steps (run beside the head's) left ${writes.changed.length + writes.added.length} file(s) in the repository: ${[...writes.changed, ...writes.added].slice(0, 5).join(", ")}${writes.changed.length > 0 && watch.keepIn ? `; the changed ones were restored from the commit, and what they held is kept in ${watch.keepIn}` : ""}`,
  );
  watch.steps.push(writes);
}

/**
 * The lines base..head added, per file (git's diff of the two trees, renames paired); a diff misread is
 * exit 2. A CI's test merge of the head is measured as it would land, so its lines are the merge's own
 * against the target side: numbered as in the files the proof run measured.
 */
function patchLines(ports: GatePorts, base: string, head: string): { files: DiffFile[] } {
  const { git } = ports;
  const current = git.resolveCommit("HEAD");
  const parents = current !== undefined && current !== head ? git.commitParents(current) : [];
  const target = parents.includes(head) ? parents.find((p) => p !== head) : undefined;
  const [from, to] = target !== undefined && current !== undefined ? [target, current] : [base, head];
  const { files, errors } = parseGitDiff(
    git.rangeDiff(from, to),
    `git diff --unified=0 -M ${from.slice(0, 12)} ${to.slice(0, 12)}`,
  );
  if (errors.length > 0) throw new GateError(errors);
  return { files };
}

/** Every commit of the range with the paths it answers for. */
const touchedByCommit = (loaded: LoadedPatch): CommitPaths[] =>
  loaded.patch.commits.map((commit) => ({ commit, paths: [...(loaded.touched.get(commit.sha) ?? [])] }));

/**
 * What the gate knows about the test runner: the run records (with `--run`), the head's modules that
 * would shadow a test tool, and the code each commit added that reaches into pytest.
 */
function runnerEvidence(
  ports: GatePorts,
  loaded: LoadedPatch,
  config: GateConfig,
  records: CommandsRun["records"],
  watch: RepositoryWatch | undefined,
  readsRecorded: boolean,
  changed: readonly ChangedRead[],
): RunnerEvidence {
  const { git, files } = ports;
  const shown = (path: string) => repoRelative(files.root, path) ?? path;
  const addedByCommit: ShippedEvidence["added"][number][] = [];
  const scans = loaded.patch.commits.flatMap((commit) => {
    // The rules read Python files only (scanRunnerTampering, shipped_code_replaced): git diffs no other.
    let added = git.addedLines(commit.sha, { suffixes: [".py"] });
    if (commit.parents.length > 1) {
      // A merge answers for its own resolution only: the paths that differ from every parent.
      const own = new Set(
        mergeOwnChanges(
          [added.map((f) => f.path), ...commit.parents.slice(1).map((p) => [...git.differingPaths(p, commit.sha)])],
          (path) => path,
        ),
      );
      added = added.filter((f) => own.has(f.path));
    }
    addedByCommit.push({ commit, files: added });
    const findings = scanRunnerTampering(added);
    return findings.length > 0 ? [{ commit, findings }] : [];
  });
  const headFiles = git.listFilesAt(loaded.patch.head, "").map((e) => e.path);
  // Shadowing is judged against the base: what its tree already had is the project's own.
  const baseFiles = git.listFilesAt(loaded.patch.base, "").map((e) => e.path);
  // pytest's `pythonpath` at each revision puts more folders on sys.path.
  const optionsAt = (rev: string) => ({
    safePath: config.commands.safePath,
    extraRoots: readPytestPythonpath((path) => git.readFileAt(rev, path)),
  });
  const shadowOptions = optionsAt(loaded.patch.head);
  const baseOptions = optionsAt(loaded.patch.base);
  // A project with its fixtures off (no golden folder; `init` writes `enabled = false` then) still answers for
  // the changed files its tests read: data files in its test folders, and (a package) files elsewhere in the
  // repository, which no lock of its own could hold.
  const changedOnly = !config.fixtures.enabled && changed.length > 0;
  return {
    proof: records.proof && { ...records.proof, file: shown(records.proof.file) },
    properties: records.properties && { ...records.properties, file: shown(records.properties.file) },
    shadows: findToolShadows(headFiles, shadowOptions, baseFiles, baseOptions),
    shadowing: {
      trees: { base: baseFiles, head: headFiles, options: shadowOptions, baseOptions },
      touched: touchedByCommit(loaded),
    },
    scans,
    // Seeds are data the property tests read; seed_rewrite guards them as the lock guards fixtures.
    fixtures:
      readsRecorded && (config.fixtures.enabled || changedOnly)
        ? {
            paths: config.fixtures.paths,
            lock: config.fixtures.lock,
            allow: [
              ...DEFAULT_READ_ALLOW,
              ...(config.properties.enabled ? config.properties.seeds.map((d) => `${d}/**`) : []),
            ],
            tracked: new Set(headFiles),
            changed,
            changedOnly,
            trailer: config.trailers.fixtureLock,
          }
        : undefined,
    // The same array the later steps (the base's skips) still fill: decide() reads it once all have run.
    writes: watch && { steps: watch.steps, tracked: new Set(headFiles), policy: watch.policy },
    shipped: shippedEvidence(git, loaded, addedByCommit),
    runnerParts: runnerParts({
      paths: headFiles,
      options: shadowOptions,
      records: [records.proof?.result.record, records.properties?.result.record].filter((r) => r !== undefined),
    }),
  };
}

/**
 * The files the proof run read that changed in the range, each with the commits that changed it and whether a
 * human's fixture trailer approves each (signatures verified as for the project's own commits): a package's
 * reads elsewhere in the repository (`../../testdata/golden.txt`; the repository's own port has none), and,
 * with `[fixtures]` off, the data files in its test folders (`tests/data.txt`: a folder pytest's settings or
 * convention make a test folder, or one holding a collected test file). Only those are judged then.
 */
async function changedReads(
  ports: GatePorts,
  loaded: LoadedPatch,
  config: GateConfig,
  records: CommandsRun["records"],
  platform: PlatformVerifier | undefined,
): Promise<ChangedRead[]> {
  const { git } = ports;
  const { base, head } = loaded.patch;
  const record = records.proof?.result.record;
  // The proof run's reads: the ones unlocked_fixture_read judges.
  const read = (record?.files ?? []).filter((f) => f.read).map((f) => f.path);
  const outside = [...new Set(read.filter(isOutsidePath))];
  const changes: (OutsideChange & { deleted?: boolean })[] =
    outside.length > 0 && git.outsideChanges ? git.outsideChanges({ base, head }, outside) : [];
  if (!config.fixtures.enabled && record) {
    const differ = [...git.differingPaths(base, head)].filter((p) => !isOutsidePath(p) && !isPythonFile(p));
    if (differ.length > 0) {
      const pytest = readPytestSettings((path) => git.readFileAt(head, path));
      const ids = testIdPaths(record);
      const folderOf = (p: string) => p.split("/").slice(0, -1).join("/");
      const under = (p: string, dir: string) => (dir === "" ? !p.includes("/") : p.startsWith(`${dir}/`));
      // A test folder: pytest's testpaths or a tests/ or test/ folder, or any folder holding a collected test file
      // (pytest's own testing/), with what lies below it.
      // A file of test functions: one testFilesOf sees (not a doctest's module), or one pytest's python_files names
      // (a test named as its module, `test_lines.py::test_lines`, reads as a module's doctest to testFilesOf).
      const files = new Set(record.collected.map(testIdFile));
      const tests = [...testFilesOf(record.collected)];
      for (const f of files) if (isTestFile(f, pytest)) tests.push(f);
      const testDirs = [...new Set(tests.map((f) => folderOf(ids.toRoot(f))))];
      const inTests = (p: string) => testFolderOf(p, pytest) !== undefined || testDirs.some((d) => under(p, d));
      // The source's folders: those of the modules the run loaded that are not tests. A file there the tests read is
      // the package's data, which the code's own change answers for.
      const sourceDirs = [...new Set((record.modules ?? []).filter((m) => !inTests(m)).map(folderOf))];
      const inSource = (p: string) => sourceDirs.some((d) => under(p, d));
      const reads = new Set(read);
      for (const path of differ) {
        // Read by the run and changed: in a test folder, or anywhere that is neither source nor documentation (a
        // testdata/ folder at the top). Deleted from a test folder: a case the tests no longer see.
        const judged = reads.has(path)
          ? inTests(path) || (!inSource(path) && !isDocumentation(path))
          : inTests(path) && git.readBlobAt(head, path) === undefined && git.readBlobAt(base, path) !== undefined;
        if (!judged) continue;
        const commits = loaded.patch.commits.filter((c) => loaded.touched.get(c.sha)?.includes(path));
        changes.push({ path, commits, ...(reads.has(path) ? {} : { deleted: true }) });
      }
    }
  }
  if (changes.length === 0) return [];
  const commits = [...new Map(changes.flatMap((c) => c.commits).map((c) => [c.sha, c])).values()];
  const verified = await verifyHumanSignatures({
    git,
    config: loaded.config,
    configPath: loaded.config.file,
    base,
    commits,
    platform,
  });
  const key = loaded.policy.trailers.fixtureLock;
  const approved = new Set(
    verified.commits.filter((c) => hasHumanTrailer(c, key, loaded.policy.agentPatterns)).map((c) => c.sha),
  );
  return changes.map((c) => ({
    path: c.path,
    commits: c.commits.map((commit) => ({ sha: commit.sha, approved: approved.has(commit.sha) })),
    ...(c.deleted ? { deleted: true } : {}),
  }));
}

/** A warning when the project is part of its own test runner (pluggy, a pytest plugin): see runnerIntegrityWarnings. */
function runnerIntegrity(
  ports: GatePorts,
  loaded: LoadedPatch,
  config: GateConfig,
  runner: RunnerEvidence,
): GateIssue[] {
  const records = [runner.proof?.result.record, runner.properties?.result.record].filter((r) => r !== undefined);
  return runnerIntegrityWarnings({
    paths: runner.shadowing?.trees.head ?? ports.git.listFilesAt(loaded.patch.head, "").map((e) => e.path),
    options: { safePath: config.commands.safePath },
    records,
  });
}

/**
 * What `shipped_code_replaced` needs: the source files the range changed (test code left out, by the
 * base's pytest settings) with the range's commit of each line git blame gives them, and the added lines.
 */
function shippedEvidence(git: GatePorts["git"], loaded: LoadedPatch, added: ShippedEvidence["added"]): ShippedEvidence {
  const { base, head, commits } = loaded.patch;
  const pytest = readPytestSettings((path) => git.readFileAt(base, path));
  const inRange = new Set(commits.map((c) => c.sha));
  const sources: ChangedSourceFile[] = [];
  for (const path of [...git.differingPaths(base, head)].sort()) {
    if (!path.endsWith(".py") || isTestFile(path, pytest)) continue;
    const text = git.readFileAt(head, path);
    if (text === undefined) continue;
    const written = git
      .blame({ base, head }, path)
      .flatMap((l) => (l.sha !== undefined && inRange.has(l.sha) ? [{ line: l.line, sha: l.sha }] : []));
    if (written.length > 0) sources.push({ path, text, written });
  }
  return { commits, touched: loaded.touched, pytest, sources, added };
}

function workTreeConfigOrUndefined(ports: GatePorts): GateConfig | undefined {
  if (!ports.files.exists(CONFIG_FILE)) return undefined;
  try {
    return readWorkTreeConfig(ports.files);
  } catch {
    return undefined;
  }
}

async function evaluateDecide(
  request: DecideRequest,
  ports: GatePorts,
  log: GateLog,
  trace: GateTrace,
): Promise<GateReport> {
  let patch: PatchSource;
  let maxLeaseDays: number | undefined;
  const warnings: GateIssue[] = [];
  const found: FixturesFound = { warnings: [] };
  if (request.patch.kind === "git") {
    const loaded = await loadPatchEvidence(ports.git, {
      base: request.patch.base,
      head: request.patch.head,
      shallowFix: request.patch.shallowFix,
      unlocked: unlockedFixtures(ports, found),
      ...sharedOf(request.root),
    });
    trace.base = loaded.patch.base;
    trace.head = loaded.patch.head;
    patch = { kind: "git", patch: loaded.patch, policy: loaded.policy };
    maxLeaseDays = loaded.config.ledger.maxLeaseDays;
    if (loaded.signersSource) trace.inputs.push({ role: "allowed_signers", ...loaded.signersSource });
    warnings.push(...loaded.warnings, ...found.warnings);
  } else {
    patch = request.patch;
  }
  return judge(
    {
      clock: request.clock,
      book: leaseBook(
        ports.files,
        loadLedger(ports.files, request.ledger, "--freeze"),
        { paths: [request.collected], flag: "--collected" },
        request.clock.today,
      ),
      coverage: request.coverage,
      coverageRoles: "all-coverage",
      results: request.results,
      maxUnledgeredSkips: request.maxUnledgeredSkips,
      minProven: request.minProven,
      maxLeaseDays,
      properties: { kind: "count", failures: request.propertyFailures },
      fixturesOff: false,
      patch,
      fixtureLock: () => undefined,
      commands: [],
      warnings,
      warningsFirst: false,
    },
    ports,
    log,
    trace,
  );
}

/** What both doors hand the one loader: where each input is, and what was learned before. */
interface JudgeSources {
  clock: GateClock;
  book: LeaseBook;
  coverage: Omit<CoverageSources, "frozen">;
  /** `by-source`: the contexts data file is listed as `contexts`; `all-coverage`: every file as `coverage`. */
  coverageRoles: "by-source" | "all-coverage";
  results: string[];
  maxUnledgeredSkips: number | undefined;
  minProven: number;
  /** `[coverage] min_patch_proven` of the base's config (`check`). */
  minPatchProven?: number | undefined;
  /** The lines base..head added (`check`), or why not read; undefined: not measured (`decide`). */
  patchLines?: DecideInput["patchLines"];
  /** `[coverage] max_drop` (`check`) with the base's figure and the file it came from; undefined: off. */
  coverageDrop?: { evidence: CoverageDropEvidence; inputs: InputDigest[] } | undefined;
  /** `[ledger] max_lease_days` of the base's config, when one was read. */
  maxLeaseDays?: number | undefined;
  properties:
    | { kind: "results"; paths: string[] }
    | { kind: "count"; failures: number }
    | { kind: "off"; why?: string | undefined };
  fixturesOff: boolean | string;
  policySource?: string | undefined;
  patch: PatchSource;
  /** The fixture lock's digest, once the fixtures were checked. */
  fixtureLock: () => InputDigest | undefined;
  commands: CommandOutcome[];
  /** What `check` learned about the test runner. */
  runner?: RunnerEvidence | undefined;
  /** Warnings found before (the patch's, the config's). */
  warnings: GateIssue[];
  /** List the earlier warnings before the inputs' (check) or after them (decide). */
  warningsFirst?: boolean;
  /** `check`: throws (exit 2) when the head's evidence read is not bound to the commit judged. */
  bindEvidence?: ((read: readonly InputDigest[]) => void) | undefined;
  /** What the patch did to measurement (`check`), once the proof run's measured files are known; off; or not judged. */
  measurement?:
    | {
        kind: "evidence";
        evidence: PatchMeasurement;
        baseIds?: readonly string[] | undefined;
        /** The base's files read for it (vitest's coverage settings). */
        inputs?: InputDigest[] | undefined;
      }
    | { kind: "off" }
    | undefined;
  /** The base's property test ids and what the range touched (`check --run`), with the file read. */
  propertyIds?: { evidence: PropertyIdEvidence; inputs: InputDigest[] } | undefined;
  /** The base's side of removed and newly skipped tests (`check`), once the head's results are read. */
  testChanges?:
    | ((head: {
        universe: Universe;
        active: readonly Lease[];
        results: readonly TestResult[] | undefined;
        record?: RootdirFacts | undefined;
      }) => Promise<{
        evidence: TestChangeEvidence;
        inputs: InputDigest[];
        warnings: GateIssue[];
      }>)
    | undefined;
}

async function judge(s: JudgeSources, ports: GatePorts, log: GateLog, trace: GateTrace): Promise<GateReport> {
  const { files } = ports;
  const { inputs } = trace;
  const { ledger, universe, leases } = s.book;
  inputs.push(...ledger.files.map((f): InputDigest => ({ role: "ledger", path: f.path, sha256: f.sha256 })));
  inputs.push(...universe.files.map((f): InputDigest => ({ role: "universe", path: f.path, sha256: f.sha256 })));
  // The proof run's record tells what JUnit XML cannot: a non-strict xfail that passed is not proof, and
  // the single run drops the contexts of every test that could not fail the run, as it drops the frozen.
  const record = s.runner?.proof?.result.record;
  const notProven = record ? testsNotProven(record) : [];
  const frozen = [...leases.active.map((l) => l.nodeid), ...notProven];
  const coverage = await loadProvenCoverage({ ...s.coverage, frozen }, ports);
  trace.coverageMap = coverage.coverage.map;
  for (const f of coverage.files) {
    const role = s.coverageRoles === "by-source" && s.coverage.contexts?.includes(f.path) ? "contexts" : "coverage";
    inputs.push({ role, path: f.path, sha256: f.sha256 });
  }
  if (coverage.full) inputs.push({ role: "full_coverage", path: coverage.full.path, sha256: coverage.full.sha256 });
  const junit = s.results.length > 0 ? loadResults(files, s.results, universe.value) : undefined;
  const results = junit && { ...junit, value: withRecordedXpasses(junit.value, record) };
  for (const f of results?.files ?? []) inputs.push({ role: "results", path: f.path, sha256: f.sha256 });
  const lock = s.fixtureLock();
  if (lock) inputs.push(lock);
  const propertyRecord = s.runner?.properties?.result.record;
  const suite =
    s.properties.kind === "results"
      ? loadPropertyResults(files, s.properties.paths, (r) => withRecordedXpasses(r, propertyRecord))
      : undefined;
  for (const f of suite?.files ?? []) inputs.push({ role: "properties", path: f.path, sha256: f.sha256 });
  const changes = s.testChanges
    ? await s.testChanges({
        universe: universe.value,
        active: leases.active,
        results: results?.value,
        record: s.runner?.proof?.result.record,
      })
    : undefined;
  inputs.push(...(changes?.inputs ?? []), ...(s.propertyIds?.inputs ?? []), ...(s.coverageDrop?.inputs ?? []));
  if (s.measurement?.kind === "evidence") inputs.push(...(s.measurement.inputs ?? []));

  const read = [
    ...ledger.warnings,
    ...universe.warnings,
    ...coverage.warnings,
    ...(results?.warnings ?? []),
    ...(suite?.warnings ?? []),
    ...(changes?.warnings ?? []),
  ];
  const warnings = s.warningsFirst === false ? [...read, ...s.warnings] : [...s.warnings, ...read];
  log.issues(warnings);
  const properties: PropertySource =
    s.properties.kind === "results" ? { kind: "results", evidence: suite!.value } : s.properties;
  let measurement: DecideInput["measurement"];
  if (s.measurement?.kind === "evidence") {
    if (coverage.measuredFiles === undefined) {
      throw new GateError({
        code: "coverage_invalid",
        file: coverage.coverage.files.join(", "),
        message:
          "the coverage report lists no files, so the gate cannot tell which changed source the proof run measured",
        fix: "write coverage.py's JSON report with its `files` table (coverage json), or turn [measurement] off in a human commit",
      });
    }
    // Test files are those that hold collected tests (the head's and the base's, and the proof run's).
    const facts = runMeasurementFacts(
      [universe.value.ids, s.measurement.baseIds ?? []],
      s.runner?.proof?.result.record,
    );
    // The head's import statements, read only when a changed source is neither measured nor a test file.
    const { headModules, scriptSources, ...python } = s.measurement.evidence;
    // A vitest proof run's record says which changed JavaScript and TypeScript files its coverage settings
    // measure once loaded (true when it could not tell): those are sources the report must list.
    // Only in the report's source trees: a file whose top folder holds no measured file (scripts/, bench/,
    // a root-level file when no root-level file is measured) is not the code the tests are for.
    const measures = s.runner?.proof?.result.record?.vitestMeasures;
    const trees = new Set(coverage.measuredFiles.map(topFolder));
    const scripts = measures
      ? scriptSources.filter((f) => measures[f.path] !== false && trees.has(topFolder(f.path)))
      : [];
    const patch = { ...python, sources: [...python.sources, ...scripts] };
    const inReport = new Set(coverage.measuredFiles);
    const unmeasured = patch.sources.some((f) => !inReport.has(f.path) && !facts.testFiles?.includes(f.path));
    measurement = {
      kind: "evidence",
      evidence: {
        ...patch,
        measured: coverage.measuredFiles,
        ...facts,
        imports: unmeasured ? headModules() : undefined,
      },
    };
  } else measurement = s.measurement;
  s.bindEvidence?.(inputs);
  return decide({
    today: s.clock.today,
    clockOverride: s.clock.override,
    ledger: ledger.value,
    universe: universe.value,
    leases,
    coverage: coverage.coverage,
    minProven: s.minProven,
    minPatchProven: s.minPatchProven,
    patchLines: s.patchLines,
    coverageDrop: s.coverageDrop?.evidence,
    maxLeaseDays: s.maxLeaseDays,
    evidence: results ? { results: results.value, maxUnledgeredSkips: s.maxUnledgeredSkips } : undefined,
    patch: s.patch,
    properties,
    fixturesOff: s.fixturesOff,
    policySource: s.policySource,
    commands: s.commands,
    runner: s.runner,
    measurement,
    testChanges: changes?.evidence,
    propertyIds: s.propertyIds?.evidence,
    inputs,
    warnings,
  });
}

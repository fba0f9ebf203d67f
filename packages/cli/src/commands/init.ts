import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import {
  DEFAULT_AGENT_PATTERNS,
  DEFAULT_PROTECTED_PATHS,
  REPORT_DIR,
  defaultConfig,
  GateError,
  parseLedger,
  utcDateOf,
  type GateConfig,
  type GateIssue,
  type IsoDate,
  type Env,
  type Provider,
} from "@proofgate/core";
import { ciSnippet, CI_PLATFORMS } from "../ci-snippets.js";
import { optionalFlag, percentFlag, stringFlag } from "../flags.js";
import { loadWorkTreeConfig } from "../config-file.js";
import type { CliIo } from "../io.js";
import { fixtureLockText, repositoryTop, settingsFromConfig, writeNew, type LockSettings } from "@proofgate/gate/node";
import { ciFound, detectLayout, pytestSettingsAbove, type CiFound } from "../layout/detect-layout.js";
import { appendGitignore, ignoreEntries, missingIgnoreEntries } from "../layout/gitignore.js";
import { planInit, type TemplateNotes } from "../layout/init-config.js";
import { diskTree, type LayoutTree } from "../layout/layout-tree.js";
import {
  addDevCommand,
  ciInstall,
  detectVitest,
  vitestTooOld,
  type EnclosingRepository,
} from "../layout/detect-vitest.js";
import { planVitestInit } from "../layout/init-vitest.js";
import { choosePython, type PythonTools } from "../layout/python-tools.js";
import { tryCollectOnce, type CommandTryRunner } from "../layout/try-collect.js";
import { measureFloor, type InitFloor } from "../layout/measure-floor.js";
import { availablePlatforms } from "./check.js";

/** Options of `proofgate init`, as yargs hands them over. */
export interface InitArgs {
  [flag: string]: unknown;
  platform?: unknown;
  /** The interpreter the commands run (default: the first of `python`, `python3` that has pytest). */
  python?: unknown;
  /** Add the files `check --run` writes to .gitignore (the default; false: only list them). */
  gitignore?: unknown;
  /** The floor to write instead of measuring one. */
  minProven?: unknown;
  /** Run the proof command once to measure the floor (the default; false: keep 70, with a note). */
  measure?: unknown;
}

/** What `runInit` takes besides the flags; tests inject both. */
export interface InitOptions {
  /** The environment the CI is detected from (`--platform auto`); default the CLI's. */
  env?: Env | undefined;
  /** Hashing of the fixtures: threads, worker script (tests point it at dist/). */
  hash?: LockSettings["hash"];
  /** Finds the Python and its test tools (`--python`'s value, or undefined); default: asks the interpreters. */
  probe?: ((chosen: string | undefined) => PythonTools) | undefined;
  /** Runs the collect command once (default: `sh -c` in the repository). */
  tryCommand?: CommandTryRunner | undefined;
}

/** The values `--platform` takes. */
export const INIT_PLATFORMS: readonly string[] = Object.freeze(["auto", ...CI_PLATFORMS]);

const CONFIG_FILE = "proofgate.toml";

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

function tomlList(values: readonly string[]): string {
  return `[${values.map(tomlString).join(", ")}]`;
}

/** A list as commented-out TOML, one item a line. */
function commentedList(key: string, values: readonly string[]): string {
  return [`# ${key} = [`, ...values.map((v) => `#   ${tomlString(v)},`), "# ]"].join("\n");
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function tomlNumber(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** Comment lines, each starting `# `, or nothing. */
function noteLines(lines: readonly string[] | undefined): string {
  return (lines ?? []).map((line) => `# ${line}\n`).join("");
}

/** A command written out, or its example commented out when the config has none. */
function commandLine(key: string, value: string | undefined, example: string): string {
  return value === undefined ? `# ${key} = ${tomlString(example)}` : `${key} = ${tomlString(value)}`;
}

/**
 * The `proofgate.toml` that `init` writes: every table, each key at the value of `config` (or, for the
 * keys it leaves unset, an example commented out), with what it does, and `notes` on why a table's
 * values are what they are. It parses to exactly `config`. The agent patterns and protected paths stay
 * commented: written out, they would replace the built-in lists for good, and a later release's
 * additions (a new agent's identity) would not reach a team that never edited them.
 */
export function configTemplate(config: GateConfig, notes: TemplateNotes = {}): string {
  const d = config;
  const t = d.trailers;
  return `# proofgate.toml: the merge gate's policy. Every key is optional: one left out (or commented out)
# keeps its default. An unknown table or key is an error.
# The gate reads this file as it is at the patch's base revision, so a patch cannot loosen its own
# judge, and a commit that changes it needs the trailer \`${t.gateChange}: human\` on a human commit.

[ledger]
# The freeze ledger: the leases on quarantined (frozen) tests.
path = ${tomlString(d.ledger.path)}
# The longest a lease may run, in days, from its \`created\` to its \`expires\` (\`lease_too_long\`).
${d.ledger.maxLeaseDays === undefined ? "# max_lease_days = 30" : `max_lease_days = ${d.ledger.maxLeaseDays}`}

[universe]
# Every collected test id: \`pytest --collect-only -q\` output, or JUnit XML.
collected = ${tomlList(d.universe.collected)}
# The base's universe, for \`tests_removed\` when \`check\` runs without --run (with --run the gate
# collects the base itself, in a git worktree): a CI step writes it, never a committed file.
${d.universe.baseCollected.length === 0 ? '# base_collected = ["base-collected.txt"]' : `base_collected = ${tomlList(d.universe.baseCollected)}`}

[coverage]
# The proof run's coverage (coverage.py JSON, LCOV, Cobertura XML or Istanbul JSON, detected);
# several files are shards of parallel jobs, merged by union per file.
${noteLines(notes.coverage)}reports = ${tomlList(d.coverage.reports)}
# How many shards to expect: fewer report files is \`shard_missing\`. Unset: not checked.
${d.coverage.shards === undefined ? "# shards = 4" : `shards = ${d.coverage.shards}`}
# Single-run mode: coverage.py's .coverage of a \`pytest --cov-context=test\` run; the gate drops
# what only the frozen tests reached. Unset: the proof run is a rerun without the frozen tests.
# Sharded: one data file per CI shard (["cov/1.coverage", "cov/2.coverage"]), with \`reports\` listing
# each shard's \`coverage json\` in the same order; merged as \`coverage combine\` would.
${d.coverage.contexts === undefined ? '# contexts = ".coverage"' : `contexts = ${d.coverage.contexts.length === 1 ? tomlString(d.coverage.contexts[0]!) : tomlList(d.coverage.contexts)}`}
# Rerun mode: coverage.py JSON of a full run (every test, frozen ones included), for the raw figure
# beside the proven one and the lines only frozen tests run. Unset: raw is not measured.
${d.coverage.fullReport === undefined ? '# full_report = "full_coverage.json"' : `full_report = ${tomlString(d.coverage.fullReport)}`}
# The floor, in percent: proven coverage below it is \`proven_coverage\`.
${noteLines(notes.floor)}min_proven = ${tomlNumber(d.coverage.minProven)}
# The floor for proven patch coverage, in percent: of the statements the patch adds or changes,
# the share unfrozen tests run (\`patch_unproven\`). A patch that changes no statement is n/a, and
# passes. Unset: the figure is shown, not enforced.
${d.coverage.minPatchProven === undefined ? "# min_patch_proven = 80" : `min_patch_proven = ${tomlNumber(d.coverage.minPatchProven)}`}
# How many percentage points proven coverage may fall below the base's (\`coverage_dropped\`), read from
# the base pipeline's own report.json: a CI artifact downloaded here, never a committed file. Unset: off;
# max_drop without base_report: not measured.
${d.coverage.maxDrop === undefined ? "# max_drop = 0.5" : `max_drop = ${tomlNumber(d.coverage.maxDrop)}`}
${d.coverage.baseReport === undefined ? '# base_report = "base-report/report.json"' : `base_report = ${tomlString(d.coverage.baseReport)}`}

[results]
# JUnit XML of the proof run (shards allowed): every collected test must be proven, frozen, skipped
# or failed (\`tests_failed\`, \`missing_evidence\`). Empty: not accounted.
junit = ${tomlList(d.results.junit)}
# The budget of skips and xfails that have no lease (\`skip_budget\`). Unset: not checked.
${d.results.maxUnledgeredSkips === undefined ? "# max_unledgered_skips = 0" : `max_unledgered_skips = ${d.results.maxUnledgeredSkips}`}
# The budget of skips and xfails the patch adds without a lease or a human's \`${t.testRemoval}: human\`
# (\`tests_skipped_unledgered\`): 0, none.
max_new_skips = ${d.results.maxNewSkips}
# The base's results for the tests skipped at head, for \`check\` without --run (written by a CI step,
# never committed). With --run the gate runs the base's proof command on them itself.
${d.results.baseJunit.length === 0 ? '# base_junit = ["base-results.xml"]' : `base_junit = ${tomlList(d.results.baseJunit)}`}

[fixtures]
# Golden files, locked by sha256 in the lock (\`proofgate lock\` writes it; \`sha256sum -c\` checks it).
# A patch that changes them needs \`${t.fixtureLock}: human\` on a human commit (\`fixture_digest\`).
# false turns the fixture signals off, and every report says so.
${noteLines(notes.fixtures)}enabled = ${d.fixtures.enabled}
paths = ${tomlList(d.fixtures.paths)}
lock = ${tomlString(d.fixtures.lock)}
# Symlinks, and names with a newline, carriage return or backslash, are errors unless allowed.
allow_symlinks = ${d.fixtures.allowSymlinks}
allow_special_names = ${d.fixtures.allowSpecialNames}

[properties]
# The property suite: its seed corpus must not be empty (\`seeds_empty\`), and a patch that rewrites
# it needs \`${t.propertySeeds}: human\` on a human commit (\`seed_rewrite\`). false turns these off.
${noteLines(notes.properties)}${notes.seedsUnset ? "# " : ""}enabled = ${d.properties.enabled}
${notes.seedsUnset ? "# " : ""}seeds = ${tomlList(d.properties.seeds)}
# The property tests (\`property_weakened\`): a patch that changes a file under these folders, or any
# test file that imports hypothesis, needs \`${t.propertySeeds}: human\`; so do property tests of the base
# that stop running, and (check --run) Hypothesis settings weaker than the base's run. false turns it off.
judge_tests = ${d.properties.judgeTests}
${notes.seedsUnset ? "# " : ""}tests = ${tomlList(d.properties.tests)}
# JUnit XML of the property suite's run: a failure is \`property_hold\`.
${notes.seedsUnset ? "# " : ""}results = ${tomlList(d.properties.results)}

[agents]
# Who counts as an agent: glob patterns matched against commit authors, committers and co-author
# trailers. A commit is an agent's unless none of them match. Commented out, the built-in list
# below applies and grows with proofgate releases; uncommented, your list replaces it.
${commentedList("patterns", d.agents.patterns)}
# Anyone who can push can write a human's name as author. "required": a human trailer counts only on
# a commit whose signature verifies (\`unverified_human_trailer\`), against the SSH allowed-signers file
# below (read at the base) or the platform's verification. The real defence; off by default.
human_signatures = ${tomlString(d.agents.humanSignatures)}
${d.agents.allowedSigners === undefined ? '# allowed_signers = ".github/allowed_signers"' : `allowed_signers = ${tomlString(d.agents.allowedSigners)}`}

[protect]
# Paths a patch may not touch without \`${t.gateChange}: human\` on a human commit (\`protected_path\`).
# Commented out, the built-in list below applies; uncommented, your list replaces it.
${sameList(d.protect.paths, DEFAULT_PROTECTED_PATHS) ? commentedList("paths", d.protect.paths) : `paths = ${tomlList(d.protect.paths)}`}
# The test runner's settings, compared by meaning (a reformat, or a dependency bump in pyproject.toml,
# is no change): a whole file, or "file [section]". Commented out, the built-in list applies.
${commentedList("sections", d.protect.sections)}
# The files the [commands] below run (a Makefile, tox.ini, noxfile.py, scripts) are protected too.
commands = ${d.protect.commands}

[measurement]
# What coverage.py measures: a patch that loosens its configuration (omit, include, source, exclusion
# patterns, plugins, branch), adds lines it excludes (\`# pragma: no cover\`), or changes Python source the
# proof run did not measure needs \`${t.gateChange}: human\` on a human commit (\`coverage_exclusions_added\`,
# \`unmeasured_source\`). false turns these off.
enabled = ${d.measurement.enabled}
# Python files the proof run need not measure (globs).
exempt = ${tomlList(d.measurement.exempt)}

[trailers]
# The trailers a human commit carries to approve a change an agent may not make alone.
freeze_lease = ${tomlString(t.freezeLease)}
fixture_lock = ${tomlString(t.fixtureLock)}
property_seeds = ${tomlString(t.propertySeeds)}
gate_change = ${tomlString(t.gateChange)}
test_removal = ${tomlString(t.testRemoval)}

[commands]
# What \`proofgate check --run\` runs, through \`sh -c\` in this file's folder: the collection (writes
# [universe] collected), the proof run (writes [coverage] reports and [results] junit; the gate leaves
# the frozen tests out through PYTEST_ADDOPTS) and the property suite (writes [properties] results).
${noteLines(notes.commands)}${commandLine("collect", d.commands.collect, "python -m pytest --collect-only -q > collected.txt")}
${commandLine("proof", d.commands.proof, "python -m pytest --cov=src --cov-branch -o junit_family=xunit1 --junitxml=results.xml; s=$?; python -m coverage json -q -o proven_coverage.json; exit $s")}
${commandLine("properties", d.commands.properties, "python -m pytest tests/properties -o junit_family=xunit1 --junitxml=properties.xml")}
# The base's steps run in a git worktree of the base, which has only what git tracks. Unset: the work
# tree's node_modules is linked there (so a workspace package is the work tree's build, not the base's).
# Set: this runs there first, once, and installs and builds the base's own code.
${commandLine("base_setup", d.commands.baseSetup, "pnpm install --frozen-lockfile --prefer-offline && pnpm build")}
# The test runner: "pytest" or "vitest" (its test ids, its deselection and its run record). Unset: the
# universe's format says (\`vitest list --json\` output is vitest's, anything else pytest's).
${d.commands.runner === undefined ? '# runner = "vitest"' : `runner = ${tomlString(d.commands.runner)}`}
# The proof and property steps load proofgate's pytest plugin and must each write a signed run record
# (\`runner_tampering\` otherwise); false only for a runner that is not pytest.
record = ${d.commands.record}
# true (pytest): the head's collect starts with the proof run instead of before it, the proof run's
# deselection planned on the ledger alone; the universe is judged once both ended. Saves the collection's
# time on a machine with a core to spare.
${d.commands.collectBesideProof ? "collect_beside_proof = true" : "# collect_beside_proof = true"}
# true: the steps run with PYTHONSAFEPATH=1 (Python 3.11+), so the root is not first on sys.path and a
# root module cannot shadow pytest (unless pytest puts the root back: a tests package with __init__.py,
# a root conftest.py); code imported from the root then needs \`pythonpath = .\` in pytest's settings.
safe_path = ${d.commands.safePath}
# Seconds each step may run: a step still running then is stopped with its child processes (SIGTERM,
# then SIGKILL) and the gate exits 2 (\`command_timeout\`), so a hung test never holds the merge queue
# until the CI's own job limit. 0: no limit; at most 21600 (six hours).
timeout = ${d.commands.timeout}

[evidence]
# \`check\` reads only evidence bound to the commit it judges: \`check --run\` binds what its steps write,
# and a CI's own test step runs through \`proofgate record -- '<command>'\`, which writes a stamp (the commit
# and the sha256 of each file it wrote). Files from a run on another commit, or that no stamp binds, are exit 2.
stamps = ${tomlList(d.evidence.stamps)}
# false: read the JUnit and coverage files without a stamp, for a test tool that cannot run under record;
# every report then says so.
bound = ${d.evidence.bound}

[publish]
# Seconds publishing (the check run, comment, commit status, annotation) may take in all, retries
# included: past it, publishing stops with an error; the decision and the exit code stand. 1 to 3600.
timeout = ${d.publish.timeout}
`;
}

/** The day `days` after `date`. */
function addDays(date: IsoDate, days: number): IsoDate {
  return utcDateOf(new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000));
}

/**
 * The `freeze.toml` that `init` writes: a valid ledger with no lease and a budget of 0 (no test may
 * be frozen), and how to add a lease, with an example (dated from `today`) commented out.
 */
export function ledgerTemplate(today: IsoDate, trailers: GateConfig["trailers"]): string {
  return `# freeze.toml: the freeze ledger. A lease quarantines one flaky test until a date, with an owner
# and a reason. Frozen tests are left out of the proof run, and their coverage does not count.
version = 1

# The freeze budget: how many leases may be active at once. 0: no test may be frozen.
max_active_leases = 0

# A lease is active through its \`expires\` date (UTC) and expired from the next day; an expired
# lease rejects every patch until it is removed, or renewed by a human.
reject_if_expired = true

# A lease added or extended, or this policy loosened, by an agent's commit rejects the patch unless
# a human commit carries the trailer \`${trailers.freezeLease}: human\`.
reject_if_agent_adds_lease = true

# To freeze a test, raise max_active_leases and add one [[leases]] table per test:
#
# [[leases]]
# nodeid = "tests/test_billing.py::test_invoice_total_currency_round"  # as \`pytest --collect-only -q\` prints it
# owner = "platform-billing"  # who fixes the flake
# reason = "intermittent tz boundary on CI runners"
# expires = "${addDays(today, 14)}"  # active through this UTC day
# created = "${today}"  # optional
# ticket = "BILL-42"  # optional
`;
}

/** Whether a path holds at least one file (a file itself, or a folder with a file somewhere below). */
function holdsFile(abs: string): boolean {
  let stat;
  try {
    stat = lstatSync(abs);
  } catch {
    return false;
  }
  if (!stat.isDirectory()) return true;
  try {
    return readdirSync(abs).some((name) => holdsFile(join(abs, name)));
  } catch {
    return false;
  }
}

/** Where each CI keeps its configuration, as init names it when it finds it. */
const CI_FILES: Record<CiFound, string> = {
  github: ".github/workflows/",
  gitlab: ".gitlab-ci.yml",
  buildkite: ".buildkite/",
};

/**
 * The CI jobs to print: the `--platform` chosen; with `auto`, the CI this runs in, else every CI the
 * repository is configured for, else a pre-push hook.
 */
function platformsToPrint(chosen: string, env: Env, found: readonly CiFound[]): { platform: Provider; how: string }[] {
  if (chosen !== "auto") return [{ platform: chosen as Provider, how: "--platform" }];
  const running = availablePlatforms().find((p) => p.provider !== "local" && p.detect(env))?.provider;
  if (running !== undefined) return [{ platform: running, how: "detected" }];
  if (found.length > 0) return found.map((platform) => ({ platform, how: `found ${CI_FILES[platform]}` }));
  return [{ platform: "local", how: "no CI detected" }];
}

/** Python test settings or packaging at the root: the project is a Python one, whatever else it holds. */
function isPythonProject(tree: LayoutTree): boolean {
  return ["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "conftest.py"].some(
    (f) => tree.kind(f) === "file",
  );
}

/**
 * The repository `dir` is a package folder of (a subfolder of its work tree): its root's tree, the way up
 * (`../..`) and the package's path in it (`packages/api`); undefined at the root or outside a repository.
 */
function enclosingRepository(dir: string, env: Env): (EnclosingRepository & { path: string }) | undefined {
  const top = repositoryTop(dir, env);
  if (top === undefined) return undefined;
  const real = realpathSync(dir);
  const path = relative(top, real).split(sep).join("/");
  if (path === "" || path.startsWith("..")) return undefined;
  return { tree: diskTree(top), up: relative(real, top).split(sep).join("/"), path };
}

/** Whether the root package.json declares @vitest/coverage-v8 (installed or not). */
function coverageV8Declared(tree: LayoutTree): boolean {
  return /"@vitest\/coverage-v8"\s*:/.test(tree.read("package.json") ?? "");
}

/**
 * `proofgate init [--platform auto|local|github|gitlab|buildkite] [--python CMD] [--no-gitignore]`: reads
 * the repository's layout (pytest's and coverage.py's settings, the package and test folders, golden
 * files, seeds, CI folders) and the test tools installed in the Python the commands will run, then
 * writes `proofgate.toml` with the commands and evidence files for that layout (the fixture and seed
 * signals off where their files do not exist), the ledger (no lease, a budget of 0) and the fixture
 * lock. Never overwrites: a file that exists is kept and said so, and the ledger and the lock go where
 * the config in effect puts them. Then it names the files `check --run` writes that git does not ignore
 * (and appends them to .gitignore, unless `--no-gitignore`), and prints the CI job for each CI found. Exit 0;
 * an unknown platform, an invalid existing config, or fixtures that `proofgate lock` would refuse
 * (symlinks, special names) are a GateError (exit 2).
 */
export async function runInit(args: InitArgs, io: CliIo, options: InitOptions = {}): Promise<number> {
  const chosen = stringFlag("platform", args.platform, "auto");
  if (!INIT_PLATFORMS.includes(chosen)) {
    throw new GateError({
      code: "usage",
      message: `--platform ${JSON.stringify(chosen)} is not a platform proofgate knows`,
      fix: `write --platform ${INIT_PLATFORMS.join(", ")}`,
    });
  }
  const env = options.env ?? io.env;
  const root = io.cwd;
  const at = (path: string): string => (isAbsolute(path) ? path : join(root, path));
  let wrote = 0;

  const tree = diskTree(root);
  const layout = detectLayout(tree);
  const defaults = defaultConfig(DEFAULT_AGENT_PATTERNS, CONFIG_FILE);
  // A vitest project with no Python test settings gets vitest's commands; a Python one (or a mixed one
  // with pytest's settings) pytest's, as before.
  // In a package's folder of a repository (a workspace member): the repository's root says more.
  const repository = enclosingRepository(root, env);
  // pytest looks upwards for its settings when the package has none: say which it will read.
  if (!layout.pytest && repository) layout.pytestAbove = pytestSettingsAbove(repository.tree, repository.path);
  const vitest = isPythonProject(tree) ? undefined : detectVitest(tree, repository);
  const probe = options.probe ?? ((chosen: string | undefined) => choosePython(chosen, root, env));
  const tools: PythonTools = vitest ? { command: "python" } : probe(optionalFlag("python", args.python));
  const plan = vitest
    ? planVitestInit(
        vitest,
        defaults,
        [tree, ...(repository ? [repository.tree] : [])].some(
          (t) => t.kind("node_modules/@vitest/coverage-v8") === "dir" || coverageV8Declared(t),
        ),
      )
    : planInit(layout, tools, defaults);
  // The vitest a member runs is its own, or (none installed in it) the workspace root's.
  const tooOld = !vitest
    ? undefined
    : tree.kind("node_modules/vitest") === "dir" || !repository
      ? vitestTooOld(tree)
      : vitestTooOld(repository.tree);
  if (tooOld)
    plan.warnings.push(
      `vitest ${tooOld} is installed: proofgate's vitest runner and reporter need vitest 4.1 or later (every \`check --run\` would stop). Upgrade vitest and @vitest/coverage-v8 together (for example \`${addDevCommand(tree)} vitest@^4.1 @vitest/coverage-v8@^4.1\`)`,
    );
  // The floor fits the project: measured by one proof run (before the config exists, so only for a new one).
  let floor: InitFloor | undefined;
  if (!existsSync(at(CONFIG_FILE))) {
    const ledgerText = existsSync(at(plan.config.ledger.path)) ? readFileSync(at(plan.config.ledger.path), "utf8") : "";
    floor = measureFloor(root, plan.config, {
      given: args.minProven === undefined ? undefined : percentFlag("min-proven", args.minProven, 0),
      measure: args.measure !== false,
      leases: ledgerText ? (parseLedger(ledgerText, plan.config.ledger.path).ledger?.leases.length ?? 1) : 0,
      env,
      run: options.tryCommand,
      say: io.stdout,
    });
    plan.config.coverage.minProven = floor.minProven;
    plan.notes.floor = floor.notes;
    if (floor.outside) plan.warnings.push(floor.outside);
  }
  if (writeNew(at(CONFIG_FILE), configTemplate(plan.config, plan.notes))) {
    wrote++;
    io.stdout(`wrote ${CONFIG_FILE}: the policy, and the commands for this layout:\n`);
    for (const line of plan.findings) io.stdout(`  ${line}\n`);
    if (floor) io.stdout(`  floor: ${floor.said}\n`);
    for (const line of plan.warnings) io.stdout(`  warning: ${line}\n`);
  } else {
    io.stdout(`kept ${CONFIG_FILE} (exists)\n`);
  }
  // The team's own config, when it was kept, says where the ledger and the lock go.
  const config = loadWorkTreeConfig(root);

  const ledger = config.ledger.path;
  if (writeNew(at(ledger), ledgerTemplate(utcDateOf(io.now()), config.trailers))) {
    wrote++;
    io.stdout(`wrote ${ledger}: the freeze ledger, no lease, a budget of 0\n`);
  } else {
    io.stdout(`kept ${ledger} (exists)\n`);
  }

  const lockProblems: GateIssue[] = [];
  const lock = config.fixtures.lock;
  if (!config.fixtures.enabled) {
    io.stdout(`skipped ${lock}: [fixtures] enabled = false in ${CONFIG_FILE}\n`);
  } else if (existsSync(at(lock))) {
    io.stdout(`kept ${lock} (exists)\n`);
  } else {
    const tree = await fixtureLockText(root, { ...settingsFromConfig(config), hash: options.hash });
    if (tree.text !== undefined) {
      if (writeNew(at(lock), tree.text)) {
        wrote++;
        io.stdout(`wrote ${lock}: ${tree.files} fixture file(s) from ${config.fixtures.paths.join(", ")}\n`);
      } else {
        io.stdout(`kept ${lock} (exists)\n`);
      }
    } else if (tree.noFiles) {
      io.stdout(
        `skipped ${lock}: no fixture file in ${config.fixtures.paths.join(", ")} yet, and an empty lock verifies nothing.\n` +
          `  Add the golden files and run \`proofgate lock\`, or set [fixtures] enabled = false in ${CONFIG_FILE}.\n`,
      );
    } else {
      io.stdout(`skipped ${lock}: \`proofgate lock\` would refuse the fixture files (below)\n`);
      lockProblems.push(...tree.errors);
    }
  }

  if (config.properties.enabled && !config.properties.seeds.some((p) => holdsFile(at(p)))) {
    io.stdout(
      `note: no seed file in ${config.properties.seeds.join(", ")}: the gate says seeds_empty until there is one, or set [properties] enabled = false in ${CONFIG_FILE}.\n`,
    );
  }

  // `check --run` refuses untracked files it did not expect: what it writes must be ignored.
  const missing = missingIgnoreEntries(root, ignoreEntries(config, REPORT_DIR, tools.hypothesis !== undefined), env);
  if (missing.length === 0) {
    io.stdout("git ignores the files `check --run` writes already\n");
  } else if (args.gitignore !== false) {
    appendGitignore(root, missing);
    wrote++;
    io.stdout(`added to .gitignore (what \`check --run\` writes): ${missing.map((e) => e.line).join(" ")}\n`);
  } else {
    io.stdout(
      `\`check --run\` writes files git does not ignore yet, and refuses untracked files: add these to .gitignore (or run \`proofgate init\` again without --no-gitignore):\n${missing.map((e) => `  ${e.line}\n`).join("")}`,
    );
  }

  const runProblems = tryCollectOnce(root, config, tools, env, io, options.tryCommand);

  if (wrote === 0) io.stdout("nothing to write: every file exists\n");
  else
    io.stdout(
      `Commit these in a human commit with the trailer \`${config.trailers.gateChange}: human\` (${CONFIG_FILE} and CI files are protected paths).\n`,
    );

  // A package's CI is the repository's: its CI files are at the root, and its gate is `check --root <folder>`.
  const ci = [...new Set([...layout.ci, ...(repository ? ciFound(repository.tree) : [])])];
  for (const { platform, how } of platformsToPrint(chosen, env, ci)) {
    const snippet = ciSnippet(platform, undefined, {
      root: repository?.path,
      ...(vitest ? { runner: "vitest" as const, install: ciInstall(repository?.tree ?? tree) } : {}),
    });
    const others =
      platform === "local" ? ` (for a CI job: --platform ${CI_PLATFORMS.filter((p) => p !== "local").join(", ")})` : "";
    const where = repository ? `${snippet.file} at the repository's root (${repository.up})` : snippet.file;
    io.stdout(`\n${snippet.title} (${how}), in ${where}${others}:\n\n${snippet.text}`);
    if (repository && platform !== "local")
      io.stdout(
        `\nThis folder is the package ${repository.path} of the repository: the job above runs its gate from the repository's root as \`proofgate check --run --root ${repository.path}\` (the component's and the plugin's input: \`working-directory: ${repository.path}\`).\n`,
      );
  }

  if (lockProblems.length + runProblems.length > 0) throw new GateError([...lockProblems, ...runProblems]);
  return 0;
}

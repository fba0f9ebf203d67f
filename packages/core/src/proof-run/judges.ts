import picomatch from "picomatch";
import { listSome, type RunFinding } from "./findings.js";
import type { RaisedKind, RunPhase, RunRecord, RunTest, SkipOrigin } from "./record.js";
import { ROOTDIR_IS_ROOT, testIdFile, testIdPaths, type TestIdPaths } from "../python/test-id-paths.js";
import { PYTEST_SETTINGS_FILES } from "../python/protect-sections.js";

// How good an outcome is for the test: a view may only be as good as the one before it, except where
// pytest's own xfail handling turns a failure into an xfail (which the skip judge reports anyway).
const OUTCOME_RANK: Readonly<Record<string, number>> = { failed: 0, skipped: 1, passed: 2 };
const RAISED_RANK: Readonly<Record<RaisedKind, number>> = { error: 0, xfail: 0, skip: 1, none: 2 };

function views(p: RunPhase): string {
  const raised = p.raised === undefined ? "not seen" : p.raised === "error" ? (p.exception ?? "an error") : p.raised;
  const x = (outcome: string | undefined, xfail: string | undefined): string =>
    `${outcome ?? "not seen"}${xfail === undefined ? "" : " (xfail)"}`;
  return `${p.when}: raised ${raised}, made ${x(p.made, undefined)}, then ${x(p.final, p.finalXfail)}, logged ${x(p.logged, p.loggedXfail)}`;
}

/**
 * Why one phase's four views disagree in the test's favour, or undefined when they agree. Allowed:
 * a view no better than the one before it (pytest 9 fails a passed test with failed subtests while
 * logging it); a failure made an xfail (skipped with `wasxfail`) by pytest's xfail handling; an outer
 * hook that raised before the test ran. A `nested` report (a subtest) has no raised view.
 */
export function phaseTampering(p: RunPhase, nested = false): string | undefined {
  if (p.made === undefined && p.final === undefined && p.logged === undefined) return undefined;
  if (p.logged === undefined) return `its ${p.when} report was made but never logged`;
  if (p.made === undefined || p.final === undefined) return `its ${p.when} report was logged, but pytest never made it`;
  const made = OUTCOME_RANK[p.made];
  const final = OUTCOME_RANK[p.final];
  const logged = OUTCOME_RANK[p.logged];
  if (made === undefined || final === undefined || logged === undefined)
    return `its ${p.when} report has an outcome pytest does not make (${p.made}, ${p.final}, ${p.logged})`;
  if (nested) {
    // Made inside the test's call, from the subtest's own exception: nothing raised to compare with.
  } else if (p.raised === undefined) {
    // An outer runtest hook raised before the innermost one ran: the report cannot be a pass.
    if (p.made === "passed") return `its ${p.when} hook never reached the test, yet its report was made passed`;
  } else if (made > RAISED_RANK[p.raised]) {
    return `its ${p.when} raised ${p.raised === "error" ? (p.exception ?? "an error") : p.raised}, but the report was made ${p.made}`;
  }
  const xfail = p.finalXfail !== undefined && p.made === "failed" && p.final === "skipped";
  if (final > made && !xfail) return `its ${p.when} report was made ${p.made}, then changed to ${p.final}`;
  if (logged > final)
    return `its ${p.when} report was ${p.final}${p.finalXfail === undefined ? "" : " (xfail)"} when made, but logged ${p.logged}${p.loggedXfail === undefined ? "" : " (xfail)"}`;
  return undefined;
}

const TAMPER_FIX =
  "remove the code that changes test reports (a hook in conftest.py or a plugin, or a patch of pytest's internals from test code): the gate counts each test as pytest made its report";

/** Options of judgeRunIntegrity. */
export interface RunIntegrityOptions {
  /**
   * Whether a shadowing module the record names is judged (default: all are). The gate passes the
   * modules the patch added or made shadowing, by an agent: what the base already had is the project's.
   */
  judgeShadow?: ((shadow: { module: string; path: string }) => boolean) | undefined;
}

/**
 * The runner's integrity in one record: reports changed in the test's favour between what the test
 * raised, what pytest made and what was logged (`outcome_tampered`); pytest or pluggy internals replaced
 * (`internals_patched`); the plugin's views pushed off the ends of a hook chain (`hook_order_lost`);
 * modules loaded from the work tree under another module's name (`module_shadowed`); an exit status
 * of 0 after a failure (`exit_status_masked`); and, under pytest-xdist, a controller whose view differs
 * from its workers' records (`relay_mismatch`).
 */
export function judgeRunIntegrity(record: RunRecord, options: RunIntegrityOptions = {}): RunFinding[] {
  const out: RunFinding[] = [];
  const tampered: Array<{ test: RunTest; problem: string; phase: RunPhase }> = [];
  for (const test of record.tests) {
    const seen = [
      ...test.phases.map((phase) => ({ phase, problem: phaseTampering(phase) })),
      ...(test.subtests ?? []).map((phase) => ({ phase, problem: phaseTampering(phase, true) })),
    ].find((v) => v.problem !== undefined);
    if (seen)
      tampered.push({
        test,
        problem: `${seen.problem}${test.phases.includes(seen.phase) ? "" : " (a subtest)"}`,
        phase: seen.phase,
      });
  }
  if (tampered.length > 0) {
    out.push({
      code: "outcome_tampered",
      tests: tampered.map((t) => t.test.id),
      message: `${tampered.length} test report(s) were changed in the test's favour after pytest made them: ${tampered
        .slice(0, 10)
        .map((t) => `${t.test.id}: ${t.problem} (${views(t.phase)})`)
        .join("; ")}${tampered.length > 10 ? `; and ${tampered.length - 10} more` : ""}`,
      fix: TAMPER_FIX,
    });
  }
  if (record.patched.length > 0) {
    out.push({
      code: "internals_patched",
      tests: [...new Set(record.patched.flatMap((p) => (p.first === null ? [] : [p.first])))],
      message: `pytest's internals were replaced during the run: ${listSome(
        record.patched.map(
          (p) => `${p.name}${p.first === null ? " (seen at session end)" : ` (seen during ${p.first})`}`,
        ),
      )}`,
      fix: TAMPER_FIX,
    });
  }
  const lost = Object.entries(record.guard)
    .filter(([, held]) => !held)
    .map(([hook]) => hook);
  if (lost.length > 0) {
    out.push({
      code: "hook_order_lost",
      message: `a plugin registered during the run placed itself around the gate's views of ${listSome(lost)}: what it did to the reports was not seen`,
      fix: "do not register pytest plugins from test code or fixtures; declare them in conftest.py",
    });
  }
  const relay = record.xdist?.role === "controller" ? (record.xdist.relay ?? []) : [];
  if (relay.length > 0) {
    out.push({
      code: "relay_mismatch",
      message: `pytest-xdist's controller and its workers' records disagree: ${relay.slice(0, 5).join("; ")}${relay.length > 5 ? `; and ${relay.length - 5} more` : ""}`,
      fix: `${TAMPER_FIX}; under pytest-xdist, in the controller or in a worker`,
    });
  }
  const judged = options.judgeShadow ?? (() => true);
  const shadowed = record.shadowed.filter((s) => s.error === undefined && judged(s));
  const unknown = record.shadowed.filter((s) => s.error !== undefined);
  if (shadowed.length > 0) {
    out.push({
      code: "module_shadowed",
      paths: shadowed.map((s) => s.path),
      message: `the run imported work-tree modules in place of installed or standard ones: ${listSome(shadowed.map((s) => `${s.module} from ${s.path}`))}`,
      // Not `python -P`: a tests package or a conftest.py puts the root back on sys.path, other folders stay.
      fix: `rename or remove ${listSome(shadowed.map((s) => s.path))}`,
    });
  }
  if (unknown.length > 0) {
    out.push({
      code: "module_shadowed",
      message: `the plugin could not check the imported modules for shadowing: ${unknown[0]!.error}`,
      fix: "run the proof step again; if it persists, report it with the run record",
    });
  }
  const failing = record.tests.filter((t) => t.outcome === "failed" || t.outcome === "error").map((t) => t.id);
  const broken = record.collection.filter((c) => c.logged === "failed" || c.made === "failed").map((c) => c.id);
  if (record.exitstatus === 0 && failing.length + broken.length > 0) {
    out.push({
      code: "exit_status_masked",
      tests: [...failing, ...broken],
      message: `pytest exited with status 0 although ${listSome([...failing, ...broken])} failed`,
      fix: "remove the code that sets session.exitstatus (a pytest_sessionfinish hook) or ignores failures",
    });
  }
  return out;
}

/** A test or collector that a skip or an xfail took out of the proof. */
export interface RunSkip {
  /** The test id, or the collector's id (a module's path) for `module` and `collection` scope. */
  id: string;
  kind: "skipped" | "xfailed" | "xpassed";
  scope: "test" | "module" | "collection";
  reason?: string | undefined;
  origin?: SkipOrigin | undefined;
}

/** Every skip, xfail and xpass in the record: tests, module-level skips and skipped collectors. */
export function listSkips(record: RunRecord): RunSkip[] {
  const out: RunSkip[] = [];
  for (const test of record.tests) {
    if (test.outcome === "skipped" || test.outcome === "xfailed" || test.outcome === "xpassed")
      out.push({ id: test.id, kind: test.outcome, scope: "test", reason: test.reason, origin: test.origin });
  }
  for (const c of record.collection) {
    if (c.logged === "skipped" || c.made === "skipped") {
      out.push({
        id: c.id,
        kind: "skipped",
        scope: c.scope,
        reason: c.reason,
        origin: c.path === undefined ? undefined : { by: "code", path: c.path, line: c.line, phase: "collect" },
      });
    }
  }
  return out;
}

const at = (o: SkipOrigin): string =>
  o.path === undefined ? "" : ` at ${o.path}${o.line === undefined ? "" : `:${o.line}`}`;

/** Where a skip came from, in words. */
export function describeSkipOrigin(skip: RunSkip, paths: TestIdPaths = ROOTDIR_IS_ROOT): string {
  const o = skip.origin;
  const verb = skip.kind === "skipped" ? "skip" : "xfail";
  if (skip.scope === "module")
    return `the whole module was skipped while it was imported (pytest.skip(allow_module_level=True) or importorskip)${o ? at(o) : ""}`;
  if (skip.scope === "collection") return `its collector was skipped${o ? at(o) : ""}`;
  if (o === undefined) return `no origin was recorded`;
  switch (o.by) {
    case "marker":
      return `by ${verb === "skip" ? "a skip or skipif" : "an xfail"} marker${at(o)}`;
    case "code": {
      // The origin's path is the root's; the id's file is pytest's rootdir's.
      const file = paths.toRoot(testIdFile(skip.id));
      const where =
        o.phase === "call"
          ? o.path === file
            ? "in the test body"
            : "in code the test called"
          : `during ${o.phase ?? "the test"} (a fixture or setup code)`;
      return `by pytest.${verb}()${at(o)}, ${where}`;
    }
    case "library":
      return `by a library${at(o)}, during ${o.phase ?? "the test"}`;
    case "unittest":
      return "by unittest's skip";
    default:
      return `by pytest itself (${o.detail ?? "unknown"})`;
  }
}

/** Options of judgeSkips. */
export interface SkipJudgeOptions {
  /** Ids that may be skipped (leased, or skipped at the base as well): not reported. */
  allowed?: Iterable<string> | undefined;
}

/**
 * One finding per test skipped, xfailed or xpassed, per module skipped at import and per collector
 * skipped, except the allowed ids, with the reason and where it came from.
 */
export function judgeSkips(record: RunRecord, options: SkipJudgeOptions = {}): RunFinding[] {
  const allowed = new Set(options.allowed ?? []);
  const paths = testIdPaths(record);
  return listSkips(record)
    .filter((s) => !allowed.has(s.id))
    .map((s): RunFinding => {
      const code =
        s.scope !== "test"
          ? "collection_skipped"
          : s.kind === "skipped"
            ? "test_skipped"
            : s.kind === "xfailed"
              ? "test_xfailed"
              : "test_xpassed";
      const what =
        s.scope !== "test"
          ? `${s.id}:`
          : `${s.id} was ${s.kind === "skipped" ? "skipped" : s.kind === "xfailed" ? "xfailed (expected to fail, and failed)" : "xpassed (expected to fail, and passed)"}`;
      const reason = s.reason === undefined ? "" : `: ${JSON.stringify(s.reason)}`;
      const line =
        s.origin?.path !== undefined && s.origin.line !== undefined && s.origin.by !== "library"
          ? [{ path: s.origin.path, line: s.origin.line }]
          : undefined;
      return {
        code,
        tests: [s.id],
        lines: line,
        message: `${what} ${describeSkipOrigin(s, paths)}${reason}`,
        fix: "remove the skip, or lease the test in freeze.toml in a human commit with `Freeze-Lease: human`",
      };
    });
}

/** Options of judgeSelection. */
export interface SelectionOptions {
  /** The ids the plugin was given to deselect (the active leases). */
  leased: readonly string[];
}

/**
 * Whether the run ran what it collected: the plugin deselected exactly the collected leased ids
 * (`deselection_mismatch`), nothing else deselected tests (`deselected_other`), every collected test
 * that was not deselected reported (`test_not_run`), nothing reported that was not collected
 * (`test_not_collected`), and no collector failed (`collection_error`).
 */
export function judgeSelection(record: RunRecord, options: SelectionOptions): RunFinding[] {
  const out: RunFinding[] = [];
  const collected = new Set(record.collected);
  const ours = new Set(record.deselected.proofgate);
  const expected = options.leased.filter((id) => collected.has(id));
  const missing = expected.filter((id) => !ours.has(id));
  const extra = [...ours].filter((id) => !options.leased.includes(id));
  if (missing.length + extra.length > 0) {
    out.push({
      code: "deselection_mismatch",
      tests: [...missing, ...extra],
      message: `the plugin's deselection differs from the leases: ${[
        missing.length > 0 ? `not deselected: ${listSome(missing)}` : "",
        extra.length > 0 ? `deselected without a lease: ${listSome(extra)}` : "",
      ]
        .filter(Boolean)
        .join("; ")}`,
      fix: "run the proof step with the plugin the gate wrote for this run; do not load another copy of it",
    });
  }
  if (record.deselected.other.length > 0) {
    out.push({
      code: "deselected_other",
      tests: [...record.deselected.other],
      message: `${record.deselected.other.length} test(s) were deselected by something other than the gate (-k, -m, --deselect or a hook): ${listSome(record.deselected.other)}`,
      fix: "remove the -k/-m/--deselect options or the pytest_collection_modifyitems hook; lease a test in freeze.toml to take it out of the proof",
    });
  }
  const deselected = new Set([...record.deselected.proofgate, ...record.deselected.other]);
  const ran = new Set(record.tests.filter((t) => t.phases.some((p) => p.logged !== undefined)).map((t) => t.id));
  const notRun = record.collected.filter((id) => !deselected.has(id) && !ran.has(id));
  if (notRun.length > 0) {
    out.push({
      code: "test_not_run",
      tests: notRun,
      message: `${notRun.length} collected test(s) never ran: ${listSome(notRun)}`,
      fix: "run the whole suite (no -x, --lf or --sw; no hook that drops items after collection)",
    });
  }
  const uncollected = [...ran].filter((id) => !collected.has(id));
  if (uncollected.length > 0) {
    out.push({
      code: "test_not_collected",
      tests: uncollected,
      message: `${uncollected.length} test(s) reported without being collected: ${listSome(uncollected)}`,
      fix: "remove the hook that makes up test reports or collects tests outside pytest's collection",
    });
  }
  const errors = record.collection.filter((c) => c.logged === "failed" || c.made === "failed");
  if (errors.length > 0) {
    out.push({
      code: "collection_error",
      tests: errors.map((c) => c.id),
      message: `collection failed for ${listSome(errors.map((c) => (c.message ? `${c.id} (${c.message})` : c.id)))}`,
      fix: "fix the import or collection error: a module that does not collect runs none of its tests",
    });
  }
  return out;
}

/** The ids among `ids` that did not run (no logged report), e.g. the base's property tests. */
export function testsNotRun(record: RunRecord, ids: Iterable<string>): string[] {
  const ran = new Set(record.tests.filter((t) => t.phases.some((p) => p.logged !== undefined)).map((t) => t.id));
  return [...ids].filter((id) => !ran.has(id));
}

/**
 * The tests a run record shows collected and skipped (or xfailed) that `listed` does not hold and the
 * gate did not deselect: vitest's statically skipped tests (`it.skip`, `describe.skip`, `.todo`,
 * `skipIf(true)`, the others of an `.only`), which `vitest list` leaves out of the universe but the run
 * collects and reports skipped. A test the run never collected is none of these.
 */
export function skippedUnlisted(record: RunRecord, listed: ReadonlySet<string>): string[] {
  const collected = new Set(record.collected);
  const ours = new Set(record.deselected.proofgate);
  const out = new Set<string>();
  for (const t of record.tests) {
    if (t.outcome !== "skipped" && t.outcome !== "xfailed") continue;
    if (collected.has(t.id) && !ours.has(t.id) && !listed.has(t.id)) out.add(t.id);
  }
  return [...out];
}

/** Files a run may read besides source and the lock: tool configuration and caches (globs, `**` crosses folders). */
export const DEFAULT_READ_ALLOW: readonly string[] = [
  ...PYTEST_SETTINGS_FILES,
  ".coveragerc",
  ".coverage",
  ".coverage.*",
  ".hypothesis/**",
  ".pytest_cache/**",
  "**/py.typed",
  "**/*.egg-info/**",
  "**/*.dist-info/**",
];

const PYTHON_SOURCE = /\.(?:py|pyi|pyc|pyo|pyd|so)$/;

/** Python source and compiled modules: files no fixture rule judges. */
export const isPythonFile = (path: string): boolean => PYTHON_SOURCE.test(path);

/** What the tests may read without it being `unlocked_fixture_read`. */
export interface FixtureReadPolicy {
  /** `[fixtures] paths`: folders (or files) under the lock, repository-relative. */
  fixtures: readonly string[];
  /** `[fixtures] lock`. */
  lock: string;
  /** Globs a project may read besides (default DEFAULT_READ_ALLOW; pass your own list to replace it). */
  allow?: readonly string[] | undefined;
  /** The trailer that approves a fixture change (`[trailers] fixture_lock`, default `Fixture-Lock`), for messages. */
  trailer?: string | undefined;
  /** The fixture signal is off: the files passed are those that changed in the range without a human's approval. */
  changedOnly?: boolean | undefined;
}

const under = (path: string, folder: string): boolean =>
  path === folder || path.startsWith(`${folder.replace(/\/+$/, "")}/`);

/** A path a package's run recorded elsewhere in the repository (`../../testdata/golden.txt`). */
export const isOutsidePath = (path: string): boolean => path.startsWith("../");

/** pytest's and coverage.py's settings files, read in the folders above a package (`../../pyproject.toml`). */
const ANCESTOR_SETTINGS = new Set([...PYTEST_SETTINGS_FILES, ".coveragerc"]);
const isAncestorSettings = (path: string): boolean =>
  /^(?:\.\.\/)+[^/]+$/.test(path) && ANCESTOR_SETTINGS.has(path.slice(path.lastIndexOf("/") + 1));

/**
 * Files the run opened for reading inside the repository that are neither Python source, nor the lock,
 * nor under a fixture path, nor allowed: a golden file moved out of the lock still counts. A package's run
 * (`check --root`) also names what its tests read elsewhere in the repository (`../../testdata/golden.txt`);
 * the caller passes those that changed in the range without a human's approval, and each is a finding of its
 * own (pytest's settings files in the folders above aside). With the fixture signal off (`changedOnly`), the
 * caller passes only such changed files inside the project too (data files in its test folders).
 */
export function judgeFileReads(record: RunRecord, policy: FixtureReadPolicy): RunFinding[] {
  if (!record.audit) {
    return [
      {
        code: "audit_unavailable",
        message: `the interpreter (${record.python.implementation} ${record.python.version}) has no audit hooks, so the files the tests read are unknown`,
        fix: "run the proof step on Python 3.8 or newer",
      },
    ];
  }
  const allowed = picomatch([...(policy.allow ?? DEFAULT_READ_ALLOW)], { dot: true });
  const unlocked = record.files.filter(
    (f) =>
      f.read &&
      f.via === undefined &&
      !isPythonFile(f.path) &&
      f.path !== policy.lock &&
      !policy.fixtures.some((dir) => under(f.path, dir)) &&
      !(isOutsidePath(f.path) ? isAncestorSettings(f.path) : allowed(f.path)),
  );
  const named = (files: typeof unlocked) =>
    listSome(files.map((f) => (f.first === null ? f.path : `${f.path} (first by ${f.first})`)));
  const testsOf = (files: typeof unlocked) => [...new Set(files.flatMap((f) => (f.first === null ? [] : [f.first])))];
  const inside = unlocked.filter((f) => !isOutsidePath(f.path));
  const outside = unlocked.filter((f) => isOutsidePath(f.path));
  const trailer = policy.trailer ?? "Fixture-Lock";
  const out: RunFinding[] = [];
  if (inside.length > 0 && policy.changedOnly)
    out.push({
      code: "unlocked_fixture_read",
      paths: inside.map((f) => f.path),
      tests: testsOf(inside),
      message: `the tests read ${inside.length} data file(s) in a test folder that changed in the range without a human's \`${trailer}: human\` on each commit that changed them ([fixtures] is off, so no lock holds them): ${named(inside)}`,
      fix: `restore the files, or have a human make the change in a commit with \`${trailer}: human\`; better, list them in [fixtures] paths and run \`proofgate lock\` in a human commit`,
    });
  else if (inside.length > 0)
    out.push({
      code: "unlocked_fixture_read",
      paths: inside.map((f) => f.path),
      tests: testsOf(inside),
      message: `the tests read ${inside.length} file(s) outside the fixture lock (${policy.fixtures.length > 0 ? listSome([...policy.fixtures]) : "no fixture paths"}): ${named(inside)}`,
      fix: "move the files under a locked fixture path and run `proofgate lock` in a human commit with `Fixture-Lock: human`",
    });
  if (outside.length > 0)
    out.push({
      code: "unlocked_fixture_read",
      paths: outside.map((f) => f.path),
      tests: testsOf(outside),
      message: `the tests read ${outside.length} file(s) outside the package's folder that changed in the range without a human's \`${trailer}: human\` on each commit that changed them (no lock of the package holds them): ${named(outside)}`,
      fix: `restore the files, or have a human make the change in a commit with \`${trailer}: human\`; better, keep the files the package's tests read in the package, under a locked fixture path`,
    });
  return out;
}

/** Options of judgeSeedReads. */
export interface SeedReadOptions {
  /** Count only reads through this mount (e.g. the base's seeds), not of the work tree's copy. */
  via?: string | undefined;
}

/** Seed files (repository-relative) that the property run never opened for reading: `seed_not_read`. */
export function judgeSeedReads(
  record: RunRecord,
  seeds: readonly string[],
  options: SeedReadOptions = {},
): RunFinding[] {
  if (!record.audit) return judgeFileReads(record, { fixtures: [], lock: "" });
  const read = new Set(
    record.files.filter((f) => f.read && (options.via === undefined || f.via === options.via)).map((f) => f.path),
  );
  const unread = seeds.filter((s) => !read.has(s));
  if (unread.length === 0) return [];
  return [
    {
      code: "seed_not_read",
      paths: unread,
      message: `the property run never read ${unread.length} seed file(s)${options.via === undefined ? "" : ` through ${options.via}`}: ${listSome(unread)}`,
      fix: "make the property tests read every seed (from $PROOFGATE_SEEDS_DIR); removing a seed takes a human commit with `Property-Seeds: human`",
    },
  ];
}

/**
 * Hooks that decide what is collected, run, reported or counted. A plugin in the repository that
 * implements one can change results without touching a test.
 */
export const RESULT_HOOKS: readonly string[] = [
  "pytest_collection",
  "pytest_collection_modifyitems",
  "pytest_collect_file",
  "pytest_pycollect_makeitem",
  "pytest_pycollect_makemodule",
  "pytest_ignore_collect",
  "pytest_make_collect_report",
  "pytest_collectreport",
  "pytest_deselected",
  "pytest_runtestloop",
  "pytest_runtest_protocol",
  "pytest_runtest_setup",
  "pytest_runtest_call",
  "pytest_runtest_teardown",
  "pytest_pyfunc_call",
  "pytest_runtest_makereport",
  "pytest_runtest_logreport",
  "pytest_report_teststatus",
  "pytest_sessionfinish",
];

/** Options of judgeRunnerHooks. */
export interface RunnerHookOptions {
  /** The hooks to report (default RESULT_HOOKS). */
  hooks?: readonly string[] | undefined;
  /** Plugin files (repository-relative) whose hooks a human has accepted. */
  allowedPlugins?: readonly string[] | undefined;
}

/** One `runner_hook` finding per repository plugin (conftest.py, local plugin) that implements a result hook. */
export function judgeRunnerHooks(record: RunRecord, options: RunnerHookOptions = {}): RunFinding[] {
  const hooks = new Set(options.hooks ?? RESULT_HOOKS);
  const allowed = new Set(options.allowedPlugins ?? []);
  const byPlugin = new Map<string, string[]>();
  for (const h of record.hooks) {
    if (!hooks.has(h.hook) || allowed.has(h.plugin)) continue;
    const list = byPlugin.get(h.plugin) ?? [];
    list.push(`${h.hook}${h.wrapper ? " (wrapper)" : ""}`);
    byPlugin.set(h.plugin, list);
  }
  return [...byPlugin].map(([plugin, list]) => ({
    code: "runner_hook",
    paths: [plugin],
    message: `${plugin} implements hooks that decide what runs or what a result is: ${list.join(", ")}`,
    fix: `have a human review ${plugin} and commit it with \`Gate-Change: human\`, or remove the hooks`,
  }));
}

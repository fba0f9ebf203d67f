// Tests that stop counting between the base and the head (docs/contract.md §13): a test the base collects
// and the head does not (`tests_removed`), and a test skipped or xfailed at head that was not skipped at
// the base (`tests_skipped_unledgered`). Both are judged by the lease rule: every commit that could have
// done it (one that touched the test's file or the collection configuration) must be a human's carrying
// `Test-Removal: human`. Pure: the gate collects the base, runs its skips, and reads git.
import {
  agentCommitClause,
  classifyCommit,
  formatIdentity,
  hasHumanTrailer,
  type Commit,
} from "../model/authorship.js";
import { pythonString } from "./deselect.js";
import type { EvidenceAccounting } from "./evidence.js";
import type { Lease } from "../ledger/ledger.js";
import { pathMatcher, type CommitPaths, type PatchPolicy } from "../patch/patch.js";
import type { Finding } from "../model/report.js";
import type { NarrowedCollection, Universe } from "./universe.js";
import { jsonLines } from "../common/json-lines.js";
import { ROOTDIR_IS_ROOT, testIdFile as fileOf, type TestIdPaths } from "../python/test-id-paths.js";
import { PYTEST_SETTINGS_FILES } from "../python/protect-sections.js";

/**
 * The files pytest reads what to collect from (its ini files and every conftest.py). A commit touching
 * one may have changed the collection of any test; the files `[commands] collect` names are added.
 */
export const COLLECTION_CONFIG_PATTERNS: readonly string[] = Object.freeze([
  ...PYTEST_SETTINGS_FILES,
  "**/conftest.py",
]);

/** A file git saw renamed in the range (`git diff-tree -M`). */
export interface FileRename {
  from: string;
  to: string;
}

/** The base's universe, as the gate collected or read it. */
export interface BaseUniverse {
  /** Where it came from, for a reader: `collected.txt (collected at base 1a2b3c4d5e6f)`. */
  file: string;
  ids: readonly string[];
  /** Each id listed again after its first time, once per repeat (`Universe.duplicates`). */
  duplicates?: readonly string[] | undefined;
  /**
   * The gate found a test file the ids name at that path of the base (pytest's rootdir was the root there): the
   * condition for reading them in the head's terms when the head's rootdir lies above (`rootdirMoved`).
   */
  idsAtRoot?: boolean | undefined;
}

/**
 * vitest: tests gone while their id stays. Two tests with the same name path in one file (or names that differ
 * only in the characters an id drops) share one id, so deleting one of them leaves the id listed: each id the
 * head lists fewer times than the base is a removal of that many tests. pytest's ids name one test each (a
 * repeat is the same test collected twice), so only a vitest universe is counted so.
 */
export function fewerSinceBase(base: BaseUniverse, head: Universe, active: readonly Lease[]): TestChange[] {
  if (head.runner !== "vitest" || (base.duplicates ?? []).length === 0) return [];
  const count = (duplicates: readonly string[]): Map<string, number> => {
    const n = new Map<string, number>();
    for (const id of duplicates) n.set(id, (n.get(id) ?? 1) + 1);
    return n;
  };
  const atBase = count(base.duplicates ?? []);
  const atHead = count(head.duplicates);
  const headIds = head.index ?? new Set(head.ids);
  const leased = new Set(active.map((l) => l.nodeid));
  const out: TestChange[] = [];
  for (const [id, n] of atBase) {
    const m = headIds.has(id) ? (atHead.get(id) ?? 1) : 0;
    // Gone altogether: goneSinceBase names it already.
    if (m === 0 || m >= n || leased.has(id)) continue;
    out.push({ id, file: fileOf(id), fewer: `listed ${n} times at base, ${m} at head` });
  }
  return out;
}

/** What the base's results say of the tests skipped at head. */
export interface BaseSkips {
  /** Where they came from (a results file, or the base run in a worktree). */
  file: string;
  /** The ids skipped or xfailed at base. */
  skipped: readonly string[];
}

/** Everything the two rules judge, learned by the gate (`check`). */
export interface TestChangeEvidence {
  /** The base's universe, or why it was not measured and how to turn it on. */
  base: { kind: "measured"; universe: BaseUniverse } | { kind: "not_measured"; why: string; fix: string };
  /** The base's outcomes of the tests skipped at head; undefined: none were given, so every skip is new. */
  baseSkips?: BaseSkips | undefined;
  /** Every commit of the range and the paths it answers for (old names of renames included). */
  touched: readonly CommitPaths[];
  /** Files renamed in the range, in commit order. */
  renames: readonly FileRename[];
  /** Files that configure the collection besides COLLECTION_CONFIG_PATTERNS (those `[commands] collect` names). */
  collectionFiles: readonly string[];
  /** New skips that no human approved, tolerated (`[results] max_new_skips`, default 0). */
  maxNewSkips: number;
}

/** What the head shows, for the judge. */
export interface TestChangeContext {
  head: Universe;
  active: readonly Lease[];
  /** The proof run's accounting; undefined without results (then no skip is judged). */
  accounting?: EvidenceAccounting | undefined;
  commits: readonly Commit[];
  policy: PatchPolicy;
  /**
   * The range is one commit (the base is the head). Not the same as no commit: a package's gate (`--root`)
   * sees only the commits that touched the package. Unset: taken as `commits` being empty.
   */
  emptyRange?: boolean | undefined;
  /**
   * vitest: the tests the head's verified run record shows collected and skipped (it.skip, describe.skip,
   * .todo, skipIf, the others of an .only), not deselected by the gate, that `vitest list` leaves out of
   * the universe (`unlistedSkips`). A base test the head does not list is a skip when it is one of these,
   * else a removal. Undefined or empty: every base test the head does not list is a removal.
   */
  unlistedSkips?: readonly string[] | undefined;
  /**
   * Where the ids' files lie from the gate's root (pytest's rootdir may be above a package's root: the proof run's
   * record says). Unset: the rootdir is the root.
   */
  paths?: TestIdPaths | undefined;
}

/** Both rules' findings, and what the decision table shows. */
export interface TestChangeJudgement {
  removed: Finding[];
  skipped: Finding[];
  /** Set when the base's universe was not measured: the row says so, with the fix. */
  notMeasured?: { why: string; fix: string } | undefined;
  baseFile?: string | undefined;
  baseTests: number;
  /** Base tests the head does not collect, not leased (module-level skips not included). */
  gone: number;
  /** Base tests collected at head under a new id because pytest's rootdir moved above the root (`rootdirMoved`). */
  moved?: number | undefined;
  /** Then pytest's rootdir at head, from the root (`../..`). */
  rootdir?: string | undefined;
  /** Of those, paired with a new id as a rename. */
  renamed: number;
  /** Of those, approved by a human's trailer. */
  approvedRemovals: number;
  /** Skips at head that were not skipped at base (every one, without base results). */
  newSkips: number;
  approvedSkips: number;
  /** True when no base results were given, so every skip counts as new. */
  skipsWithoutBase: boolean;
  maxNewSkips: number;
}

/** One test (or a module that skipped itself) that stopped counting, with where it lives. */
export interface TestChange {
  id: string;
  /** The test's file at base (its module's path for a module-level skip). */
  file: string;
  /** For a removal paired with a new id: that id. For a skip: pytest's message. */
  note?: string | undefined;
  /** A vitest id listed fewer times at head than at base (`fewerSinceBase`): how many, in words. */
  fewer?: string | undefined;
}

const MAX_LISTED = 10;
const UNLISTED_NOTE = "skipped in the proof run, so `vitest list` leaves it out";
const short = (sha: string): string => sha.slice(0, 12);
const list = (items: readonly string[]): string =>
  `${items.slice(0, MAX_LISTED).join(", ")}${items.length > MAX_LISTED ? `, and ${items.length - MAX_LISTED} more` : ""}`;

/**
 * A matcher for the collection configuration: pytest's own files anywhere they apply (COLLECTION_CONFIG_PATTERNS)
 * and the exact files `[commands] collect` names.
 */
export function collectionConfigMatcher(files: readonly string[]): (path: string) => boolean {
  const exact = new Set(files);
  const globs = pathMatcher(COLLECTION_CONFIG_PATTERNS);
  // A package's gate names pytest's files in the folders above it from the package (`../../pyproject.toml`):
  // pytest reads them when the package has no settings of its own, so they configure its collection too.
  const names = new Set(COLLECTION_CONFIG_PATTERNS.map((p) => p.replace(/^\*\*\//, "")));
  return (path) =>
    exact.has(path) || globs(path) || (path.startsWith("../") && names.has(path.slice(path.lastIndexOf("/") + 1)));
}

// A tool implies the file it reads its targets from.
const TOOL_FILES: Record<string, readonly string[]> = {
  make: ["Makefile", "makefile", "GNUmakefile"],
  tox: ["tox.ini"],
  nox: ["noxfile.py"],
};

/**
 * The repository paths a shell command may read its configuration from: every word that could name a
 * file (`-c ci/pytest.ini`, `--config-file=x.ini`, `scripts/collect.sh`), and the file a tool named in it
 * reads (`make` the Makefile, `tox` tox.ini, `nox` noxfile.py). The gate keeps those that are files at
 * the base. Shell syntax is split roughly; a word it cannot read is simply not a path.
 */
export function commandFiles(command: string): string[] {
  const words = command
    .split(/[\s;|&<>()]+/)
    .map((w) => w.replace(/^['"]+|['"]+$/g, ""))
    .filter((w) => w !== "");
  const out = new Set<string>();
  for (const word of words) {
    const value = (/^--?[\w-]+=(.+)$/.exec(word)?.[1] ?? word).replace(/^['"]+|['"]+$/g, "");
    const path = value.replace(/^\.\//, "");
    if (
      path === "" ||
      path === "." ||
      path.startsWith("-") ||
      path.startsWith("/") ||
      path.includes("$") ||
      path.includes("..")
    )
      continue;
    out.add(path);
    const tool = path.split("/").pop()!;
    for (const implied of TOOL_FILES[tool] ?? []) out.add(implied);
  }
  return [...out];
}

/**
 * A pytest plugin that keeps only `ids` (the base's run of the tests skipped at head): every other
 * collected test is deselected, so the run costs what those tests cost, plus the collection. With
 * `xpassedFile`, it writes there the ids of the tests that xpassed (a non-strict xfail that passed,
 * which JUnit XML writes as a pass), one JSON string a line: at the base too they were xfailed.
 */
export function renderOnlyPlugin(ids: readonly string[], base: string, xpassedFile?: string): string {
  const xpassed =
    xpassedFile === undefined
      ? ""
      : `

PROOFGATE_XPASSED_FILE = ${pythonString(xpassedFile)}
_proofgate_xpassed = []


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and hasattr(report, "wasxfail"):
        _proofgate_xpassed.append(report.nodeid)


def pytest_sessionfinish(session):
    import json

    with open(PROOFGATE_XPASSED_FILE, "w", encoding="utf-8") as out:
        out.write("".join(json.dumps(i) + "\\n" for i in _proofgate_xpassed))
`;
  return `# Generated by proofgate: the base's run (${short(base)}) of the tests skipped at head. Do not edit.
import pytest

PROOFGATE_ONLY = frozenset([
${ids.map((id) => `    ${pythonString(id)},\n`).join("")}])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    kept = [item for item in items if item.nodeid in PROOFGATE_ONLY]
    dropped = [item for item in items if item.nodeid not in PROOFGATE_ONLY]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
${xpassed}`;
}

/**
 * A pytest plugin for the base's collection: once the tests are collected, it writes to `file` the ids of
 * the tests their marks skip or xfail (`skip`, and `skipif` or `xfail` whose condition holds, evaluated as
 * pytest does at each test's setup: `_pytest.skipping.evaluate_skip_marks` and `evaluate_xfail_marks`), one
 * JSON string a line. Those are the tests likely to be skipped or xfailed at the base too: the gate runs them
 * early through the base's own proof command, whose outcomes decide (the collection's environment need not
 * be the proof command's). A condition that fails to evaluate leaves the test out; without pytest's
 * functions (pytest before 6), nothing is written.
 */
export function renderSkipMarksPlugin(file: string, base: string): string {
  return `# Generated by proofgate: the skip and xfail marks of the base's (${short(base)}) tests, read at its collection. Do not edit.
import json

import pytest

PROOFGATE_SKIP_MARKS_FILE = ${pythonString(file)}


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    try:
        from _pytest.outcomes import OutcomeException
        from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks
    except Exception:
        return
    skipped = []
    for item in session.items:
        try:
            if evaluate_skip_marks(item) is not None or evaluate_xfail_marks(item) is not None:
                skipped.append(item.nodeid)
        except (Exception, OutcomeException):
            continue
    with open(PROOFGATE_SKIP_MARKS_FILE, "w", encoding="utf-8") as out:
        out.write("".join(json.dumps(i) + "\\n" for i in skipped))
`;
}

/** The ids in the file the base collection's skip-marks plugin wrote (`renderSkipMarksPlugin`). */
export function parseSkipMarkedIds(text: string): string[] {
  return jsonLines(text).flatMap(({ value }) => (typeof value === "string" ? [value] : []));
}

/** The ids in the file the base run's plugin wrote (`renderOnlyPlugin`'s `xpassedFile`); none for lines it cannot read. */
export function parseXpassedIds(text: string): string[] {
  return jsonLines(text).flatMap(({ value }) => (typeof value === "string" ? [value] : []));
}

/**
 * Each removed id paired with the id it probably became: the same test in a file git saw renamed
 * (`tests/a.py::test_x` -> `tests/b.py::test_x`), else, in the same file, removed and added ids in
 * the order pytest collected them (a renamed function). A pairing is shown, never an excuse.
 */
export function pairRenames(
  removed: readonly string[],
  added: readonly string[],
  renames: readonly FileRename[],
  paths: TestIdPaths = ROOTDIR_IS_ROOT,
): Map<string, string> {
  // git's renames are the gate's paths; the ids' files are pytest's rootdir's.
  const forward = (file: string): string => {
    let name = paths.toRoot(file);
    const was = name;
    for (const r of renames) if (r.from === name) name = r.to;
    return name === was ? file : paths.fromRoot(name);
  };
  const pairs = new Map<string, string>();
  const free = new Set(added);
  for (const id of removed) {
    const file = fileOf(id);
    const moved = forward(file);
    const candidate = moved + id.slice(file.length);
    if (moved !== file && free.has(candidate)) {
      pairs.set(id, candidate);
      free.delete(candidate);
    }
  }
  const byFile = new Map<string, string[]>();
  for (const id of added) if (free.has(id)) byFile.set(fileOf(id), [...(byFile.get(fileOf(id)) ?? []), id]);
  for (const id of removed) {
    if (pairs.has(id)) continue;
    const next = byFile.get(forward(fileOf(id)))?.shift();
    if (next !== undefined) pairs.set(id, next);
  }
  return pairs;
}

/**
 * The skips at head the rule judges: each skipped or xfailed test without a lease, and each test of a
 * module that skipped itself, by `gone` (the base's tests the head does not collect, not leased); the
 * module itself when `gone` holds none of it (the base's universe is unknown, or the module is new).
 */
export function skipsAtHead(
  accounting: EvidenceAccounting,
  gone: readonly string[],
  paths: TestIdPaths = ROOTDIR_IS_ROOT,
): TestChange[] {
  const at = paths.toRoot;
  const skips: TestChange[] = accounting.skips.map((r) => ({ id: r.id, file: at(fileOf(r.id)), note: r.message }));
  for (const m of accounting.moduleSkips) {
    const tests = gone.filter((id) => fileOf(id) === m.id);
    if (tests.length === 0) skips.push({ id: m.id, file: at(m.id), note: m.message });
    for (const id of tests) skips.push({ id, file: at(m.id), note: m.message });
  }
  return skips;
}

/**
 * When pytest's rootdir moved above the root since the base (a human moved the settings to the repository's top),
 * the base's ids in the head's terms: the base's were the root's paths (`tests/test_a.py::t`), the head's run says
 * its rootdir lies above (`paths`), so the same test reads `pkgs/x/tests/test_a.py::t` at head. Undefined unless
 * the base's ids are the root's paths (a test file they name is there at the base: with the rootdir above at both
 * ends, test files moved under a folder named as the root would look the same), the head's rootdir is not the
 * root, no base id is collected at head as it is, and some is under its new name.
 */
export function rootdirMoved(
  base: readonly string[],
  headIds: ReadonlySet<string>,
  paths: TestIdPaths | undefined,
  /** The base's ids name files at those paths of the base (`BaseUniverse.idsAtRoot`): else nothing moved. */
  idsAtRoot: boolean | undefined,
): ((id: string) => string) | undefined {
  if (idsAtRoot !== true || paths === undefined || paths === ROOTDIR_IS_ROOT || base.length === 0) return undefined;
  const moved = (id: string): string => {
    const file = fileOf(id);
    return paths.fromRoot(file) + id.slice(file.length);
  };
  return base.some((id) => headIds.has(id)) || !base.some((id) => headIds.has(moved(id))) ? undefined : moved;
}

/** Base tests the head does not collect and no lease holds. */
export function goneSinceBase(base: readonly string[], head: Universe, active: readonly Lease[]): string[] {
  const headIds = head.index ?? new Set(head.ids);
  const leased = new Set(active.map((l) => l.nodeid));
  return base.filter((id) => !headIds.has(id) && !leased.has(id));
}

/** Judges removals and new skips: the findings of both rules, and the numbers the table shows. */
export function judgeTestChanges(evidence: TestChangeEvidence, context: TestChangeContext): TestChangeJudgement {
  const { head, active, accounting, commits, policy } = context;
  const paths = context.paths ?? ROOTDIR_IS_ROOT;
  const key = policy.trailers.testRemoval;
  const moduleSkips = accounting?.moduleSkips ?? [];
  const skippedModules = new Set(moduleSkips.map((r) => r.id));

  // Removals: base ids the head does not collect and no lease holds. A module that skipped itself at
  // head collects nothing: its tests are judged as skips, below.
  const measured = evidence.base.kind === "measured" ? evidence.base.universe : undefined;
  // pytest's rootdir moved above the root since the base (a human moved the settings to the repository's top):
  // the base's ids are read in the head's terms, so the same test under its new id is no removal. Only settings
  // move a rootdir, and the gate protects them, so the move itself is judged there (protected_path).
  const headIndex = head.index ?? new Set(head.ids);
  const moved = measured && rootdirMoved(measured.ids, headIndex, paths, measured.idsAtRoot);
  const base = moved && measured ? { ...measured, ids: measured.ids.map(moved) } : measured;
  const movedTests = moved && base ? base.ids.filter((id) => headIndex.has(id)).length : 0;
  const gone = base ? goneSinceBase(base.ids, head, active) : [];
  // vitest: a test `vitest list` leaves out because vitest skips it is a skip, not a removal, when the
  // signed record shows it collected and skipped; every other test the head does not list is removed.
  const unlisted = new Set(context.unlistedSkips ?? []);
  const removedIds = gone.filter((id) => !skippedModules.has(fileOf(id)) && !unlisted.has(id));
  const baseSet = new Set(base?.ids ?? []);
  const added = base ? head.ids.filter((id) => !baseSet.has(id)) : [];
  const pairs = pairRenames(removedIds, added, evidence.renames, paths);
  // An id listed fewer times than at base: removed tests, or skipped ones when the run shows one skipped.
  const fewer = base ? fewerSinceBase(base, head, active) : [];
  const removals: TestChange[] = [
    ...removedIds.map((id) => ({ id, file: paths.toRoot(fileOf(id)), note: pairs.get(id) })),
    ...fewer.filter((c) => !unlisted.has(c.id)),
  ];

  // Every gone test that is not a removal is a skip: the unlisted skips count with or without results.
  const skips = [
    ...(accounting ? skipsAtHead(accounting, gone, paths) : []),
    ...[...gone, ...fewer.map((c) => c.id)]
      .filter((id) => unlisted.has(id) && !skippedModules.has(fileOf(id)))
      .map((id) => ({ id, file: paths.toRoot(fileOf(id)), note: UNLISTED_NOTE })),
  ];
  const skippedAtBase = new Set((evidence.baseSkips?.skipped ?? []).map((id) => (moved ? moved(id) : id)));
  const newSkips = skips.filter((s) => !skippedAtBase.has(s.id));

  const attribution = changeAttributor(evidence, commits, policy, key);
  const removalVerdicts = removals.map((c) => ({ change: c, ...attribution(c.file) }));
  const skipVerdicts = newSkips.map((c) => ({ change: c, ...attribution(c.file) }));
  const unapprovedSkips = skipVerdicts.filter((v) => !v.approved);
  const removedFindings = changeFindings(
    removalVerdicts,
    "tests_removed",
    key,
    policy,
    REMOVED_FIX(key),
    (changes, file) => {
      const names = changes.map((c) =>
        c.fewer ? `${c.id} (${c.fewer})` : c.note ? `${c.id} (renamed: ${c.note})` : c.id,
      );
      return changes.length === 1
        ? changes[0]!.fewer
          ? `${changes[0]!.id} is collected at head, but ${changes[0]!.fewer}`
          : `${names[0]} is collected at base but not at head`
        : `${changes.length} tests of ${file} collected at base are not collected at head: ${list(names)}`;
    },
    context.emptyRange ?? commits.length === 0,
  );
  const narrowed = head.narrowed;
  if (narrowed && !base) {
    // The base's universe is unknown, so which tests the narrowing took out cannot be told: the commits
    // that touched the collection configuration answer for it.
    const change: TestChange = { id: narrowed.summary, file: narrowed.file };
    removedFindings.push(
      ...changeFindings(
        [{ change, ...attribution(narrowed.file) }],
        "tests_removed",
        key,
        policy,
        NARROWED_FIX(key),
        () => describeNarrowed(narrowed),
      ).map((f) => ({ ...f, line: narrowed.line })),
    );
  } else if (narrowed) {
    for (const f of removedFindings) f.message = `${f.message}; ${describeNarrowed(narrowed)}`;
  }
  const withoutBase = evidence.baseSkips === undefined;
  const skippedFindings =
    unapprovedSkips.length <= evidence.maxNewSkips
      ? []
      : changeFindings(skipVerdicts, "tests_skipped_unledgered", key, policy, SKIPPED_FIX(key), (changes, file) => {
          const names = changes.map((c) => (c.note ? `${c.id} (${c.note})` : c.id));
          const atBase = withoutBase ? "and no base results show them skipped there" : "and were not skipped at base";
          return `${changes.length} test(s) of ${file} are skipped or xfailed at head without a lease, ${atBase}: ${list(names)}`;
        });
  return {
    removed: removedFindings,
    skipped: skippedFindings.map((f) => ({
      ...f,
      fix: withoutBase
        ? `${f.fix}; if they were skipped at the base too, give the gate the base's results: run \`proofgate check --run\`, or set [results] base_junit`
        : f.fix,
    })),
    ...(evidence.base.kind === "not_measured"
      ? { notMeasured: { why: evidence.base.why, fix: evidence.base.fix } }
      : { baseFile: evidence.base.universe.file }),
    baseTests: base?.ids.length ?? 0,
    gone: removals.length,
    moved: movedTests,
    rootdir: moved ? paths.rootdir : undefined,
    renamed: removals.filter((c) => c.note !== undefined).length,
    approvedRemovals: removalVerdicts.filter((v) => v.approved).length,
    newSkips: newSkips.length,
    approvedSkips: skipVerdicts.length - unapprovedSkips.length,
    skipsWithoutBase: withoutBase,
    maxNewSkips: evidence.maxNewSkips,
  };
}

/** What narrowed the head's collection, in words (`tests_removed` names it, with the commits that could have). */
export function describeNarrowed(n: NarrowedCollection): string {
  const how = [
    n.deselected > 0 ? `${n.deselected} deselected (-k, -m or --deselect in the runner's settings, or a hook)` : "",
    n.unlisted > 0 ? `${n.unlisted} dropped without being deselected (a pytest_collection_modifyitems hook)` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return `pytest left tests out of the collection at head: ${how} (\`${n.summary}\` at ${n.file}:${n.line})`;
}

const NARROWED_FIX = (key: string): string =>
  `remove the -k/-m/--deselect from addopts (pytest.ini, pyproject.toml, setup.cfg, tox.ini) or the conftest.py hook that drops tests; tests that must go are removed by a human, in a commit with \`${key}: human\` (to name them, run \`proofgate check --run\` or set [universe] base_collected)`;

const REMOVED_FIX = (key: string): string =>
  `restore the tests; a test that must go is removed by a human, in a commit with \`${key}: human\` (a flaky test gets a lease in freeze.toml instead)`;
const SKIPPED_FIX = (key: string): string =>
  `remove the skip or xfail and fix the test, or have a human freeze it in freeze.toml; a skip a human means is committed by them with \`${key}: human\``;

/** Documentation: prose no test imports (Markdown, reStructuredText, a docs/ folder, the licence and changelog). */
export function isDocumentation(path: string): boolean {
  return (
    /\.(md|rst|adoc)$/i.test(path) ||
    /^docs?\//.test(path) ||
    /(^|\/)(LICEN[CS]E|AUTHORS|CHANGELOG|CHANGES|NEWS)(\.[^/]*)?$/i.test(path)
  );
}

/** The commits that could have changed a file's tests, and whether each is a human's with the trailer. */
export interface Verdict {
  /**
   * Commits that touched the file (or a later name of it) or the collection configuration, and the paths;
   * when none did, those that changed anything but documentation (the code the tests import).
   */
  commits: { commit: Commit; paths: string[]; approved: boolean }[];
  /** Every such commit carries the trailer on a human commit; with none at all, some human commit of the range does. */
  approved: boolean;
}

/**
 * For a test file: the commits of the range that could have changed its tests (those that touched it, a
 * later name of it, or the collection configuration), and whether `key` on a human commit approves them.
 */
export function changeAttributor(
  evidence: Pick<TestChangeEvidence, "touched" | "renames" | "collectionFiles">,
  commits: readonly Commit[],
  policy: PatchPolicy,
  key: string,
): (file: string) => Verdict {
  const isConfig = collectionConfigMatcher(evidence.collectionFiles);
  const approves = (c: Commit): boolean => hasHumanTrailer(c, key, policy.agentPatterns);
  const anyApproval = commits.some(approves);
  const codeTouching = evidence.touched.flatMap(({ commit, paths }) => {
    const code = paths.filter((p) => !isDocumentation(p));
    return code.length > 0 ? [{ commit, paths: code, approved: approves(commit) }] : [];
  });
  const cache = new Map<string, Verdict>();
  return (file: string): Verdict => {
    const known = cache.get(file);
    if (known) return known;
    const names = new Set([file]);
    for (const r of evidence.renames) if (names.has(r.from)) names.add(r.to);
    const touching = evidence.touched.flatMap(({ commit, paths }) => {
      const relevant = paths.filter((p) => names.has(p) || isConfig(p));
      return relevant.length > 0 ? [{ commit, paths: relevant, approved: approves(commit) }] : [];
    });
    // Untouched, the change came through code the tests import: every commit that changed anything but
    // documentation could have made it, and a human's trailer answers for the human's own commit only.
    const candidates = touching.length > 0 ? touching : codeTouching;
    const verdict = {
      commits: candidates,
      approved: candidates.length > 0 ? candidates.every((t) => t.approved) : anyApproval,
    };
    cache.set(file, verdict);
    return verdict;
  };
}

/**
 * One finding per commit that could have made the change and does not approve it, and per file: the
 * tests, the commit, its author, the paths it touched. A change no commit explains (its file and the
 * collection configuration untouched: the collection changed through code the tests import) is one
 * finding per file without a commit.
 */
export function changeFindings(
  verdicts: readonly ({ change: TestChange } & Verdict)[],
  reason: "tests_removed" | "tests_skipped_unledgered" | "property_weakened",
  key: string,
  policy: PatchPolicy,
  fix: string,
  describe: (changes: TestChange[], file: string) => string,
  /** The range has no commit (base and head are one commit): a change there is the collection's own. */
  emptyRange = false,
): Finding[] {
  interface Group {
    file: string;
    commit: Commit | undefined;
    paths: string[];
    changes: TestChange[];
  }
  const groups = new Map<string, Group>();
  for (const v of verdicts) {
    if (v.approved) continue;
    const culprits = v.commits.filter((c) => !c.approved);
    for (const c of culprits.length > 0 ? culprits : [undefined]) {
      const id = `${c?.commit.sha ?? ""}\u0000${v.change.file}`;
      const group: Group = groups.get(id) ?? {
        file: v.change.file,
        commit: c?.commit,
        paths: c?.paths ?? [],
        changes: [],
      };
      group.changes.push(v.change);
      groups.set(id, group);
    }
  }
  return [...groups.values()].map((g): Finding => {
    const what = describe(g.changes, g.file);
    if (!g.commit && emptyRange) {
      return {
        reason,
        message: `${what}; the range has no commit (the base is the head), so two collections of one commit disagree: a test whose name is not the same in every collection (a temporary path, a time or a random value in it) reads as gone`,
        file: g.file,
        fix: "give each test a name that is the same in every collection (a placeholder such as <tmp> in place of a temporary path)",
      };
    }
    if (!g.commit) {
      return {
        reason,
        message: `${what}; no commit in the range touched ${g.file} or the collection configuration (the collection changed through code they import), and no human commit carries \`${key}: human\``,
        file: g.file,
        fix,
      };
    }
    const { agent, reasons } = classifyCommit(g.commit, policy.agentPatterns);
    const whose = agent
      ? agentCommitClause(g.commit, key, reasons)
      : `commit ${short(g.commit.sha)} lacks \`${key}: human\``;
    return {
      reason,
      message: `${what}; ${whose} and touched ${list(g.paths)}`,
      file: g.file,
      commit: g.commit.sha,
      author: formatIdentity(g.commit.author),
      fix,
    };
  });
}

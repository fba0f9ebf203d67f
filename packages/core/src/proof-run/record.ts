import type { GateIssue } from "../common/errors.js";
import { readPropertySettings, type PropertySettingsById } from "../evidence/property-settings.js";
import { canonicalJson } from "./canonical-json.js";
import { asciiBytes, equalInConstantTime, fromHex, hmacSha256, toHex } from "./hmac.js";
import { PROOF_PLUGIN_VERSION, PROOF_RUN_RECORD_FORMAT, PROOF_RUN_RECORD_VERSION } from "./plugin.js";
import { readVitestCoverageSettings, type VitestCoverageSettings } from "./vitest-coverage.js";

/** What made a skip or an xfail: a marker, pytest itself, unittest, or code (with its file and line). */
export interface SkipOrigin {
  by: "marker" | "code" | "unittest" | "pytest" | "library";
  /** Repository-relative for `marker` and `code`; absolute for `library`. */
  path?: string | undefined;
  line?: number | undefined;
  /** For `code` and `library`: the phase it ran in (`setup` is a fixture, `call` the test body). */
  phase?: string | undefined;
  /** For `pytest` and `unittest`: the pytest module that raised it. */
  detail?: string | undefined;
}

/** What a phase raised at the innermost runtest hook: nothing, a skip, an xfail, or anything else. */
export type RaisedKind = "none" | "skip" | "xfail" | "error";

/**
 * One phase (setup, call, teardown) of one test, seen four times: what the test code raised (innermost
 * runtest hook), the report pytest's own code made (innermost makereport wrapper), the report after every
 * makereport wrapper (outermost), and the report as logged to the terminal and JUnit (last logreport).
 * A view is absent when the plugin never saw it.
 */
export interface RunPhase {
  when: string;
  raised?: RaisedKind | undefined;
  /** The exception's class name, when `raised` is `error`. */
  exception?: string | undefined;
  made?: string | undefined;
  final?: string | undefined;
  /** The report's `wasxfail` after every wrapper. */
  finalXfail?: string | undefined;
  logged?: string | undefined;
  loggedXfail?: string | undefined;
  /** The skip message of a logged skip (`Skipped: ...`). */
  reason?: string | undefined;
  /** The last line of a logged failure. */
  message?: string | undefined;
  origin?: SkipOrigin | undefined;
}

/** A test's outcome as pytest's summary counts it, from its logged reports. */
export type RunTestOutcome = "passed" | "failed" | "error" | "skipped" | "xfailed" | "xpassed" | "unknown";

/** One test that reported anything. */
export interface RunTest {
  id: string;
  outcome: RunTestOutcome;
  /** The skip message or the xfail reason. */
  reason?: string | undefined;
  origin?: SkipOrigin | undefined;
  phases: RunPhase[];
  /**
   * Reports made and logged while the test's call ran: subtests (pytest 9's, pytest-subtests'). Seen
   * made, after the wrappers and logged, never raised.
   */
  subtests?: RunPhase[] | undefined;
}

/** A collector that was skipped or failed: a module-level skip, an import error. */
export interface RunCollectionEntry {
  id: string;
  /** `module`: a test module (a module-level `pytest.skip` or `importorskip`); otherwise `collection`. */
  scope: "module" | "collection";
  collector?: string | undefined;
  made?: string | undefined;
  logged?: string | undefined;
  reason?: string | undefined;
  path?: string | undefined;
  line?: number | undefined;
  message?: string | undefined;
}

/** A file inside the repository that the run opened. */
export interface RunFile {
  /** Repository-relative, `/`-separated. */
  path: string;
  read: boolean;
  write: boolean;
  /** The test that opened it first, or null outside any test (collection, imports, session end). */
  first: string | null;
  /** The test that first opened it for writing; absent when no test did (or none wrote it). */
  writer?: string | undefined;
  /** The mount's label when the file was opened through one (the base's seeds). */
  via?: string | undefined;
}

/** A hook implementation by a plugin whose file is inside the repository (a conftest.py, a local plugin). */
export interface RunHook {
  plugin: string;
  hook: string;
  wrapper: boolean;
  tryfirst: boolean;
  trylast: boolean;
}

/**
 * A function, class, method or attribute of a repository source module found replaced while the tests ran
 * (or a function whose code changed), with where the original was defined and what replaced it.
 */
export interface RunReplacement {
  /** The module whose attribute it is (`pkg.calc`), `?` when the plugin could not compare (`error`). */
  module: string;
  /** The attribute as reached from the module: `add`, `Calc.add`; empty for the module itself. */
  name: string;
  /** `function`, `class`, `value` (data), `code` (a function's code or defaults), `module` (sys.modules), `error`. */
  kind: "function" | "class" | "value" | "code" | "module" | "error";
  /** The original's repository file and qualified name, and its definition's lines there. */
  path?: string | undefined;
  qualname?: string | undefined;
  first?: number | undefined;
  last?: number | undefined;
  /** The repository frame that made the change, where Python showed it (a module attribute set, `__code__ =`). */
  by?: { path: string; line: number } | undefined;
  /** When it was first seen: `collection`, `setup`, `call`, `teardown` or `session`, and the test. */
  phase?: string | undefined;
  test?: string | null | undefined;
  /** The test's file, or the module being collected, at that moment: the writer when no frame showed it. */
  near?: string | null | undefined;
  /** The repository files of the fixtures the running test used (conftest.py files, plugins, its module). */
  fixtures?: string[] | undefined;
  error?: string | undefined;
}

/** A pytest-xdist worker as the controller saw it: started, the tests it was given, how it went down. */
export interface RunXdistWorker {
  /** xdist's worker id (`gw0`): its record part is workerRecordFile(record, id). */
  id: string;
  ready: boolean;
  /** The ids the worker told the controller it would run (after its deselection); null if it never did. */
  scheduled: string[] | null;
  down: boolean;
  /** Why the worker went down, when it crashed or could not start. */
  error: string | null;
}

/**
 * A run under pytest-xdist (docs/proof-run-record.md#pytest-xdist): the controller's record names its
 * workers; each worker's record is a part, naming itself. A merged record (mergeWorkerRecords) keeps the
 * controller's, with `relay` what its view and the workers' records disagree on.
 */
export type RunXdist =
  { role: "worker"; worker: string } | { role: "controller"; workers: RunXdistWorker[]; relay?: string[] | undefined };

/** A verified record of one pytest session (docs/proof-run-record.md). */
export interface RunRecord {
  /** Where the record was read from. */
  file: string;
  version: number;
  plugin: string;
  nonce: string;
  pytest: string;
  python: { executable: string; version: string; implementation: string; safePath: boolean };
  /** The absolute repository root the paths are relative to. */
  root: string;
  /** pytest's rootdir: test ids are relative to it. */
  rootdir: string;
  /**
   * The rootdir seen from the root and the root seen from the rootdir (`../..` and `packages/x` for a package run
   * under the repository's pytest settings), symlinks resolved; absent in records of plugins before them.
   */
  rootdirFromRoot?: string | undefined;
  rootFromRootdir?: string | undefined;
  args: string[];
  /** pytest's `addopts` from its configuration file, and PYTEST_ADDOPTS as the run saw it. */
  addopts: { ini: string[]; env: string };
  /** pytest's configuration file, repository-relative; null when there is none (or it is outside). */
  inifile: string | null;
  /** The repository-relative sys.path entries when the plugin was imported (`.` is the root itself). */
  sysPath: string[];
  exitstatus: number;
  /** Every test id pytest collected, in order. */
  collected: string[];
  deselected: { proofgate: string[]; other: string[] };
  tests: RunTest[];
  collection: RunCollectionEntry[];
  /** False when the interpreter has no audit hooks (before Python 3.8): `files` is then empty, not evidence. */
  audit: boolean;
  files: RunFile[];
  /** pytest and pluggy internals found replaced, with the test during which it was first seen. */
  patched: Array<{ name: string; first: string | null }>;
  hooks: RunHook[];
  /** For each guarded hook: whether the plugin's views still sat at the ends of the chain at session end. */
  guard: Record<string, boolean>;
  /** Installed pytest plugins (`name==version`). */
  plugins: string[];
  /** Modules loaded from inside the repository under the name of a module found elsewhere. */
  shadowed: Array<{ module: string; path: string; error?: string | undefined }>;
  /** Source attributes and code replaced while the tests ran (absent from records of older plugins: none). */
  replaced: RunReplacement[];
  /** Each Hypothesis test's effective settings as it was about to run (absent from older records). */
  hypothesis?: PropertySettingsById | undefined;
  /** The repository's module files the run loaded, repository-relative and sorted (docs/proof-run-record.md). */
  modules?: string[] | undefined;
  /**
   * For each repository module whose body the run saw run: the repository file of its first importer, or
   * null when that was outside the repository (pytest, a library) or there was none (docs/proof-run-record.md).
   */
  importers?: Record<string, string | null> | undefined;
  /** Present when the run was distributed by pytest-xdist (absent from plain runs and older records). */
  xdist?: RunXdist | undefined;
  /**
   * vitest's resolved coverage settings, as the gate's reporter read them before any test ran (absent from
   * pytest's records; null when the reporter could not read them).
   */
  vitestCoverage?: VitestCoverageSettings | null | undefined;
  /**
   * The same settings read again when the run ended, from the coverage provider's own options, and what
   * replaced or bypassed the provider's reading of them since (absent from pytest's records).
   */
  vitestCoverageEnd?: VitestCoverageAtEnd | undefined;
  /**
   * For each source file the patch changed that the gate named to the reporter, whether vitest's coverage
   * settings measure it when a test loads it (absent from pytest's records).
   */
  vitestMeasures?: Record<string, boolean> | undefined;
}

/** vitest's coverage settings when the run ended: null when they could not be read. */
export interface VitestCoverageAtEnd {
  settings: VitestCoverageSettings | null;
  /** What replaced or bypassed the coverage provider's filter during the run, each said in a sentence. */
  altered: string[];
}

/** What is wrong with a run record, for messages and for the caller's choice of reason. */
export type RunRecordProblem =
  "missing" | "empty" | "not_json" | "unsigned" | "wrong_version" | "wrong_nonce" | "bad_signature" | "malformed";

/** A run record that cannot be used, as a GateIssue with what exactly is wrong. */
export interface RunRecordIssue extends GateIssue {
  problem: RunRecordProblem;
}

/** A verified record, or everything wrong with it. */
export interface RunRecordResult {
  record?: RunRecord | undefined;
  errors: RunRecordIssue[];
}

/** What the gate expects of the record it asked for. */
export interface ExpectedRun {
  /** The nonce the gate gave this run (PROOFGATE_RUN_NONCE). */
  nonce: string;
  /** The run's key, hexadecimal (PROOFGATE_RUN_KEY). */
  key: string;
  /** The record's path, for messages. */
  file: string;
}

const RERUN_FIX =
  "run the proof step through `proofgate check --run` as [commands] proof in the base's proofgate.toml, " +
  "with `python -m pytest` and without overriding PYTEST_ADDOPTS or PYTHONPATH";

/**
 * Parses and verifies the run record the plugin wrote: present, JSON, this plugin's format and version,
 * this run's nonce, and an HMAC-SHA256 signature under this run's key over the canonical JSON of
 * everything but the signature. `text` undefined means the file does not exist.
 */
export function verifyRunRecord(text: string | undefined, expected: ExpectedRun): RunRecordResult {
  const file = expected.file;
  const fail = (problem: RunRecordProblem, message: string, fix = RERUN_FIX): RunRecordResult => ({
    errors: [
      {
        code: problem === "missing" ? "file_missing" : problem === "empty" ? "file_empty" : "run_record_invalid",
        problem,
        file,
        message,
        fix,
      },
    ],
  });
  const key = fromHex(expected.key);
  if (key === undefined || key.length === 0) throw new TypeError("verifyRunRecord: the key must be hexadecimal");
  if (text === undefined)
    return fail(
      "missing",
      "the proof run wrote no run record: the proofgate pytest plugin was not loaded, was unregistered, or the session did not end",
    );
  if (text.trim() === "") return fail("empty", "the run record is empty");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fail("not_json", `the run record is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(parsed) || parsed.format !== PROOF_RUN_RECORD_FORMAT)
    return fail("malformed", `the file is not a proofgate run record (no "format": "${PROOF_RUN_RECORD_FORMAT}")`);
  const { signature, ...payload } = parsed;
  if (typeof signature !== "string" || signature === "")
    return fail("unsigned", "the run record is not signed: the proofgate plugin did not write it");
  if (payload.version !== PROOF_RUN_RECORD_VERSION || payload.plugin !== PROOF_PLUGIN_VERSION)
    return fail(
      "wrong_version",
      `the run record is version ${JSON.stringify(payload.version)} of plugin ${JSON.stringify(payload.plugin)}; this gate reads version ${PROOF_RUN_RECORD_VERSION} of plugin ${JSON.stringify(PROOF_PLUGIN_VERSION)}`,
      "run the proof step with the plugin this proofgate writes (`proofgate check --run`), not a copy kept from another version",
    );
  if (payload.nonce !== expected.nonce)
    return fail(
      "wrong_nonce",
      `the run record is from another run (nonce ${JSON.stringify(payload.nonce)}, this run's is ${JSON.stringify(expected.nonce)})`,
      "let the proof step write its own record: a record kept from an earlier run is not evidence",
    );
  const canonical = canonicalJson(payload);
  const bytes = canonical === undefined ? undefined : asciiBytes(canonical);
  if (bytes === undefined || !equalInConstantTime(toHex(hmacSha256(key, bytes)), signature.toLowerCase()))
    return fail(
      "bad_signature",
      "the run record's signature does not match this run's key: it was written or changed by something other than the plugin",
    );
  const shape = readRecord(payload, file);
  if (typeof shape === "string") return fail("malformed", `the run record is malformed: ${shape}`);
  return { record: shape, errors: [] };
}

// -------------------------------------------------------------------------------------------------
// Shape: the signed payload is the plugin's, but a plugin bug must be an error here, not a crash later.

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

class ShapeError extends Error {}

const str = (o: Json, k: string, at: string): string => {
  const v = o[k];
  if (typeof v !== "string") throw new ShapeError(`${at}.${k} is not a string`);
  return v;
};
const optStr = (o: Json, k: string, at: string): string | undefined => (o[k] === undefined ? undefined : str(o, k, at));
const num = (o: Json, k: string, at: string): number => {
  const v = o[k];
  if (typeof v !== "number" || !Number.isInteger(v)) throw new ShapeError(`${at}.${k} is not a whole number`);
  return v;
};
const optNum = (o: Json, k: string, at: string): number | undefined => (o[k] === undefined ? undefined : num(o, k, at));
const bool = (o: Json, k: string, at: string): boolean => {
  const v = o[k];
  if (typeof v !== "boolean") throw new ShapeError(`${at}.${k} is not true or false`);
  return v;
};
const obj = (v: unknown, at: string): Json => {
  if (!isObject(v)) throw new ShapeError(`${at} is not an object`);
  return v;
};
const arr = (o: Json, k: string, at: string): unknown[] => {
  const v = o[k];
  if (!Array.isArray(v)) throw new ShapeError(`${at}.${k} is not a list`);
  return v;
};
const strings = (o: Json, k: string, at: string): string[] =>
  arr(o, k, at).map((v, i) => {
    if (typeof v !== "string") throw new ShapeError(`${at}.${k}[${i}] is not a string`);
    return v;
  });
const oneOf = <T extends string>(v: string, allowed: readonly T[], at: string): T => {
  if (!(allowed as readonly string[]).includes(v)) throw new ShapeError(`${at} is ${JSON.stringify(v)}`);
  return v as T;
};

const ORIGINS = ["marker", "code", "unittest", "pytest", "library"] as const;
const RAISED = ["none", "skip", "xfail", "error"] as const;
const OUTCOMES = ["passed", "failed", "error", "skipped", "xfailed", "xpassed", "unknown"] as const;

function readOrigin(v: unknown, at: string): SkipOrigin | undefined {
  if (v === undefined) return undefined;
  const o = obj(v, at);
  return {
    by: oneOf(str(o, "by", at), ORIGINS, `${at}.by`),
    path: optStr(o, "path", at),
    line: optNum(o, "line", at),
    phase: optStr(o, "phase", at),
    detail: optStr(o, "detail", at),
  };
}

function readImporters(o: Json): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== null && typeof v !== "string")
      throw new ShapeError(`record.importers[${JSON.stringify(k)}] is not a path or null`);
    out[k] = v;
  }
  return out;
}

function readPhase(v: unknown, at: string): RunPhase {
  const o = obj(v, at);
  const raised = optStr(o, "raised", at);
  return {
    when: str(o, "when", at),
    raised: raised === undefined ? undefined : oneOf(raised, RAISED, `${at}.raised`),
    exception: optStr(o, "exception", at),
    made: optStr(o, "made", at),
    final: optStr(o, "final", at),
    finalXfail: optStr(o, "final_xfail", at),
    logged: optStr(o, "logged", at),
    loggedXfail: optStr(o, "logged_xfail", at),
    reason: optStr(o, "reason", at),
    message: optStr(o, "message", at),
    origin: readOrigin(o.origin, `${at}.origin`),
  };
}

function readRecord(p: Json, file: string): RunRecord | string {
  try {
    const python = obj(p.python, "python");
    const deselected = obj(p.deselected, "deselected");
    const guard = obj(p.guard, "guard");
    const addopts = obj(p.addopts, "addopts");
    return {
      file,
      version: num(p, "version", "record"),
      plugin: str(p, "plugin", "record"),
      nonce: str(p, "nonce", "record"),
      pytest: str(p, "pytest", "record"),
      python: {
        executable: str(python, "executable", "python"),
        version: str(python, "version", "python"),
        implementation: str(python, "implementation", "python"),
        safePath: bool(python, "safe_path", "python"),
      },
      root: str(p, "root", "record"),
      rootdir: str(p, "rootdir", "record"),
      rootdirFromRoot: optStr(p, "rootdir_from_root", "record"),
      rootFromRootdir: optStr(p, "root_from_rootdir", "record"),
      args: strings(p, "args", "record"),
      addopts: { ini: strings(addopts, "ini", "addopts"), env: str(addopts, "env", "addopts") },
      inifile: p.inifile === null ? null : str(p, "inifile", "record"),
      sysPath: strings(p, "sys_path", "record"),
      exitstatus: num(p, "exitstatus", "record"),
      collected: strings(p, "collected", "record"),
      deselected: {
        proofgate: strings(deselected, "proofgate", "deselected"),
        other: strings(deselected, "other", "deselected"),
      },
      tests: arr(p, "tests", "record").map((v, i) => {
        const at = `tests[${i}]`;
        const t = obj(v, at);
        return {
          id: str(t, "id", at),
          outcome: oneOf(str(t, "outcome", at), OUTCOMES, `${at}.outcome`),
          reason: optStr(t, "reason", at),
          origin: readOrigin(t.origin, `${at}.origin`),
          phases: arr(t, "phases", at).map((ph, j) => readPhase(ph, `${at}.phases[${j}]`)),
          subtests:
            t.subtests === undefined
              ? undefined
              : arr(t, "subtests", at).map((ph, j) => readPhase(ph, `${at}.subtests[${j}]`)),
        };
      }),
      collection: arr(p, "collection", "record").map((v, i) => {
        const at = `collection[${i}]`;
        const c = obj(v, at);
        return {
          id: str(c, "id", at),
          scope: oneOf(str(c, "scope", at), ["module", "collection"] as const, `${at}.scope`),
          collector: optStr(c, "collector", at),
          made: optStr(c, "made", at),
          logged: optStr(c, "logged", at),
          reason: optStr(c, "reason", at),
          path: optStr(c, "path", at),
          line: optNum(c, "line", at),
          message: optStr(c, "message", at),
        };
      }),
      audit: bool(p, "audit", "record"),
      files: arr(p, "files", "record").map((v, i) => {
        const at = `files[${i}]`;
        const f = obj(v, at);
        const first = f.first;
        if (first !== null && typeof first !== "string") throw new ShapeError(`${at}.first is not a string or null`);
        return {
          path: str(f, "path", at),
          read: bool(f, "read", at),
          write: bool(f, "write", at),
          first,
          writer: optStr(f, "writer", at),
          via: optStr(f, "via", at),
        };
      }),
      patched: arr(p, "patched", "record").map((v, i) => {
        const at = `patched[${i}]`;
        const o = obj(v, at);
        const first = o.first;
        if (first !== null && typeof first !== "string") throw new ShapeError(`${at}.first is not a string or null`);
        return { name: str(o, "name", at), first };
      }),
      hooks: arr(p, "hooks", "record").map((v, i) => {
        const at = `hooks[${i}]`;
        const h = obj(v, at);
        return {
          plugin: str(h, "plugin", at),
          hook: str(h, "hook", at),
          wrapper: bool(h, "wrapper", at),
          tryfirst: bool(h, "tryfirst", at),
          trylast: bool(h, "trylast", at),
        };
      }),
      guard: Object.fromEntries(Object.keys(guard).map((k) => [k, bool(guard, k, "guard")])),
      plugins: strings(p, "plugins", "record"),
      shadowed: arr(p, "shadowed", "record").map((v, i) => {
        const at = `shadowed[${i}]`;
        const s = obj(v, at);
        return { module: str(s, "module", at), path: str(s, "path", at), error: optStr(s, "error", at) };
      }),
      replaced: readReplaced(p),
      hypothesis: hypothesisSettings(p.hypothesis),
      modules: p.modules === undefined ? undefined : strings(p, "modules", "record"),
      importers: p.importers === undefined ? undefined : readImporters(obj(p.importers, "record.importers")),
      xdist: p.xdist === undefined ? undefined : readXdist(obj(p.xdist, "xdist")),
      vitestCoverage: readVitestCoverage(p.vitest_coverage),
      vitestCoverageEnd: p.vitest_coverage_end === undefined ? undefined : readVitestCoverageEnd(p.vitest_coverage_end),
      vitestMeasures:
        p.vitest_measures === undefined ? undefined : readMeasures(obj(p.vitest_measures, "vitest_measures")),
    };
  } catch (error) {
    if (error instanceof ShapeError) return error.message;
    throw error;
  }
}

function readVitestCoverage(v: unknown): VitestCoverageSettings | null | undefined {
  if (v === undefined || v === null) return v;
  const settings = readVitestCoverageSettings(v, "vitest_coverage");
  if (typeof settings === "string") throw new ShapeError(settings);
  return settings;
}

function readMeasures(m: Json): Record<string, boolean> {
  const out: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const [path, measured] of Object.entries(m)) {
    if (typeof measured !== "boolean")
      throw new ShapeError(`vitest_measures[${JSON.stringify(path)}] is not true or false`);
    out[path] = measured;
  }
  return out;
}

function readVitestCoverageEnd(v: unknown): VitestCoverageAtEnd {
  const end = obj(v, "vitest_coverage_end");
  const settings = readVitestCoverage(end.settings);
  if (settings === undefined) throw new ShapeError("vitest_coverage_end.settings is missing");
  return { settings, altered: strings(end, "altered", "vitest_coverage_end") };
}

function readXdist(x: Json): RunXdist {
  const role = oneOf(str(x, "role", "xdist"), ["worker", "controller"] as const, "xdist.role");
  if (role === "worker") return { role, worker: str(x, "worker", "xdist") };
  return {
    role,
    workers: arr(x, "workers", "xdist").map((v, i) => {
      const at = `xdist.workers[${i}]`;
      const w = obj(v, at);
      const error = w.error;
      if (error !== null && typeof error !== "string") throw new ShapeError(`${at}.error is not a string or null`);
      return {
        id: str(w, "id", at),
        ready: bool(w, "ready", at),
        scheduled: w.scheduled === null ? null : strings(w, "scheduled", at),
        down: bool(w, "down", at),
        error,
      };
    }),
  };
}

const REPLACED_KINDS = ["function", "class", "value", "code", "module", "error"] as const;

function readReplaced(p: Json): RunReplacement[] {
  if (p.replaced === undefined) return [];
  return arr(p, "replaced", "record").map((v, i) => {
    const at = `replaced[${i}]`;
    const r = obj(v, at);
    const by = r.by === undefined ? undefined : obj(r.by, `${at}.by`);
    const nullable = (k: string): string | null | undefined => (r[k] === null ? null : optStr(r, k, at));
    return {
      module: str(r, "module", at),
      name: str(r, "name", at),
      kind: oneOf(str(r, "kind", at), REPLACED_KINDS, `${at}.kind`),
      path: nullable("path") ?? undefined,
      qualname: optStr(r, "qualname", at),
      first: optNum(r, "first", at),
      last: optNum(r, "last", at),
      by: by && { path: str(by, "path", `${at}.by`), line: num(by, "line", `${at}.by`) },
      phase: optStr(r, "phase", at),
      test: nullable("test"),
      near: nullable("near"),
      fixtures: r.fixtures === undefined ? undefined : strings(r, "fixtures", at),
      error: optStr(r, "error", at),
    };
  });
}

function hypothesisSettings(v: unknown): PropertySettingsById | undefined {
  if (v === undefined) return undefined;
  const read = readPropertySettings(v, "hypothesis");
  if (typeof read === "string") throw new ShapeError(read);
  return read;
}

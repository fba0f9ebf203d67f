// The vitest proof run's two modules, written by the gate for each run: a reporter (the main process)
// and a test runner (every worker). The proof command loads the reporter with
// `--reporter=$PROOFGATE_VITEST_REPORTER`; the reporter puts the runner in every project's config. The
// runner marks exactly the leased tests skipped, by file and full name path, right after collection
// (deselection), and notes four views of each test: what its function raised, the result vitest made of
// it, the result after every hook (afterEach, onTestFinished, `fails`), and the result the main process
// received. The reporter writes the run record in the pytest plugin's format (record.ts), signed with
// the run's key (HMAC-SHA256 over the canonical JSON), so the same judges read it.
import { VITEST_NAME_BLANKS, VITEST_NAME_DROPPED } from "../evidence/universe-vitest.js";
import { PROOF_PLUGIN_VERSION, PROOF_RUN_ENV, PROOF_RUN_RECORD_FORMAT, PROOF_RUN_RECORD_VERSION } from "./plugin.js";

/** The environment variable naming the gate's vitest reporter: the proof command passes it to `--reporter`. */
export const VITEST_REPORTER_ENV = "PROOFGATE_VITEST_REPORTER";

/**
 * The environment of every vitest run the gate makes: snapshots are never written, as vitest runs in CI
 * (`UPDATE_SNAPSHOT=none`, what vitest takes for `CI=true` without `-u`). A snapshot the tests ask for that
 * is missing fails its test, and a snapshot file's entry no test checks any more (an assertion deleted)
 * fails its test file ("Obsolete snapshots found"), wherever the gate runs: a pre-push hook judges as CI does.
 */
export const VITEST_RUN_ENV: Readonly<Record<string, string>> = Object.freeze({ UPDATE_SNAPSHOT: "none" });

/** The separator of vitest's name paths: `<file> > <describe> > <test>`. */
const SEP = " > ";

/** The leased ids, `<file> > <name path>`, grouped by file: `{ "test/a.test.ts": ["math > adds"] }`. */
export function leasedByFile(ids: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const id of ids) {
    const cut = id.indexOf(SEP);
    if (cut <= 0) continue;
    (out[id.slice(0, cut)] ??= []).push(id.slice(cut + SEP.length));
  }
  return out;
}

/** The runner module's file name for a run: a fresh name every run, like the pytest plugin's. */
export function vitestRunnerFile(nonce: string): string {
  return `proofgate-runner-${nonce.slice(0, 16)}.mjs`;
}

/** The reporter module's file name for a run. */
export function vitestReporterFile(nonce: string): string {
  return `proofgate-reporter-${nonce.slice(0, 16)}.mjs`;
}

const json = (value: unknown): string => JSON.stringify(value);

// Shared by both modules: the repository-relative path of an absolute one (the root as given and as
// resolved, since vitest reports real paths), and a test's name path below its file.
/** Both modules' copy of vitestName: what JUnit XML cannot carry dropped, a tab or line break a space, trimmed. */
const ID_NAME_JS = `const DROPPED = new RegExp(${json(VITEST_NAME_DROPPED)}, "gu");
const BLANKS = new RegExp(${json(VITEST_NAME_BLANKS)}, "g");
const idName = (name) => name.replace(DROPPED, "").replace(BLANKS, " ").trim();`;

const PATHS_JS = `const ROOTS = (() => {
  const roots = [ROOT];
  try {
    const real = realpathSync(ROOT);
    if (real !== ROOT) roots.push(real);
  } catch {}
  return roots;
})();
const slash = (path) => String(path).replace(/\\\\/g, "/");
function relativePath(path) {
  const clean = slash(path);
  for (const root of ROOTS) if (clean.startsWith(root + "/")) return clean.slice(root.length + 1);
  return undefined;
}`;

/**
 * Both reporters' reading of vitest's resolved coverage settings (\`vitest.config.coverage\`, the CLI's
 * options and the config file's merged): what decides which files coverage measures. Paths under the root
 * are written repository-relative, so a worktree of the base and the work tree compare equal. vitest appends
 * its own entries to \`coverage.exclude\` (each setup file, the test files' include globs, the config
 * files, node_modules): those are not the project's exclusions and are left out of \`exclude\`; the test
 * globs are judged by their effect on the tests, and each setup file is written with whether the rest of
 * the settings would measure it (vitest's own matcher), so a source file made a setup file is seen.
 */
const COVERAGE_SETTINGS_JS = `function coverageSettings(vitest, options, gateOwn = []) {
  const config = vitest?.config ?? {};
  const c = options ?? config.coverage ?? {};
  const rel = (v) => {
    // \`./src/**\` is \`src/**\`, and \`src/**/*\` matches the same files as \`src/**\`.
    const s = slash(v)
      .replace(/^(?:\\.\\/)+/, "")
      .replace(/(^|\\/)\\*\\*\\/\\*$/, "$1**");
    return ROOTS.includes(s) ? "." : (relativePath(s) ?? s);
  };
  const setupFiles = Array.isArray(config.setupFiles) ? config.setupFiles.map(String) : [];
  const setupPattern = (file) => (c.allowExternal ? "**/" : "") + slash(relative(String(config.root ?? ROOT), file));
  const derived = new Set([
    ...setupFiles.map(setupPattern),
    ...(Array.isArray(config.include) ? config.include.map(String) : []),
    ...(config.config ? [slash(config.config)] : []),
    "**/virtual:*",
    "**/__x00__*",
    "**/node_modules/**",
  ]);
  const own = (p) => !derived.has(String(p)) && !gateOwn.includes(p) && !/^(?:vitest|vite)\\.config\\.[a-z]+$/.test(String(p));
  // Whether coverage would measure a setup file were it not one: the provider's own matcher, without the
  // entry vitest added for it (true, failing closed, when the provider has no such matcher).
  const measuredOtherwise = (file) => {
    const provider = vitest?.coverageProvider;
    if (!provider || typeof provider.isIncluded !== "function" || !Array.isArray(provider.options?.exclude)) return true;
    const exclude = provider.options.exclude;
    const cache = provider.globCache;
    // \`coverage.changed\` (the files changed since a ref) is set on the provider once the run starts: it is
    // judged as a setting of its own, not through each setup file.
    const changed = provider.changedFiles;
    try {
      provider.options.exclude = exclude.filter((p) => p !== setupPattern(file));
      provider.globCache = new Map();
      provider.changedFiles = undefined;
      return provider.isIncluded(slash(file)) === true;
    } catch {
      return true;
    } finally {
      provider.options.exclude = exclude;
      provider.globCache = cache;
      provider.changedFiles = changed;
    }
  };
  const configFile = vitest?.vite?.config?.configFile;
  return {
    provider: String(c.provider ?? "v8"),
    custom_provider_module: c.customProviderModule == null ? null : rel(c.customProviderModule),
    include: Array.isArray(c.include) ? c.include.map(rel) : null,
    exclude: Array.isArray(c.exclude) ? c.exclude.filter(own).map(rel) : [],
    exclude_after_remap: c.excludeAfterRemap === true,
    // Only the files changed since this git ref (true: uncommitted ones) are measured; vitest defaults it
    // from the top-level \`changed\`.
    changed: c.changed == null || c.changed === false ? null : String(c.changed),
    allow_external: c.allowExternal === true,
    ignore_class_methods: Array.isArray(c.ignoreClassMethods) ? c.ignoreClassMethods.map(String) : [],
    setup_files: setupFiles.map((file) => ({ path: rel(file), measured: measuredOtherwise(file) })),
    config_file: configFile ? rel(configFile) : null,
    // The repository's files the config file imports (vite bundles it and lists them): a change to one of
    // them can change these settings as a change to the config file can.
    config_dependencies: [...new Set((Array.isArray(vitest?.vite?.config?.configFileDependencies) ? vitest.vite.config.configFileDependencies : [])
      .map((f) => relativePath(f)).filter((f) => typeof f === "string"))].sort(),
  };
}`;

/** The settings file the base's reporter writes: its format name. */
export const VITEST_SETTINGS_FORMAT = "proofgate-vitest-settings";

/** The settings reporter's module file name for a run. */
export function vitestSettingsReporterFile(nonce: string): string {
  return `proofgate-settings-${nonce.slice(0, 16)}.mjs`;
}

/**
 * The base's settings reporter: loaded by the base's own \`[commands] proof\` in the base's worktree, it
 * writes vitest's resolved coverage settings once vitest has read its config and then ends the process,
 * before any test runs (the base's tests are not what it is for). The same reading as the proof run's
 * reporter, so the base's and the head's settings compare by meaning.
 */
export function renderVitestSettingsReporter(plan: { root: string; out: string; nonce: string }): string {
  return `// Written by proofgate for one check; do not edit or commit.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";

const ROOT = ${json(plan.root)};
const OUT = ${json(plan.out)};
const NONCE = ${json(plan.nonce)};
${PATHS_JS}
${COVERAGE_SETTINGS_JS}

export default class ProofgateSettingsReporter {
  onInit(vitest) {
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ format: ${json(VITEST_SETTINGS_FORMAT)}, nonce: NONCE, coverage: coverageSettings(vitest) }));
    // Nothing else of the base's run is read: no test runs.
    process.exit(0);
  }
}
`;
}

/**
 * The runner: vitest's own TestRunner, with the leased tests marked skipped after collection (a suite
 * whose every test is leased is skipped too, so its hooks do not run) and each test's views noted in its
 * meta. A leased test that its file no longer holds stops the run.
 */
// The module the written runner imports, in the project that runs it (the CLI's bundle imports nothing
// but Node's own modules: its packing test scans for import specifiers, and this text is not one of its).
const VITEST = "vitest";

export function renderVitestRunner(plan: {
  root: string;
  leased: readonly string[];
  /** The base's run of the tests skipped at head: only these run, every other test is marked skipped. */
  only?: readonly string[] | undefined;
}): string {
  return `// Written by proofgate for one proof run; do not edit or commit.
import { realpathSync } from "node:fs";
import * as vitestExports from ${json(VITEST)};

// vitest's runner class (exported from 4.1.0 on; 4.0 and 3 have none): without it, say so rather than fail obscurely.
const VitestTestRunner = vitestExports.TestRunner;
if (typeof VitestTestRunner !== "function")
  throw new Error("proofgate: this vitest has no TestRunner export: the gate's runner needs vitest 4.1 or later; upgrade vitest and @vitest/coverage-v8 together");

const ROOT = ${json(plan.root)};
const LEASED = ${json(leasedByFile(plan.leased))};
const ONLY = ${json(plan.only === undefined ? null : leasedByFile(plan.only))};
const SEP = ${json(SEP)};
${PATHS_JS}
${ID_NAME_JS}

function namePath(task) {
  const names = [];
  for (let t = task; t && t !== task.file && t.type !== "file"; t = t.suite) names.unshift(t.name);
  return idName(names.join(SEP));
}
const outcome = (state) =>
  state === "pass" ? "passed" : state === "fail" ? "failed" : state === "skip" || state === "todo" ? "skipped" : undefined;
const isSkip = (e) => e !== null && typeof e === "object" && (e.code === "VITEST_PENDING" || e.name === "TestRunAbortError");

// Marks the leased tests of a suite skipped. Returns [nothing left to run, any leased].
function deselect(suite, want, found) {
  let idle = true;
  let leased = false;
  for (const task of suite.tasks) {
    if (task.type === "suite") {
      const [subIdle, subLeased] = deselect(task, want, found);
      idle &&= subIdle;
      leased ||= subLeased;
      continue;
    }
    const path = namePath(task);
    if (want.has(path)) {
      task.mode = "skip";
      task.meta.proofgate = { deselected: true };
      found.add(path);
      leased = true;
    } else if (task.mode !== "skip" && task.mode !== "todo") idle = false;
  }
  // Nothing left to run: its all-hooks do not run either, as pytest runs no fixture of a module whose every
  // test is deselected. Each test still goes through the runner, so every reporter hears it was skipped.
  if (idle && leased) dropSuiteHooks(suite);
  return [idle, leased];
}

function dropSuiteHooks(suite) {
  const hooks = VitestTestRunner.getSuiteHooks(suite);
  if (hooks) for (const name of ["beforeAll", "afterAll", "aroundAll"]) if (Array.isArray(hooks[name])) hooks[name].length = 0;
}

// The base's run of the tests skipped at head (ONLY): every other test is marked skipped, so only those
// run (their results are all that is read); a suite left with none of them loses its all-hooks, as a
// fully leased one does. Returns [nothing left to run, any marked].
function keepOnly(suite, want, found) {
  let idle = true;
  let marked = false;
  for (const task of suite.tasks) {
    if (task.type === "suite") {
      const [subIdle, subMarked] = keepOnly(task, want, found);
      idle &&= subIdle;
      marked ||= subMarked;
      continue;
    }
    const path = namePath(task);
    if (want.has(path)) {
      found.add(path);
      idle = false;
    } else if (task.mode !== "skip" && task.mode !== "todo") {
      task.mode = "skip";
      marked = true;
    }
  }
  if (idle && marked) dropSuiteHooks(suite);
  return [idle, marked];
}

// The tests vitest will not run (it.skip, describe.skip, .todo, skipIf(true), the others of an .only), as
// collection left them: skipped as made and after every hook. vitest skips a suite or file that runs
// nothing without sending its tests through the runner, so they are noted here; a test that runs after
// all gets its views anew in runTask.
function noteSkipped(suite) {
  for (const task of suite.tasks) {
    if (task.type === "suite") noteSkipped(task);
    else if (task.type === "test" && (task.mode === "skip" || task.mode === "todo") && !task.meta.proofgate)
      task.meta.proofgate = { made: "skipped", final: "skipped" };
  }
}

const done = new WeakSet();
function deselectFiles(files) {
  const lost = [];
  for (const file of files) {
    if (done.has(file)) continue;
    done.add(file);
    noteSkipped(file);
    const rel = relativePath(file.filepath);
    if (ONLY) {
      const wanted = (rel !== undefined && ONLY[rel]) || [];
      const found = new Set();
      keepOnly(file, new Set(wanted), found);
      for (const name of wanted) if (!found.has(name)) lost.push(rel + SEP + name);
      continue;
    }
    const names = rel === undefined ? undefined : LEASED[rel];
    if (!names) continue;
    const found = new Set();
    deselect(file, new Set(names), found);
    for (const name of names) if (!found.has(name)) lost.push(rel + SEP + name);
  }
  if (lost.length > 0 && ONLY)
    throw new Error("proofgate: test(s) the base's run was to run are not in their file: " + lost.join(", "));
  if (lost.length > 0)
    throw new Error("proofgate: leased test(s) no longer in their file: " + lost.join(", ") + ". Remove or rename the lease in freeze.toml");
}

export default class ProofgateRunner extends VitestTestRunner {
  constructor(config) {
    super(config);
    // vitest wraps onCollected to send the collected tree to the main process before the runner's own
    // hook runs: the leased tests are marked first, so every reporter (JUnit's too) sees them skipped.
    // The wrapper then calls the runner's own hook, which is this one again: it only deselects then.
    let wrapper;
    let inside = false;
    Object.defineProperty(this, "onCollected", {
      configurable: true,
      get: () => async (files) => {
        deselectFiles(files);
        if (!wrapper || inside) return;
        inside = true;
        try {
          await wrapper.call(this, files);
        } finally {
          inside = false;
        }
      },
      set: (fn) => {
        wrapper = fn;
      },
    });
  }
  async onBeforeRunTask(test) {
    await super.onBeforeRunTask(test);
    if (test.type === "test" && test.mode !== "run" && test.mode !== "queued" && !test.meta.proofgate?.deselected)
      test.meta.proofgate = { made: "skipped", final: "skipped" };
  }
  async runTask(test) {
    const views = (test.meta.proofgate = {});
    try {
      await VitestTestRunner.getTestFn(test)();
      views.raised = "none";
    } catch (error) {
      views.raised = isSkip(error) ? "skip" : "error";
      if (views.raised === "error") views.exception = String(error?.constructor?.name ?? typeof error);
      throw error;
    }
  }
  async onTaskFinished(test) {
    if (test.type === "test") (test.meta.proofgate ??= {}).made = outcome(test.result?.state);
    return super.onTaskFinished?.(test);
  }
  // After every try's hooks (afterEach, onTestFinished, onTestFailed): the result then. A test skipped at
  // run time (\`ctx.skip()\`) ends there, without onAfterRunTask; any other goes on to it below.
  async onAfterRetryTask(test, options) {
    await super.onAfterRetryTask?.(test, options);
    if (test.type === "test") (test.meta.proofgate ??= {}).final = outcome(test.result?.state);
  }
  async onAfterRunTask(test) {
    await super.onAfterRunTask(test);
    if (test.type !== "test") return;
    const views = (test.meta.proofgate ??= {});
    views.final = outcome(test.result?.state);
    // \`it.fails\`: an expected failure, an xfail; vitest turns its failure into a pass.
    if (test.fails && views.final === "passed") {
      views.final = "skipped";
      views.xfail = "fails";
    }
  }
}
`;
}

/**
 * The reporter: puts the runner in every project's config, and at the end of the run writes the signed
 * record. Reads the run's nonce, key, record path and root from the environment and deletes the key, so
 * the workers (and the tests) never see it.
 */
export function renderVitestReporter(plan: {
  root: string;
  runner: string;
  leased: readonly string[];
  /** Source files the patch changed (repository paths): the record says which the coverage settings measure. */
  sources?: readonly string[] | undefined;
}): string {
  return `// Written by proofgate for one proof run; do not edit or commit.
import { createHmac } from "node:crypto";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";

const ROOT = ${json(plan.root)};
const RUNNER = ${json(plan.runner)};
const LEASED = ${json([...plan.leased])};
const SOURCES = ${json([...(plan.sources ?? [])])};
const SEP = ${json(SEP)};
${ID_NAME_JS}
const NONCE = process.env.${PROOF_RUN_ENV.nonce};
const KEY = process.env.${PROOF_RUN_ENV.key};
const RECORD = process.env.${PROOF_RUN_ENV.record};
delete process.env.${PROOF_RUN_ENV.key};
${PATHS_JS}
${COVERAGE_SETTINGS_JS}

// Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True): what the gate verifies.
function pyString(text) {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) out += '\\\\"';
    else if (c === 0x5c) out += "\\\\\\\\";
    else if (c === 0x08) out += "\\\\b";
    else if (c === 0x0c) out += "\\\\f";
    else if (c === 0x0a) out += "\\\\n";
    else if (c === 0x0d) out += "\\\\r";
    else if (c === 0x09) out += "\\\\t";
    else if (c >= 0x20 && c <= 0x7e) out += text[i];
    else out += "\\\\u" + c.toString(16).padStart(4, "0");
  }
  return out + '"';
}
function byCodePoint(a, b) {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
function canonical(v) {
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return pyString(v);
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  return "{" + Object.keys(v).sort(byCodePoint).map((k) => pyString(k) + ":" + canonical(v[k])).join(",") + "}";
}
const LOGGED = { passed: "passed", failed: "failed", skipped: "skipped" };

// Every method of the coverage provider (its own and its classes'), as vitest's onInit left them.
function providerMethods(provider) {
  const methods = [];
  if (!provider || typeof provider !== "object") return methods;
  const names = new Set();
  for (let o = provider; o && o !== Object.prototype; o = Object.getPrototypeOf(o))
    for (const name of Object.getOwnPropertyNames(o)) if (name !== "constructor") names.add(name);
  for (const name of names) {
    let value;
    try {
      value = provider[name];
    } catch {
      continue;
    }
    if (typeof value === "function") methods.push([name, value]);
  }
  return methods;
}

export default class ProofgateReporter {
  onInit(vitest) {
    // The runner extends vitest's TestRunner, exported from 4.1.0 on: an older vitest stops here, by name.
    const [major, minor] = String(vitest?.version ?? "").split(".").map(Number);
    if (major > 0 && (major < 4 || (major === 4 && minor < 1)))
      throw new Error("proofgate: vitest " + vitest.version + " is installed: the gate's reporter and runner need vitest 4.1 or later; upgrade vitest and @vitest/coverage-v8 together");
    this.vitest = vitest;
    // Read before the gate's own runner joins coverage's exclude below.
    try {
      this.coverage = coverageSettings(vitest);
    } catch (error) {
      this.coverage = null;
    }
    // What the settings are read from again when the run ends: code of the main process that runs after
    // this (a globalSetup file, a plugin's later hook, another reporter) could change them.
    const provider = vitest.coverageProvider;
    this.coverageStart = {
      provider,
      options: provider?.options,
      config: vitest.config?.coverage,
      methods: providerMethods(provider),
      reporters: Array.isArray(vitest.reporters) ? [...vitest.reporters] : [],
      roots: JSON.stringify(provider?.roots ?? null),
      changed: vitest.config?.changed,
    };
    for (const project of vitest.projects) project.config.runner = RUNNER;
    // The gate's runner runs in every worker: it is no source of the project, so coverage never measures
    // it (the coverage provider reads these arrays when it filters each file).
    for (const options of [vitest.config?.coverage, vitest.coverageProvider?.options]) {
      if (!options || typeof options !== "object") continue;
      if (!Array.isArray(options.exclude)) options.exclude = [];
      if (!options.exclude.includes(RUNNER)) options.exclude.push(RUNNER);
    }
  }
  // vitest's coverage settings as they stand when the run ends (the report is written from them), and
  // whatever replaced or bypassed the provider's own reading of them since onInit.
  coverageAtEnd() {
    const vitest = this.vitest;
    const start = this.coverageStart ?? {};
    const provider = vitest?.coverageProvider;
    const altered = [];
    const reporters = Array.isArray(vitest?.reporters) ? vitest.reporters : [];
    if (reporters.length !== start.reporters.length || reporters.some((r, i) => r !== start.reporters[i]))
      altered.push("vitest's reporters were changed (one could change the coverage map before it is written)");
    if (provider !== start.provider) altered.push("the coverage provider was replaced");
    else if (provider) {
      if (provider.options !== start.options) altered.push("the coverage provider's options object was replaced");
      if (vitest.config?.coverage !== start.config) altered.push("vitest's coverage config object was replaced");
      // A method replaced, or one added (an optional hook, or the filter of a provider that had none).
      const known = new Map(start.methods);
      const method = (name) => "the coverage provider's " + (name === "isIncluded" ? "file filter (isIncluded)" : name);
      for (const [name, fn] of start.methods) if (provider[name] !== fn) altered.push(method(name) + " was replaced");
      for (const [name] of providerMethods(provider)) if (!known.has(name)) altered.push(method(name) + " was added");
      if (JSON.stringify(provider.roots ?? null) !== start.roots) altered.push("the coverage provider's roots were changed");
      // Only \`coverage.changed\` or vitest's own --changed limit coverage to the changed files.
      const c = provider.options ?? {};
      if (provider.changedFiles !== undefined && !c.changed && !start.changed)
        altered.push("the coverage provider was told to measure only some changed files (changedFiles)");
      // Every answer the filter cached must be the one the settings give now (a cache seeded with "not
      // measured" for a source file hides it as surely as an exclude pattern).
      const cache = provider.globCache;
      const plainMap = cache instanceof Map && Object.getPrototypeOf(cache) === Map.prototype &&
        !["get", "set", "has", "clear", "entries", Symbol.iterator].some((k) => Object.prototype.hasOwnProperty.call(cache, k));
      if (cache !== undefined && !plainMap) altered.push("the coverage provider's cache (globCache) was replaced by an object that is not a plain Map");
      if (plainMap && typeof provider.isIncluded === "function") {
        const roots = Array.isArray(provider.roots) ? provider.roots : [];
        try {
          for (const [file, cached] of cache) {
            provider.globCache = new Map();
            if (provider.isIncluded(file) === cached) continue;
            if (roots.some((root) => ((provider.globCache = new Map()), provider.isIncluded(file, root) === cached))) continue;
            altered.push("the coverage provider's cached answer for " + (relativePath(file) ?? file) + " is not what its settings give");
            break;
          }
        } catch (error) {
          altered.push("the coverage provider's file filter failed: " + String(error?.message ?? error).split("\\n")[0]);
        } finally {
          provider.globCache = cache;
        }
      }
    }
    const settings = this.settingsNow();
    if (settings === null) altered.push("the coverage settings could not be read when the run ended");
    // The settings as coverage was generated (onCoverage), against the end's: set, then put back.
    if (this.coverageAtGenerate !== undefined && settings !== null && JSON.stringify(this.coverageAtGenerate) !== JSON.stringify(settings))
      altered.push("the coverage settings when coverage was generated were not the ones at the run's end (changed, then put back)");
    return { settings, altered };
  }
  onCoverage() {
    this.coverageAtGenerate = this.settingsNow();
  }
  // For each source file the patch changed, whether coverage measures it when a test loads it: the provider's
  // own file filter, with a fresh cache, as the file's path under the root as given or as resolved (vitest
  // names modules by their real path). True, failing closed, when there is no filter or it fails: a file
  // the report then lacks is one the tests never loaded.
  measures() {
    const provider = this.vitest?.coverageProvider;
    const out = {};
    for (const path of SOURCES) {
      let measured = true;
      if (provider && typeof provider.isIncluded === "function") {
        const cache = provider.globCache;
        try {
          measured = ROOTS.some((root) => {
            provider.globCache = new Map();
            return provider.isIncluded(slash(root + "/" + path)) === true;
          });
        } catch {
          measured = true;
        } finally {
          provider.globCache = cache;
        }
      }
      out[path] = measured;
    }
    return out;
  }
  // The settings as the coverage provider holds them now (the gate's own runner left out), or null.
  settingsNow() {
    try {
      return coverageSettings(this.vitest, this.vitest?.coverageProvider?.options ?? this.vitest?.config?.coverage, [RUNNER]);
    } catch {
      return null;
    }
  }
  onTestRunEnd(modules, errors, reason) {
    if (!NONCE || !KEY || !RECORD) return;
    const collected = [], deselected = [], tests = [], collection = [];
    const seen = new Set();
    for (const module of modules) {
      const file = relativePath(module.moduleId) ?? module.moduleId;
      for (const error of module.errors()) {
        collection.push({ id: file, scope: "collection", made: "failed", logged: "failed", message: String(error?.message ?? error).split("\\n")[0] });
      }
      for (const test of module.children.allTests()) {
        const id = file + SEP + idName(test.fullName);
        collected.push(id);
        seen.add(id);
        const views = test.meta().proofgate ?? {};
        if (views.deselected) {
          deselected.push(id);
          continue;
        }
        const state = test.result().state;
        let logged = LOGGED[state];
        let loggedXfail;
        if (views.xfail && logged === "passed") {
          logged = "skipped";
          loggedXfail = views.xfail;
        }
        const outcome = loggedXfail ? "xfailed" : logged ?? "unknown";
        const phase = { when: "call", raised: views.raised, exception: views.exception, made: views.made, final: views.final, final_xfail: views.xfail, logged, logged_xfail: loggedXfail };
        if (logged === "failed") phase.message = String(test.result().errors?.[0]?.message ?? "").split("\\n")[0];
        tests.push({ id, outcome, phases: [phase] });
      }
    }
    // A leased test the run never collected: its deselection cannot be shown.
    for (const id of LEASED) if (!seen.has(id)) collection.push({ id, scope: "collection", made: "failed", logged: "failed", message: "the leased test was not collected by the proof run" });
    for (const error of errors ?? []) collection.push({ id: "(run)", scope: "collection", made: "failed", logged: "failed", message: String(error?.message ?? error).split("\\n")[0] });
    const payload = JSON.parse(JSON.stringify({
      format: ${json(PROOF_RUN_RECORD_FORMAT)},
      version: ${PROOF_RUN_RECORD_VERSION},
      plugin: ${json(PROOF_PLUGIN_VERSION)},
      nonce: NONCE,
      pytest: "vitest " + (this.vitest?.version ?? "?"),
      python: { executable: process.execPath, version: process.version, implementation: "node", safe_path: false },
      root: ROOT,
      rootdir: this.vitest?.config?.root ?? ROOT,
      // The ids' files are the root's paths (relativePath), whatever vitest's own root is.
      rootdir_from_root: ".",
      root_from_rootdir: ".",
      args: process.argv.slice(2),
      addopts: { ini: [], env: "" },
      inifile: null,
      sys_path: [],
      exitstatus: reason === "passed" && collection.length === 0 ? 0 : 1,
      collected,
      deselected: { proofgate: deselected, other: [] },
      tests,
      collection,
      audit: false,
      files: [],
      patched: [],
      hooks: [],
      guard: {},
      plugins: [],
      shadowed: [],
      replaced: [],
      vitest_coverage: this.coverage ?? null,
      vitest_coverage_end: this.coverageAtEnd(),
      vitest_measures: this.measures(),
    }));
    const signature = createHmac("sha256", Buffer.from(KEY, "hex")).update(Buffer.from(canonical(payload), "ascii")).digest("hex");
    mkdirSync(dirname(RECORD), { recursive: true });
    writeFileSync(RECORD, JSON.stringify({ ...payload, signature }));
  }
}
`;
}

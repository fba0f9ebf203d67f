// vitest's coverage settings compared by meaning (docs/vitest.md#unledgered-freezes): what decides which
// files @vitest/coverage-v8 (or Istanbul) measures, as vitest resolved it. The head's come from the proof
// run's signed record, the base's from the base's own proof command in its worktree (a reporter that
// reads them and ends the run before any test); both are read by the same code, so a setting written in
// another file, spelled another way or set on the command line compares equal. A loosening is the twin of
// coverage.py's: `coverage_exclusions_added`, needing `Gate-Change: human`.
import type { CoverageChange } from "../python/coverage-config.js";
import { VITEST_SETTINGS_FORMAT } from "./vitest.js";
import type { GateIssue } from "../common/errors.js";

/** vitest's resolved coverage settings, paths under the root repository-relative. */
export interface VitestCoverageSettings {
  /** `v8`, `istanbul` or `custom`. */
  provider: string;
  /** A custom provider's module (`provider: "custom"`), or null. */
  customProviderModule: string | null;
  /** `coverage.include`, or null when unset (every file the tests load is measured). */
  include: string[] | null;
  /** The project's `coverage.exclude` (the entries vitest appends itself left out: see setupFiles). */
  exclude: string[];
  excludeAfterRemap: boolean;
  /** `coverage.changed`: measure only the files changed since this git ref (`"true"`: uncommitted), or null. */
  changed: string | null;
  allowExternal: boolean;
  ignoreClassMethods: string[];
  /**
   * vitest's setup files, which it never measures, each with whether the rest of the settings would
   * measure it (vitest's own matcher; true when the provider has none).
   */
  setupFiles: { path: string; measured: boolean }[];
  /** The config file vitest read, repository-relative, or null. */
  configFile: string | null;
  /** The repository's files the config file imports (vite's `configFileDependencies`), sorted. */
  configDependencies: string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** Reads the settings as a reporter wrote them (snake_case keys); a string says what is wrong. */
export function readVitestCoverageSettings(v: unknown, at: string): VitestCoverageSettings | string {
  if (!isObject(v)) return `${at} is not an object`;
  const str = (k: string): string | undefined => (typeof v[k] === "string" ? (v[k] as string) : undefined);
  const nullableStr = (k: string): string | null | undefined => (v[k] === null ? null : str(k));
  const provider = str("provider");
  if (provider === undefined) return `${at}.provider is not a string`;
  const customProviderModule = nullableStr("custom_provider_module");
  if (customProviderModule === undefined) return `${at}.custom_provider_module is not a string or null`;
  const include = v.include === null ? null : isStrings(v.include) ? v.include : undefined;
  if (include === undefined) return `${at}.include is not a list of strings or null`;
  if (!isStrings(v.exclude)) return `${at}.exclude is not a list of strings`;
  if (!isStrings(v.ignore_class_methods)) return `${at}.ignore_class_methods is not a list of strings`;
  if (typeof v.exclude_after_remap !== "boolean") return `${at}.exclude_after_remap is not a boolean`;
  const changed = nullableStr("changed");
  if (changed === undefined) return `${at}.changed is not a string or null`;
  if (typeof v.allow_external !== "boolean") return `${at}.allow_external is not a boolean`;
  const setup = v.setup_files;
  if (
    !Array.isArray(setup) ||
    !setup.every((f) => isObject(f) && typeof f.path === "string" && typeof f.measured === "boolean")
  )
    return `${at}.setup_files is not a list of {path, measured}`;
  const configFile = nullableStr("config_file");
  if (configFile === undefined) return `${at}.config_file is not a string or null`;
  if (!isStrings(v.config_dependencies)) return `${at}.config_dependencies is not a list of strings`;
  return {
    provider,
    customProviderModule,
    include,
    exclude: v.exclude,
    excludeAfterRemap: v.exclude_after_remap,
    changed,
    allowExternal: v.allow_external,
    ignoreClassMethods: v.ignore_class_methods,
    setupFiles: (setup as Json[]).map((f) => ({ path: f.path as string, measured: f.measured as boolean })),
    configFile,
    configDependencies: v.config_dependencies,
  };
}

/** The settings file the base's reporter wrote, checked against this check's nonce. */
export function parseVitestSettingsFile(
  text: string,
  file: string,
  nonce: string,
): { settings: VitestCoverageSettings; errors?: undefined } | { settings?: undefined; errors: GateIssue[] } {
  const fail = (message: string) => ({
    errors: [
      {
        code: "run_record_invalid" as const,
        file,
        message,
        fix: "run the base's [commands] proof with `--reporter=$PROOFGATE_VITEST_REPORTER`, as the proof run does",
      },
    ],
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail("the base's vitest settings are not JSON");
  }
  if (!isObject(parsed) || parsed.format !== VITEST_SETTINGS_FORMAT)
    return fail("the base's vitest settings are not proofgate's");
  if (parsed.nonce !== nonce) return fail("the base's vitest settings are not this check's (another nonce)");
  const settings = readVitestCoverageSettings(parsed.coverage, "coverage");
  return typeof settings === "string" ? fail(`the base's vitest settings are malformed: ${settings}`) : { settings };
}

const quote = (s: string): string => JSON.stringify(s);

/**
 * What the head's settings measure less than the base's, each a loosening: an `exclude` pattern or an
 * `ignoreClassMethods` entry added; `include` set where it was unset, or a pattern of it removed; the
 * provider (or a custom provider's module) changed; `changed` set (only changed files measured);
 * `excludeAfterRemap` turned on; `allowExternal` turned
 * off; a file of the base's that the settings would measure made a setup file (vitest never measures
 * one). Reordering, a pattern removed from `exclude`, `include` unset (every loaded file), a new setup file
 * (its code is the patch's, not code the base measured) are no change. `head` null: the proof run's
 * reporter could not read them, which counts as a change (fail closed). `existedAtBase` says whether a
 * path was a file of the base (without it, every path was: fail closed).
 */
export function diffVitestCoverage(
  base: VitestCoverageSettings,
  head: VitestCoverageSettings | null,
  existedAtBase: (path: string) => boolean = () => true,
): CoverageChange[] {
  const file = head?.configFile ?? base.configFile ?? "vitest.config";
  const change = (key: string, message: string, item?: string, setting = `coverage.${key}`): CoverageChange => ({
    kind: "loosening",
    key: `vitest:${setting}`,
    item,
    message: `vitest's ${setting} ${message}`,
    file,
  });
  if (head === null)
    return [change("settings", "could not be read in the proof run, so they cannot be compared with the base's")];
  const out: CoverageChange[] = [];
  if (head.provider !== base.provider)
    out.push(
      change(
        "provider",
        `changed from ${quote(base.provider)} to ${quote(head.provider)}: another tool decides what counts as run`,
      ),
    );
  else if (head.customProviderModule !== base.customProviderModule)
    out.push(
      change(
        "customProviderModule",
        `changed to ${quote(head.customProviderModule ?? "(none)")}: another module decides what counts as run`,
      ),
    );
  if (head.include !== null) {
    if (base.include === null)
      out.push(
        change(
          "include",
          `is set (${head.include.map(quote).join(", ")}): a file it does not match is no longer measured`,
        ),
      );
    else
      for (const pattern of base.include)
        if (!head.include.includes(pattern))
          out.push(
            change("include", `removes ${quote(pattern)}: the files it matched are no longer measured`, pattern),
          );
  }
  const baseExclude = new Set(base.exclude);
  for (const pattern of new Set(head.exclude))
    if (!baseExclude.has(pattern))
      out.push(change("exclude", `adds ${quote(pattern)}: the files it matches are no longer measured`, pattern));
  const baseIgnored = new Set(base.ignoreClassMethods);
  for (const name of new Set(head.ignoreClassMethods))
    if (!baseIgnored.has(name))
      out.push(change("ignoreClassMethods", `adds ${quote(name)}: those methods are no longer measured`, name));
  const baseSetup = new Set(base.setupFiles.map((f) => f.path));
  for (const setup of head.setupFiles)
    if (setup.measured && !baseSetup.has(setup.path) && existedAtBase(setup.path))
      out.push(
        change(
          "setupFiles",
          `adds ${quote(setup.path)}, a file of the base's that coverage would measure: vitest never measures a setup file`,
          setup.path,
          "setupFiles",
        ),
      );
  if (head.changed !== null && head.changed !== base.changed)
    out.push(
      change(
        "changed",
        `is set (${quote(head.changed)}): only the files changed since then are measured, the rest leave the report`,
      ),
    );
  if (head.excludeAfterRemap && !base.excludeAfterRemap)
    out.push(change("excludeAfterRemap", "is turned on: exclude now also drops the files source maps lead to"));
  if (!head.allowExternal && base.allowExternal)
    out.push(change("allowExternal", "is turned off: files outside the project's root are no longer measured"));
  return out;
}

/**
 * The head's settings over the whole proof run against the base's. `config`: what the settings read before
 * any test (`start`) measure less than the base's (what a config file, a module it imports or the command
 * line set). `duringRun`: what the settings read when the run ended (`end`, from the coverage provider's own
 * options) measure less besides, and, when the two readings differ or the provider's filter was replaced or
 * bypassed during the run, that too: code that ran after vitest read its config (a globalSetup file, a
 * plugin, another reporter) changed what is measured. `end` undefined (no second reading) fails closed.
 */
export function diffVitestCoverageRun(
  base: VitestCoverageSettings,
  start: VitestCoverageSettings | null,
  end: { settings: VitestCoverageSettings | null; altered: readonly string[] } | undefined,
  existedAtBase?: (path: string) => boolean,
): { config: CoverageChange[]; duringRun: CoverageChange[] } {
  const config = diffVitestCoverage(base, start, existedAtBase);
  const file = start?.configFile ?? base.configFile ?? "vitest.config";
  const during = (message: string, item?: string): CoverageChange => ({
    kind: "loosening",
    key: "vitest:coverage.duringRun",
    item,
    message: `vitest's coverage settings ${message}`,
    file,
  });
  if (end === undefined) return { config, duringRun: [during("were not read again when the proof run ended")] };
  const duringRun: CoverageChange[] = [];
  const seen = new Set(config.map((c) => `${c.key}\0${c.item ?? ""}`));
  for (const change of diffVitestCoverage(base, end.settings, existedAtBase))
    if (!seen.has(`${change.key}\0${change.item ?? ""}`))
      duringRun.push({ ...change, message: `${change.message} (set while the tests ran)` });
  for (const what of end.altered)
    duringRun.push(during(`were bypassed while the tests ran: ${what} after vitest read its config`, what));
  if (end.altered.length === 0 && start !== null && end.settings !== null && !sameSettings(start, end.settings))
    duringRun.push(
      during(
        "changed while the tests ran: code that ran after vitest read its config (a globalSetup file, a plugin, another reporter) changed them",
      ),
    );
  return { config, duringRun };
}

function sameSettings(a: VitestCoverageSettings, b: VitestCoverageSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The files whose change may change vitest's resolved settings: its config files (`vitest.config.*`,
 * `vite.config.*`, `vitest.workspace.*`, `vitest.projects.*`) and `package.json` (its scripts run the
 * proof command). A config can import any module; when no commit touched one of these, every commit that
 * changed code answers for a changed setting.
 */
export function isVitestConfigPath(path: string): boolean {
  return /(?:^|\/)(?:(?:vitest|vite)\.(?:config|workspace|projects)(?:\.[^/]*)?\.[cm]?[jt]s|vitest\.workspace\.json|package\.json)$/.test(
    path,
  );
}

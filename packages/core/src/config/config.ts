import { parse as parseToml } from "smol-toml";
import type { GateIssue } from "../common/errors.js";
import { normalizeRepoPath } from "../common/repo-path.js";
import { DEFAULT_PROTECTED_SECTIONS, parseSectionSpec } from "../python/protect-sections.js";

export { normalizeRepoPath };

/** The human trailers, by what they approve. Teams may name them otherwise in `[trailers]`. */
export interface TrailerKeys {
  freezeLease: string;
  fixtureLock: string;
  propertySeeds: string;
  gateChange: string;
  /** Tests removed from the universe or newly skipped (docs/reasons.md#tests_removed). */
  testRemoval: string;
}

/** `proofgate.toml`: the policy knobs. Every key is optional; the defaults are the article's. */
export interface GateConfig {
  file: string;
  /** `maxLeaseDays`: the longest a lease may run, from its `created` (or today) to its `expires`. */
  ledger: { path: string; maxLeaseDays?: number | undefined };
  /** `baseCollected`: the base's universe, written by a CI step that collected the base (check without --run). */
  universe: { collected: string[]; baseCollected: string[] };
  coverage: {
    reports: string[];
    shards?: number | undefined;
    /**
     * Single-run mode: coverage.py's `.coverage` data files of a `--cov-context=test` run, one per CI shard
     * (`contexts = ".coverage"` is one); `reports` then lists each one's `coverage json`, in the same order.
     */
    contexts?: string[] | undefined;
    /** Rerun mode: a full run's report (every test, frozen included), for the raw figure. */
    fullReport?: string | undefined;
    minProven: number;
    /** The floor for proven patch coverage (`patch_unproven`); unset: shown, not enforced. */
    minPatchProven?: number | undefined;
    /** Percentage points proven coverage may fall below the base's proven figure; undefined: off. */
    maxDrop?: number | undefined;
    /** The base pipeline's gate report (a CI artifact, never a committed file): the base's proven figure. */
    baseReport?: string | undefined;
  };
  /** `baseJunit`: the base's results for the tests skipped at head; `maxNewSkips`: unapproved new skips allowed. */
  results: { junit: string[]; maxUnledgeredSkips?: number | undefined; baseJunit: string[]; maxNewSkips: number };
  fixtures: { enabled: boolean; paths: string[]; lock: string; allowSymlinks: boolean; allowSpecialNames: boolean };
  /**
   * `tests`: folders (or files) of property tests, judged with the seeds (`property_weakened`).
   * `judgeTests`: the property-test rule (`property_weakened`); unset, it follows `enabled` as written.
   */
  properties: { enabled: boolean; seeds: string[]; results: string[]; tests: string[]; judgeTests: boolean };
  /**
   * `humanSignatures`: "required" counts a human trailer only on a commit whose signature verifies against
   * `allowedSigners` (an SSH allowed-signers file, read at the base) or that the platform verified.
   */
  agents: { patterns: string[]; humanSignatures: HumanSignatures; allowedSigners?: string | undefined };
  /**
   * Protected paths: `paths` (globs; any change), `sections` (files or sections compared by meaning) and
   * `commands` (the files the [commands] invoke).
   */
  protect: { paths: string[]; sections: string[]; commands: boolean };
  /** The measurement signal: coverage.py's configuration, exclusion pragmas, and source the proof run did not measure. */
  measurement: { enabled: boolean; exempt: string[] };
  trailers: TrailerKeys;
  commands: {
    collect?: string | undefined;
    proof?: string | undefined;
    properties?: string | undefined;
    /**
     * Runs once in the base's worktree before the base's steps (`check --run`): installs and builds the
     * base's own code there (`pnpm install --frozen-lockfile --prefer-offline && pnpm build`), so the base's
     * tests import the base's packages, not the work tree's. Set, the work tree's `node_modules` is not
     * linked into the worktree.
     */
    baseSetup?: string | undefined;
    /**
     * The test runner the commands run (`pytest` or `vitest`): its ids, deselection and run record. Unset:
     * the universe's format says (`vitest list --json` output is vitest's).
     */
    runner?: "pytest" | "vitest" | undefined;
    /** The proof and property steps run pytest with proofgate's plugin and must write a signed run record. */
    record: boolean;
    /**
     * `check --run`: the head's collect step starts with the proof run instead of before it (the proof run's
     * deselection is planned on the ledger alone; the universe is judged once both ended). pytest only.
     */
    collectBesideProof: boolean;
    /** The steps run with PYTHONSAFEPATH=1 (Python 3.11+: the work tree is not first on sys.path). */
    safePath: boolean;
    /**
     * Seconds each step may run before its whole process group is stopped (SIGTERM, then SIGKILL) and the
     * gate exits 2 (`command_timeout`); 0: no limit.
     */
    timeout: number;
  };
  /**
   * `stamps`: the files `proofgate record` (and `check --run`) write, binding evidence files to the commit that
   * produced them; `bound`: `check` reads only evidence a stamp binds to the commit it judges (false: the opt-out).
   */
  evidence: { stamps: string[]; bound: boolean };
  /**
   * `timeout`: seconds publishing (check runs, comments, statuses, annotations) may take in all before it is
   * stopped; the decision and the exit code stand either way.
   */
  publish: { timeout: number };
}

/** `[agents] human_signatures`: whether a human trailer needs a verified signature on its commit. */
export type HumanSignatures = "off" | "required";

/**
 * Paths a patch may not touch without `Gate-Change: human` (docs/contract.md §10, §13): the gate's config,
 * the CI's, and every `conftest.py` (its hooks decide what pytest collects and reports).
 */
export const DEFAULT_PROTECTED_PATHS = [
  "proofgate.toml",
  ".github/workflows/**",
  ".gitlab-ci.yml",
  ".buildkite/**",
  "**/conftest.py",
];

/** `[commands] timeout` unset: half an hour per step, so a hung test never holds a merge queue for the CI's own limit. */
export const DEFAULT_COMMAND_TIMEOUT = 1800;
/** The longest `[commands] timeout`: six hours, the longest job GitHub Actions runs (a CI stops a longer one first). */
export const MAX_COMMAND_TIMEOUT = 21600;

/** `[publish] timeout` unset: a minute for every API call of publishing together, retries included. */
export const DEFAULT_PUBLISH_TIMEOUT = 60;
/** The longest `[publish] timeout`: an hour. */
export const MAX_PUBLISH_TIMEOUT = 3600;

/** After this many errors in proofgate.toml, the remaining tables are counted, not checked. */
const MAX_CONFIG_ERRORS = 20;

/** Python files the proof run need not measure (`[measurement] exempt`): packaging and task files, the docs' config. */
export const DEFAULT_MEASUREMENT_EXEMPT = ["setup.py", "noxfile.py", "docs/conf.py"];

/**
 * The package managers' files that load code into every process they start, the test runner's included:
 * `node-options` in `.npmrc` (npm, pnpm), `nodeOptions` in `pnpm-workspace.yaml` (`--import=./x.mjs` runs before
 * vitest and its reporter, and can rewrite the coverage report as the process exits), yarn's committed release
 * and plugins and its Plug'n'Play loader. Protected whatever `[protect] paths` says, as conftest.py is for pytest.
 */
export const RUNNER_LOADER_PATHS: readonly string[] = Object.freeze([
  "**/.npmrc",
  "**/pnpm-workspace.yaml",
  "**/.yarnrc",
  "**/.yarnrc.yml",
  ".yarn/releases/**",
  ".yarn/plugins/**",
  "**/.pnp.cjs",
  "**/.pnp.loader.mjs",
]);

/**
 * The paths that are protected in fact: `[protect] paths`, always the config itself, and the package managers'
 * files that load code into the runner (`RUNNER_LOADER_PATHS`). A team may protect more, but a config that stopped
 * protecting itself would let the next agent patch rewrite the policy (turn a signal off, add an agent pattern's
 * exception) and be judged by the old one.
 */
export function protectedPaths(
  config: Pick<GateConfig, "protect"> & { agents?: Pick<GateConfig["agents"], "allowedSigners"> },
): string[] {
  // The allowed signers decide who is human: a patch that adds its own key to them needs a verified human.
  const signers = config.agents?.allowedSigners;
  return [
    ...new Set(["proofgate.toml", ...(signers ? [signers] : []), ...config.protect.paths, ...RUNNER_LOADER_PATHS]),
  ];
}

/** The configuration when `proofgate.toml` is absent or empty. */
export function defaultConfig(agentPatterns: readonly string[], file = "proofgate.toml"): GateConfig {
  return {
    file,
    ledger: { path: "freeze.toml" },
    universe: { collected: ["collected.txt"], baseCollected: [] },
    coverage: { reports: ["proven_coverage.json"], minProven: 70 },
    results: { junit: [], baseJunit: [], maxNewSkips: 0 },
    fixtures: {
      enabled: true,
      paths: ["tests/fixtures"],
      lock: "fixtures.lock",
      allowSymlinks: false,
      allowSpecialNames: false,
    },
    properties: {
      enabled: true,
      seeds: ["tests/properties/seeds"],
      results: [],
      tests: ["tests/properties"],
      judgeTests: true,
    },
    agents: { patterns: [...agentPatterns], humanSignatures: "off" },
    protect: { paths: [...DEFAULT_PROTECTED_PATHS], sections: [...DEFAULT_PROTECTED_SECTIONS], commands: true },
    measurement: { enabled: true, exempt: [...DEFAULT_MEASUREMENT_EXEMPT] },
    trailers: {
      freezeLease: "Freeze-Lease",
      fixtureLock: "Fixture-Lock",
      propertySeeds: "Property-Seeds",
      gateChange: "Gate-Change",
      testRemoval: "Test-Removal",
    },
    commands: { record: true, collectBesideProof: false, safePath: false, timeout: DEFAULT_COMMAND_TIMEOUT },
    evidence: { stamps: ["proofgate-evidence.json"], bound: true },
    publish: { timeout: DEFAULT_PUBLISH_TIMEOUT },
  };
}

/** `paths`: one path as a string, or a list of them (never empty); read as a list. */
type Kind = "string" | "strings" | "paths" | "int" | "percent" | "bool";

/** Every table and key, with its type: the one place the schema lives. */
export const CONFIG_SCHEMA: Record<string, Record<string, Kind>> = {
  ledger: { path: "string", max_lease_days: "int" },
  universe: { collected: "strings", base_collected: "strings" },
  coverage: {
    reports: "strings",
    shards: "int",
    contexts: "paths",
    full_report: "string",
    min_proven: "percent",
    min_patch_proven: "percent",
    max_drop: "percent",
    base_report: "string",
  },
  results: { junit: "strings", max_unledgered_skips: "int", base_junit: "strings", max_new_skips: "int" },
  fixtures: { enabled: "bool", paths: "strings", lock: "string", allow_symlinks: "bool", allow_special_names: "bool" },
  properties: { enabled: "bool", seeds: "strings", results: "strings", tests: "strings", judge_tests: "bool" },
  agents: { patterns: "strings", human_signatures: "string", allowed_signers: "string" },
  protect: { paths: "strings", sections: "strings", commands: "bool" },
  measurement: { enabled: "bool", exempt: "strings" },
  trailers: {
    freeze_lease: "string",
    fixture_lock: "string",
    property_seeds: "string",
    gate_change: "string",
    test_removal: "string",
  },
  commands: {
    collect: "string",
    proof: "string",
    properties: "string",
    base_setup: "string",
    runner: "string",
    record: "bool",
    collect_beside_proof: "bool",
    safe_path: "bool",
    timeout: "int",
  },
  evidence: { stamps: "strings", bound: "bool" },
  publish: { timeout: "int" },
};

/** A config, or everything wrong with the file. */
export interface ConfigParseResult {
  config?: GateConfig | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
  /** The keys the file sets (`fixtures.enabled`, ...); the others are defaults. */
  given?: string[] | undefined;
}

/**
 * Parses and validates `proofgate.toml`. Strict: an unknown table or key is an error that names the
 * known ones, and every value must have its type. Pure: the caller reads the file.
 */
export function parseConfig(text: string, file: string, agentPatterns: readonly string[]): ConfigParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const config = defaultConfig(agentPatterns, file);
  if (text.trim() === "") return { config, errors, warnings, given: [] };
  let data: Record<string, unknown>;
  try {
    data = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch (error) {
    const line = typeof (error as { line?: unknown }).line === "number" ? (error as { line: number }).line : undefined;
    const first =
      String((error as Error).message)
        .split("\n")[0]
        ?.replace(/^Invalid TOML document: /, "") ?? "invalid TOML";
    return {
      errors: [{ code: "config_invalid", file, line, message: `not valid TOML: ${first}`, fix: "see https://toml.io" }],
      warnings,
    };
  }
  const lines = text.split(/\r?\n/);
  // Table and key names come from the file: escaped, so `["a("]` is an unknown table, not a bad regex.
  const escape = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const lineOf = (tableName: string, keyName?: string): number | undefined => {
    const table = escape(tableName);
    const key = keyName === undefined ? undefined : escape(keyName);
    const headerRe = new RegExp(`^\\s*\\[\\s*${table}\\s*\\]`);
    const header = lines.findIndex((l) => headerRe.test(l));
    if (header < 0 && key === undefined) {
      // No `[table]` header: a top-level `table = ...` (a key outside any table, or a table written inline).
      const firstHeader = lines.findIndex((l) => /^\s*\[/.test(l));
      const topRe = new RegExp(`^\\s*["']?${table}["']?\\s*[=.]`);
      const top = lines.findIndex((l, i) => (firstHeader < 0 || i < firstHeader) && topRe.test(l));
      return top < 0 ? undefined : top + 1;
    }
    if (key === undefined || header < 0) return header < 0 ? undefined : header + 1;
    const keyRe = new RegExp(`^\\s*["']?${key}["']?\\s*=`);
    for (let i = header + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
      if (keyRe.test(lines[i]!)) return i + 1;
    }
    return header + 1;
  };
  const values: Record<string, Record<string, unknown>> = {};
  // Each error looks its line up in the whole file: a file of thousands of unknown keys is cut short.
  let unchecked = 0;
  for (const [table, body] of Object.entries(data)) {
    if (errors.length >= MAX_CONFIG_ERRORS) {
      unchecked++;
      continue;
    }
    const keys = CONFIG_SCHEMA[table];
    if (!keys) {
      errors.push({
        code: "config_invalid",
        file,
        line: lineOf(table),
        message: `unknown table [${table}]`,
        fix: `the tables are ${Object.keys(CONFIG_SCHEMA)
          .map((t) => `[${t}]`)
          .join(", ")}`,
      });
      continue;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body) || body instanceof Date) {
      errors.push({
        code: "config_invalid",
        file,
        line: lineOf(table),
        message: `\`${table}\` must be a table`,
        fix: `write it as [${table}] with its keys below`,
      });
      continue;
    }
    values[table] = {};
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (errors.length >= MAX_CONFIG_ERRORS) {
        unchecked++;
        continue;
      }
      const kind = keys[key];
      const at = lineOf(table, key);
      if (!kind) {
        errors.push({
          code: "config_invalid",
          file,
          line: at,
          message: `unknown key \`${key}\` in [${table}]`,
          fix: `[${table}] has ${Object.keys(keys).join(", ")}`,
        });
        continue;
      }
      const problem = checkKind(value, kind);
      if (problem)
        errors.push({
          code: "config_invalid",
          file,
          line: at,
          message: `[${table}] ${key} ${problem}`,
          fix: FIX[kind].replaceAll("KEY", key),
        });
      else values[table]![key] = value;
    }
  }
  if (unchecked > 0)
    errors.push({
      code: "config_invalid",
      file,
      message: `... and ${unchecked} more key${unchecked === 1 ? "" : "s"} or table${unchecked === 1 ? "" : "s"} not checked after ${MAX_CONFIG_ERRORS} errors`,
      fix: "fix the errors above first",
    });
  if (errors.length > 0) return { errors, warnings };

  const v = (table: string, key: string): unknown => values[table]?.[key];
  const str = (table: string, key: string, fallback: string): string =>
    (v(table, key) as string | undefined) ?? fallback;
  const list = (table: string, key: string, fallback: string[]): string[] =>
    (v(table, key) as string[] | undefined) ?? fallback;
  const paths = (value: unknown): string[] | undefined =>
    value === undefined ? undefined : typeof value === "string" ? [value] : [...(value as string[])];
  const bool = (table: string, key: string, fallback: boolean): boolean =>
    (v(table, key) as boolean | undefined) ?? fallback;
  const d = config;
  const result: GateConfig = {
    file,
    ledger: {
      path: str("ledger", "path", d.ledger.path),
      maxLeaseDays: v("ledger", "max_lease_days") as number | undefined,
    },
    universe: {
      collected: list("universe", "collected", d.universe.collected),
      baseCollected: list("universe", "base_collected", d.universe.baseCollected),
    },
    coverage: {
      reports: list("coverage", "reports", d.coverage.reports),
      shards: v("coverage", "shards") as number | undefined,
      contexts: paths(v("coverage", "contexts")),
      fullReport: v("coverage", "full_report") as string | undefined,
      minProven: (v("coverage", "min_proven") as number | undefined) ?? d.coverage.minProven,
      minPatchProven: v("coverage", "min_patch_proven") as number | undefined,
      maxDrop: v("coverage", "max_drop") as number | undefined,
      baseReport: v("coverage", "base_report") as string | undefined,
    },
    results: {
      junit: list("results", "junit", d.results.junit),
      maxUnledgeredSkips: v("results", "max_unledgered_skips") as number | undefined,
      baseJunit: list("results", "base_junit", d.results.baseJunit),
      maxNewSkips: (v("results", "max_new_skips") as number | undefined) ?? d.results.maxNewSkips,
    },
    fixtures: {
      enabled: bool("fixtures", "enabled", true),
      paths: list("fixtures", "paths", d.fixtures.paths),
      lock: str("fixtures", "lock", d.fixtures.lock),
      allowSymlinks: bool("fixtures", "allow_symlinks", false),
      allowSpecialNames: bool("fixtures", "allow_special_names", false),
    },
    properties: {
      enabled: bool("properties", "enabled", true),
      seeds: list("properties", "seeds", d.properties.seeds),
      results: list("properties", "results", d.properties.results),
      tests: list("properties", "tests", d.properties.tests),
      // Unset: as before the key existed, `enabled = false` turns the property-test rule off with the seeds.
      judgeTests: bool("properties", "judge_tests", bool("properties", "enabled", true)),
    },
    agents: {
      patterns: list("agents", "patterns", d.agents.patterns),
      humanSignatures: (v("agents", "human_signatures") as HumanSignatures | undefined) ?? "off",
      allowedSigners: v("agents", "allowed_signers") as string | undefined,
    },
    protect: {
      paths: list("protect", "paths", d.protect.paths),
      sections: list("protect", "sections", d.protect.sections),
      commands: bool("protect", "commands", true),
    },
    measurement: {
      enabled: bool("measurement", "enabled", true),
      exempt: list("measurement", "exempt", d.measurement.exempt),
    },
    trailers: {
      freezeLease: str("trailers", "freeze_lease", d.trailers.freezeLease),
      fixtureLock: str("trailers", "fixture_lock", d.trailers.fixtureLock),
      propertySeeds: str("trailers", "property_seeds", d.trailers.propertySeeds),
      gateChange: str("trailers", "gate_change", d.trailers.gateChange),
      testRemoval: str("trailers", "test_removal", d.trailers.testRemoval),
    },
    commands: {
      collect: v("commands", "collect") as string | undefined,
      proof: v("commands", "proof") as string | undefined,
      properties: v("commands", "properties") as string | undefined,
      baseSetup: v("commands", "base_setup") as string | undefined,
      runner: v("commands", "runner") as "pytest" | "vitest" | undefined,
      record: bool("commands", "record", true),
      collectBesideProof: bool("commands", "collect_beside_proof", false),
      safePath: bool("commands", "safe_path", false),
      timeout: (v("commands", "timeout") as number | undefined) ?? d.commands.timeout,
    },
    evidence: {
      stamps: list("evidence", "stamps", d.evidence.stamps),
      bound: bool("evidence", "bound", d.evidence.bound),
    },
    publish: { timeout: (v("publish", "timeout") as number | undefined) ?? d.publish.timeout },
  };
  // Paths that git judges (what a commit touched, what a revision holds) are compared as git writes
  // them: `./seeds` or `seeds/` would match no commit's path, and let a seed rewrite through.
  const gitPaths: [table: string, key: string, get: () => string[], set: (paths: string[]) => void][] = [
    ["ledger", "path", () => [result.ledger.path], ([p]) => (result.ledger.path = p!)],
    ["fixtures", "paths", () => result.fixtures.paths, (p) => (result.fixtures.paths = p)],
    ["fixtures", "lock", () => [result.fixtures.lock], ([p]) => (result.fixtures.lock = p!)],
    ["properties", "seeds", () => result.properties.seeds, (p) => (result.properties.seeds = p)],
    ["properties", "tests", () => result.properties.tests, (p) => (result.properties.tests = p)],
    [
      "agents",
      "allowed_signers",
      () => (result.agents.allowedSigners === undefined ? [] : [result.agents.allowedSigners]),
      ([p]) => (result.agents.allowedSigners = p),
    ],
  ];
  for (const [table, key, get, set] of gitPaths) {
    const normalized: string[] = [];
    for (const path of get()) {
      const repoPath = normalizeRepoPath(path);
      if (repoPath === undefined) {
        errors.push({
          code: "config_invalid",
          file,
          line: lineOf(table, key),
          message: `[${table}] ${key} ${JSON.stringify(path)} is not a path inside the repository`,
          fix: "write it relative to the repository root, without .. (e.g. tests/fixtures)",
        });
      } else normalized.push(repoPath);
    }
    set(normalized);
  }
  for (const spec of result.protect.sections) {
    if (parseSectionSpec(spec) === undefined)
      errors.push({
        code: "config_invalid",
        file,
        line: lineOf("protect", "sections"),
        message: `[protect] sections ${JSON.stringify(spec)} is not a path inside the repository, optionally followed by [section]`,
        fix: 'write "pytest.ini", "pyproject.toml [tool.pytest.ini_options]" or "setup.cfg [coverage:*]"',
      });
  }
  const signatures = v("agents", "human_signatures");
  if (signatures !== undefined && signatures !== "off" && signatures !== "required") {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("agents", "human_signatures"),
      message: `[agents] human_signatures ${JSON.stringify(signatures)} is not "off" or "required"`,
      fix: 'write human_signatures = "required" (a human trailer counts only on a verified commit) or "off"',
    });
  }
  if (result.ledger.maxLeaseDays === 0) {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("ledger", "max_lease_days"),
      message: "[ledger] max_lease_days = 0 would make every lease too long",
      fix: "write max_lease_days = 30 (a whole number of days, at least 1), or leave it out; to allow no lease at all, set max_active_leases = 0 in the ledger",
    });
  }
  const runner = v("commands", "runner");
  if (runner !== undefined && runner !== "pytest" && runner !== "vitest") {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("commands", "runner"),
      message: `[commands] runner ${JSON.stringify(runner)} is not "pytest" or "vitest"`,
      fix: 'write runner = "vitest" for a vitest project, "pytest" (or leave it out) for a pytest one; another runner: record = false, its JUnit XML as the universe (docs/config.md)',
    });
  }
  if (result.commands.collectBesideProof)
    errors.push(...collectBesideIssues(result, lineOf("commands", "collect_beside_proof")));
  if (result.commands.timeout > MAX_COMMAND_TIMEOUT) {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("commands", "timeout"),
      message: `[commands] timeout = ${result.commands.timeout} is more than ${MAX_COMMAND_TIMEOUT} seconds (six hours)`,
      fix: `write a number of seconds from 1 to ${MAX_COMMAND_TIMEOUT} (default ${DEFAULT_COMMAND_TIMEOUT}), or 0 for no limit`,
    });
  }
  if (result.publish.timeout < 1 || result.publish.timeout > MAX_PUBLISH_TIMEOUT) {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("publish", "timeout"),
      message: `[publish] timeout = ${result.publish.timeout} is not from 1 to ${MAX_PUBLISH_TIMEOUT} seconds`,
      fix: `write a number of seconds from 1 to ${MAX_PUBLISH_TIMEOUT} (default ${DEFAULT_PUBLISH_TIMEOUT})`,
    });
  }
  if (result.agents.patterns.length === 0) {
    errors.push({
      code: "config_invalid",
      file,
      line: lineOf("agents", "patterns"),
      message: "[agents] patterns is empty: every commit would count as a human's",
      fix: 'keep at least "*[bot]*"',
    });
  }
  for (const [table, key] of [
    ["fixtures", "allow_symlinks"],
    ["fixtures", "allow_special_names"],
  ] as const) {
    if (v(table, key) === true)
      warnings.push({
        code: "config_invalid",
        file,
        line: lineOf(table, key),
        message: `[${table}] ${key} = true loosens the fixture lock`,
      });
  }
  // A signal turned off is shown in its row of every report (`off`, and why), not as a warning each run.
  if (v("protect", "commands") === false)
    warnings.push({
      code: "config_invalid",
      file,
      line: lineOf("protect", "commands"),
      message:
        "[protect] commands = false: the files the [commands] run (Makefile, tox.ini, scripts) are not protected",
    });
  // The opt-out of bound evidence: said in every report (this warning, and the policy row).
  if (v("evidence", "bound") === false)
    warnings.push({
      code: "config_invalid",
      file,
      line: lineOf("evidence", "bound"),
      message:
        "[evidence] bound = false: check reads the JUnit and coverage files without a stamp binding them to the commit judged; a file left from a run on another commit reads as this one's",
      fix: "run the tests through `proofgate record` (or check --run) and remove the key, in a human commit",
    });
  if (errors.length > 0) return { errors, warnings };
  const given = Object.entries(values).flatMap(([table, keys]) => Object.keys(keys).map((key) => `${table}.${key}`));
  return { config: result, errors, warnings, given };
}

/** `[commands] collect_beside_proof = true` needs a pytest collect and proof command with the run record. */
function collectBesideIssues(config: GateConfig, line: number | undefined): GateIssue[] {
  const issue = (message: string, fix: string): GateIssue => ({
    code: "config_invalid",
    file: config.file,
    line,
    message: `[commands] collect_beside_proof = true ${message}`,
    fix,
  });
  const out: GateIssue[] = [];
  const { collect, proof, record, runner } = config.commands;
  if (collect === undefined || proof === undefined)
    out.push(
      issue(
        "needs [commands] collect and proof: it runs the one beside the other",
        "add them, or remove collect_beside_proof",
      ),
    );
  if (!record)
    out.push(
      issue(
        "needs [commands] record = true: the record shows what the proof run deselected, planned before any collection",
        "remove record = false, or collect_beside_proof",
      ),
    );
  if (runner === "vitest")
    out.push(issue("is for pytest: vitest's proof run is planned on `vitest list`", "remove collect_beside_proof"));
  return out;
}

const FIX: Record<Kind, string> = {
  string: 'write KEY = "..."',
  strings: 'write KEY = ["...", "..."]',
  paths: 'write KEY = "..." (one file) or KEY = ["...", "..."] (one per shard)',
  int: "write KEY = 2 (a whole number)",
  percent: "write KEY = 70 (a percentage from 0 to 100)",
  bool: "write KEY = true or false",
};

function checkKind(value: unknown, kind: Kind): string | undefined {
  switch (kind) {
    case "string":
      return typeof value === "string" && value.trim() !== "" ? undefined : "must be a non-empty string";
    case "strings":
      return Array.isArray(value) && value.every((x) => typeof x === "string" && x.trim() !== "")
        ? undefined
        : "must be a list of non-empty strings";
    case "paths":
      return (typeof value === "string" && value.trim() !== "") ||
        (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === "string" && x.trim() !== ""))
        ? undefined
        : "must be a non-empty string or a non-empty list of non-empty strings";
    case "int":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
        ? undefined
        : "must be a whole number >= 0";
    case "percent":
      return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 100
        ? undefined
        : "must be a number from 0 to 100";
    case "bool":
      return typeof value === "boolean" ? undefined : "must be true or false";
  }
}

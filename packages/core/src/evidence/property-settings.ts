// The Hypothesis settings each property test ran with (docs/reasons.md#property_weakened): read by the proof
// plugin when the test is about to run (the head's property run) and by the base's property-ids plugin when
// the base's tests are collected, then compared: weaker at head than at the base is `property_weakened`,
// however it was done (a @settings through a helper, a profile, a fixture that swaps the settings object).
import { classifyCommit, formatIdentity, type Commit } from "../model/authorship.js";
import type { GateIssue } from "../common/errors.js";
import { jsonLines } from "../common/json-lines.js";
import type { CommitPaths, PatchPolicy } from "../patch/patch.js";
import type { Finding } from "../model/report.js";
import { changeAttributor, type FileRename } from "./test-changes.js";
import { ROOTDIR_IS_ROOT, testIdFile as fileOf, type TestIdPaths } from "../python/test-id-paths.js";

/**
 * Python: `_proofgate_hypothesis_settings(item)`, the settings a collected item runs with, or None when
 * it is no Hypothesis test (the last function of pytest-plugins/proofgate_proof_plugin.py). A `@given`
 * test carries its settings object (fixed when it was decorated, `settings.default` merged in then;
 * `_hypothesis_internal_use_settings` is what `wrapped_test` reads at each call); a rule-based state
 * machine's TestCase runs with its class's `settings`. Never raises.
 */
export { HYPOTHESIS_SETTINGS_PY } from "../pytest-plugins/generated.js";

/** One property test's effective Hypothesis settings, as the plugins record them. */
export interface PropertySettings {
  maxExamples: number;
  /** In microseconds; null: no deadline. */
  deadlineUs: number | null;
  phases: string[];
  derandomize: boolean;
  /** Whether an example database was set (false: `database=None`). */
  database: boolean;
  suppressHealthCheck: string[];
  statefulStepCount: number;
  /** A fixed seed: `@seed(...)` on the test, or pytest's `--hypothesis-seed`. */
  seeded: boolean;
  /** The profile loaded when it was read (`default` when none was): shown, not compared. */
  profile: string;
}

/** The settings by test id; an entry is an error when the plugin could not read them. */
export type PropertySettingsById = Record<string, PropertySettings | { error: string }>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads the plugins' `{test id: settings}` object; a string says what is malformed. */
export function readPropertySettings(value: unknown, at: string): PropertySettingsById | string {
  if (!isObject(value)) return `${at} is not an object`;
  const out: PropertySettingsById = {};
  for (const [id, v] of Object.entries(value)) {
    const where = `${at}[${JSON.stringify(id)}]`;
    if (!isObject(v)) return `${where} is not an object`;
    if (typeof v.error === "string") {
      out[id] = { error: v.error };
      continue;
    }
    const whole = (k: string): boolean => typeof v[k] === "number" && Number.isInteger(v[k]);
    const names = (k: string): boolean =>
      Array.isArray(v[k]) && (v[k] as unknown[]).every((s) => typeof s === "string");
    const flags = ["derandomize", "database", "seeded"].every((k) => typeof v[k] === "boolean");
    if (
      !whole("max_examples") ||
      !whole("stateful_step_count") ||
      !(v.deadline_us === null || whole("deadline_us")) ||
      !names("phases") ||
      !names("suppress_health_check") ||
      !flags ||
      typeof v.profile !== "string"
    )
      return `${where} is not a settings record (max_examples, deadline_us, phases, derandomize, database, suppress_health_check, stateful_step_count, seeded, profile)`;
    out[id] = {
      maxExamples: v.max_examples as number,
      deadlineUs: v.deadline_us as number | null,
      phases: v.phases as string[],
      derandomize: v.derandomize as boolean,
      database: v.database as boolean,
      suppressHealthCheck: v.suppress_health_check as string[],
      statefulStepCount: v.stateful_step_count as number,
      seeded: v.seeded as boolean,
      profile: v.profile as string,
    };
  }
  return out;
}

/** The base's property-ids plugin's settings file: one `{test id: settings}` object a line, one per pytest session. */
export function parsePropertySettingsFile(
  text: string,
  file: string,
): { settings?: PropertySettingsById | undefined; errors: GateIssue[] } {
  const settings: PropertySettingsById = {};
  for (const { line, value } of jsonLines(text)) {
    const read = readPropertySettings(value, "the line");
    if (typeof read === "string") {
      const issue: GateIssue = {
        code: "universe_invalid",
        file,
        line,
        message: `not the Hypothesis settings the gate's plugin writes (${read})`,
        fix: "run the base's property command through `proofgate check --run` and leave the plugin's files alone",
      };
      return { errors: [issue] };
    }
    Object.assign(settings, read);
  }
  return { settings, errors: [] };
}

/** One setting that is weaker at head than at the base, with both values as a reader would write them. */
export interface WeakerSetting {
  setting: string;
  base: string;
  head: string;
}

// Phases that only shape the report of a failure found otherwise (explain): dropping one finds no less.
const REPORT_ONLY_PHASES = new Set(["explain"]);
const ms = (us: number | null): string => (us === null ? "None" : `${us / 1000}ms`);
const names = (list: readonly string[]): string => (list.length === 0 ? "none" : list.join(", "));

/**
 * The settings that make the head's run of a property test find less than the base's: fewer examples,
 * fewer stateful steps, a phase dropped, a health check suppressed, derandomize or a fixed seed turned on,
 * the example database turned off, a deadline removed or made longer (slow code passes unseen).
 */
export function weakerSettings(base: PropertySettings, head: PropertySettings): WeakerSetting[] {
  const out: WeakerSetting[] = [];
  const add = (setting: string, b: string, h: string): number => out.push({ setting, base: b, head: h });
  if (head.maxExamples < base.maxExamples) add("max_examples", `${base.maxExamples}`, `${head.maxExamples}`);
  if (head.statefulStepCount < base.statefulStepCount)
    add("stateful_step_count", `${base.statefulStepCount}`, `${head.statefulStepCount}`);
  const dropped = base.phases.filter((p) => !head.phases.includes(p) && !REPORT_ONLY_PHASES.has(p));
  if (dropped.length > 0) add("phases", names(base.phases), `${names(head.phases)} (without ${dropped.join(", ")})`);
  const suppressed = head.suppressHealthCheck.filter((h) => !base.suppressHealthCheck.includes(h));
  if (suppressed.length > 0)
    add("suppress_health_check", names(base.suppressHealthCheck), names(head.suppressHealthCheck));
  if (head.derandomize && !base.derandomize) add("derandomize", "False", "True");
  if (head.seeded && !base.seeded) add("seed", "random", "fixed");
  if (!head.database && base.database) add("database", "set", "None");
  if (base.deadlineUs !== null && (head.deadlineUs === null || head.deadlineUs > base.deadlineUs))
    add("deadline", ms(base.deadlineUs), ms(head.deadlineUs));
  return out;
}

/** What the gate has for the comparison: the base's settings and the head's, and what the range touched. */
export interface PropertySettingsEvidence {
  base: { file: string; settings: PropertySettingsById };
  /** `ran`: the ids whose body ran at head (a call phase): one without settings there hid them, or lost @given. */
  head: { file: string; settings: PropertySettingsById; ran?: readonly string[] | undefined };
  touched: readonly CommitPaths[];
  renames: readonly FileRename[];
  collectionFiles: readonly string[];
}

const short = (sha: string): string => sha.slice(0, 12);
const MAX_LISTED = 10;

/**
 * `property_weakened` from the settings as they ran: each property test that ran at head and at the base
 * with weaker settings at head. As for property tests that stopped running, a weakening is approved when
 * every commit that touched the test's file (or the property command's files) is a human's with the seeds'
 * trailer, or, when none did (the settings came through a helper, a profile, a fixture), when a human's
 * commit in the range carries it. One finding per test file and unapproving commit.
 */
export function judgePropertySettings(
  evidence: PropertySettingsEvidence,
  context: { commits: readonly Commit[]; policy: PatchPolicy; paths?: TestIdPaths | undefined },
): { findings: Finding[]; compared: number; weakened: number } {
  const paths = context.paths ?? ROOTDIR_IS_ROOT;
  const key = context.policy.trailers.propertySeeds;
  const attribution = changeAttributor(evidence, context.commits, context.policy, key);
  const groups = new Map<string, { file: string; commit?: Commit | undefined; tests: string[] }>();
  const ran = new Set(evidence.head.ran ?? []);
  let compared = 0;
  let weakened = 0;
  for (const [id, base] of Object.entries(evidence.base.settings)) {
    const head = evidence.head.settings[id];
    if ("error" in base || (head === undefined && !ran.has(id))) continue;
    compared++;
    const what =
      head === undefined
        ? "ran at head as no Hypothesis test"
        : "error" in head
          ? `settings unreadable at head (${head.error})`
          : weakerSettings(base, head)
              .map((w) => `${w.setting} ${w.base} at the base, ${w.head} at head`)
              .join("; ");
    if (what === "") continue;
    weakened++;
    const idFile = fileOf(id);
    const file = paths.toRoot(idFile);
    const verdict = attribution(file);
    if (verdict.approved) continue;
    const unapproving = verdict.commits.filter((c) => !c.approved).map((c) => c.commit);
    for (const commit of unapproving.length > 0 ? unapproving : [undefined]) {
      const group = groups.get(`${commit?.sha ?? ""}\u0000${file}`) ?? { file, commit, tests: [] };
      group.tests.push(`${id.slice(idFile.length + 2)} (${what})`);
      groups.set(`${commit?.sha ?? ""}\u0000${file}`, group);
    }
  }
  const fix = `restore the settings the base runs them with (wherever they come from: a @settings, a helper, a profile, a fixture); a human who means to run them weaker does so in a commit with \`${key}: human\``;
  const findings = [...groups.values()].map((g): Finding => {
    const shown = g.tests.slice(0, MAX_LISTED).join("; ");
    const more = g.tests.length > MAX_LISTED ? `; and ${g.tests.length - MAX_LISTED} more` : "";
    const what = `${g.tests.length} property test(s) of ${g.file} ran with weaker Hypothesis settings than at the base: ${shown}${more}`;
    if (!g.commit)
      return {
        reason: "property_weakened",
        message: `${what}; no commit in the range touched ${g.file} (the settings came through code it imports), and no human commit carries \`${key}: human\``,
        file: g.file,
        fix,
      };
    const { agent, reasons } = classifyCommit(g.commit, context.policy.agentPatterns);
    const whose = agent
      ? `commit ${short(g.commit.sha)} is an agent's (${reasons.join("; ")})`
      : `commit ${short(g.commit.sha)} lacks \`${key}: human\``;
    return {
      reason: "property_weakened",
      message: `${what}; ${whose}`,
      file: g.file,
      commit: g.commit.sha,
      author: formatIdentity(g.commit.author),
      fix,
    };
  });
  return { findings, compared, weakened };
}

// The property suite's tests are judged with the seeds (docs/reasons.md#property_weakened): which files
// are property tests, and whether the base's property test ids still ran at head. Pure: the gate reads
// git, runs the base's property command with the plugin rendered here, and hands over what it read.
import type { Commit } from "../model/authorship.js";
import { pythonString } from "./deselect.js";
import { judgePropertySettings, type PropertySettingsById } from "./property-settings.js";
import { PROPERTY_IDS_PLUGIN_PY } from "../pytest-plugins/generated.js";
import { fillPythonSlots } from "../pytest-plugins/slots.js";
import type { GateIssue } from "../common/errors.js";
import { jsonLines } from "../common/json-lines.js";
import type { Lease } from "../ledger/ledger.js";
import type { CommitPaths, PatchPolicy } from "../patch/patch.js";
import type { Finding } from "../model/report.js";
import { changeAttributor, changeFindings, pairRenames, type FileRename, type TestChange } from "./test-changes.js";
import { ROOTDIR_IS_ROOT, testIdFile as fileOf, type TestIdPaths } from "../python/test-id-paths.js";

/** The name the base's property run loads its plugin by (`-p proofgate_property_ids`). */
export const PROPERTY_IDS_PLUGIN_MODULE = "proofgate_property_ids";

// `import hypothesis`, `import os, hypothesis.strategies as st`, `from hypothesis import given`, indented too.
const HYPOTHESIS_IMPORT =
  /^[ \t]*(?:from[ \t]+hypothesis(?:[ \t.]|$)|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*hypothesis(?:[ \t.,]|$))/m;

/** True when Python source imports hypothesis (the file holds property tests, wherever it lives). */
export function importsHypothesis(text: string): boolean {
  return HYPOTHESIS_IMPORT.test(text);
}

/**
 * A pytest plugin for the base's property run (src/pytest-plugins/proofgate_property_ids_plugin.py): it
 * records the ids left after every other plugin's collection hooks (the base's own deselection kept),
 * appends them to `idsFile` as one JSON list per session, and deselects them all, so nothing runs; "no
 * tests ran" is then its purpose, not a failure.
 */
export function renderPropertyIdsPlugin(idsFile: string, base: string, settingsFile?: string): string {
  return fillPythonSlots(
    PROPERTY_IDS_PLUGIN_PY,
    {
      text: { BASE: base.slice(0, 12) },
      values: {
        IDS_FILE: pythonString(idsFile),
        SETTINGS_FILE: settingsFile === undefined ? "None" : pythonString(settingsFile),
      },
    },
    "renderPropertyIdsPlugin",
  );
}

/** The ids the plugin wrote (one JSON list of strings a line, one line per pytest session), in order, once each. */
export function parsePropertyIds(text: string, file: string): { ids?: string[] | undefined; errors: GateIssue[] } {
  const ids = new Set<string>();
  for (const { line, value } of jsonLines(text)) {
    if (!Array.isArray(value) || !value.every((id): id is string => typeof id === "string")) {
      return {
        errors: [
          {
            code: "universe_invalid",
            file,
            line,
            message: "not a JSON list of test ids, as the gate's plugin writes them",
            fix: "run the base's property command through `proofgate check --run` and leave the plugin's file alone",
          },
        ],
      };
    }
    for (const id of value) ids.add(id);
  }
  return { ids: [...ids], errors: [] };
}

/** What the gate learned for the base's property ids (`check --run`). */
export interface PropertyIdEvidence {
  /**
   * The ids the base's `[commands] properties` collects, and where they were read; with each Hypothesis
   * test's settings as the base would run it, when the base's run read them.
   */
  base: {
    file: string;
    ids: readonly string[];
    settings?: PropertySettingsById | undefined;
    /** A test file the ids name is at that path of the base (`BaseUniverse.idsAtRoot`). */
    idsAtRoot?: boolean | undefined;
  };
  /** Every commit of the range and the paths it answers for (old names of renames included). */
  touched: readonly CommitPaths[];
  renames: readonly FileRename[];
  /** Files that configure the property run's collection besides pytest's own (those the command names). */
  collectionFiles: readonly string[];
}

/** What the head's property run shows, for the judge. */
export interface PropertyIdContext {
  /** Ids the head's property run collected, and the base's ids it did not run (no logged report). */
  collected: readonly string[];
  notRun: readonly string[];
  active: readonly Lease[];
  commits: readonly Commit[];
  policy: PatchPolicy;
  /** The Hypothesis settings the head's property run recorded, by test id, and the record's file. */
  settings?: { file: string; byId: PropertySettingsById; ran?: readonly string[] | undefined } | undefined;
  /** Where the ids' files lie from the gate's root (the property run's record says). Unset: its rootdir is the root. */
  paths?: TestIdPaths | undefined;
}

/** The findings, and the numbers the table shows. */
export interface PropertyIdJudgement {
  findings: Finding[];
  file: string;
  baseTests: number;
  /** Base ids that did not run at head and no lease holds. */
  notRun: number;
  approved: number;
  /** Property tests whose settings were compared with the base's run, and those weaker at head. */
  settings?: { compared: number; weakened: number } | undefined;
}

const MAX_LISTED = 10;
const list = (items: readonly string[]): string =>
  `${items.slice(0, MAX_LISTED).join(", ")}${items.length > MAX_LISTED ? `, and ${items.length - MAX_LISTED} more` : ""}`;

/**
 * `property_weakened`: property tests the base collects that did not run at head (deleted, renamed out of
 * collection, moved, deselected) and no lease holds, unless every commit that touched their file or the
 * collection configuration is a human's carrying the seeds' trailer.
 */
export function judgePropertyIds(evidence: PropertyIdEvidence, context: PropertyIdContext): PropertyIdJudgement {
  const key = context.policy.trailers.propertySeeds;
  const leased = new Set(context.active.map((l) => l.nodeid));
  const missing = context.notRun.filter((id) => !leased.has(id));
  const baseSet = new Set(evidence.base.ids);
  const paths = context.paths ?? ROOTDIR_IS_ROOT;
  const pairs = pairRenames(
    missing,
    context.collected.filter((id) => !baseSet.has(id)),
    evidence.renames,
    paths,
  );
  const attribution = changeAttributor(evidence, context.commits, context.policy, key);
  const verdicts = missing.map((id) => {
    const change: TestChange = { id, file: paths.toRoot(fileOf(id)), note: pairs.get(id) };
    return { change, ...attribution(change.file) };
  });
  const findings = changeFindings(
    verdicts,
    "property_weakened",
    key,
    context.policy,
    `restore the property tests, so that every property the base runs still runs; a human who means to retire one does so in a commit with \`${key}: human\` (a flaky one gets a lease in freeze.toml instead)`,
    (changes, file) => {
      const names = changes.map((c) => (c.note ? `${c.id} (renamed: ${c.note})` : c.id));
      return `${changes.length} property test(s) of ${file} that the base runs did not run at head: ${list(names)}`;
    },
  );
  // The settings as they ran, where both runs read them; elsewhere the static rule on the files stands alone.
  const settings =
    evidence.base.settings && context.settings
      ? judgePropertySettings(
          {
            ...evidence,
            base: { file: evidence.base.file, settings: evidence.base.settings },
            head: { file: context.settings.file, settings: context.settings.byId, ran: context.settings.ran },
          },
          context,
        )
      : undefined;
  return {
    findings: [...findings, ...(settings?.findings ?? [])],
    file: evidence.base.file,
    baseTests: evidence.base.ids.length,
    notRun: missing.length,
    approved: verdicts.filter((v) => v.approved).length,
    settings: settings && { compared: settings.compared, weakened: settings.weakened },
  };
}

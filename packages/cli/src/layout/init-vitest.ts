// The config `proofgate init` writes for a vitest project: the universe from `vitest list --json`, the proof
// run with @vitest/coverage-v8's Istanbul JSON and vitest's JUnit, the gate's reporter (deselection and the
// run record), the golden files and seeds found, and vitest's config files protected as conftest.py is (the
// coverage settings are compared by meaning, but a config also holds plugins, aliases and retries that no
// comparison sees: docs/vitest.md). Pure: the caller detects.
import type { GateConfig } from "@proofgate/core";
import type { VitestLayout } from "./detect-vitest.js";
import { shellWord, type InitPlan, type TemplateNotes } from "./init-config.js";

/** The evidence files the vitest commands write. */
export const VITEST_COLLECTED = "collected.json";
export const VITEST_COVERAGE_DIR = "coverage";
export const VITEST_REPORT = `${VITEST_COVERAGE_DIR}/coverage-final.json`;
const RESULTS = "results.xml";

/** vitest's and vite's config files anywhere in the repository: a project's own config too. */
export const VITEST_CONFIG_GLOBS: readonly string[] = Object.freeze([
  "**/vitest.config.*",
  "**/vite.config.*",
  "**/vitest.workspace.*",
]);

/** The proof command for `exec` (`pnpm exec vitest`): coverage-v8's Istanbul JSON, JUnit, and the gate's reporter when the gate runs it. */
export function vitestProofCommand(exec: string): string {
  return (
    // reportOnFailure: a failing test is tests_failed, judged with the coverage of the run, not a missing report.
    `${exec} run --coverage.enabled --coverage.provider=v8 --coverage.reporter=json --coverage.reportOnFailure ` +
    `--coverage.reportsDirectory=${VITEST_COVERAGE_DIR} --reporter=default --reporter=junit ` +
    `--outputFile.junit=${RESULTS} \${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}`
  );
}

/** The JUnit XML of the properties step. */
export const PROPERTY_RESULTS = "properties.xml";

/**
 * The properties command for `exec`: the property test folders (vitest's file filters), vitest's JUnit, and
 * the gate's reporter when the gate runs it (the record; nothing is leased in this step).
 */
export function vitestPropertiesCommand(exec: string, folders: readonly string[]): string {
  return (
    `${exec} run ${folders.map(shellWord).join(" ")} --reporter=default --reporter=junit ` +
    `--outputFile.junit=${PROPERTY_RESULTS} \${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}`
  );
}

/** Plans the config for a vitest project on top of `defaults`; `coverageV8` says whether @vitest/coverage-v8 is installed. */
export function planVitestInit(layout: VitestLayout, defaults: GateConfig, coverageV8: boolean): InitPlan {
  const config: GateConfig = structuredClone(defaults);
  const notes: TemplateNotes = {};
  const findings: string[] = [];
  const warnings: string[] = [];
  const t = config.trailers;

  config.universe.collected = [VITEST_COLLECTED];
  config.coverage.reports = [VITEST_REPORT];
  config.results.junit = [RESULTS];
  config.commands = {
    ...config.commands,
    runner: "vitest",
    // --json=FILE, not a redirect: a test file that prints at import (console.log, node:test) would mix its
    // output into the list.
    collect: `${layout.exec} list --json=${VITEST_COLLECTED}`,
    proof: vitestProofCommand(layout.exec),
    // A workspace's tests import its packages: the base's worktree installs and builds its own.
    ...(layout.setup !== undefined ? { baseSetup: layout.setup } : {}),
  };
  notes.commands = [
    `Written by \`proofgate init\` for vitest (${layout.from}), run as \`${layout.exec}\`. The proof run loads the`,
    "gate's reporter (PROOFGATE_VITEST_REPORTER): it skips the frozen tests and writes the signed run record.",
  ];
  notes.coverage = [
    "@vitest/coverage-v8's Istanbul JSON of the proof run (rerun mode: vitest has no per-test contexts).",
  ];
  findings.push(`vitest: ${layout.from}; the commands run \`${layout.exec}\``);
  if (layout.setup !== undefined)
    findings.push(`workspace: the base's worktree is installed and built first (base_setup = \`${layout.setup}\`)`);
  if (!coverageV8) {
    warnings.push(
      "@vitest/coverage-v8 is not installed: the proof run cannot write coverage. Install it at vitest's version (for example `npm i -D @vitest/coverage-v8`)",
    );
  }

  // vitest's own settings choose which tests run and what is measured: a change to any of them, a
  // workspace project's included, needs a human.
  config.protect.paths = [...config.protect.paths, ...VITEST_CONFIG_GLOBS];
  findings.push(
    `vitest config: ${layout.configFiles.length > 0 ? layout.configFiles.join(", ") : "none at the root"}; protected: ${VITEST_CONFIG_GLOBS.join(", ")} (a change needs \`${t.gateChange}: human\`)`,
  );
  // coverage.py's settings and Python exemptions do not apply.
  config.measurement.exempt = [];

  if (layout.fixtures.length > 0) {
    config.fixtures.paths = [...layout.fixtures];
    notes.fixtures = [`Found by \`proofgate init\`: ${layout.fixtures.join(", ")}.`];
    findings.push(`golden files: ${layout.fixtures.join(", ")}`);
  } else {
    config.fixtures.enabled = false;
    notes.fixtures = [
      "Off: `proofgate init` found no golden-file folder (`__fixtures__` or `__snapshots__` anywhere, `fixtures`",
      "in a test folder, holding files). To turn it on: list the folder in paths, set enabled = true, run",
      `\`proofgate lock\`, and commit both in a human commit with \`${t.gateChange}: human\` and \`${t.fixtureLock}: human\`.`,
    ];
    findings.push("golden files: none found, so [fixtures] enabled = false");
  }

  // The property suite: with seeds, the properties step runs the property test folders with the base's seeds
  // in $PROOFGATE_SEEDS_DIR (seeds_empty, seed_rewrite, property_hold); a change to a file in those folders
  // needs a human's trailer (property_weakened). Without seeds the property tests are still judged, and run
  // in the proof run, where a failure is tests_failed.
  config.properties.judgeTests = layout.propertyTests.length > 0;
  if (layout.propertyTests.length > 0) config.properties.tests = [...layout.propertyTests];
  if (layout.seeds.length > 0 && layout.propertyTests.length > 0) {
    config.properties.enabled = true;
    config.properties.seeds = [...layout.seeds];
    config.properties.results = [PROPERTY_RESULTS];
    config.commands.properties = vitestPropertiesCommand(layout.exec, layout.propertyTests);
    notes.properties = [
      `Found by \`proofgate init\`: the seeds ${layout.seeds.join(", ")}. The properties step runs the property`,
      "test folders with the base's copy of the seeds in $PROOFGATE_SEEDS_DIR: the tests read them from there.",
    ];
    findings.push(
      `seeds: ${layout.seeds.join(", ")}; the properties step runs ${layout.propertyTests.join(", ")} on the base's seeds`,
    );
  } else {
    config.properties.enabled = false;
    notes.properties = [
      "Off: `proofgate init` found no seed folder (properties/seeds, property/seeds or fuzz/corpus, holding",
      `files).${layout.propertyTests.length > 0 ? ` The property tests in ${layout.propertyTests.join(", ")} are judged (property_weakened).` : ""}`,
    ];
    findings.push(
      `seeds: none found, so [properties] enabled = false${layout.propertyTests.length > 0 ? `; property tests judged: ${layout.propertyTests.join(", ")}` : ""}`,
    );
  }
  return { config, notes, findings, warnings };
}

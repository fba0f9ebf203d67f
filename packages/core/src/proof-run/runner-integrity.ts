// When the project under test is itself part of the test runner (it is pluggy, pytest or coverage.py, or
// a pytest plugin pytest loads), its code runs before or around the gate's plugin: the run's record can
// no longer vouch for the runner, and the report must say so.
import type { GateIssue } from "../common/errors.js";
import { listSome } from "./findings.js";
import type { RunRecord } from "./record.js";
import { importRoots, RUNNER_MODULES, topLevelModule, type ShadowOptions } from "./shadow.js";

/** What shows the repository's code inside the runner: the head's files and the runs' records. */
export interface RunnerIntegrityInput {
  /** The head revision's files, repository-relative. */
  paths: readonly string[];
  options?: ShadowOptions | undefined;
  /** The verified records of the steps that ran (none without `--run`). */
  records: readonly RunRecord[];
}

const BACKPORTS_BEFORE_311 = ["tomli", "exceptiongroup"];

/** A `major.minor[.micro...]` version of 3.11 or later; anything else (unreadable) is not. */
function atLeast311(version: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const major = Number(m[1]);
  return major > 3 || (major === 3 && Number(m[2]) >= 11);
}

// Test support folders: a plugin there is test code (like a conftest.py), not the measured package.
const TEST_FOLDER = /(?:^|\/)(?:tests?|testing)\//;

/**
 * Where the repository is part of the test runner: a top-level module named like one of the runner's
 * (`pluggy/`, `src/_pytest/`: on the import path, or in `src/` for an installed src layout), a module of
 * the repository loaded under a runner module's name, or a repository module other than a conftest.py
 * or test support code registered as a pytest plugin (an entry point, `-p`, `pytest_plugins`).
 */
export function runnerPartsOfProject(input: RunnerIntegrityInput): string[] {
  return runnerParts(input).map((p) => p.why);
}

/** A part of the runner in the repository: a folder (ending in `/`) or a file, and why it is the runner's. */
export interface RunnerPart {
  path: string;
  why: string;
}

/** `runnerPartsOfProject`, with each part's path: what a commit changing the runner's own code touches. */
export function runnerParts(input: RunnerIntegrityInput): RunnerPart[] {
  const runner = new Set(RUNNER_MODULES);
  // pytest and hypothesis need these backports only before Python 3.11 (their metadata's markers): a run
  // whose every record shows 3.11 or later did not load them, so a project that is tomli (hukkin/tomli)
  // is not part of that run's runner.
  if (input.records.length > 0 && input.records.every((r) => atLeast311(r.python.version)))
    for (const module of BACKPORTS_BEFORE_311) runner.delete(module);
  const roots = importRoots(input.paths, input.options);
  const parts = new Map<string, string>();
  for (const path of [...input.paths].sort()) {
    const top = topLevelModule(path);
    if (top === undefined || !runner.has(top.module) || !(roots.has(top.root) || top.root === "src")) continue;
    if (!parts.has(top.shown)) parts.set(top.shown, `${top.shown} is the runner's \`${top.module}\``);
  }
  for (const record of input.records) {
    for (const s of record.shadowed)
      if (s.error === undefined && runner.has(s.module) && !parts.has(s.path))
        parts.set(s.path, `${s.path} was imported as the runner's \`${s.module}\``);
    for (const h of record.hooks) {
      const name = h.plugin.slice(h.plugin.lastIndexOf("/") + 1);
      if (name === "conftest.py" || TEST_FOLDER.test(h.plugin) || parts.has(h.plugin)) continue;
      parts.set(h.plugin, `${h.plugin} is loaded as a pytest plugin`);
    }
  }
  return [...parts].map(([path, why]) => ({ path, why }));
}

/** A warning when the repository is part of the runner (`runnerPartsOfProject`), else none. */
export function runnerIntegrityWarnings(input: RunnerIntegrityInput): GateIssue[] {
  const parts = runnerPartsOfProject(input);
  if (parts.length === 0) return [];
  return [
    {
      code: "runner_unverifiable",
      message: `the runner's integrity cannot be established: the project is part of its own test runner (${listSome(parts, 5)}). That code runs before or around the gate's plugin, so a change to it can change what the run reports, and no record can show it; the patch's other evidence is judged as usual`,
      fix: "review a change to that code by hand, as a change to the test runner: the gate cannot vouch for what the run reported about it",
    },
  ];
}

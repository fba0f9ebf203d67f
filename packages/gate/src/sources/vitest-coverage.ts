// The base's side of vitest's coverage settings (docs/vitest.md#unledgered-freezes): the base's own
// `[commands] proof`, run in the base's worktree with a reporter of the gate's that writes vitest's resolved
// coverage settings once vitest has read its config and ends the run before any test. The head's side is
// the proof run's signed record; the two are compared by meaning (diffVitestCoverage) and charged to the
// commits that could have made the change, as coverage.py's settings are.
import { randomBytes } from "node:crypto";
import {
  GateError,
  isDocumentation,
  shortRevision,
  type Commit,
  type CommitCoverageChanges,
  type CoverageChange,
  type InputDigest,
} from "@proofgate/core";
import {
  VITEST_REPORTER_ENV,
  diffVitestCoverageRun,
  isVitestConfigPath,
  parseVitestSettingsFile,
  renderVitestSettingsReporter,
  vitestSettingsReporterFile,
  type VitestCoverageAtEnd,
  type VitestCoverageSettings,
} from "@proofgate/core/proof-run";
import { join, underRoot } from "./paths.js";
import { baseCheckout, type BaseTestsOptions } from "./base-tests.js";
import { runCommandStep } from "./run-commands.js";
import { isVitestCommand } from "./vitest-steps.js";

/** The base's vitest coverage settings, with the file they were read from. */
export interface BaseVitestCoverageRead {
  settings: VitestCoverageSettings;
  inputs: InputDigest[];
}

/**
 * With `check --run`, measurement on, the run record on and a vitest proof command: the base's settings,
 * read by the base's own proof command in its worktree (`base coverage settings`). Otherwise undefined (not
 * compared). A base that writes none (vitest did not start, the command does not load the gate's reporter)
 * is a GateError: the signal is on and its evidence is missing.
 */
export async function loadBaseVitestCoverage(o: BaseTestsOptions): Promise<BaseVitestCoverageRead | undefined> {
  const { config, ports } = o;
  const proof = config.commands.proof;
  if (!o.run || proof === undefined || !config.measurement.enabled || !config.commands.record) return undefined;
  if (!isVitestCommand(config, proof)) return undefined;
  const at = shortRevision(o.base);
  const ready = baseCheckout(o);
  const dir = typeof ready === "string" ? ready : await ready;
  const absolute = underRoot(ports.files.root);
  const nonce = randomBytes(16).toString("hex");
  const folder = join(o.outDir, "base-settings");
  const out = absolute(join(folder, "vitest-coverage.json"));
  const module = join(folder, vitestSettingsReporterFile(nonce));
  ports.files.removeTree(out);
  ports.files.writeAtomic(module, renderVitestSettingsReporter({ root: dir, out, nonce }));
  o.log.info(
    `reading the base ${at}'s vitest coverage settings with the base's [commands] proof, in its worktree (no test runs)`,
  );
  const env = { ...o.run.env, [VITEST_REPORTER_ENV]: absolute(module) };
  // Its exit code says nothing (the reporter ends the run at once): the file it wrote is what counts.
  await runCommandStep(o, "base coverage settings", proof, env, [], dir, (exit, stderr) => {
    if (ports.files.exists(out)) return;
    throw new GateError({
      code: "file_missing",
      file: config.file,
      message: `[commands] proof (\`${proof}\`) exited with ${exit} on the base ${at} (a git worktree of it) without writing vitest's coverage settings: the gate's reporter ($${VITEST_REPORTER_ENV}) never saw vitest start, so the coverage settings the patch may have loosened cannot be compared; ${stderr}`,
      fix: `pass \`--reporter=$${VITEST_REPORTER_ENV}\` to vitest in [commands] proof, and make it start on a clean checkout of the base (git worktree add --detach /tmp/base ${at}); its output is above in the log`,
    });
  });
  const name = `vitest coverage settings (read at base ${at})`;
  const file = ports.files.readText(out, "the base's vitest coverage settings", "[commands] proof");
  const parsed = parseVitestSettingsFile(file.text, name, nonce);
  if (!parsed.settings) throw new GateError(parsed.errors);
  return { settings: parsed.settings, inputs: [{ role: "base_settings", path: name, sha256: file.sha256 }] };
}

/**
 * The head's settings (the proof run's record: read before any test and again when the run ended) against
 * the base's: each loosening, and the commits that answer for them. A setting read before any test answers
 * to the commits that touched a vitest config file, a file the config imports (vite's list, at the base or
 * at head) or a package.json; when none did, to every commit that changed anything but documentation. A
 * change made while the tests ran (a globalSetup file, a plugin) answers to every commit that changed
 * anything but documentation. Each answering commit is charged with every change of its kind: the
 * settings are not read commit by commit.
 * `existedAtBase` says whether a path was a file of the base (a setup file made of one).
 */
export function vitestCoverageChanges(
  base: VitestCoverageSettings,
  head: { start: VitestCoverageSettings | null; end: VitestCoverageAtEnd | undefined },
  commits: readonly Commit[],
  touched: ReadonlyMap<string, readonly string[]>,
  existedAtBase?: (path: string) => boolean,
): { net: CoverageChange[]; commits: CommitCoverageChanges[] } {
  const { config, duringRun } = diffVitestCoverageRun(base, head.start, head.end, existedAtBase);
  const net = [...config, ...duringRun];
  if (net.length === 0) return { net, commits: [] };
  const paths = (c: Commit): readonly string[] => touched.get(c.sha) ?? [];
  const codeCommits = commits.filter((c) => paths(c).some((p) => !isDocumentation(p)));
  // The config files, and the repository's files they import (at the base or at head).
  const imported = new Set([...base.configDependencies, ...(head.start?.configDependencies ?? [])]);
  const configCommits = commits.filter((c) => paths(c).some((p) => isVitestConfigPath(p) || imported.has(p)));
  const forConfig = new Set(config.length === 0 ? [] : configCommits.length > 0 ? configCommits : codeCommits);
  const forRun = new Set(duringRun.length === 0 ? [] : codeCommits);
  return {
    net,
    commits: commits
      .filter((c) => forConfig.has(c) || forRun.has(c))
      .map((commit) => ({
        commit,
        changes: [...(forConfig.has(commit) ? config : []), ...(forRun.has(commit) ? duringRun : [])],
      })),
  };
}

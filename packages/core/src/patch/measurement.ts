// Measurement (docs/contract.md §13): what the patch did to what coverage.py measures, judged by the
// lease rule. coverage.py's configuration compared by meaning between base and head, commit by commit;
// exclusion and partial-branch pragmas on the lines the patch added; and Python source the patch added
// or changed that the proof run did not measure. Each needs `Gate-Change: human` on a human commit.
import { hasHumanTrailer, type Commit } from "../model/authorship.js";
import { coverageChangeKey, type CoverageChange } from "../python/coverage-config.js";
import { needsTrailer, who, type PatchPolicy } from "./patch.js";
import { SCRIPT_FILE } from "./script-code.js";
import { pythonRegex } from "../python/python-regex.js";
import { testFilesOf } from "../python/runner-config.js";
import { normalizeRepoPath } from "../common/repo-path.js";
import { testIdPaths, type RootdirFacts } from "../python/test-id-paths.js";
import type { Finding } from "../model/report.js";

/** What one commit did to coverage.py's configuration (a merge: only its own resolution's). */
export interface CommitCoverageChanges {
  commit: Commit;
  changes: CoverageChange[];
  /** The configuration could not be read before or after this commit: it answers for every change. */
  unreadable?: string | undefined;
}

/** A line the patch added that an exclusion or partial-branch pattern of coverage.py's matches. */
export interface ExcludedLine {
  path: string;
  line: number;
  text: string;
  /** The pattern that matches it, and the setting it comes from (`report:exclude_lines`, ...). */
  pattern: string;
  key: string;
  /** The commit that wrote the line (git blame over the range). */
  commit: Commit;
}

/** A Python source file (not a test) that the patch added or changed, with the commits that touched it. */
export interface ChangedSource {
  path: string;
  commits: Commit[];
  /** The folder for tests it lies in by convention (`testFolderOf`), when it lies in one. */
  testFolder?: string | undefined;
}

/** What the gate learned about measurement; computed by the caller from git and the proof run. */
export interface MeasurementEvidence {
  /** The file coverage.py takes its settings from at the base and at the head (undefined: its defaults). */
  configFile: { base?: string | undefined; head?: string | undefined };
  /** What differs between the base's configuration and the head's, by meaning. */
  net: CoverageChange[];
  /** Commit by commit, oldest first. */
  commits: CommitCoverageChanges[];
  /** Lines the patch added that coverage.py excludes (the head's patterns). */
  excluded: ExcludedLine[];
  /**
   * Source files the patch added or changed (tests, exempt files and files without code left out): Python's,
   * and with a vitest proof run the JavaScript and TypeScript files its coverage settings measure.
   */
  sources: ChangedSource[];
  /** The files the proof run's coverage report measured, as repository paths. */
  measured: readonly string[];
  /** The files that hold collected tests, at the base or at head (test files, never source). */
  testFiles?: readonly string[] | undefined;
  /** The repository's module files the proof run loaded (its record's `modules`); undefined: no record. */
  loaded?: readonly string[] | undefined;
  /** Each loaded module's first importer in the proof run (its record's `importers`): a repository file or null. */
  importers?: Readonly<Record<string, string | null>> | undefined;
  /**
   * The head's Python files, each with the repository files its import statements name (`importGraph`),
   * whether it is a test by name (conftest.py, python_files) and its test folder (`testFolderOf`).
   */
  imports?: ReadonlyArray<HeadModule> | undefined;
}

/** One Python file of the head, for the static side of "only tests use it". */
export interface HeadModule {
  path: string;
  imports: readonly string[];
  test: boolean;
  testFolder?: string | undefined;
}

/** Measurement judged once: each rule's findings. */
export interface MeasurementJudgement {
  /** The evidence, without the files judged not to be source (test files; helpers left alone). */
  evidence: MeasurementEvidence;
  exclusions: Finding[];
  unmeasured: Finding[];
  /** coverage.py settings that changed without loosening anything named (data_file, [paths], ...). */
  protectedSettings: Finding[];
}

const identity = (c: CoverageChange): string => coverageChangeKey({ ...c, message: "" });

/**
 * Judges the evidence. A configuration change that the head still has is charged to each commit that
 * made it (or that left the configuration unreadable); a commit without `Gate-Change: human` on a human
 * commit is a finding. A change that no commit of the range made cannot be approved, and is one too.
 */
export function judgeMeasurement(evidence: MeasurementEvidence, policy: PatchPolicy): MeasurementJudgement {
  const key = policy.trailers.gateChange;
  const approved = (commit: Commit): boolean => hasHumanTrailer(commit, key, policy.agentPatterns);
  const exclusions: Finding[] = [];
  const protectedSettings: Finding[] = [];
  for (const change of evidence.net) {
    const id = identity(change);
    const charged = evidence.commits.filter(
      (c) => c.unreadable !== undefined || c.changes.some((x) => identity(x) === id),
    );
    const reason = change.kind === "loosening" ? ("coverage_exclusions_added" as const) : ("protected_path" as const);
    const out = change.kind === "loosening" ? exclusions : protectedSettings;
    const tool = change.key.startsWith("vitest:") ? "vitest's coverage" : "coverage.py";
    const fix =
      change.kind === "loosening"
        ? `revert it; a human loosens what ${tool} measures, in a commit with \`${key}: human\``
        : `revert it; ${tool}'s settings change in a human commit with \`${key}: human\``;
    if (charged.length === 0) {
      out.push({
        reason,
        message: `${change.message}, and no commit of the range made it`,
        file: change.file,
        line: change.line,
        fix,
      });
      continue;
    }
    for (const { commit, unreadable } of charged) {
      if (approved(commit)) continue;
      out.push({
        reason,
        message: `${change.message}: ${needsTrailer(commit, key, policy)}${unreadable ? ` (its coverage.py configuration could not be read: ${unreadable})` : ""}`,
        file: change.file,
        line: change.line,
        commit: commit.sha,
        author: who(commit),
        fix,
      });
    }
  }
  const notSource = notJudgedAsSource(evidence);
  for (const line of evidence.excluded) {
    if (approved(line.commit) || notSource.has(line.path)) continue;
    const what = /ignore comment/.test(line.key)
      ? "code the coverage tool no longer measures"
      : /partial|branch/.test(line.key)
        ? "a branch coverage.py no longer measures"
        : "code coverage.py no longer measures";
    exclusions.push({
      reason: "coverage_exclusions_added",
      message: `the patch adds \`${clip(line.text.trim())}\`, ${what} (${line.key.replace(/^report:/, "")} pattern ${JSON.stringify(line.pattern)}): ${needsTrailer(line.commit, key, policy)}`,
      file: line.path,
      line: line.line,
      commit: line.commit.sha,
      author: who(line.commit),
      fix: `remove the pragma and cover the code with a test; excluding it is a human decision, in a commit with \`${key}: human\``,
    });
  }
  const measured = new Set(evidence.measured);
  const loaded = new Set(evidence.loaded ?? []);
  const unmeasured: Finding[] = [];
  for (const source of evidence.sources) {
    if (measured.has(source.path) || notSource.has(source.path)) continue;
    const unapproved = source.commits.filter((c) => !approved(c));
    if (source.commits.length > 0 && unapproved.length === 0) continue;
    const last = unapproved.at(-1);
    const trailer = last ? `: ${needsTrailer(last, key, policy)}` : "";
    const changed = source.commits.length ? "added or changed" : "changed";
    // A JavaScript or TypeScript file (a vitest proof run): its coverage settings measure it, so the report
    // lacks it because no test loaded it (vitest measures only loaded files unless coverage.include is set).
    const script = SCRIPT_FILE.test(source.path);
    unmeasured.push({
      reason: "unmeasured_source",
      message: script
        ? `${source.path} was ${changed} by the patch, but no test of the proof run loaded it, so vitest's coverage did not measure it${trailer}`
        : `${source.path} was ${changed} by the patch, but the proof run ${loaded.has(source.path) ? "loaded it and " : ""}did not measure it${trailer}`,
      file: source.path,
      commit: last?.sha,
      author: last ? who(last) : undefined,
      fix: script
        ? `test it (a test that imports it), or a human sets vitest's coverage.include so the report lists it, adds the file to [measurement] exempt or approves it with \`${key}: human\``
        : `move the code where the proof run measures it (its --cov= / [run] source), or a human adds the file to [measurement] exempt or approves it with \`${key}: human\``,
    });
  }
  // The evidence as judged: the files that are not source (tests, helpers left alone) are left out.
  const judged: MeasurementEvidence = {
    ...evidence,
    excluded: evidence.excluded.filter((l) => !notSource.has(l.path)),
    sources: evidence.sources.filter((s) => !notSource.has(s.path)),
  };
  return { evidence: judged, exclusions, unmeasured, protectedSettings };
}

/**
 * The changed files not judged as source: the files that hold collected tests, and test support, which
 * only test code uses. A changed file is test support when it is not measured, lies in a test folder the
 * report measures nothing of, and no non-test module uses it:
 * none is its first importer in the proof run, none names it in an import statement at head. "Non-test"
 * is decided as a whole (a helper imported only by test support is support too): test support is the
 * largest such set. With the record, a loaded module needs its first importer on the record (an older
 * record's modules are source).
 */
function notJudgedAsSource(evidence: MeasurementEvidence): Set<string> {
  const loaded = evidence.loaded === undefined ? undefined : new Set(evidence.loaded);
  const importers = evidence.importers ?? {};
  const measured = new Set(evidence.measured);
  const measuredIn = (folder: string): boolean => evidence.measured.some((p) => p.startsWith(`${folder}/`));
  const tests = new Set(evidence.testFiles ?? []);
  const modules = new Map<string, { testFolder?: string | undefined; test: boolean }>();
  for (const m of evidence.imports ?? [])
    modules.set(m.path, { testFolder: m.testFolder, test: m.test || tests.has(m.path) });
  for (const s of evidence.sources)
    if (!modules.has(s.path)) modules.set(s.path, { testFolder: s.testFolder, test: tests.has(s.path) });
  const importedBy = new Map<string, string[]>();
  for (const m of evidence.imports ?? [])
    for (const target of m.imports) importedBy.set(target, [...(importedBy.get(target) ?? []), m.path]);
  const isTest = (path: string): boolean => tests.has(path) || (modules.get(path)?.test ?? false);

  const support = new Set<string>();
  for (const [path, m] of modules) {
    if (m.test || measured.has(path)) continue;
    // Only a test folder the report measures nothing of holds support: a package's own module that only
    // the tests import (most of them) is source, wherever --cov points.
    if (m.testFolder === undefined || measuredIn(m.testFolder)) continue;
    if (loaded?.has(path) && importers[path] === undefined) continue; // loaded, but who imported it is not on the record
    support.add(path);
  }
  const usedBySource = (path: string): boolean => {
    const first = importers[path];
    const users = [...(typeof first === "string" ? [first] : []), ...(importedBy.get(path) ?? [])];
    return users.some((user) => user !== path && !isTest(user) && !support.has(user));
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const path of support)
      if (usedBySource(path)) {
        support.delete(path);
        changed = true;
      }
  }
  const out = new Set(tests);
  for (const s of evidence.sources) if (support.has(s.path)) out.add(s.path);
  return out;
}

/** What a proof run's record says for measurement: the ids it collected, relative to `rootdir`, and the modules it loaded. */
export interface MeasurementRunRecord extends RootdirFacts {
  collected: readonly string[];
  modules?: readonly string[] | undefined;
  importers?: Readonly<Record<string, string | null>> | undefined;
}

/**
 * The evidence the runs add: the files that hold collected tests (each list of ids, the universes at the
 * base and at head, and the record's, relative to pytest's rootdir, which the record tells),
 * and the modules the proof run loaded (undefined without a record that lists them).
 */
export function runMeasurementFacts(
  ids: ReadonlyArray<readonly string[]>,
  record: MeasurementRunRecord | undefined,
): Pick<MeasurementEvidence, "testFiles" | "loaded" | "importers"> {
  // Every list's ids are relative to pytest's rootdir (the universes are collected as the proof run is): below
  // the root, above it (a package under the repository's settings), or elsewhere. Files outside the root are
  // not the package's.
  const paths = testIdPaths(record);
  const files = new Set<string>();
  for (const list of record ? [...ids, record.collected] : ids)
    for (const f of testFilesOf(list)) {
      const path = normalizeRepoPath(paths.toRoot(f));
      if (path !== undefined) files.add(path);
    }
  return {
    testFiles: [...files].sort(),
    loaded: record?.modules && [...record.modules],
    importers: record?.importers && { ...record.importers },
  };
}

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** A line the patch added, with the commit git blame gives it. */
export interface AddedLine {
  path: string;
  line: number;
  text: string;
  commit: Commit;
}

/** An exclusion pattern coverage.py applies, and where it is set. */
export interface ExclusionPattern {
  pattern: string;
  key: string;
  file?: string | undefined;
  line?: number | undefined;
}

/** The added lines coverage.py excludes, or the patterns that cannot be evaluated here. */
export interface ExclusionMatch {
  excluded: ExcludedLine[];
  /** Patterns with Python-only syntax: the gate cannot tell which lines they exclude. */
  untranslatable: (ExclusionPattern & { error: string })[];
}

/** The added lines that one of `patterns` matches (`re.search` on the line, as coverage.py does). */
export function matchExclusions(lines: readonly AddedLine[], patterns: readonly ExclusionPattern[]): ExclusionMatch {
  const untranslatable: ExclusionMatch["untranslatable"] = [];
  const compiled: { p: ExclusionPattern; regex: RegExp }[] = [];
  for (const p of patterns) {
    const result = pythonRegex(p.pattern);
    if (result.regex) compiled.push({ p, regex: result.regex });
    else untranslatable.push({ ...p, error: result.error });
  }
  const excluded: ExcludedLine[] = [];
  for (const line of lines) {
    const hit = compiled.find(({ regex }) => regex.test(line.text));
    if (hit) excluded.push({ ...line, pattern: hit.p.pattern, key: hit.p.key });
  }
  return { excluded, untranslatable };
}

// What the proof run's records, the work tree's modules and the patch's added lines say about the test
// runner, as the gate's reasons: runner_tampering, unlocked_fixture_read, property_weakened and shipped_code_replaced.
import { carriesHumanTrailer, hasHumanTrailer, type Commit } from "../model/authorship.js";
import { needsTrailer, type CommitPaths, type PatchPolicy } from "../patch/patch.js";
import type { Finding } from "../model/report.js";
import type { ReasonCode } from "../common/reasons.js";
import { listSome, type RunFinding } from "./findings.js";
import { isOutsidePath, judgeFileReads, judgeRunIntegrity, judgeSeedReads, judgeSelection } from "./judges.js";
import type { RunRecord, RunRecordResult } from "./record.js";
import type { RepositoryWriteEvidence } from "./repository-writes.js";
import type { RunnerPart } from "./runner-integrity.js";
import { shadowMadeBy, type ShadowTrees } from "./shadow.js";
import { judgeShippedReplacements, scanShippedReplacement, type ShippedEvidence } from "./shipped.js";

/** A step's record as the gate verified it, and what the step was given. */
export interface StepRecord {
  /** The record's path, for findings about the record itself. */
  file: string;
  result: RunRecordResult;
}

/** Static findings about code the patch added, by the commit that added it. */
export interface CommitScan {
  commit: Commit;
  findings: RunFinding[];
}

/** Everything the gate learned about the test runner in `check --run`. */
export interface RunnerEvidence {
  /** The proof run's record, with the ids its plugin deselected (the active leases). */
  proof?: (StepRecord & { leased: string[] }) | undefined;
  /** The property run's record, with the seed files it had to read and the mount they were read through. */
  properties?: (StepRecord & { seeds: string[]; via: string }) | undefined;
  /** Work-tree modules named like a test tool or a standard module (`findToolShadows`). */
  shadows: RunFinding[];
  /**
   * The base's and the head's trees and the paths each commit touched: a shadowing module in the run's
   * record is judged only when the patch added it or made it shadowing (`shadowMadeBy`), and a human's
   * commit with the trailer may do that. Without it, every shadowing module the record names is judged.
   */
  shadowing?: { trees: ShadowTrees; touched: readonly CommitPaths[] } | undefined;
  /** Lines the patch added that reach into the runner (`scanRunnerTampering`), per commit. */
  scans: CommitScan[];
  /**
   * The fixture signal is on: reads outside the lock (and outside `allow`, e.g. the seeds) of files the
   * head commit tracks are judged (a golden file the tests read is committed; what a run writes and reads
   * back, or tries to open and cannot, is not one). A package's run (`check --root`) names the files its tests
   * read elsewhere in the repository `../../testdata/golden.txt`: those are judged when they changed in the
   * range (`changed`) and a commit that changed them lacks a human's approval. `changedOnly`: the fixture
   * signal is off (no golden folder of its own, or `[fixtures] enabled = false`), so only changed files are
   * judged: those elsewhere in the repository, and the data files in a test folder (`changed` holds both).
   */
  fixtures?:
    | {
        paths: readonly string[];
        lock: string;
        allow?: readonly string[] | undefined;
        tracked: ReadonlySet<string>;
        changed?: readonly ChangedRead[] | undefined;
        changedOnly?: boolean | undefined;
        /** `[trailers] fixture_lock`, for messages. */
        trailer?: string | undefined;
      }
    | undefined;
  /** What the steps wrote in the repository (`run_wrote_repository`); undefined when not watched. */
  writes?: RepositoryWriteEvidence | undefined;
  /** What the patch changed in the source and added to test code, for `shipped_code_replaced` (a range that reaches the base). */
  shipped?: ShippedEvidence | undefined;
  /**
   * Where the project is part of its own test runner (`runnerParts`: pluggy's `src/pluggy/`, a pytest plugin the
   * run loads). That code runs before or around the gate's plugin, so no record vouches for what it reports: a
   * commit of the range that changes it is judged as a change to how the tests run (with `shadowing.touched`).
   */
  runnerParts?: readonly RunnerPart[] | undefined;
}

const where = (f: RunFinding): { file?: string | undefined; line?: number | undefined } =>
  f.lines?.[0] ? { file: f.lines[0].path, line: f.lines[0].line } : { file: f.paths?.[0] };

const asFinding = (reason: ReasonCode, f: RunFinding): Finding => ({
  reason,
  message: f.message,
  ...where(f),
  fix: f.fix,
});

/** A record that is missing, unsigned or not this run's: the plugin was bypassed, or the runner is not pytest. */
function recordFindings(step: StepRecord, what: string): Finding[] {
  return step.result.errors.map((issue) => ({
    reason: "runner_tampering",
    message: `${what} wrote no valid run record: ${issue.message}`,
    file: step.file,
    fix: `${issue.fix ?? "run it through `proofgate check --run`"}; if the step does not run pytest, set [commands] record = false (a human change)`,
  }));
}

/** Selection findings that name tests without results: `missing_evidence` names them when results are judged. */
const UNRESULTED = new Set(["deselected_other", "test_not_run"]);

/**
 * `runner_tampering`: the records' integrity, what the proof run ran, shadowing modules and added runner
 * code. With the proof run's results judged (`resultsJudged`), tests that were left out are
 * `missing_evidence`'s, not listed again here.
 */
export function runnerTamperingFindings(
  e: RunnerEvidence,
  policy: PatchPolicy | undefined,
  resultsJudged = false,
  /** The head's universe, when the runner's settings or a hook narrowed it: tests it left out are tests_removed's. */
  narrowed?: ReadonlySet<string> | undefined,
): Finding[] {
  const out: Finding[] = [];
  const key = policy?.trailers.gateChange ?? "Gate-Change";
  // A shadow the patch made is allowed when every commit that touched what made it is a human's with the trailer.
  const byHumans = (madeBy: readonly string[]): boolean => {
    const commits = (e.shadowing?.touched ?? []).filter((c) => c.paths.some((p) => madeBy.includes(p)));
    return (
      policy !== undefined &&
      commits.length > 0 &&
      commits.every((c) => hasHumanTrailer(c.commit, key, policy.agentPatterns))
    );
  };
  const shadowing = e.shadowing;
  // The folders on sys.path when the plugin loaded (the interpreter's, PYTHONPATH, .pth files: set before any
  // file of the patch runs) were on the base's import path too.
  const integrity = (record: RunRecord) => {
    if (!shadowing) return {};
    const base = shadowing.trees.baseOptions ?? shadowing.trees.options ?? {};
    const started = record.sysPath.map((p) => (p === "." ? "" : p));
    const trees = {
      ...shadowing.trees,
      baseOptions: { ...base, extraRoots: [...(base.extraRoots ?? []), ...started] },
    };
    return {
      judgeShadow: (s: { module: string; path: string }): boolean => {
        const madeBy = shadowMadeBy(s.module, s.path, trees);
        return madeBy !== undefined && !byHumans(madeBy);
      },
    };
  };
  const humanFix = (f: Finding): Finding =>
    policy ? { ...f, fix: `${f.fix}; a human who means it commits it with \`${key}: human\`` } : f;
  const integrityFindings = (record: RunRecord): Finding[] =>
    judgeRunIntegrity(record, integrity(record)).map((f) =>
      f.code === "module_shadowed" && shadowing && f.paths !== undefined
        ? humanFix(asFinding("runner_tampering", f))
        : asFinding("runner_tampering", f),
    );
  if (e.proof) {
    out.push(...recordFindings(e.proof, "the proof run"));
    const record = e.proof.result.record;
    if (record) {
      out.push(...integrityFindings(record));
      // Collection errors are collection_errors' (from the universe); the rest of the selection is the runner's.
      out.push(
        ...judgeSelection(record, { leased: e.proof.leased })
          .filter((f) => f.code !== "collection_error" && !(resultsJudged && UNRESULTED.has(f.code)))
          .filter((f) => !(narrowed && UNRESULTED.has(f.code) && (f.tests ?? []).every((id) => !narrowed.has(id))))
          .map((f) => asFinding("runner_tampering", f)),
      );
    }
  }
  if (e.properties) {
    out.push(...recordFindings(e.properties, "the property run"));
    const record = e.properties.result.record;
    if (record) out.push(...integrityFindings(record));
  }
  for (const f of e.shadows) {
    if (f.madeBy === undefined) out.push(asFinding("runner_tampering", f));
    else if (!byHumans(f.madeBy)) out.push(humanFix(asFinding("runner_tampering", f)));
  }
  // A change to the runner's own code (the project is part of it): a human's, in a commit with the trailer.
  for (const part of e.runnerParts ?? []) {
    const inPart = (path: string): boolean =>
      part.path.endsWith("/") ? path.startsWith(part.path) : path === part.path;
    for (const { commit, paths } of e.shadowing?.touched ?? []) {
      const changed = paths.filter(inPart);
      if (changed.length === 0 || (policy && hasHumanTrailer(commit, key, policy.agentPatterns))) continue;
      out.push({
        reason: "runner_tampering",
        message: `the patch changes ${listSome(changed, 3)}, code of the test runner itself (${part.why}): it runs before or around the gate's plugin, so no run record can show what it did to the results${policy ? `; ${needsTrailer(commit, key, policy)}` : ""}`,
        file: changed[0],
        commit: commit.sha,
        author: `${commit.author.name} <${commit.author.email}>`,
        fix: `review the change by hand, as a change to the test runner; a human who means it commits it with \`${key}: human\``,
      });
    }
  }
  for (const { commit, findings } of e.scans) {
    if (policy && hasHumanTrailer(commit, key, policy.agentPatterns)) continue;
    for (const f of findings)
      out.push({
        ...asFinding("runner_tampering", f),
        // A human trailer on an agent's commit: say that it was ignored, and why.
        ...(policy && carriesHumanTrailer(commit, key)
          ? { message: `${f.message}; ${needsTrailer(commit, key, policy)}` }
          : {}),
        commit: commit.sha,
        author: `${commit.author.name} <${commit.author.email}>`,
        fix: `${f.fix}; a change to how the tests run is a human's, in a commit with \`${key}: human\``,
      });
  }
  return out;
}

/**
 * A file the proof run read that changed in the range, and each commit that changed it: elsewhere in the
 * repository (a package's run), or, with the fixture signal off, a data file in a test folder.
 */
export interface ChangedRead {
  /** As the package names it (`tests/data.txt`, `../../testdata/golden.txt`). */
  path: string;
  /** Oldest first; `approved`: a human's commit carrying the fixture trailer. */
  commits: readonly { sha: string; approved: boolean }[];
  /** Deleted from a test folder in the range (so the run could not read it): a data case the tests lost. */
  deleted?: boolean | undefined;
}

/** `unlocked_fixture_read`: files the proof run read that are neither source nor under the fixture lock. */
export function unlockedReadFindings(e: RunnerEvidence): Finding[] {
  const record = e.proof?.result.record;
  if (!record || !e.fixtures) return [];
  const { paths, lock, allow, tracked, changed, changedOnly, trailer } = e.fixtures;
  // Where no lock holds a file (outside the package; in the package with the signal off), a file as the base had
  // it is the base's evidence, and a change needs a human's approval.
  const unapproved = new Set(
    (changed ?? []).filter((o) => o.commits.length === 0 || o.commits.some((c) => !c.approved)).map((o) => o.path),
  );
  const committed = {
    ...record,
    files: record.files.filter((f) =>
      isOutsidePath(f.path) || changedOnly ? unapproved.has(f.path) : tracked.has(f.path),
    ),
  };
  const deleted = (changed ?? []).filter((c) => c.deleted && unapproved.has(c.path)).map((c) => c.path);
  const key = trailer ?? "Fixture-Lock";
  return [
    ...judgeFileReads(committed, { fixtures: paths, lock, allow, trailer, changedOnly }).map((f) =>
      asFinding(f.code === "audit_unavailable" ? "runner_tampering" : "unlocked_fixture_read", f),
    ),
    ...(deleted.length > 0
      ? [
          asFinding("unlocked_fixture_read", {
            code: "unlocked_fixture_read",
            paths: deleted,
            message: `the range deleted ${deleted.length} data file(s) from a test folder without a human's \`${key}: human\` on each commit that deleted them ([fixtures] is off, so no lock holds them; a test that read a folder of cases no longer sees them): ${listSome(deleted)}`,
            fix: `restore the files, or have a human delete them in a commit with \`${key}: human\`; better, list the folder in [fixtures] paths and run \`proofgate lock\` in a human commit`,
          }),
        ]
      : []),
  ];
}

/**
 * `property_weakened`: seed files of the base that the property run never read, from the base's copy
 * (`$PROOFGATE_SEEDS_DIR`) or the work tree's (which seed_rewrite guards).
 */
export function propertyWeakenedFindings(e: RunnerEvidence): Finding[] {
  const step = e.properties;
  if (!step?.result.record) return [];
  return judgeSeedReads(step.result.record, step.seeds)
    .filter((f) => f.code !== "audit_unavailable")
    .map((f) => asFinding("property_weakened", f));
}

/**
 * `shipped_code_replaced` for the gate: from the proof and property runs' records when they were verified,
 * else (no `--run`, or no record) from the added lines.
 */
export function shippedCodeFindings(e: RunnerEvidence, policy: PatchPolicy | undefined): Finding[] {
  if (e.shipped === undefined || policy === undefined) return [];
  const records = [e.proof?.result.record, e.properties?.result.record].filter((r) => r !== undefined);
  if (records.length === 0) return scanShippedReplacement(e.shipped, policy);
  return judgeShippedReplacements(
    records.flatMap((r) => r.replaced),
    e.shipped,
    policy,
  );
}

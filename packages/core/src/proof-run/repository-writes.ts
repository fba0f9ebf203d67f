// The run leaves the commit as it found it (issue 21, item 6): after every step `check --run` runs, the
// files the commit tracks are byte-identical to it, and new files appear only where the config says a
// step writes (its evidence, the report folder) or where Python and the test tools keep their caches.
// Two witnesses: git's view of the work tree before and after each step (whoever wrote, subprocesses
// included), and the run record's writes (a tracked file written and put back before the step ended).
import picomatch from "picomatch";
import type { Finding } from "../model/report.js";
import { listSome } from "./findings.js";
import type { RunRecord } from "./record.js";

/** One path of `git status`: a tracked file that differs from HEAD, an untracked file, or an ignored one. */
export interface WorkTreeEntry {
  /** Repository-relative; an ignored folder git did not enter ends with `/`. */
  path: string;
  state: "changed" | "untracked" | "ignored";
}

/**
 * What Python and the test tools write under the repository on their own: bytecode, pytest's and
 * Hypothesis's caches, coverage.py's data files. Globs (`**` crosses folders), matched with dot files.
 */
export const EXPECTED_RUN_WRITES: readonly string[] = [
  "**/__pycache__",
  "**/__pycache__/**",
  "**/*.pyc",
  "**/.pytest_cache",
  "**/.pytest_cache/**",
  "**/.hypothesis",
  "**/.hypothesis/**",
  "**/.coverage",
  "**/.coverage.*",
];

/** Where the steps may write, from the config. */
export interface RunWritePolicy {
  /** The evidence the config names (`evidencePaths`): what the steps are there to write. */
  outputs: readonly string[];
  /** The report folder, repository-relative; undefined when it lies outside the repository. */
  outDir?: string | undefined;
  /**
   * Folders and files whose content is the proof's data (fixture paths, the lock, seed folders, the
   * ledger): a new file there counts even where .gitignore hides it.
   */
  data: readonly string[];
}

/** What one step left in the repository, as git saw it. */
export interface StepWrites {
  /** The step as the log names it (`proof`, `base skips`, ...). */
  step: string;
  /** Tracked files that differ from the commit after the step (changed or deleted). */
  changed: string[];
  /** New files (or ignored folders) that are not expected. */
  added: string[];
  /** Of `changed`, those the gate put back as the commit has them. */
  restored: string[];
}

const under = (path: string, folder: string): boolean => {
  const f = folder.replace(/\/+$/, "");
  return f !== "" && (path === f || path.startsWith(`${f}/`));
};

/** A matcher for the paths a step may write: the outputs, the report folder, the caches. */
export function expectedWrite(policy: RunWritePolicy): (path: string) => boolean {
  const caches = picomatch([...EXPECTED_RUN_WRITES], { dot: true });
  const outputs = new Set(policy.outputs.map((p) => p.replace(/^\.\//, "")));
  return (raw) => {
    const path = raw.replace(/\/+$/, "");
    return outputs.has(path) || (policy.outDir !== undefined && under(path, policy.outDir)) || caches(path);
  };
}

/**
 * What a step wrote, from `git status` before and after it: tracked files that now differ from the
 * commit, and new untracked files, that are not expected. A new ignored path counts when it lies under
 * the proof's data or is Python source (a module a later import would load); other ignored files are, by
 * the project's .gitignore, not the commit's.
 */
export function diffWorkTree(
  step: string,
  before: readonly WorkTreeEntry[],
  after: readonly WorkTreeEntry[],
  policy: RunWritePolicy,
): StepWrites {
  const expected = expectedWrite(policy);
  const seen = new Set(before.map((e) => `${e.state}\u0000${e.path}`));
  const fresh = after.filter((e) => !seen.has(`${e.state}\u0000${e.path}`) && !expected(e.path));
  const counts = (e: WorkTreeEntry): boolean =>
    e.state === "untracked" || policy.data.some((d) => under(e.path.replace(/\/+$/, ""), d)) || /\.py$/.test(e.path);
  return {
    step,
    changed: fresh.filter((e) => e.state === "changed").map((e) => e.path),
    added: fresh.filter((e) => e.state !== "changed" && counts(e)).map((e) => e.path),
    restored: [],
  };
}

/** Everything `run_wrote_repository` judges. */
export interface RepositoryWriteEvidence {
  /** Each step's writes as git saw them (only steps that left something). */
  steps: readonly StepWrites[];
  /** The files the head commit tracks: a recorded write to one is a write to the commit. */
  tracked: ReadonlySet<string>;
  policy: RunWritePolicy;
}

/**
 * The record's writes that touch the commit: files opened for writing that the head tracks, that lie
 * under the proof's data, or that are Python source; the outputs, the report folder and caches aside.
 * Caught even when the file was put back before the step ended, since the audit hook saw the open.
 */
export function recordedWrites(
  record: RunRecord,
  tracked: ReadonlySet<string>,
  policy: RunWritePolicy,
): { path: string; writer?: string | undefined }[] {
  const expected = expectedWrite(policy);
  return record.files
    .filter(
      (f) =>
        f.write &&
        f.via === undefined &&
        !expected(f.path) &&
        (tracked.has(f.path) || policy.data.some((d) => under(f.path, d)) || /\.py$/.test(f.path)),
    )
    .map((f) => ({ path: f.path, writer: f.writer }));
}

const FIX =
  "make the tests write to a temporary folder (pytest's tmp_path, vitest's os.tmpdir()), never into the repository: a test that changes the commit's files changes what the next test, step or run judges, and no trailer allows it; a report or cache a tool writes on purpose goes in .gitignore (or, as evidence, in proofgate.toml)";

/**
 * `run_wrote_repository`: one finding per step that changed a tracked file, added an unexpected file or
 * (per its run record) opened a file of the commit for writing, naming the files and the step.
 */
export function repositoryWriteFindings(
  e: RepositoryWriteEvidence,
  records: readonly { step: string; record: RunRecord | undefined }[],
): Finding[] {
  const steps = new Map<string, { writes?: StepWrites; recorded: { path: string; writer?: string | undefined }[] }>();
  for (const s of e.steps) steps.set(s.step, { writes: s, recorded: [] });
  for (const { step, record } of records) {
    const recorded = record ? recordedWrites(record, e.tracked, e.policy) : [];
    if (recorded.length === 0) continue;
    steps.set(step, { ...steps.get(step), recorded });
  }
  const out: Finding[] = [];
  for (const [step, { writes, recorded }] of steps) {
    const parts: string[] = [];
    const by = new Map(recorded.flatMap((r) => (r.writer === undefined ? [] : [[r.path, r.writer] as const])));
    const named = (paths: readonly string[]): string =>
      listSome(paths.map((p) => (by.has(p) ? `${p} (by ${by.get(p)})` : p)));
    const changed = writes?.changed ?? [];
    const added = writes?.added ?? [];
    if (changed.length > 0) {
      const restored = new Set(writes?.restored ?? []);
      const back = changed.filter((p) => restored.has(p));
      parts.push(
        `changed ${changed.length} file(s) the commit tracks: ${named(changed)}${back.length === changed.length ? "; the gate restored them from the commit" : back.length > 0 ? `; the gate restored ${listSome(back)}` : ""}`,
      );
    }
    if (added.length > 0) parts.push(`left ${added.length} new file(s), not removed by the gate: ${named(added)}`);
    const unseen = recorded.filter((r) => !changed.includes(r.path) && !added.includes(r.path));
    if (unseen.length > 0)
      parts.push(
        `opened ${unseen.length} file(s) of the commit for writing (its run record; identical again when the step ended): ${named(unseen.map((r) => r.path))}`,
      );
    if (parts.length === 0) continue;
    out.push({
      reason: "run_wrote_repository",
      message: `[commands] ${step} wrote the repository while it ran: ${parts.join("; ")}`,
      file: changed[0] ?? added[0] ?? unseen[0]?.path,
      fix: FIX,
    });
  }
  return out;
}

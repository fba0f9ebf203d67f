// Evidence bound to the commit it judges. A JUnit or coverage file says nothing about the commit whose tests
// wrote it: one left from a run on another commit reads as this one's. `proofgate record` (a CI's own test
// step) and `check --run` write a stamp: the commit the work tree was at, clean, and the sha256 of each
// evidence file the run wrote. `check` reads only evidence a stamp binds to the commit it judges. The stamp
// is not signed (a CI's test job and its gate job share no key): it answers staleness, not forgery.
import type { GateIssue } from "../common/errors.js";
import type { InputDigest, InputRole } from "../model/report.js";

/** The `format` of a stamp file. */
export const EVIDENCE_STAMP_FORMAT = "proofgate-evidence";

/** One run that wrote evidence: its command, how it exited, and the files it wrote with their digests. */
export interface StampRun {
  command: string;
  exitCode: number;
  files: { path: string; sha256: string }[];
}

/** A stamp: the commit (and its tree) the work tree was at, with no tracked file changed, and the runs made there. */
export interface EvidenceStamp {
  format: typeof EVIDENCE_STAMP_FORMAT;
  version: 1;
  commit: string;
  tree: string;
  runs: StampRun[];
}

/** The roles of the head's evidence files: what a run on the judged commit must have written. */
export const BOUND_ROLES: ReadonlySet<InputRole> = new Set([
  "universe",
  "coverage",
  "contexts",
  "full_coverage",
  "results",
  "properties",
]);

/** The stamp's text (stable: two-space JSON, a newline at the end). */
export function renderEvidenceStamp(stamp: EvidenceStamp): string {
  return `${JSON.stringify(stamp, null, 2)}\n`;
}

/**
 * `previous` with `run` added, when `previous` is a stamp of the same commit: each file keeps the digest of
 * its last write. A stamp of another commit (or none) is replaced.
 */
export function addStampRun(
  previous: EvidenceStamp | undefined,
  at: { commit: string; tree: string },
  run: StampRun,
): EvidenceStamp {
  const kept = previous && previous.commit === at.commit && previous.tree === at.tree ? previous.runs : [];
  const written = new Set(run.files.map((f) => f.path));
  const runs = kept
    .map((r) => ({ ...r, files: r.files.filter((f) => !written.has(f.path)) }))
    .filter((r) => r.files.length > 0);
  return { format: EVIDENCE_STAMP_FORMAT, version: 1, commit: at.commit, tree: at.tree, runs: [...runs, run] };
}

const HEX40 = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Parses a stamp file; anything but a stamp of this format is an error naming the file. */
export function parseEvidenceStamp(
  text: string,
  file: string,
): { stamp?: EvidenceStamp | undefined; errors: GateIssue[] } {
  const bad = (what: string): { errors: GateIssue[] } => ({
    errors: [
      {
        code: "evidence_unbound",
        file,
        message: `is not an evidence stamp: ${what}`,
        fix: "delete it and let `proofgate record -- <the test command>` (or `proofgate check --run`) write it",
      },
    ],
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return bad("not JSON");
  }
  const o = data as Partial<EvidenceStamp> | null;
  if (typeof o !== "object" || o === null || o.format !== EVIDENCE_STAMP_FORMAT || o.version !== 1)
    return bad(`its format is not ${EVIDENCE_STAMP_FORMAT} version 1`);
  if (typeof o.commit !== "string" || !HEX40.test(o.commit)) return bad("no commit");
  if (typeof o.tree !== "string" || !HEX40.test(o.tree)) return bad("no tree");
  if (!Array.isArray(o.runs)) return bad("no runs");
  for (const r of o.runs as unknown[]) {
    const run = r as Partial<StampRun> | null;
    if (
      typeof run !== "object" ||
      run === null ||
      typeof run.command !== "string" ||
      !Number.isInteger(run.exitCode) ||
      !Array.isArray(run.files) ||
      !run.files.every(
        (f: unknown) =>
          typeof f === "object" &&
          f !== null &&
          typeof (f as { path?: unknown }).path === "string" &&
          typeof (f as { sha256?: unknown }).sha256 === "string" &&
          HEX64.test((f as { sha256: string }).sha256),
      )
    )
      return bad("a run without its command, exit code or files");
  }
  return { stamp: o as EvidenceStamp, errors: [] };
}

/** What judging the binding needs. */
export interface BindingInput {
  /** Every input the gate read; only the head's evidence (BOUND_ROLES) is judged. */
  read: readonly InputDigest[];
  /** The stamps found (from the config's `[evidence] stamps`, and `check --run`'s own), with their files. */
  stamps: readonly { file: string; stamp: EvidenceStamp }[];
  /**
   * The commits whose evidence counts, with their trees: the patch's head, and the work tree's commit (a CI's
   * test merge of it). A stamp of another commit with the same tree (an amended message, a rebase that
   * changed no file) ran on the same files and counts too.
   */
  judged: readonly { commit: string; tree?: string | undefined }[];
  /** `[evidence] bound`: evidence no stamp binds is an error (true), or read as it is (false, the opt-out). */
  required: boolean;
  /** How to make the evidence, for the fixes (`proofgate record -- <command>`). */
  how: string;
}

const short = (sha: string): string => sha.slice(0, 12);

/**
 * The evidence files read that are not this commit's: a file a stamp of another commit names with these
 * bytes (`evidence_stale`, always), a file changed since a stamp of this commit bound it (`evidence_stale`),
 * and, when binding is required, a file no stamp of this commit names (`evidence_unbound`). Empty: bound.
 */
export function judgeEvidenceBinding(input: BindingInput): GateIssue[] {
  const commits = new Set(input.judged.map((j) => j.commit));
  const trees = new Set(input.judged.flatMap((j) => (j.tree ? [j.tree] : [])));
  const isJudged = (stamp: EvidenceStamp): boolean => commits.has(stamp.commit) || trees.has(stamp.tree);
  const [first, ...others] = [...commits].map(short);
  const named = `${first}${others.length > 0 ? ` (or its test merge ${others.join(", ")})` : ""}`;
  const issues: GateIssue[] = [];
  const seen = new Set<string>();
  for (const file of input.read) {
    if (!BOUND_ROLES.has(file.role) || seen.has(file.path)) continue;
    seen.add(file.path);
    const entries = input.stamps.flatMap(({ file: from, stamp }) =>
      stamp.runs.flatMap((run) =>
        run.files.filter((f) => f.path === file.path).map((f) => ({ from, stamp, run, sha256: f.sha256 })),
      ),
    );
    const current = entries.filter((e) => isJudged(e.stamp));
    if (current.some((e) => e.sha256 === file.sha256)) continue;
    const older = entries.find((e) => !isJudged(e.stamp) && e.sha256 === file.sha256);
    if (older) {
      issues.push({
        code: "evidence_stale",
        file: file.path,
        message: `was written by \`${older.run.command}\` on commit ${short(older.stamp.commit)} (${older.from}), not on the commit judged, ${named}: evidence from another commit is not this one's`,
        fix: `run the tests on ${first} first: ${input.how}`,
      });
    } else if (current.length > 0) {
      issues.push({
        code: "evidence_stale",
        file: file.path,
        message: `changed after \`${current[0]!.run.command}\` wrote it on ${short(current[0]!.stamp.commit)} (${current[0]!.from} names other bytes)`,
        fix: `run the tests again: ${input.how}; nothing may write the evidence after the run that made it`,
      });
    } else if (input.required) {
      issues.push({
        code: "evidence_unbound",
        file: file.path,
        message: `no stamp binds it to the commit judged, ${named}${input.stamps.length === 0 ? " (there is no stamp)" : ""}: a file left from an earlier run reads the same`,
        fix: `${input.how}; a test tool that cannot run under it: [evidence] bound = false in proofgate.toml (a human change, shown in every report)`,
      });
    }
  }
  return issues;
}

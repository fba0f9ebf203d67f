// Evidence bound to the commit it judges (core's evidence-stamp.ts): `proofgate record` runs a CI's own test
// command and stamps what it wrote; `check --run` stamps what its steps wrote; `check` reads the stamps the
// base's config names and refuses (exit 2) evidence another commit's run wrote, or none bound it to.
import {
  addStampRun,
  GateError,
  judgeEvidenceBinding,
  parseEvidenceStamp,
  renderEvidenceStamp,
  type EvidenceStamp,
  type GateConfig,
  type GateIssue,
  type InputDigest,
  type StampRun,
} from "@proofgate/core";
import { evidencePaths } from "@proofgate/core";
import type { Env } from "@proofgate/core";
import { CommandTimedOut, type GatePorts } from "../ports.js";
import type { GateLog } from "../log.js";

/** How to make bound evidence, for the fixes. */
export function bindingHow(config: GateConfig): string {
  const stamp = config.evidence.stamps[0] ?? "proofgate-evidence.json";
  return `run the CI's test command through \`proofgate record -- '<the command>'\` (it writes ${stamp}), or \`proofgate check --run\``;
}

/** The stamps the config names that exist, parsed; a stamp that is not one is exit 2. */
export function readStamps(ports: GatePorts, paths: readonly string[]): { file: string; stamp: EvidenceStamp }[] {
  const errors: GateIssue[] = [];
  const found: { file: string; stamp: EvidenceStamp }[] = [];
  for (const file of paths) {
    if (!ports.files.exists(file)) continue;
    const parsed = parseEvidenceStamp(ports.files.readText(file, "the evidence stamp", "[evidence] stamps").text, file);
    errors.push(...parsed.errors);
    if (parsed.stamp) found.push({ file, stamp: parsed.stamp });
  }
  if (errors.length > 0) throw new GateError(errors);
  return found;
}

/** The commit the work tree is at, and its tree; a GateError when it is at none. */
function workTreeCommit(ports: GatePorts): { commit: string; tree: string } {
  const commit = ports.git.resolveCommit("HEAD");
  const tree = commit && ports.git.treeOf(commit);
  if (!commit || !tree)
    throw new GateError({
      code: "usage",
      message: "the work tree is at no commit: evidence can only be bound to a commit",
      fix: "commit first, then run the tests",
    });
  return { commit, tree };
}

/**
 * Throws (exit 2) when the head's evidence read in `read` is not bound to `head` (or the work tree's commit,
 * a CI's test merge of it) by one of `stamps`, as core's judgeEvidenceBinding says.
 */
export function requireBoundEvidence(
  ports: GatePorts,
  config: GateConfig,
  head: string,
  read: readonly InputDigest[],
  stamps: readonly { file: string; stamp: EvidenceStamp }[],
): void {
  const current = ports.git.resolveCommit("HEAD");
  const judged = [head, ...(current && current !== head ? [current] : [])].map((commit) => ({
    commit,
    tree: ports.git.treeOf(commit),
  }));
  const issues = judgeEvidenceBinding({
    read,
    stamps,
    judged,
    required: config.evidence.bound,
    how: bindingHow(config),
  });
  if (issues.length > 0) throw new GateError(issues);
}

/** The opt-out, in the policy row of every report (the config's parser warns about it too). */
export const UNBOUND_POLICY = "evidence not bound to the commit ([evidence] bound = false)";

/**
 * `check --run`'s own stamp: each step that ran, with the files it wrote as they are now, written to the
 * first `[evidence] stamps` path (kept with a stamp of the same commit already there).
 */
export function stampOwnRun(
  ports: GatePorts,
  config: GateConfig,
  steps: readonly { command: string; exitCode: number; outputs: readonly string[] }[],
): { file: string; stamp: EvidenceStamp } | undefined {
  const file = config.evidence.stamps[0];
  const at = workTreeCommit(ports);
  let stamp: EvidenceStamp | undefined;
  try {
    stamp = file ? readStamps(ports, [file])[0]?.stamp : undefined;
  } catch {
    stamp = undefined; // a broken stamp is replaced
  }
  for (const step of steps) stamp = addStampRun(stamp, at, digestRun(ports, step));
  if (!stamp) return undefined;
  if (file) ports.files.writeAtomic(file, renderEvidenceStamp(stamp));
  return { file: file ?? "check --run", stamp };
}

function digestRun(
  ports: GatePorts,
  step: { command: string; exitCode: number; outputs: readonly string[] },
): StampRun {
  return {
    command: step.command,
    exitCode: step.exitCode,
    files: step.outputs
      .filter((p) => ports.files.exists(p))
      .map((path) => ({ path, sha256: ports.files.readBytes(path, "an evidence file", "[evidence]").sha256 })),
  };
}

/** What `proofgate record` needs. */
export interface RecordOptions {
  ports: GatePorts;
  /** The work tree's config: which files are evidence, and where the stamp goes. */
  config: GateConfig;
  command: string;
  env: Env;
  /** Where to write the stamp (default: the first `[evidence] stamps`). */
  stamp?: string | undefined;
  /** Files the command must write or rewrite; default: the evidence files the config names that it did. */
  writes?: readonly string[] | undefined;
  log: GateLog;
}

/**
 * `proofgate record -- <command>`: runs a CI's own test command on a clean checkout and stamps the evidence
 * files it wrote or rewrote with the commit. A file it left as it was is not bound (a leftover stays one).
 */
export async function recordEvidence(o: RecordOptions): Promise<{ exitCode: number; file: string; bound: string[] }> {
  const { ports, config } = o;
  const file = o.stamp ?? config.evidence.stamps[0];
  if (!file)
    throw new GateError({
      code: "usage",
      file: config.file,
      message: "no stamp file: [evidence] stamps is empty and --stamp was not given",
      fix: "pass --stamp FILE",
    });
  const at = workTreeCommit(ports);
  const candidates = [...new Set(o.writes ?? evidencePaths(config).filter((p) => !config.evidence.stamps.includes(p)))];
  const dirty = ports.git
    .workTreeChanges({ untracked: false })
    .filter((p) => !candidates.includes(p) && p !== file && !config.evidence.stamps.includes(p));
  if (dirty.length > 0)
    throw new GateError(
      dirty.slice(0, 10).map((p) => ({
        code: "work_tree_dirty" as const,
        file: p,
        message: `has uncommitted changes: evidence from this work tree would be no commit's (HEAD is ${at.commit.slice(0, 12)})`,
        fix: "commit or stash the changes, then record",
      })),
    );
  const before = candidates.map((p) => ports.files.stamp(p));
  o.log.stepStarted("record", o.command);
  const started = Date.now();
  let exitCode: number;
  try {
    exitCode = await ports.commands.run(o.command, {
      env: o.env,
      output: o.log.output,
      timeoutSeconds: config.commands.timeout,
    });
  } catch (error) {
    if (CommandTimedOut.isInstance(error))
      throw new GateError({
        code: "command_timeout",
        message: `\`${o.command}\` was still running after its timeout of ${error.seconds} s and was stopped with every process it started (${error.signal === "SIGKILL" ? "SIGTERM, then SIGKILL" : "SIGTERM"}): nothing was bound`,
        fix: "find the test that hangs (its output is above), or pass --timeout SECONDS (0: no limit), or raise [commands] timeout in proofgate.toml",
      });
    throw new GateError({
      code: "usage",
      message: `the command could not be started: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check that sh exists and the command is right",
    });
  }
  o.log.stepEnded("record", exitCode, (Date.now() - started) / 1000);
  const written = candidates.filter((p, i) => {
    const now = ports.files.stamp(p);
    const was = before[i];
    return (
      now !== undefined &&
      (was === undefined || now.mtimeMs !== was.mtimeMs || now.size !== was.size || now.ino !== was.ino)
    );
  });
  const notWritten = o.writes ? candidates.filter((p) => !written.includes(p)) : [];
  if (notWritten.length > 0 || written.length === 0)
    throw new GateError(
      (notWritten.length > 0 ? notWritten : ["(none)"]).map((p) => ({
        code: "file_missing" as const,
        file: p === "(none)" ? undefined : p,
        message:
          p === "(none)"
            ? `\`${o.command}\` wrote none of the evidence files (${candidates.join(", ")})${exitCode === 0 ? "" : ` and exited with ${exitCode}`}: nothing to bind`
            : `\`${o.command}\` did not write it${exitCode === 0 ? "" : ` (it exited with ${exitCode})`}: a file left from an earlier run is not evidence`,
        fix: "make the command write the evidence files proofgate.toml names, or name them with --writes",
      })),
    );
  let previous: EvidenceStamp | undefined;
  try {
    previous = readStamps(ports, [file])[0]?.stamp;
  } catch {
    previous = undefined;
  }
  const stamp = addStampRun(previous, at, digestRun(ports, { command: o.command, exitCode, outputs: written }));
  ports.files.writeAtomic(file, renderEvidenceStamp(stamp));
  return { exitCode, file, bound: written };
}

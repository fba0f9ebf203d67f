import { formatIssue, type GateReport } from "@proofgate/core";
import { inertText } from "./workflow-commands.js";

/** One thing the report says about a place in the repository (or about the run, with no path). */
export interface GateAnnotation {
  level: "failure" | "warning";
  /** A path relative to the repository root; absent when the reason has no file. */
  path?: string | undefined;
  line?: number | undefined;
  /** A reason code, or what kind of problem: proofgate's own words. */
  title: string;
  /** Patch text is already inert (`inertText`): no control characters, no line breaks of its own. */
  message: string;
}

/** A repository-relative path, or undefined for one that points outside (absolute, `..`). */
function repoPath(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const path = file.replace(/^\.\/+/, "");
  if (path === "" || path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.split(/[\\/]/).includes(".."))
    return undefined;
  return path;
}

function lineOf(line: number | undefined): number | undefined {
  return line !== undefined && Number.isSafeInteger(line) && line > 0 ? line : undefined;
}

/**
 * The report's reasons and errors as annotations, in the report's order: each finding (on its file and
 * line, `freeze.toml` for leases), each error that stopped the gate, then each warning.
 */
export function reportAnnotations(view: GateReport): GateAnnotation[] {
  const out: GateAnnotation[] = [];
  for (const f of view.findings) {
    const by = f.commit
      ? `\ncommit ${inertText(f.commit.slice(0, 12))}${f.author ? ` by ${inertText(f.author)}` : ""}`
      : "";
    out.push({
      level: "failure",
      path: repoPath(f.file),
      line: lineOf(f.line),
      title: `proofgate: ${f.reason}`,
      message: `${inertText(f.message)}${by}\nfix: ${inertText(f.fix)}`,
    });
  }
  for (const e of view.errors) {
    out.push({
      level: "failure",
      path: repoPath(e.file),
      line: lineOf(e.line),
      title: `proofgate could not evaluate (${e.code})`,
      message: inertText(formatIssue({ ...e, file: undefined })),
    });
  }
  for (const w of view.warnings)
    out.push({ level: "warning", title: "proofgate warning", message: inertText(formatIssue(w)) });
  return out;
}

import {
  formatIssue,
  frozenOnlyRanges,
  frozenTestText,
  lineSpan,
  rangesByPriority,
  type FrozenOnlyRangeView,
  repoPathOf,
  type GateReport,
} from "@proofgate/core";
import { inertText } from "./workflow-commands.js";

/** One thing the report says about a place in the repository (or about the run, with no path). */
export interface GateAnnotation {
  level: "failure" | "warning" | "notice";
  /** A path relative to the repository root; absent when the reason has no file. */
  path?: string | undefined;
  line?: number | undefined;
  /** The last line of a range (frozen-only lines); `line` alone otherwise. */
  endLine?: number | undefined;
  /** A reason code, or what kind of problem: proofgate's own words. */
  title: string;
  /** Patch text is already inert (`inertText`): no control characters, no line breaks of its own. */
  message: string;
}

/**
 * A repository-relative path, or undefined for one that points outside (absolute, `..`). A package's report
 * (`check --root`) names its files relative to the package: `root` is joined in front.
 */
function repoPath(file: string | undefined, root?: string | undefined): string | undefined {
  if (!file) return undefined;
  if (root) return repoPathOf(root, file);
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
      path: repoPath(f.file, view.root),
      line: lineOf(f.line),
      title: `proofgate: ${f.reason}`,
      message: `${inertText(f.message)}${by}\nfix: ${inertText(f.fix)}`,
    });
  }
  for (const e of view.errors) {
    out.push({
      level: "failure",
      path: repoPath(e.file, view.root),
      line: lineOf(e.line),
      title: `proofgate could not evaluate (${e.code})`,
      message: inertText(formatIssue({ ...e, file: undefined })),
    });
  }
  for (const w of view.warnings)
    out.push({ level: "warning", title: "proofgate warning", message: inertText(formatIssue(w)) });
  return out;
}

/** At most this many frozen-only notices per check run, the ranges the patch touched first, then the most lines. */
export const FROZEN_ONLY_NOTICES = 200;
/**
 * A check run's annotations in all: the reasons, errors and warnings always go; frozen-only notices
 * fill what is left of this, never pushing one of them out.
 */
export const CHECK_RUN_ANNOTATIONS = 1000;
/** How many frozen tests one notice names. */
const TESTS_PER_NOTICE = 10;

/** One frozen-only range as a notice: where, how many lines, and the frozen tests (with leases) behind it. */
export function frozenOnlyAnnotation(range: FrozenOnlyRangeView, root?: string): GateAnnotation | undefined {
  const path = repoPath(range.path, root);
  const start = lineOf(range.start);
  if (!path || !start) return undefined;
  const end = lineOf(range.end) ?? start;
  const what = `${range.lines} line${range.lines === 1 ? "" : "s"} (${lineSpan(range)}) run only under frozen tests: proven coverage does not count ${range.lines === 1 ? "it" : "them"}.`;
  const tests =
    range.tests === null
      ? "The full run's report does not say which frozen tests run them (rerun mode)."
      : range.tests.length === 0
        ? "No frozen test was recorded on them."
        : `Frozen tests:\n${range.tests
            .slice(0, TESTS_PER_NOTICE)
            .map((t) => `- ${frozenTestText(t, inertText)}`)
            .join(
              "\n",
            )}${range.tests.length > TESTS_PER_NOTICE ? `\n- and ${range.tests.length - TESTS_PER_NOTICE} more (report.json)` : ""}`;
  return {
    level: "notice",
    path,
    line: start,
    endLine: Math.max(start, end),
    title: `proofgate: only frozen tests run ${lineSpan(range)}`,
    message: `${what}${range.patch ? " The patch touched them." : ""}\n${tests}`,
  };
}

/** The check run's annotations: the report's (all of them), then frozen-only notices within the caps. */
export interface CheckRunAnnotations {
  annotations: GateAnnotation[];
  /** Frozen-only ranges in the report, and how many of them became notices. */
  frozenOnly: { ranges: number; annotated: number; cap: number };
  /** A line for the check run's summary when ranges were left out; undefined when none were. */
  note?: string | undefined;
}

/**
 * The report's annotations and, after them, one notice per frozen-only range (at most `cap`, within
 * `total` annotations in all): the ranges the patch touched first, then the most lines.
 */
export function checkRunAnnotations(
  view: GateReport,
  options: { cap?: number; total?: number } = {},
): CheckRunAnnotations {
  const cap = options.cap ?? FROZEN_ONLY_NOTICES;
  const reasons = reportAnnotations(view);
  const pinned = reasons.filter((a) => a.path !== undefined).length;
  const room = Math.max(0, Math.min(cap, (options.total ?? CHECK_RUN_ANNOTATIONS) - pinned));
  const notices = rangesByPriority(frozenOnlyRanges(view))
    .map((range) => frozenOnlyAnnotation(range, view.root))
    .filter((a): a is GateAnnotation => a !== undefined);
  const kept = notices.slice(0, room);
  const left = notices.length - kept.length;
  return {
    annotations: [...reasons, ...kept],
    frozenOnly: { ranges: notices.length, annotated: kept.length, cap },
    note:
      left > 0
        ? `${left} of ${notices.length} frozen-only ranges are not annotated (at most ${cap} notices per check run, the most lines first); report.json's \`coverage.frozen_only\` and the summary's list have them.`
        : undefined,
  };
}

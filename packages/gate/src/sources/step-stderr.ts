// What a `check --run` step that failed says about itself: its exit code and the last lines it wrote to
// stderr, so an error that follows names the step's own failure, not a symptom (a file it did not write).

/** Lines of stderr a failure quotes, and the longest line kept. */
const TAIL_LINES = 5;
const LINE_MAX = 200;
/** Stderr kept while the step runs: enough for TAIL_LINES long lines. */
const KEEP = 8192;

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Collects the end of a step's stderr as it comes. */
export interface StderrTail {
  /** Pass each chunk the step writes to stderr. */
  push: (text: string) => void;
  /** The last non-blank lines, each cut to LINE_MAX characters. */
  lines: () => string[];
}

/** A collector that keeps only the end of what it is given. */
export function stderrTail(): StderrTail {
  let kept = "";
  return {
    push: (text) => {
      kept = (kept + text).slice(-KEEP);
    },
    lines: () =>
      kept
        .replace(ANSI, "")
        .split(/\r?\n/)
        .map((l) => l.trimEnd())
        .filter((l) => l.trim() !== "")
        .slice(-TAIL_LINES)
        .map((l) => (l.length > LINE_MAX ? `${l.slice(0, LINE_MAX)}…` : l)),
  };
}

/** `its stderr ended: a | b`, or `it wrote nothing to stderr`. */
export function stderrNote(stderr: readonly string[]): string {
  return stderr.length === 0 ? "it wrote nothing to stderr" : `its stderr ended: ${stderr.join(" | ")}`;
}

// What the CLI prints about problems: the errors that end a command (exit 2) and the warnings that do
// not. Light imports only (core's errors and render modules): `proofgate lock` loads it without the rest
// of core (bundle.test.ts keeps the lock path light).
import { GateError, formatIssue, type GateIssue } from "@proofgate/core/errors";
import { palette, terminalSafe } from "@proofgate/core/render";
import type { GateLog } from "@proofgate/gate";
import { colorWanted, type CliIo } from "./io.js";

/**
 * A command's failure as the CLI reports it: one `proofgate: error:` line per problem (a GateError's
 * issues, or the internal error), and the stack when PROOFGATE_DEBUG is set. Returns the issues; the
 * exit code is 2.
 */
export function printFailure(error: unknown, io: CliIo): GateIssue[] {
  const issues: GateIssue[] = GateError.isInstance(error)
    ? [...error.issues]
    : [
        {
          code: "usage",
          message: `internal error: ${error instanceof Error ? error.message : String(error)}`,
          fix: "report this at the proofgate issue tracker, with the command line",
        },
      ];
  printIssues(io, issues);
  if (io.env.PROOFGATE_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return issues;
}

/** Problems on stderr, one `proofgate: error:` line each, shown inert (they may quote the patch's text). */
export function printIssues(io: CliIo, issues: readonly GateIssue[]): void {
  for (const issue of issues) io.stderr(`proofgate: error: ${terminalSafe(formatIssue(issue))}\n`);
}

/** Warnings on stderr, one line each. They quote the patch's own text (test ids, file names): shown inert, as in the report. */
export function printWarnings(io: CliIo, warnings: readonly GateIssue[]): void {
  for (const w of warnings) io.stderr(`proofgate: warning: ${terminalSafe(formatIssue(w))}\n`);
}

/**
 * The gate's progress on stderr: notes, warnings (unless the rendering on stdout lists them), and each
 * command of `--run` with its output.
 */
export function cliLog(io: CliIo, options: { warnings: boolean } = { warnings: true }): GateLog {
  const c = palette(colorWanted(io));
  return {
    info: (line) => io.stderr(`proofgate: ${terminalSafe(line)}\n`),
    warn: (line) => io.stderr(`proofgate: warning: ${terminalSafe(line)}\n`),
    issues: (warnings) => (options.warnings ? printWarnings(io, warnings) : undefined),
    stepStarted: (step, command) => io.stderr(`proofgate: ${c.bold(`▶ ${step}`)}: ${command}\n`),
    stepEnded: (step, exitCode, seconds) =>
      io.stderr(
        `proofgate: ${exitCode === 0 ? c.green(`✔ ${step}`) : c.red(`✘ ${step} exited with ${exitCode}`)} (${seconds.toFixed(1)} s)\n`,
      ),
    output: (text) => io.stderr(text),
  };
}

/** A time span on the process's clock (ms since it started). */
interface Span {
  name: string;
  from: number;
  to: number;
}

/**
 * `check --verbose`: wraps a log to time each step of `--run` and the gate's own phases on `clock` (ms
 * since the process started), and `summary()` says where the whole process's time went: the steps, the
 * phases, and the rest (Node, git, reading the evidence, deciding, writing the report), so that the
 * parts add up to the total even when steps overlap.
 */
export function timedLog(log: GateLog, clock: () => number): { log: GateLog; summary: () => string[] } {
  const spans: Span[] = [];
  const open = new Map<string, number[]>();
  const timed: GateLog = {
    ...log,
    stepStarted: (step, command) => {
      open.set(step, [...(open.get(step) ?? []), clock()]);
      log.stepStarted(step, command);
    },
    stepEnded: (step, exitCode, seconds) => {
      const from = open.get(step)?.shift();
      const to = clock();
      spans.push({ name: step, from: from ?? to - seconds * 1000, to });
      log.stepEnded(step, exitCode, seconds);
    },
    timing: (phase, seconds) => {
      const to = clock();
      spans.push({ name: phase, from: to - seconds * 1000, to });
      log.timing?.(phase, seconds);
    },
  };
  const summary = (): string[] => {
    const total = clock();
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    // In the order they started (steps that overlap end in either order).
    const lines = [...spans].sort((a, b) => a.from - b.from).map((p) => `${p.name} ${s(p.to - p.from)}`);
    // The union of the spans: what is left is the gate's own work (and Node's start-up).
    let covered = 0;
    let end = 0;
    for (const p of [...spans].sort((a, b) => a.from - b.from)) {
      const from = Math.max(p.from, end);
      if (p.to > from) covered += p.to - from;
      end = Math.max(end, p.to);
    }
    lines.push(`gate (Node, git, reading, deciding, writing) ${s(Math.max(0, total - covered))}`, `total ${s(total)}`);
    return lines.map((l) => `proofgate: time: ${l}\n`);
  };
  return { log: timed, summary };
}

// What the gate tells its caller while it works: notes, warnings, and the configured commands' progress
// and output. The cli prints them to stderr; a library user may collect them.
import type { CommandStep, GateIssue } from "@proofgate/core";

/** A step the log names: a configured command, or one of them run on the base (`check --run`). */
export type LogStep =
  | CommandStep
  | "base setup"
  | "base collect"
  | "base properties"
  | "base coverage settings"
  | "base marked skips"
  | "base skips"
  | "record";

/** Where the gate's progress goes. */
export interface GateLog {
  /** A note for the log. */
  info: (line: string) => void;
  /** A warning that does not change the decision. */
  warn: (line: string) => void;
  /** Problems with an input that do not stop the gate (they are in the report too). */
  issues: (warnings: readonly GateIssue[]) => void;
  /** A command of `--run` started. */
  stepStarted: (step: LogStep, command: string) => void;
  /** It ended, with its exit code, after `seconds`. */
  stepEnded: (step: LogStep, exitCode: number, seconds: number) => void;
  /** A command's output, as it comes. */
  output: (text: string) => void;
  /** The gate's own work outside the commands, timed (`base worktree`, `base worktree removed`); optional. */
  timing?: ((phase: string, seconds: number) => void) | undefined;
}

/** A log that keeps nothing. */
export const silentLog: GateLog = {
  info: () => {},
  warn: () => {},
  issues: () => {},
  stepStarted: () => {},
  stepEnded: () => {},
  output: () => {},
};

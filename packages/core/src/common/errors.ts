/** Stable codes for everything that keeps the gate from evaluating. Each maps to exit code 2. */
export type GateErrorCode =
  | "file_missing"
  | "file_unreadable"
  | "file_empty"
  | "ledger_syntax"
  | "ledger_invalid"
  | "universe_invalid"
  | "universe_empty"
  | "coverage_invalid"
  | "config_invalid"
  | "coverage_config_invalid"
  | "results_invalid"
  | "run_record_invalid"
  | "evidence_stale"
  | "evidence_unbound"
  | "lock_invalid"
  | "fixtures_invalid"
  | "git_failed"
  | "work_tree_dirty"
  | "shallow_history"
  | "usage"
  | "deselect_refused"
  | "platform_failed"
  /** A `[commands]` step ran past `[commands] timeout` and was stopped with its child processes. */
  | "command_timeout"
  /** A warning only: the project is part of its own test runner, whose integrity then cannot be established. */
  | "runner_unverifiable"
  | "internal_error";

/** Where an error points: the file, and the 1-based line when the format has lines. */
export interface GateErrorLocation {
  file?: string | undefined;
  line?: number | undefined;
}

/** One problem with an input, as data: what, where, and what to write instead. */
export interface GateIssue extends GateErrorLocation {
  code: GateErrorCode;
  message: string;
  fix?: string | undefined;
}

/** Formats an issue (or a finding) as the one line a user reads: `file:line: message. Fix: ...`. */
export function formatIssue(issue: Pick<GateIssue, "file" | "line" | "message" | "fix">): string {
  const where = issue.file ? `${issue.file}${issue.line ? `:${issue.line}` : ""}: ` : "";
  const fix = issue.fix ? `${/[.!?:]$/.test(issue.message) ? "" : "."} Fix: ${issue.fix}` : "";
  return `${where}${issue.message}${fix}`;
}

/**
 * The gate could not evaluate: bad input or usage. Carries one or more issues; the CLI prints each
 * on one line and exits 2. Never a MERGE.
 */
export class GateError extends Error {
  override readonly name = "GateError";
  readonly issues: readonly GateIssue[];

  constructor(issues: GateIssue | readonly GateIssue[], options?: { cause?: unknown }) {
    const list = Array.isArray(issues) ? (issues as readonly GateIssue[]) : [issues as GateIssue];
    super(list.map(formatIssue).join("\n"), options);
    this.issues = list;
  }

  /** The first issue's code. */
  get code(): GateErrorCode {
    return this.issues[0]?.code ?? "usage";
  }

  /** True for a GateError from any copy of this module (bundles may hold two). */
  static isInstance(value: unknown): value is GateError {
    return (
      value instanceof GateError ||
      (typeof value === "object" &&
        value !== null &&
        (value as { name?: unknown }).name === "GateError" &&
        Array.isArray((value as { issues?: unknown }).issues))
    );
  }
}

/** Throws the parse result's errors as one GateError; returns its value otherwise. */
export function orThrow<T>(result: { errors: readonly GateIssue[] }, value: T | undefined): T {
  if (result.errors.length > 0 || value === undefined)
    throw new GateError(result.errors.length ? result.errors : [{ code: "usage", message: "no value" }]);
  return value;
}

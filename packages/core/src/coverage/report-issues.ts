import type { CoverageData, CoverageReadResult } from "./coverage-model.js";
import type { GateIssue } from "../common/errors.js";

/** More than this many errors in one report are summed up in one last issue. */
export const MAX_ERRORS_PER_REPORT = 20;

/** Collects the errors and warnings of one report, all with code `coverage_invalid` and the report's path. */
export class ReportIssues {
  readonly errors: GateIssue[] = [];
  readonly warnings: GateIssue[] = [];
  private suppressed = 0;

  constructor(
    readonly file: string,
    /** The fix given when an issue names none. */
    readonly defaultFix: string,
  ) {}

  /** Records an error; past {@link MAX_ERRORS_PER_REPORT} it is only counted. */
  error(message: string, line?: number, fix?: string): void {
    if (this.errors.length >= MAX_ERRORS_PER_REPORT) {
      this.suppressed++;
      return;
    }
    this.errors.push(issue(this.file, message, line, fix ?? this.defaultFix));
  }

  /** Records a warning: the report was read, but something in it deserves a look. */
  warn(message: string, line?: number, fix?: string): void {
    this.warnings.push(issue(this.file, message, line, fix));
  }

  /** Whether any error was recorded. */
  get failed(): boolean {
    return this.errors.length > 0;
  }

  /** The reader's result: the data when there were no errors, else the errors (and the count of any cut off). */
  result(data: CoverageData | undefined): CoverageReadResult {
    if (this.suppressed > 0) {
      this.errors.push(
        issue(
          this.file,
          `... and ${this.suppressed} more error${this.suppressed === 1 ? "" : "s"} in this report`,
          undefined,
          this.defaultFix,
        ),
      );
      this.suppressed = 0;
    }
    if (this.errors.length > 0 || data === undefined) return { errors: this.errors, warnings: this.warnings };
    return { data, errors: [], warnings: this.warnings };
  }
}

function issue(file: string, message: string, line: number | undefined, fix: string | undefined): GateIssue {
  const out: GateIssue = { code: "coverage_invalid", file, message };
  if (line !== undefined) out.line = line;
  if (fix !== undefined) out.fix = fix;
  return out;
}

/** A whole number >= 0 that JavaScript holds exactly. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A source line number: a whole number >= 1. */
export function isLineNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Describes a JSON value for a message, cut to a readable length. */
export function describeValue(value: unknown): string {
  const text = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Parses a JSON report. On a syntax error records one error with the line it points at (the last line
 * when the file is cut off) and returns undefined.
 */
export function parseJsonReport(text: string, issues: ReportIssues, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = String((error as Error).message).split("\n")[0] ?? "";
    const position = /position (\d+)/.exec(message);
    const lineColumn = /line (\d+) column/.exec(message);
    const line = position
      ? text.slice(0, Number(position[1])).split("\n").length
      : lineColumn
        ? Number(lineColumn[1])
        : /end of JSON input/i.test(message)
          ? text.trimEnd().split("\n").length
          : undefined;
    issues.error(`not valid JSON (${message}): the file is truncated or is not ${what}`, line);
    return undefined;
  }
}

export { LineIndex } from "../common/text-lines.js";

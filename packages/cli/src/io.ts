// Core by module, not through its index: `proofgate lock` loads this without the rest of core.
import { parseIsoDate, utcDateOf, type IsoDate } from "@proofgate/core/dates";
import { GateError } from "@proofgate/core/errors";

/** The process's streams and clock, injected so tests run the CLI in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The machine's clock. Only the CLI reads it; core is handed `today`. */
  now: () => Date;
  cwd: string;
  /** The environment (CI variables, NO_COLOR): the process's, read once at the entry point (bin.ts). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal (colour, progress lines). */
  isTTY?: boolean | undefined;
  /** The terminal's width in columns, when stdout is one. */
  columns?: number | undefined;
}

/** Colour on a terminal, unless `NO_COLOR` is set (https://no-color.org); `FORCE_COLOR` forces it. */
export function colorWanted(io: CliIo): boolean {
  const { env } = io;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return io.isTTY === true && env.TERM !== "dumb";
}

/**
 * The width to fit the terminal rendering to: `COLUMNS` when set (a user's or a CI's choice), else the
 * terminal's; undefined when stdout is no terminal (a CI log keeps the table on one line per row).
 */
export function terminalWidth(io: CliIo): number | undefined {
  const columns = io.env.COLUMNS?.trim();
  if (columns && /^\d+$/.test(columns) && Number(columns) >= 40) return Number(columns);
  return io.isTTY && io.columns && io.columns >= 40 ? io.columns : undefined;
}

/** Today's UTC date, from `--today` (a preview) or the machine's clock. */
export function resolveToday(flag: string | undefined, io: CliIo): { today: IsoDate; override: boolean } {
  if (flag === undefined) return { today: utcDateOf(io.now()), override: false };
  const today = parseIsoDate(flag);
  if (!today)
    throw new GateError({
      code: "usage",
      message: `--today ${JSON.stringify(flag)} is not a YYYY-MM-DD date`,
      fix: "write e.g. --today 2026-09-26",
    });
  return { today, override: today !== utcDateOf(io.now()) };
}

// Core by module, not through its index: `proofgate lock` loads this without the rest of core.
import { parseIsoDate, utcDateOf, type IsoDate } from "@proofgate/core/dates";
import { GateError } from "@proofgate/core/errors";

import type { CliIo } from "./cli-io.js";

export type { CliIo } from "./cli-io.js";

/** Colour on a terminal, unless `NO_COLOR` is set (https://no-color.org); `FORCE_COLOR` forces it. */
export function colorWanted(io: CliIo): boolean {
  const { env } = io;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return io.isTTY === true && env.TERM !== "dumb";
}

/** The width of a CI log (stdout no terminal, no `COLUMNS`): what its viewers show without scrolling. */
export const LOG_WIDTH = 120;

/**
 * The width to fit the terminal rendering to: `COLUMNS` when set (a user's or a CI's choice), else the
 * terminal's, else LOG_WIDTH (a log whose value column ran to its longest cell was 300 columns wide).
 * report.txt, report.md and report.json keep every cell whole.
 */
export function terminalWidth(io: CliIo): number {
  const columns = io.env.COLUMNS?.trim();
  if (columns && /^\d+$/.test(columns) && Number(columns) >= 40) return Number(columns);
  return io.isTTY && io.columns && io.columns >= 40 ? io.columns : LOG_WIDTH;
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

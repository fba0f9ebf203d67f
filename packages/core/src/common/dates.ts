/** A calendar date as `YYYY-MM-DD`. Strings of this shape compare correctly with `<`. */
export type IsoDate = string;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a strict `YYYY-MM-DD` calendar date; undefined for any other shape or an impossible day. */
export function parseIsoDate(text: string): IsoDate | undefined {
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  return text;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function toEpochDay(date: IsoDate): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return Math.round(Date.UTC(y, m - 1, d) / 86_400_000);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return toEpochDay(to) - toEpochDay(from);
}

/** The UTC calendar date of an instant. The caller supplies the instant: core never reads the clock. */
export function utcDateOf(instant: Date): IsoDate {
  return instant.toISOString().slice(0, 10);
}

/** The date `days` whole days after `date` (before it, when negative). */
export function addDays(date: IsoDate, days: number): IsoDate {
  return new Date((toEpochDay(date) + days) * 86_400_000).toISOString().slice(0, 10);
}

import { describe, expect, it } from "vitest";
import { daysBetween, parseIsoDate, utcDateOf } from "./dates.js";

describe("parseIsoDate", () => {
  it.each([
    ["2026-09-26", "2026-09-26"],
    ["2024-02-29", "2024-02-29"], // leap year
    ["2000-02-29", "2000-02-29"], // divisible by 400
    ["2026-12-31", "2026-12-31"],
    ["0001-01-01", "0001-01-01"],
  ])("accepts the calendar date %s", (text, expected) => {
    expect(parseIsoDate(text)).toBe(expected);
  });

  it.each([
    ["2026-02-30", "a day February never has"],
    ["2026-02-29", "Feb 29 in a common year"],
    ["1900-02-29", "Feb 29 in a century year not divisible by 400"],
    ["2026-04-31", "April has 30 days"],
    ["2026-13-01", "month 13"],
    ["2026-00-10", "month 0"],
    ["2026-01-00", "day 0"],
    ["0000-01-01", "year 0"],
    ["26/09/2026", "day/month/year"],
    ["2026-9-26", "no zero padding"],
    ["2026-09-26T00:00:00Z", "a date-time"],
    [" 2026-09-26", "leading space"],
    ["2026-09-26\n", "trailing newline"],
    ["20260926", "basic format"],
    ["", "empty"],
  ])("rejects %j (%s)", (text) => {
    expect(parseIsoDate(text)).toBeUndefined();
  });
});

describe("daysBetween", () => {
  it.each([
    ["2026-09-26", "2026-09-26", 0],
    ["2026-09-26", "2026-09-27", 1],
    ["2026-09-27", "2026-09-26", -1],
    ["2026-02-28", "2026-03-01", 1],
    ["2024-02-28", "2024-03-01", 2],
    ["2025-12-31", "2026-01-01", 1],
    ["2026-01-01", "2027-01-01", 365],
    ["2024-01-01", "2025-01-01", 366],
    // across the European DST change: whole days, not 23 or 25 hours
    ["2026-03-28", "2026-03-30", 2],
  ])("from %s to %s is %i days", (from, to, days) => {
    expect(daysBetween(from, to)).toBe(days);
  });
});

describe("utcDateOf", () => {
  it("takes the UTC calendar day, not the local one", () => {
    expect(utcDateOf(new Date("2026-09-26T23:59:59.999Z"))).toBe("2026-09-26");
    expect(utcDateOf(new Date("2026-09-27T00:00:00.000Z"))).toBe("2026-09-27");
    expect(utcDateOf(new Date("2026-09-27T01:30:00+02:00"))).toBe("2026-09-26");
  });
});

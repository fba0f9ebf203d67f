import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCoveragePyJson } from "./coverage-json.js";
import { coveragePercent } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";

const FILE = "proven_coverage.json";
/**
 * coverage65-*.json: real `coverage json` output of coverage.py 6.5 (format 1: no `meta.format`).
 * coverage7-format2/3-*.json: the same data in the shapes of coverage.py 7.x (`meta.format` 2 and 3;
 * format 3 adds per-file `functions`/`classes` and the split percentages).
 */
const recorded = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/coveragepy/${name}`, import.meta.url), "utf8");

function parseOk(text: string) {
  const result = parseCoveragePyJson(text, FILE);
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.totals).toBeDefined();
  return result.totals!;
}

function onlyError(text: string) {
  const result = parseCoveragePyJson(text, FILE);
  expect(result.totals).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.file).toBe(FILE);
    expect(e.fix).toBeTruthy();
  }
  return result.errors;
}

/** A consistent line-only report (format 2) with `totals` overridden. */
function report(totals: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): string {
  const base = { covered_lines: 7, num_statements: 10, percent_covered: 70.0, missing_lines: 3, excluded_lines: 0 };
  return JSON.stringify({
    meta: { format: 2, version: "7.4.4" },
    ...(totals === undefined ? {} : { totals: { ...base, ...totals } }),
    ...extra,
  });
}

describe("parseCoveragePyJson: the formats of coverage.py 6.5 through 7.x", () => {
  it("reads format 1 (coverage 6.5, no meta.format), lines only", () => {
    expect(parseOk(recorded("coverage65-lines.json"))).toEqual({
      file: FILE,
      format: 1,
      percent: 76.92307692307692,
      statements: 13,
      coveredLines: 10,
      branches: 0,
      coveredBranches: 0,
      lineRate: 10 / 13,
      branchRate: 1,
      hasBranches: false,
    });
  });

  it.each([
    ["coverage65-branch.json", 1],
    ["coverage7-format2-branch.json", 2],
    ["coverage7-format3-branch.json", 3],
  ])("reads %s (format %i) with branches: (lines + branches) / (statements + branches)", (name, format) => {
    const totals = parseOk(recorded(name));
    expect(totals).toMatchObject({
      format,
      statements: 13,
      coveredLines: 10,
      branches: 6,
      coveredBranches: 4,
      hasBranches: true,
    });
    expect(totals.percent).toBe(73.6842105263158);
    expect(totals.percent).toBeCloseTo((100 * (10 + 4)) / (13 + 6), 12);
    expect(totals.lineRate).toBeCloseTo(10 / 13, 15);
    expect(totals.branchRate).toBeCloseTo(4 / 6, 15);
  });

  it("accepts a report that measured no statements (100%, as coverage.py says); decide reports it", () => {
    expect(
      parseOk(report({ covered_lines: 0, num_statements: 0, percent_covered: 100.0, missing_lines: 0 })),
    ).toMatchObject({ statements: 0, percent: 100 });
  });

  it("accepts a report without `files` (totals are what counts)", () => {
    expect(parseOk(report({})).percent).toBe(70);
  });
});

describe("parseCoveragePyJson: bad reports are errors, never a number", () => {
  const cases: Array<[name: string, text: string, message: RegExp]> = [
    ["no totals (the reference script reads 0.0)", report(undefined, { files: {} }), /no `totals`/],
    ["totals is null", JSON.stringify({ meta: { format: 2 }, totals: null }), /`totals` is not an object/],
    ["totals is an array", JSON.stringify({ totals: [70] }), /`totals` is not an object/],
    [
      "percent_covered missing",
      JSON.stringify({ totals: { covered_lines: 7, num_statements: 10 } }),
      /`totals.percent_covered` is missing/,
    ],
    [
      "num_statements missing",
      JSON.stringify({ totals: { covered_lines: 7, percent_covered: 70.0 } }),
      /`totals.num_statements` is missing/,
    ],
    [
      "covered_lines missing",
      JSON.stringify({ totals: { num_statements: 10, percent_covered: 70.0 } }),
      /`totals.covered_lines` is missing/,
    ],
    [
      "percent as a string",
      report({ percent_covered: "70.0" }),
      /percent_covered` must be a number from 0 to 100, not "70.0"/,
    ],
    [
      "percent null (a NaN written by a JSON encoder)",
      report({ percent_covered: null }),
      /percent_covered` must be a number from 0 to 100, not null/,
    ],
    ["percent above 100", report({ covered_lines: 10, percent_covered: 100.5 }), /from 0 to 100, not 100.5/],
    ["percent negative", report({ percent_covered: -1 }), /from 0 to 100, not -1/],
    [
      "statements as a string",
      report({ num_statements: "10" }),
      /`totals.num_statements` must be a whole number >= 0, not "10"/,
    ],
    ["statements negative", report({ num_statements: -10 }), /num_statements` must be a whole number >= 0, not -10/],
    [
      "statements fractional",
      report({ num_statements: 10.5 }),
      /num_statements` must be a whole number >= 0, not 10.5/,
    ],
    ["covered_lines negative", report({ covered_lines: -7 }), /covered_lines` must be a whole number >= 0/],
    ["num_branches without covered_branches", report({ num_branches: 4 }), /`totals.covered_branches` is missing/],
    [
      "covered_branches as a string",
      report({ num_branches: 4, covered_branches: "2" }),
      /covered_branches` must be a whole number/,
    ],
    [
      "covered lines exceed statements",
      report({ covered_lines: 11, percent_covered: 100 }),
      /`totals.covered_lines` \(11\) exceeds `num_statements` \(10\)/,
    ],
    [
      "covered branches exceed branches",
      report({ num_branches: 2, covered_branches: 3, percent_covered: 83.33333333333333 }),
      /`totals.covered_branches` \(3\) exceeds `num_branches` \(2\)/,
    ],
    [
      "percent that the counts do not give (edited)",
      report({ percent_covered: 90.0 }),
      /percent_covered` is 90 but the counts give 70/,
    ],
    [
      "percent with branches ignored",
      report({ num_branches: 10, covered_branches: 0, percent_covered: 70.0 }),
      /counts give 35/,
    ],
    [
      "files that do not add up to totals",
      report({}, { files: { "a.py": { summary: { covered_lines: 7, num_statements: 9 } } } }),
      /files add up to 7\/9 lines but `totals` says 7\/10/,
    ],
    [
      "a file without summary",
      report({}, { files: { "a.py": { executed_lines: [1] } } }),
      /`files\["a.py"\]` has no `summary`/,
    ],
    ["files as an array", report({}, { files: [] }), /`files` is not an object/],
    [
      "unknown format 4",
      JSON.stringify({ meta: { format: 4 }, totals: { covered_lines: 7, num_statements: 10, percent_covered: 70.0 } }),
      /format 4 is not one this proofgate reads \(1, 2, 3\)/,
    ],
    [
      "format as a string",
      JSON.stringify({
        meta: { format: "2" },
        totals: { covered_lines: 7, num_statements: 10, percent_covered: 70.0 },
      }),
      /format "2" is not one/,
    ],
    ["meta not an object", JSON.stringify({ meta: 3, totals: {} }), /`meta` is not an object/],
    ["top level is an array", "[1, 2]", /top level is not an object/],
    ["top level is a number", "70.0", /top level is not an object/],
    [
      "a literal NaN (Python's json default)",
      '{"totals": {"covered_lines": 7, "num_statements": 10, "percent_covered": NaN}}',
      /not valid JSON/,
    ],
    ["LCOV instead of JSON", "TN:\nSF:a.py\nDA:1,1\nend_of_record\n", /not valid JSON/],
    ["empty", "", /empty/],
    ["only whitespace", " \n\t\n", /empty/],
  ];

  it.each(cases)("%s", (_name, text, message) => {
    const errors = onlyError(text);
    expect(errors.map((e) => e.message).join("\n")).toMatch(message);
  });

  it("reports every bad count at once", () => {
    const errors = onlyError(report({ num_statements: "x", covered_lines: -1, percent_covered: "y" }));
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining("num_statements"),
      expect.stringContaining("covered_lines"),
      expect.stringContaining("percent_covered"),
    ]);
  });

  it.each([
    ["cut off mid-file", (t: string) => t.slice(0, Math.floor(t.length / 2))],
    ["cut off after a comma", (t: string) => t.slice(0, t.indexOf('"totals"'))],
    ["cut off at the end", (t: string) => t.trimEnd().slice(0, -1)],
    ["cut off after a key (no position from V8)", (t: string) => t.slice(0, t.indexOf('"totals": ') + 10)],
    ["cut off inside a number", (t: string) => t.slice(0, t.lastIndexOf('"num_statements": ') + 19)],
  ])("reports a truncated report (%s) with its line", (_name, cut) => {
    const text = cut(recorded("coverage7-format3-branch.json"));
    const [error] = onlyError(text);
    expect(error!.message).toMatch(/not valid JSON.*truncated/);
    // The last line with text, or the (blank) line right after it where the parser stopped.
    expect(error!.line).toBeGreaterThanOrEqual(text.trimEnd().split("\n").length);
    expect(error!.line).toBeLessThanOrEqual(text.split("\n").length);
    expect(formatIssue(error!)).toMatch(new RegExp(`^proven_coverage\\.json:${error!.line}: `));
  });

  it("points at the line of a syntax error inside the file", () => {
    const text = '{\n  "meta": {"format": 2},\n  "totals": {"covered_lines": 7 "num_statements": 10}\n}\n';
    expect(onlyError(text)[0]!.line).toBe(3);
  });
});

describe("coveragePercent", () => {
  it.each([
    [10, 7, 0, 0, 70],
    [13, 10, 6, 4, (100 * 14) / 19],
    [0, 0, 0, 0, 100],
    [10, 10, 4, 4, 100],
    [10, 0, 4, 0, 0],
  ])("statements %i, covered %i, branches %i, covered branches %i: %f%%", (s, c, b, cb, pct) => {
    expect(coveragePercent(s, c, b, cb)).toBeCloseTo(pct, 12);
  });
});

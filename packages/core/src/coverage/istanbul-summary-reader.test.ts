import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hasSets, summarizeCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readIstanbulFinal } from "./istanbul-final-reader.js";
import { readIstanbulSummary } from "./istanbul-summary-reader.js";

/** Real vitest 4.1.12 + @vitest/coverage-v8 output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const FILE = "coverage-summary.json";
const ROOT = "/tmp/pgcov-js";

function errorsOf(text: string): string[] {
  const result = readIstanbulSummary(text, FILE, { root: ROOT });
  expect(result.data).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

describe("readIstanbulSummary", () => {
  it("vitest 4.1.12: counts-only entries whose totals equal the coverage-final.json of the same run", () => {
    const result = readIstanbulSummary(recorded("istanbul-vitest-4.1.12-summary.json"), FILE, { root: ROOT });
    expect(result.errors.map(formatIssue)).toEqual([]);
    const data = result.data!;
    expect(data.format).toBe("istanbul-summary");
    expect(data.files.get("src/cart.js")).toEqual({
      path: "src/cart.js",
      statements: 18,
      coveredStatements: 13,
      branches: 13,
      coveredBranches: 8,
    });
    expect([...data.files.values()].some(hasSets)).toBe(false);
    const final = readIstanbulFinal(recorded("istanbul-vitest-4.1.12-final.json"), "coverage-final.json", {
      root: ROOT,
    }).data!;
    expect(summarizeCoverage(data)).toEqual(summarizeCoverage(final));
  });

  it('`pct` "Unknown" (a total of 0) is accepted; the report\'s percentages are never used', () => {
    const report = {
      total: {
        lines: { total: 0, covered: 0, skipped: 0, pct: "Unknown" },
        statements: { total: 2, covered: 1, skipped: 0, pct: 99 },
        branches: { total: 0, covered: 0, skipped: 0, pct: "Unknown" },
      },
      "src/a.js": {
        statements: { total: 2, covered: 1, skipped: 0, pct: 99 },
        branches: { total: 0, covered: 0, skipped: 0, pct: "Unknown" },
      },
    };
    const result = readIstanbulSummary(JSON.stringify(report), FILE);
    expect(result.errors).toEqual([]);
    expect(summarizeCoverage(result.data!).percent).toBe(50);
  });

  describe("bad input", () => {
    const summary = (): Record<string, Record<string, Record<string, unknown>>> =>
      JSON.parse(recorded("istanbul-vitest-4.1.12-summary.json"));
    const cart = `${ROOT}/src/cart.js`;

    it("empty, truncated, wrong schema", () => {
      expect(errorsOf("")).toEqual([expect.stringContaining("empty")]);
      expect(errorsOf(recorded("istanbul-vitest-4.1.12-summary.json").slice(0, 500))[0]).toMatch(/not valid JSON/);
      expect(errorsOf(recorded("istanbul-vitest-4.1.12-final.json"))[0]).toMatch(/no `total` entry/);
      const noBranches = summary();
      delete noBranches[cart]!.branches;
      expect(errorsOf(JSON.stringify(noBranches))[0]).toMatch(/has no `branches` object/);
      expect(errorsOf(JSON.stringify({ total: summary().total }))[0]).toMatch(/lists no files/);
    });

    it("negative, NaN, covered > total, a bad pct, a total that is not the sum", () => {
      const negative = summary();
      negative[cart]!.statements!.covered = -1;
      expect(errorsOf(JSON.stringify(negative))[0]).toMatch(
        /statements: `total` and `covered` must be whole numbers >= 0, not 18 and -1/,
      );
      const over = summary();
      over[cart]!.branches!.covered = 14;
      expect(errorsOf(JSON.stringify(over))[0]).toMatch(/`covered` \(14\) exceeds `total` \(13\)/);
      const pct = summary();
      pct[cart]!.statements!.pct = "n/a";
      expect(errorsOf(JSON.stringify(pct))[0]).toMatch(/`pct` is "n\/a", neither a number nor "Unknown"/);
      const total = summary();
      total.total!.statements!.covered = 17;
      expect(errorsOf(JSON.stringify(total))[0]).toMatch(
        /the files add up to 16\/24 statements .* `total` says 17\/24/,
      );
    });
  });
});

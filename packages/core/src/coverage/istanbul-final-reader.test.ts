import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readIstanbulFinal } from "./istanbul-final-reader.js";

/** Real vitest 4.1.12 + @vitest/coverage-v8 output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const FILE = "coverage-final.json";
const ROOT = "/tmp/pgcov-js";

function readOk(text: string): CoverageData {
  const result = readIstanbulFinal(text, FILE, { root: ROOT });
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.warnings).toEqual([]);
  return result.data!;
}

function errorsOf(text: string): string[] {
  const result = readIstanbulFinal(text, FILE, { root: ROOT });
  expect(result.data).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.file).toBe(FILE);
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

type Summary = Record<string, Record<string, { total: number; covered: number }>>;

describe("readIstanbulFinal: vitest 4.1.12", () => {
  it("statements and branches equal vitest's own json-summary, file by file, and its printed percentages", () => {
    const data = readOk(recorded("istanbul-vitest-4.1.12-final.json"));
    const summary = JSON.parse(recorded("istanbul-vitest-4.1.12-summary.json")) as Summary;
    expect(data.format).toBe("istanbul-final");
    expect([...data.files.keys()].sort()).toEqual(["src/cart.js", "src/unused.js", "src/util/fmt.js"]);
    for (const [path, entry] of data.files) {
      const fc = entry as FileCoverage;
      const own = summary[`${ROOT}/${path}`]!;
      expect([fc.statements.size, fc.coveredStatements.size, fc.branches.size, fc.coveredBranches.size]).toEqual([
        own.statements!.total,
        own.statements!.covered,
        own.branches!.total,
        own.branches!.covered,
      ]);
    }
    const s = summarizeCoverage(data);
    expect([s.statements, s.coveredLines, s.branches, s.coveredBranches]).toEqual([24, 16, 19, 9]);
    expect(s.percent).toBe((100 * (16 + 9)) / (24 + 19));
    const row = /All files\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)/.exec(recorded("vitest-4.1.12-text-report.txt"))!;
    expect(Math.floor(s.lineRate * 10000) / 100).toBe(Number(row[1]));
    expect(Math.floor(s.branchRate * 10000) / 100).toBe(Number(row[2]));
  });

  it("keys: statement id and start, branch id and index", () => {
    const fmt = readOk(recorded("istanbul-vitest-4.1.12-final.json")).files.get("src/util/fmt.js") as FileCoverage;
    expect([...fmt.statements]).toEqual(["0@2:15", "1@3:14", "2@4:2"]);
    expect([...fmt.branches]).toEqual(["b0:0", "b0:1"]);
    expect([...fmt.coveredBranches]).toEqual(["b0:1"]);
  });

  it("a statement Istanbul marks `skip` counts as covered, as in Istanbul's summary", () => {
    const report = JSON.parse(recorded("istanbul-vitest-4.1.12-final.json")) as Record<
      string,
      { statementMap: Record<string, Record<string, unknown>> }
    >;
    report[`${ROOT}/src/unused.js`]!.statementMap["0"]!.skip = true;
    const unused = readOk(JSON.stringify(report)).files.get("src/unused.js") as FileCoverage;
    expect(unused.coveredStatements.size).toBe(1);
  });
});

describe("readIstanbulFinal: bad input", () => {
  const final = (): Record<string, Record<string, Record<string, unknown>>> =>
    JSON.parse(recorded("istanbul-vitest-4.1.12-final.json"));
  const cart = `${ROOT}/src/cart.js`;

  it("empty, truncated, no files", () => {
    expect(errorsOf("")).toEqual([expect.stringContaining("empty")]);
    const text = recorded("istanbul-vitest-4.1.12-final.json");
    expect(errorsOf(text.slice(0, 3000))[0]).toMatch(/^coverage-final\.json:1: not valid JSON .*truncated/);
    expect(errorsOf("{}")[0]).toMatch(/lists no files/);
    expect(errorsOf("[1]")[0]).toMatch(/top level is not an object/);
  });

  it("wrong schema: a coverage.py report, a summary, missing maps, counts without a map entry", () => {
    expect(errorsOf(recorded("coveragepy-6.5-branch.json"))[0]).toMatch(/no `statementMap` object/);
    expect(errorsOf(recorded("istanbul-vitest-4.1.12-summary.json"))[0]).toMatch(/no `statementMap` object/);
    const noB = final();
    delete noB[cart]!.b;
    expect(errorsOf(JSON.stringify(noB))).toEqual([
      expect.stringContaining('"/tmp/pgcov-js/src/cart.js" has no `b` object'),
    ]);
    const extra = final();
    extra[cart]!.s!["99"] = 1;
    expect(errorsOf(JSON.stringify(extra))[0]).toMatch(
      /`s\["99"\]` counts a statement that `statementMap` does not have/,
    );
    const lost = final();
    delete lost[cart]!.s!["3"];
    expect(errorsOf(JSON.stringify(lost))[0]).toMatch(/statement 3's count `s\["3"\]` is nothing/);
    const noCounts = final();
    delete noCounts[cart]!.b!["2"];
    expect(errorsOf(JSON.stringify(noCounts))[0]).toMatch(/branch 2 of `branchMap` has no counts in `b`/);
  });

  it("negative and NaN counts", () => {
    const negative = final();
    negative[cart]!.s!["0"] = -1;
    expect(errorsOf(JSON.stringify(negative))[0]).toMatch(
      /statement 0's count `s\["0"\]` is -1, not a whole number >= 0/,
    );
    const nan = final();
    nan[cart]!.b!["1"] = [0, "NaN"];
    expect(errorsOf(JSON.stringify(nan))[0]).toMatch(/branch count `b\["1"\]\[1\]` is "NaN"/);
    expect(errorsOf(JSON.stringify(final()).replace('"s":{"0":2', '"s":{"0":NaN'))[0]).toMatch(/not valid JSON/);
  });
});

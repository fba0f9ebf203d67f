import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readCoverage } from "./read-coverage.js";

/** Real tool output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");

describe("readCoverage", () => {
  it("reads every format by its content, to the same totals for the same run", () => {
    const json = readCoverage(recorded("coveragepy-6.5-branch.json"), "coverage.json");
    const lcov = readCoverage(recorded("lcov-coveragepy-6.5-branch.info"), "coverage.lcov");
    const xml = readCoverage(recorded("cobertura-coveragepy-6.5-branch.xml"), "coverage.xml", {
      root: "/tmp/pgcov-py",
    });
    for (const r of [json, lcov, xml]) expect(r.errors).toEqual([]);
    expect([json.data!.format, lcov.data!.format, xml.data!.format]).toEqual(["coveragepy-json", "lcov", "cobertura"]);
    expect(summarizeCoverage(lcov.data!)).toEqual(summarizeCoverage(json.data!));
    expect(summarizeCoverage(xml.data!)).toEqual(summarizeCoverage(json.data!));
    const final = readCoverage(recorded("istanbul-vitest-4.1.12-final.json"), "coverage-final.json", {
      root: "/tmp/pgcov-js",
    });
    const summary = readCoverage(recorded("istanbul-vitest-4.1.12-summary.json"), "coverage-summary.json", {
      root: "/tmp/pgcov-js",
    });
    expect(summarizeCoverage(final.data!)).toEqual(summarizeCoverage(summary.data!));
    expect([...final.data!.files.keys()]).toEqual([...summary.data!.files.keys()]);
  });

  it("an explicit format overrides detection", () => {
    const asLcov = readCoverage(recorded("coveragepy-6.5-branch.json"), "coverage.json", { format: "lcov" });
    expect(asLcov.data).toBeUndefined();
    expect(formatIssue(asLcov.errors[0]!)).toMatch(/^coverage\.json:1: not an LCOV line/);
    const asFinal = readCoverage(recorded("istanbul-vitest-4.1.12-summary.json"), "s.json", {
      format: "istanbul-final",
    });
    expect(asFinal.errors[0]!.message).toMatch(/no `statementMap` object/);
  });

  it("a truncated report gets its own reader's error, not 'unknown format'", () => {
    const text = recorded("coveragepy-6.5-branch.json");
    expect(readCoverage(text.slice(0, 100), "coverage.json").errors[0]!.message).toMatch(/not valid JSON/);
  });

  it("an undetectable file names the formats accepted; a .coverage data file says where it goes", () => {
    const unknown = readCoverage("<testsuites/>", "junit.xml");
    expect(unknown.errors).toEqual([
      expect.objectContaining({
        code: "coverage_invalid",
        file: "junit.xml",
        message: expect.stringMatching(
          /coverage\.py JSON .*LCOV .*Cobertura XML .*coverage-final\.json.*coverage-summary\.json/,
        ),
        fix: expect.stringContaining("--coverage-format"),
      }),
    ]);
    expect(readCoverage("", "empty.json").errors[0]!.message).toMatch(/empty/);
    // vitest's coverage-final.json when nothing was measured (an include matching nothing, coverage.changed).
    const none = readCoverage(" {}\n", "coverage-final.json").errors[0]!;
    expect(none.message).toMatch(/lists no file .*measured nothing/);
    expect(none.fix).toMatch(/coverage\.changed/);
    expect(readCoverage("SQLite format 3\u0000", ".coverage").errors[0]!.fix).toMatch(/--contexts/);
    expect(readCoverage("{}", "x.json", { format: "coveragepy-contexts" }).errors[0]!.message).toMatch(
      /SQLite data file/,
    );
  });
});

// Fuzzing the coverage report readers (issue 25): coverage.py JSON, LCOV, Cobertura, Istanbul (final and
// summary), each through its own reader and through readCoverage's detection. For any input: data, or
// issues naming the file; never an uncaught exception; a megabyte within the time budget. The mutation
// cases start from the real recorded reports in coverage/__fixtures__ (one byte, one line or one field
// changed). Fixed seed; PROOFGATE_FUZZ_RUNS raises the budget.
import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CoverageReadResult } from "../coverage/coverage-model.js";
import { readCobertura } from "../coverage/cobertura-reader.js";
import { readCoveragePyJson } from "../coverage/coveragepy-json-reader.js";
import { readIstanbulFinal } from "../coverage/istanbul-final-reader.js";
import { readIstanbulSummary } from "../coverage/istanbul-summary-reader.js";
import { readLcov } from "../coverage/lcov-reader.js";
import { readCoverage } from "../coverage/read-coverage.js";
import {
  FUZZ_TIMEOUT,
  MB,
  MB_BUDGET_MS,
  anyText,
  expectIssues,
  fieldMutated,
  fuzzParams,
  mutated,
  repeatTo,
  timed,
  tokenLines,
  typed,
} from "../__fixtures__/fuzz.js";

const FIXTURES = new URL("../coverage/__fixtures__/", import.meta.url);
const recorded = (filter: (name: string) => boolean): string[] =>
  readdirSync(FIXTURES)
    .filter(filter)
    .map((name) => readFileSync(new URL(name, FIXTURES), "utf8"));

const FILE = "coverage-report";
type Reader = (text: string, file: string, options?: { root?: string }) => CoverageReadResult;

/** A value or issues naming the file, with and without a root; and through detection too. */
function survives(read: Reader, text: string): void {
  for (const options of [{}, { root: "/home/ci/repo" }]) {
    for (const reader of [read, readCoverage as Reader]) {
      const result = typed(() => reader(text, FILE, options), FILE);
      if ("issues" in result) continue;
      expectIssues(result.errors, FILE);
      expectIssues(result.warnings, FILE);
      if (result.data) expect(result.errors).toEqual([]);
    }
  }
}

interface Format {
  name: string;
  read: Reader;
  recorded: string[];
  tokens: string[];
  json: boolean;
  big: string[];
}

const FORMATS: Format[] = [
  {
    name: "coverage.py JSON",
    read: readCoveragePyJson,
    recorded: recorded((n) => n.startsWith("coveragepy-") && n.endsWith(".json")),
    json: true,
    tokens: [
      '{"meta": {"format": 3, "version": "7.4.0", "show_contexts": true, "branch_coverage": true}',
      '"files": {',
      '"src/a.py": {"executed_lines": [1, 2], "missing_lines": [3], "excluded_lines": []',
      '"summary": {"covered_lines": 2, "num_statements": 3, "percent_covered": 66.6}',
      '"contexts": {"1": ["tests/test_a.py::test_x|run"]}',
      '"executed_branches": [[1, 2]], "missing_branches": [[2, -1]]',
      '"totals": {"covered_lines": 2, "num_statements": 3}',
      "}",
      "]",
      ",",
      '"__proto__": {}',
      "-1",
      "1e999",
    ],
    big: ['{"files": {', '"a": [1,', "[[[[", '{"meta": {"format": 3}, "files": {"a.py": {"executed_lines": ['],
  },
  {
    name: "LCOV",
    read: readLcov,
    recorded: recorded((n) => n.endsWith(".info")),
    json: false,
    tokens: [
      "TN:",
      "SF:src/a.py",
      "SF:/home/ci/repo/src/a.py",
      "DA:1,1",
      "DA:2,0",
      "DA:0,1",
      "DA:-1,1",
      "DA:3,99999999999999999999",
      "BRDA:1,0,0,1",
      "BRDA:1,0,1,-",
      "FN:1,f",
      "FNDA:1,f",
      "FNF:1",
      "LF:2",
      "LH:1",
      "BRF:2",
      "BRH:1",
      "end_of_record",
    ],
    big: ["SF:a.py\nDA:1,1\n", "DA:1,1\n", "SF:" + "a".repeat(100) + "\n"],
  },
  {
    name: "Cobertura",
    read: readCobertura,
    recorded: recorded((n) => n.startsWith("cobertura-")),
    json: false,
    tokens: [
      '<?xml version="1.0" ?>',
      '<coverage version="6.5.0" line-rate="0.5" branch-rate="0" lines-covered="1" lines-valid="2">',
      "</coverage>",
      "<sources><source>/home/ci/repo/src</source></sources>",
      "<packages>",
      "</packages>",
      '<package name="src">',
      "<classes>",
      '<class name="a.py" filename="a.py" line-rate="0.5">',
      "<lines>",
      '<line number="1" hits="1"/>',
      '<line number="2" hits="0" branch="true" condition-coverage="50% (1/2)"/>',
      '<line number="0" hits="-1"/>',
      "</lines></class></classes></package>",
      "<!DOCTYPE x>",
      "&amp;",
      "<!--",
      "-->",
    ],
    big: ['<line number="1" hits="1"/>', "<coverage><packages>", "<!--", "<a>"],
  },
  {
    name: "Istanbul (coverage-final.json)",
    read: readIstanbulFinal,
    recorded: recorded((n) => n.startsWith("istanbul-") && n.includes("-final")),
    json: true,
    tokens: [
      '{"/home/ci/repo/src/a.js": {"path": "/home/ci/repo/src/a.js"',
      '"statementMap": {"0": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}}}',
      '"s": {"0": 1}',
      '"fnMap": {}, "f": {}',
      '"branchMap": {"0": {"type": "if", "locations": [{"start": {"line": 1}, "end": {"line": 1}}]}}',
      '"b": {"0": [1, 0]}',
      "}",
      ",",
      '"s": {"0": -1}',
    ],
    big: ['{"a.js": {"s": {', '"0": 1,', "[[[["],
  },
  {
    name: "Istanbul (coverage-summary.json)",
    read: readIstanbulSummary,
    recorded: recorded((n) => n.startsWith("istanbul-") && n.includes("-summary")),
    json: true,
    tokens: [
      '{"total": {"lines": {"total": 2, "covered": 1, "skipped": 0, "pct": 50}',
      '"statements": {"total": 2, "covered": 1, "pct": 50}',
      '"/home/ci/repo/src/a.js": {"lines": {"total": 2, "covered": 3, "pct": 150}}',
      '"branches": {"total": 0, "covered": 0, "pct": "Unknown"}',
      "}",
      ",",
    ],
    big: ['{"total": {"lines": {', '"a.js": {"lines": {"total": 1, "covered": 1}},'],
  },
];

for (const format of FORMATS) {
  describe(`fuzz: ${format.name}`, { timeout: FUZZ_TIMEOUT }, () => {
    it("has recorded reports to mutate", () => expect(format.recorded.length).toBeGreaterThan(0));
    it("any text: data or issues naming the file", () =>
      fc.assert(
        fc.property(anyText, (t) => survives(format.read, t)),
        fuzzParams(0.25),
      ));
    it("the format's own tokens", () =>
      fc.assert(
        fc.property(tokenLines(format.tokens), (t) => survives(format.read, t)),
        fuzzParams(0.5),
      ));
    it("a recorded report with one byte or one line changed", () =>
      fc.assert(
        fc.property(mutated(format.recorded), (t) => survives(format.read, t)),
        fuzzParams(0.5),
      ));
    if (format.json)
      it("a recorded report with one field changed", () =>
        fc.assert(
          fc.property(fieldMutated(format.recorded), (t) => survives(format.read, t)),
          fuzzParams(),
        ));
    it("a megabyte within the time budget", () => {
      for (const text of [
        ...format.big.map((u) => repeatTo(u, MB)),
        "[".repeat(MB),
        "<a>".repeat(MB / 3),
        "x".repeat(MB),
      ]) {
        const ms = timed(() => typed(() => format.read(text, FILE)));
        expect(ms, `${format.name} on ${JSON.stringify(text.slice(0, 20))}...`).toBeLessThan(MB_BUDGET_MS);
      }
    });
  });
}

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { accountEvidence } from "../evidence/evidence.js";
import type { TestResult } from "../evidence/junit.js";
import { testsNotProven, withRecordedXpasses, xpassedTests } from "./outcomes.js";
import { verifyRunRecord } from "./record.js";

const RECORDED = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
  nonce: "0123456789abcdef0123456789abcdef",
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  file: "run-record.json",
}).record!;

const T = "tests/test_calc.py::";
// What pytest 7.2's JUnit XML says of the same run: the non-strict xpass is a plain pass.
const junit = (id: string, outcome: TestResult["outcome"]): TestResult => ({
  id: T + id,
  outcome,
  file: "junit.xml",
  line: 3,
  classname: "tests.test_calc",
  name: id,
  mapping: "file",
  collectionError: false,
});

describe("a non-strict xfail that passed is not proof", () => {
  it("names the xpassed tests, and every test that could not fail the run", () => {
    expect(xpassedTests(RECORDED)).toEqual([`${T}test_xpass`]);
    expect(testsNotProven(RECORDED)).toEqual([
      `${T}test_skip_marker`,
      `${T}test_skip_body`,
      `${T}test_skip_fixture`,
      `${T}test_xfail`,
      `${T}test_xpass`,
    ]);
  });

  it("turns the JUnit pass of an xpassed test into an xfail, so the accounting counts it skipped, not proven", () => {
    const results = [junit("test_add", "passed"), junit("test_xpass", "passed"), junit("test_xfail", "xfail")];
    const ids = results.map((r) => r.id);
    const universe = { file: "collected.txt", ids, duplicates: [], collectionErrors: [], summaryCount: ids.length };
    expect(accountEvidence(universe, [], results).ids.proven).toContain(`${T}test_xpass`);

    const read = withRecordedXpasses(results, RECORDED);
    expect(read.map((r) => r.outcome)).toEqual(["passed", "xfail", "xfail"]);
    expect(read[1]!.message).toMatch(/^XPASS: a non-strict xfail that passed/);
    const accounting = accountEvidence(universe, [], read);
    expect(accounting.ids.proven).toEqual([`${T}test_add`]);
    expect(accounting.skips.map((r) => r.id)).toEqual([`${T}test_xpass`, `${T}test_xfail`]);
  });

  it("never counts a result better than the JUnit XML says, and changes nothing without a record", () => {
    const failed = [junit("test_xpass", "failed")];
    expect(withRecordedXpasses(failed, RECORDED)).toEqual(failed);
    const passed = [junit("test_xpass", "passed")];
    expect(withRecordedXpasses(passed, undefined)).toEqual(passed);
  });
});

// A test whose failure cannot fail the run proves nothing (issue 21, item 5). pytest writes a non-strict
// xfail that passed (XPASS) into JUnit XML as a plain passed <testcase> (pytest 7.2's junitxml calls
// `append_pass` for it), so only the run record tells it apart. These read the record's outcomes back
// into the results the gate accounts: an xpass counts as an xfail (not proven, an unledgered freeze when
// the base did not xfail it), and the tests that did not pass are named for the single-run coverage.
import type { TestResult } from "../evidence/junit.js";
import type { RunRecord } from "./record.js";

/** The tests the record shows as a non-strict xfail that passed, in the record's order. */
export function xpassedTests(record: RunRecord): string[] {
  return record.tests.filter((t) => t.outcome === "xpassed").map((t) => t.id);
}

/**
 * The tests whose outcome could not fail the run: skipped, xfailed or xpassed in the record. Their
 * coverage is no proof, so the single-run mode drops their contexts as it drops the frozen tests'.
 */
export function testsNotProven(record: RunRecord): string[] {
  return record.tests
    .filter((t) => t.outcome === "skipped" || t.outcome === "xfailed" || t.outcome === "xpassed")
    .map((t) => t.id);
}

/**
 * The results with every test the record shows xpassed turned from `passed` into `xfail` (message
 * `XPASS: <reason>`), so the accounting counts it skipped and the base comparison sees an xfail. A
 * result that is worse than passed keeps its outcome; the record is never a reason to count better.
 */
export function withRecordedXpasses(results: readonly TestResult[], record: RunRecord | undefined): TestResult[] {
  if (!record) return [...results];
  const xpassed = new Map(record.tests.filter((t) => t.outcome === "xpassed").map((t) => [t.id, t.reason]));
  if (xpassed.size === 0) return [...results];
  return results.map((r) => {
    if (r.outcome !== "passed" || !xpassed.has(r.id)) return r;
    const reason = xpassed.get(r.id);
    return {
      ...r,
      outcome: "xfail",
      message: `XPASS: a non-strict xfail that passed, so its failure could not fail the run${reason ? ` (${reason})` : ""}`,
    };
  });
}

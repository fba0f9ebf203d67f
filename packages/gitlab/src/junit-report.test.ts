import { parseJunitXml } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { JUNIT_CLASSNAME, junitReport } from "./junit-report.js";
import { errorReportFixture, HOSTILE, mergeReport, rejectReport } from "./__fixtures__/reports.js";

describe("junitReport, read back by proofgate's own JUnit reader", () => {
  it("has one test case per signal: failed where a reason fired, skipped where off or not measured", () => {
    const report = rejectReport();
    const parsed = parseJunitXml(junitReport(report.gate), "junit.xml");
    expect(parsed.errors).toEqual([]);
    const results = parsed.results!;
    expect(results.map((r) => r.name)).toEqual(report.gate.signals.map((s) => s.label));
    expect(results.every((r) => r.classname === JUNIT_CLASSNAME)).toBe(true);
    const outcome = Object.fromEntries(results.map((r) => [r.name, r.outcome]));
    expect(outcome).toMatchObject({
      "Proven coverage": "failed",
      "Lease authorship": "failed",
      "Fixture digests": "skipped",
      "Property hold": "skipped",
      "Freeze budget": "passed",
    });
    expect(results.find((r) => r.name === "Proven coverage")!.message).toBe("proven_coverage: 65.20% (policy >= 70%)");
  });

  it("carries the patch's text as text: markup and control characters cannot break the XML", () => {
    const xml = junitReport(rejectReport().gate);
    expect(xml).not.toContain("<img");
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const parsed = parseJunitXml(xml, "junit.xml");
    expect(parsed.errors).toEqual([]);
    const hostile = parseJunitXml(
      junitReport({
        ...rejectReport().gate,
        signals: rejectReport().gate.signals.map((s, i) => (i === 0 ? { ...s, label: HOSTILE } : s)),
      }),
      "junit.xml",
    );
    expect(hostile.errors).toEqual([]);
    expect(hostile.results![0]!.name).toBe(HOSTILE.replace("\u001b", ""));
  });

  it("a MERGE reads back with every case passed or skipped", () => {
    const parsed = parseJunitXml(junitReport(mergeReport().gate), "junit.xml");
    expect(parsed.results!.filter((r) => r.outcome === "failed" || r.outcome === "error")).toEqual([]);
  });

  it("a run that could not evaluate is one errored case with the errors, never an empty (passing) file", () => {
    const parsed = parseJunitXml(junitReport(errorReportFixture().gate), "junit.xml");
    expect(parsed.errors).toEqual([]);
    expect(parsed.results).toHaveLength(1);
    expect(parsed.results![0]).toMatchObject({
      name: "evaluation",
      outcome: "error",
      message: "the gate could not evaluate (1 error)",
    });
  });
});

import { describe, expect, it } from "vitest";
import { codeQualityIssues, codeQualityReport, POLICY_FILE } from "./code-quality.js";
import { errorReportFixture, mergeReport, rejectReport } from "./__fixtures__/reports.js";

const SEVERITIES = ["info", "minor", "major", "critical", "blocker"];

describe("codeQualityReport", () => {
  it("is a JSON list with one issue per reason, each field as GitLab's Code Quality format requires", () => {
    const issues = JSON.parse(codeQualityReport(rejectReport().gate)) as Record<string, unknown>[];
    expect(Array.isArray(issues)).toBe(true);
    expect(issues).toHaveLength(3);
    for (const issue of issues) {
      expect(Object.keys(issue).sort()).toEqual(["check_name", "description", "fingerprint", "location", "severity"]);
      expect(typeof issue.description).toBe("string");
      expect(issue.description).not.toBe("");
      expect(issue.check_name).toMatch(/^proofgate\/[a-z_]+$/);
      expect(issue.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(SEVERITIES).toContain(issue.severity);
      const location = issue.location as { path: unknown; lines: { begin: unknown } };
      expect(typeof location.path).toBe("string");
      expect(location.path).not.toMatch(/^\/|(^|\/)\.\.(\/|$)/);
      expect(Number.isInteger(location.lines.begin)).toBe(true);
      expect(location.lines.begin as number).toBeGreaterThanOrEqual(1);
    }
    const [coverage, lease, escaped] = issues as {
      check_name: string;
      location: { path: string; lines: { begin: number } };
      description: string;
      severity: string;
    }[];
    expect(coverage).toMatchObject({
      check_name: "proofgate/proven_coverage",
      severity: "blocker",
      location: { path: POLICY_FILE, lines: { begin: 1 } },
    });
    expect(coverage!.description).toBe(
      "proven_coverage: proven coverage 65.20% is below the floor 70% Fix: add tests that are not frozen",
    );
    expect(lease).toMatchObject({
      check_name: "proofgate/agent_added_lease",
      location: { path: "freeze.toml", lines: { begin: 12 } },
    });
    // A path out of the repository is not a location: the issue lands on the policy file, naming the path.
    expect(escaped!.location).toEqual({ path: POLICY_FILE, lines: { begin: 1 } });
    expect(escaped!.description).toContain("(at ../../etc/passwd)");
  });

  it("keeps the patch's text inert: one line, no control or bidi characters", () => {
    const lease = codeQualityIssues(rejectReport().gate)[1]!;
    expect(lease.description).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(lease.description).toContain("<img src=x onerror=alert(1)> @all **bold**");
  });

  it("fingerprints are stable across runs and unique within a report, identical problems included", () => {
    const a = codeQualityIssues(rejectReport().gate).map((i) => i.fingerprint);
    const b = codeQualityIssues(rejectReport().gate).map((i) => i.fingerprint);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(a.length);
    const view = rejectReport().gate;
    const twice = codeQualityIssues({ ...view, findings: [view.findings[1]!, view.findings[1]!] }).map(
      (i) => i.fingerprint,
    );
    expect(twice[0]).not.toBe(twice[1]);
  });

  it("a MERGE has no issue; an evaluation error is one, at its file and line", () => {
    expect(JSON.parse(codeQualityReport(mergeReport().gate))).toEqual([]);
    const [error] = codeQualityIssues(errorReportFixture().gate);
    expect(error).toMatchObject({
      check_name: "proofgate/ledger_syntax",
      severity: "blocker",
      location: { path: "freeze.toml", lines: { begin: 3 } },
    });
  });
});

import { describe, expect, it } from "vitest";
import {
  codeQualityIssues,
  codeQualityReport,
  frozenOnlyIssues,
  FROZEN_ONLY_CHECK,
  FROZEN_ONLY_ENTRIES,
  POLICY_FILE,
  type CodeQualityIssue,
} from "./code-quality.js";
import { frozenOnlyReport } from "./__fixtures__/frozen-only.js";
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

describe("frozen-only entries", () => {
  const HOSTILE_TEST = "tests/test_x.py::t[<img src=x> @all\n**b** \u001b[2J \u202eevil `c`]";
  const spec = (path: string, frozen: number[][], tests: string[] = [HOSTILE_TEST, "tests/test_a.py::test_slow"]) => {
    const statements = Array.from({ length: 40 }, (_, i) => i + 1);
    const only = new Set(frozen.flatMap(([a, b]) => Array.from({ length: b! - a! + 1 }, (_, i) => a! + i)));
    return {
      path,
      statements,
      proven: statements.filter((l) => !only.has(l)),
      raw: statements,
      tests: Object.fromEntries([...only].map((l) => [String(l), tests])),
    };
  };

  it("names each issue's file as the repository does: the package's folder in front, its config for a file-less one", () => {
    const report = rejectReport().gate;
    report.root = "pkgs/a";
    report.findings = [
      { ...report.findings[0]!, file: "freeze.toml", line: 4 },
      { ...report.findings[0]!, file: "../../.gitlab-ci.yml", line: 1 },
      { ...report.findings[0]!, file: undefined, line: undefined },
    ];
    report.errors = [];
    expect(codeQualityIssues(report).map((i) => i.location)).toEqual([
      { path: "pkgs/a/freeze.toml", lines: { begin: 4 } },
      { path: ".gitlab-ci.yml", lines: { begin: 1 } },
      { path: `pkgs/a/${POLICY_FILE}`, lines: { begin: 1 } },
    ]);
    const frozen = frozenOnlyReport([spec("src/a.py", [[3, 5]])]).gate;
    frozen.root = "pkgs/a";
    expect(frozenOnlyIssues(frozen).map((i) => i.location)).toEqual([
      { path: "pkgs/a/src/a.py", lines: { begin: 3, end: 5 } },
    ]);
  });

  it("one info entry per range, after the reasons, with begin and end lines, the tests and their leases", () => {
    const report = frozenOnlyReport([
      spec("src/a.py", [
        [3, 5],
        [10, 10],
      ]),
      spec("src/b.py", [[20, 27]]),
    ]);
    const issues = JSON.parse(codeQualityReport(report.gate)) as CodeQualityIssue[];
    expect(issues.map((i) => [i.check_name, i.severity, i.location])).toEqual([
      [FROZEN_ONLY_CHECK, "info", { path: "src/b.py", lines: { begin: 20, end: 27 } }],
      [FROZEN_ONLY_CHECK, "info", { path: "src/a.py", lines: { begin: 3, end: 5 } }],
      [FROZEN_ONLY_CHECK, "info", { path: "src/a.py", lines: { begin: 10, end: 10 } }],
    ]);
    const d = issues[1]!.description;
    expect(d).toMatch(
      /^frozen_only: 3 lines \(lines 3-5\) run only under frozen tests, so proven coverage does not count them\. Frozen tests: /,
    );
    expect(d).toContain("tests/test_a.py::test_slow (lease: carol, expires 2026-04-01)");
    // Patch text on one plain line: no control, bidi or line-break character.
    expect(d).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    for (const i of issues) expect(SEVERITIES).toContain(i.severity);
    // A REJECT's reasons keep their place before the entries.
    const rejecting = { ...rejectReport().gate, coverage: report.gate.coverage, ledger: report.gate.ledger };
    const both = JSON.parse(codeQualityReport(rejecting)) as CodeQualityIssue[];
    expect(both.map((i) => i.severity)).toEqual(["blocker", "blocker", "blocker", "info", "info", "info"]);
  });

  it("fingerprints: the same range keeps its own on a later run, two ranges never share one", () => {
    const one = frozenOnlyIssues(
      frozenOnlyReport([
        spec("src/a.py", [
          [3, 5],
          [10, 12],
        ]),
      ]).gate,
    );
    const again = frozenOnlyIssues(
      frozenOnlyReport([
        spec(
          "src/a.py",
          [
            [3, 5],
            [10, 12],
          ],
          ["other::t"],
        ),
      ]).gate,
    );
    expect(one.map((i) => i.fingerprint)).toEqual(again.map((i) => i.fingerprint));
    expect(new Set(one.map((i) => i.fingerprint)).size).toBe(2);
    for (const i of one) expect(i.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it(`at most ${FROZEN_ONLY_ENTRIES}: the patch's ranges first, then the most lines`, () => {
    const ranges = Array.from({ length: 13 }, (_, i) => [3 * i + 1, 3 * i + 1 + (i % 2)]);
    const report = frozenOnlyReport([spec("src/a.py", ranges)]);
    report.gate.coverage!.frozenOnly!.files[0]!.ranges[12]!.patch = true;
    const issues = frozenOnlyIssues(report.gate, 4);
    expect(issues.map((i) => i.location.lines)).toEqual([
      { begin: 37, end: 37 },
      { begin: 4, end: 5 },
      { begin: 10, end: 11 },
      { begin: 16, end: 17 },
    ]);
    expect(frozenOnlyIssues(report.gate)).toHaveLength(13);
  });

  it("the rerun mode says the tests are not known", () => {
    const [issue] = frozenOnlyIssues(frozenOnlyReport([spec("src/a.py", [[3, 5]])], false).gate);
    expect(issue!.description).toContain("does not say which frozen tests run them (rerun mode)");
  });
});

import { describe, expect, it } from "vitest";
import { checkRunAnnotations, frozenOnlyAnnotation } from "./annotations.js";
import { renderCheckRun } from "./check-run.js";
import { HOSTILE, expiredLease, frozenOnlyReport } from "./__fixtures__/reports.js";

describe("frozen-only notices", () => {
  it("name the range, its frozen tests and their leases, with the patch's text inert", () => {
    const report = frozenOnlyReport(1);
    const { annotations, frozenOnly, note } = checkRunAnnotations(report.gate);
    expect(frozenOnly).toEqual({ ranges: 1, annotated: 1, cap: 200 });
    expect(note).toBeUndefined();
    expect(annotations).toEqual([
      {
        level: "notice",
        path: `src/${HOSTILE.replace(/\n/g, "")}.py`,
        line: 1,
        endLine: 1,
        title: "proofgate: only frozen tests run line 1",
        message: expect.any(String),
      },
    ]);
    const message = annotations[0]!.message;
    expect(message.split("\n")).toEqual([
      "1 line (line 1) run only under frozen tests: proven coverage does not count it.",
      "Frozen tests:",
      expect.stringMatching(
        /^- tests\/test_api\.py::test_login \(lease: alice `x` <img .*\\x0a::error::pwned, expires 2026-04-01\)$/,
      ),
      expect.stringMatching(/^- tests\/test_`x` .*\\x23#\[error\]boom\\x0a::error::pwned\.py::t$/),
    ]);
    // `inertText` breaks the legacy `##[` so the runner's log would not read it either.
    expect(message).not.toContain("##[");
  });

  it("in the rerun mode, say the tests are not known; the patch's ranges go first", () => {
    const report = frozenOnlyReport(3, [], { attributed: false });
    const touched = report.gate.coverage!.frozenOnly!.files[0]!.ranges[0]!;
    touched.patch = true;
    const { annotations } = checkRunAnnotations(report.gate);
    expect(annotations[0]).toMatchObject({ line: touched.start, endLine: touched.end });
    expect(annotations[0]!.message).toContain("The patch touched them.");
    expect(annotations[1]!.message).toContain("does not say which frozen tests run them (rerun mode)");
  });

  it("skip a range whose path leaves the repository", () => {
    expect(frozenOnlyAnnotation({ path: "../outside.py", start: 1, end: 2, lines: 2, tests: [] })).toBeUndefined();
    expect(frozenOnlyAnnotation({ path: "/abs/x.py", start: 1, end: 2, lines: 2, tests: [] })).toBeUndefined();
  });

  it("the check run plan: failures first, ranges as start_line..end_line, the note kept in a trimmed summary", () => {
    const report = frozenOnlyReport(30, [expiredLease("t.py::a", "bob", 2)]);
    const checks = checkRunAnnotations(report.gate, { cap: 10 });
    const huge = { ...report, markdown: "x".repeat(200_000) };
    const plan = renderCheckRun(huge, checks.annotations, {
      headSha: "1".repeat(40),
      now: new Date(0),
      note: checks.note,
    });
    const sent = [plan.create.output, ...plan.updates.map((u) => u.output)].flatMap((o) => o.annotations ?? []);
    expect(sent.map((a) => a.annotation_level)).toEqual(["failure", ...Array<string>(10).fill("notice")]);
    expect(sent[1]!.end_line - sent[1]!.start_line).toBe(6);
    expect(Buffer.byteLength(plan.create.output.summary)).toBeLessThanOrEqual(65535);
    expect(plan.create.output.summary).toMatch(
      /trimmed[\s\S]*20 of 30 frozen-only ranges are not annotated \(at most 10 notices/,
    );
  });
});

describe("a package's report (check --root)", () => {
  it("points every annotation at the repository's path: the package's folder in front, shared CI files resolved", () => {
    const report = frozenOnlyReport(1);
    report.gate.root = "pkgs/a";
    report.gate.findings = [
      expiredLease("tests/test_a.py::test_x", "ada", 7),
      { ...expiredLease("x", "ada", 2), reason: "protected_path", file: "../../.github/workflows/ci.yml" },
      { ...expiredLease("y", "ada", 1), file: "../../../outside" },
    ];
    const { annotations } = checkRunAnnotations(report.gate);
    expect(annotations.map((a) => [a.path, a.line])).toEqual([
      ["pkgs/a/freeze.toml", 7],
      [".github/workflows/ci.yml", 2],
      [undefined, 1],
      // Joined and normalised as a path (its `//` is one folder separator).
      [`pkgs/a/src/${HOSTILE.replace(/\n/g, "").replace("//", "/")}.py`, 1],
    ]);
  });
});

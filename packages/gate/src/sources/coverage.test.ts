// loadProvenCoverage with `[coverage] full_report` (issue 22): the raw figure and the frozen-only lines of
// the rerun mode, from a full run's report beside the proof run's, in coverage.py JSON and in LCOV; what
// it refuses (a full report with contexts, one that is missing, one of other code) and what still works
// without one (a totals-only coverage.py JSON report: raw not measured).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GateError, frozenOnlyFiles, type GateIssue } from "@proofgate/core";
import { loadProvenCoverage, type CoverageSources } from "./coverage.js";
import { nodeFiles } from "../node/files.js";
import { readCoverageDataFile } from "../node/coverage-data-file.js";
import { coveragePyJson, type RunFile } from "../testing/coveragepy-report.js";

const dir = mkdtempSync(join(tmpdir(), "proofgate-full-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ports = { files: nodeFiles(dir), coverageData: (path: string) => readCoverageDataFile(path, dir) };

const write = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return name;
};

const arcName = ([a, b]: [number, number]): string => `${a}>${b}`;

/** The same run as LCOV (`coverage lcov`'s shape: one BRDA per arc, block 0, branch = index on its line). */
function lcov(files: Record<string, RunFile>): string {
  let text = "";
  for (const [path, f] of Object.entries(files)) {
    const taken = new Set(f.taken.map(arcName));
    text += `TN:\nSF:${path}\n`;
    for (const l of f.statements) text += `DA:${l},${f.executed.includes(l) ? 1 : 0}\n`;
    const index = new Map<number, number>();
    for (const b of f.branches) {
      const i = index.get(b[0]) ?? 0;
      index.set(b[0], i + 1);
      text += `BRDA:${b[0]},0,${i},${taken.has(arcName(b)) ? 1 : f.executed.includes(b[0]) ? 0 : "-"}\n`;
    }
    text += `LF:${f.statements.length}\nLH:${f.executed.length}\nBRF:${f.branches.length}\nBRH:${f.taken.length}\nend_of_record\n`;
  }
  return text;
}

// pkg/calc.py: `if` on 3 (to 4 or 6), a loop on 7 (to 8 or out). The frozen tests alone take 3->4 (lines
// 4, 5); pkg/lazy.py is imported only by a frozen test.
const BRANCHES: [number, number][] = [
  [3, 4],
  [3, 6],
  [7, 8],
  [7, -1],
];
const FULL: Record<string, RunFile> = {
  "pkg/calc.py": {
    statements: [1, 2, 3, 4, 5, 6, 7, 8, 9],
    executed: [1, 2, 3, 4, 5, 6, 7, 8],
    branches: BRANCHES,
    taken: [
      [3, 4],
      [3, 6],
      [7, 8],
    ],
  },
  "pkg/lazy.py": { statements: [1, 2], executed: [1, 2], branches: [], taken: [] },
};
const PROOF: Record<string, RunFile> = {
  "pkg/calc.py": {
    statements: FULL["pkg/calc.py"]!.statements,
    executed: [1, 2, 3, 6, 7, 8],
    branches: BRANCHES,
    taken: [
      [3, 6],
      [7, 8],
    ],
  },
};

async function errorOf(promise: Promise<unknown>): Promise<readonly GateIssue[]> {
  try {
    await promise;
  } catch (error) {
    if (GateError.isInstance(error)) return error.issues;
    throw error;
  }
  throw new Error("no error");
}

const load = (sources: Omit<CoverageSources, "frozen">) => loadProvenCoverage({ frozen: [], ...sources }, ports);

describe("loadProvenCoverage: [coverage] full_report (rerun mode)", () => {
  for (const [format, render, branchOf] of [
    ["coveragepy-json", coveragePyJson, (b: string) => b],
    ["lcov", lcov, (b: string) => ({ "3>4": "3:0:0" })[b]!],
  ] as const) {
    it(`${format}: raw is the full report's totals, frozen-only is full minus proof line for line and branch for branch`, async () => {
      const ext = format === "lcov" ? "info" : "json";
      const proof = write(`proof.${ext}`, render(PROOF));
      const full = write(`full.${ext}`, render(FULL));
      const loaded = await load({ reports: [proof], fullReport: full });
      const map = loaded.coverage.map!;
      expect(map.attributed).toBe(false);
      // Raw: every statement of both files, lazy.py's included; proven: calc.py's six, lazy.py's none.
      expect(map.raw).toMatchObject({ statements: 11, coveredLines: 10, branches: 4, coveredBranches: 3 });
      expect(map.proven).toMatchObject({ statements: 11, coveredLines: 6, branches: 4, coveredBranches: 2 });
      expect(loaded.coverage.rawNotMeasured).toBeUndefined();
      expect(frozenOnlyFiles(map)).toEqual([
        {
          path: "pkg/calc.py",
          lines: 2,
          branches: 1,
          ranges: [{ start: 4, end: 5, lines: 2, tests: null }],
          branchList: [{ line: 3, branch: branchOf("3>4"), tests: null }],
        },
        {
          path: "pkg/lazy.py",
          lines: 2,
          branches: 0,
          ranges: [{ start: 1, end: 2, lines: 2, tests: null }],
          branchList: [],
        },
      ]);
      // The full report is an input of its own, with its digest (evidence binding reads it).
      expect(loaded.full).toMatchObject({
        path: full,
        sha256: createHash("sha256")
          .update(readFileSync(join(dir, full)))
          .digest("hex"),
      });
    });
  }

  it("without full_report: raw is not measured, and the reason says why", async () => {
    const loaded = await load({ reports: [write("proof.json", coveragePyJson(PROOF))] });
    expect(loaded.coverage.map?.raw).toBeUndefined();
    expect(loaded.coverage.rawNotMeasured).toBe(
      "the proof run is a rerun and [coverage] full_report names no full run's report",
    );
    expect(loaded.full).toBeUndefined();
  });

  it("a totals-only coverage.py JSON report (the article's script reads nothing else) still gives proven coverage", async () => {
    const whole = JSON.parse(coveragePyJson(PROOF)) as { totals: Record<string, unknown> };
    const report = write("totals-only.json", JSON.stringify({ totals: whole.totals }));
    const loaded = await load({ reports: [report] });
    expect(loaded.coverage).toMatchObject({ statements: 9, coveredLines: 6, branches: 4, coveredBranches: 2 });
    expect(loaded.coverage.map).toBeUndefined();
    expect(loaded.coverage.rawNotMeasured).toBe("the proof run's report has no per-file data");
    // With a full report named, the proof run's per-file data is needed: exit 2, naming the report.
    const issues = await errorOf(load({ reports: [report], fullReport: write("full.json", coveragePyJson(FULL)) }));
    expect(issues).toEqual([expect.objectContaining({ code: "coverage_invalid", file: report })]);
    expect(issues[0]!.message).toContain("no `files`");
  });

  it("contexts and full_report together are a usage error (the raw figure comes from the contexts)", async () => {
    const issues = await errorOf(
      load({ reports: ["full.json"], contexts: [".coverage"], fullReport: write("full.json", coveragePyJson(FULL)) }),
    );
    expect(issues).toEqual([expect.objectContaining({ code: "usage" })]);
    expect(issues[0]!.message).toContain("full_report");
    expect(issues[0]!.fix).toBeTruthy();
  });

  it("a full_report that does not exist is exit 2 naming it and the key", async () => {
    const issues = await errorOf(
      load({ reports: [write("proof.json", coveragePyJson(PROOF))], fullReport: "nope/full.json" }),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "file_missing", file: "nope/full.json" });
    expect(`${issues[0]!.message} ${issues[0]!.fix ?? ""}`).toContain("[coverage] full_report");
  });

  it("a full report of other code (one more statement) is coverage_invalid naming it and the file", async () => {
    const other = structuredClone(FULL);
    other["pkg/calc.py"]!.statements = [...FULL["pkg/calc.py"]!.statements, 10];
    const full = write("other.json", coveragePyJson(other));
    const issues = await errorOf(load({ reports: [write("proof.json", coveragePyJson(PROOF))], fullReport: full }));
    expect(issues).toEqual([expect.objectContaining({ code: "coverage_invalid", file: full })]);
    expect(issues[0]!.message).toContain("pkg/calc.py");
  });

  it("a full report without branch data beside a proof report with it is coverage_invalid (another configuration)", async () => {
    const lines = JSON.parse(coveragePyJson(FULL)) as {
      meta: Record<string, unknown>;
      files: Record<string, Record<string, unknown>>;
      totals: Record<string, unknown>;
    };
    lines.meta.branch_coverage = false;
    for (const f of Object.values(lines.files)) {
      delete f.executed_branches;
      delete f.missing_branches;
    }
    for (const k of ["num_branches", "covered_branches", "num_partial_branches", "missing_branches"])
      delete lines.totals[k];
    lines.totals.percent_covered = (100 * Number(lines.totals.covered_lines)) / Number(lines.totals.num_statements);
    const full = write("lines-only.json", JSON.stringify(lines));
    const issues = await errorOf(load({ reports: [write("proof.json", coveragePyJson(PROOF))], fullReport: full }));
    expect(issues).toEqual([expect.objectContaining({ code: "coverage_invalid", file: full })]);
    expect(issues[0]!.message).toContain("branches");
  });
});

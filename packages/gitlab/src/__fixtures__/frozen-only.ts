// A report with the line data and the frozen-only ranges core computes from it (buildCoverageMap,
// frozenOnlyFiles), for the Cobertura and Code Quality tests.
import {
  buildCoverageMap,
  frozenOnlyFiles,
  renderMarkdown,
  type CoverageData,
  type FileCoverage,
  type PublishableReport,
} from "@proofgate/core";
import { mergeReport } from "./reports.js";

/** One file: its statements, what kept tests ran, what every test ran, and who ran the frozen-only lines. */
export interface FileSpec {
  path: string;
  statements: number[];
  proven: number[];
  raw: number[];
  /** Branch keys (`"3>4"`) with the proven and the raw ones. */
  branches?: { all: string[]; proven: string[]; raw: string[] };
  tests?: Record<string, string[]>;
}

const set = (xs: (number | string)[]): Set<string> => new Set(xs.map(String));

function data(specs: FileSpec[], which: "proven" | "raw"): CoverageData {
  const files = new Map<string, FileCoverage>();
  for (const s of specs)
    files.set(s.path, {
      path: s.path,
      statements: set(s.statements),
      coveredStatements: set(s[which]),
      branches: set(s.branches?.all ?? []),
      coveredBranches: set(s.branches?.[which] ?? []),
    });
  return { format: "coveragepy-json", sources: ["coverage.json"], files, hasBranches: true };
}

/** A MERGE report whose coverage section holds `specs` as core reads them: proven, raw and frozen-only. */
export function frozenOnlyReport(specs: FileSpec[], attributed = true): PublishableReport {
  const { map, errors } = buildCoverageMap(
    data(specs, "proven"),
    data(specs, "raw"),
    attributed ? new Map(specs.map((s) => [s.path, new Map(Object.entries(s.tests ?? {}))])) : undefined,
  );
  if (!map || errors.length > 0) throw new Error(`fixture: ${JSON.stringify(errors)}`);
  const files = frozenOnlyFiles(map);
  const base = mergeReport();
  const gate = {
    ...base.gate,
    provenCoveragePercent: map.proven.percent,
    coverage: {
      source: "contexts" as const,
      files: [".coverage"],
      format: "coveragepy-contexts",
      shardsExpected: null,
      provenCoveragePercent: map.proven.percent,
      numStatements: map.proven.statements,
      coveredLines: map.proven.coveredLines,
      numBranches: map.proven.branches,
      coveredBranches: map.proven.coveredBranches,
      lineRate: map.proven.lineRate,
      branchRate: map.proven.branchRate,
      raw: {
        percent: map.raw!.percent,
        numStatements: map.raw!.statements,
        coveredLines: map.raw!.coveredLines,
        numBranches: map.raw!.branches,
        coveredBranches: map.raw!.coveredBranches,
      },
      rawNotMeasured: null,
      hiddenPoints: map.raw!.percent - map.proven.percent,
      frozenOnly: {
        lines: files.reduce((n, f) => n + f.lines, 0),
        branches: files.reduce((n, f) => n + f.branches, 0),
        attributed,
        files,
      },
      lines: map,
      patch: null,
      patchNotMeasured: "decide reads no git diff",
      maxDropPoints: null,
      baseProvenCoveragePercent: null,
    },
    ledger: {
      file: "freeze.toml",
      maxActiveLeases: 2,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      active: [{ nodeid: "tests/test_a.py::test_slow", owner: "carol", expires: "2026-04-01" as const, line: 3 }],
      expired: [],
      unknown: [],
      costPool: null,
      costNotMeasured: "the rerun does not record which test ran which line",
    },
  };
  return { ...base, gate, markdown: renderMarkdown(gate) };
}

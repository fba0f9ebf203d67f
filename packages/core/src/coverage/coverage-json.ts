import { coveragePercent, summaryFromCounts, type CoverageSummary } from "./coverage-model.js";
import type { GateIssue } from "../common/errors.js";
import { parseJsonOnce } from "./shared-json.js";

/** Coverage totals as coverage.py counts them, from one coverage.py JSON report. */
export type CoverageTotals = CoverageSummary & {
  file: string;
  /** coverage.py's JSON report format: 1 (6.x, no `meta.format`), 2 or 3 (7.x). */
  format: number;
  /** `percent` is the report's own `percent_covered`, checked against the counts. */
  hasBranches: boolean;
};

/** Totals, or everything wrong with the report. */
export interface CoverageParseResult {
  totals?: CoverageTotals | undefined;
  errors: GateIssue[];
}

const SUPPORTED_FORMATS = [1, 2, 3];

/**
 * Reads a coverage.py JSON report (formats 1 to 3). A report without `totals`, with counts that are not
 * whole numbers, that contradict each other, or a `percent_covered` that the counts do not give, is an
 * input error, never 0 or 100.
 */
export function parseCoveragePyJson(text: string, file: string): CoverageParseResult {
  const errors: GateIssue[] = [];
  const fail = (message: string, fix?: string, line?: number): CoverageParseResult => {
    errors.push({ code: "coverage_invalid", file, line, message, fix });
    return { errors };
  };
  const regenerate = "regenerate it with `coverage json -o proven_coverage.json` after the proof run";
  if (text.trim() === "") return fail("the coverage report is empty", regenerate);
  let data: unknown;
  try {
    data = parseJsonOnce(text);
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message));
    // V8 gives no position for a file cut off mid-value ("Unexpected end of JSON input"): that is the last line.
    const line = position
      ? text.slice(0, Number(position[1])).split("\n").length
      : /end of JSON input/.test(String((error as Error).message))
        ? text.trimEnd().split("\n").length
        : undefined;
    return fail(
      `not valid JSON (${String((error as Error).message).split("\n")[0]}): truncated or not a coverage.py JSON report`,
      regenerate,
      line,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return fail("not a coverage.py JSON report: the top level is not an object", regenerate);
  const report = data as Record<string, unknown>;
  const meta = report.meta;
  let format = 1;
  if (meta !== undefined) {
    if (typeof meta !== "object" || meta === null) return fail("`meta` is not an object", regenerate);
    const declared = (meta as Record<string, unknown>).format;
    if (declared !== undefined) {
      if (typeof declared !== "number" || !SUPPORTED_FORMATS.includes(declared)) {
        return fail(
          `coverage.py JSON format ${JSON.stringify(declared)} is not one this proofgate reads (${SUPPORTED_FORMATS.join(", ")})`,
          "upgrade proofgate, or write the report with coverage.py 6.5 to 7.x",
        );
      }
      format = declared;
    }
  }
  const totals = report.totals;
  if (totals === undefined)
    return fail("the report has no `totals`: it is not a complete coverage.py JSON report", regenerate);
  if (typeof totals !== "object" || totals === null || Array.isArray(totals))
    return fail("`totals` is not an object", regenerate);
  const t = totals as Record<string, unknown>;

  const count = (key: string, required: boolean): number | undefined => {
    const value = t[key];
    if (value === undefined) {
      if (required) fail(`\`totals.${key}\` is missing`, regenerate);
      return undefined;
    }
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      fail(`\`totals.${key}\` must be a whole number >= 0, not ${JSON.stringify(value)}`, regenerate);
      return undefined;
    }
    return value;
  };
  const statements = count("num_statements", true);
  const coveredLines = count("covered_lines", true);
  const hasBranches = t.num_branches !== undefined || t.covered_branches !== undefined;
  const branches = count("num_branches", hasBranches) ?? 0;
  const coveredBranches = count("covered_branches", hasBranches) ?? 0;
  const percent = t.percent_covered;
  if (percent === undefined) fail("`totals.percent_covered` is missing", regenerate);
  else if (typeof percent !== "number" || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    fail(`\`totals.percent_covered\` must be a number from 0 to 100, not ${JSON.stringify(percent)}`, regenerate);
  }
  if (errors.length > 0 || statements === undefined || coveredLines === undefined || typeof percent !== "number")
    return { errors };

  if (coveredLines > statements)
    return fail(`\`totals.covered_lines\` (${coveredLines}) exceeds \`num_statements\` (${statements})`, regenerate);
  if (coveredBranches > branches)
    return fail(`\`totals.covered_branches\` (${coveredBranches}) exceeds \`num_branches\` (${branches})`, regenerate);
  const expected = coveragePercent(statements, coveredLines, branches, coveredBranches);
  if (Math.abs(expected - percent) > 1e-9) {
    return fail(
      `\`totals.percent_covered\` is ${percent} but the counts give ${expected}: the report was edited or is corrupt`,
      regenerate,
    );
  }
  const filesError = checkFilesAgainstTotals(report.files, statements, coveredLines, branches, coveredBranches);
  if (filesError) return fail(filesError, regenerate);

  return {
    totals: {
      file,
      format,
      ...summaryFromCounts(statements, coveredLines, branches, coveredBranches),
      percent,
      hasBranches,
    },
    errors,
  };
}

/** coverage.py's totals are the sum of its files; a report where they differ was edited. */
function checkFilesAgainstTotals(
  files: unknown,
  statements: number,
  coveredLines: number,
  branches: number,
  coveredBranches: number,
): string | undefined {
  if (files === undefined) return undefined;
  if (typeof files !== "object" || files === null || Array.isArray(files)) return "`files` is not an object";
  const sum = { num_statements: 0, covered_lines: 0, num_branches: 0, covered_branches: 0 };
  for (const [path, entry] of Object.entries(files as Record<string, unknown>)) {
    const summary = (entry as { summary?: Record<string, unknown> } | null)?.summary;
    if (typeof summary !== "object" || summary === null) return `\`files["${path}"]\` has no \`summary\``;
    if (typeof summary.num_statements !== "number" || typeof summary.covered_lines !== "number")
      return `\`files["${path}"].summary\` lacks its counts`;
    for (const key of Object.keys(sum) as (keyof typeof sum)[]) {
      const value = summary[key];
      if (value !== undefined && typeof value !== "number")
        return `\`files["${path}"].summary.${key}\` is not a number`;
      sum[key] += value ?? 0;
    }
  }
  if (sum.num_statements !== statements || sum.covered_lines !== coveredLines) {
    return `the files add up to ${sum.covered_lines}/${sum.num_statements} lines but \`totals\` says ${coveredLines}/${statements}: the report was edited or is corrupt`;
  }
  const filesCountBranches = Object.values(files as Record<string, { summary?: Record<string, unknown> }>).some(
    (e) => e?.summary?.num_branches !== undefined,
  );
  if (filesCountBranches && (sum.num_branches !== branches || sum.covered_branches !== coveredBranches)) {
    return `the files add up to ${sum.covered_branches}/${sum.num_branches} branches but \`totals\` says ${coveredBranches}/${branches}: the report was edited or is corrupt`;
  }
  return undefined;
}

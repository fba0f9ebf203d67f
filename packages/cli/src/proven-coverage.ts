import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import {
  GateError,
  mergeCoverageShards,
  parseCoveragePyJson,
  provenCoverageFromContexts,
  readCoverage,
  summarizeCoverage,
  COVERAGE_REPORT_FORMATS,
  detectCoverageFormat,
  type CoverageData,
  type CoverageFormat,
  type GateIssue,
  type ProvenCoverage,
} from "@proofgate/core";
import { asText, readInput, readInputBytes, type InputBytes, type InputFile } from "./io.js";
import { readCoverageDataFile } from "./coverage-data-file.js";

/** Where proven coverage comes from, as the flags of `coverage` and `decide` give it. */
export interface CoverageSources {
  /** Report files; several are shards of one run, merged by union per file. */
  reports: string[];
  /** coverage.py's `.coverage` of a full `--cov-context=test` run: the single-run mode. */
  contexts?: string | undefined;
  /** Overrides format detection for every report. */
  format?: string | undefined;
  /** The number of shards the run was split into; fewer reports is `shard_missing`. */
  shards?: number | undefined;
  /** Frozen nodeids (the active leases), dropped in the single-run mode. */
  frozen: readonly string[];
  /** Where relative source paths are read from (single-run docstring check) and absolute report paths are cut. */
  root: string;
}

/** Proven coverage and the files it was read from. */
export interface LoadedCoverage {
  coverage: ProvenCoverage;
  files: (InputFile | InputBytes)[];
  warnings: GateIssue[];
  /** Single-run mode: the frozen tests with no context in the data file. */
  frozenNotRun: string[];
}

const FORMAT_NAMES = COVERAGE_REPORT_FORMATS.map((f) => f.format);

/**
 * Reads proven coverage from the flags: one coverage.py JSON report (its validated totals, as the
 * article's script reads them), several reports of any format merged as shards, or a `.coverage`
 * data file with contexts minus the frozen tests. Any problem is a GateError: exit 2, never 0%.
 */
export async function loadProvenCoverage(sources: CoverageSources): Promise<LoadedCoverage> {
  const format = sources.format === undefined ? undefined : checkFormat(sources.format);
  if (sources.shards !== undefined && sources.reports.length > sources.shards) {
    throw new GateError({ code: "usage", message: `${sources.reports.length} coverage reports were given for --shards ${sources.shards}`, fix: "pass one report per shard, and --shards the number of parallel jobs" });
  }
  if (sources.contexts !== undefined) return loadFromContexts(sources);

  const files = sources.reports.map((path) => readReport(path));
  const warnings: GateIssue[] = [];
  const single = files.length === 1 ? files[0]! : undefined;
  if (single && (format ?? detectCoverageFormat(single.text)) === "coveragepy-json") {
    const result = parseCoveragePyJson(single.text, single.path);
    if (result.errors.length > 0 || !result.totals) throw new GateError(result.errors);
    const t = result.totals;
    return {
      coverage: { source: "report", files: [single.path], format: "coveragepy-json", percent: t.percent, statements: t.statements, coveredLines: t.coveredLines, branches: t.branches, coveredBranches: t.coveredBranches, lineRate: t.lineRate, branchRate: t.branchRate, shardsExpected: sources.shards },
      files,
      warnings,
      frozenNotRun: [],
    };
  }
  const parsed: CoverageData[] = [];
  const errors: GateIssue[] = [];
  for (const file of files) {
    const result = readCoverage(file.text, file.path, { format, root: sources.root });
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    if (result.data) parsed.push(result.data);
  }
  if (errors.length > 0) throw new GateError(errors);
  const merged = parsed.length === 1 ? { data: parsed[0], errors: [], warnings: [] } : mergeCoverageShards(parsed);
  if (merged.errors.length > 0 || !merged.data) throw new GateError(merged.errors);
  warnings.push(...merged.warnings);
  const s = summarizeCoverage(merged.data);
  return {
    coverage: { source: files.length > 1 ? "shards" : "report", files: files.map((f) => f.path), format: merged.data.format, ...s, shardsExpected: sources.shards },
    files,
    warnings,
    frozenNotRun: [],
  };
}

async function loadFromContexts(sources: CoverageSources): Promise<LoadedCoverage> {
  const contexts = sources.contexts!;
  if (sources.reports.length !== 1) {
    throw new GateError({ code: "usage", message: `--contexts needs exactly one --report (the same run's \`coverage json\`), not ${sources.reports.length}`, fix: "pass --report full.json written by `coverage json` from the same .coverage" });
  }
  const report = readInput(sources.reports[0]!, "the coverage.py JSON report of the same run", "--report");
  const rows = await readCoverageDataFile(contexts);
  const proven = provenCoverageFromContexts(rows, report.text, report.path, sources.frozen, (path) => readSource(path, sources.root));
  if (proven.errors.length > 0 || !proven.summary) throw new GateError(proven.errors.length ? proven.errors : [{ code: "coverage_invalid", file: contexts, message: "the data file holds no coverage" }]);
  const dataFile = readInputBytes(contexts, "coverage.py's data file", "--contexts");
  return {
    coverage: { source: "contexts", files: [contexts, report.path], format: "coveragepy-contexts", ...proven.summary },
    files: [dataFile, report],
    warnings: proven.warnings,
    frozenNotRun: proven.frozenNotRun,
  };
}

function checkFormat(text: string): CoverageFormat {
  if (!(FORMAT_NAMES as readonly string[]).includes(text)) {
    throw new GateError({ code: "usage", message: `--coverage-format ${JSON.stringify(text)} is not one of ${FORMAT_NAMES.join(", ")}`, fix: "leave it out to detect the format from the content" });
  }
  return text as CoverageFormat;
}

const SQLITE_HEADER = "SQLite format 3\u0000";

function readReport(path: string): InputFile {
  const input = readInputBytes(path, "the coverage report", "--report");
  if (input.bytes.subarray(0, 16).toString("latin1") === SQLITE_HEADER) {
    throw new GateError({ code: "coverage_invalid", file: path, message: "this is coverage.py's SQLite data file (.coverage), not a report", fix: "pass it as --contexts, with --report the same run's `coverage json`; or write a report with `coverage json`" });
  }
  return asText(input, "the coverage report");
}

/** A measured file's source, for telling docstrings from statements; undefined when it cannot be read. */
function readSource(path: string, root: string): string | undefined {
  try {
    return readFileSync(isAbsolute(path) ? path : resolve(root, path), "utf8");
  } catch {
    return undefined;
  }
}

// Proven coverage from the proof run's reports (one, or shards merged), or from one `--cov-context=test`
// run minus the frozen tests' contexts. Which way is the config's (or the flags') choice; the numbers are
// core's. Any problem is a GateError: exit 2, never 0%.
import { createHash } from "node:crypto";
import {
  CoverageShardMerger,
  GateError,
  LcovStreamReader,
  normalizeCoveragePath,
  parseCoveragePyJson,
  provenCoverageFromContextShards,
  readCoverage,
  buildCoverageMap,
  isLineBased,
  type CoverageData,
  type CoverageMap,
  summarizeCoverage,
  summaryFromCounts,
  COVERAGE_REPORT_FORMATS,
  detectCoverageFormat,
  type CoverageFormat,
  type ContextShard,
  type GateIssue,
  type ProvenCoverage,
} from "@proofgate/core";
import { asText } from "../input-text.js";
import type { CoverageDataReader, CoverageShardReader, FilePort, InputBytes, InputFile, ShardsRead } from "../ports.js";

/** Where proven coverage comes from, as the flags of `coverage` and `decide` give it. */
export interface CoverageSources {
  /** Report files; several are shards of one run, merged by union per file. */
  reports: string[];
  /**
   * coverage.py's `.coverage` of a full `--cov-context=test` run, one per shard: the single-run mode.
   * `reports` then lists each one's `coverage json`, in the same order.
   */
  contexts?: readonly string[] | undefined;
  /** Overrides format detection for every report. */
  format?: string | undefined;
  /** The number of shards the run was split into; fewer reports is `shard_missing`. */
  shards?: number | undefined;
  /** Rerun mode: a full run's report (every test, frozen included), for the raw figure and frozen-only lines. */
  fullReport?: string | undefined;
  /** Frozen nodeids (the active leases), dropped in the single-run mode. */
  frozen: readonly string[];
}

/** What loading coverage reads through: the files, and coverage.py's data file. */
export interface CoveragePorts {
  files: FilePort;
  coverageData: CoverageDataReader;
  coverageShards?: CoverageShardReader | undefined;
}

/** Proven coverage and the files it was read from. */
export interface LoadedCoverage {
  coverage: ProvenCoverage;
  files: (InputFile | InputBytes | StreamedFile | ReadReport)[];
  warnings: GateIssue[];
  /** Single-run mode: the frozen tests with no context in the data file. */
  frozenNotRun: string[];
  /** The full run's report (`[coverage] full_report`), when read. */
  full?: InputFile | undefined;
  /** The source files the reports measured, as repository paths; undefined when a report does not list them. */
  measuredFiles?: string[] | undefined;
}

/** The files a coverage.py JSON report lists, as repository paths; undefined when it has no `files` table. */
function jsonReportFiles(text: string, root: string): string[] | undefined {
  try {
    const files = (JSON.parse(text) as { files?: unknown }).files;
    if (typeof files !== "object" || files === null || Array.isArray(files)) return undefined;
    return Object.keys(files).map((path) => normalizeCoveragePath(path, root));
  } catch {
    return undefined;
  }
}

const FORMAT_NAMES = COVERAGE_REPORT_FORMATS.map((f) => f.format);

/**
 * Reads proven coverage from the flags: one coverage.py JSON report (its validated totals, as the
 * article's script reads them), several reports of any format merged as shards, or a `.coverage`
 * data file with contexts minus the frozen tests. Any problem is a GateError: exit 2, never 0%.
 */
export async function loadProvenCoverage(sources: CoverageSources, ports: CoveragePorts): Promise<LoadedCoverage> {
  const { files: fs } = ports;
  const root = fs.root;
  const format = sources.format === undefined ? undefined : checkFormat(sources.format);
  const shardFiles = sources.contexts ?? sources.reports;
  if (sources.shards !== undefined && shardFiles.length > sources.shards) {
    throw new GateError({
      code: "usage",
      message:
        sources.contexts === undefined
          ? `${sources.reports.length} coverage reports were given for --shards ${sources.shards}`
          : `${sources.contexts.length} coverage data files (contexts) were given for --shards ${sources.shards}`,
      fix:
        sources.contexts === undefined
          ? "pass one report per shard, and --shards the number of parallel jobs"
          : "pass one .coverage data file per shard, and --shards the number of parallel jobs",
    });
  }
  if (sources.contexts !== undefined) {
    if (sources.fullReport !== undefined)
      throw new GateError({
        code: "usage",
        message:
          "[coverage] full_report is for the rerun mode: with contexts, the raw figure comes from the same data file",
        fix: "remove full_report, or contexts to keep the rerun",
      });
    return loadFromContexts(sources, ports);
  }

  // LCOV reports are streamed (read in chunks, folded into the merged model shard by shard), so 20
  // shards of 25 MB never sit in memory as text; other formats are read whole, one at a time (below).
  const warnings: GateIssue[] = [];
  const first = sources.reports.length === 1 ? openReport(fs, sources.reports[0]!, format) : undefined;
  const single = first && !("streamed" in first) ? first : undefined;
  if (single && (format ?? detectCoverageFormat(single.text)) === "coveragepy-json") {
    const result = parseCoveragePyJson(single.text, single.path);
    if (result.errors.length > 0 || !result.totals) throw new GateError(result.errors);
    const t = result.totals;
    // The totals are what the gate enforces; the line map beside them needs the report's per-file data.
    // A totals-only report (the article's script reads nothing else) has no raw figure unless a full
    // report is named, and then a line map is required.
    const lines = readCoverage(single.text, single.path, { format: "coveragepy-json", root });
    if ((lines.errors.length > 0 || !lines.data) && sources.fullReport !== undefined) throw new GateError(lines.errors);
    const { map, rawNotMeasured, full } =
      lines.data && lines.errors.length === 0
        ? withFullReport(lines.data, sources, fs, format)
        : { map: undefined, rawNotMeasured: "the proof run's report has no per-file data", full: undefined };
    return {
      // The report's own percent_covered (parseCoveragePyJson checked it against the counts), as the script reads it.
      coverage: {
        ...summaryFromCounts(t.statements, t.coveredLines, t.branches, t.coveredBranches),
        percent: t.percent,
        source: "report",
        files: [single.path],
        format: "coveragepy-json",
        shardsExpected: sources.shards,
        map,
        rawNotMeasured,
      },
      files: [single],
      full,
      warnings,
      frozenNotRun: [],
      measuredFiles: jsonReportFiles(single.text, root),
    };
  }
  // Many coverage.py JSON shards are read in worker threads when the ports have them (a clean read only:
  // else, and on any error, every report is read here, below, so the messages are this thread's).
  const inWorkers = await shardsInWorkers(sources.reports, format, ports);
  const { data, files } =
    (inWorkers && mergeParts(inWorkers, sources.reports)) ?? readShards(sources.reports, format, fs, first, warnings);
  const s = summarizeCoverage(data);
  const { map, rawNotMeasured, full } = withFullReport(data, sources, fs, format);
  return {
    coverage: {
      source: files.length > 1 ? "shards" : "report",
      files: files.map((f) => f.path),
      format: data.format,
      ...s,
      shardsExpected: sources.shards,
      map,
      rawNotMeasured,
    },
    files,
    full,
    warnings,
    frozenNotRun: [],
    measuredFiles: [...data.files.keys()],
  };
}

/** The merged model of every report, and each report's path and digest. */
interface MergedReports {
  data: CoverageData;
  files: (StreamedFile | ReadReport)[];
}

/**
 * Reads the reports one at a time into the merge: each is read, folded in and let go before the next is
 * opened (of its text only its path and digest stay, the report's inputs), so 50 shards never sit in memory
 * together. Any error is a GateError once every report was read.
 */
function readShards(
  reports: readonly string[],
  format: CoverageFormat | undefined,
  fs: FilePort,
  first: InputFile | StreamedFile | undefined,
  warnings: GateIssue[],
): MergedReports {
  const root = fs.root;
  const merger = new CoverageShardMerger();
  const errors: GateIssue[] = [];
  const files: (StreamedFile | ReadReport)[] = [];
  for (const path of reports) {
    const file = first ?? openReport(fs, path, format);
    let result: ReturnType<typeof readCoverage>;
    if ("streamed" in file) {
      result = streamLcov(fs, file, root);
      files.push(file);
    } else {
      // A file's statements and branches equal to an earlier shard's are that shard's sets, shared.
      result = readCoverage(file.text, file.path, { format, root, known: (p) => merger.known(p) });
      files.push({ path: file.path, sha256: file.sha256 });
    }
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    // Once a report failed, the merge is never used: stop holding models.
    if (result.data && errors.length === 0) merger.add(result.data, { consume: true });
  }
  if (errors.length > 0) throw new GateError(errors);
  const merged = merger.result();
  if (merged.errors.length > 0 || !merged.data) throw new GateError(merged.errors);
  warnings.push(...merged.warnings);
  return { data: merged.data, files };
}

/**
 * The reports read by the ports' shard reader, when it has one and they are coverage.py JSON shards: each is
 * first opened here as {@link readShards} would open it (any that cannot be, or is of another kind, leaves
 * them all to this thread). Undefined: read them here.
 */
async function shardsInWorkers(
  reports: readonly string[],
  format: CoverageFormat | undefined,
  ports: CoveragePorts,
): Promise<ShardsRead | undefined> {
  const reader = ports.coverageShards;
  if (!reader || reports.length < 2 || (format !== undefined && format !== "coveragepy-json")) return undefined;
  for (const path of reports) {
    try {
      const head = ports.files.peek(path, PEEK_BYTES, "the coverage report", "--report");
      if (latin1(head.subarray(0, 16)) === SQLITE_HEADER) return undefined;
      if ((format ?? detectCoverageFormat(new TextDecoder().decode(head))) !== "coveragepy-json") return undefined;
    } catch {
      return undefined;
    }
  }
  return reader.read(reports, format);
}

/** The parts the workers merged, merged in order; undefined when they disagree (read again here, for the messages). */
function mergeParts(read: ShardsRead, reports: readonly string[]): MergedReports | undefined {
  const merger = new CoverageShardMerger();
  for (const part of read.parts) merger.add(part, { consume: true });
  const merged = merger.result();
  if (merged.errors.length > 0 || merged.warnings.length > 0 || !merged.data) return undefined;
  return { data: merged.data, files: reports.map((path, i) => ({ path, sha256: read.sha256[i]! })) };
}

/** A report read, folded into the merge and let go: what the report's inputs name. */
interface ReadReport {
  path: string;
  sha256: string;
}

/** An LCOV report read in chunks: its digest is known once it has been read. */
interface StreamedFile {
  streamed: true;
  path: string;
  sha256: string;
}

const PEEK_BYTES = 64 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Opens a report: an LCOV one (detected from its first 64 KiB, or named by --coverage-format) is left
 * to {@link streamLcov}; any other is read whole.
 */
function openReport(fs: FilePort, path: string, format: CoverageFormat | undefined): InputFile | StreamedFile {
  const head = fs.peek(path, PEEK_BYTES, "the coverage report", "--report");
  const complete = head.length < PEEK_BYTES;
  if (latin1(head.subarray(0, 16)) === SQLITE_HEADER || (!complete && head.length < 16)) return readReport(fs, path);
  const detected = format ?? detectCoverageFormat(new TextDecoder().decode(head));
  if (detected !== "lcov" || complete) return readReport(fs, path);
  return { streamed: true, path, sha256: "" };
}

/** Reads an LCOV report in chunks into the model, hashing it on the way. */
function streamLcov(fs: FilePort, file: StreamedFile, root: string): ReturnType<LcovStreamReader["end"]> {
  const reader = new LcovStreamReader(file.path, { root });
  const hash = createHash("sha256");
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const notUtf8 = (): GateError =>
    new GateError({
      code: "file_unreadable",
      file: file.path,
      message: "the coverage report is not UTF-8 text",
      fix: "write it as UTF-8",
    });
  for (const bytes of fs.chunks(file.path, CHUNK_BYTES, "the coverage report", "--report")) {
    hash.update(bytes);
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      throw notUtf8();
    }
    reader.push(text);
  }
  try {
    reader.push(decoder.decode());
  } catch {
    throw notUtf8();
  }
  file.sha256 = hash.digest("hex");
  return reader.end();
}

async function loadFromContexts(sources: CoverageSources, ports: CoveragePorts): Promise<LoadedCoverage> {
  const { files: fs } = ports;
  const contexts = [...sources.contexts!];
  if (sources.reports.length !== contexts.length) {
    throw new GateError({
      code: "usage",
      message:
        contexts.length === 1
          ? `--contexts needs exactly one --report (the same run's \`coverage json\`), not ${sources.reports.length}`
          : `${contexts.length} data files (contexts) need ${contexts.length} reports, each shard's \`coverage json\` in the same order, not ${sources.reports.length}`,
      fix:
        contexts.length === 1
          ? "pass --report full.json written by `coverage json` from the same .coverage"
          : "in each shard, write `coverage json` from its own .coverage, and list the reports in the order of the data files ([coverage] reports, or one --report per --contexts)",
    });
  }
  const duplicate = contexts.find((path, i) => contexts.indexOf(path) !== i);
  if (duplicate !== undefined)
    throw new GateError({
      code: "usage",
      file: duplicate,
      message: "is listed twice as a shard's data file: one shard would count twice toward the shards expected",
      fix: "list each shard's .coverage once",
    });
  const reports: InputFile[] = [];
  const dataFiles: InputBytes[] = [];
  const shards: ContextShard[] = [];
  for (const [i, path] of contexts.entries()) {
    const report = fs.readText(sources.reports[i]!, "the coverage.py JSON report of the same run", "--report");
    const db = await ports.coverageData(path);
    reports.push(report);
    dataFiles.push(fs.readBytes(path, "coverage.py's data file", "--contexts"));
    shards.push({ db, reportText: report.text, reportFile: report.path });
  }
  const proven = provenCoverageFromContextShards(shards, sources.frozen, (path) => fs.readSource(path));
  if (proven.errors.length > 0 || !proven.summary)
    throw new GateError(
      proven.errors.length
        ? proven.errors
        : [{ code: "coverage_invalid", file: contexts.join(", "), message: "the data file holds no coverage" }],
    );
  const reportPaths = reports.map((r) => r.path).join(", ");
  const built = buildCoverageMap(proven.data!, proven.raw, proven.frozenTests, { proven: reportPaths });
  if (built.errors.length > 0) throw new GateError(built.errors);
  const measured = new Set(reports.flatMap((r) => jsonReportFiles(r.text, fs.root) ?? []));
  return {
    coverage: {
      source: "contexts",
      files: [...contexts, ...reports.map((r) => r.path)],
      format: "coveragepy-contexts",
      ...proven.summary,
      upper: proven.upper,
      shardsExpected: sources.shards,
      dataFiles: contexts,
      map: built.map,
      dropped: [...sources.frozen],
      frozenNotRun: proven.frozenNotRun,
    },
    files: [...dataFiles, ...reports],
    warnings: proven.warnings,
    frozenNotRun: proven.frozenNotRun,
    measuredFiles: reports.every((r) => jsonReportFiles(r.text, fs.root) !== undefined) ? [...measured] : undefined,
  };
}

/**
 * The line map of the proof run's data, with the full run's report (`[coverage] full_report`) as the raw
 * side when the config names one. A full report that cannot be read, or that is of other code, is exit 2:
 * a number the report shows is never guessed.
 */
function withFullReport(
  proven: CoverageData,
  sources: CoverageSources,
  fs: FilePort,
  format: CoverageFormat | undefined,
): { map?: CoverageMap | undefined; rawNotMeasured?: string | undefined; full?: InputFile | undefined } {
  if (!isLineBased(proven)) return { rawNotMeasured: `${proven.format} keys coverage by statement id, not by line` };
  let raw: CoverageData | undefined;
  let full: InputFile | undefined;
  if (sources.fullReport !== undefined) {
    full = readReport(fs, sources.fullReport, "the full run's coverage report", "[coverage] full_report");
    const read = readCoverage(full.text, full.path, { format, root: fs.root });
    if (read.errors.length > 0 || !read.data) throw new GateError(read.errors);
    raw = read.data;
  }
  const built = buildCoverageMap(proven, raw, undefined, { proven: proven.sources.join(", "), raw: full?.path });
  if (built.errors.length > 0) throw new GateError(built.errors);
  return {
    map: built.map,
    rawNotMeasured: raw ? undefined : "the proof run is a rerun and [coverage] full_report names no full run's report",
    full,
  };
}

function checkFormat(text: string): CoverageFormat {
  if (!(FORMAT_NAMES as readonly string[]).includes(text)) {
    throw new GateError({
      code: "usage",
      message: `--coverage-format ${JSON.stringify(text)} is not one of ${FORMAT_NAMES.join(", ")}`,
      fix: "leave it out to detect the format from the content",
    });
  }
  return text as CoverageFormat;
}

const SQLITE_HEADER = "SQLite format 3\u0000";

const latin1 = (bytes: Uint8Array): string => String.fromCharCode(...bytes);

function readReport(fs: FilePort, path: string, what = "the coverage report", flag = "--report"): InputFile {
  const input = fs.readBytes(path, what, flag);
  if (latin1(input.bytes.subarray(0, 16)) === SQLITE_HEADER) {
    throw new GateError({
      code: "coverage_invalid",
      file: path,
      message: "this is coverage.py's SQLite data file (.coverage), not a report",
      fix: "pass it as --contexts, with --report the same run's `coverage json`; or write a report with `coverage json`",
    });
  }
  return asText(input, what);
}

import type { CoverageFormat, CoverageReadResult } from "./coverage-model.js";
import { readCobertura } from "./cobertura-reader.js";
import { readCoveragePyJson } from "./coveragepy-json-reader.js";
import { COVERAGE_REPORT_FORMATS, detectCoverageFormat } from "./detect-format.js";
import { readIstanbulFinal } from "./istanbul-final-reader.js";
import { readIstanbulSummary } from "./istanbul-summary-reader.js";
import { readLcov } from "./lcov-reader.js";
import { withJsonOnce } from "./shared-json.js";
import type { CoverageReadOptions, ReadCoverageOptions } from "./read-options.js";

type Reader = (text: string, file: string, options?: CoverageReadOptions) => CoverageReadResult;

const READERS: Partial<Record<CoverageFormat, Reader>> = {
  "coveragepy-json": readCoveragePyJson,
  lcov: readLcov,
  cobertura: readCobertura,
  "istanbul-final": readIstanbulFinal,
  "istanbul-summary": readIstanbulSummary,
};

const ACCEPTED = COVERAGE_REPORT_FORMATS.map((f) => `${f.name} [${f.format}]`).join(", ");

/**
 * Reads a coverage report of any format proofgate knows: `format` when given (it overrides detection),
 * else the format {@link detectCoverageFormat} finds. A file of no known format is an error that names
 * the formats accepted.
 */
export function readCoverage(text: string, file: string, options: ReadCoverageOptions = {}): CoverageReadResult {
  return withJsonOnce(() => readAs(text, file, options));
}

function readAs(text: string, file: string, options: ReadCoverageOptions): CoverageReadResult {
  const format = options.format ?? detectCoverageFormat(text);
  const readerOptions: CoverageReadOptions = {
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.known === undefined ? {} : { known: options.known }),
  };
  if (format === "coveragepy-contexts") {
    return fail(
      file,
      "this is coverage.py's SQLite data file (`.coverage`), not a report",
      "pass it as `--contexts .coverage` for the single-run mode, or write a report from it with `coverage json`",
    );
  }
  if (format === undefined && /^\s*\{\s*\}\s*$/.test(text)) {
    return fail(
      file,
      "the coverage report lists no file (an empty JSON object): the proof run measured nothing",
      "check the coverage settings the proof run used: an include that matches no source file, or vitest's `coverage.changed` with nothing changed, measures nothing",
    );
  }
  if (format === undefined) {
    return fail(
      file,
      text.trim() === ""
        ? "the coverage report is empty"
        : `not a coverage report proofgate can tell: it reads ${ACCEPTED}`,
      "pass a report in one of those formats, or name the format with `--coverage-format`",
    );
  }
  const reader = READERS[format];
  if (!reader)
    return fail(
      file,
      `no reader for the format ${JSON.stringify(format)}: proofgate reads ${ACCEPTED}`,
      "name one of those formats",
    );
  return reader(text, file, readerOptions);
}

function fail(file: string, message: string, fix: string): CoverageReadResult {
  return { errors: [{ code: "coverage_invalid", file, message, fix }], warnings: [] };
}

import type { CoverageFormat } from "./coverage-model.js";
import { parseJsonOnce } from "./shared-json.js";

/** The report formats {@link readCoverage} reads, with the names users know them by. */
export const COVERAGE_REPORT_FORMATS: readonly { format: CoverageFormat; name: string }[] = [
  { format: "coveragepy-json", name: "coverage.py JSON (`coverage json`)" },
  { format: "lcov", name: "LCOV (`lcov.info`)" },
  { format: "cobertura", name: "Cobertura XML (`coverage xml`, `cobertura.xml`)" },
  { format: "istanbul-final", name: "Istanbul `coverage-final.json`" },
  { format: "istanbul-summary", name: "Istanbul `coverage-summary.json`" },
];

const SQLITE_HEADER = "SQLite format 3\u0000";
const LCOV_KEYS = /^(?:TN|SF|VER|DA|FN|FNDA|LF|LH|BRDA|BRF|BRH):/m;

/**
 * Tells a coverage report's format from its content, or undefined when it is none proofgate reads.
 * A JSON report that does not parse is still classified by the keys it holds, so a truncated report
 * gets its reader's error. coverage.py's SQLite data file is `coveragepy-contexts`.
 */
export function detectCoverageFormat(text: string): CoverageFormat | undefined {
  if (text.startsWith(SQLITE_HEADER)) return "coveragepy-contexts";
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (body.startsWith("<")) return /<coverage[\s>/]/.test(body) ? "cobertura" : undefined;
  if (body.startsWith("{")) return detectJson(body);
  const first = body.split("\n", 1)[0] ?? "";
  if (LCOV_KEYS.test(first)) return "lcov";
  return undefined;
}

function detectJson(body: string): CoverageFormat | undefined {
  let parsed: unknown;
  try {
    parsed = parseJsonOnce(body);
  } catch {
    // Truncated or broken: go by the keys each format writes.
    if (/^\{\s*"meta"\s*:\s*\{\s*"(?:format|version)"|"(?:executed_lines|num_statements|percent_covered)"/.test(body))
      return "coveragepy-json";
    if (/"statementMap"/.test(body)) return "istanbul-final";
    if (/"pct"/.test(body)) return "istanbul-summary";
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const report = parsed as Record<string, unknown>;
  if ("totals" in report || ("meta" in report && "files" in report)) return "coveragepy-json";
  if (isObject(report.total) && ("statements" in report.total || "lines" in report.total)) return "istanbul-summary";
  const first = Object.values(report)[0];
  if (isObject(first) && ("statementMap" in first || ("s" in first && "b" in first))) return "istanbul-final";
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

import { normalizeCoveragePath, type CoverageData, type CoverageReadResult, type FileCoverage } from "../coverage-model.js";
import { dropPhantomLines } from "./coveragepy-phantoms.js";
import type { CoverageReadOptions } from "./read-options.js";
import { ReportIssues } from "./report-issues.js";

const REGENERATE = "regenerate the LCOV report (`coverage lcov`, `vitest --coverage.reporter=lcov`, `lcov --capture`, ...)";

/** One `SF:` ... `end_of_record` record while it is read. */
interface LcovRecord {
  path: string;
  line: number;
  /** DA line number -> whether any DA line for it has a count > 0. */
  lines: Map<number, boolean>;
  /** `line:block:branch` -> taken at least once. */
  branches: Map<string, boolean>;
  totals: Partial<Record<"LF" | "LH" | "BRF" | "BRH", { value: number; line: number }>>;
  sawBranchData: boolean;
  /** A DA/BRDA line of it was refused: its totals are not checked again. */
  damaged: boolean;
}

const WHOLE = /^\d+$/;

/**
 * Reads an LCOV tracefile (geninfo, coverage.py, Istanbul/vitest, c8, grcov, ...) into the model.
 * Statements are the `DA` lines (keyed by line number), covered when a count is > 0; branches are the
 * `BRDA:<line>,<block>,<branch>,<taken>` entries keyed `"line:block:branch"` (block and branch may be
 * free text, taken `-` means 0). `FN:<start>,<end>,<name>` and `FN:<line>,<name>` are both accepted
 * and otherwise ignored, as are `TN`, `VER`, `FNDA`, `FNF`, `FNH` and unknown keys. Errors, each with
 * its line: a record without `end_of_record`, a `DA`/`BRDA` with a negative or non-numeric count, and
 * `LF`/`LH`/`BRF`/`BRH` that contradict the record's `DA`/`BRDA` lines, except in the one way
 * coverage.py writes them (docstring lines as `DA`, see {@link dropPhantomLines}), which is a warning.
 * `DA:0` (coverage.py 6.5, an empty module) is accepted and never a statement.
 */
export function readLcov(text: string, file: string, options: CoverageReadOptions = {}): CoverageReadResult {
  const issues = new ReportIssues(file, REGENERATE);
  if (text.trim() === "") {
    issues.error("the LCOV report is empty");
    return issues.result(undefined);
  }
  const files = new Map<string, FileCoverage>();
  let hasBranches = false;
  let records = 0;
  const quirks: string[] = [];
  let current: LcovRecord | undefined;

  const close = (record: LcovRecord): void => {
    records++;
    if (record.sawBranchData) hasBranches = true;
    const phantoms = record.damaged ? [] : checkTotals(record, issues);
    if (phantoms.length > 0) quirks.push(`${record.path} (line ${phantoms.join(", ")})`);
    const path = normalizeCoveragePath(record.path, options.root);
    let fc = files.get(path);
    if (!fc) {
      fc = { path, statements: new Set(), coveredStatements: new Set(), branches: new Set(), coveredBranches: new Set() };
      files.set(path, fc);
    }
    const dropped = new Set(phantoms);
    for (const [line, hit] of record.lines) {
      if (dropped.has(line) || line === 0) continue;
      fc.statements.add(String(line));
      if (hit) fc.coveredStatements.add(String(line));
    }
    for (const [key, taken] of record.branches) {
      fc.branches.add(key);
      if (taken) fc.coveredBranches.add(key);
    }
  };

  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!.replace(/\r$/, "").trim();
    if (raw === "") continue;
    if (raw === "end_of_record") {
      if (!current) issues.error("`end_of_record` without a record: no `SF:` line opened one", lineNo);
      else close(current);
      current = undefined;
      continue;
    }
    const colon = raw.indexOf(":");
    if (colon <= 0 || !/^[A-Z][A-Z0-9_]*$/.test(raw.slice(0, colon))) {
      issues.error(`not an LCOV line: ${JSON.stringify(raw.slice(0, 60))}`, lineNo);
      continue;
    }
    const key = raw.slice(0, colon);
    const value = raw.slice(colon + 1);
    if (key === "SF") {
      if (current) issues.error(`the record of \`${current.path}\` (from line ${current.line}) has no \`end_of_record\` before the next \`SF:\``, current.line);
      if (value.trim() === "") issues.error("`SF:` names no file", lineNo);
      current = { path: value.trim(), line: lineNo, lines: new Map(), branches: new Map(), totals: {}, sawBranchData: false, damaged: false };
      continue;
    }
    if (key === "TN" || key === "VER") continue;
    if (!current) {
      if (["DA", "BRDA", "LF", "LH", "BRF", "BRH", "FN", "FNDA", "FNF", "FNH"].includes(key)) issues.error(`\`${key}:\` outside a record: no \`SF:\` line before it`, lineNo);
      continue;
    }
    switch (key) {
      case "DA": {
        const fields = value.split(",");
        const [line, count] = fields;
        // Line 0 is no source line, but coverage.py 6.5 writes `DA:0,1` for an empty module (see close()).
        if (fields.length < 2 || !WHOLE.test(line ?? "")) {
          issues.error(`\`DA:${value}\` is not \`DA:<line>,<count>\``, lineNo);
          current.damaged = true;
          break;
        }
        if (!WHOLE.test(count ?? "")) {
          issues.error(`\`DA:${value}\`: the count ${JSON.stringify(count)} is ${/^-\d/.test(count ?? "") ? "negative" : "not a whole number"}`, lineNo);
          current.damaged = true;
          break;
        }
        const n = Number(line);
        current.lines.set(n, (current.lines.get(n) ?? false) || Number(count) > 0);
        break;
      }
      case "BRDA": {
        current.sawBranchData = true;
        const fields = value.split(",");
        if (fields.length < 4 || !WHOLE.test(fields[0]!)) {
          issues.error(`\`BRDA:${value}\` is not \`BRDA:<line>,<block>,<branch>,<taken>\``, lineNo);
          current.damaged = true;
          break;
        }
        const taken = fields[fields.length - 1]!;
        if (taken !== "-" && !WHOLE.test(taken)) {
          issues.error(`\`BRDA:${value}\`: taken ${JSON.stringify(taken)} is ${/^-\d/.test(taken) ? "negative" : "neither a whole number nor `-`"}`, lineNo);
          current.damaged = true;
          break;
        }
        // The branch field may be free text holding commas (lcov 2 writes expressions there).
        const branchKey = `${fields[0]}:${fields[1]}:${fields.slice(2, -1).join(",")}`;
        current.branches.set(branchKey, (current.branches.get(branchKey) ?? false) || (taken !== "-" && Number(taken) > 0));
        break;
      }
      case "LF":
      case "LH":
      case "BRF":
      case "BRH": {
        if (key === "BRF" || key === "BRH") current.sawBranchData = true;
        if (!WHOLE.test(value.trim())) {
          issues.error(`\`${key}:${value}\` is not a whole number >= 0`, lineNo);
          break;
        }
        current.totals[key] = { value: Number(value.trim()), line: lineNo };
        break;
      }
      case "FN": {
        // `FN:<line>,<name>` (lcov 1) or `FN:<start>,<end>,<name>` (lcov 2, coverage.py 7).
        const first = value.split(",")[0] ?? "";
        if (!WHOLE.test(first) || !value.includes(",")) issues.error(`\`FN:${value}\` is neither \`FN:<line>,<name>\` nor \`FN:<start>,<end>,<name>\``, lineNo);
        break;
      }
      default:
        break;
    }
  }
  if (current) issues.error(`the record of \`${current.path}\` (from line ${current.line}) has no \`end_of_record\`: the file is truncated`, current.line);
  if (records === 0 && !issues.failed) issues.error("no `SF:` ... `end_of_record` record: not an LCOV report");
  if (quirks.length > 0 && !issues.failed) {
    issues.warn(
      `\`LF\`/\`LH\` disagree with the \`DA\` lines as coverage.py writes them (docstring lines listed as executed): \`LF\` was taken as the statement count and the extra lines dropped in ${quirks.join("; ")}`,
      undefined,
      "for exact per-line data use coverage.py's JSON or Cobertura XML report",
    );
  }
  if (issues.failed) return issues.result(undefined);
  const data: CoverageData = { format: "lcov", sources: [file], files, hasBranches };
  return issues.result(data);
}

/**
 * Checks LF/LH/BRF/BRH against the record's lines. Returns the DA lines to drop when the contradiction
 * is coverage.py's (LF < DA lines, LH = hit DA lines: the extra lines are executed non-statements).
 */
function checkTotals(record: LcovRecord, issues: ReportIssues): number[] {
  const found = record.lines.size;
  const hitLines = [...record.lines].filter(([, hit]) => hit).map(([line]) => line);
  const { LF, LH, BRF, BRH } = record.totals;
  let phantoms: number[] = [];
  if (LF && LF.value !== found) {
    if (LF.value < found && LH?.value === hitLines.length && found - LF.value <= hitLines.length) {
      phantoms = dropPhantomLines(hitLines, found - LF.value);
    } else {
      issues.error(`\`LF:${LF.value}\` but the record of \`${record.path}\` has ${found} \`DA\` line${found === 1 ? "" : "s"}`, LF.line);
    }
  }
  if (LH && LH.value !== hitLines.length) {
    issues.error(`\`LH:${LH.value}\` but the record of \`${record.path}\` has ${hitLines.length} \`DA\` line${hitLines.length === 1 ? "" : "s"} with a count > 0`, LH.line);
  }
  const branches = record.branches.size;
  const hitBranches = [...record.branches.values()].filter(Boolean).length;
  if (BRF && BRF.value !== branches) issues.error(`\`BRF:${BRF.value}\` but the record of \`${record.path}\` has ${branches} \`BRDA\` branches`, BRF.line);
  if (BRH && BRH.value !== hitBranches) issues.error(`\`BRH:${BRH.value}\` but the record of \`${record.path}\` has ${hitBranches} \`BRDA\` branches taken`, BRH.line);
  return phantoms;
}

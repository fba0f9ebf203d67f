import {
  normalizeCoveragePath,
  type CoverageData,
  type CoverageReadResult,
  type FileCoverage,
} from "./coverage-model.js";
import { dropPhantomLines } from "./coveragepy-phantoms.js";
import type { CoverageReadOptions } from "./read-options.js";
import { ReportIssues } from "./report-issues.js";

const REGENERATE =
  "regenerate the LCOV report (`coverage lcov`, `vitest --coverage.reporter=lcov`, `lcov --capture`, ...)";

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
 * The key of a statement line: one string per line number, shared by every file and shard, so a big
 * merge holds pointers to a few hundred strings rather than a fresh string per statement.
 */
const LINE_KEYS: string[] = [];
const lineKey = (line: number): string => (line < 65536 ? (LINE_KEYS[line] ??= String(line)) : String(line));

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
  const reader = new LcovStreamReader(file, options);
  reader.push(text);
  return reader.end();
}

/**
 * {@link readLcov} fed in pieces: `push` the text chunk by chunk (split anywhere, even inside a line),
 * then `end`. Each record is folded into the model when its `end_of_record` is read, so only the
 * model, the current record and the current chunk are held, never the whole text. Pushing the whole
 * text at once is exactly `readLcov`.
 */
export class LcovStreamReader {
  private readonly issues: ReportIssues;
  private readonly files = new Map<string, FileCoverage>();
  private hasBranches = false;
  private records = 0;
  private readonly quirks: string[] = [];
  private current: LcovRecord | undefined;
  /** The text after the last newline pushed so far: the start of a line not yet complete. */
  private pending = "";
  /** Lines complete so far. */
  private lineCount = 0;
  /** Any line that is not blank. */
  private sawContent = false;
  private ended = false;

  constructor(
    private readonly file: string,
    private readonly options: CoverageReadOptions = {},
  ) {
    this.issues = new ReportIssues(file, REGENERATE);
  }

  /** Feeds the next piece of the text. */
  push(chunk: string): void {
    if (this.ended) throw new Error("LcovStreamReader: push after end");
    if (chunk === "") return;
    const lines = (this.pending + chunk).split("\n");
    this.pending = lines.pop()!;
    for (const line of lines) this.line(line, ++this.lineCount);
  }

  /** Reads the last line and returns the model, or everything wrong with the report. */
  end(): CoverageReadResult {
    if (this.ended) throw new Error("LcovStreamReader: end called twice");
    this.ended = true;
    this.line(this.pending, ++this.lineCount);
    this.pending = "";
    const { issues, current, quirks } = this;
    if (!this.sawContent) {
      issues.error("the LCOV report is empty");
      return issues.result(undefined);
    }
    if (current)
      issues.error(
        `the record of \`${current.path}\` (from line ${current.line}) has no \`end_of_record\`: the file is truncated`,
        current.line,
      );
    if (this.records === 0 && !issues.failed) issues.error("no `SF:` ... `end_of_record` record: not an LCOV report");
    if (quirks.length > 0 && !issues.failed) {
      issues.warn(
        `\`LF\`/\`LH\` disagree with the \`DA\` lines as coverage.py writes them (docstring lines listed as executed): \`LF\` was taken as the statement count and the extra lines dropped in ${quirks.join("; ")}`,
        undefined,
        "for exact per-line data use coverage.py's JSON or Cobertura XML report",
      );
    }
    if (issues.failed) return issues.result(undefined);
    const data: CoverageData = {
      format: "lcov",
      sources: [this.file],
      files: this.files,
      hasBranches: this.hasBranches,
    };
    return issues.result(data);
  }

  private close(record: LcovRecord): void {
    const { issues, files } = this;
    this.records++;
    if (record.sawBranchData) this.hasBranches = true;
    const phantoms = record.damaged ? [] : checkTotals(record, issues);
    if (phantoms.length > 0) this.quirks.push(`${record.path} (line ${phantoms.join(", ")})`);
    const path = normalizeCoveragePath(record.path, this.options.root);
    let fc = files.get(path);
    if (!fc) {
      fc = {
        path,
        statements: new Set(),
        coveredStatements: new Set(),
        branches: new Set(),
        coveredBranches: new Set(),
      };
      files.set(path, fc);
    }
    const dropped = new Set(phantoms);
    for (const [line, hit] of record.lines) {
      if (dropped.has(line) || line === 0) continue;
      const key = lineKey(line);
      fc.statements.add(key);
      if (hit) fc.coveredStatements.add(key);
    }
    for (const [key, taken] of record.branches) {
      fc.branches.add(key);
      if (taken) fc.coveredBranches.add(key);
    }
  }

  /** One line of the report (without its newline), numbered from 1. */
  private line(text: string, lineNo: number): void {
    const { issues, current } = this;
    const raw = text.replace(/\r$/, "").trim();
    if (raw === "") return;
    this.sawContent = true;
    if (raw === "end_of_record") {
      if (!current) issues.error("`end_of_record` without a record: no `SF:` line opened one", lineNo);
      else this.close(current);
      this.current = undefined;
      return;
    }
    const colon = raw.indexOf(":");
    if (colon <= 0 || !/^[A-Z][A-Z0-9_]*$/.test(raw.slice(0, colon))) {
      issues.error(`not an LCOV line: ${JSON.stringify(raw.slice(0, 60))}`, lineNo);
      return;
    }
    const key = raw.slice(0, colon);
    const value = raw.slice(colon + 1);
    if (key === "SF") {
      if (current)
        issues.error(
          `the record of \`${current.path}\` (from line ${current.line}) has no \`end_of_record\` before the next \`SF:\``,
          current.line,
        );
      if (value.trim() === "") issues.error("`SF:` names no file", lineNo);
      this.current = {
        path: value.trim(),
        line: lineNo,
        lines: new Map(),
        branches: new Map(),
        totals: {},
        sawBranchData: false,
        damaged: false,
      };
      return;
    }
    if (key === "TN" || key === "VER") return;
    if (!current) {
      if (["DA", "BRDA", "LF", "LH", "BRF", "BRH", "FN", "FNDA", "FNF", "FNH"].includes(key))
        issues.error(`\`${key}:\` outside a record: no \`SF:\` line before it`, lineNo);
      return;
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
          issues.error(
            `\`DA:${value}\`: the count ${JSON.stringify(count)} is ${/^-\d/.test(count ?? "") ? "negative" : "not a whole number"}`,
            lineNo,
          );
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
          issues.error(
            `\`BRDA:${value}\`: taken ${JSON.stringify(taken)} is ${/^-\d/.test(taken) ? "negative" : "neither a whole number nor `-`"}`,
            lineNo,
          );
          current.damaged = true;
          break;
        }
        // The branch field may be free text holding commas (lcov 2 writes expressions there).
        const branchKey = `${fields[0]}:${fields[1]}:${fields.slice(2, -1).join(",")}`;
        current.branches.set(
          branchKey,
          (current.branches.get(branchKey) ?? false) || (taken !== "-" && Number(taken) > 0),
        );
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
        if (!WHOLE.test(first) || !value.includes(","))
          issues.error(`\`FN:${value}\` is neither \`FN:<line>,<name>\` nor \`FN:<start>,<end>,<name>\``, lineNo);
        break;
      }
      default:
        break;
    }
  }
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
      issues.error(
        `\`LF:${LF.value}\` but the record of \`${record.path}\` has ${found} \`DA\` line${found === 1 ? "" : "s"}`,
        LF.line,
      );
    }
  }
  if (LH && LH.value !== hitLines.length) {
    issues.error(
      `\`LH:${LH.value}\` but the record of \`${record.path}\` has ${hitLines.length} \`DA\` line${hitLines.length === 1 ? "" : "s"} with a count > 0`,
      LH.line,
    );
  }
  const branches = record.branches.size;
  const hitBranches = [...record.branches.values()].filter(Boolean).length;
  if (BRF && BRF.value !== branches)
    issues.error(
      `\`BRF:${BRF.value}\` but the record of \`${record.path}\` has ${branches} \`BRDA\` branches`,
      BRF.line,
    );
  if (BRH && BRH.value !== hitBranches)
    issues.error(
      `\`BRH:${BRH.value}\` but the record of \`${record.path}\` has ${hitBranches} \`BRDA\` branches taken`,
      BRH.line,
    );
  return phantoms;
}

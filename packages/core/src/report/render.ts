import type { GateReport } from "../model/report.js";
import { formatIssue } from "../common/errors.js";
import { frozenOnlyCounts, frozenOnlyRanges, frozenTestText, hiddenDebtFacts, lineSpan } from "./frozen-only-view.js";
import { shortRevision } from "../common/revisions.js";
import type { SignalResult } from "../common/signals.js";

const RESULT_WORD: Record<SignalResult, string> = {
  pass: "pass",
  fail: "FAIL",
  off: "off",
  not_measured: "not measured",
};

/**
 * Text from the patch under review (test ids, file names, commit authors) may hold control
 * characters (an escape sequence could repaint the terminal and hide a REJECT) or CI log commands
 * (`##[...]`, a line starting `::`). They are shown as `\xNN` instead.
 */
export function terminalSafe(text: string): string {
  return (
    text
      .replace(
        /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
        (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
      )
      // CI logs read commands from output lines: GitHub's `::cmd::` at a line's start and `##[cmd]`
      // anywhere. Text from the patch must not start one.
      .replace(/##\[/g, "\\x23#[")
      .replace(/^(\s*)::/, "$1\\x3a:")
  );
}

/** ANSI colours, or none (`NO_COLOR`, not a terminal). */
export interface Palette {
  red: (s: string) => string;
  green: (s: string) => string;
  yellow: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

/** Colours when `color` is true; identity functions otherwise. */
export function palette(color: boolean): Palette {
  if (!color) {
    const id = (s: string) => s;
    return { red: id, green: id, yellow: id, dim: id, bold: id };
  }
  return { red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), dim: sgr(2, 22), bold: sgr(1, 22) };
}

const shortSha = (revision: string | null): string => (revision ? shortRevision(revision) : "?");

function where(f: { file?: string | undefined | null; line?: number | undefined | null }): string {
  return f.file ? `${f.file}${f.line ? `:${f.line}` : ""}` : "";
}

/** How the terminal rendering is laid out. */
export interface TextOptions {
  color: boolean;
  /** The width in columns the table is fitted to. Undefined: as wide as it needs (report.txt keeps cells whole). */
  width?: number | undefined;
}

/** Words of `text` in lines of at most `width` characters (a longer word is cut). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    let rest = word;
    while (rest.length > width) {
      if (line) lines.push(line);
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
      line = "";
    }
    if (!line) line = rest;
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  lines.push(line);
  return lines;
}

/** Below this many columns, each row's policy gets a line of its own under its value. */
const NARROW = 100;

/**
 * The decision table. As wide as it needs when it fits (or no width is known); else the value and
 * policy columns wrap to share the width, and below 100 columns the policy goes on its own line.
 */
function renderTable(report: GateReport, c: Palette, width: number | undefined): string[] {
  const rows = report.signals.map((s) => [
    s.label,
    RESULT_WORD[s.result],
    terminalSafe(s.value),
    terminalSafe(s.policy),
  ]);
  const head = ["Signal", "Result", "Value", "Policy"];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const colour = (result: SignalResult, word: string): string =>
    result === "fail"
      ? c.red(word)
      : result === "pass"
        ? c.green(word)
        : result === "off"
          ? c.yellow(word)
          : c.dim(word);
  const lead = w[0]! + 2 + w[1]! + 2;
  const full = lead + w[2]! + 2 + w[3]!;
  if (width === undefined || full <= width) {
    const line = (cells: string[], result?: SignalResult) =>
      [
        cells[0]!.padEnd(w[0]!),
        result ? colour(result, cells[1]!.padEnd(w[1]!)) : cells[1]!.padEnd(w[1]!),
        cells[2]!.padEnd(w[2]!),
        cells[3]!,
      ].join("  ");
    return [c.bold(line(head)), ...report.signals.map((s, i) => line(rows[i]!, s.result))];
  }
  const out: string[] = [];
  const room = Math.max(20, width - lead);
  if (width < NARROW) {
    out.push(c.bold(`${"Signal".padEnd(w[0]!)}  ${"Result".padEnd(w[1]!)}  Value / policy`));
    report.signals.forEach((s, i) => {
      const r = rows[i]!;
      const values = wrapText(r[2]!, room);
      const policies = wrapText(`policy: ${r[3]}`, room - 2);
      out.push(`${r[0]!.padEnd(w[0]!)}  ${colour(s.result, r[1]!.padEnd(w[1]!))}  ${values[0]}`);
      for (const more of values.slice(1)) out.push(`${" ".repeat(lead)}${more}`);
      for (const p of policies) out.push(`${" ".repeat(lead + 2)}${c.dim(p)}`);
    });
    return out;
  }
  // Value and policy share what is left in proportion to their widths, each at least a third of it.
  const third = Math.ceil((room - 2) / 3);
  const valueRoom = Math.min(room - 2 - third, Math.max(third, Math.round(((room - 2) * w[2]!) / (w[2]! + w[3]!))));
  const policyRoom = room - 2 - valueRoom;
  out.push(c.bold(`${"Signal".padEnd(w[0]!)}  ${"Result".padEnd(w[1]!)}  ${"Value".padEnd(valueRoom)}  Policy`));
  report.signals.forEach((s, i) => {
    const r = rows[i]!;
    const values = wrapText(r[2]!, valueRoom);
    const policies = wrapText(r[3]!, policyRoom);
    for (let k = 0; k < Math.max(values.length, policies.length); k++) {
      const first = k === 0 ? `${r[0]!.padEnd(w[0]!)}  ${colour(s.result, r[1]!.padEnd(w[1]!))}  ` : " ".repeat(lead);
      out.push(`${first}${(values[k] ?? "").padEnd(valueRoom)}  ${policies[k] ?? ""}`.trimEnd());
    }
  });
  return out;
}

/** The terminal rendering: a header, the decision table, then each reason with file:line, commit and fix. */
export function renderText(report: GateReport, options: TextOptions): string {
  const c = palette(options.color);
  const safe = terminalSafe;
  const out: string[] = [];
  const verdict = report.decision === "MERGE" ? c.bold(c.green("MERGE")) : c.bold(c.red("REJECT"));
  const range =
    report.base || report.head ? `  ${shortSha(report.base)}..${report.head ? shortSha(report.head) : "HEAD"}` : "";
  // A package's gate (`check --root`) names its folder: the paths below are relative to it.
  const root = report.root ? `  package ${safe(report.root)}` : "";
  out.push(`proofgate: ${verdict}${range}${report.todayUtc ? `  (${report.todayUtc} UTC)` : ""}${root}`);
  // One line in a fixed form, for CI coverage parsers (GitLab's `coverage:` regex).
  if (report.provenCoveragePercent !== null)
    out.push(
      `Proven coverage: ${report.provenCoveragePercent.toFixed(2)}%${report.minProvenCoveragePercent !== null ? ` (floor ${report.minProvenCoveragePercent}%)` : ""}`,
    );
  const debt = hiddenDebtFacts(report);
  // Never `Proven coverage:` at its start: the line above is the one a CI's coverage regex reads.
  const debtLine = !debt
    ? undefined
    : debt.measured
      ? `Raw coverage: ${debt.raw.toFixed(2)}%, proven ${debt.proven.toFixed(2)}%: hidden debt ${debt.points.toFixed(2)} points (${frozenOnlyCounts(debt.lines, debt.branches)} only frozen tests run)`
      : `Raw coverage not measured: ${safe(debt.why)}`;
  // Fitted to the width like the table; its continuation lines are indented, so none can look like the gate's line.
  if (debtLine)
    out.push(
      ...(options.width === undefined
        ? [debtLine]
        : wrapText(debtLine, Math.max(20, options.width - 2)).map((l, i) => (i === 0 ? l : `  ${l}`))),
    );
  if (report.signals.length > 0) out.push("", ...renderTable(report, c, options.width));
  if (report.findings.length > 0) {
    out.push("", c.bold(`Reasons (${report.findings.length}):`));
    for (const f of report.findings) {
      const at = where(f);
      const by = f.commit ? ` (commit ${f.commit.slice(0, 12)}${f.author ? ` by ${safe(f.author)}` : ""})` : "";
      out.push(`  ${c.red(f.reason)}${at ? `  ${safe(at)}` : ""}${by}`);
      out.push(`    ${safe(f.message)}`);
      out.push(`    ${c.dim("fix:")} ${safe(f.fix)}`);
    }
  }
  if (report.errors.length > 0) {
    out.push(
      "",
      c.bold(
        c.red(`The gate could not evaluate (${report.errors.length} error${report.errors.length === 1 ? "" : "s"}):`),
      ),
    );
    for (const e of report.errors) out.push(`  ${safe(formatIssue(e))}`);
  }
  if (report.warnings.length > 0) {
    out.push("", c.bold(`Warnings (${report.warnings.length}):`));
    for (const w of report.warnings) out.push(`  ${c.yellow(safe(formatIssue(w)))}`);
  }
  return `${out.join("\n")}\n`;
}

/**
 * Markdown text from the patch under review, made inert: no markup, links, HTML, mentions or table
 * breaks. Newlines become spaces; other control characters and bidi overrides (which could reorder
 * what a reader sees) are shown as `\xNN`.
 */
export function markdownSafe(text: string): string {
  return text
    .replace(/[\r\n]+/g, " ")
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    )
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_{}[\]()#+!|~]/g, (ch) => `\\${ch}`)
    .replace(/@/g, "@\u200b");
}

/** Text in a Markdown code span: a backtick or newline in it cannot end the span. */
function codeSpan(text: string): string {
  return `\`${text.replace(/[`\r\n]/g, "?")}\``;
}

/** How many frozen-only ranges the Markdown lists; report.json has them all. */
export const MARKDOWN_FROZEN_RANGES = 50;
/** How many frozen tests each listed range names. */
const TESTS_PER_RANGE = 5;

/** The hidden debt's line of the Markdown rendering; undefined without a coverage section. */
function markdownDebtLine(report: GateReport): string | undefined {
  const debt = hiddenDebtFacts(report);
  if (!debt) return undefined;
  if (!debt.measured) return `**Raw coverage** not measured: ${markdownSafe(debt.why)}`;
  return `**Raw coverage** ${debt.raw.toFixed(2)}% · **proven** ${debt.proven.toFixed(2)}% · **hidden debt** ${debt.points.toFixed(2)} points · ${frozenOnlyCounts(debt.lines, debt.branches)} only frozen tests run`;
}

/**
 * The frozen-only lines, collapsed: files worst first, each with its ranges and the frozen tests (and
 * their leases) behind each, at most `cap` ranges. Empty when there are none.
 */
export function markdownFrozenOnly(report: GateReport, cap = MARKDOWN_FROZEN_RANGES): string[] {
  const section = report.coverage?.frozenOnly;
  const ranges = frozenOnlyRanges(report);
  if (!section || (ranges.length === 0 && section.branches === 0)) return [];
  const md = markdownSafe;
  const out = [
    `<details><summary>Lines only frozen tests run (${frozenOnlyCounts(section.lines, section.branches)} in ${section.files.length} file${section.files.length === 1 ? "" : "s"})</summary>`,
    "",
  ];
  if (!section.attributed)
    out.push("The tests behind each line are not known: the full run's report has no per-test data (rerun mode).", "");
  let shown = 0;
  for (const file of section.files) {
    if (shown >= cap) break;
    const branches = file.branches > 0 ? `, ${file.branches} branch${file.branches === 1 ? "" : "es"}` : "";
    out.push(`- ${md(file.path)}: ${file.lines} line${file.lines === 1 ? "" : "s"}${branches}`);
    for (const r of ranges.filter((x) => x.path === file.path)) {
      if (shown >= cap) break;
      shown++;
      const tests =
        r.tests === null
          ? ""
          : r.tests.length === 0
            ? ": no frozen test recorded"
            : `: ${r.tests
                .slice(0, TESTS_PER_RANGE)
                .map((t) => frozenTestText(t, md))
                .join(
                  ", ",
                )}${r.tests.length > TESTS_PER_RANGE ? `, and ${r.tests.length - TESTS_PER_RANGE} more` : ""}`;
      out.push(`  - ${lineSpan(r)}${r.patch ? " (in the patch)" : ""}${tests}`);
    }
  }
  if (ranges.length > shown)
    out.push(
      "",
      `${ranges.length - shown} more range${ranges.length - shown === 1 ? "" : "s"} in report.json (\`coverage.frozen_only\`).`,
    );
  out.push("", "</details>");
  return out;
}

const RESULT_MARK: Record<SignalResult, string> = {
  pass: "✅ pass",
  fail: "❌ **fail**",
  off: "⚠️ off",
  not_measured: "➖ not measured",
};

/** The Markdown rendering (job summaries, MR notes, PR comments): the table, then the reasons. */
export function renderMarkdown(report: GateReport, options: { title?: string; docsUrl?: string } = {}): string {
  const md = markdownSafe;
  const out: string[] = [];
  const title = options.title ?? "proofgate";
  out.push(`### ${title}: ${report.decision === "MERGE" ? "✅ MERGE" : "❌ REJECT"}`);
  const facts = [
    report.root ? `package ${codeSpan(report.root)}` : "",
    report.base || report.head
      ? `range ${codeSpan(`${shortSha(report.base)}..${report.head ? shortSha(report.head) : "HEAD"}`)}`
      : "",
    report.todayUtc ? `judged ${report.todayUtc} (UTC)` : "",
  ].filter(Boolean);
  if (facts.length) out.push("", facts.join(" · "));
  const debt = markdownDebtLine(report);
  if (debt) out.push("", debt);
  if (report.signals.length > 0) {
    out.push("", "| Signal | Result | Value | Policy |", "|---|---|---|---|");
    for (const s of report.signals)
      out.push(`| ${s.label} | ${RESULT_MARK[s.result]} | ${md(s.value)} | ${md(s.policy)} |`);
  }
  if (report.findings.length > 0) {
    out.push("", `#### Reasons (${report.findings.length})`, "");
    for (const f of report.findings) {
      const code = options.docsUrl ? `[\`${f.reason}\`](${options.docsUrl}#${f.reason})` : `\`${f.reason}\``;
      const at = where(f);
      const by = f.commit ? ` · commit \`${f.commit.slice(0, 12)}\`${f.author ? ` by ${md(f.author)}` : ""}` : "";
      out.push(`- ${code}${at ? ` · ${md(at)}` : ""}${by}: ${md(f.message)}  `, `  **Fix:** ${md(f.fix)}`);
    }
  }
  if (report.errors.length > 0) {
    out.push("", `#### The gate could not evaluate (${report.errors.length})`, "");
    for (const e of report.errors) out.push(`- ${md(formatIssue(e))}`);
  }
  const frozenOnly = markdownFrozenOnly(report);
  if (frozenOnly.length > 0) out.push("", ...frozenOnly);
  if (report.warnings.length > 0) {
    out.push("", `<details><summary>Warnings (${report.warnings.length})</summary>`, "");
    for (const w of report.warnings) out.push(`- ${md(formatIssue(w))}`);
    out.push("", "</details>");
  }
  return `${out.join("\n")}\n`;
}

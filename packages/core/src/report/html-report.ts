// The HTML view (proofgate-report/index.html): one self-contained page, opened from a CI artifact as a
// file. The decision, a table per file (raw, proven, the lines only frozen tests run, patch coverage when
// known) and each file's source with its lines coloured proven, frozen-only or not proven. Nothing is
// fetched: the style and the small script are inline, a strict CSP allows only them, every string from
// the project is escaped, and the data the script reads is JSON no string can break out of.
import type { CoverageMap, FileLines } from "../coverage/frozen-only.js";
import { coveragePercent } from "../coverage/coverage-model.js";
import { escapeHtml, scriptHashSource, scriptJson } from "./html-escape.js";
import type { GateReport, ReportLease } from "../model/report.js";

/** A source file's text as the view gets it, or why it was left out (too large, unreadable). */
export type HtmlSource = { text: string } | { skipped: string };

/**
 * Patch coverage as the view shows it: the patch's coverable changed lines per file (numbered as at the
 * head) and their coverage. The column and the line marks appear only when it is given.
 */
export interface PatchView {
  /** The patch's figure; null when it changed no coverable line. */
  percent: number | null;
  files: ReadonlyMap<string, { lines: readonly number[]; percent: number | null }>;
}

/** What the view is made of: the report, its line map when the data has lines, and the sources. */
export interface HtmlReportInput {
  report: GateReport;
  /** ProvenCoverage.map; undefined when the data has no lines (Istanbul) or the gate could not evaluate. */
  map?: CoverageMap | undefined;
  /** The head's text of each file of the map, by repository path. */
  sources: ReadonlyMap<string, HtmlSource>;
  patch?: PatchView | undefined;
}

/** One measured file, as the table and its source view show it. */
interface FileRow {
  index: number;
  file: FileLines;
  proven: number;
  raw: number | undefined;
  frozenOnly: number;
  patch: { lines: readonly number[]; percent: number | null } | undefined;
}

/** A column of the per-file table; `show` leaves it out when the data has nothing for it. */
interface Column {
  header: string;
  title: string;
  show?: (input: HtmlReportInput) => boolean;
  cell: (row: FileRow) => string;
  total: (input: HtmlReportInput) => string;
}

/** `87.50%`, or `n/a` when not known. */
const pct = (value: number | null | undefined): string =>
  value === null || value === undefined ? "n/a" : `${value.toFixed(2)}%`;

const COLUMNS: Column[] = [
  {
    header: "Statements",
    title: "coverable lines",
    cell: (r) => String(r.file.statements.length),
    total: (i) => String(i.report.coverage?.numStatements ?? ""),
  },
  {
    header: "Raw",
    title: "every test counted, frozen ones included",
    cell: (r) => pct(r.raw),
    total: (i) => pct(i.report.coverage?.raw?.percent),
  },
  {
    header: "Proven",
    title: "frozen tests subtracted: the figure the gate enforces",
    cell: (r) => pct(r.proven),
    total: (i) => pct(i.report.coverage?.provenCoveragePercent),
  },
  {
    header: "Frozen-only lines",
    title: "lines only frozen tests run",
    cell: (r) => (r.raw === undefined ? "n/a" : String(r.frozenOnly)),
    total: (i) => (i.report.coverage?.frozenOnly ? String(i.report.coverage.frozenOnly.lines) : "n/a"),
  },
  {
    header: "Patch",
    title: "coverage of the lines the patch changed",
    show: (i) => i.patch !== undefined,
    cell: (r) => (r.patch ? pct(r.patch.percent) : ""),
    total: (i) => pct(i.patch?.percent),
  },
];

function filePercent(f: FileLines, lines: Set<number>, arcs: Set<string>): number {
  const branches = [...f.branches.values()].flat();
  return coveragePercent(
    f.statements.length,
    f.statements.filter((l) => lines.has(l)).length,
    branches.length,
    branches.filter((k) => arcs.has(k)).length,
  );
}

function rowOf(index: number, f: FileLines, patch: PatchView | undefined): FileRow {
  const raw = f.raw && f.rawBranches ? filePercent(f, f.raw, f.rawBranches) : undefined;
  const frozenOnly = f.raw ? f.statements.filter((l) => f.raw!.has(l) && !f.proven.has(l)).length : 0;
  return {
    index,
    file: f,
    proven: filePercent(f, f.proven, f.provenBranches),
    raw,
    frozenOnly,
    patch: patch?.files.get(f.path),
  };
}

/** A test the page's script can name: its lease (owner, expiry) when it has one. */
interface TestEntry {
  nodeid: string;
  note: string;
}

function testNote(nodeid: string, report: GateReport): string {
  const find = (leases: readonly ReportLease[] | undefined): ReportLease | undefined =>
    leases?.find((l) => l.nodeid === nodeid);
  const active = find(report.ledger?.active);
  if (active) return `lease: owner ${active.owner}, expires ${active.expires}`;
  const unknown = find(report.ledger?.unknown);
  if (unknown) return `lease: owner ${unknown.owner}, expires ${unknown.expires}`;
  const expired = find(report.ledger?.expired);
  if (expired) return `expired lease: owner ${expired.owner}, expired ${expired.expires}`;
  return "no lease: not proven in this run (an xfail or a skip)";
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em}h2{font-size:1.1em;display:inline}
.MERGE{color:#1a7f37}.REJECT{color:#cf222e}
table.files{border-collapse:collapse;margin:1em 0}
.files th,.files td{border:1px solid #d0d7de;padding:.25em .6em;text-align:right}
.files th:first-child,.files td:first-child{text-align:left}
.files tfoot td{font-weight:bold}
details{margin:.6em 0}summary{cursor:pointer}
table.src{border-collapse:collapse;font:12px/1.45 ui-monospace,monospace;width:100%}
.src td{padding:0 .5em;white-space:pre;vertical-align:top}
.src td.n{color:#57606a;text-align:right;user-select:none;width:1%}
.src td.m{width:1%;color:#0550ae;font-weight:bold}
tr.proven td.c{background:#dafbe1}
tr.frozen td.c{background:#fff1c2;cursor:pointer}
tr.frozen:focus td.c,tr.frozen.on td.c{outline:2px solid #bf8700}
tr.missed td.c{background:#ffebe9}
tr.fbranch td.n{background:#fff1c2;color:#1b1f24;font-weight:bold;cursor:pointer}
tr.fbranch:focus td.n,tr.fbranch.on td.n{outline:2px solid #bf8700}
tr.patch td.m{background:#ddf4ff}
.legend span{display:inline-block;padding:0 .5em;margin-right:.5em}
.legend .proven{background:#dafbe1}.legend .frozen{background:#fff1c2}.legend .missed{background:#ffebe9}
.legend .patch{background:#ddf4ff}.legend .fbranch{background:#fff1c2;font-weight:bold}
#pg-lease{position:fixed;right:1em;bottom:1em;max-width:40em;background:#fff;border:1px solid #bf8700;
padding:.5em 1em;box-shadow:0 2px 8px #0003;font-size:13px}
#pg-lease h3{font-size:1em;margin:.2em 0}
.note{color:#57606a}
`;

// The page's one script: the lease panel for a frozen-only line (hover, focus or click), and opening a
// file's section when the table links to it. It writes text only (textContent), never markup.
const SCRIPT = `(function(){
var data=JSON.parse(document.getElementById("pg-data").textContent);
var panel=document.getElementById("pg-lease");
var on=null;
function add(parent,tag,text){var el=document.createElement(tag);if(text!==undefined)el.textContent=text;parent.appendChild(el);return el;}
function show(row){
if(on)on.classList.remove("on");on=row;row.classList.add("on");
var f=row.closest("table[data-f]").getAttribute("data-f");var line=row.getAttribute("data-l");
var tests=(data.lines[f]||{})[line];var arcs=(data.branches[f]||{})[line];
while(panel.firstChild)panel.removeChild(panel.firstChild);
add(panel,"h3",data.files[f]+":"+line+(row.classList.contains("frozen")?" runs only under frozen tests":" is proven, not all its branches"));
if(arcs)add(panel,"p","Branches only frozen tests take: "+arcs.join(", "));
if(!tests){add(panel,"p",data.unattributed);}
else{var ul=add(panel,"ul");tests.forEach(function(t){var li=add(ul,"li");add(li,"code",data.tests[t].nodeid);add(li,"span"," \\u2014 "+data.tests[t].note);});}
panel.hidden=false;}
function pick(e){var row=e.target.closest&&e.target.closest("tr.frozen,tr.fbranch");if(row)show(row);}
document.addEventListener("mouseover",pick);document.addEventListener("click",pick);document.addEventListener("focusin",pick);
document.addEventListener("keydown",function(e){if(e.key==="Escape")panel.hidden=true;});
function opened(){var id=location.hash.slice(1);var el=id&&document.getElementById(id);if(el&&el.tagName==="DETAILS")el.open=true;}
window.addEventListener("hashchange",opened);opened();
})();`;

/** The Content-Security-Policy of the page: nothing loads, only its own style and script run. */
export const HTML_REPORT_CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src ${scriptHashSource(SCRIPT)}; base-uri 'none'; form-action 'none'`;

/** Sections open by default up to this many source lines in all; past it, the table's links open them. */
const OPEN_LINES = 3000;

function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function lineClass(f: FileLines, line: number, statements: Set<number>): string {
  if (!statements.has(line)) return "";
  if (f.proven.has(line)) return "proven";
  if (f.raw?.has(line)) return "frozen";
  return "missed";
}

/** The branches leaving `line` that only frozen tests take (raw, not proven). */
function frozenBranches(f: FileLines, line: number): string[] {
  if (!f.rawBranches) return [];
  return (f.branches.get(line) ?? []).filter((k) => f.rawBranches!.has(k) && !f.provenBranches.has(k));
}

/** What the page's script says about a file's lines: the frozen tests behind them, the frozen-only branches. */
interface LineNotes {
  tests: Record<string, number[]>;
  branches: Record<string, string[]>;
}

function sourceSection(
  row: FileRow,
  source: HtmlSource | undefined,
  open: boolean,
  tests: (nodeid: string) => number,
  notes: LineNotes,
): string {
  const f = row.file;
  const head = `<summary><h2>${escapeHtml(f.path)}</h2> <span class="note">proven ${pct(row.proven)}, raw ${pct(row.raw)}</span></summary>`;
  const id = `f${row.index}`;
  if (!source) return `<details id="${id}">${head}<p class="note">The source was not read.</p></details>`;
  if ("skipped" in source)
    return `<details id="${id}">${head}<p class="note">${escapeHtml(source.skipped)}</p></details>`;
  const statements = new Set(f.statements);
  const patchLines = new Set(row.patch?.lines ?? []);
  const rows = splitLines(source.text).map((text, i) => {
    const n = i + 1;
    const kind = lineClass(f, n, statements);
    const arcs = statements.has(n) ? frozenBranches(f, n) : [];
    const cls = [kind, arcs.length > 0 ? "fbranch" : "", patchLines.has(n) ? "patch" : ""].filter(Boolean).join(" ");
    let attrs = cls ? ` class="${cls}"` : "";
    if (kind === "frozen" || arcs.length > 0) {
      const title = kind === "frozen" ? "only frozen tests run this line" : "a branch here only frozen tests take";
      attrs += ` tabindex="0" title="${title}"`;
      if (arcs.length > 0) notes.branches[String(n)] = arcs;
      const keys = [...(kind === "frozen" ? [String(n)] : []), ...arcs];
      const known = keys.map((k) => f.frozenTests?.get(k)).filter((ids) => ids !== undefined);
      if (known.length > 0) notes.tests[String(n)] = [...new Set(known.flat())].sort().map(tests);
    }
    const mark = patchLines.has(n) ? "+" : "";
    return `<tr id="${id}-L${n}" data-l="${n}"${attrs}><td class="n">${n}</td><td class="m">${mark}</td><td class="c">${escapeHtml(text)}</td></tr>`;
  });
  return `<details id="${id}"${open ? " open" : ""}>${head}<table class="src" data-f="${row.index}"><tbody>${rows.join("")}</tbody></table></details>`;
}

function summary(report: GateReport, patch: PatchView | undefined): string {
  const c = report.coverage;
  const items: string[] = [
    `<li>Proven coverage: <b>${pct(report.provenCoveragePercent)}</b>${report.minProvenCoveragePercent !== null ? ` (floor ${report.minProvenCoveragePercent}%)` : ""}</li>`,
  ];
  if (c?.raw)
    items.push(
      `<li>Raw coverage (frozen tests included): ${pct(c.raw.percent)}${c.hiddenPoints !== null ? `, ${c.hiddenPoints.toFixed(2)} points hidden by frozen tests` : ""}</li>`,
    );
  else if (c?.rawNotMeasured) items.push(`<li>Raw coverage: not measured (${escapeHtml(c.rawNotMeasured)})</li>`);
  if (patch) items.push(`<li>Patch coverage: ${pct(patch.percent)}</li>`);
  if (report.head) items.push(`<li>Head: <code>${escapeHtml(report.head)}</code></li>`);
  if (report.todayUtc) items.push(`<li>Judged on ${escapeHtml(report.todayUtc)} (UTC)</li>`);
  if (report.reasons.length > 0)
    items.push(`<li>Reasons: ${report.reasons.map((r) => `<code>${escapeHtml(r)}</code>`).join(", ")}</li>`);
  return `<ul>${items.join("")}</ul>`;
}

function errorList(report: GateReport): string {
  if (report.errors.length === 0) return "";
  const items = report.errors.map(
    (e) =>
      `<li>${e.file ? `<code>${escapeHtml(e.file)}${e.line ? `:${e.line}` : ""}</code>: ` : ""}${escapeHtml(e.message)}${e.fix ? ` Fix: ${escapeHtml(e.fix)}` : ""}</li>`,
  );
  return `<h2>Errors</h2><ul>${items.join("")}</ul>`;
}

/**
 * The HTML view of a report: one file, no network, no external asset. Pure: the caller reads the sources
 * (from the work tree at the judged head) and writes the page.
 */
export function renderHtmlReport(input: HtmlReportInput): string {
  const { report, map, sources, patch } = input;
  const files = map ? [...map.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : [];
  const rows = files.map((f, i) => rowOf(i, f, patch));
  const columns = COLUMNS.filter((c) => !c.show || c.show(input));

  const tests: TestEntry[] = [];
  const testIndex = new Map<string, number>();
  const indexOf = (nodeid: string): number => {
    let i = testIndex.get(nodeid);
    if (i === undefined) {
      i = tests.push({ nodeid, note: testNote(nodeid, report) }) - 1;
      testIndex.set(nodeid, i);
    }
    return i;
  };
  const lines: Record<string, Record<string, number[]>> = {};
  const branches: Record<string, Record<string, string[]>> = {};
  let totalLines = 0;
  for (const s of sources.values()) if ("text" in s) totalLines += splitLines(s.text).length;
  const sections = rows.map((row) => {
    const notes: LineNotes = { tests: {}, branches: {} };
    const html = sourceSection(row, sources.get(row.file.path), totalLines <= OPEN_LINES, indexOf, notes);
    if (Object.keys(notes.tests).length > 0) lines[String(row.index)] = notes.tests;
    if (Object.keys(notes.branches).length > 0) branches[String(row.index)] = notes.branches;
    return html;
  });

  const head = `<tr><th>File</th>${columns.map((c) => `<th title="${escapeHtml(c.title)}">${c.header}</th>`).join("")}</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr><td><a href="#f${r.index}">${escapeHtml(r.file.path)}</a></td>${columns.map((c) => `<td>${c.cell(r)}</td>`).join("")}</tr>`,
    )
    .join("");
  const foot = `<tr><td>Total</td>${columns.map((c) => `<td>${c.total(input)}</td>`).join("")}</tr>`;
  const table = map
    ? `<table class="files"><thead>${head}</thead><tbody>${body}</tbody><tfoot>${foot}</tfoot></table>`
    : `<p class="note">No line map: ${report.errors.length > 0 ? "the gate could not evaluate" : "the coverage data does not key coverage by line"}.</p>`;
  const legend = map
    ? `<p class="legend"><span class="proven">proven</span><span class="frozen">only frozen tests run it</span><span class="missed">not proven</span><span class="fbranch">line number in amber: a branch only frozen tests take</span>${patch ? `<span class="patch">+ changed by the patch</span>` : ""}</p>`
    : "";
  const data = {
    files: rows.map((r) => r.file.path),
    tests,
    lines,
    branches,
    unattributed:
      "The full run covers this line and the proof run does not; the rerun mode cannot say which frozen test ran it.",
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(HTML_REPORT_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>proofgate: ${report.decision}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>proofgate: <span class="${report.decision}">${report.decision}</span></h1>
${summary(report, patch)}
${errorList(report)}
${table}
${legend}
${sections.join("\n")}
<div id="pg-lease" role="status" hidden></div>
<script type="application/json" id="pg-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

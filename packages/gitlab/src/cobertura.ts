// The proven lines as Cobertura XML, for GitLab's `artifacts:reports:coverage_report` (the MR diff colours
// each changed line covered or not): https://docs.gitlab.com/ci/testing/code_coverage/
// A line counts as covered only when a test that is not frozen ran it, so the diff shows what the gate
// enforces, not what the frozen tests run. Filenames are repository paths; <sources> names the root.
import type { FileLines, GateReport } from "@proofgate/core";

/** The file name, in the out dir, that `coverage_report` (coverage_format: cobertura) reads. */
export const PROVEN_COBERTURA_FILE = "proven-coverage.xml";

/** Text as an XML attribute or element value: markup escaped, characters XML 1.0 forbids replaced. */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const rate = (covered: number, valid: number): string => (valid === 0 ? "1" : (covered / valid).toFixed(4));

interface Counts {
  lines: number;
  covered: number;
  branches: number;
  coveredBranches: number;
}

function countsOf(f: FileLines): Counts {
  let branches = 0;
  let coveredBranches = 0;
  for (const [line, keys] of f.branches) {
    if (line === 0) continue;
    branches += keys.length;
    coveredBranches += keys.filter((k) => f.provenBranches.has(k)).length;
  }
  return {
    lines: f.statements.length,
    covered: f.statements.filter((l) => f.proven.has(l)).length,
    branches,
    coveredBranches,
  };
}

const add = (a: Counts, b: Counts): Counts => ({
  lines: a.lines + b.lines,
  covered: a.covered + b.covered,
  branches: a.branches + b.branches,
  coveredBranches: a.coveredBranches + b.coveredBranches,
});

const rates = (c: Counts): string =>
  `line-rate="${rate(c.covered, c.lines)}" branch-rate="${rate(c.coveredBranches, c.branches)}"`;

function classXml(f: FileLines): string[] {
  const c = countsOf(f);
  const base = f.path.slice(f.path.lastIndexOf("/") + 1);
  const out = [
    `        <class name="${xmlText(base)}" filename="${xmlText(f.path)}" complexity="0" ${rates(c)}>`,
    "          <methods/>",
    "          <lines>",
  ];
  for (const line of f.statements) {
    const hits = f.proven.has(line) ? 1 : 0;
    const keys = f.branches.get(line) ?? [];
    if (keys.length === 0) {
      out.push(`            <line number="${line}" hits="${hits}"/>`);
      continue;
    }
    const taken = keys.filter((k) => f.provenBranches.has(k)).length;
    const pct = Math.round((100 * taken) / keys.length);
    out.push(
      `            <line number="${line}" hits="${hits}" branch="true" condition-coverage="${pct}% (${taken}/${keys.length})"/>`,
    );
  }
  out.push("          </lines>", "        </class>");
  return out;
}

/**
 * The proven lines of `view` as a Cobertura report: one package per folder, one class per file, each
 * statement with hits 1 (a kept test ran it) or 0, branches as coverage.py writes them. `sourceRoot` is
 * the repository's root as the job sees it (GitLab: `CI_PROJECT_DIR`). A report without line data (a
 * gate that could not evaluate, Istanbul's statement ids) is an empty report that says why.
 */
export function provenCobertura(view: GateReport, options: { sourceRoot?: string | undefined } = {}): string {
  const map = view.coverage?.lines;
  const timestamp = view.todayUtc ? Date.parse(`${view.todayUtc}T00:00:00Z`) : 0;
  const head = ['<?xml version="1.0" ?>'];
  const files = map ? [...map.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : [];
  const packages = new Map<string, FileLines[]>();
  for (const f of files) {
    const dir = f.path.includes("/") ? f.path.slice(0, f.path.lastIndexOf("/")) : ".";
    (packages.get(dir) ?? packages.set(dir, []).get(dir)!).push(f);
  }
  const total = files.map(countsOf).reduce(add, { lines: 0, covered: 0, branches: 0, coveredBranches: 0 });
  if (!map)
    head.push(
      `<!-- proofgate: no proven lines to show: ${xmlText(
        view.coverage
          ? `the ${view.coverage.format} data does not key coverage by line`
          : "the gate did not measure coverage",
      ).replace(/--/g, "- -")} -->`,
    );
  const out = [
    ...head,
    `<coverage version="proofgate" timestamp="${timestamp}" lines-valid="${total.lines}" lines-covered="${total.covered}" line-rate="${rate(total.covered, total.lines)}" branches-valid="${total.branches}" branches-covered="${total.coveredBranches}" branch-rate="${rate(total.coveredBranches, total.branches)}" complexity="0">`,
    "  <!-- proofgate: the proven lines: a line counts as covered only when a test that is not frozen ran it -->",
    "  <sources>",
    `    <source>${xmlText(options.sourceRoot ?? ".")}</source>`,
    "  </sources>",
    "  <packages>",
  ];
  for (const [dir, members] of packages) {
    const c = members.map(countsOf).reduce(add);
    out.push(`    <package name="${xmlText(dir.replace(/\//g, "."))}" ${rates(c)} complexity="0">`, "      <classes>");
    for (const f of members) out.push(...classXml(f));
    out.push("      </classes>", "    </package>");
  }
  out.push("  </packages>", "</coverage>");
  return `${out.join("\n")}\n`;
}

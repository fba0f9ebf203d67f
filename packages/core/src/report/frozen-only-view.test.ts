import { describe, expect, it } from "vitest";
import type { CoverageData, FileCoverage } from "../coverage/coverage-model.js";
import { buildCoverageMap } from "../coverage/frozen-only.js";
import { decide, type DecideInput } from "../decide.js";
import { frozenOnlyRanges, leaseLookup, rangesByPriority } from "./frozen-only-view.js";
import type { GateReport, ProvenCoverage } from "../model/report.js";
import { MARKDOWN_FROZEN_RANGES, markdownFrozenOnly, renderMarkdown, renderText } from "./render.js";

// Names a patch controls, each trying something different in a rendering.
const HOSTILE_PATH = "src/<img src=x onerror=alert(1)>`@admin`[x](http://evil)|.py";
const HOSTILE_TEST = "tests/test_x.py::test_`y`[@bob\n::error::pwned ##[warning]<b>**x**</b>]";
const LEASED_TEST = "t.py::test_a";

const lines = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

function file(
  path: string,
  statements: string[],
  covered: string[],
  branches: string[] = [],
  takenArcs: string[] = [],
) {
  const f: FileCoverage = {
    path,
    statements: new Set(statements),
    coveredStatements: new Set(covered),
    branches: new Set(branches),
    coveredBranches: new Set(takenArcs),
  };
  return [path, f] as const;
}

const data = (files: (readonly [string, FileCoverage])[]): CoverageData => ({
  format: "coveragepy-json",
  sources: ["coverage.json"],
  files: new Map(files),
  hasBranches: true,
});

/**
 * A single run: the hostile file's lines 3-8 and 10 and its branch 2>9 run only under frozen tests; a
 * second file has `spread` one-line frozen-only ranges (every odd line).
 */
function hiddenDebtReport(spread = 0, rawNotMeasured?: string): GateReport {
  const proven = data([
    file(HOSTILE_PATH, lines(1, 10), ["1", "2"], ["2>3", "2>9"], ["2>3"]),
    file(
      "src/wide.py",
      lines(1, 2 * spread),
      lines(1, 2 * spread).filter((l) => Number(l) % 2 === 0),
    ),
  ]);
  const raw = data([
    file(HOSTILE_PATH, lines(1, 10), [...lines(1, 8), "10"], ["2>3", "2>9"], ["2>3", "2>9"]),
    file("src/wide.py", lines(1, 2 * spread), lines(1, 2 * spread)),
  ]);
  const tests = new Map<string, string[]>([
    ...lines(3, 5).map((l) => [l, [HOSTILE_TEST]] as [string, string[]]),
    ...lines(6, 8).map((l) => [l, [LEASED_TEST, HOSTILE_TEST]] as [string, string[]]),
    ["10", [LEASED_TEST]],
    ["2>9", [LEASED_TEST]],
  ]);
  const wideTests = new Map(lines(1, 2 * spread).map((l) => [l, ["tests/test_wide.py::test_all"]]));
  const { map, errors } = buildCoverageMap(
    proven,
    rawNotMeasured ? undefined : raw,
    rawNotMeasured
      ? undefined
      : new Map([
          [HOSTILE_PATH, tests],
          ["src/wide.py", wideTests],
        ]),
  );
  expect(errors).toEqual([]);
  const coverage: ProvenCoverage = {
    source: "contexts",
    files: [".coverage"],
    format: "coveragepy-contexts",
    percent: map!.proven.percent,
    statements: map!.proven.statements,
    coveredLines: map!.proven.coveredLines,
    branches: map!.proven.branches,
    coveredBranches: map!.proven.coveredBranches,
    lineRate: map!.proven.lineRate,
    branchRate: map!.proven.branchRate,
    map,
    rawNotMeasured,
  };
  const input: DecideInput = {
    today: "2026-12-02",
    clockOverride: false,
    ledger: {
      file: "freeze.toml",
      version: 1,
      maxActiveLeases: 2,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      leases: [
        { index: 0, nodeid: LEASED_TEST, owner: "@ada <i>x</i>", reason: "flaky", expires: "2026-12-31", line: 4 },
      ],
    },
    universe: {
      file: "collected.txt",
      ids: [LEASED_TEST, "t.py::test_b"],
      duplicates: [],
      collectionErrors: [],
      summaryCount: 2,
    },
    coverage,
    minProven: 1,
    patch: { kind: "counts", agentAddedLeases: 0, fixtureDelta: 0, humanFixtureLock: false },
    properties: { kind: "count", failures: 0 },
    inputs: [],
  };
  return decide(input);
}

describe("the hidden debt in the terminal", () => {
  it("a line after the proven one: raw, proven, the points between and the frozen-only counts", () => {
    const report = hiddenDebtReport();
    const c = report.coverage!;
    const text = renderText(report, { color: false }).split("\n");
    expect(text[1]).toBe(`Proven coverage: ${c.provenCoveragePercent.toFixed(2)}% (floor 1%)`);
    expect(text[2]).toBe(
      `Raw coverage: ${c.raw!.percent.toFixed(2)}%, proven ${c.provenCoveragePercent.toFixed(2)}%: hidden debt ${c.hiddenPoints!.toFixed(2)} points (7 lines and 1 branch only frozen tests run)`,
    );
    // GitLab's regex (anchored, last match) still finds only the gate's own line.
    expect(text.filter((l) => /^(?:proofgate: gitlab: )?Proven coverage: \d+\.\d+%/.test(l))).toHaveLength(1);
  });

  it("fitted to a narrow terminal: wrapped, continuation lines indented (never a `Proven coverage:` line of their own)", () => {
    const why =
      "the proof run is a rerun and [coverage] full_report names no full run's report Proven coverage: 100.00%";
    const text = renderText(hiddenDebtReport(0, why), { color: false, width: 60 }).split("\n\n")[0]!.split("\n");
    expect(text.slice(2).join(" ").replace(/ {2,}/g, " ")).toBe(`Raw coverage not measured: ${why}`);
    for (const line of text.slice(2)) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(text.slice(3).every((l) => l.startsWith("  "))).toBe(true);
    expect(text.filter((l) => /^(?:proofgate: gitlab: )?Proven coverage: \d+\.\d+%/.test(l))).toHaveLength(1);
  });

  it("when raw was not measured, says why, and the why is made inert", () => {
    const report = hiddenDebtReport(0, "no full report\u001b[2J\n::error::x");
    const text = renderText(report, { color: false });
    expect(text).toContain("Raw coverage not measured: no full report\\x1b[2J\\x0a::error::x\n");
    expect(text).not.toContain("\u001b");
  });
});

describe("the hidden debt in Markdown", () => {
  it("the same facts under the heading, the ranges collapsed with their frozen tests and leases", () => {
    const report = hiddenDebtReport();
    const c = report.coverage!;
    const md = renderMarkdown(report);
    expect(md).toContain(
      `**Raw coverage** ${c.raw!.percent.toFixed(2)}% · **proven** ${c.provenCoveragePercent.toFixed(2)}% · **hidden debt** ${c.hiddenPoints!.toFixed(2)} points · 7 lines and 1 branch only frozen tests run`,
    );
    const details = md.slice(md.indexOf("<details><summary>Lines only frozen tests run"));
    expect(details.split("\n")[0]).toBe(
      "<details><summary>Lines only frozen tests run (7 lines and 1 branch in 1 file)</summary>",
    );
    const items = details.split("\n").filter((l) => l.startsWith("- ") || l.startsWith("  - "));
    expect(items).toHaveLength(3);
    // The leased test names its lease; the other has none in the ledger.
    expect(items[1]).toMatch(
      /^ {2}- lines 3-8: t\.py::test\\_a \(lease: @\u200bada &lt;i&gt;x&lt;\/i&gt;, expires 2026-12-31\), tests\/test\\_x\.py/,
    );
    expect(items[2]).toMatch(/^ {2}- line 10: t\.py::test\\_a \(lease: /);
    expect(details).toContain("\n\n</details>");
  });

  it("hostile file names and node ids are inert: no HTML, link, mention, code span or line of their own", () => {
    const md = renderMarkdown(hiddenDebtReport());
    // Every backtick escaped, so none opens a code span.
    expect(md).not.toMatch(/<img|<b>|<i>|\]\(http|@admin|@bob|@ada|(?<!\\)`/);
    expect(md).toContain("@\u200badmin");
    // The newline in the node id is a space: `::error::` starts no line, `##[` is escaped.
    for (const line of md.split("\n")) expect(line).not.toMatch(/^\s*::/);
    expect(md).not.toContain("##[");
    expect(md).toContain("test\\_\\`y\\`\\[@\u200bbob ::error::pwned \\#\\#\\[warning\\]");
  });

  it(`lists at most ${MARKDOWN_FROZEN_RANGES} ranges, files worst first, and says how many more report.json has`, () => {
    const report = hiddenDebtReport(70);
    const ranges = frozenOnlyRanges(report);
    expect(ranges).toHaveLength(72);
    const details = markdownFrozenOnly(report);
    expect(details.filter((l) => l.startsWith("  - "))).toHaveLength(MARKDOWN_FROZEN_RANGES);
    expect(details.filter((l) => l.startsWith("- "))[0]).toBe("- src/wide.py: 70 lines");
    expect(details).toContain(`${72 - MARKDOWN_FROZEN_RANGES} more ranges in report.json (\`coverage.frozen_only\`).`);
    expect(markdownFrozenOnly(report, 500).filter((l) => l.startsWith("  - "))).toHaveLength(72);
  });

  it("the rerun mode says the tests are not known; no section without frozen-only lines", () => {
    const report = hiddenDebtReport();
    const rerun: GateReport = {
      ...report,
      coverage: {
        ...report.coverage!,
        frozenOnly: {
          ...report.coverage!.frozenOnly!,
          attributed: false,
          files: report.coverage!.frozenOnly!.files.map((f) => ({
            ...f,
            ranges: f.ranges.map((r) => ({ ...r, tests: null })),
          })),
        },
      },
    };
    const md = markdownFrozenOnly(rerun).join("\n");
    expect(md).toContain("The tests behind each line are not known");
    expect(md).toContain("  - lines 3-8\n");
    const none: GateReport = {
      ...report,
      coverage: { ...report.coverage!, frozenOnly: { lines: 0, branches: 0, attributed: true, files: [] } },
    };
    expect(markdownFrozenOnly(none)).toEqual([]);
    expect(renderMarkdown(none)).not.toContain("<details><summary>Lines only");
  });
});

describe("the ranges as the platforms take them", () => {
  it("by priority: ranges the patch touched first, then the most lines", () => {
    const ranges = frozenOnlyRanges(hiddenDebtReport(3));
    expect(rangesByPriority(ranges).map((r) => `${r.path}:${r.start}`)).toEqual([
      `${HOSTILE_PATH}:3`,
      `${HOSTILE_PATH}:10`,
      "src/wide.py:1",
      "src/wide.py:3",
      "src/wide.py:5",
    ]);
    const touched = ranges.map((r) => (r.path === "src/wide.py" && r.start === 5 ? { ...r, patch: true } : r));
    expect(rangesByPriority(touched)[0]).toMatchObject({ path: "src/wide.py", start: 5, patch: true });
  });

  it("a lease matches its exact id, or an id it parametrises or contains", () => {
    const lease = leaseLookup(hiddenDebtReport());
    expect(lease(LEASED_TEST)?.owner).toBe("@ada <i>x</i>");
    expect(lease(`${LEASED_TEST}[1]`)?.owner).toBe("@ada <i>x</i>");
    expect(lease(`${LEASED_TEST}_more`)).toBeUndefined();
  });
});

import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coveragePercent } from "./coverage-model.js";
import { hasSets, summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readCoveragePyJson, statementLines, statementLinesBySets } from "./coveragepy-json-reader.js";
import { CoverageShardMerger, mergeCoverageShards } from "./merge-shards.js";
import { ReportIssues } from "./report-issues.js";

/** Real coverage.py output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const FILE = "coverage.json";

function readOk(text: string): CoverageData {
  const result = readCoveragePyJson(text, FILE);
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.data).toBeDefined();
  return result.data!;
}

function errorsOf(text: string): string[] {
  const result = readCoveragePyJson(text, FILE);
  expect(result.data).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.file).toBe(FILE);
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

/** The rows of `coverage report` as coverage.py printed them: name -> [stmts, miss, branch?, brpart?]. */
function printedReport(name: string): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  for (const line of recorded(name).split("\n")) {
    const m = /^(\S+)\s+([\d\s]+?)\s+(\d+)%$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.trim().split(/\s+/).map(Number));
  }
  return rows;
}

function file(data: CoverageData, path: string): FileCoverage {
  const entry = data.files.get(path);
  expect(entry && hasSets(entry)).toBe(true);
  return entry as FileCoverage;
}

const sorted = (set: Set<string>): number[] => [...set].map(Number).sort((a, b) => a - b);

describe("readCoveragePyJson: real coverage.py output", () => {
  it.each([
    ["coveragepy-6.5-branch.json", "coveragepy-6.5-report-branch.txt"],
    ["coveragepy-6.5-contexts.json", "coveragepy-6.5-report-branch.txt"],
    ["coveragepy-6.5-lines.json", "coveragepy-6.5-report-lines.txt"],
    ["coveragepy-6.5-shard1.json", "coveragepy-6.5-report-shard1.txt"],
    ["coveragepy-6.5-shard2.json", "coveragepy-6.5-report-shard2.txt"],
    ["coveragepy-7.16.2-branch.json", "coveragepy-7.16.2-report-branch.txt"],
  ])("%s: every file's and the total's numbers are the ones `coverage report` printed", (report, printed) => {
    const data = readOk(recorded(report));
    const rows = printedReport(printed);
    for (const [path, entry] of data.files) {
      const [stmts, miss, branch] = rows.get(path)!;
      expect(hasSets(entry)).toBe(true);
      const fc = entry as FileCoverage;
      expect([fc.statements.size, fc.statements.size - fc.coveredStatements.size]).toEqual([stmts, miss]);
      if (branch !== undefined && rows.get("Name") === undefined) expect(fc.branches.size).toBe(branch);
    }
    const [stmts, miss, branches] = rows.get("TOTAL")!;
    const summary = summarizeCoverage(data);
    expect(summary.statements).toBe(stmts);
    expect(summary.statements - summary.coveredLines).toBe(miss);
    if (data.hasBranches) expect(summary.branches).toBe(branches);
    // The JSON's own totals, which coverage.py computed with the same formula.
    const totals = (JSON.parse(recorded(report)) as { totals: Record<string, number> }).totals;
    expect(summary.percent).toBe(totals.percent_covered);
    expect(summary.coveredBranches).toBe(totals.covered_branches ?? 0);
    expect(summary.percent).toBe(
      coveragePercent(summary.statements, summary.coveredLines, summary.branches, summary.coveredBranches),
    );
  });

  it("6.5 branch report: 30 statements, 22 covered, 10 branches, 8 covered: 75%", () => {
    const data = readOk(recorded("coveragepy-6.5-branch.json"));
    expect(data.format).toBe("coveragepy-json");
    expect(data.sources).toEqual([FILE]);
    expect(data.hasBranches).toBe(true);
    expect(summarizeCoverage(data)).toEqual({
      statements: 30,
      coveredLines: 22,
      branches: 10,
      coveredBranches: 8,
      percent: 75,
      lineRate: 22 / 30,
      branchRate: 0.8,
    });
    const cart = file(data, "shop/cart.py");
    expect([...cart.branches].sort()).toEqual([
      "13>14",
      "13>15",
      "15>16",
      "15>17",
      "3>4",
      "3>7",
      "4>5",
      "4>6",
      "7>8",
      "7>9",
    ]);
    expect([...cart.coveredBranches].sort()).toEqual(["13>14", "13>15", "15>17", "3>4", "3>7", "4>6", "7>8", "7>9"]);
    // The excluded line 23 (`# pragma: no cover`) is no statement.
    expect(cart.statements.has("23")).toBe(false);
    expect(file(data, "shop/util/__init__.py").statements.size).toBe(0);
  });

  it("6.5's docstring lines listed as executed are dropped so the counts are coverage.py's (module docstring: exactly)", () => {
    const data = readOk(recorded("coveragepy-6.5-branch.json"));
    // executed_lines [1, 2]: line 1 is the module docstring; coverage.py counts 1 statement.
    expect(sorted(file(data, "shop/__init__.py").statements)).toEqual([2]);
    // fmt.py's class docstring (line 14) is not a statement either: the counts are right (11), the line
    // dropped is the lowest executed one (see coveragepy-phantoms.ts); 7.16.2 lists the exact lines.
    expect(file(data, "shop/util/fmt.py").statements.size).toBe(11);
    const exact = readOk(recorded("coveragepy-7.16.2-branch.json"));
    expect(sorted(file(exact, "shop/util/fmt.py").statements)).toEqual([1, 2, 3, 4, 7, 8, 9, 10, 13, 16, 17]);
    expect(sorted(file(exact, "shop/__init__.py").statements)).toEqual([2]);
  });

  it("lines-only report: no branches", () => {
    const data = readOk(recorded("coveragepy-6.5-lines.json"));
    expect(data.hasBranches).toBe(false);
    expect(summarizeCoverage(data)).toMatchObject({
      statements: 30,
      coveredLines: 22,
      branches: 0,
      coveredBranches: 0,
      branchRate: 1,
    });
    expect(summarizeCoverage(data).percent).toBe(
      JSON.parse(recorded("coveragepy-6.5-lines.json")).totals.percent_covered,
    );
  });

  it("formats 1, 2 and 3 give the same model for the same run (format 2: 6.5's data under `meta.format: 2`)", () => {
    const v65 = JSON.parse(recorded("coveragepy-6.5-branch.json")) as { meta: Record<string, unknown> };
    v65.meta.format = 2;
    const f2 = readOk(JSON.stringify(v65));
    const f3 = readOk(recorded("coveragepy-7.16.2-branch.json"));
    expect(summarizeCoverage(f2)).toEqual(summarizeCoverage(f3));
    expect(file(f2, "shop/cart.py")).toEqual(file(f3, "shop/cart.py"));
  });

  it("root: absolute paths under it become relative", () => {
    const report = JSON.parse(recorded("coveragepy-6.5-lines.json")) as { files: Record<string, unknown> };
    report.files = Object.fromEntries(Object.entries(report.files).map(([k, v]) => [`/ci/repo/${k}`, v]));
    const result = readCoveragePyJson(JSON.stringify(report), FILE, { root: "/ci/repo/" });
    expect([...result.data!.files.keys()].sort()).toEqual([
      "shop/__init__.py",
      "shop/cart.py",
      "shop/util/__init__.py",
      "shop/util/fmt.py",
    ]);
    expect(file(result.data!, "shop/cart.py").path).toBe("shop/cart.py");
  });
});

describe("readCoveragePyJson: bad input", () => {
  const branch = (): { files: Record<string, Record<string, unknown>>; totals: Record<string, unknown> } =>
    JSON.parse(recorded("coveragepy-6.5-branch.json"));

  it("empty and truncated files", () => {
    expect(errorsOf("")).toEqual([expect.stringContaining("empty")]);
    const text = recorded("coveragepy-6.5-branch.json");
    expect(errorsOf(text.slice(0, Math.floor(text.length / 2)))[0]).toMatch(
      /^coverage\.json:1: not valid JSON .*truncated/,
    );
  });

  it("wrong schema: an Istanbul report, no files, lists that are not line numbers", () => {
    expect(errorsOf(recorded("istanbul-vitest-4.1.12-final.json")).join("\n")).toMatch(/no `totals`/);
    const noFiles = branch() as Record<string, unknown>;
    delete noFiles.files;
    expect(errorsOf(JSON.stringify(noFiles))).toEqual([expect.stringContaining("no `files`")]);
    const badLines = branch();
    badLines.files["shop/cart.py"]!.executed_lines = [1, "2", 3];
    expect(errorsOf(JSON.stringify(badLines))).toEqual([
      expect.stringContaining('`files["shop/cart.py"].executed_lines` holds "2"'),
    ]);
    const badArc = branch();
    badArc.files["shop/cart.py"]!.missing_branches = [[4]];
    expect(errorsOf(JSON.stringify(badArc))).toEqual([expect.stringContaining("not a [from, to] arc")]);
    const noArcs = branch();
    delete noArcs.files["shop/cart.py"]!.executed_branches;
    expect(errorsOf(JSON.stringify(noArcs))).toEqual([
      expect.stringContaining('`files["shop/cart.py"].executed_branches` is missing'),
    ]);
  });

  it("negative and NaN counts", () => {
    const negative = branch();
    negative.files["shop/cart.py"]!.missing_lines = [5, -16];
    expect(errorsOf(JSON.stringify(negative))).toEqual([expect.stringContaining("holds -16")]);
    const nan = recorded("coveragepy-6.5-branch.json").replace(
      /"num_statements": 30(?=, "percent_covered": 75\.0)/,
      '"num_statements": NaN',
    );
    expect(errorsOf(nan)[0]).toMatch(/not valid JSON/);
    const negTotal = branch();
    negTotal.totals.covered_lines = -1;
    expect(errorsOf(JSON.stringify(negTotal))[0]).toMatch(/whole number >= 0/);
  });

  it("lists that contradict the summaries", () => {
    const lost = branch();
    lost.files["shop/cart.py"]!.missing_lines = [5, 16, 21];
    expect(errorsOf(JSON.stringify(lost))[0]).toMatch(/summary counts 18 statements: lines are missing/);
    const both = branch();
    both.files["shop/cart.py"]!.missing_lines = [5, 16, 21, 22, 4];
    expect(errorsOf(JSON.stringify(both))[0]).toMatch(/line 4 is both executed and missing/);
    const arcs = branch();
    (arcs.files["shop/cart.py"]!.missing_branches as unknown[]).push([3, 4]);
    expect(errorsOf(JSON.stringify(arcs))[0]).toMatch(/branch 3->4 is both executed and missing/);
    const moreArcs = branch();
    (moreArcs.files["shop/cart.py"]!.missing_branches as unknown[]).push([20, 21]);
    expect(errorsOf(JSON.stringify(moreArcs))[0]).toMatch(/lists 8\/11 branches but its summary says 8\/10/);
  });
});

describe("arcs coverage.py executed but did not predict", () => {
  it("a generator's arc to its own line is listed as executed and not counted: read like coverage.py's totals", () => {
    // Real coverage.py 6.5 output (the demo's proof run): render.py lists [16, 16] among its executed
    // branches, which its summary does not count (4 of 6 branches covered).
    const text = recorded("coveragepy-6.5-self-arc.json");
    const data = readOk(text);
    const render = data.files.get("src/invoicing/render.py")!;
    expect(hasSets(render)).toBe(true);
    if (!hasSets(render)) return;
    expect(render.branches.size).toBe(6);
    expect(render.coveredBranches.size).toBe(4);
    expect(render.branches.has("16>16")).toBe(false);
    const totals = (JSON.parse(text) as { totals: { percent_covered: number } }).totals;
    expect(summarizeCoverage(data).percent).toBeCloseTo(totals.percent_covered, 10);
  });
});

describe("an exception's arc coverage.py executed but did not predict", () => {
  it("is set aside so each file's figures are coverage.py's own (real coverage.py 6.5 output)", () => {
    // scan/__init__.py lists [3, 5] (an IndexError leaving the `while` line for its `except`) among its
    // executed branches; its summary counts 3 of 4. Before, the reader refused such a report as corrupt.
    const text = recorded("coveragepy-6.5-exception-arc.json");
    const data = readOk(text);
    const scan = data.files.get("scan/__init__.py")!;
    expect(hasSets(scan)).toBe(true);
    if (!hasSets(scan)) return;
    expect([...scan.branches].sort()).toEqual(["12>13", "12>14", "3>4", "3>7"]);
    expect([...scan.coveredBranches].sort()).toEqual(["12>14", "3>4", "3>7"]);
    const totals = (JSON.parse(text) as { totals: { percent_covered: number } }).totals;
    expect(summarizeCoverage(data).percent).toBeCloseTo(totals.percent_covered, 10);
  });

  it("still refuses a report whose missing arcs disagree with its summary", () => {
    const report = JSON.parse(recorded("coveragepy-6.5-exception-arc.json")) as {
      files: Record<string, { missing_branches: number[][] }>;
    };
    report.files["scan/__init__.py"]!.missing_branches.push([3, 6]);
    expect(errorsOf(JSON.stringify(report))[0]).toMatch(/branches but its summary says/);
  });
});

describe("statementLines: the marks array gives what the sets give", () => {
  // Lists near what coverage.py writes (disjoint executed and missing lines, a few excluded ones, the
  // summary's counts within two of the lists'), and now and then an overlap or a duplicate.
  const file = fc
    .record({
      kinds: fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 5 })), { maxLength: 40 }),
      overlap: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 2 }),
      stmts: fc.integer({ min: -2, max: 2 }),
      covered: fc.integer({ min: -2, max: 2 }),
    })
    .map(({ kinds, overlap, stmts, covered }) => {
      const executed = kinds.filter(([, k]) => k <= 2).map(([l]) => l);
      const missing = kinds.filter(([l, k]) => k === 3 && l >= 1 && !executed.includes(l)).map(([l]) => l);
      const excluded = kinds.filter(([, k]) => k >= 4).map(([l]) => l);
      missing.push(...overlap.filter((l) => l >= 1));
      const distinct = new Set(executed.filter((l) => l >= 1 && !excluded.includes(l)));
      const num = distinct.size + new Set(missing).size + stmts;
      return { executed, missing, excluded, summary: { num_statements: num, covered_lines: distinct.size + covered } };
    });
  it("on any lists and summary counts: the same statements in the same order, or the same error", () => {
    let read = 0;
    fc.assert(
      fc.property(file, ({ executed, missing, excluded, summary }) => {
        const a = new ReportIssues(FILE, "fix");
        const b = new ReportIssues(FILE, "fix");
        const fast = statementLines(executed, missing, excluded, summary, "files[x]", a);
        const slow = statementLinesBySets(executed, missing, excluded, summary, "files[x]", b);
        const shape = (r: typeof fast) => r && { s: [...r.statements], c: [...r.coveredStatements] };
        expect(shape(fast)).toEqual(shape(slow));
        expect(a.errors).toEqual(b.errors);
        if (fast) {
          read++;
          // An earlier shard's equal set is returned as it is; a set one key short or long is not.
          const again = (known: Parameters<typeof statementLines>[6]) =>
            statementLines(executed, missing, excluded, summary, "f", new ReportIssues(FILE, "fix"), known);
          const same = new Set(fast.statements);
          const shared = again({ statements: same });
          expect(shared!.statements).toBe(same);
          expect(shape(shared)).toEqual(shape(fast));
          // With the merge's covered set, the covered lines are added to it and it is the file's.
          const into = new Set(["merged"]);
          const folded = again({ statements: same, coveredStatements: into });
          expect(folded!.statements).toBe(same);
          expect(folded!.coveredStatements).toBe(into);
          expect([...into]).toEqual(["merged", ...fast.coveredStatements]);
          const other = new Set([...fast.statements].slice(1));
          other.add("999");
          const untouched = new Set(["merged"]);
          const own = again({ statements: other, coveredStatements: untouched });
          expect(own!.statements).not.toBe(other);
          expect(own!.coveredStatements).not.toBe(untouched);
          expect([...untouched]).toEqual(["merged"]);
          expect(shape(own)).toEqual(shape(fast));
        }
      }),
      { numRuns: 3000, seed: 20261206 },
    );
    // Both answers are exercised: files read, and files refused.
    expect(read).toBeGreaterThan(300);
    expect(read).toBeLessThan(2700);
  });

  it("a consistent file reads the same through both, phantom lines dropped lowest first", () => {
    // Lines 1 (a docstring) and 3 ran, 5 did not; the summary counts 2 statements, 1 covered.
    const issues = new ReportIssues(FILE, "fix");
    const r = statementLines([3, 1, 3], [5], [], { num_statements: 2, covered_lines: 1 }, "f", issues);
    expect(issues.errors).toEqual([]);
    expect([...r!.statements]).toEqual(["3", "5"]);
    expect([...r!.coveredStatements]).toEqual(["3"]);
    // Lines past the marks array's limit take the set-based path, with the same answer.
    const far = statementLines([3_000_001, 1], [5], [], { num_statements: 2, covered_lines: 1 }, "f", issues);
    expect([...far!.statements]).toEqual(["3000001", "5"]);
  });
});

describe("known: a later shard shares an earlier shard's sets", () => {
  const shards = ["coveragepy-6.5-shard1.json", "coveragepy-6.5-shard2.json"].map(recorded);
  const keys = (data: CoverageData) =>
    [...data.files.values()].map((f) => {
      const e = f as FileCoverage;
      return [e.path, [...e.statements], [...e.coveredStatements], [...e.branches], [...e.coveredBranches]];
    });

  it("real shards: the second's equal sets are the first's, and the merge is the same as without sharing", () => {
    const merger = new CoverageShardMerger();
    const first = readOk(shards[0]!);
    merger.add(first, { consume: true });
    const second = readCoveragePyJson(shards[1]!, "shard2.json", { known: (p) => merger.known(p) }).data!;
    let shared = 0;
    for (const entry of second.files.values()) {
      const e = entry as FileCoverage;
      const k = merger.known(e.path)!;
      expect(k).toBeDefined();
      if (e.statements === k.statements) shared++;
      // Shared only when equal: a set of its own otherwise.
      else expect([...e.statements].sort()).not.toEqual([...k.statements].sort());
      if (e.branches !== k.branches) expect([...e.branches].sort()).not.toEqual([...k.branches].sort());
    }
    expect(shared).toBe(second.files.size);
    merger.add(second, { consume: true });
    const merged = merger.result().data!;
    const plain = mergeCoverageShards(shards.map((t, i) => readCoveragePyJson(t, `shard${i + 1}.json`).data!)).data!;
    expect(keys(merged)).toEqual(keys(plain));
    expect(summarizeCoverage(merged)).toEqual(summarizeCoverage(plain));
  });

  it("a shard whose statements differ keeps its own set, and the merge names the difference", () => {
    const merger = new CoverageShardMerger();
    merger.add(readOk(shards[0]!), { consume: true });
    // The second shard with one more missing statement in one file (its summary counts it too).
    const report = JSON.parse(shards[1]!) as {
      files: Record<string, { missing_lines: number[]; summary: Record<string, number> }>;
      totals: Record<string, number>;
    };
    const [name, entry] = Object.entries(report.files)[0]!;
    entry.missing_lines.push(9999);
    for (const s of [entry.summary, report.totals]) {
      s.num_statements! += 1;
      s.missing_lines! += 1;
      s.percent_covered = coveragePercent(
        s.num_statements!,
        s.covered_lines!,
        s.num_branches ?? 0,
        s.covered_branches ?? 0,
      );
    }
    delete (report.totals as Record<string, unknown>).percent_covered_display;
    delete (entry.summary as Record<string, unknown>).percent_covered_display;
    const read = readCoveragePyJson(JSON.stringify(report), "shard2.json", { known: (p) => merger.known(p) });
    expect(read.errors.map(formatIssue)).toEqual([]);
    const own = read.data!.files.get(name) as FileCoverage;
    expect(own.statements).not.toBe(merger.known(name)!.statements);
    merger.add(read.data!, { consume: true });
    expect(merger.result().errors.map((e) => e.message)).toEqual([
      expect.stringContaining(`disagree on the statements of \`${name}\` (only the second has 9999)`),
    ]);
  });
});

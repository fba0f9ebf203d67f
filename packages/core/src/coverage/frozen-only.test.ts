import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { provenCoverageFromContexts, type CoverageDbRows } from "./contexts.js";
import { buildCoverageMap, branchLine, frozenOnlyFiles, frozenOnlyLines } from "./frozen-only.js";

// The contexts fixtures of contexts.test.ts (Debian's pytest 7.2.1, pytest-cov 4.0, coverage.py 6.5):
// `pkg/lazy.py` is imported only by `tests/test_m.py::test_lazy`.
const fixture = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/contexts/${name}`, import.meta.url), "utf8");

function rows(tag: string): CoverageDbRows {
  const raw = JSON.parse(fixture(`${tag}-rows.json`)) as {
    hasArcs: boolean;
    contexts: { id: number; name: string }[];
    files: { id: number; path: string }[];
    lineBits: { fileId: number; contextId: number; numbits: string }[];
    arcs: [number, number, number, number][];
  };
  return {
    file: ".coverage",
    hasArcs: raw.hasArcs,
    contexts: raw.contexts,
    files: raw.files,
    lineBits: raw.lineBits.map((r) => ({ ...r, numbits: Uint8Array.from(Buffer.from(r.numbits, "hex")) })),
    arcs: {
      fileId: raw.arcs.map((a) => a[0]),
      contextId: raw.arcs.map((a) => a[1]),
      fromno: raw.arcs.map((a) => a[2]),
      tono: raw.arcs.map((a) => a[3]),
    },
  };
}

const sourceOf = (path: string): string | undefined => {
  const m = /^\/project\/pkg\/(\w+)\.py$/.exec(path);
  return m ? fixture(`pkg-${m[1]}.py.txt`) : undefined;
};

interface Expected {
  frozen: string[];
  totals: { covered_lines: number; num_statements: number; percent_covered: number; covered_branches?: number };
}

for (const tag of ["cov65-branch", "cov65-lines"]) {
  describe(`the single run's map (${tag})`, () => {
    const full = JSON.parse(fixture(`${tag}-full.json`)) as { totals: Expected["totals"] };
    const expected = JSON.parse(fixture(`${tag}-expected.json`)) as Expected[];
    for (const e of expected) {
      it(`raw equals \`coverage json\`, proven equals \`--contexts\` (frozen: ${e.frozen.join(", ") || "none"})`, () => {
        const result = provenCoverageFromContexts(
          rows(tag),
          fixture(`${tag}-full.json`),
          "full.json",
          e.frozen,
          sourceOf,
        );
        const { map, errors } = buildCoverageMap(result.data!, result.raw, result.frozenTests);
        expect(errors).toEqual([]);
        // The raw figure is the full run's own: every context kept.
        expect(map!.raw!.percent).toBe(full.totals.percent_covered);
        expect(map!.raw!.coveredLines).toBe(full.totals.covered_lines);
        expect(map!.proven.percent).toBe(e.totals.percent_covered);
        expect(map!.proven).toEqual(summarizeCoverage(result.data!));
        // Every frozen-only line and branch names frozen tests, and only frozen ones.
        const only = frozenOnlyFiles(map!);
        for (const f of only) {
          for (const r of f.ranges) {
            expect(r.tests!.length).toBeGreaterThan(0);
            for (const t of r.tests!) expect(e.frozen).toContain(t);
          }
          for (const b of f.branchList) for (const t of b.tests!) expect(e.frozen).toContain(t);
        }
        const hidden = only.reduce((n, f) => n + f.lines, 0);
        expect(hidden).toBe(full.totals.covered_lines - e.totals.covered_lines);
        const hiddenBranches = only.reduce((n, f) => n + f.branches, 0);
        expect(hiddenBranches).toBe((full.totals.covered_branches ?? 0) - (e.totals.covered_branches ?? 0));
        if (e.frozen.length === 0) expect(only).toEqual([]);
      });
    }

    it("names the one test that imports a module as the test behind all its lines", () => {
      const result = provenCoverageFromContexts(
        rows(tag),
        fixture(`${tag}-full.json`),
        "full.json",
        ["tests/test_m.py::test_lazy"],
        sourceOf,
      );
      const { map } = buildCoverageMap(result.data!, result.raw, result.frozenTests);
      const lazy = frozenOnlyFiles(map!).find((f) => f.path === "pkg/lazy.py")!;
      // Lines 1-2 (docstring, VALUE) and 5 (def) run at import, inside the test; 6-7 run in it.
      expect(frozenOnlyLines(map!.files.get("pkg/lazy.py")!)).toEqual([2, 5, 6, 7]);
      expect(lazy.ranges).toEqual([{ start: 2, end: 7, lines: 4, tests: ["tests/test_m.py::test_lazy"] }]);
    });
  });
}

const file = (
  path: string,
  statements: number[],
  covered: number[],
  branches: string[] = [],
  taken: string[] = [],
): FileCoverage => ({
  path,
  statements: new Set(statements.map(String)),
  coveredStatements: new Set(covered.map(String)),
  branches: new Set(branches),
  coveredBranches: new Set(taken),
});
const data = (files: FileCoverage[], hasBranches = true): CoverageData => ({
  format: "coveragepy-json",
  sources: ["r.json"],
  files: new Map(files.map((f) => [f.path, f])),
  hasBranches,
});

describe("the rerun's map: full report minus proof report", () => {
  it("finds the frozen-only lines and branches, unattributed, and ranges that skip non-statements", () => {
    const raw = data([file("a.py", [1, 2, 4, 6, 8], [1, 2, 4, 6], ["2>4", "2>8"], ["2>4", "2>8"])]);
    const proven = data([file("a.py", [1, 2, 4, 6, 8], [1, 2], ["2>4", "2>8"], ["2>8"])]);
    const { map, errors } = buildCoverageMap(proven, raw);
    expect(errors).toEqual([]);
    expect(map!.attributed).toBe(false);
    expect(frozenOnlyFiles(map!)).toEqual([
      {
        path: "a.py",
        lines: 2,
        branches: 1,
        ranges: [{ start: 4, end: 6, lines: 2, tests: null }],
        branchList: [{ line: 2, branch: "2>4", tests: null }],
      },
    ]);
    expect(map!.raw!.coveredLines).toBe(4);
    expect(map!.proven.coveredLines).toBe(2);
  });

  it("counts a file only the full run measured as measured with nothing proven", () => {
    const raw = data([file("a.py", [1], [1]), file("only_frozen.py", [1, 2], [1, 2])]);
    const proven = data([file("a.py", [1], [1])]);
    const { map } = buildCoverageMap(proven, raw);
    expect(map!.proven.statements).toBe(3);
    expect(map!.proven.coveredLines).toBe(1);
    expect(frozenOnlyFiles(map!)[0]).toMatchObject({ path: "only_frozen.py", lines: 2 });
  });

  it("refuses reports of different code, never guessing", () => {
    const raw = data([file("a.py", [1, 2, 3], [1, 2, 3])]);
    const proven = data([file("a.py", [1, 2], [1])]);
    const { map, errors } = buildCoverageMap(proven, raw, undefined, { proven: "p.json", raw: "full.json" });
    expect(map).toBeUndefined();
    expect(errors[0]).toMatchObject({ code: "coverage_invalid", file: "full.json" });
    expect(errors[0]!.message).toContain("a.py");
    const missing = buildCoverageMap(data([file("b.py", [1], [1])]), data([file("a.py", [1], [1])]));
    expect(missing.errors[0]!.message).toContain("does not list b.py");
    const modes = buildCoverageMap(data([file("a.py", [1], [1])], true), data([file("a.py", [1], [1])], false));
    expect(modes.errors[0]!.message).toContain("branches");
  });

  it("has no map for statement-id formats (Istanbul), and no raw without a full report", () => {
    expect(buildCoverageMap({ ...data([]), format: "istanbul-final" }, undefined).map).toBeUndefined();
    const { map } = buildCoverageMap(data([file("a.py", [1, 2], [1])]), undefined);
    expect(map!.raw).toBeUndefined();
    expect(frozenOnlyFiles(map!)).toEqual([]);
  });

  it("reads the line a branch leaves in each format's key", () => {
    expect(branchLine("12>14")).toBe(12);
    expect(branchLine("12>-1")).toBe(12);
    expect(branchLine("12:0:1")).toBe(12);
    expect(branchLine("b3:1")).toBeUndefined();
    expect(branchLine("always:0")).toBeUndefined();
    expect(branchLine("7:1")).toBe(7);
    expect(branchLine("12")).toBeUndefined();
    expect(branchLine("")).toBeUndefined();
    expect(branchLine("1 2>3")).toBeUndefined();
  });
});

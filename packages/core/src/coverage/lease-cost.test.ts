import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { provenCoverageFromContexts, type CoverageDbRows } from "./contexts.js";
import { buildCoverageMap, type CoverageMap, type FileLines } from "./frozen-only.js";
import { byCost, leaseCosts } from "./lease-cost.js";

const summary = {
  percent: 0,
  statements: 0,
  coveredLines: 0,
  branches: 0,
  coveredBranches: 0,
  lineRate: 0,
  branchRate: 0,
};

/** One file: statements 1-8; 1-2 proven; 3 only `a`; 4-5 `a` and `b`; 6 only `b`... as the rows say. */
function map(attributed: boolean): CoverageMap {
  const f: FileLines = {
    path: "pkg/m.py",
    statements: [1, 2, 3, 4, 5, 6, 7, 8],
    proven: new Set([1, 2]),
    raw: new Set([1, 2, 3, 4, 5, 6]),
    branches: new Map([[3, ["3>4", "3>6"]]]),
    provenBranches: new Set(),
    rawBranches: new Set(["3>4", "3>6"]),
    frozenTests: attributed
      ? new Map([
          ["3", ["t.py::a"]],
          ["4", ["t.py::a", "t.py::b"]],
          ["5", ["t.py::a", "t.py::b"]],
          ["6", ["t.py::a", "t.py::b"]],
          ["3>4", ["t.py::a"]],
          ["3>6", ["t.py::a", "t.py::b"]],
        ])
      : undefined,
  };
  return { files: new Map([[f.path, f]]), raw: summary, proven: summary, attributed };
}

describe("what each lease costs", () => {
  it("two frozen tests sharing lines, one of them with a line of its own", () => {
    const costs = leaseCosts(map(true), ["t.py::a", "t.py::b", "t.py::c"]);
    expect(costs.byTest.get("t.py::a")).toEqual({
      status: "measured",
      lines: 1,
      branches: 1,
      sharedLines: 3,
      sharedBranches: 1,
      files: [{ path: "pkg/m.py", lines: [3], branches: ["3>4"] }],
    });
    // b runs nothing alone: unfreezing it proves the pool's lines, but dropping it loses none.
    expect(costs.byTest.get("t.py::b")).toMatchObject({ status: "measured", lines: 0, branches: 0, sharedLines: 3 });
    expect(costs.byTest.get("t.py::c")).toMatchObject({ status: "measured", lines: 0, sharedLines: 0, files: [] });
    expect(costs.pool).toEqual({ lines: 3, branches: 1 });
    const order = byCost([{ nodeid: "t.py::c" }, { nodeid: "t.py::b" }, { nodeid: "t.py::a" }], costs);
    expect(order.map((l) => l.nodeid)).toEqual(["t.py::a", "t.py::b", "t.py::c"]);
  });

  it("a frozen test with no context is not measured, nor is anything in the rerun", () => {
    const costs = leaseCosts(map(true), ["t.py::a", "t.py::gone"], ["t.py::gone"]);
    expect(costs.byTest.get("t.py::gone")).toMatchObject({ status: "not_measured" });
    const rerun = leaseCosts(map(false), ["t.py::a"]);
    expect(rerun.byTest.get("t.py::a")).toMatchObject({
      status: "not_measured",
      why: expect.stringContaining("rerun"),
    });
    expect(rerun.pool).toBeNull();
    expect(leaseCosts(undefined, ["t.py::a"]).byTest.get("t.py::a")!.status).toBe("not_measured");
  });
});

// The contexts fixtures (coverage.py 6.5): each test's cost with all five frozen equals what coverage.py
// counted with only that one test's contexts left out (the expected files), since no other test runs it.
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
  totals: { covered_lines: number; covered_branches?: number };
}

for (const tag of ["cov65-branch", "cov65-lines"]) {
  it(`each lease's cost is what leaving out only its test loses (${tag})`, () => {
    const expected = JSON.parse(fixture(`${tag}-expected.json`)) as Expected[];
    const all = expected.reduce((a, b) => (b.frozen.length > a.frozen.length ? b : a)).frozen;
    const none = expected.find((e) => e.frozen.length === 0)!.totals;
    const result = provenCoverageFromContexts(rows(tag), fixture(`${tag}-full.json`), "full.json", all, sourceOf);
    const { map: built } = buildCoverageMap(result.data!, result.raw, result.frozenTests);
    const costs = leaseCosts(built, all, result.frozenNotRun);
    let unique = 0;
    for (const e of expected.filter((x) => x.frozen.length === 1)) {
      const cost = costs.byTest.get(e.frozen[0]!)!;
      if (cost.status !== "measured") throw new Error("not measured");
      expect(cost.lines).toBe(none.covered_lines - e.totals.covered_lines);
      expect(cost.branches).toBe((none.covered_branches ?? 0) - (e.totals.covered_branches ?? 0));
      unique += cost.lines;
    }
    // The pool is the rest of what the five hide together.
    const allFrozen = expected.find((e) => e.frozen.length === all.length)!.totals;
    expect(unique + costs.pool!.lines).toBe(none.covered_lines - allFrozen.covered_lines);
  });
}

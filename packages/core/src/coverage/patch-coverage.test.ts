import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CoverageData, FileCoverage } from "./coverage-model.js";
import { parseGitDiff } from "../patch/git-diff.js";
import { buildCoverageMap, type CoverageMap } from "./frozen-only.js";
import { lineRanges, patchCoverage } from "./patch-coverage.js";

const file = (path: string, statements: number[], covered: number[]): FileCoverage => ({
  path,
  statements: new Set(statements.map(String)),
  coveredStatements: new Set(covered.map(String)),
  branches: new Set(),
  coveredBranches: new Set(),
});

const data = (files: FileCoverage[]): CoverageData => ({
  format: "coveragepy-json",
  sources: ["r.json"],
  files: new Map(files.map((f) => [f.path, f])),
  hasBranches: false,
});

function map(proven: FileCoverage[], raw?: FileCoverage[]): CoverageMap {
  const built = buildCoverageMap(data(proven), raw && data(raw));
  expect(built.errors).toEqual([]);
  return built.map!;
}

describe("patchCoverage", () => {
  // src/pkg/a.py: statements 1-6, 8; the proof run ran 1-3, the full run 1-5 (4, 5 frozen-only).
  const proven = [file("src/pkg/a.py", [1, 2, 3, 4, 5, 6, 8], [1, 2, 3]), file("src/pkg/b.py", [1, 2], [1, 2])];
  const raw = [file("src/pkg/a.py", [1, 2, 3, 4, 5, 6, 8], [1, 2, 3, 4, 5]), file("src/pkg/b.py", [1, 2], [1, 2])];

  it("counts the changed statements of measured files: proven, uncovered, frozen-only", () => {
    const result = patchCoverage(
      [
        // 7 is no statement; 9 is past the statements; README.md is not measured.
        { path: "src/pkg/a.py", added: [2, 4, 5, 6, 7, 9] },
        { path: "src/pkg/b.py", oldPath: "src/pkg/old_b.py", added: [2] },
        { path: "README.md", added: [1, 2] },
      ],
      map(proven, raw),
    );
    expect(result).toEqual({
      coverable: 5,
      covered: 2,
      percent: 40,
      notApplicable: null,
      raw: { covered: 4, percent: 80 },
      changedFiles: 3,
      measuredFiles: 2,
      files: [
        {
          path: "src/pkg/a.py",
          oldPath: undefined,
          coverable: 4,
          covered: 1,
          lines: [2, 4, 5, 6],
          uncovered: [4, 5, 6],
          frozenOnly: [4, 5],
        },
        {
          path: "src/pkg/b.py",
          oldPath: "src/pkg/old_b.py",
          coverable: 1,
          covered: 1,
          lines: [2],
          uncovered: [],
          frozenOnly: [],
        },
      ],
      unaligned: [],
    });
  });

  it("without the raw side, frozen-only is unknown (null), not empty", () => {
    const result = patchCoverage([{ path: "src/pkg/a.py", added: [4] }], map(proven));
    expect(result.raw).toBeNull();
    expect(result.files[0]).toMatchObject({ uncovered: [4], frozenOnly: null });
    expect(result.percent).toBe(0);
  });

  it("a patch touching no statement is n/a, never 0% or 100%, and says why", () => {
    const m = map(proven, raw);
    expect(patchCoverage([], m)).toMatchObject({
      percent: null,
      coverable: 0,
      notApplicable: "the patch adds or changes no line",
      raw: { covered: 0, percent: null },
    });
    // A deletion, a binary file, a mode change: no added line.
    expect(patchCoverage([{ path: "src/pkg/a.py", added: [] }], m).notApplicable).toBe(
      "the patch adds or changes no line",
    );
    expect(patchCoverage([{ path: "docs/x.md", added: [1] }], m).notApplicable).toBe(
      "the changed file is not measured source",
    );
    expect(
      patchCoverage(
        [
          { path: "docs/x.md", added: [1] },
          { path: "tests/test_a.py", added: [1] },
        ],
        m,
      ).notApplicable,
    ).toBe("none of the 2 changed files is measured source");
    expect(patchCoverage([{ path: "src/pkg/a.py", added: [7, 9] }], m)).toMatchObject({
      percent: null,
      measuredFiles: 1,
      notApplicable: "the changed lines of 1 measured file hold no statement",
      files: [],
    });
  });

  it("a changed file measured under another name only is reported as unaligned, not counted", () => {
    const m = map([file("pkg/a.py", [1], [])]);
    const result = patchCoverage([{ path: "src/pkg/a.py", added: [1] }], m);
    expect(result.unaligned).toEqual([{ path: "src/pkg/a.py", measured: "pkg/a.py" }]);
    expect(result.coverable).toBe(0);
  });

  it("names as unaligned the first measured path, in the map's order, that one path ends with the other", () => {
    const segment = fc.constantFrom("a.py", "b.py", "pkg", "src", "x", "a", "");
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 12 }), fc.array(path, { maxLength: 6 }), (measured, changed) => {
        const m = map(measured.map((p) => file(p, [1], [])));
        const result = patchCoverage(
          changed.map((p) => ({ path: p, added: [1] })),
          m,
        );
        const expected = changed.flatMap((c) => {
          if (m.files.has(c)) return [];
          const found = [...m.files.keys()].find((p) => c.endsWith(`/${p}`) || p.endsWith(`/${c}`));
          return found === undefined ? [] : [{ path: c, measured: found }];
        });
        expect(result.unaligned).toEqual(expected.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
      }),
      { numRuns: 500, seed: 25 },
    );
  });

  it("takes the parsed diff as it is: a rename counts at its new path", () => {
    const diff = parseGitDiff(
      [
        "diff --git a/src/pkg/old_b.py b/src/pkg/b.py",
        "similarity index 80%",
        "rename from src/pkg/old_b.py",
        "rename to src/pkg/b.py",
        "index 1..2 100644",
        "--- a/src/pkg/old_b.py",
        "+++ b/src/pkg/b.py",
        "@@ -2 +2 @@",
        "-x = 1",
        "+x = 2",
      ].join("\n"),
    );
    expect(diff.errors).toEqual([]);
    const result = patchCoverage(diff.files, map(proven, raw));
    expect(result.files).toEqual([
      {
        path: "src/pkg/b.py",
        oldPath: "src/pkg/old_b.py",
        coverable: 1,
        covered: 1,
        lines: [2],
        uncovered: [],
        frozenOnly: [],
      },
    ]);
    expect(result.percent).toBe(100);
  });
});

describe("lineRanges", () => {
  it("joins consecutive lines", () => {
    expect(lineRanges([3, 4, 5, 9, 11, 12])).toBe("3-5, 9, 11-12");
    expect(lineRanges([])).toBe("");
  });
});

import type { CoverageMap, FileLines } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { errorReport, frozenOnlyFiles, type GateReport } from "@proofgate/core";
import { readViewSources, renderViews } from "./views.js";

const file = (path: string): FileLines => ({
  path,
  statements: [1],
  proven: new Set([1]),
  branches: new Map(),
  provenBranches: new Set(),
});

function mapOf(...paths: string[]): CoverageMap {
  const summary = {
    statements: 1,
    coveredLines: 1,
    branches: 0,
    coveredBranches: 0,
    percent: 100,
    lineRate: 1,
    branchRate: 1,
  };
  return { files: new Map(paths.map((p) => [p, file(p)])), proven: summary, attributed: false };
}

/** A work tree of the given texts; `size` overrides a file's size on disk. */
function tree(texts: Record<string, string>, sizes: Record<string, number> = {}) {
  const read: string[] = [];
  return {
    read,
    files: {
      stamp: (path: string) =>
        path in texts ? { mtimeMs: 0, ino: 0, size: sizes[path] ?? Buffer.byteLength(texts[path]!) } : undefined,
      readSource: (path: string) => {
        read.push(path);
        return texts[path];
      },
    },
  };
}

describe("readViewSources", () => {
  it("reads each file of the map from the work tree", () => {
    const t = tree({ "a.py": "x = 1\n", "b.py": "y = 2\n" });
    expect(readViewSources(t.files, mapOf("b.py", "a.py"))).toEqual(
      new Map([
        ["a.py", { text: "x = 1\n" }],
        ["b.py", { text: "y = 2\n" }],
      ]),
    );
  });

  it("leaves out a file over the per-file limit without reading it, and says so", () => {
    const t = tree({ "big.py": "x\n", "a.py": "a\n" }, { "big.py": 2 * 1024 * 1024 });
    const got = readViewSources(t.files, mapOf("big.py", "a.py"));
    expect(got.get("big.py")).toEqual({
      skipped: "Not shown: 2097152 bytes, over the 1.0 MB a file may have in this page.",
    });
    expect(got.get("a.py")).toEqual({ text: "a\n" });
    expect(t.read).toEqual(["a.py"]);
  });

  it("stops adding sources past the total limit, and says why for the rest", () => {
    const t = tree({ "a.py": "a".repeat(60), "b.py": "b".repeat(60), "c.py": "c" });
    const got = readViewSources(t.files, mapOf("a.py", "b.py", "c.py"), { file: 100, total: 100 });
    expect(got.get("a.py")).toEqual({ text: "a".repeat(60) });
    expect(got.get("b.py")).toEqual({ skipped: "Not shown: the page already holds 0.0 MB of source." });
    expect(got.get("c.py")).toEqual({ text: "c" });
  });

  it("gives the budget first to the files it is told (the patch's, the frozen-only ones), then the rest", () => {
    const t = tree({ "a.py": "a".repeat(60), "b.py": "b".repeat(60), "z.py": "z".repeat(60) });
    const got = readViewSources(t.files, mapOf("a.py", "b.py", "z.py"), { file: 100, total: 100 }, new Set(["z.py"]));
    expect(got.get("z.py")).toEqual({ text: "z".repeat(60) });
    expect(got.get("a.py")).toEqual({ skipped: "Not shown: the page already holds 0.0 MB of source." });
    expect(t.read).toEqual(["z.py", "a.py", "b.py"]);
  });

  it("says when a file cannot be read (deleted, or outside the work tree)", () => {
    const t = tree({});
    expect(readViewSources(t.files, mapOf("gone.py")).get("gone.py")).toEqual({
      skipped: "Not shown: the file could not be read from the work tree.",
    });
  });

  it("reads nothing without a line map", () => {
    const t = tree({ "a.py": "a" });
    expect(readViewSources(t.files, undefined).size).toBe(0);
    expect(t.read).toEqual([]);
  });
});

describe("renderViews", () => {
  it("shows first the sources of the files with lines only frozen tests run, then the rest while the budget lasts", () => {
    const big = (c: string) => `${c} = 1\n`.repeat(150_000); // 0.9 MB: three are over the page's 2 MB
    const t = tree({ "a.py": big("a"), "b.py": big("b"), "z.py": big("z") });
    const map = mapOf("a.py", "b.py", "z.py");
    map.files.set("z.py", { ...file("z.py"), statements: [1, 2], raw: new Set([1, 2]), rawBranches: new Set() });
    // The report lists z.py's frozen-only line, as core's report builder does from the map.
    const files = frozenOnlyFiles(map);
    const frozenOnly = { lines: 1, branches: 0, attributed: false, files };
    const report = {
      ...errorReport("2026-12-05", []),
      errors: [],
      coverage: { frozenOnly } as unknown as GateReport["coverage"],
    };
    const page = new Map(renderViews(report, map, t.files)).get("index.html")!;
    expect(t.read).toEqual(["z.py", "a.py", "b.py"]);
    expect(page).toContain("z = 1");
    expect(page).toContain("a = 1");
    expect(page).not.toContain("b = 1");
    expect(page).toContain("Not shown: the page already holds 2.0 MB of source.");
  });

  it("for a gate that could not evaluate: the page shows the errors, not a map; the badge says unknown", () => {
    const t = tree({ "a.py": "a = 1\n" });
    const report = errorReport("2026-12-05", [
      { code: "file_unreadable", file: "cov.json", message: "cannot read it" },
    ]);
    const views = new Map(renderViews(report, mapOf("a.py"), t.files));
    expect([...views.keys()]).toEqual(["index.html", "badge.json", "badge.svg"]);
    expect(views.get("index.html")).toContain("No line map: the gate could not evaluate.");
    expect(views.get("index.html")).toContain("<code>cov.json</code>: cannot read it");
    expect(t.read).toEqual([]);
    expect(JSON.parse(views.get("badge.json")!)).toMatchObject({ message: "unknown", color: "lightgrey" });
    expect(views.get("badge.svg")).toContain("<title>proven coverage: unknown</title>");
  });
});

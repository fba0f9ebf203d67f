import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import {
  frozenContextNames,
  numbitsToNums,
  provenCoverageFromContexts,
  provenCoverageFromContextShards,
  type ContextShard,
  type CoverageDbRows,
} from "./contexts.js";

// Fixtures made here with Debian's pytest 7.2.1, pytest-cov 4.0 and coverage.py 6.5.0 (Python 3.11):
// a `--cov-context=test` run over a module with docstrings, multi-line statements, decorators, a
// generator, try/except/finally, a while loop, a lambda, a `# pragma: no cover` and a
// `# pragma: no branch`, and a module imported only by one test. `<tag>-rows.json` holds the rows of
// `.coverage` (numbits in hex), `<tag>-full.json` is `coverage json`, and `<tag>-expected.json` holds
// the totals of `coverage json --contexts=<regex>` for several frozen sets (gen.py.txt made them; the
// sources are pkg-*.py.txt and tests-test_m.py.txt).
const fixture = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/contexts/${name}`, import.meta.url), "utf8");

interface RawRows {
  hasArcs: boolean;
  contexts: { id: number; name: string }[];
  files: { id: number; path: string }[];
  lineBits: { fileId: number; contextId: number; numbits: string }[];
  arcs: [number, number, number, number][];
}

function rows(tag: string, file = ".coverage"): CoverageDbRows {
  const raw = JSON.parse(fixture(`${tag}-rows.json`)) as RawRows;
  return {
    file,
    hasArcs: raw.hasArcs,
    contexts: raw.contexts,
    files: raw.files,
    lineBits: raw.lineBits.map((r) => ({
      fileId: r.fileId,
      contextId: r.contextId,
      numbits: Uint8Array.from(Buffer.from(r.numbits, "hex")),
    })),
    arcs: {
      fileId: raw.arcs.map((a) => a[0]),
      contextId: raw.arcs.map((a) => a[1]),
      fromno: raw.arcs.map((a) => a[2]),
      tono: raw.arcs.map((a) => a[3]),
    },
  };
}

/** The sources, by their path in the data file. */
const sourceOf = (path: string): string | undefined => {
  const m = /^\/project\/pkg\/(\w+)\.py$/.exec(path);
  return m ? fixture(`pkg-${m[1]}.py.txt`) : undefined;
};

interface Expected {
  frozen: string[];
  totals: {
    covered_lines: number;
    num_statements: number;
    num_branches?: number;
    covered_branches?: number;
    percent_covered: number;
  };
}

describe("numbitsToNums", () => {
  it("reads coverage.py's little-endian bit sets", () => {
    expect(numbitsToNums(Uint8Array.from([]))).toEqual([]);
    // coverage.numbits.nums_to_numbits([1, 2, 9, 17]) == b'\x06\x02\x02'
    expect(numbitsToNums(Uint8Array.from([0x06, 0x02, 0x02]))).toEqual([1, 2, 9, 17]);
    expect(numbitsToNums(Uint8Array.from([0x00, 0x80]))).toEqual([15]);
    expect(numbitsToNums(Uint8Array.from([0xff]))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe("frozenContextNames", () => {
  it("names the three contexts pytest-cov records per test", () => {
    expect(frozenContextNames("t.py::test_a[x|y]")).toEqual([
      "t.py::test_a[x|y]|setup",
      "t.py::test_a[x|y]|run",
      "t.py::test_a[x|y]|teardown",
    ]);
  });
});

for (const tag of ["cov65-branch", "cov65-lines"]) {
  describe(`provenCoverageFromContexts equals coverage json --contexts (${tag})`, () => {
    const expected = JSON.parse(fixture(`${tag}-expected.json`)) as Expected[];
    for (const e of expected) {
      it(`frozen: ${e.frozen.length ? e.frozen.join(", ") : "none"}`, () => {
        const result = provenCoverageFromContexts(
          rows(tag),
          fixture(`${tag}-full.json`),
          "full.json",
          e.frozen,
          sourceOf,
        );
        expect(result.errors.map(formatIssue)).toEqual([]);
        expect(result.warnings.map(formatIssue)).toEqual([]);
        const s = summarizeCoverage(result.data!);
        expect(s.statements).toBe(e.totals.num_statements);
        expect(s.coveredLines).toBe(e.totals.covered_lines);
        expect(s.branches).toBe(e.totals.num_branches ?? 0);
        expect(s.coveredBranches).toBe(e.totals.covered_branches ?? 0);
        expect(s.percent).toBe(e.totals.percent_covered);
        expect(result.data!.format).toBe("coveragepy-contexts");
        expect(result.droppedContexts).toHaveLength(3 * e.frozen.length);
      });
    }
  });
}

describe("provenCoverageFromContexts without the sources", () => {
  it("gets the same numbers, and says where a docstring could not be told from a statement (the higher reading)", () => {
    const expected = JSON.parse(fixture("cov65-branch-expected.json")) as Expected[];
    const e = expected.find((x) => x.frozen.length === 1 && x.frozen[0] === "tests/test_m.py::test_frozen")!;
    const result = provenCoverageFromContexts(
      rows("cov65-branch"),
      fixture("cov65-branch-full.json"),
      "full.json",
      e.frozen,
    );
    expect(summarizeCoverage(result.data!).percent).toBe(e.totals.percent_covered);
    // The lower reading is coverage.py's here; the higher one is kept for when a floor lies between them.
    expect(result.warnings.map(formatIssue)).toEqual([]);
    expect(result.upper?.why).toEqual(["pkg/mod.py: 2 executed line(s) may not be statements"]);
    expect(result.upper!.percent).toBeGreaterThan(e.totals.percent_covered);
  });
});

describe("provenCoverageFromContexts: frozen ids match exactly", () => {
  it("drops no context for a prefix of a test id, and reports the id as not run", () => {
    const result = provenCoverageFromContexts(rows("cov65-branch"), fixture("cov65-branch-full.json"), "full.json", [
      "tests/test_m.py::test_",
    ]);
    expect(result.droppedContexts).toEqual([]);
    expect(result.frozenNotRun).toEqual(["tests/test_m.py::test_"]);
    const all = (JSON.parse(fixture("cov65-branch-expected.json")) as Expected[])[0]!;
    expect(summarizeCoverage(result.data!).percent).toBe(all.totals.percent_covered);
  });
});

describe("provenCoverageFromContexts: bad input", () => {
  const one = (result: ReturnType<typeof provenCoverageFromContexts>) => {
    expect(result.data).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    const issue = result.errors[0]!;
    expect(issue.code).toBe("coverage_invalid");
    expect(issue.fix).toBeTruthy();
    expect(formatIssue(issue)).not.toContain("\n");
    return issue;
  };

  it("refuses a data file without test contexts", () => {
    const r = rows("cov65-branch");
    const issue = one(
      provenCoverageFromContexts(
        { ...r, contexts: [{ id: 1, name: "" }] },
        fixture("cov65-branch-full.json"),
        "full.json",
        [],
      ),
    );
    expect(issue.file).toBe(".coverage");
    expect(issue.fix).toContain("--cov-context=test");
  });

  it("refuses a report of another run: a file missing from either side", () => {
    const r = rows("cov65-branch");
    const extra = { ...r, files: [...r.files, { id: 99, path: "/project/pkg/other.py" }] };
    expect(
      one(provenCoverageFromContexts(extra, fixture("cov65-branch-full.json"), "full.json", [])).message,
    ).toContain("pkg/other.py");
    const report = JSON.parse(fixture("cov65-branch-full.json")) as { files: Record<string, unknown> };
    report.files["pkg/ghost.py"] = report.files["pkg/lazy.py"];
    expect(one(provenCoverageFromContexts(r, JSON.stringify(report), "full.json", [])).message).toContain(
      "pkg/ghost.py",
    );
  });

  it("refuses a report whose lines or branch mode differ from the data file", () => {
    const report = JSON.parse(fixture("cov65-branch-full.json")) as {
      files: Record<string, { executed_lines: number[] }>;
    };
    report.files["pkg/lazy.py"]!.executed_lines.push(8);
    expect(
      one(provenCoverageFromContexts(rows("cov65-branch"), JSON.stringify(report), "full.json", [])).message,
    ).toContain("differ");
    expect(
      one(provenCoverageFromContexts(rows("cov65-lines"), fixture("cov65-branch-full.json"), "full.json", [])).message,
    ).toContain("branch");
  });

  it("refuses a report that is not JSON", () => {
    expect(one(provenCoverageFromContexts(rows("cov65-lines"), "{", "full.json", [])).file).toBe("full.json");
  });
});

describe("provenCoverageFromContextShards: a run split into shards", () => {
  /** A shard of a lines-only run over pkg/m.py (statements 1-4), with its own report. */
  const shard = (
    o: { root: string; file: string; report: string; executed: number[]; frozenLines?: number[] },
    ctx: string,
  ): ContextShard => {
    const bits = (lines: number[]): Uint8Array => {
      const out = new Uint8Array(1);
      for (const l of lines) out[0]! |= 1 << l;
      return out;
    };
    const kept = o.executed.filter((l) => !o.frozenLines?.includes(l));
    return {
      db: {
        file: o.file,
        hasArcs: false,
        contexts: [
          { id: 1, name: "" },
          { id: 2, name: `${ctx}|run` },
          { id: 3, name: "tests/test_m.py::test_frozen|run" },
        ],
        files: [{ id: 7, path: `${o.root}/pkg/m.py` }],
        lineBits: [
          { fileId: 7, contextId: 2, numbits: bits(kept) },
          ...(o.frozenLines ? [{ fileId: 7, contextId: 3, numbits: bits(o.frozenLines) }] : []),
        ],
        arcs: { fileId: [], contextId: [], fromno: [], tono: [] },
      },
      reportFile: o.report,
      reportText: JSON.stringify({
        meta: { branch_coverage: false },
        files: {
          "pkg/m.py": {
            executed_lines: o.executed,
            missing_lines: [1, 2, 3, 4].filter((l) => !o.executed.includes(l)),
            excluded_lines: [],
            summary: { num_statements: 4, covered_lines: o.executed.length },
          },
        },
      }),
    };
  };

  it("unions the shards' lines per context, as coverage combine would, and drops the frozen test's in any shard", () => {
    // Two CI jobs checked out at different paths: the files meet by their report path.
    const a = shard({ root: "/ci/job-1", file: "cov-1.coverage", report: "cov-1.json", executed: [1, 2] }, "t::a");
    const b = shard(
      { root: "/ci/job-2", file: "cov-2.coverage", report: "cov-2.json", executed: [1, 3], frozenLines: [3] },
      "t::b",
    );
    const all = provenCoverageFromContextShards([a, b], []);
    expect(all.errors.map(formatIssue)).toEqual([]);
    expect(all.summary).toMatchObject({ statements: 4, coveredLines: 3 });
    const proven = provenCoverageFromContextShards([a, b], ["tests/test_m.py::test_frozen"]);
    expect(proven.errors).toEqual([]);
    expect(proven.summary).toMatchObject({ statements: 4, coveredLines: 2 });
    expect(proven.droppedContexts).toEqual(["tests/test_m.py::test_frozen|run"]);
    expect(proven.frozenNotRun).toEqual([]);
    // Raw keeps every context; the frozen-only line names its test.
    expect(summarizeCoverage(proven.raw!)).toMatchObject({ statements: 4, coveredLines: 3 });
    expect(proven.frozenTests?.get("pkg/m.py")?.get("3")).toEqual(["tests/test_m.py::test_frozen"]);
    expect(proven.data!.sources).toEqual(["cov-1.coverage", "cov-2.coverage", "cov-1.json", "cov-2.json"]);
    // One shard alone is that shard's coverage.
    expect(provenCoverageFromContextShards([a], []).summary).toMatchObject({ statements: 4, coveredLines: 2 });
  });

  it("refuses a shard whose report is not its own data file's (the whole run's, or another shard's)", () => {
    const full = rows("cov65-branch");
    const report = fixture("cov65-branch-full.json");
    // Shard 1: the empty context and the first half of the tests; shard 2: the rest.
    const named = full.contexts.filter((c) => c.name !== "");
    const first = new Set([
      ...full.contexts.filter((c) => c.name === "").map((c) => c.id),
      ...named.slice(0, named.length / 2).map((c) => c.id),
    ]);
    const part = (keep: (id: number) => boolean, file: string): CoverageDbRows => {
      const idx = [...Array(full.arcs.fileId.length).keys()].filter((i) => keep(full.arcs.contextId[i]!));
      return {
        ...full,
        file,
        contexts: full.contexts.filter((c) => keep(c.id) || c.name === ""),
        lineBits: full.lineBits.filter((r) => keep(r.contextId)),
        arcs: {
          fileId: idx.map((i) => full.arcs.fileId[i]!),
          contextId: idx.map((i) => full.arcs.contextId[i]!),
          fromno: idx.map((i) => full.arcs.fromno[i]!),
          tono: idx.map((i) => full.arcs.tono[i]!),
        },
      };
    };
    // The rows together are the whole run, so only the check shard by shard can see it.
    const result = provenCoverageFromContextShards(
      [
        { db: part((id) => first.has(id), "s1.coverage"), reportText: report, reportFile: "s1.json" },
        { db: part((id) => !first.has(id), "s2.coverage"), reportText: report, reportFile: "s2.json" },
      ],
      [],
      sourceOf,
    );
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "coverage_invalid", file: "s1.json" });
    expect(result.errors[0]!.message).toMatch(
      /^pkg\/\w+\.py: its executed lines differ from what s1\.coverage records: the report was not written from that data file/,
    );
    // The synthetic shards below, swapped.
    const a = shard({ root: "/p", file: "cov-1.coverage", report: "cov-1.json", executed: [1, 2] }, "t::a");
    const b = shard({ root: "/p", file: "cov-2.coverage", report: "cov-2.json", executed: [1, 3] }, "t::b");
    const swapped = provenCoverageFromContextShards(
      [
        { ...a, reportText: b.reportText },
        { ...b, reportText: a.reportText },
      ],
      [],
    );
    expect(swapped.errors.map((e) => e.file)).toEqual(["cov-1.json"]);
  });

  it("refuses shards whose reports count other code, or that mix branch and line data", () => {
    const a = shard({ root: "/p", file: "cov-1.coverage", report: "cov-1.json", executed: [1, 2] }, "t::a");
    const b = shard({ root: "/p", file: "cov-2.coverage", report: "cov-2.json", executed: [1, 3] }, "t::b");
    const other = JSON.parse(b.reportText) as { files: Record<string, { summary: { num_statements: number } }> };
    other.files["pkg/m.py"]!.summary.num_statements = 5;
    const bad = provenCoverageFromContextShards([a, { ...b, reportText: JSON.stringify(other) }], []);
    expect(bad.errors).toHaveLength(1);
    expect(formatIssue(bad.errors[0]!)).toMatch(
      /^cov-1\.json, cov-2\.json: pkg\/m\.py: the shards' reports count different code/,
    );
    const branchy = shard({ root: "/p", file: "cov-3.coverage", report: "cov-3.json", executed: [] }, "t::c");
    const mixed = provenCoverageFromContextShards(
      [
        a,
        {
          ...branchy,
          db: { ...branchy.db, hasArcs: true },
          reportText: branchy.reportText.replace('"branch_coverage":false', '"branch_coverage":true'),
        },
      ],
      [],
    );
    expect(mixed.errors.map((e) => [e.file, e.message])).toEqual([
      [
        "cov-3.coverage",
        "measured branches but cov-1.coverage did not: shards of one run measure alike (coverage combine refuses to mix them)",
      ],
    ]);
  });
});

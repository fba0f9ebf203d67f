import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage } from "../coverage-model.js";
import { formatIssue } from "../errors.js";
import { frozenContextNames, numbitsToNums, provenCoverageFromContexts, type CoverageDbRows } from "./contexts.js";

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
  it("gets the same numbers, and warns where a docstring could not be told from a statement", () => {
    const expected = JSON.parse(fixture("cov65-branch-expected.json")) as Expected[];
    const e = expected.find((x) => x.frozen.length === 1 && x.frozen[0] === "tests/test_m.py::test_frozen")!;
    const result = provenCoverageFromContexts(
      rows("cov65-branch"),
      fixture("cov65-branch-full.json"),
      "full.json",
      e.frozen,
    );
    expect(summarizeCoverage(result.data!).percent).toBe(e.totals.percent_covered);
    expect(result.warnings.map(formatIssue)).toEqual([
      expect.stringMatching(/^full\.json: pkg\/mod\.py: 2 executed line\(s\) may not be statements; .*lower figure/),
    ]);
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

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hasSets, summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readCoveragePyJson } from "./coveragepy-json-reader.js";
import { LcovStreamReader, readLcov } from "./lcov-reader.js";

/** Real tool output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const FILE = "lcov.info";

function readOk(text: string, root?: string) {
  const result = readLcov(text, FILE, root === undefined ? {} : { root });
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.data).toBeDefined();
  return { data: result.data!, warnings: result.warnings.map(formatIssue) };
}

function errorsOf(text: string): string[] {
  const result = readLcov(text, FILE);
  expect(result.data).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.file).toBe(FILE);
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

const entry = (data: CoverageData, path: string): FileCoverage => data.files.get(path) as FileCoverage;
const lines = (set: Set<string>): number[] => [...set].map(Number).sort((a, b) => a - b);

describe("readLcov: coverage.py's LCOV against its JSON report of the same run", () => {
  it.each([
    ["lcov-coveragepy-6.5-branch.info", "coveragepy-6.5-branch.json"],
    ["lcov-coveragepy-6.5-lines.info", "coveragepy-6.5-lines.json"],
    ["lcov-coveragepy-6.5-shard1.info", "coveragepy-6.5-shard1.json"],
    ["lcov-coveragepy-6.5-shard2.info", "coveragepy-6.5-shard2.json"],
    ["lcov-coveragepy-7.16.2-branch.info", "coveragepy-7.16.2-branch.json"],
  ])("%s: the same statements, covered lines and branch counts as %s", (lcov, json) => {
    const { data } = readOk(recorded(lcov));
    const reference = readCoveragePyJson(recorded(json), "coverage.json").data!;
    expect(data.format).toBe("lcov");
    expect([...data.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    for (const [path, ref] of reference.files) {
      const fc = entry(data, path);
      expect(hasSets(ref)).toBe(true);
      const r = ref as FileCoverage;
      expect(lines(fc.statements)).toEqual(lines(r.statements));
      expect(lines(fc.coveredStatements)).toEqual(lines(r.coveredStatements));
      expect([fc.branches.size, fc.coveredBranches.size]).toEqual([r.branches.size, r.coveredBranches.size]);
    }
    expect(summarizeCoverage(data)).toEqual(summarizeCoverage(reference));
    expect(data.hasBranches).toBe(reference.hasBranches);
  });

  it("6.5: LH > LF (docstring lines written as DA) is read as coverage.py meant it, with a warning", () => {
    const { data, warnings } = readOk(recorded("lcov-coveragepy-6.5-branch.info"));
    expect(lines(entry(data, "shop/__init__.py").statements)).toEqual([2]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /`LF` was taken as the statement count .*shop\/__init__\.py \(line 1\); shop\/util\/fmt\.py \(line 1\)/,
    );
    // `DA:0,1` for the empty module of a lines-only run is no statement.
    const linesOnly = readOk(recorded("lcov-coveragepy-6.5-lines.info"));
    expect(entry(linesOnly.data, "shop/util/__init__.py").statements.size).toBe(0);
  });

  it("6.5: BRDA `-` counts as not taken; 7.16.2: free-text branch fields and FN:<start>,<end>,<name>", () => {
    const v65 = readOk(recorded("lcov-coveragepy-6.5-branch.info")).data;
    const cart65 = entry(v65, "shop/cart.py");
    expect(cart65.branches.has("5:1:0")).toBe(true);
    expect(cart65.coveredBranches.has("5:1:0")).toBe(false);
    const v7 = readOk(recorded("lcov-coveragepy-7.16.2-branch.info"));
    expect(v7.warnings).toEqual([]);
    const cart = entry(v7.data, "shop/cart.py");
    expect([...cart.branches].filter((k) => k.startsWith("4:"))).toEqual(["4:0:jump to line 5", "4:0:jump to line 6"]);
    expect(cart.coveredBranches.has("4:0:jump to line 5")).toBe(false);
  });
});

describe("readLcov: vitest 4.1.12", () => {
  it("totals equal vitest's own summary (lines and branches) and its printed percentages", () => {
    const { data, warnings } = readOk(recorded("lcov-vitest-4.1.12.info"));
    expect(warnings).toEqual([]);
    expect([...data.files.keys()].sort()).toEqual(["src/cart.js", "src/unused.js", "src/util/fmt.js"]);
    const summary = JSON.parse(recorded("istanbul-vitest-4.1.12-summary.json")) as Record<
      string,
      Record<string, { total: number; covered: number }>
    >;
    const s = summarizeCoverage(data);
    expect([s.statements, s.coveredLines]).toEqual([summary.total!.lines!.total, summary.total!.lines!.covered]);
    expect([s.branches, s.coveredBranches]).toEqual([summary.total!.branches!.total, summary.total!.branches!.covered]);
    for (const [path, fc] of data.files) {
      const own = summary[`/tmp/pgcov-js/${path}`]!;
      const c = fc as FileCoverage;
      expect([c.statements.size, c.coveredStatements.size, c.branches.size, c.coveredBranches.size]).toEqual([
        own.lines!.total,
        own.lines!.covered,
        own.branches!.total,
        own.branches!.covered,
      ]);
    }
    // vitest's table: "All files | % Stmts | % Branch | % Funcs | % Lines": Istanbul cuts to 2 decimals.
    const row = /All files\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)/.exec(
      recorded("vitest-4.1.12-text-report.txt"),
    )!;
    expect(Math.floor(s.lineRate * 10000) / 100).toBe(Number(row[4]));
    expect(Math.floor(s.branchRate * 10000) / 100).toBe(Number(row[2]));
  });

  it("FN:<line>,<name> is accepted; root makes absolute SF paths relative", () => {
    const text = recorded("lcov-vitest-4.1.12.info").replace(/^SF:/gm, "SF:/tmp/pgcov-js/");
    expect([...readOk(text, "/tmp/pgcov-js").data.files.keys()].sort()).toEqual([
      "src/cart.js",
      "src/unused.js",
      "src/util/fmt.js",
    ]);
  });
});

describe("readLcov: records", () => {
  it("a file in two records (two test names) is their union; unknown keys are ignored", () => {
    const text = [
      "TN:unit",
      "SF:a.c",
      "VER:1",
      "FN:1,3,main",
      "FNL:0,1,3",
      "DA:1,1",
      "DA:2,0",
      "LF:2",
      "LH:1",
      "end_of_record",
      "TN:e2e",
      "SF:./a.c",
      "DA:1,0",
      "DA:2,5",
      "BRDA:2,e0,1,-",
      "BRDA:2,0,a, b,3",
      "BRF:2",
      "BRH:1",
      "end_of_record",
      "",
    ].join("\n");
    const { data } = readOk(text);
    const a = entry(data, "a.c");
    expect([lines(a.statements), lines(a.coveredStatements)]).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect([...a.branches]).toEqual(["2:e0:1", "2:0:a, b"]);
    expect([...a.coveredBranches]).toEqual(["2:0:a, b"]);
    expect(data.hasBranches).toBe(true);
  });
});

describe("readLcov: bad input", () => {
  const vitest = recorded("lcov-vitest-4.1.12.info");

  it("empty, not LCOV", () => {
    expect(errorsOf("")).toEqual([expect.stringContaining("empty")]);
    expect(errorsOf("TN:\n")).toEqual([expect.stringContaining("no `SF:`")]);
    expect(errorsOf("hello world\n")[0]).toMatch(/^lcov\.info:1: not an LCOV line/);
    expect(errorsOf("DA:1,1\nend_of_record\n")[0]).toMatch(/^lcov\.info:1: `DA:` outside a record/);
  });

  it("truncated: the last record has no end_of_record", () => {
    const cut = vitest.slice(0, vitest.lastIndexOf("end_of_record"));
    expect(errorsOf(cut)).toEqual([
      expect.stringMatching(
        /^lcov\.info:65: the record of `src\/util\/fmt\.js` \(from line 65\) has no `end_of_record`: the file is truncated/,
      ),
    ]);
    const midLine = vitest.slice(0, vitest.indexOf("DA:3,2") + 4);
    expect(errorsOf(midLine).join("\n")).toMatch(
      /lcov\.info:14: `DA:3` is not `DA:<line>,<count>`[\s\S]*no `end_of_record`/,
    );
  });

  it("a record without end_of_record before the next SF", () => {
    const text = vitest.replace("end_of_record\nTN:\nSF:src/unused.js", "TN:\nSF:src/unused.js");
    expect(errorsOf(text)).toEqual([
      expect.stringMatching(
        /^lcov\.info:2: the record of `src\/cart\.js` \(from line 2\) has no `end_of_record` before the next `SF:`/,
      ),
    ]);
  });

  it("negative and NaN counts, with their line", () => {
    expect(errorsOf(vitest.replace("DA:5,0", "DA:5,-1"))).toEqual([
      expect.stringMatching(/^lcov\.info:16: `DA:5,-1`: the count "-1" is negative/),
    ]);
    expect(errorsOf(vitest.replace("DA:5,0", "DA:5,NaN"))).toEqual([
      expect.stringMatching(/^lcov\.info:16: `DA:5,NaN`: the count "NaN" is not a whole number/),
    ]);
    expect(errorsOf(vitest.replace("BRDA:4,1,0,0", "BRDA:4,1,0,-2"))).toEqual([
      expect.stringMatching(/^lcov\.info:31: `BRDA:4,1,0,-2`: taken "-2" is negative/),
    ]);
    expect(errorsOf(vitest.replace("LF:15", "LF:x"))).toEqual([
      expect.stringMatching(/^lcov\.info:28: `LF:x` is not a whole number/),
    ]);
  });

  it("LF/LH/BRF/BRH that contradict the DA/BRDA lines", () => {
    expect(errorsOf(vitest.replace("LF:15", "LF:16"))).toEqual([
      expect.stringMatching(/^lcov\.info:28: `LF:16` but the record of `src\/cart\.js` has 15 `DA` lines/),
    ]);
    expect(errorsOf(vitest.replace("LH:11", "LH:12"))).toEqual([
      expect.stringMatching(
        /^lcov\.info:29: `LH:12` but the record of `src\/cart\.js` has 11 `DA` lines with a count > 0/,
      ),
    ]);
    // LF below the DA lines is coverage.py's quirk only when LH counts the hit lines, as coverage.py writes it.
    expect(errorsOf(vitest.replace("LF:15", "LF:14").replace("LH:11", "LH:10"))).toHaveLength(2);
    expect(errorsOf(vitest.replace("BRF:13", "BRF:12"))[0]).toMatch(
      /^lcov\.info:43: `BRF:12` but the record of `src\/cart\.js` has 13 `BRDA` branches/,
    );
    expect(errorsOf(vitest.replace("BRH:8", "BRH:9"))[0]).toMatch(/`BRH:9` but .* has 8 `BRDA` branches taken/);
  });

  it("a flood of bad lines: the first 20 errors, then how many more", () => {
    const text = ["SF:a.c", ...Array.from({ length: 30 }, (_, i) => `DA:${i + 1},-1`), "end_of_record"].join("\n");
    const errors = errorsOf(text);
    expect(errors).toHaveLength(21);
    expect(errors[20]).toMatch(/^lcov\.info: \.\.\. and 10 more errors in this report/);
  });

  it("lowercase or JSON text is not LCOV", () => {
    expect(errorsOf('{"meta": {"version": "6.5.0"}}')[0]).toMatch(/^lcov\.info:1: not an LCOV line/);
  });

  it("FN lines of neither form", () => {
    expect(errorsOf(vitest.replace("FN:1,total", "FN:total"))[0]).toMatch(/^lcov\.info:3: `FN:total` is neither/);
  });
});

describe("LcovStreamReader: readLcov fed in chunks", () => {
  const dump = (result: ReturnType<typeof readLcov>) => ({
    errors: result.errors.map(formatIssue),
    warnings: result.warnings.map(formatIssue),
    files: result.data
      ? [...result.data.files.values()].map((f) =>
          hasSets(f)
            ? [f.path, [...f.statements], [...f.coveredStatements], [...f.branches], [...f.coveredBranches]]
            : f,
        )
      : undefined,
    hasBranches: result.data?.hasBranches,
  });
  const streamed = (text: string, size: number, root?: string) => {
    const reader = new LcovStreamReader(FILE, root === undefined ? {} : { root });
    for (let at = 0; at < text.length; at += size) reader.push(text.slice(at, at + size));
    return reader.end();
  };

  it.each([
    "lcov-coveragepy-6.5-branch.info",
    "lcov-coveragepy-6.5-shard1.info",
    "lcov-coveragepy-7.16.2-branch.info",
    "lcov-vitest-4.1.12.info",
  ])("%s: any chunk size gives readLcov's model", (name) => {
    const text = recorded(name);
    const whole = dump(readLcov(text, FILE, { root: "/nowhere" }));
    for (const size of [1, 2, 7, 64, 1000, text.length]) expect(dump(streamed(text, size, "/nowhere"))).toEqual(whole);
  });

  it("bad input, split at every position: the same errors with the same line numbers", () => {
    const texts = [
      "",
      "  \n\r\n",
      "SF:a.py\nDA:1,1\n",
      "SF:a.py\r\nDA:1,-1\r\nDA:2,x\r\nend_of_record\r\nend_of_record",
      "TN:\nSF:a.py\nDA:1,1\nLF:3\nLH:1\nBRDA:1,0,1,-1\nend_of_record\nDA:2,1\n",
      "SF:a.py\nDA:1,1\nSF:b.py\nDA:2,0\nend_of_record\nnot lcov at all\n",
    ];
    for (const text of texts) {
      const whole = dump(readLcov(text, FILE));
      for (let cut = 0; cut <= text.length; cut++) {
        const reader = new LcovStreamReader(FILE);
        reader.push(text.slice(0, cut));
        reader.push(text.slice(cut));
        expect(dump(reader.end())).toEqual(whole);
      }
    }
  });

  it("refuses to be used after end", () => {
    const reader = new LcovStreamReader(FILE);
    reader.push("SF:a.py\nDA:1,1\nend_of_record\n");
    reader.end();
    expect(() => reader.push("x")).toThrow();
    expect(() => reader.end()).toThrow();
  });
});

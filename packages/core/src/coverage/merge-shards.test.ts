import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { CoverageShardMerger, mergeCoverageShards } from "./merge-shards.js";
import { readCoverage } from "./read-coverage.js";

/** Real tool output, see __fixtures__/README.md: shard1 and shard2 split the tests of the full run. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const read = (name: string, root?: string): CoverageData => {
  const result = readCoverage(recorded(name), name, root === undefined ? {} : { root });
  expect(result.errors.map(formatIssue)).toEqual([]);
  return result.data!;
};

function mergeErrors(shards: CoverageData[]): string[] {
  const result = mergeCoverageShards(shards);
  expect(result.data).toBeUndefined();
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

describe("mergeCoverageShards: two real shards give the full run", () => {
  it.each([
    [
      "cobertura-coveragepy-6.5-shard1.xml",
      "cobertura-coveragepy-6.5-shard2.xml",
      "cobertura-coveragepy-6.5-branch.xml",
      "/tmp/pgcov-py",
    ],
    ["coveragepy-6.5-shard1.json", "coveragepy-6.5-shard2.json", "coveragepy-6.5-branch.json", undefined],
    [
      "lcov-coveragepy-6.5-shard1.info",
      "lcov-coveragepy-6.5-shard2.info",
      "lcov-coveragepy-6.5-branch.info",
      undefined,
    ],
    [
      "istanbul-vitest-4.1.12-final-shard1.json",
      "istanbul-vitest-4.1.12-final-shard2.json",
      "istanbul-vitest-4.1.12-final.json",
      "/tmp/pgcov-js",
    ],
  ])("%s + %s = %s", (a, b, full, root) => {
    const shardA = read(a, root);
    const shardB = read(b, root);
    const before = summarizeCoverage(shardA);
    const merged = mergeCoverageShards([shardA, shardB]);
    expect(merged.errors.map(formatIssue)).toEqual([]);
    const whole = read(full, root);
    expect(summarizeCoverage(merged.data!)).toEqual(summarizeCoverage(whole));
    for (const [path, entry] of whole.files)
      expect(merged.data!.files.get(path)).toEqual({ ...(entry as FileCoverage) });
    expect(merged.data!.sources).toEqual([a, b]);
    expect(merged.data!.format).toBe(whole.format);
    // The inputs are not modified.
    expect(summarizeCoverage(shardA)).toEqual(before);
  });

  it("a file in one shard only is kept; one shard is itself", () => {
    const a = read("coveragepy-6.5-shard1.json");
    const onlyCart: CoverageData = {
      ...a,
      sources: ["part.json"],
      files: new Map([...a.files].filter(([p]) => p === "shop/cart.py")),
    };
    const b = read("coveragepy-6.5-shard2.json");
    const merged = mergeCoverageShards([onlyCart, b]).data!;
    expect(merged.files.size).toBe(4);
    expect(summarizeCoverage(mergeCoverageShards([a]).data!)).toEqual(summarizeCoverage(a));
  });
});

describe("mergeCoverageShards: bad input", () => {
  it("two shards that disagree on a file's statements: both named, with the path and the lines", () => {
    const a = read("cobertura-coveragepy-6.5-shard1.xml");
    const b = read("cobertura-coveragepy-6.5-shard2.xml");
    (b.files.get("shop/cart.py") as FileCoverage).statements.add("99");
    expect(mergeErrors([a, b])).toEqual([
      expect.stringMatching(
        /^cobertura-coveragepy-6\.5-shard2\.xml: cobertura-coveragepy-6\.5-shard1\.xml and cobertura-coveragepy-6\.5-shard2\.xml disagree on the statements of `shop\/cart\.py` \(only the second has 99\): not the same code/,
      ),
    ]);
  });

  it("and on its branches", () => {
    const a = read("istanbul-vitest-4.1.12-final-shard1.json", "/tmp/pgcov-js");
    const b = read("istanbul-vitest-4.1.12-final-shard2.json", "/tmp/pgcov-js");
    (a.files.get("src/util/fmt.js") as FileCoverage).branches.delete("b0:1");
    expect(mergeErrors([a, b])[0]).toMatch(
      /disagree on the branches of `src\/util\/fmt\.js` \(only the second has b0:1\)/,
    );
  });

  it("coverage.py JSON shards get a hint about docstring lines", () => {
    const a = read("coveragepy-6.5-shard1.json");
    const b = read("coveragepy-6.5-shard2.json");
    (b.files.get("shop/util/fmt.py") as FileCoverage).statements.delete("2");
    expect(mergeErrors([a, b])[0]).toMatch(
      /statements of `shop\/util\/fmt\.py` \(only the first has 2\).*merge its Cobertura XML reports/,
    );
  });

  it("counts-only entries for the same path in two shards", () => {
    const s = read("istanbul-vitest-4.1.12-summary.json", "/tmp/pgcov-js");
    const t: CoverageData = { ...s, sources: ["other-summary.json"] };
    const errors = mergeErrors([s, t]);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(
      /^other-summary\.json: `src\/cart\.js` is in istanbul-vitest-4\.1\.12-summary\.json and in other-summary\.json as counts only: counts cannot be united/,
    );
  });

  it("different formats, different branch settings, no shards", () => {
    expect(mergeErrors([read("coveragepy-6.5-branch.json"), read("cobertura-coveragepy-6.5-branch.xml")])).toEqual([
      expect.stringMatching(
        /^cobertura-coveragepy-6\.5-branch\.xml: this shard is cobertura but coveragepy-6\.5-branch\.json is coveragepy-json: shards of different formats cannot be merged/,
      ),
    ]);
    expect(mergeErrors([read("coveragepy-6.5-branch.json"), read("coveragepy-6.5-lines.json")])[0]).toMatch(
      /this shard did not measure branches but coveragepy-6\.5-branch\.json did/,
    );
    expect(mergeErrors([])[0]).toMatch(/no coverage shards/);
  });
});

describe("CoverageShardMerger: one shard at a time", () => {
  const dump = (result: ReturnType<typeof mergeCoverageShards>) => ({
    errors: result.errors.map(formatIssue),
    sources: result.data?.sources,
    summary: result.data ? summarizeCoverage(result.data) : undefined,
    files: result.data
      ? [...result.data.files.values()].map((f) =>
          JSON.stringify(f, (_, v: unknown) => (v instanceof Set ? [...(v as Set<string>)] : v)),
        )
      : undefined,
  });

  it("adding the shards in order is mergeCoverageShards of them, with or without consume", () => {
    const names = ["lcov-coveragepy-6.5-shard1.info", "lcov-coveragepy-6.5-shard2.info"];
    const expected = dump(mergeCoverageShards(names.map((n) => read(n))));
    for (const consume of [false, true]) {
      const merger = new CoverageShardMerger();
      for (const n of names) merger.add(read(n), { consume });
      expect(dump(merger.result())).toEqual(expected);
    }
  });

  it("errors are the same as mergeCoverageShards': format mismatches first, then disagreements", () => {
    const lcov = read("lcov-coveragepy-6.5-shard1.info");
    const cobertura = read("cobertura-coveragepy-6.5-shard1.xml");
    const lines = read("lcov-coveragepy-6.5-lines.info");
    for (const shards of [
      [lcov, cobertura],
      [lcov, lines],
      [lcov, read("lcov-coveragepy-6.5-shard2.info"), cobertura],
      [],
    ]) {
      const merger = new CoverageShardMerger();
      for (const shard of shards) merger.add(shard);
      expect(dump(merger.result())).toEqual(dump(mergeCoverageShards(shards)));
    }
  });
});

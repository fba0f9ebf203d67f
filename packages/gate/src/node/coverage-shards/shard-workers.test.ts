// Coverage shards read in worker threads (shard-workers.ts) give exactly what the main thread's reading gives:
// the same totals, line map, measured files and digests on real coverage.py 6.5 shards and on generated ones;
// and where a report is bad (an edited summary, shards of other code across the workers' halves, not UTF-8,
// LCOV among the JSON, a missing file, a FIFO), the same error, because the workers decline and the main
// thread reads every report itself. The workers run the built script (dist/), as the CLI ships it.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { GateError } from "@proofgate/core";
import { loadProvenCoverage, type CoveragePorts } from "../../sources/coverage.js";
import { nodeFiles } from "../files.js";
import { readCoverageDataFile } from "../coverage-data-file.js";
import { assembleShards, nodeCoverageShards } from "./shard-workers.js";
import { packReply, readShards, type ShardsMerged } from "./shard-worker.js";
import { claimFirst, claimLast, claimRest, newClaims, packCoverage, unpackCoverage } from "./shard-protocol.js";
import type { CoverageShardReader } from "../../ports.js";
import { coveragePyJson, type RunFile } from "../../testing/coveragepy-report.js";

const WORKER = new URL("../../../dist/node/coverage-shards/shard-worker.js", import.meta.url);
const FIXTURES = new URL("../../../../core/src/coverage/__fixtures__/", import.meta.url);

const dir = mkdtempSync(join(tmpdir(), "proofgate-shard-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = nodeFiles(dir);

/** The ports with workers (every size worth them), and a count of the reads they answered. */
function withWorkers(options: { url?: URL } = {}): CoveragePorts & { answered: () => number } {
  const reader = nodeCoverageShards({ absolute: files.absolute, root: dir, minBytes: 0, url: WORKER, ...options });
  let answered = 0;
  const counting: CoverageShardReader = {
    prefetch: (reports, format) => reader.prefetch(reports, format),
    read: (reports, format) =>
      reader.read(reports, format)?.then((r) => {
        if (r) answered++;
        return r;
      }),
  };
  return {
    files,
    coverageData: (path) => readCoverageDataFile(path, dir),
    coverageShards: counting,
    answered: () => answered,
  };
}
const alone: CoveragePorts = { files, coverageData: (path) => readCoverageDataFile(path, dir) };

/** What a load gives, in plain values (or the error's issues). */
async function outcome(reports: string[], ports: CoveragePorts): Promise<unknown> {
  try {
    const loaded = await loadProvenCoverage({ reports, frozen: [], shards: reports.length }, ports);
    return {
      coverage: loaded.coverage,
      files: loaded.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
      warnings: loaded.warnings,
      measured: loaded.measuredFiles,
    };
  } catch (error) {
    if (!GateError.isInstance(error)) throw error;
    return { issues: error.issues };
  }
}

/** A suite's code: per module, its statements and branch arcs (every shard of one run measures the same). */
const codeArb = fc.dictionary(
  fc.stringMatching(/^pkg\/[a-z]{1,6}\.py$/),
  fc
    .uniqueArray(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 30 })
    .chain((statements) =>
      fc.record({
        statements: fc.constant(statements),
        branches: fc.uniqueArray(
          fc.tuple(fc.constantFrom(...statements), fc.oneof(fc.constantFrom(...statements), fc.constant(-1))),
          { maxLength: 8, selector: ([a, b]) => `${a}>${b}` },
        ),
      }),
    )
    .map((c) => ({ ...c, branches: c.branches.filter(([a, b]) => a !== b) })),
  { minKeys: 1, maxKeys: 12 },
);

/** `count` shards of `code`: each lists the modules it ran (a random subset), with a random part executed. */
const shardsArb = (count: fc.Arbitrary<number>) =>
  fc.tuple(codeArb, count).chain(([code, n]) =>
    fc
      .array(
        fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: Object.keys(code).length,
          maxLength: Object.keys(code).length,
        }),
        { minLength: n, maxLength: n },
      )
      .map((draws) =>
        draws.map((perModule) => {
          const run: Record<string, RunFile> = {};
          Object.entries(code).forEach(([path, c], i) => {
            const [listed, share] = perModule[i]!;
            if (!listed && i > 0) return;
            const cut = Math.round(c.statements.length * share);
            run[path] = {
              statements: c.statements,
              executed: c.statements.slice(0, cut),
              branches: c.branches,
              taken: c.branches.filter((_, k) => k < Math.round(c.branches.length * share)),
            };
          });
          return coveragePyJson(run);
        }),
      ),
  );

let written = 0;
/** Writes the shards to new files; their names. */
function writeShards(texts: readonly (string | Uint8Array)[]): string[] {
  const folder = `run-${written++}`;
  mkdirSync(join(dir, folder));
  return texts.map((text, i) => {
    const name = `${folder}/shard-${i + 1}.json`;
    writeFileSync(join(dir, name), text);
    return name;
  });
}

const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), "utf8");

describe("coverage shards read in worker threads", () => {
  it("real coverage.py 6.5 shards: the same totals, map, files and digests as the main thread's reading", async () => {
    const reports = writeShards([
      fixture("coveragepy-6.5-shard1.json"),
      fixture("coveragepy-6.5-shard2.json"),
      fixture("coveragepy-6.5-shard1.json"),
    ]);
    const ports = withWorkers();
    const expected = await outcome(reports, alone);
    expect(expected).toHaveProperty("coverage.source", "shards");
    expect(await outcome(reports, ports)).toEqual(expected);
    expect(ports.answered()).toBe(1);
  });

  it("generated runs of 2 to 9 shards, read by the worker from the first and this thread from the last: exactly the main thread's model", async () => {
    const ports = withWorkers();
    await fc.assert(
      fc.asyncProperty(shardsArb(fc.integer({ min: 2, max: 9 })), async (texts) => {
        const reports = writeShards(texts);
        const expected = await outcome(reports, alone);
        expect(expected).toHaveProperty("coverage.statements");
        expect(await outcome(reports, ports)).toEqual(expected);
      }),
      { numRuns: 25, seed: 2512 },
    );
    expect(ports.answered()).toBe(25);
  });

  it("split anywhere between the worker's first run and this thread's last shards: the main thread's model", async () => {
    await fc.assert(
      fc.asyncProperty(shardsArb(fc.integer({ min: 2, max: 7 })), fc.nat(), async (texts, cut) => {
        const reports = writeShards(texts);
        const shards = reports.map((path) => ({ path, absolute: files.absolute(path) }));
        const claims = newClaims(shards.length)!;
        // This thread takes the last `mine` shards (down from the last), the worker the rest from the first.
        const mine: ShardsMerged[] = [];
        for (let k = 0; k < cut % (shards.length + 1); k++)
          mine.push(readShards({ shards: [shards[claimLast(claims)!]!], root: dir }));
        const theirs = packReply(readShards({ shards, root: dir, claims }));
        const read = assembleShards(theirs, mine.reverse(), shards.length);
        expect(read?.sha256).toHaveLength(shards.length);
        const split: CoverageShardReader = { prefetch: () => {}, read: async () => read };
        expect(await outcome(reports, { ...alone, coverageShards: split })).toEqual(await outcome(reports, alone));
      }),
      { numRuns: 30, seed: 2507 },
    );
  });

  it("the two ends do not make up every shard (a worker that failed after claiming some): read here", () => {
    const reports = writeShards(real());
    const shards = reports.map((path) => ({ path, absolute: files.absolute(path) }));
    const last = readShards({ shards: [shards[1]!], root: dir });
    expect(assembleShards({ kind: "declined", why: "the worker failed" }, [last], 2)).toBeUndefined();
    expect(
      assembleShards(
        { kind: "declined", why: "did not start" },
        [readShards({ shards: [shards[0]!], root: dir }), last],
        2,
      ),
    ).toBeDefined();
    expect(assembleShards(packReply(readShards({ shards: [shards[0]!], root: dir })), [], 2)).toBeUndefined();
  });

  const real = (): string[] => [fixture("coveragepy-6.5-shard1.json"), fixture("coveragepy-6.5-shard2.json")];
  // What the main thread says, and whether the workers answered (the halves merge on the main thread).
  const bad: [string, () => (string | Uint8Array)[], string, number][] = [
    [
      "a summary edited in the last shard",
      () => {
        const edited = JSON.parse(fixture("coveragepy-6.5-shard2.json"));
        edited.files["shop/cart.py"].summary.covered_lines++;
        return [...real(), JSON.stringify(edited)];
      },
      "coverage_invalid",
      0,
    ],
    [
      "a shard of other code in the second worker's half (one more statement)",
      () => {
        const other = JSON.parse(fixture("coveragepy-6.5-shard2.json"));
        const cart = other.files["shop/cart.py"];
        cart.missing_lines.push(999);
        cart.summary.num_statements++;
        cart.summary.missing_lines++;
        other.totals.num_statements++;
        other.totals.missing_lines++;
        const t = other.totals;
        t.percent_covered = (100 * (t.covered_lines + t.covered_branches)) / (t.num_statements + t.num_branches);
        return [...real(), JSON.stringify(other)];
      },
      "coverage_invalid",
      1,
    ],
    ["a shard that is not UTF-8", () => [...real(), Buffer.from([0x7b, 0xff, 0xfe, 0x7d])], "file_unreadable", 0],
    [
      "an LCOV shard among the JSON ones",
      () => [...real(), fixture("lcov-coveragepy-6.5-shard1.info")],
      "coverage_invalid",
      0,
    ],
    [
      "an Istanbul report among them",
      () => [...real(), fixture("istanbul-vitest-4.1.12-final-shard1.json")],
      "coverage_invalid",
      0,
    ],
  ];
  for (const [what, texts, code, answered] of bad) {
    it(`${what}: the same answer as the main thread's reading`, async () => {
      const reports = writeShards(texts());
      const ports = withWorkers();
      const expected = await outcome(reports, alone);
      expect(expected).toHaveProperty("issues.0.code", code);
      expect(await outcome(reports, ports)).toEqual(expected);
      expect(ports.answered()).toBe(answered);
    });
  }

  it("a missing shard and a FIFO named as one: the main thread's errors, and the workers never read a FIFO", async () => {
    const reports = writeShards(real());
    const missing = [...reports, "run-missing/shard-9.json"];
    expect(await outcome(missing, alone)).toHaveProperty("issues.0.code", "file_missing");
    expect(await outcome(missing, withWorkers())).toEqual(await outcome(missing, alone));
    execFileSync("mkfifo", [join(dir, "fifo.json")]);
    const reader = nodeCoverageShards({ absolute: files.absolute, root: dir, minBytes: 0, url: WORKER });
    expect(reader.read([...reports, "fifo.json"], undefined)).toBeUndefined();
  });

  it("a worker script that does not start: this thread reads every shard, with the same answer", async () => {
    const reports = writeShards(real());
    const ports = withWorkers({ url: new URL("./no-such-worker.js", WORKER) });
    expect(await outcome(reports, ports)).toEqual(await outcome(reports, alone));
    expect(ports.answered()).toBe(1);
  });

  it("a prefetch is what a read of the same reports answers; a read of others stops it and reads them", async () => {
    const first = writeShards(real());
    const second = writeShards([...real(), fixture("coveragepy-6.5-shard1.json")]);
    const reader = nodeCoverageShards({ absolute: files.absolute, root: dir, minBytes: 0, url: WORKER });
    reader.prefetch(first, undefined);
    // The worker read both while this thread did nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const a = await reader.read(first, undefined);
    expect(a?.sha256).toHaveLength(2);
    expect(a?.parts).toHaveLength(1);
    reader.prefetch(first, undefined);
    const b = await reader.read(second, undefined);
    expect(b?.sha256).toHaveLength(3);
    expect(b?.parts.flatMap((p) => p.sources)).toEqual(second);
  });

  it("a shard of gigabytes (a sparse file here) is never read ahead: the main thread's reading meets it", () => {
    const reports = writeShards(real());
    truncateSync(join(dir, reports[1]!), 600 * 1024 * 1024);
    const reader = nodeCoverageShards({ absolute: files.absolute, root: dir, minBytes: 0, url: WORKER });
    reader.prefetch(reports, undefined);
    expect(reader.read(reports, undefined)).toBeUndefined();
  });

  it("too few bytes to be worth a worker: the main thread reads them", () => {
    const reports = writeShards(real());
    const reader = nodeCoverageShards({ absolute: files.absolute, root: dir, url: WORKER });
    expect(reader.read(reports, undefined)).toBeUndefined();
  });
});

describe("the claims of the two ends", () => {
  it("each shard is claimed once, the first end's a run from 0 and the last end's a run down from the last", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.array(fc.boolean(), { maxLength: 60 }), (count, ends) => {
        const claims = newClaims(count)!;
        const first: number[] = [];
        const last: number[] = [];
        for (const fromFirst of ends) {
          const i = fromFirst ? claimFirst(claims) : claimLast(claims);
          if (i !== undefined) (fromFirst ? first : last).push(i);
        }
        expect(first).toEqual(first.map((_, k) => k));
        expect(last).toEqual(last.map((_, k) => count - 1 - k));
        expect(first.length + last.length).toBe(Math.min(count, ends.length));
        claimRest(claims);
        expect(claimFirst(claims)).toBeUndefined();
        expect(claimLast(claims)).toBeUndefined();
      }),
      { numRuns: 500, seed: 25 },
    );
    expect(newClaims(70_000)).toBeUndefined();
  });
});

describe("the packing of a merged model", () => {
  it("gives back the same files, keys and set orders", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            path: fc.string({ minLength: 1 }),
            lines: fc.uniqueArray(fc.integer({ min: 0, max: 1 << 20 })),
            arcs: fc.uniqueArray(
              fc.tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: -99999, max: 99999 })),
              {
                selector: ([a, b]) => `${a}>${b}`,
              },
            ),
          }),
          { maxLength: 20, selector: (f) => f.path },
        ),
        (entries) => {
          const files = new Map(
            entries.map((e) => {
              const lines = e.lines.map(String);
              const arcs = e.arcs.map(([a, b]) => `${a}>${b}`);
              return [
                e.path,
                {
                  path: e.path,
                  statements: new Set(lines),
                  coveredStatements: new Set(lines.slice(0, 3)),
                  branches: new Set(arcs),
                  coveredBranches: new Set(arcs.slice(1)),
                },
              ];
            }),
          );
          const data = { format: "coveragepy-json" as const, sources: ["a.json", "b.json"], files, hasBranches: true };
          const packed = packCoverage(data);
          expect(packed).toBeDefined();
          const back = unpackCoverage(packed!);
          expect(back).toEqual(data);
          for (const [path, entry] of back.files)
            expect([...(entry.statements as Set<string>)]).toEqual([...(files.get(path)!.statements as Set<string>)]);
        },
      ),
      { numRuns: 300, seed: 25 },
    );
  });

  it("refuses a key that is not a coverage.py line or arc, and another format", () => {
    const model = (statements: string[], branches: string[] = []) => ({
      format: "coveragepy-json" as const,
      sources: [],
      hasBranches: true,
      files: new Map([
        [
          "a.py",
          {
            path: "a.py",
            statements: new Set(statements),
            coveredStatements: new Set<string>(),
            branches: new Set(branches),
            coveredBranches: new Set<string>(),
          },
        ],
      ]),
    });
    expect(packCoverage(model(["1", "2"], ["1>-1"]))).toBeDefined();
    for (const [statements, branches] of [
      [["01"]],
      [["1.5"]],
      [["x"]],
      [["1"], ["1>"]],
      [["1"], [">2"]],
      [["1"], ["1>02"]],
    ] as [string[], string[]?][])
      expect(packCoverage(model(statements, branches))).toBeUndefined();
    expect(packCoverage({ ...model(["1"]), format: "lcov" })).toBeUndefined();
  });
});

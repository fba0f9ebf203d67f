// The LCOV path of loadProvenCoverage streams reports over 64 KiB (read in chunks, merged shard by
// shard): its numbers, errors and digests must be those of reading each report whole.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GateError, mergeCoverageShards, readLcov, summarizeCoverage, type CoverageData } from "@proofgate/core";
import { loadProvenCoverage } from "./coverage.js";
import { nodeFiles } from "../node/files.js";
import { readCoverageDataFile } from "../node/coverage-data-file.js";

const dir = mkdtempSync(join(tmpdir(), "proofgate-lcov-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ports = { files: nodeFiles(dir), coverageData: (path: string) => readCoverageDataFile(path, dir) };

/** A shard of `files` records, shard `s` of `n` covering every n-th line; well over 64 KiB. */
function shard(s: number, n: number, files = 120): string {
  let text = "";
  for (let f = 0; f < files; f++) {
    text += `TN:\nSF:${join(dir, `src/m${f}.ts`)}\n`;
    for (let line = 1; line <= 60; line++) text += `DA:${line},${(line + f) % n === s ? 2 : 0}\n`;
    for (let line = 5; line <= 60; line += 10)
      for (const b of [0, 1]) text += `BRDA:${line},0,${b},${(line + b + f) % n === s ? 1 : "-"}\n`;
    text += "end_of_record\n";
  }
  return text;
}

const write = (name: string, text: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function errorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (GateError.isInstance(error)) return JSON.stringify(error.issues);
    throw error;
  }
  throw new Error("no error");
}

describe("loadProvenCoverage: LCOV shards over 64 KiB are streamed", () => {
  it("the same totals as readLcov + mergeCoverageShards on the whole texts, and the files' digests", async () => {
    const paths = [0, 1, 2].map((s) => write(`shard${s}.info`, shard(s, 4)));
    for (const p of paths) expect(readFileSync(p).length).toBeGreaterThan(64 * 1024);
    const parsed = paths.map((p) => readLcov(readFileSync(p, "utf8"), p, { root: dir }).data as CoverageData);
    const expected = summarizeCoverage(mergeCoverageShards(parsed).data!);
    const loaded = await loadProvenCoverage({ reports: paths, frozen: [] }, ports);
    expect(loaded.coverage).toMatchObject({ source: "shards", files: paths, format: "lcov", ...expected });
    expect(loaded.coverage.coveredLines).toBeLessThan(loaded.coverage.statements);
    expect(loaded.files.map((f) => f.sha256)).toEqual(
      paths.map((p) => createHash("sha256").update(readFileSync(p)).digest("hex")),
    );
    // One big report alone is streamed too, and is its own total.
    const one = await loadProvenCoverage({ reports: [paths[0]!], frozen: [] }, ports);
    expect(one.coverage).toMatchObject({ source: "report", ...summarizeCoverage(parsed[0]!) });
  });

  it("a truncated big shard: readLcov's error, with its line", async () => {
    const text = shard(0, 2).replace(/end_of_record\n$/, "");
    const bad = write("truncated.info", text);
    const good = write("good.info", shard(1, 2));
    const message = await errorOf(loadProvenCoverage({ reports: [good, bad], frozen: [] }, ports));
    const expected = readLcov(text, bad, { root: dir }).errors[0]!;
    expect(message).toContain(expected.message);
    expect(message).toContain(`"line":${expected.line}`);
  });

  it("a big shard that is not UTF-8: file_unreadable, as when read whole", async () => {
    const bytes = Buffer.concat([Buffer.from(shard(0, 2)), Buffer.from([0xff, 0xfe, 0x0a])]);
    const bad = write("latin.info", bytes);
    const message = await errorOf(loadProvenCoverage({ reports: [bad], frozen: [] }, ports));
    expect(message).toContain("file_unreadable");
    expect(message).toContain("not UTF-8");
  });

  it("shards that disagree on a file's statements: the merge error names both", async () => {
    const a = write("a.info", shard(0, 2));
    const b = write(
      "b.info",
      shard(1, 2).replace(`SF:${join(dir, "src/m0.ts")}\nDA:1,`, `SF:${join(dir, "src/m0.ts")}\nDA:999,0\nDA:1,`),
    );
    const message = await errorOf(loadProvenCoverage({ reports: [a, b], frozen: [] }, ports));
    expect(message).toContain("disagree on the statements of `src/m0.ts`");
  });
});

// hashBatch on its own (what a hash worker and the main thread do with a batch): digests, lock lines, and
// the files that cannot be hashed, by index.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashBatch } from "./hash-batch.js";
import { PATH_SEPARATOR } from "./hash-protocol.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), "proofgate-hash-batch-"));
  dirs.push(root);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

describe("hashBatch", () => {
  it("hashes every file of its groups in order: digests as bytes, lock lines as sha256sum writes them", () => {
    const big = Buffer.alloc(300_000, 7);
    const root = tree({ "a/x.txt": "x\n", "a/empty": "", "b/big.bin": big });
    const reply = hashBatch({
      id: 7,
      job: { root, follow: false, bufferSize: 64 * 1024 },
      groups: [
        { folder: "a/", names: ["empty", "x.txt"].join(PATH_SEPARATOR) },
        { folder: "", names: "b/big.bin" },
      ],
    });
    expect(reply.id).toBe(7);
    expect(reply.errors).toEqual([]);
    const expected = [sha256(""), sha256("x\n"), sha256(big)];
    expect(Buffer.from(reply.digests).toString("hex")).toBe(expected.join(""));
    expect(Buffer.from(reply.lines).toString("utf8")).toBe(
      `${expected[0]}  a/empty\n${expected[1]}  a/x.txt\n${expected[2]}  b/big.bin\n`,
    );
  });

  it("a file that is gone, a folder, and a FIFO swapped in (nothing to read) are errors by index, not digests", () => {
    const root = tree({ "ok.txt": "ok", "dir/inner": "i" });
    expect(spawnSync("mkfifo", [join(root, "pipe")]).status).toBe(0);
    const reply = hashBatch({
      id: 1,
      job: { root, follow: false, bufferSize: 1024 },
      groups: [{ folder: "", names: ["gone", "dir", "pipe", "ok.txt"].join(PATH_SEPARATOR) }],
    });
    expect(reply.errors.map((e) => [e.index, e.code])).toEqual([
      [0, "ENOENT"],
      [1, "EISDIR"],
      [2, "ENOTREG"],
    ]);
    expect(Buffer.from(reply.lines).toString("utf8")).toBe(`${sha256("ok")}  ok.txt\n`);
  });
});

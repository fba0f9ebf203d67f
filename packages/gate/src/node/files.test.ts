import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeAtomic } from "./files.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "proofgate-io-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("writeAtomic", () => {
  it("writes bytes given in pieces as one file, past writev's 1,024 pieces, and leaves no temp file", () => {
    const pieces = Array.from({ length: 3000 }, (_v, i) => Buffer.from(`line ${i} \u00e9\n`, "utf8"));
    const path = join(dir, "sub", "out.lock");
    writeAtomic(path, pieces);
    expect(readFileSync(path)).toEqual(Buffer.concat(pieces));
    writeAtomic(path, [new Uint8Array(0)]);
    expect(readFileSync(path).length).toBe(0);
    writeAtomic(path, "text\n");
    expect(readFileSync(path, "utf8")).toBe("text\n");
    expect(readdirSync(join(dir, "sub"))).toEqual(["out.lock"]);
  });

  it("an unwritable place is a GateError naming the file", () => {
    const path = join(dir, "file", "out.lock");
    writeAtomic(join(dir, "file"), "not a folder\n");
    expect(() => writeAtomic(path, [Buffer.from("x")])).toThrow(/cannot write/);
  });
});

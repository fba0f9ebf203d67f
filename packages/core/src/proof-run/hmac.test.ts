import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiBytes, equalInConstantTime, fromHex, hmacSha256, sha256, toHex } from "./hmac.js";

describe("sha256 and hmacSha256 agree with node:crypto", () => {
  it("hashes the FIPS 180-4 examples", () => {
    expect(toHex(sha256(asciiBytes("abc")!))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(toHex(sha256(new Uint8Array()))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("hashes every length around the 55/56/64-byte padding edges the same", () => {
    for (let n = 0; n <= 200; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(toHex(sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
    }
  });

  it("gives the same HMAC for random keys (short, 64 bytes, longer than a block) and messages", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), fc.uint8Array({ maxLength: 3000 }), (key, message) => {
        expect(toHex(hmacSha256(key, message))).toBe(createHmac("sha256", key).update(message).digest("hex"));
      }),
      { numRuns: 300 },
    );
  });
});

describe("hex and comparison helpers", () => {
  it("reads even-length hex only", () => {
    expect(fromHex("00ff10")).toEqual(Uint8Array.from([0, 255, 16]));
    expect(fromHex("0")).toBeUndefined();
    expect(fromHex("zz")).toBeUndefined();
  });

  it("refuses non-ASCII text as bytes", () => {
    expect(asciiBytes("é")).toBeUndefined();
  });

  it("compares strings of different lengths as different", () => {
    expect(equalInConstantTime("abc", "abc")).toBe(true);
    expect(equalInConstantTime("abc", "abd")).toBe(false);
    expect(equalInConstantTime("abc", "abcd")).toBe(false);
    expect(equalInConstantTime("", "a")).toBe(false);
  });
});

import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, pythonJsonString } from "./canonical-json.js";

// Debian's Python: the plugin signs what its json.dumps writes, so this side must write the same bytes.
const PYTHON = "/usr/bin/python3";
const DUMPS = `import json, sys
for line in sys.stdin:
    value = json.loads(line)
    print(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False))`;

function pythonCanonical(values: unknown[]): string[] {
  // JSON.stringify escapes lone surrogates, so every value travels as one ASCII-safe line.
  const input = values.map((v) => JSON.stringify(v)).join("\n") + "\n";
  return execFileSync(PYTHON, ["-c", DUMPS], { input, encoding: "utf8" }).trimEnd().split("\n");
}

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\u0000", "\u001f", "\u007f", '"', "\\", "\u2028", "\ud800", "\udc00", "😀", "é"),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  ),
});
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("canonicalJson writes what Python's json.dumps(sort_keys, compact, ensure_ascii) writes", () => {
  it("for random values with every kind of character, key order and nesting", () => {
    const samples = fc.sample(value, { numRuns: 400, seed: 15 });
    const expected = pythonCanonical(samples);
    samples.forEach((sample, i) => expect(canonicalJson(sample)).toBe(expected[i]));
  });

  it("sorts keys by code point, as Python does, not by UTF-16 unit", () => {
    const sample = { "\uffff": 1, "😀": 2, a: 3 };
    expect(canonicalJson(sample)).toBe(pythonCanonical([sample])[0]);
    expect(canonicalJson(sample)).toBe('{"a":3,"\\uffff":1,"\\ud83d\\ude00":2}');
  });

  it("refuses what the plugin never writes: fractions and unsafe integers", () => {
    expect(canonicalJson({ a: 1.5 })).toBeUndefined();
    expect(canonicalJson([2 ** 53])).toBeUndefined();
    expect(canonicalJson({ a: undefined })).toBeUndefined();
  });

  it("escapes DEL and C0 controls as Python does", () => {
    expect(pythonJsonString("\u007f\u0001\b\t")).toBe('"\\u007f\\u0001\\b\\t"');
  });
});

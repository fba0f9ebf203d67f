import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PyFloat, toPythonJson } from "./python-json.js";

const PYTHON = "/usr/bin/python3";
const hasPython = existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import json"]).status === 0;
const python = (code: string): string => execFileSync(PYTHON, ["-c", code], { encoding: "utf8" });

describe("toPythonJson: floats as Python prints them", () => {
  it.each([
    [70, "70.0"],
    [71.6, "71.6"],
    [0, "0.0"],
    [100, "100.0"],
    [73.6842105263158, "73.6842105263158"],
    [76.92307692307692, "76.92307692307692"],
    [0.1 + 0.2, "0.30000000000000004"],
    [-2.5, "-2.5"],
    [5e-5, "5e-05"],
    [1.5e-7, "1.5e-07"],
    [0.0001, "0.0001"],
    [1e16, "1e+16"],
    [1.5e16, "1.5e+16"],
    [123456789012345.6, "123456789012345.6"],
    [1e22, "1e+22"],
  ])("PyFloat(%d) -> %s", (value, text) => {
    expect(toPythonJson(new PyFloat(value))).toBe(text);
  });

  it("keeps integers as integers", () => {
    expect(toPythonJson({ a: 70, b: 0, c: -3 })).toBe('{\n  "a": 70,\n  "b": 0,\n  "c": -3\n}');
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [Number.NEGATIVE_INFINITY]])(
    "refuses %d: JSON has no form for it",
    (value) => {
      expect(() => toPythonJson(new PyFloat(value))).toThrow(RangeError);
      expect(() => toPythonJson(value)).toThrow(RangeError);
    },
  );
});

describe("toPythonJson: strings as json.dumps escapes them", () => {
  it.each([
    ["plain", '"plain"'],
    ["café", '"caf\\u00e9"'],
    ["日本", '"\\u65e5\\u672c"'],
    ["😀", '"\\ud83d\\ude00"'],
    ["\u007f", '"\\u007f"'],
    ["\u2028", '"\\u2028"'],
    ['q"b\\s', '"q\\"b\\\\s"'],
    ["a\nb\tc\r\b\f", '"a\\nb\\tc\\r\\b\\f"'],
    ["\u0001", '"\\u0001"'],
    ["caf\\xe9", '"caf\\\\xe9"'],
    ["a/b", '"a/b"'],
  ])("%j -> %s", (text, json) => {
    expect(toPythonJson(text)).toBe(json);
  });
});

describe("toPythonJson: layout as json.dumps(indent=2)", () => {
  it("writes empty containers inline and nests with two spaces", () => {
    expect(toPythonJson({ a: [], b: {}, c: [1, [2]], d: null, e: true, f: false })).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    [\n      2\n    ]\n  ],\n  "d": null,\n  "e": true,\n  "f": false\n}',
    );
  });

  it("drops undefined properties (as a missing key) and writes undefined items as null", () => {
    expect(toPythonJson({ a: undefined, b: 1 })).toBe('{\n  "b": 1\n}');
    expect(toPythonJson([undefined])).toBe("[\n  null\n]");
  });

  it.skipIf(!hasPython)("matches Python's json.dumps(indent=2) byte for byte on a report-like object", () => {
    const value = {
      today_utc: "2026-09-20",
      collected_tests: 1204,
      active_leases: 2,
      proven_coverage_percent: new PyFloat(70),
      min_proven_coverage_percent: new PyFloat(71.6),
      rate: new PyFloat(0.1 + 0.2),
      tiny: new PyFloat(5e-5),
      reasons: ["freeze_budget", "proven_coverage"],
      decision: "REJECT",
      empty_list: [],
      empty_map: {},
      nested: {
        ids: ["tests/a.py::test_p[caf\\xe9]", "tests/a.py::test_q[naïve 日本 😀]"],
        ok: true,
        none: null,
        deep: [[1, 2], { k: [] }],
      },
      clé: 'quote " and backslash \\',
    };
    const expected = python(
      [
        "import json, sys",
        "value = {",
        "  'today_utc': '2026-09-20', 'collected_tests': 1204, 'active_leases': 2,",
        "  'proven_coverage_percent': 70.0, 'min_proven_coverage_percent': 71.6, 'rate': 0.1 + 0.2, 'tiny': 5e-05,",
        "  'reasons': ['freeze_budget', 'proven_coverage'], 'decision': 'REJECT', 'empty_list': [], 'empty_map': {},",
        "  'nested': {'ids': ['tests/a.py::test_p[caf\\\\xe9]', 'tests/a.py::test_q[na\\u00efve \\u65e5\\u672c \\U0001F600]'], 'ok': True, 'none': None, 'deep': [[1, 2], {'k': []}]},",
        "  'cl\\u00e9': 'quote \" and backslash \\\\',",
        "}",
        "sys.stdout.write(json.dumps(value, indent=2))",
      ].join("\n"),
    );
    expect(toPythonJson(value)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { iniList, parseIni, readIni } from "./ini.js";

describe("parseIni", () => {
  it("reads sections, both delimiters, continuation lines and comments as configparser does", () => {
    const ini = parseIni(
      "\uFEFF# top\r\n[tool:pytest]\r\nTestPaths: a\r\n    b  # inline\r\n; comment\r\naddopts = -ra\r\n\r\n[coverage:run]\r\nomit =\r\n    x/*\r\n    y/*\r\n",
    );
    expect(ini.get("tool:pytest")?.get("testpaths")).toBe("a\nb");
    expect(ini.get("tool:pytest")?.get("addopts")).toBe("-ra");
    expect(ini.get("coverage:run")?.get("omit")).toBe("x/*\ny/*");
  });

  it("skips lines outside a section and lines it cannot read", () => {
    const ini = parseIni("key = before\n[s]\nnot a pair\nk = v\n");
    expect([...ini.keys()]).toEqual(["s"]);
    expect(ini.get("s")?.get("k")).toBe("v");
  });

  it("splits list values at commas, white space and line breaks", () => {
    expect(iniList("a, b\n c  d")).toEqual(["a", "b", "c", "d"]);
    expect(iniList(undefined)).toEqual([]);
    expect(iniList("")).toEqual([]);
  });
});

describe("readIni", () => {
  it("keeps each key's line and the section's, values trimmed line by line, comment lines and blank lines dropped", () => {
    const doc = readIni(
      "[coverage:run]\nomit =\n    a/*  \n\n    # not a pattern\n    b/*\nBranch: True\n[report]\nx = 1 # kept\n",
    );
    expect(doc.problems).toEqual([]);
    expect(doc.sections).toEqual([
      {
        name: "coverage:run",
        line: 1,
        entries: [
          { key: "omit", value: "a/*\nb/*", line: 2 },
          { key: "branch", value: "True", line: 7 },
        ],
      },
      { name: "report", line: 8, entries: [{ key: "x", value: "1 # kept", line: 9 }] },
    ]);
  });

  it("keeps the key's case when asked (iniconfig, pytest's reader)", () => {
    expect(readIni("[pytest]\nAddOpts = -q\n", { lowerKeys: false }).sections[0]?.entries[0]?.key).toBe("AddOpts");
  });

  it("a line deeper than its key continues it; one at the key's depth starts a new key", () => {
    const doc = readIni("[s]\n  a = 1\n    2\n  b = 3\n");
    expect(doc.sections[0]?.entries.map((e) => [e.key, e.value])).toEqual([
      ["a", "1\n2"],
      ["b", "3"],
    ]);
  });

  it("reports what configparser refuses: a line before any section, a line without a delimiter, repeats", () => {
    const doc = readIni("top = 1\n[s]\njust words\nk = 1\nk = 2\n[s]\n");
    expect(doc.problems).toEqual([
      { line: 1, message: "a line before the first [section]" },
      { line: 3, message: 'not `key = value`: "just words"' },
      { line: 5, message: "the key `k` appears twice in [s]" },
      { line: 6, message: "the section [s] appears twice" },
    ]);
  });
});

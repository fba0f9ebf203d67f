import { describe, expect, it } from "vitest";
import { iniList, parseIni } from "./ini.js";

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

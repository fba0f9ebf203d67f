import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectCoverageFormat } from "./detect-format.js";

/** Real tool output, see __fixtures__/README.md. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");

describe("detectCoverageFormat", () => {
  it.each([
    ["coveragepy-6.5-branch.json", "coveragepy-json"],
    ["coveragepy-6.5-contexts.json", "coveragepy-json"],
    ["coveragepy-7.16.2-branch.json", "coveragepy-json"],
    ["lcov-coveragepy-6.5-branch.info", "lcov"],
    ["lcov-coveragepy-7.16.2-branch.info", "lcov"],
    ["lcov-vitest-4.1.12.info", "lcov"],
    ["cobertura-coveragepy-6.5-branch.xml", "cobertura"],
    ["istanbul-vitest-4.1.12-final.json", "istanbul-final"],
    ["istanbul-vitest-4.1.12-summary.json", "istanbul-summary"],
  ])("%s is %s, whole or cut in half", (name, format) => {
    const text = recorded(name);
    expect(detectCoverageFormat(text)).toBe(format);
    if (!name.endsWith(".info")) expect(detectCoverageFormat(text.slice(0, Math.floor(text.length / 2)))).toBe(format);
  });

  it("coverage.py's SQLite data file, a BOM, and what is none of them", () => {
    expect(detectCoverageFormat("SQLite format 3\u0000\u0010\u0000")).toBe("coveragepy-contexts");
    expect(detectCoverageFormat(`\uFEFF${recorded("lcov-vitest-4.1.12.info")}`)).toBe("lcov");
    expect(detectCoverageFormat('\n  <?xml version="1.0"?><coverage/>')).toBe("cobertura");
    for (const text of [
      "",
      "hello",
      "{}",
      "[]",
      '{"a": 1}',
      '<?xml version="1.0"?><report name="jacoco"/>',
      "<testsuites/>",
    ])
      expect(detectCoverageFormat(text)).toBeUndefined();
  });
});

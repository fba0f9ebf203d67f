import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { badgeJson, badgeOf, badgeSvg, type Badge } from "./badge.js";

const of = (provenCoveragePercent: number | null, minProvenCoveragePercent: number | null = null): Badge =>
  badgeOf({ provenCoveragePercent, minProvenCoveragePercent });

/** Every text node of a parsed XML tree, in document order. */
function texts(node: unknown): string[] {
  if (typeof node === "string" || typeof node === "number") return [String(node)];
  if (Array.isArray(node)) return node.flatMap(texts);
  if (node && typeof node === "object")
    return Object.entries(node).flatMap(([k, v]) => (k.startsWith("@_") ? [] : texts(v)));
  return [];
}

describe("badgeOf", () => {
  it.each([
    [100, "100.0%", "brightgreen"],
    [90, "90.0%", "brightgreen"],
    [89.99, "89.9%", "green"],
    [80, "80.0%", "green"],
    [75.55, "75.5%", "yellowgreen"],
    [60, "60.0%", "yellow"],
    [50.04, "50.0%", "orange"],
    [12.3, "12.3%", "red"],
    [0, "0.0%", "red"],
  ])("%s percent shows %s in %s", (percent, message, color) => {
    expect(of(percent)).toMatchObject({ label: "proven coverage", message, color });
  });

  it("never rounds up to a figure not reached: 79.96 is 79.9%", () => {
    expect(of(79.96).message).toBe("79.9%");
  });

  it("is red below the report's floor, whatever the scale says", () => {
    expect(of(85, 90)).toMatchObject({ message: "85.0%", color: "red" });
    expect(of(90, 90)).toMatchObject({ message: "90.0%", color: "brightgreen" });
  });

  it("says unknown, in grey, when the gate could not measure", () => {
    expect(of(null)).toMatchObject({ message: "unknown", color: "lightgrey" });
  });
});

describe("badgeJson", () => {
  it("is shields.io's endpoint schema, version 1", () => {
    expect(JSON.parse(badgeJson(of(87.54, 80)))).toEqual({
      schemaVersion: 1,
      label: "proven coverage",
      message: "87.5%",
      color: "green",
    });
  });
});

describe("badgeSvg", () => {
  it("is well-formed SVG whose text says the label and the figure", () => {
    const svg = badgeSvg(of(87.54));
    expect(XMLValidator.validate(svg)).toBe(true);
    const tree = new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: Record<string, unknown> };
    expect(tree.svg["@_xmlns"]).toBe("http://www.w3.org/2000/svg");
    expect(tree.svg["@_aria-label"]).toBe("proven coverage: 87.5%");
    expect(tree.svg["title"]).toBe("proven coverage: 87.5%");
    const shown = texts(tree.svg["g"]);
    expect(shown).toContain("proven coverage");
    expect(shown).toContain("87.5%");
    expect(svg).not.toMatch(/<script|href=|@import|url\((?!#)/i);
  });

  it("is wider for a longer message", () => {
    const width = (svg: string): number => Number(/width="(\d+)"/.exec(svg)![1]);
    expect(width(badgeSvg(of(100)))).toBeGreaterThan(width(badgeSvg(of(5))));
  });

  it("escapes its texts: a hostile label or colour stays text", () => {
    const svg = badgeSvg({ label: `</text><script>alert(1)</script>&"'`, message: "<b>", color: "x", hex: `"/><a` });
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).not.toContain("<script");
    expect(svg).not.toContain("<b>");
    const tree = new XMLParser({ ignoreAttributes: false, processEntities: true, htmlEntities: true }).parse(svg) as {
      svg: Record<string, unknown>;
    };
    expect(tree.svg["title"]).toBe(`</text><script>alert(1)</script>&"': <b>`);
  });
});

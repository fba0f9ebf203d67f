import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REASON_CODES } from "./reasons.js";

// The reason vocabulary is a public contract: the docs a user reads must list every code, in order.
const doc = (path: string): string => readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8");

describe("the reason codes in the docs", () => {
  it("docs/reasons.md has one section per code, and no section for a code that does not exist", () => {
    const sections = [...doc("docs/reasons.md").matchAll(/^### ([a-z_]+)$/gm)].map((m) => m[1]);
    expect([...sections].sort()).toEqual([...REASON_CODES].sort());
  });

  it("the README lists every code in the order reports list them", () => {
    const readme = doc("README.md");
    const list = readme.slice(readme.indexOf("Reasons, in order:"), readme.indexOf("Each, with its fix"));
    const named = [...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((c) => c !== undefined);
    const codes = named.filter((c) => (REASON_CODES as readonly string[]).includes(c));
    expect(codes).toEqual([...REASON_CODES]);
  });
});

import { describe, expect, it } from "vitest";
import { inlineSnapshots, inlineSnapshotsRemoved, isScriptPath, isSnapshotPath } from "./snapshots.js";

describe("snapshot paths", () => {
  it("knows snapshot files and script files by their paths", () => {
    expect(isSnapshotPath("test/__snapshots__/a.test.ts.snap")).toBe(true);
    expect(isSnapshotPath("__snapshots__/test_a/test_b.ambr")).toBe(true);
    expect(isSnapshotPath("pkg/a.snap")).toBe(true);
    expect(isSnapshotPath("pkg/__snapshots__.py")).toBe(false);
    expect(isSnapshotPath("pkg/snapshots/a.txt")).toBe(false);
    expect(["a.ts", "a.test.mjs", "b.cjs", "c.tsx", "d.jsx", "e.mts"].every(isScriptPath)).toBe(true);
    expect(["a.py", "a.json", "a.ts.snap"].some(isScriptPath)).toBe(false);
  });
});

describe("inlineSnapshots", () => {
  it("reads each call's arguments, property matchers and strings with parentheses included", () => {
    const text = [
      "expect(a).toMatchInlineSnapshot(`",
      '  "x (1)"',
      "`);",
      "expect(b).toMatchInlineSnapshot({ id: expect.any(String) }, `",
      "  { id: Any<String> }",
      "`)",
      "expect(() => f()).toThrowErrorMatchingInlineSnapshot('\"boom)\"');",
      "expect(c).toMatchInlineSnapshot();",
    ].join("\n");
    expect(inlineSnapshots(text)).toEqual([
      '`\n"x (1)"\n`',
      "{ id: expect.any(String) }, `\n{ id: Any<String> }\n`",
      "'\"boom)\"'",
      "",
    ]);
  });

  it("a file cut short inside a call yields what follows the call", () => {
    expect(inlineSnapshots("expect(a).toMatchInlineSnapshot(`abc")).toEqual(["`abc"]);
  });
});

describe("inlineSnapshotsRemoved", () => {
  const one = (s: string) => `expect(x).toMatchInlineSnapshot(\`${s}\`);\n`;
  it("counts the snapshots a commit took away, across its files", () => {
    expect(inlineSnapshotsRemoved(1, [{ parents: [one("1") + one("2")], after: one("1") + one("3") }])).toEqual([
      "`2`",
    ]);
    // Moved to another file: nothing taken away; the same snapshot twice, one left: one taken away.
    expect(
      inlineSnapshotsRemoved(1, [
        { parents: [one("1")], after: undefined },
        { parents: [undefined], after: one("1") },
      ]),
    ).toEqual([]);
    expect(inlineSnapshotsRemoved(1, [{ parents: [one("1") + one("1")], after: one("1") }])).toEqual(["`1`"]);
    expect(inlineSnapshotsRemoved(0, [{ parents: [], after: one("1") }])).toEqual([]);
  });

  it("a merge answers for what every parent held", () => {
    // The merged side had already changed "2" (its own commit answers for it); the merge kept that side.
    expect(
      inlineSnapshotsRemoved(2, [{ parents: [one("1") + one("2"), one("1") + one("9")], after: one("1") + one("9") }]),
    ).toEqual([]);
    // Both sides held "1"; the merge's own resolution dropped it.
    expect(inlineSnapshotsRemoved(2, [{ parents: [one("1") + one("2"), one("1")], after: one("2") }])).toEqual(["`1`"]);
  });
});

import { describe, expect, it } from "vitest";
import { arcKey, lineKey } from "./coverage-keys.js";

describe("the model's shared keys", () => {
  it("are the strings the readers built before, the same string each time", () => {
    expect(lineKey(12)).toBe("12");
    expect(lineKey(70_000)).toBe("70000");
    expect(arcKey(12, 14)).toBe("12>14");
    expect(arcKey(12, -1)).toBe("12>-1");
    expect(arcKey(20_000, 3)).toBe("20000>3");
    expect(arcKey(3, -20_000)).toBe("3>-20000");
  });

  it("a number that is not a whole one never takes another arc's slot", () => {
    expect(arcKey(1.5, 2)).toBe("1.5>2");
    expect(arcKey(2, -16_382)).toBe("2>-16382");
    expect(arcKey(1.5, 2)).toBe("1.5>2");
    expect(lineKey(2.5)).toBe("2.5");
  });
});

import { describe, expect, it } from "vitest";
import { dropPhantomLines } from "./coveragepy-phantoms.js";

describe("dropPhantomLines", () => {
  it("drops the lowest-numbered candidates, once each", () => {
    expect(dropPhantomLines([7, 1, 3, 3, 2], 2)).toEqual([1, 2]);
    expect(dropPhantomLines([5, 4], 0)).toEqual([]);
    expect(dropPhantomLines([5], 3)).toEqual([5]);
  });
});

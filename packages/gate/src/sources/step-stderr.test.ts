import { describe, expect, it } from "vitest";
import { stderrNote, stderrTail } from "./step-stderr.js";

describe("the end of a failed step's stderr", () => {
  it("keeps the last five non-blank lines, without colours, each cut to 200 characters", () => {
    const tail = stderrTail();
    tail.push("first\nsecond\n\n");
    tail.push("\u001b[31mthird\u001b[0m\r\nfour");
    tail.push(`th\nfifth\n${"x".repeat(300)}\n   \n`);
    expect(tail.lines()).toEqual(["second", "third", "fourth", "fifth", `${"x".repeat(200)}…`]);
  });

  it("keeps only the end of a long output", () => {
    const tail = stderrTail();
    for (let i = 0; i < 10_000; i++) tail.push(`line ${i}\n`);
    expect(tail.lines()).toEqual(["line 9995", "line 9996", "line 9997", "line 9998", "line 9999"]);
  });

  it("says so when there was nothing", () => {
    expect(stderrNote([])).toBe("it wrote nothing to stderr");
    expect(stderrNote(["a", "b"])).toBe("its stderr ended: a | b");
  });
});

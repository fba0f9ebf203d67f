// publishWithin: publishing's deadline as runGate applies it (the cli's publish-deadline test runs it
// end to end against a late API with the real clients).
import { describe, expect, it } from "vitest";
import { publishWithin } from "./run-gate.js";

describe("publishWithin", () => {
  it("an answer before the deadline is the outcome, and the signal is not aborted while it runs", async () => {
    let abortedDuring: boolean | undefined;
    const outcome = await publishWithin(5, async (signal) => {
      abortedDuring = signal.aborted;
      return { published: ["check run"], failures: [] };
    });
    expect(outcome).toEqual({ published: ["check run"], failures: [] });
    expect(abortedDuring).toBe(false);
  });

  it("past the deadline: a failure saying publishing timed out, and the signal aborted at once", async () => {
    let signal: AbortSignal | undefined;
    const start = performance.now();
    const outcome = await publishWithin(1, (s) => {
      signal = s;
      // An API that never answers, unless the signal stops it.
      return new Promise((_resolve, reject) => s.addEventListener("abort", () => reject(s.reason as Error)));
    });
    const ms = performance.now() - start;
    expect(outcome.published).toEqual([]);
    expect(outcome.failures).toHaveLength(1);
    expect(outcome.failures[0]).toMatch(/^publishing timed out after 1 s \(the API did not answer in time\)/);
    expect(signal?.aborted).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(5000);
  });

  it("a platform that throws is one failure line, not an exception", async () => {
    const outcome = await publishWithin(5, async () => {
      throw new Error("GITHUB_REPOSITORY is not owner/name");
    });
    expect(outcome).toEqual({ published: [], failures: ["GITHUB_REPOSITORY is not owner/name"] });
  });
});

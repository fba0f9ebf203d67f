// The agent wrapper's own kill timer: a missing `buildkite-agent` must not hold the job open.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { agentRunner } from "./agent.js";

const BUILT = fileURLToPath(new URL("../dist/agent.js", import.meta.url));

describe("agentRunner", () => {
  it("a binary that is not on PATH is `missing`", async () => {
    expect(await agentRunner({ PATH: "/nonexistent" }, "buildkite-agent-not-here")(["annotate"], "x")).toEqual({
      missing: true,
    });
  });

  it("regression: a missing binary does not hold the process open for the agent's two-minute timeout", () => {
    const script = `import { agentRunner } from ${JSON.stringify(BUILT)};
      const r = await agentRunner({ PATH: "/nonexistent" }, "buildkite-agent-not-here")(["annotate"], "x");
      console.log(JSON.stringify(r));`;
    const start = performance.now();
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const ms = performance.now() - start;
    expect(run.stdout.trim()).toBe('{"missing":true}');
    expect(run.status).toBe(0);
    expect(ms).toBeLessThan(20_000);
  });

  it("publishing's deadline stops an agent call still running", async () => {
    const deadline = new AbortController();
    const start = performance.now();
    const running = agentRunner({ PATH: process.env.PATH }, "sleep", deadline.signal)(["30"]);
    setTimeout(() => deadline.abort(new Error("publishing timed out")), 200);
    const result = await running;
    expect(result).toMatchObject({ missing: false, signal: "SIGTERM" });
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});

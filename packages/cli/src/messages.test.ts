// `check --verbose`'s timing summary: the steps and phases as the log saw them, and the gate's own time
// as what no step or phase covered, so overlapping steps (the base's beside the head's) are not counted twice.
import { describe, expect, it } from "vitest";
import { silentLog } from "@proofgate/gate";
import { timedLog } from "./messages.js";

describe("timedLog", () => {
  it("lists each step and phase, and the rest of the process as the gate's own time (overlaps counted once)", () => {
    let now = 0;
    const { log, summary } = timedLog(silentLog, () => now);
    now = 100;
    log.timing?.("base worktree", 0.1); // 0-100 ms
    log.stepStarted("base collect", "collect");
    now = 150;
    log.stepStarted("collect", "collect");
    now = 700;
    log.stepEnded("collect", 0, 0.55); // 150-700
    log.stepStarted("proof", "proof");
    now = 900;
    log.stepEnded("base collect", 0, 0.8); // 100-900, overlapping collect and proof
    now = 2000;
    log.stepEnded("proof", 0, 1.3); // 700-2000
    now = 2500;
    expect(summary()).toEqual([
      // In the order they started, whatever order they ended in.
      "proofgate: time: base worktree 0.10 s\n",
      "proofgate: time: base collect 0.80 s\n",
      "proofgate: time: collect 0.55 s\n",
      "proofgate: time: proof 1.30 s\n",
      // 2500 ms in all, 0-2000 covered by the spans: 500 ms the gate's own.
      "proofgate: time: gate (Node, git, reading, deciding, writing) 0.50 s\n",
      "proofgate: time: total 2.50 s\n",
    ]);
  });
});

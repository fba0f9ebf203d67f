import { describe, expect, it } from "vitest";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import { runnerTamperingFindings } from "./evidence.js";
import type { RunFinding } from "./findings.js";

const commit = commitFactory("e");
const hook: RunFinding = {
  code: "runner_tampering",
  message: "tests/conftest.py implements a hook that decides what runs or what a result is (line 1)",
  lines: [{ path: "tests/conftest.py", line: 1 }],
  fix: "remove it",
};

describe("runner_tampering from added code: a human trailer on an agent's commit", () => {
  it("is named as ignored, with the identity and pattern; without the trailer the message is the scan's", () => {
    const withTrailer = commit(BOT, "Gate-Change");
    const without = commit(BOT);
    const findings = runnerTamperingFindings(
      {
        shadows: [],
        scans: [
          { commit: withTrailer, findings: [hook] },
          { commit: without, findings: [hook] },
        ],
      },
      POLICY,
    );
    expect(findings.map((f) => f.message)).toEqual([
      `${hook.message}; commit ${withTrailer.sha.slice(0, 12)} is an agent's (author "patchbot[bot] <patchbot@example.org>" matches "*[bot]*"; committer "patchbot[bot] <patchbot@example.org>" matches "*[bot]*"; its \`Gate-Change: human\` trailer was ignored: a human trailer counts only on a human's commit)`,
      hook.message,
    ]);
    expect(findings.map((f) => [f.file, f.line, f.commit])).toEqual([
      ["tests/conftest.py", 1, withTrailer.sha],
      ["tests/conftest.py", 1, without.sha],
    ]);
  });

  it("a human's commit with the trailer approves it", () => {
    const human = commit(ADA, "Gate-Change");
    expect(runnerTamperingFindings({ shadows: [], scans: [{ commit: human, findings: [hook] }] }, POLICY)).toEqual([]);
  });
});

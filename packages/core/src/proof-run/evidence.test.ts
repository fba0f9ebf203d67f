import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import { runnerTamperingFindings, unlockedReadFindings, type ChangedRead, type RunnerEvidence } from "./evidence.js";
import type { RunFinding } from "./findings.js";
import { verifyRunRecord } from "./record.js";

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

describe("runner_tampering: a change to the runner's own code (the project is part of its runner)", () => {
  // pluggy's repository: pytest runs on src/pluggy/, and a pytest plugin module the run loads.
  const parts = [
    { path: "src/pluggy/", why: "src/pluggy/ is the runner's `pluggy`" },
    { path: "src/pkg/plugin.py", why: "src/pkg/plugin.py is loaded as a pytest plugin" },
  ];
  const judged = (touched: { commit: ReturnType<typeof commit>; paths: string[] }[]) =>
    runnerTamperingFindings(
      { shadows: [], scans: [], runnerParts: parts, shadowing: { trees: { base: [], head: [] }, touched } },
      POLICY,
    );

  it("an agent's commit changing it: REJECT naming the files, the part and the commit; other files are not", () => {
    const agent = commit(BOT);
    const findings = judged([{ commit: agent, paths: ["src/pluggy/_callers.py", "README.rst", "src/pkg/plugin.py"] }]);
    expect(findings.map((f) => [f.reason, f.file, f.commit])).toEqual([
      ["runner_tampering", "src/pluggy/_callers.py", agent.sha],
      ["runner_tampering", "src/pkg/plugin.py", agent.sha],
    ]);
    expect(findings[0]!.message).toContain(
      "the patch changes src/pluggy/_callers.py, code of the test runner itself (src/pluggy/ is the runner's `pluggy`)",
    );
    expect(findings[0]!.fix).toContain("`Gate-Change: human`");
  });

  it("a human's commit with the trailer approves it; a commit that leaves the runner's code alone is not judged", () => {
    expect(judged([{ commit: commit(ADA, "Gate-Change"), paths: ["src/pluggy/_result.py"] }])).toEqual([]);
    expect(judged([{ commit: commit(BOT), paths: ["testing/test_hooks.py", "src/pkg/other.py"] }])).toEqual([]);
    // A human without the trailer is not enough: the change is to how the tests run.
    expect(judged([{ commit: commit(ADA), paths: ["src/pluggy/_result.py"] }])).toHaveLength(1);
  });
});

describe("runner_tampering and a collection the runner's settings narrowed", () => {
  const recorded = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
    nonce: "0123456789abcdef0123456789abcdef",
    key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    file: "run-record.json",
  }).record!;
  const gone = "tests/test_calc.py::test_add";
  // `-k "not test_add"` in addopts: the proof run deselects it as the collection did.
  const record = {
    ...structuredClone(recorded),
    deselected: { proofgate: ["tests/test_calc.py::test_frozen"], other: [gone] },
  };
  record.tests = record.tests.filter((t) => t.id !== gone);
  const evidence = {
    proof: { file: "proof-record.json", result: { record, errors: [] }, leased: ["tests/test_calc.py::test_frozen"] },
    shadows: [],
    scans: [],
  };
  const head = new Set(recorded.collected.filter((id) => id !== gone));

  it("without results, a test the head's narrowed universe left out is tests_removed's, not deselected_other", () => {
    const deselected = (f: { message: string }) => f.message.includes("deselected by something other than the gate");
    expect(runnerTamperingFindings(evidence, POLICY).filter(deselected)).toHaveLength(1);
    expect(runnerTamperingFindings(evidence, POLICY, false, head).filter(deselected)).toEqual([]);
    // A test the universe still lists, deselected in the proof run only: still the runner's.
    expect(runnerTamperingFindings(evidence, POLICY, false, new Set([...head, gone])).filter(deselected)).toHaveLength(
      1,
    );
  });
});

describe("unlocked_fixture_read for what a package's tests read elsewhere in the repository", () => {
  const recorded = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
    nonce: "0123456789abcdef0123456789abcdef",
    key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    file: "run-record.json",
  }).record!;
  const record = {
    ...recorded,
    files: [
      { path: "tests/data/golden.txt", read: true, write: false, first: "t::one" },
      { path: "../../testdata/agent.txt", read: true, write: false, first: "t::two" },
      { path: "../../testdata/mixed.txt", read: true, write: false, first: "t::two" },
      { path: "../../testdata/human.txt", read: true, write: false, first: "t::two" },
      { path: "../../testdata/unchanged.txt", read: true, write: false, first: "t::two" },
    ],
  };
  const evidence = (changedOnly: boolean, changedInside: ChangedRead[] = []): RunnerEvidence =>
    ({
      shadows: [],
      scans: [],
      proof: { file: "run-record.json", result: { record } },
      fixtures: {
        paths: ["tests/fixtures"],
        lock: "fixtures.lock",
        tracked: new Set(["tests/data/golden.txt"]),
        changedOnly,
        // What changed in the range: by an agent, by an agent and a human, by a human with the trailer.
        changed: [
          ...changedInside,
          { path: "../../testdata/agent.txt", commits: [{ sha: "a", approved: false }] },
          {
            path: "../../testdata/mixed.txt",
            commits: [
              { sha: "b", approved: true },
              { sha: "c", approved: false },
            ],
          },
          { path: "../../testdata/human.txt", commits: [{ sha: "d", approved: true }] },
        ],
      },
    }) as unknown as RunnerEvidence;

  it("a file changed by a commit without a human's approval counts; one unchanged, or changed only with it, does not", () => {
    expect(unlockedReadFindings(evidence(false)).map((f) => [f.reason, f.message.split(":")[0]])).toEqual([
      ["unlocked_fixture_read", "the tests read 1 file(s) outside the fixture lock (tests/fixtures)"],
      [
        "unlocked_fixture_read",
        "the tests read 2 file(s) outside the package's folder that changed in the range without a human's `Fixture-Lock",
      ],
    ]);
    expect(unlockedReadFindings(evidence(false))[1]!.message).toContain(
      "../../testdata/agent.txt (first by t::two), ../../testdata/mixed.txt (first by t::two)",
    );
  });

  it("a package with no fixtures of its own: only the files outside it", () => {
    const findings = unlockedReadFindings(evidence(true));
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain("../../testdata/agent.txt");
  });

  it("the fixture signal off: a data file in a test folder counts when an agent changed it, with its own message", () => {
    const agent = [{ path: "tests/data/golden.txt", commits: [{ sha: "e", approved: false }] }];
    const findings = unlockedReadFindings(evidence(true, agent));
    expect(findings.map((f) => f.message.split(":")[0])).toEqual([
      "the tests read 1 data file(s) in a test folder that changed in the range without a human's `Fixture-Lock",
      "the tests read 2 file(s) outside the package's folder that changed in the range without a human's `Fixture-Lock",
    ]);
    expect(findings[0]!.message).toContain("([fixtures] is off, so no lock holds them): tests/data/golden.txt");
    expect(findings[0]!.fix).toContain("list them in [fixtures] paths");
    // Changed only by a human with the trailer: nothing.
    const human = [{ path: "tests/data/golden.txt", commits: [{ sha: "f", approved: true }] }];
    expect(unlockedReadFindings(evidence(true, human))).toHaveLength(1);
  });

  it("the fixture signal off: a data file deleted from a test folder (never read at head) is its own finding", () => {
    const gone = [
      { path: "tests/cases/long.txt", commits: [{ sha: "g", approved: false }], deleted: true },
      { path: "tests/cases/old.txt", commits: [{ sha: "h", approved: true }], deleted: true },
    ];
    const findings = unlockedReadFindings(evidence(true, gone));
    expect(findings.map((f) => f.message.split(":")[0])).toEqual([
      "the tests read 2 file(s) outside the package's folder that changed in the range without a human's `Fixture-Lock",
      "the range deleted 1 data file(s) from a test folder without a human's `Fixture-Lock",
    ]);
    expect(findings[1]!.message).toMatch(/: tests\/cases\/long\.txt$/);
  });
});

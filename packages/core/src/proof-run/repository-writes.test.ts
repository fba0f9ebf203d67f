import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verifyRunRecord, type RunFile, type RunRecord } from "./record.js";
import {
  diffWorkTree,
  expectedWrite,
  recordedWrites,
  repositoryWriteFindings,
  type RunWritePolicy,
  type WorkTreeEntry,
} from "./repository-writes.js";

const RECORDED = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
  nonce: "0123456789abcdef0123456789abcdef",
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  file: "run-record.json",
}).record!;

const POLICY: RunWritePolicy = {
  outputs: ["./collected.txt", "proven_coverage.json", "results.xml"],
  outDir: "proofgate-report",
  data: ["tests/fixtures", "fixtures.lock", "tests/properties/seeds", "freeze.toml"],
};
const entry = (path: string, state: WorkTreeEntry["state"]): WorkTreeEntry => ({ path, state });
const withFiles = (files: RunFile[]): RunRecord => ({ ...structuredClone(RECORDED), files });
const file = (path: string, write: boolean, writer?: string): RunFile => ({
  path,
  read: true,
  write,
  first: null,
  ...(writer === undefined ? {} : { writer }),
});

describe("what a step may write", () => {
  it.each([
    ["results.xml", true],
    ["collected.txt", true],
    ["proofgate-report/pytest/plugin.py", true],
    ["pkg/__pycache__/calc.cpython-311.pyc", true],
    ["pkg/__pycache__/", true],
    [".pytest_cache/v/cache/nodeids", true],
    [".hypothesis/", true],
    [".coverage", true],
    [".coverage.host.123.456", true],
    ["pkg/calc.py", false],
    ["results.xml.bak", false],
    ["proofgate-reports/x", false],
    ["tests/fixtures/golden.txt", false],
  ])("%s: %s", (path, expected) => {
    expect(expectedWrite(POLICY)(path)).toBe(expected);
  });
});

describe("diffWorkTree: what a step left, against git status before it", () => {
  it("names tracked files that changed and new untracked files; what was there before, outputs and caches are not new", () => {
    const before = [entry("notes.txt", "untracked"), entry("build/", "ignored")];
    const after = [
      ...before,
      entry("pkg/calc.py", "changed"),
      entry("freeze.toml", "changed"),
      entry("pkg/generated.txt", "untracked"),
      entry("results.xml", "untracked"),
      entry("pkg/__pycache__/", "untracked"),
      entry(".coverage", "untracked"),
    ];
    expect(diffWorkTree("proof", before, after, POLICY)).toEqual({
      step: "proof",
      changed: ["pkg/calc.py", "freeze.toml"],
      added: ["pkg/generated.txt"],
      restored: [],
    });
  });

  it("a new ignored file counts only as Python source or under the proof's data", () => {
    const after = [
      entry("out/report.log", "ignored"),
      entry("pkg/generated.py", "ignored"),
      entry("tests/fixtures/new.txt", "ignored"),
      entry("tests/properties/seeds/", "ignored"),
      entry("pkg/__pycache__/", "ignored"),
    ];
    expect(diffWorkTree("collect", [], after, POLICY).added).toEqual([
      "pkg/generated.py",
      "tests/fixtures/new.txt",
      "tests/properties/seeds/",
    ]);
  });

  it("nothing new: nothing written", () => {
    const same = [entry("pkg/calc.py", "changed")];
    expect(diffWorkTree("proof", same, same, POLICY)).toMatchObject({ changed: [], added: [] });
  });
});

describe("recordedWrites: the record's opens for writing that touch the commit", () => {
  it("keeps tracked files, the proof's data and Python source; drops reads, outputs, caches and mounts", () => {
    const record = withFiles([
      file("tests/fixtures/golden.txt", true, "tests/test_w.py::test_rewrite"),
      file("pkg/calc.py", false),
      file("src/gen.py", true),
      file("tests/fixtures/new.bin", true),
      file("scratch.txt", true),
      file("results.xml", true),
      file(".coverage", true),
      { ...file("tests/properties/seeds/a.txt", true), via: "base-seeds" },
    ]);
    const tracked = new Set(["tests/fixtures/golden.txt", "pkg/calc.py", "results.xml"]);
    expect(recordedWrites(record, tracked, POLICY)).toEqual([
      { path: "tests/fixtures/golden.txt", writer: "tests/test_w.py::test_rewrite" },
      { path: "src/gen.py", writer: undefined },
      { path: "tests/fixtures/new.bin", writer: undefined },
    ]);
  });
});

describe("repositoryWriteFindings: one run_wrote_repository per step, naming the files and the step", () => {
  const tracked = new Set(["pkg/calc.py", "tests/fixtures/golden.txt"]);

  it("git's view and the record's, merged per step; a write git saw is not repeated from the record", () => {
    const record = withFiles([
      file("pkg/calc.py", true, "tests/test_w.py::test_source"),
      file("tests/fixtures/golden.txt", true, "tests/test_w.py::test_fixture"),
    ]);
    const findings = repositoryWriteFindings(
      {
        steps: [
          { step: "proof", changed: ["pkg/calc.py"], added: ["pkg/new.txt"], restored: ["pkg/calc.py"] },
          { step: "base skips", changed: [], added: ["leftover.txt"], restored: [] },
        ],
        tracked,
        policy: POLICY,
      },
      [
        { step: "proof", record },
        { step: "properties", record: undefined },
      ],
    );
    expect(findings.map((f) => [f.reason, f.file])).toEqual([
      ["run_wrote_repository", "pkg/calc.py"],
      ["run_wrote_repository", "leftover.txt"],
    ]);
    expect(findings[0]!.message).toBe(
      "[commands] proof wrote the repository while it ran: changed 1 file(s) the commit tracks: pkg/calc.py (by tests/test_w.py::test_source); the gate restored them from the commit; left 1 new file(s), not removed by the gate: pkg/new.txt; opened 1 file(s) of the commit for writing (its run record; identical again when the step ended): tests/fixtures/golden.txt (by tests/test_w.py::test_fixture)",
    );
    expect(findings[1]!.message).toContain("[commands] base skips wrote the repository");
    expect(findings[0]!.fix).toContain("tmp_path");
  });

  it("a record-only write (the bytes put back before the step ended) is a finding of its own", () => {
    const record = withFiles([file("tests/fixtures/golden.txt", true)]);
    const findings = repositoryWriteFindings({ steps: [], tracked, policy: POLICY }, [{ step: "properties", record }]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ reason: "run_wrote_repository", file: "tests/fixtures/golden.txt" });
    expect(findings[0]!.message).toMatch(/^\[commands\] properties wrote the repository/);
  });

  it("no writes: no finding (the recorded fixture's reads are not writes)", () => {
    expect(
      repositoryWriteFindings({ steps: [], tracked, policy: POLICY }, [{ step: "proof", record: RECORDED }]),
    ).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import {
  addStampRun,
  judgeEvidenceBinding,
  parseEvidenceStamp,
  renderEvidenceStamp,
  type BindingInput,
  type EvidenceStamp,
} from "./evidence-stamp.js";
import type { InputDigest } from "../model/report.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const MERGE = "c".repeat(40);
const TREE_A = "1".repeat(40);
const TREE_B = "2".repeat(40);
const sha = (n: number): string => n.toString(16).padStart(64, "0");

const stampOf = (commit: string, tree: string, files: Record<string, number>): EvidenceStamp =>
  addStampRun(
    undefined,
    { commit, tree },
    {
      command: "pytest",
      exitCode: 0,
      files: Object.entries(files).map(([path, n]) => ({ path, sha256: sha(n) })),
    },
  );

const read = (files: Record<string, number>, role: InputDigest["role"] = "results"): InputDigest[] =>
  Object.entries(files).map(([path, n]) => ({ role, path, sha256: sha(n) }));

const judge = (o: Partial<BindingInput> & Pick<BindingInput, "read">) =>
  judgeEvidenceBinding({
    stamps: [],
    judged: [{ commit: B, tree: TREE_B }],
    required: true,
    how: "proofgate record -- ...",
    ...o,
  }).map((i) => `${i.code} ${i.file}`);

describe("judgeEvidenceBinding", () => {
  it("a file a stamp of the judged commit names with its bytes is bound", () => {
    expect(
      judge({
        read: read({ "results.xml": 1 }),
        stamps: [{ file: "s.json", stamp: stampOf(B, TREE_B, { "results.xml": 1 }) }],
      }),
    ).toEqual([]);
  });

  it("the bytes a run on another commit wrote are stale, with or without the opt-out, naming that commit", () => {
    const stamps = [{ file: "s.json", stamp: stampOf(A, TREE_A, { "results.xml": 1, "cov.json": 2 }) }];
    for (const required of [true, false]) {
      const issues = judgeEvidenceBinding({
        read: [...read({ "results.xml": 1 }), ...read({ "cov.json": 2 }, "coverage")],
        stamps,
        judged: [{ commit: B, tree: TREE_B }],
        required,
        how: "record it",
      });
      expect(issues.map((i) => `${i.code} ${i.file}`)).toEqual([
        "evidence_stale results.xml",
        "evidence_stale cov.json",
      ]);
      expect(issues[0]!.message).toContain(
        `on commit ${A.slice(0, 12)} (s.json), not on the commit judged, ${B.slice(0, 12)}`,
      );
      expect(issues[0]!.fix).toBe(`run the tests on ${B.slice(0, 12)} first: record it`);
    }
  });

  it("a file changed after the judged commit's run wrote it is stale", () => {
    const issues = judge({
      read: read({ "results.xml": 9 }),
      stamps: [{ file: "s.json", stamp: stampOf(B, TREE_B, { "results.xml": 1 }) }],
    });
    expect(issues).toEqual(["evidence_stale results.xml"]);
  });

  it("no stamp names it: unbound when required; read as it is with the opt-out", () => {
    const stamps = [{ file: "s.json", stamp: stampOf(B, TREE_B, { "collected.txt": 1 }) }];
    expect(judge({ read: read({ "results.xml": 5 }), stamps })).toEqual(["evidence_unbound results.xml"]);
    expect(judge({ read: read({ "results.xml": 5 }), stamps, required: false })).toEqual([]);
    // Another commit's stamp naming other bytes: a fresh run without a stamp wrote it since; not stale.
    const older = [{ file: "s.json", stamp: stampOf(A, TREE_A, { "results.xml": 1 }) }];
    expect(judge({ read: read({ "results.xml": 5 }), stamps: older, required: false })).toEqual([]);
    expect(judge({ read: read({ "results.xml": 5 }), stamps: older })).toEqual(["evidence_unbound results.xml"]);
  });

  it("the work tree's test merge of the head, and a commit with the same tree, count as the judged commit", () => {
    const judged = [
      { commit: B, tree: TREE_B },
      { commit: MERGE, tree: "3".repeat(40) },
    ];
    expect(
      judge({
        read: read({ "r.xml": 1 }),
        judged,
        stamps: [{ file: "s", stamp: stampOf(MERGE, "3".repeat(40), { "r.xml": 1 }) }],
      }),
    ).toEqual([]);
    // An amended message: another commit, the same files.
    expect(
      judge({ read: read({ "r.xml": 1 }), stamps: [{ file: "s", stamp: stampOf(A, TREE_B, { "r.xml": 1 }) }] }),
    ).toEqual([]);
  });

  it("judges only the head's evidence: the ledger, the lock, the config and the base's files are the commit's or the base's", () => {
    const inputs: InputDigest[] = (["config", "ledger", "fixtures_lock", "base_universe", "base_results"] as const).map(
      (role) => ({ role, path: role, sha256: sha(1) }),
    );
    expect(judge({ read: inputs })).toEqual([]);
    for (const role of ["universe", "coverage", "contexts", "results", "properties"] as const)
      expect(judge({ read: [{ role, path: role, sha256: sha(1) }] })).toEqual([`evidence_unbound ${role}`]);
  });
});

describe("addStampRun", () => {
  it("adds to a stamp of the same commit, each file keeping its last write; replaces another commit's", () => {
    const first = stampOf(B, TREE_B, { "collected.txt": 1, "results.xml": 2 });
    const second = addStampRun(
      first,
      { commit: B, tree: TREE_B },
      {
        command: "proof",
        exitCode: 1,
        files: [{ path: "results.xml", sha256: sha(3) }],
      },
    );
    expect(second.runs.map((r) => [r.command, r.files.map((f) => `${f.path}=${f.sha256.slice(-1)}`)])).toEqual([
      ["pytest", ["collected.txt=1"]],
      ["proof", ["results.xml=3"]],
    ]);
    const other = addStampRun(second, { commit: A, tree: TREE_A }, { command: "x", exitCode: 0, files: [] });
    expect(other.commit).toBe(A);
    expect(other.runs.map((r) => r.command)).toEqual(["x"]);
  });
});

describe("parseEvidenceStamp", () => {
  it("reads what renderEvidenceStamp writes", () => {
    const stamp = stampOf(B, TREE_B, { "results.xml": 1 });
    expect(parseEvidenceStamp(renderEvidenceStamp(stamp), "s.json")).toEqual({ stamp, errors: [] });
  });

  it.each([
    ["not JSON", "{"],
    ["another format", JSON.stringify({ format: "x", version: 1 })],
    ["no commit", JSON.stringify({ format: "proofgate-evidence", version: 1, tree: TREE_B, runs: [] })],
    [
      "a digest that is not sha256",
      JSON.stringify({
        format: "proofgate-evidence",
        version: 1,
        commit: B,
        tree: TREE_B,
        runs: [{ command: "c", exitCode: 0, files: [{ path: "r.xml", sha256: "abc" }] }],
      }),
    ],
  ])("%s is an error naming the file and the fix", (_, text) => {
    const { stamp, errors } = parseEvidenceStamp(text, "s.json");
    expect(stamp).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "evidence_unbound", file: "s.json" });
    expect(errors[0]!.fix).toContain("proofgate record");
  });
});

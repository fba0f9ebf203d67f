import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { testIdPaths, type TestIdPaths } from "../python/test-id-paths.js";
import type { Commit } from "../model/authorship.js";
import { ADA, BOT, POLICY, commitFactory } from "../__fixtures__/commits.js";
import { decide, type DecideInput } from "../decide.js";
import type { Lease } from "../ledger/ledger.js";
import type { CommitPaths } from "../patch/patch.js";
import {
  importsHypothesis,
  judgePropertyIds,
  parsePropertyIds,
  renderPropertyIdsPlugin,
  type PropertyIdEvidence,
} from "./property-tests.js";
import { verifyRunRecord, type RunRecord } from "../proof-run/record.js";

const policy = POLICY;
const commit = commitFactory("c");

describe("importsHypothesis: a test file that imports hypothesis holds property tests", () => {
  it.each([
    "import hypothesis\n",
    "from hypothesis import given, settings\n",
    "from hypothesis.strategies import integers\n",
    "import hypothesis.strategies as st\n",
    "import os, hypothesis\n",
    "import os as o, hypothesis.strategies as st\n",
    "try:\n    from hypothesis import given\nexcept ImportError:\n    pass\n",
    "import pytest\r\nfrom hypothesis import given\r\n",
  ])("%j", (text) => expect(importsHypothesis(text)).toBe(true));

  it.each([
    "# from hypothesis import given\n",
    "import hypothesis_extra\n",
    "from hypothesisx import given\n",
    "import pytest\n\ndef test_x():\n    assert 'from hypothesis import given'\n",
    "x = 'import hypothesis'\n",
    "",
  ])("not %j", (text) => expect(importsHypothesis(text)).toBe(false));
});

describe("renderPropertyIdsPlugin and parsePropertyIds", () => {
  it("the plugin writes the ids left after collection to the file, deselects them all, and turns 'none ran' into 0", () => {
    const plugin = renderPropertyIdsPlugin("/tmp/out dir/it's.jsonl", "a".repeat(40));
    expect(plugin).toContain(`PROOFGATE_IDS_FILE = "/tmp/out dir/it's.jsonl"`);
    expect(plugin).toContain("@pytest.hookimpl(hookwrapper=True)\ndef pytest_collection_modifyitems(");
    expect(plugin).toContain("config.hook.pytest_deselected(items=list(items))");
    expect(plugin).toContain("session.exitstatus = pytest.ExitCode.OK");
    expect(plugin).toContain(`the base (${"a".repeat(12)})`);
  });

  it("one JSON list a session; the union in order, once each", () => {
    expect(parsePropertyIds('["t.py::a", "t.py::b"]\n["t.py::b", "u.py::c"]\n\n', "ids")).toEqual({
      ids: ["t.py::a", "t.py::b", "u.py::c"],
      errors: [],
    });
    expect(parsePropertyIds("", "ids")).toEqual({ ids: [], errors: [] });
  });

  it.each(['["a"]\n{"ids": []}\n', '["a"]\n[1]\n', '["a"]\nnot json\n'])(
    "anything else is an error at its line: %j",
    (text) => {
      expect(parsePropertyIds(text, "ids (collected at base)")).toEqual({
        errors: [
          expect.objectContaining({
            code: "universe_invalid",
            file: "ids (collected at base)",
            line: 2,
            message: "not a JSON list of test ids, as the gate's plugin writes them",
          }),
        ],
      });
    },
  );
});

const BASE = [
  "tests/properties/test_props.py::test_roundtrip",
  "tests/properties/test_props.py::test_order",
  "tests/test_fuzz.py::test_fuzz",
];

function evidence(touched: [Commit, string[]][], o: Partial<PropertyIdEvidence> = {}): PropertyIdEvidence {
  return {
    base: { file: "property test ids (collected at base cccc)", ids: BASE },
    touched: touched.map(([commit, paths]): CommitPaths => ({ commit, paths })),
    renames: [],
    collectionFiles: [],
    ...o,
  };
}

const lease = (nodeid: string): Lease => ({
  index: 0,
  nodeid,
  owner: "ada",
  reason: "flaky",
  expires: "2099-12-31" as Lease["expires"],
  line: 3,
});

describe("judgePropertyIds: the base's property tests must still run", () => {
  it("an agent deletes a property: the ids, the commit and its author; the fix names the trailer", () => {
    const a = commit(BOT);
    const j = judgePropertyIds(evidence([[a, ["tests/properties/test_props.py"]]]), {
      collected: [BASE[0]!, BASE[2]!],
      notRun: [BASE[1]!],
      active: [],
      commits: [a],
      policy,
    });
    expect(j).toMatchObject({ baseTests: 3, notRun: 1, approved: 0 });
    expect(j.findings).toEqual([
      {
        reason: "property_weakened",
        message: `1 property test(s) of tests/properties/test_props.py that the base runs did not run at head: tests/properties/test_props.py::test_order; commit ${a.sha.slice(0, 12)} is an agent's (author "patchbot[bot] <patchbot@example.org>" matches "*[bot]*"; committer "patchbot[bot] <patchbot@example.org>" matches "*[bot]*") and touched tests/properties/test_props.py`,
        file: "tests/properties/test_props.py",
        commit: a.sha,
        author: "patchbot[bot] <patchbot@example.org>",
        fix: "restore the property tests, so that every property the base runs still runs; a human who means to retire one does so in a commit with `Property-Seeds: human` (a flaky one gets a lease in freeze.toml instead)",
      },
    ]);
  });

  it("a package under the repository's pytest settings: a human's retirement of the package's file approves", () => {
    const ok = commit(ADA, "Property-Seeds");
    const a = commit(BOT);
    const paths = testIdPaths({ root: "/r/pkg", rootdir: "/r", rootdirFromRoot: "..", rootFromRootdir: "pkg" });
    const e = evidence([
      [ok, ["tests/properties/test_props.py"]],
      [a, ["src/pkg/core.py"]],
    ]);
    const ids = BASE.map((id) => `pkg/${id}`);
    const judged = (p?: TestIdPaths) =>
      judgePropertyIds(
        { ...e, base: { ...e.base, ids } },
        { collected: [ids[0]!, ids[2]!], notRun: [ids[1]!], active: [], commits: [ok, a], policy, paths: p },
      );
    expect(judged(paths)).toMatchObject({ findings: [], notRun: 1, approved: 1 });
    // Read as the package's own path, the id's file is no file the range touched: every code commit answers.
    expect(judged().findings.map((f) => [f.file, f.commit])).toEqual([["pkg/tests/properties/test_props.py", a.sha]]);
  });

  it("a renamed property shows its new name, and is still a finding", () => {
    const a = commit(BOT);
    const renamed = "tests/properties/test_props.py::test_order_again";
    const j = judgePropertyIds(evidence([[a, ["tests/properties/test_props.py"]]]), {
      collected: [BASE[0]!, renamed, BASE[2]!],
      notRun: [BASE[1]!],
      active: [],
      commits: [a],
      policy,
    });
    expect(j.findings[0]!.message).toContain(`tests/properties/test_props.py::test_order (renamed: ${renamed})`);
  });

  it("a human with `Property-Seeds: human` retires it; without the trailer, or an agent with it, not", () => {
    const ok = commit(ADA, "Property-Seeds");
    const bare = commit(ADA);
    const faker = commit(BOT, "Property-Seeds");
    const run = (c: Commit) =>
      judgePropertyIds(evidence([[c, ["tests/properties/test_props.py"]]]), {
        collected: [],
        notRun: [BASE[1]!],
        active: [],
        commits: [c],
        policy,
      });
    expect(run(ok)).toMatchObject({ findings: [], notRun: 1, approved: 1 });
    expect(run(bare).findings[0]!.message).toContain("lacks `Property-Seeds: human`");
    expect(run(faker).findings[0]!.message).toContain("is an agent's");
  });

  it("a lease holds it; a commit touching the collection configuration answers for it too", () => {
    const a = commit(BOT);
    const leased = judgePropertyIds(evidence([]), {
      collected: [],
      notRun: [BASE[2]!],
      active: [lease(BASE[2]!)],
      commits: [],
      policy,
    });
    expect(leased).toMatchObject({ findings: [], notRun: 0 });
    const config = judgePropertyIds(
      evidence([[a, ["pytest.ini", "ci/props.sh"]]], { collectionFiles: ["ci/props.sh"] }),
      {
        collected: [],
        notRun: [BASE[2]!],
        active: [],
        commits: [a],
        policy,
      },
    );
    expect(config.findings.map((f) => [f.file, f.commit])).toEqual([["tests/test_fuzz.py", a.sha]]);
    expect(config.findings[0]!.message).toContain("and touched pytest.ini, ci/props.sh");
  });

  it("no commit touched its file or the configuration: the commits that changed code answer; a human's trailer answers for its own commit", () => {
    const a = commit(BOT);
    const ok = commit(ADA, "Property-Seeds");
    const ctx = { collected: [], notRun: [BASE[0]!], active: [], policy };
    const throughCode = judgePropertyIds(evidence([[a, ["pkg/calc.py"]]]), { ...ctx, commits: [a] });
    expect(throughCode.findings.map((f) => [f.file, f.commit])).toEqual([["tests/properties/test_props.py", a.sha]]);
    // A human's approval elsewhere in the range does not cover the agent's code change.
    expect(
      judgePropertyIds(evidence([[a, ["pkg/calc.py"]]]), { ...ctx, commits: [a, ok] }).findings.map((f) => f.commit),
    ).toEqual([a.sha]);
    expect(judgePropertyIds(evidence([[ok, ["pkg/calc.py"]]]), { ...ctx, commits: [ok] }).findings).toEqual([]);
    // Nothing but documentation changed: no commit named, unless a human commit carries the trailer.
    const unexplained = judgePropertyIds(evidence([[a, ["README.md"]]]), { ...ctx, commits: [a] });
    expect(unexplained.findings.map((f) => [f.file, f.commit])).toEqual([
      ["tests/properties/test_props.py", undefined],
    ]);
    expect(unexplained.findings[0]!.message).toContain("no commit in the range touched tests/properties/test_props.py");
    expect(judgePropertyIds(evidence([[a, ["README.md"]]]), { ...ctx, commits: [a, ok] }).findings).toEqual([]);
  });
});

describe("decide: property_weakened from the base's property ids and the head's property run record", () => {
  const RECORD = verifyRunRecord(
    readFileSync(new URL("../proof-run/__fixtures__/mixed-run.json", import.meta.url), "utf8"),
    {
      nonce: "0123456789abcdef0123456789abcdef",
      key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      file: "run-record.json",
    },
  ).record!;
  // The record's tests that ran and passed, as a property run's; test_frozen was collected and never ran.
  const propertyRecord: RunRecord = {
    ...structuredClone(RECORD),
    tests: RECORD.tests.filter((t) => t.outcome === "passed"),
    files: [],
  };

  function input(o: { commit: Commit; base: string[] }): DecideInput {
    const universe = { file: "collected.txt", ids: ["t.py::a"], duplicates: [], collectionErrors: [], summaryCount: 1 };
    return {
      today: "2026-09-20",
      clockOverride: false,
      ledger: {
        file: "freeze.toml",
        version: 1,
        maxActiveLeases: 0,
        budgetOmitted: false,
        rejectIfExpired: true,
        rejectIfAgentAddsLease: true,
        leases: [],
      },
      universe,
      coverage: {
        source: "report",
        files: ["proven_coverage.json"],
        format: "coveragepy-json",
        percent: 90,
        statements: 10,
        coveredLines: 9,
        branches: 0,
        coveredBranches: 0,
        lineRate: 0.9,
        branchRate: 1,
      },
      minProven: 70,
      patch: {
        kind: "git",
        patch: {
          base: "b".repeat(40),
          head: o.commit.sha,
          commits: [o.commit],
          ledger: { file: "freeze.toml", changes: [], rejectIfAgentAddsLease: true },
          protect: { patterns: [], touching: [] },
        },
        policy,
      },
      properties: {
        kind: "results",
        evidence: { resultFiles: ["properties.xml"], tests: 2, failures: 0, skipped: 0 },
      },
      runner: {
        properties: {
          file: "properties-record.json",
          result: { record: propertyRecord, errors: [] },
          seeds: [],
          via: "base-seeds",
        },
        shadows: [],
        scans: [],
      },
      propertyIds: {
        base: { file: "property test ids (collected at base bbbb)", ids: o.base },
        touched: [{ commit: o.commit, paths: ["tests/test_calc.py"] }],
        renames: [],
        collectionFiles: [],
      },
      inputs: [],
    };
  }

  it("a base property that did not run at head: REJECT, and the row says how many ran", () => {
    const a = commit(BOT);
    const report = decide(
      input({ commit: a, base: ["tests/test_calc.py::test_add", "tests/test_calc.py::test_frozen"] }),
    );
    expect(report.reasons).toEqual(["property_weakened"]);
    expect(report.findings.map((f) => [f.reason, f.file, f.commit])).toEqual([
      ["property_weakened", "tests/test_calc.py", a.sha],
    ]);
    expect(report.signals.find((s) => s.id === "property_hold")).toMatchObject({
      result: "fail",
      value: "0 failures of 2 cases; 1 of 2 base property tests ran",
      policy:
        "0 failures; seeds non-empty; seeds and property tests changed only with Property-Seeds: human; the base's property tests still run",
    });
  });

  it("every base property ran, or a human retired the rest with the trailer: MERGE", () => {
    const a = commit(BOT);
    expect(decide(input({ commit: a, base: ["tests/test_calc.py::test_add"] })).reasons).toEqual([]);
    const ok = commit(ADA, "Property-Seeds");
    const report = decide(
      input({ commit: ok, base: ["tests/test_calc.py::test_add", "tests/test_calc.py::test_frozen"] }),
    );
    expect(report.reasons).toEqual([]);
    expect(report.signals.find((s) => s.id === "property_hold")?.value).toBe(
      "0 failures of 2 cases; 1 of 2 base property tests ran (1 retired with a human's trailer)",
    );
  });

  it("without a verified record of the head's run nothing is compared (runner_tampering says why)", () => {
    const a = commit(BOT);
    const i = input({ commit: a, base: ["tests/test_calc.py::test_frozen"] });
    i.runner = {
      ...i.runner!,
      properties: {
        file: "properties-record.json",
        result: { errors: [{ code: "file_missing", problem: "missing", message: "no record" }] },
        seeds: [],
        via: "base-seeds",
      },
    };
    expect(decide(i).reasons).toEqual(["runner_tampering"]);
  });
});

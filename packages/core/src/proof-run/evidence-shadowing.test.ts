import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ADA, BOT, commitFactory, POLICY } from "../__fixtures__/commits.js";
import { runnerTamperingFindings, type RunnerEvidence } from "./evidence.js";
import { verifyRunRecord, type RunRecord } from "./record.js";
import { findToolShadows } from "./shadow.js";

const RECORDED = verifyRunRecord(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8"), {
  nonce: "0123456789abcdef0123456789abcdef",
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  file: "run-record.json",
}).record!;

const commit = commitFactory("5");
const BASE = ["more_itertools/__init__.py", "more_itertools/more.py", "tests/__init__.py", "tests/test_more.py"];

/** The evidence of a run whose record names `shadowed`, the head being the base plus `added` by `by`. */
function evidence(
  shadowed: RunRecord["shadowed"],
  added: string[],
  by: ReturnType<typeof commit>,
  base: string[] = BASE,
): RunnerEvidence {
  const head = [...base, ...added];
  return {
    proof: {
      file: "run-record.json",
      result: { record: { ...structuredClone(RECORDED), shadowed }, errors: [] },
      leased: [],
    },
    shadows: findToolShadows(head, {}, base),
    shadowing: { trees: { base, head }, touched: [{ commit: by, paths: ["more_itertools/more.py", ...added] }] },
    scans: [],
  };
}

const shadowFindings = (e: RunnerEvidence) =>
  runnerTamperingFindings(e, POLICY).filter((f) => /shadow|in place of/.test(f.message));

describe("runner_tampering for shadowing modules, judged against the base", () => {
  it("the project's own package, also installed (more_itertools via Debian's pytest), is quiet", () => {
    const e = evidence([{ module: "more_itertools", path: "more_itertools/__init__.py" }], [], commit(BOT));
    expect(shadowFindings(e)).toEqual([]);
  });

  it("a folder on sys.path before pytest started (PYTHONPATH, an editable install's .pth) was on the base's path too", () => {
    const base = ["src/more_itertools/__init__.py", "tests/__init__.py", "tests/test_more.py"];
    const e = evidence([{ module: "more_itertools", path: "src/more_itertools/__init__.py" }], [], commit(BOT), base);
    e.proof!.result.record!.sysPath = ["."];
    expect(shadowFindings(e)).toHaveLength(1);
    e.proof!.result.record!.sysPath = [".", "src"];
    expect(shadowFindings(e)).toEqual([]);
  });

  it("without the base's tree every module the record names is judged, as before", () => {
    const e = { ...evidence([{ module: "more_itertools", path: "more_itertools/__init__.py" }], [], commit(BOT)) };
    delete e.shadowing;
    expect(shadowFindings(e).map((f) => f.message)).toEqual([
      "the run imported work-tree modules in place of installed or standard ones: more_itertools from more_itertools/__init__.py",
    ]);
  });

  it("an agent's added json.py is reported from the record and statically, with fixes that work", () => {
    const e = evidence(
      [
        { module: "json", path: "json.py" },
        { module: "more_itertools", path: "more_itertools/__init__.py" },
      ],
      ["json.py"],
      commit(BOT),
    );
    const found = shadowFindings(e);
    expect(found.map((f) => [f.file, f.message.slice(0, 60)])).toEqual([
      ["json.py", "the run imported work-tree modules in place of installed or "],
      ["json.py", "json.py in the repository root shadows the standard library'"],
    ]);
    expect(found[0]!.message).not.toContain("more_itertools");
    // The tests package puts the root on sys.path anyway: `python -P` is not offered.
    for (const f of found) {
      expect(f.fix).toBe("rename or remove json.py; a human who means it commits it with `Gate-Change: human`");
    }
  });

  it("the same module added by a human with Gate-Change: human is allowed; without the trailer it is not", () => {
    const record = [{ module: "pluggy", path: "pluggy.py" }];
    expect(shadowFindings(evidence(record, ["pluggy.py"], commit(ADA, "Gate-Change")))).toEqual([]);
    expect(shadowFindings(evidence(record, ["pluggy.py"], commit(ADA)))).toHaveLength(2);
    // An agent's trailer counts for nothing.
    expect(shadowFindings(evidence(record, ["pluggy.py"], commit(BOT, "Gate-Change")))).toHaveLength(2);
  });

  it("a base module made shadowing by removing its folder's __init__.py is the commit's that removed it", () => {
    const base = [...BASE, "tests/json.py"];
    const head = base.filter((p) => p !== "tests/__init__.py");
    const e: RunnerEvidence = {
      ...evidence([{ module: "json", path: "tests/json.py" }], [], commit(BOT), base),
      shadows: findToolShadows(head, {}, base),
    };
    e.shadowing = { trees: { base, head }, touched: [{ commit: commit(BOT), paths: ["tests/__init__.py"] }] };
    expect(shadowFindings(e).map((f) => f.file)).toEqual(["tests/json.py", "tests/json.py"]);
    e.shadowing.touched = [{ commit: commit(ADA, "Gate-Change"), paths: ["tests/__init__.py"] }];
    expect(shadowFindings(e)).toEqual([]);
  });
});

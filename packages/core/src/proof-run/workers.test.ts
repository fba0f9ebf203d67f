import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { judgeRunIntegrity } from "./judges.js";
import { verifyRunRecord } from "./record.js";
import { verifyDistributedRun, workerRecordFile } from "./workers.js";

// The real plugin's record of a plain run (__fixtures__/README.md), cut into a pytest-xdist controller's
// record and two workers' parts the way the plugin writes them under `-n 2`.
const KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const NONCE = "0123456789abcdef0123456789abcdef";
const FILE = "proofgate-report/proof-record.json";
const RECORDED = JSON.parse(readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8")) as Json;
const expected = { nonce: NONCE, key: KEY, file: FILE };

type Json = Record<string, unknown>;
interface Phase {
  when: string;
  logged?: string;
  logged_xfail?: string;
  reason?: string;
  message?: string;
}
interface Test {
  id: string;
  outcome: string;
  phases: Phase[];
}

const sign = (payload: Json, key = KEY): string => {
  const rest = { ...payload };
  delete rest.signature;
  const signature = createHmac("sha256", Buffer.from(key, "hex")).update(canonicalJson(rest)!).digest("hex");
  return JSON.stringify({ ...rest, signature });
};

const tests = RECORDED.tests as Test[];
const left = new Set([
  ...(RECORDED.deselected as { proofgate: string[] }).proofgate,
  ...(RECORDED.deselected as { other: string[] }).other,
]);
const scheduled = (RECORDED.collected as string[]).filter((id) => !left.has(id));
const half = Math.ceil(tests.length / 2);

/** Worker `id`'s part: the whole collection and deselection, and its share of the tests. */
const part = (id: string, share: Test[], edit: (p: Json) => void = () => {}): string => {
  const p: Json = { ...RECORDED, tests: share, xdist: { role: "worker", worker: id } };
  edit(p);
  return sign(p);
};

/** The controller: nothing collected, the reports it logged, its workers. */
function controller(edit: (p: Json) => void = () => {}): string {
  const logged = tests.map((t) => ({
    ...t,
    phases: t.phases
      .filter((ph) => ph.logged !== undefined)
      .map(({ when, logged, logged_xfail, reason, message }) => ({ when, logged, logged_xfail, reason, message })),
  }));
  const worker = (id: string) => ({ id, ready: true, scheduled, down: true, error: null });
  const p: Json = {
    ...RECORDED,
    collected: [],
    deselected: { proofgate: [], other: [] },
    collection: [],
    files: [],
    tests: JSON.parse(JSON.stringify(logged)) as unknown,
    xdist: { role: "controller", workers: [worker("gw0"), worker("gw1")] },
  };
  edit(p);
  return sign(p);
}

function run(main: string, parts: Record<string, string | undefined>) {
  const read = (file: string): string | undefined => {
    for (const [id, text] of Object.entries(parts)) if (file === workerRecordFile(FILE, id)) return text;
    return undefined;
  };
  return verifyDistributedRun(verifyRunRecord(main, expected), read, expected);
}

const both = { gw0: part("gw0", tests.slice(0, half)), gw1: part("gw1", tests.slice(half)) };

describe("verifyDistributedRun", () => {
  it("merges the workers' parts into the record a plain run writes: collection, deselection, tests, files", () => {
    const { record, errors } = run(controller(), both);
    expect(errors).toEqual([]);
    const plain = verifyRunRecord(sign(RECORDED), expected).record!;
    expect(record!.collected).toEqual(plain.collected);
    expect(record!.deselected).toEqual(plain.deselected);
    expect(record!.tests).toEqual(plain.tests);
    expect(record!.collection).toEqual(plain.collection);
    expect(record!.files).toEqual(plain.files);
    expect(record!.xdist).toMatchObject({ role: "controller", relay: [] });
    expect(judgeRunIntegrity(record!).map((f) => f.code)).toEqual(judgeRunIntegrity(plain).map((f) => f.code));
  });

  it("returns a plain run's record as it is, and reads no part", () => {
    const main = verifyRunRecord(sign(RECORDED), expected);
    expect(verifyDistributedRun(main, () => expect.fail("read a part"), expected)).toBe(main);
  });

  it("a worker without a part is an error of the run, naming the part's file", () => {
    const { record, errors } = run(controller(), { gw0: both.gw0 });
    expect(record).toBeUndefined();
    expect(errors).toMatchObject([{ problem: "missing", file: `${FILE}.workers/gw1.json` }]);
    expect(errors[0]!.message).toMatch(/^pytest-xdist worker gw1: the proof run wrote no run record/);
  });

  it("a part edited after it was signed, signed with another key, or of another run is refused", () => {
    const edited = JSON.stringify({ ...(JSON.parse(both.gw1) as Json), tests: [] });
    expect(run(controller(), { ...both, gw1: edited }).errors).toMatchObject([{ problem: "bad_signature" }]);
    const otherKey = sign({ ...(JSON.parse(both.gw1) as Json) }, "ff".repeat(32));
    expect(run(controller(), { ...both, gw1: otherKey }).errors).toMatchObject([{ problem: "bad_signature" }]);
    const otherRun = part("gw1", tests.slice(half), (p) => (p.nonce = "f".repeat(32)));
    expect(run(controller(), { ...both, gw1: otherRun }).errors).toMatchObject([{ problem: "wrong_nonce" }]);
  });

  it("another worker's part in a worker's place is refused", () => {
    const { errors } = run(controller(), { ...both, gw1: both.gw0 });
    expect(errors).toMatchObject([{ problem: "malformed", file: `${FILE}.workers/gw1.json` }]);
    expect(errors[0]!.message).toContain('is worker "gw0"\'s');
  });

  it("a controller that started no worker, or a worker's part given as the record, is refused", () => {
    const none = controller((p) => (p.xdist = { role: "controller", workers: [] }));
    expect(run(none, {}).errors[0]!.message).toContain("started no worker");
    expect(run(both.gw0, {}).errors[0]!.message).toContain("worker \"gw0\"'s part, not the controller's");
    const odd = controller(
      (p) =>
        (p.xdist = { role: "controller", workers: [{ id: "../x", ready: true, scheduled, down: true, error: null }] }),
    );
    expect(run(odd, {}).errors[0]!.message).toContain('names a pytest-xdist worker "../x"');
  });

  it("a report the controller logged otherwise than its worker is relay_mismatch", () => {
    const failed = tests.find((t) => t.outcome === "failed")!;
    const main = controller((p) => {
      const t = (p.tests as Test[]).find((x) => x.id === failed.id)!;
      for (const ph of t.phases) if (ph.logged === "failed") ph.logged = "passed";
    });
    const { record } = run(main, both);
    const relay = judgeRunIntegrity(record!).find((f) => f.code === "relay_mismatch");
    expect(relay?.message).toContain(`${failed.id}: the controller logged`);
    expect(relay?.message).toMatch(/call passed.*its worker.*call failed/);
  });

  it("a worker that ran other tests than it told the controller, or went down, is relay_mismatch", () => {
    const main = controller((p) => {
      const workers = (p.xdist as { workers: Json[] }).workers;
      workers[0]!.scheduled = scheduled.slice(1);
      workers[1]!.error = "Traceback: worker crashed";
    });
    const { record } = run(main, both);
    const message = judgeRunIntegrity(record!).find((f) => f.code === "relay_mismatch")?.message;
    expect(message).toContain(`worker gw0 told the controller it would run ${scheduled.length - 1} test(s)`);
    expect(message).toContain("worker gw1 went down: Traceback: worker crashed");
  });

  it("a worker that reordered its tests (pytest-randomly) ran what it said", () => {
    const main = controller((p) => {
      for (const w of (p.xdist as { workers: Json[] }).workers) w.scheduled = [...scheduled].reverse();
    });
    const { record } = run(main, both);
    expect(record!.xdist).toMatchObject({ relay: [] });
  });

  it("a worker that deselected otherwise than the others is relay_mismatch", () => {
    const gw1 = part("gw1", tests.slice(half), (p) => (p.deselected = { proofgate: [], other: [] }));
    const main = controller((p) => {
      (p.xdist as { workers: Json[] }).workers[1]!.scheduled = RECORDED.collected;
    });
    const { record } = run(main, { ...both, gw1 });
    expect(record!.xdist).toMatchObject({ relay: ["worker gw1 deselected other tests than worker gw0"] });
  });

  it("a test reported by two workers is relay_mismatch", () => {
    const { record } = run(controller(), { gw0: both.gw0, gw1: part("gw1", tests) });
    const relay = record!.xdist?.role === "controller" ? record!.xdist.relay : [];
    expect(relay).toEqual(tests.slice(0, half).map((t) => `${t.id} was reported by two workers (the second: gw1)`));
  });
});

// A proof run under pytest-xdist (docs/proof-run-record.md#pytest-xdist): the controller collects and
// runs nothing; each worker collects, deselects, runs its share and writes its own signed record part. The
// gate verifies every part the controller names and merges them into one record the judges read as they
// read a plain run's, with what the controller logged reconciled against what the workers recorded.
import type { ExpectedRun, RunPhase, RunRecord, RunRecordIssue, RunRecordResult, RunTest } from "./record.js";
import { verifyRunRecord } from "./record.js";

/** Where worker `worker` of the run whose record is `file` writes its part. */
export function workerRecordFile(file: string, worker: string): string {
  return `${workerRecordDir(file)}/${worker}.json`;
}

/** The folder of a run's worker parts (removed before the run, like the record). */
export function workerRecordDir(file: string): string {
  return `${file}.workers`;
}

const WORKER_ID = /^[A-Za-z0-9_-]{1,64}$/;

const FIX =
  "run the proof step through `proofgate check --run` and let every pytest-xdist worker end its session: " +
  "a worker that crashed, was killed or lost its record leaves its tests without evidence";

/**
 * A verified record as the judges read it. A plain run's record is returned as it is. A pytest-xdist
 * controller's is merged with its workers' parts (read with `readPart`, verified against the same nonce
 * and key): a part missing, unsigned, of another run or of another worker is an error of the run, and so
 * is a controller that started no worker. What the controller's view and the parts disagree on (a worker
 * that ran other tests than it told the controller, a report logged differently by the controller than by
 * its worker, a test reported by two workers) is kept in the merged record's `xdist.relay`.
 */
export function verifyDistributedRun(
  main: RunRecordResult,
  readPart: (file: string) => string | undefined,
  expected: ExpectedRun,
): RunRecordResult {
  const record = main.record;
  if (record?.xdist === undefined) return main;
  const bad = (message: string, file = expected.file): RunRecordResult => ({
    errors: [{ code: "run_record_invalid", problem: "malformed", file, message, fix: FIX }],
  });
  const xdist = record.xdist;
  if (xdist.role === "worker")
    return bad(`the run record is pytest-xdist worker ${JSON.stringify(xdist.worker)}'s part, not the controller's`);
  if (xdist.workers.length === 0)
    return bad("the pytest-xdist controller started no worker: no test was collected or run");
  const errors: RunRecordIssue[] = [];
  const parts: Array<{ id: string; record: RunRecord }> = [];
  for (const w of xdist.workers) {
    if (!WORKER_ID.test(w.id)) return bad(`the run record names a pytest-xdist worker ${JSON.stringify(w.id)}`);
    const file = workerRecordFile(expected.file, w.id);
    const r = verifyRunRecord(readPart(file), { ...expected, file });
    for (const e of r.errors)
      errors.push({
        ...e,
        message: `pytest-xdist worker ${w.id}${w.error ? ` (went down: ${w.error})` : ""}: ${e.message}`,
        fix: e.problem === "missing" ? FIX : e.fix,
      });
    if (!r.record) continue;
    const own = r.record.xdist;
    if (own?.role !== "worker" || own.worker !== w.id) {
      errors.push({
        code: "run_record_invalid",
        problem: "malformed",
        file,
        message: `the record part for pytest-xdist worker ${w.id} is ${own?.role === "worker" ? `worker ${JSON.stringify(own.worker)}'s` : "not a worker's"}`,
        fix: FIX,
      });
      continue;
    }
    parts.push({ id: w.id, record: r.record });
  }
  if (errors.length > 0) return { errors };
  return { record: mergeWorkerRecords(record, parts), errors: [] };
}

/** The same ids, in any order (a plugin may reorder the items, as pytest-randomly does in every worker). */
function sameIds(a: readonly string[], b: readonly string[]): boolean {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((id, i) => id === y[i]);
}

/** One logged view of a phase: its outcome, and whether it was an xfail. */
const loggedKey = (p: RunPhase): string | undefined =>
  p.logged === undefined ? undefined : `${p.logged}${p.loggedXfail === undefined ? "" : " (xfail)"}`;

function loggedViews(test: RunTest): string[] {
  return [...test.phases, ...(test.subtests ?? [])]
    .map((p) => (loggedKey(p) === undefined ? undefined : `${p.when} ${loggedKey(p)}`))
    .filter((v): v is string => v !== undefined)
    .sort();
}

const uniqueBy = <T>(items: Iterable<T>, key: (item: T) => string): T[] => {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
};

/**
 * The controller's record with its workers' parts (already verified): what was collected, deselected and
 * run, the files, hooks, patches and replacements of every process; each test as its worker recorded it.
 */
export function mergeWorkerRecords(
  controller: RunRecord,
  parts: ReadonlyArray<{ id: string; record: RunRecord }>,
): RunRecord {
  const xdist = controller.xdist;
  const workers = xdist?.role === "controller" ? xdist.workers : [];
  const all = [controller, ...parts.map((p) => p.record)];
  const relay: string[] = [];

  // What each worker told the controller it would run, against what its record collected and deselected.
  for (const w of workers) {
    const part = parts.find((p) => p.id === w.id)?.record;
    if (part === undefined) continue;
    const left = new Set([...part.deselected.proofgate, ...part.deselected.other]);
    const kept = part.collected.filter((id) => !left.has(id));
    if (w.scheduled === null) relay.push(`worker ${w.id} never told the controller which tests it collected`);
    else if (!sameIds(w.scheduled, kept))
      relay.push(
        `worker ${w.id} told the controller it would run ${w.scheduled.length} test(s), but its record collected ${part.collected.length} and deselected ${left.size}`,
      );
    if (w.error !== null) relay.push(`worker ${w.id} went down: ${w.error}`);
    else if (!w.down) relay.push(`worker ${w.id} never reported the end of its session to the controller`);
  }

  // Every worker collects the whole suite and deselects the same leases (xdist refuses workers that
  // collected differently): one that deselected otherwise ran tests another left out.
  const [first, ...rest] = parts;
  for (const p of first ? rest : []) {
    const a = first!.record;
    const b = p.record;
    if (!sameIds(a.collected, b.collected)) relay.push(`worker ${p.id} collected other tests than worker ${first!.id}`);
    if (!sameIds(a.deselected.proofgate, b.deselected.proofgate) || !sameIds(a.deselected.other, b.deselected.other))
      relay.push(`worker ${p.id} deselected other tests than worker ${first!.id}`);
  }

  // Each test as its worker recorded it; the same test from two workers is not a run xdist makes.
  const tests = new Map<string, RunTest>();
  for (const { id, record } of parts) {
    for (const test of record.tests) {
      if (tests.has(test.id)) relay.push(`${test.id} was reported by two workers (the second: ${id})`);
      else tests.set(test.id, test);
    }
  }
  // The reports the controller logged (its terminal, its JUnit XML) against the ones the workers logged.
  const logged = new Map(controller.tests.map((t) => [t.id, loggedViews(t)]));
  for (const id of new Set([...tests.keys(), ...logged.keys()])) {
    const worker = tests.get(id);
    const inWorker = worker ? loggedViews(worker) : [];
    const inController = logged.get(id) ?? [];
    if (inWorker.join("\n") === inController.join("\n")) continue;
    relay.push(
      `${id}: the controller logged ${inController.length > 0 ? inController.join(", ") : "nothing"}, its worker ${inWorker.length > 0 ? inWorker.join(", ") : "nothing"}`,
    );
  }

  const files = new Map<string, RunRecord["files"][number]>();
  for (const f of all.flatMap((r) => r.files)) {
    const was = files.get(f.path);
    if (was === undefined) {
      files.set(f.path, { ...f });
      continue;
    }
    was.read ||= f.read;
    was.write ||= f.write;
    // Opened outside any test in one process (collection, imports) is outside any test.
    if (f.first === null) was.first = null;
    was.writer ??= f.writer;
    was.via ??= f.via;
  }
  const guard: Record<string, boolean> = {};
  for (const r of all) for (const [hook, held] of Object.entries(r.guard)) guard[hook] = (guard[hook] ?? true) && held;
  const importers: Record<string, string | null> = {};
  for (const r of all) for (const [k, v] of Object.entries(r.importers ?? {})) if (!(k in importers)) importers[k] = v;
  const hypothesis = Object.assign({}, ...all.map((r) => r.hypothesis ?? {})) as NonNullable<RunRecord["hypothesis"]>;
  const anyHypothesis = all.some((r) => r.hypothesis !== undefined);
  const anyModules = all.some((r) => r.modules !== undefined);
  const anyImporters = all.some((r) => r.importers !== undefined);

  return {
    ...controller,
    collected: uniqueBy(
      parts.flatMap((p) => p.record.collected),
      (id) => id,
    ),
    deselected: {
      proofgate: uniqueBy(
        parts.flatMap((p) => p.record.deselected.proofgate),
        (id) => id,
      ),
      other: uniqueBy(
        parts.flatMap((p) => p.record.deselected.other),
        (id) => id,
      ),
    },
    tests: [...tests.values()],
    collection: uniqueBy(
      parts.flatMap((p) => p.record.collection),
      (c) => c.id,
    ),
    audit: all.every((r) => r.audit),
    files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    patched: uniqueBy(
      all.flatMap((r) => r.patched),
      (p) => p.name,
    ),
    hooks: uniqueBy(
      all.flatMap((r) => r.hooks),
      (h) => `${h.plugin}\n${h.hook}`,
    ),
    guard,
    plugins: uniqueBy(
      all.flatMap((r) => r.plugins),
      (p) => p,
    ).sort(),
    shadowed: uniqueBy(
      all.flatMap((r) => r.shadowed),
      (s) => `${s.module}\n${s.path}\n${s.error ?? ""}`,
    ),
    replaced: uniqueBy(
      all.flatMap((r) => r.replaced),
      (r) => `${r.module}\n${r.name}\n${r.kind}`,
    ),
    hypothesis: anyHypothesis ? hypothesis : undefined,
    modules: anyModules ? [...new Set(all.flatMap((r) => r.modules ?? []))].sort() : undefined,
    importers: anyImporters ? importers : undefined,
    xdist: { role: "controller", workers: [...workers], relay },
  };
}

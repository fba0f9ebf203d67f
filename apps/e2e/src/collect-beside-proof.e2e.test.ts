// Issue 23 item 1: `[commands] collect_beside_proof = true`. The head's collect step starts with the proof
// run instead of before it (the proof run's deselection is planned on the ledger alone, and the universe is
// judged once both ended), so the collection's time comes off the check's. One project, made twice (the
// same files, the setting on or off in the base's proofgate.toml): the same report (decision, reasons,
// counts, proven coverage, findings) on real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 (and
// pytest-xdist 3.1), including the cases a review found where a universe taken from the proof run's own
// collection would have judged otherwise (a test that hides from the proof run, a base hook that drops
// tests without a word).
import { describe, expect, it } from "vitest";
import type { CheckReport, CheckRun, FileChange, PatchCommit } from "./check-project.js";
import {
  check,
  config,
  lease,
  ledger,
  makeCheckProject,
  proofCommand,
  PY,
  TEST_A,
  withoutKeys,
} from "./check-project.js";

const BESIDE = "collect_beside_proof = true\n";

const explain = (r: CheckRun): string =>
  `exit ${r.status}\n${r.report.details.map((d) => `${d.reason}: ${d.message}`).join("\n")}\n${r.report.errors
    .map((e) => `${e.code}: ${e.message}`)
    .join("\n")}\n${r.stderr.slice(-3000)}`;

/**
 * The report but its inputs' digests (JUnit times, coverage.py's timestamp), the steps (their times and
 * the order they ended in) and the commits' names (the two projects' configs differ, so their commits do).
 */
function comparable(report: CheckReport): unknown {
  const text = JSON.stringify(report).replace(/\b(?:[0-9a-f]{40}|[0-9a-f]{12})\b/g, "<commit>");
  return withoutKeys(JSON.parse(text), new Set(["inputs", "seconds", "commands"]));
}

/** The head's steps with their exit codes, sorted (the base's, run beside them, left out). */
const steps = (r: CheckRun): string[] =>
  (r.report.commands ?? [])
    .filter((c) => !c.step.startsWith("base "))
    .map((c) => `${c.step}:${c.exit_code}`)
    .sort();

/** One project checked twice: its collect before the proof run (as before), and beside it. */
async function both(
  o: { base?: Record<string, FileChange>; patch?: PatchCommit[]; proof?: string } = {},
): Promise<{ before: CheckRun; beside: CheckRun; dir: string }> {
  const opts = o.proof === undefined ? {} : { proof: o.proof };
  const plain = makeCheckProject({ base: { ...o.base, "proofgate.toml": config(opts) }, patch: o.patch ?? [] });
  const other = makeCheckProject({
    base: { ...o.base, "proofgate.toml": config({ ...opts, extra: BESIDE }) },
    patch: o.patch ?? [],
  });
  const [a, b] = await Promise.all([
    check(plain.dir, ["--run", "--verbose"]),
    check(other.dir, ["--run", "--verbose"]),
  ]);
  return { before: a, beside: b, dir: other.dir };
}

/** Both checks: the decision and reasons given, and the same report. */
function same(r: { before: CheckRun; beside: CheckRun }, decision: string, reasons?: string[]): void {
  expect(r.before.report.decision, explain(r.before)).toBe(decision);
  expect(r.beside.report.decision, explain(r.beside)).toBe(decision);
  if (reasons) expect(r.beside.report.reasons).toEqual(reasons);
  expect(comparable(r.beside.report)).toEqual(comparable(r.before.report));
  expect(steps(r.beside)).toEqual(steps(r.before));
}

describe("[commands] collect_beside_proof: the head's collection beside the proof run", () => {
  it("a patch that merges: the same report; the proof run starts before the collection ends", async () => {
    const r = await both();
    same(r, "MERGE");
    expect(steps(r.beside)).toEqual(["collect:0", "proof:0", "properties:0"]);
    expect(r.beside.report.accounting).toMatchObject({ collected: 9, proven: 8, frozen: 1 });
    // Started together: the proof run's start is logged before the collection's end (`✔ collect`); the
    // collection's output (pytest's summary, into collected.txt here) is held and shown after it ended.
    const out = r.beside.stderr;
    const proofStarted = out.indexOf("▶ proof");
    const collectEnded = out.indexOf("✔ collect");
    expect(proofStarted, out).toBeGreaterThan(-1);
    expect(collectEnded, out).toBeGreaterThan(proofStarted);
    const before = r.before.stderr;
    expect(before.indexOf("✔ collect")).toBeLessThan(before.indexOf("▶ proof"));
  });

  it("a lease that names no collected test: unknown_leases, and the proof run is not stopped", async () => {
    const r = await both({
      base: { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[one]") }) },
    });
    same(r, "REJECT", ["unknown_leases"]);
    expect(r.beside.report.accounting).toMatchObject({ proven: 8, frozen: 1, missing: 0 });
  });

  it("a test the agent deletes: tests_removed", async () => {
    const r = await both({ patch: [{ message: "Drop a test file\n", files: { "tests/test_b.py": null } }] });
    expect(r.beside.report.reasons).toContain("tests_removed");
    same(r, "REJECT");
  });

  it("a test module that fails to import at head: REJECT, collection errors", async () => {
    const r = await both({
      patch: [{ message: "Add a test module\n", files: { "tests/test_c.py": "import no_such_module\n" } }],
    });
    expect(r.beside.report.reasons).toContain("collection_errors");
    same(r, "REJECT");
  });

  it("under pytest-xdist (-n 2): the same report", async () => {
    same(await both({ proof: proofCommand({ pytestArgs: "-n 2" }) }), "MERGE");
  });

  // The review's cases: a test that exists for developers but not in the proof run (or the reverse) is
  // caught only by a collection outside the proof run; the collection still is one.
  it("a new test that hides from the proof run (it exists only without coverage's tracer): REJECT", async () => {
    const hidden = "import sys\n\nif sys.gettrace() is None:\n\n    def test_hidden():\n        assert False\n";
    const r = await both({ patch: [{ message: "New tests\n", files: { "tests/test_hidden.py": hidden } }] });
    same(r, "REJECT");
    expect(r.beside.report.reasons).toContain("missing_evidence");
  });

  it("a new test that exists only in the proof run: REJECT", async () => {
    const extra = "import sys\n\nif sys.gettrace() is not None:\n\n    def test_extra():\n        pass\n";
    same(await both({ patch: [{ message: "Extra\n", files: { "tests/test_e.py": extra } }] }), "REJECT");
  });

  it("a base whose conftest.py drops tests without a word: MERGE, as before", async () => {
    const r = await both({
      base: {
        "tests/conftest.py":
          "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'slow' not in i.name]\n",
        "tests/test_c.py": "def test_fast():\n    pass\n\n\ndef test_slow():\n    pass\n",
      },
    });
    same(r, "MERGE");
  });

  it("a base hook that deselects a leased test: the same verdict", async () => {
    const hook =
      "def pytest_collection_modifyitems(config, items):\n    des = [i for i in items if i.name == 'test_frozen']\n    if des:\n        config.hook.pytest_deselected(items=des)\n    items[:] = [i for i in items if i.name != 'test_frozen']\n";
    const r = await both({ base: { "tests/conftest.py": hook } });
    same(r, r.before.report.decision);
    expect(r.beside.report.decision).not.toBe("MERGE");
  });

  it("a conftest.py that fails to import at head: exit 2 on both, never MERGE", async () => {
    const r = await both({
      patch: [{ message: "Break conftest\n", files: { "tests/conftest.py": "import no_such_module\n" } }],
    });
    for (const x of [r.before, r.beside]) {
      expect(x.status, explain(x)).toBe(2);
      expect(x.report.decision).not.toBe("MERGE");
    }
    expect(r.beside.report.errors[0]?.message).toContain("No module named 'no_such_module'");
  });

  it("the setting is the base's: an agent's patch that turns it on changes nothing", async () => {
    const p = makeCheckProject({
      patch: [
        {
          message: "Faster\n",
          files: { "proofgate.toml": config({ extra: BESIDE }), "tests/test_a.py": `${TEST_A}\n` },
        },
      ],
    });
    const r = await check(p.dir, ["--run"]);
    expect(r.report.reasons).toContain("protected_path");
    expect(steps(r)).toEqual(["collect:0", "proof:0", "properties:0"]);
  });

  it("a collect command that fails beside the proof run: exit 2 naming it, after the proof run ended", async () => {
    const p = makeCheckProject({
      base: { "proofgate.toml": config({ collect: `${PY} -c "import sys; sys.exit(3)"`, extra: BESIDE }) },
    });
    const r = await check(p.dir, ["--run"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.errors.map((e) => e.message).join("\n")).toMatch(/\[commands\] collect .* exited with 3/);
  });
});

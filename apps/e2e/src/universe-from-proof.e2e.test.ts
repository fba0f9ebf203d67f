// Issue 23 item 1: `[universe] from_proof_run = true`. The head's universe is the proof run's own collection
// (its signed run record), so `check --run` starts pytest once less at head; `[commands] collect` runs at the
// base only. One project, copied (the same commits), checked with the separate collection and with the proof
// run's: the same report (decision, reasons, counts, proven coverage, findings) but for the step list, on
// real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 (and pytest-xdist 3.1).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  check,
  config,
  FROZEN,
  lease,
  ledger,
  makeCheckProject,
  proofCommand,
  PY,
  type CheckReport,
  type CheckRun,
  type FileChange,
  type PatchCommit,
} from "./check-project.js";

const FROM_PROOF = "[universe]\nfrom_proof_run = true\n\n";

const explain = (r: CheckRun): string =>
  `exit ${r.status}\n${r.report.details.map((d) => `${d.reason}: ${d.message}`).join("\n")}\n${r.report.errors
    .map((e) => `${e.code}: ${e.message}`)
    .join("\n")}\n${r.stderr.slice(-3000)}`;

/**
 * The report but its inputs' digests (JUnit times, coverage.py's timestamp), the steps (one fewer here) and the
 * commits' names (the two projects' configs differ, so their commits do).
 */
function comparable(report: CheckReport): unknown {
  const text = JSON.stringify(report).replace(/\b(?:[0-9a-f]{40}|[0-9a-f]{12})\b/g, "<commit>");
  const drop = new Set(["inputs", "seconds", "commands"]);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([k]) => !drop.has(k))
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  return strip(JSON.parse(text));
}

/** The head's steps, in the order they ended (the base's, run beside them, left out). */
const steps = (r: CheckRun): string[] =>
  (r.report.commands ?? []).map((c) => c.step).filter((s) => !s.startsWith("base "));

/** One project checked twice: with `[commands] collect` at head (classic) and with the proof run's collection. */
async function both(
  o: { base?: Record<string, FileChange>; patch?: PatchCommit[]; proof?: string } = {},
): Promise<{ classic: CheckRun; fromProof: CheckRun; dir: string; classicDir: string }> {
  const text = config(o.proof === undefined ? {} : { proof: o.proof });
  const classic = makeCheckProject({ base: { ...o.base, "proofgate.toml": text }, patch: o.patch ?? [] });
  const other = makeCheckProject({ base: { ...o.base, "proofgate.toml": FROM_PROOF + text }, patch: o.patch ?? [] });
  const [a, b] = await Promise.all([check(classic.dir, ["--run"]), check(other.dir, ["--run"])]);
  return { classic: a, fromProof: b, dir: other.dir, classicDir: classic.dir };
}

const ids = (dir: string): string[] =>
  readFileSync(join(dir, "collected.txt"), "utf8")
    .split("\n")
    .filter((l) => l.includes("::"));

describe("[universe] from_proof_run: the proof run's collection is the head's universe", () => {
  it("a patch that merges: the same report, one pytest less, the universe written and bound", async () => {
    const { classic, fromProof, dir, classicDir } = await both();
    expect(classic.report.decision, explain(classic)).toBe("MERGE");
    expect(fromProof.report.decision, explain(fromProof)).toBe("MERGE");
    expect(comparable(fromProof.report)).toEqual(comparable(classic.report));
    expect(steps(classic)).toEqual(["collect", "proof", "properties"]);
    expect(steps(fromProof)).toEqual(["proof", "properties"]);
    expect(fromProof.stderr).not.toMatch(/\[commands\] collect .*started|^\$ .*--collect-only/m);
    expect(fromProof.report.accounting).toMatchObject({ collected: 9, proven: 8, frozen: 1 });
    // The listing the gate wrote is pytest's own (the frozen test in it), and the universe read is that file.
    expect(ids(dir)).toEqual(ids(classicDir));
    expect(ids(dir)).toContain(FROZEN);
    expect(fromProof.report.inputs.map((i) => i.role)).toContain("universe");
    // A later check without --run reads the same files, bound to the commit by the run's stamp.
    const again = await check(dir, []);
    expect(again.report.decision, explain(again)).toBe("MERGE");
    expect(again.report.accounting).toEqual(fromProof.report.accounting);
    expect(again.report.proven_coverage_percent).toBe(fromProof.report.proven_coverage_percent);
    const universeInput = (r: CheckRun) => r.report.inputs.find((i) => i.role === "universe");
    expect(universeInput(again)).toEqual(universeInput(fromProof));
  });

  it("a lease that names no collected test: unknown_leases, and the proof run still deselects exactly", async () => {
    const { classic, fromProof } = await both({
      base: { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[one]") }) },
    });
    expect(classic.report.reasons, explain(classic)).toEqual(["unknown_leases"]);
    expect(fromProof.report.reasons, explain(fromProof)).toEqual(["unknown_leases"]);
    expect(comparable(fromProof.report)).toEqual(comparable(classic.report));
    expect(fromProof.report.ledger!.unknown).toEqual([
      expect.objectContaining({
        nodeid: "tests/test_a.py::test_param[one]",
        close_ids: ["tests/test_a.py::test_param[1]", "tests/test_a.py::test_param[2]"],
      }),
    ]);
    expect(fromProof.report.accounting).toMatchObject({ proven: 8, frozen: 1, missing: 0 });
  });

  it("a test the agent deletes is tests_removed, as with the separate collection", async () => {
    const patch: PatchCommit = {
      message: "Drop a test\n",
      files: { "tests/test_b.py": null },
    };
    const { classic, fromProof } = await both({ patch: [patch] });
    expect(classic.report.reasons, explain(classic)).toContain("tests_removed");
    expect(fromProof.report.decision, explain(fromProof)).toBe("REJECT");
    expect(comparable(fromProof.report)).toEqual(comparable(classic.report));
  });

  it("a module that fails to import at head: collection errors, REJECT", async () => {
    const broken: PatchCommit = {
      message: "Add a test module\n",
      files: { "tests/test_c.py": "import no_such_module\n\n\ndef test_c():\n    pass\n" },
    };
    const { classic, fromProof, dir } = await both({ patch: [broken] });
    expect(classic.report.decision, explain(classic)).toBe("REJECT");
    expect(fromProof.report.decision, explain(fromProof)).toBe("REJECT");
    expect(fromProof.report.reasons).toContain("collection_errors");
    expect(readFileSync(join(dir, "collected.txt"), "utf8")).toMatch(/^ERROR tests\/test_c\.py - /m);
  });

  it("under pytest-xdist (-n 2): the same report as one process with the separate collection", async () => {
    const { classic, fromProof } = await both({ proof: proofCommand({ pytestArgs: "-n 2" }) });
    expect(classic.report.decision, explain(classic)).toBe("MERGE");
    expect(fromProof.report.decision, explain(fromProof)).toBe("MERGE");
    expect(comparable(fromProof.report)).toEqual(comparable(classic.report));
  });

  it("a proof run that leaves no record (pytest never ran): exit 2 naming the setting, never MERGE", async () => {
    // The command writes the files it must, so the gate reaches the record: there is none.
    const proof = `${PY} -c "import sys; sys.exit(3)"; s=$?; echo "{}" > proven_coverage.json; echo "<testsuites/>" > results.xml; exit $s`;
    const p = makeCheckProject({ base: { "proofgate.toml": FROM_PROOF + config({ proof }) } });
    const r = await check(p.dir, ["--run"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).not.toBe("MERGE");
    expect(r.report.errors).toEqual([
      expect.objectContaining({
        code: "universe_invalid",
        file: "collected.txt",
        message: expect.stringMatching(
          /^\[universe\] from_proof_run: the head's universe is the proof run's collection, but \[commands\] proof \(.*\) exited with 3 and left no run record the gate could verify \(/,
        ),
      }),
    ]);
  });

  it("a conftest.py that fails to import at head: exit 2 with pytest's error, never MERGE", async () => {
    const p = makeCheckProject({
      base: { "proofgate.toml": FROM_PROOF + config() },
      patch: [{ message: "Break conftest\n", files: { "tests/conftest.py": "import no_such_module\n" } }],
    });
    const r = await check(p.dir, ["--run"]);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).not.toBe("MERGE");
    expect(r.report.errors[0]?.message).toContain("No module named 'no_such_module'");
  });

  it("the setting is the base's: an agent's patch that turns it on still runs the separate collection", async () => {
    const p = makeCheckProject({
      patch: [{ message: "Faster\n", files: { "proofgate.toml": FROM_PROOF + config() } }],
    });
    const r = await check(p.dir, ["--run"]);
    expect(steps(r)).toEqual(["collect", "proof", "properties"]);
  });
});

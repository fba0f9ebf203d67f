// Issue 23 item 2: the proof run under pytest-xdist (`-n 2`), against Debian's pytest 7.2, pytest-xdist
// 3.1, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3. The same project checked with and without
// xdist gets the same report (decision, reasons, counts, proven coverage to the last digit, the findings),
// in the rerun mode (the frozen test deselected in every worker) and in the single-run mode (per-test
// contexts from every worker, combined by pytest-cov). A conftest.py that changes reports only in a worker,
// or only in the controller, and a worker whose record part is deleted or edited, are runner_tampering.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  check,
  config,
  copyProject,
  FROZEN,
  makeCheckProject,
  proofCommand,
  type CheckReport,
  type CheckRun,
  type FileChange,
  type PatchCommit,
  withoutKeys,
} from "./check-project.js";

const XDIST = "-n 2";

/**
 * The base's proofgate.toml: the rerun (default) or the single-run mode. The proof command takes pytest's
 * extra options from $E2E_XDIST, so one project (one history, the same commits) runs with and without xdist.
 */
const toml = (o: { single: boolean }): string => {
  const args = ["$E2E_XDIST", o.single ? "--cov-context=test" : ""].filter(Boolean).join(" ");
  const text = config({ proof: proofCommand({ pytestArgs: args }) });
  return o.single ? text.replace("[coverage]\n", '[coverage]\ncontexts = ".coverage"\n') : text;
};

const explain = (r: CheckRun): string =>
  `exit ${r.status}\n${r.report.details.map((d) => `${d.reason}: ${d.message}`).join("\n")}\n${r.report.errors
    .map((e) => `${e.code}: ${e.message}`)
    .join("\n")}\n${r.stderr.slice(-3000)}`;

/**
 * What must not depend on how pytest ran: the whole report but its inputs' digests (the JUnit XML's times
 * and coverage.py's timestamp differ from run to run) and each step's wall time.
 */
function comparable(report: CheckReport): unknown {
  return withoutKeys(report, new Set(["inputs", "seconds"]));
}

/** One project, copied (the same commits), checked without and with xdist; the folders xdist and plain ran in. */
async function both(
  single: boolean,
  o: { base?: Record<string, FileChange>; patch?: PatchCommit[] } = {},
): Promise<[CheckRun, CheckRun, string, string]> {
  const plain = makeCheckProject({ base: { ...o.base, "proofgate.toml": toml({ single }) }, patch: o.patch ?? [] });
  const copy = copyProject(plain);
  const [a, b] = await Promise.all([
    check(plain.dir, ["--run"], { E2E_XDIST: "" }),
    check(copy.dir, ["--run"], { E2E_XDIST: XDIST }),
  ]);
  return [a, b, copy.dir, plain.dir];
}

interface Part {
  xdist: { role: string; worker?: string };
  collected: string[];
  deselected: { proofgate: string[]; other: string[] };
  tests: { id: string; outcome: string }[];
}

/** The proof run's record parts, one per worker (none without xdist). */
function parts(dir: string): Part[] {
  const folder = join(dir, "proofgate-report", "proof-record.json.workers");
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(folder, f), "utf8")) as Part);
}

/** A patch commit by the agent that adds a test which fails. */
const FAILING: PatchCommit = {
  message: "Add a check of the label\n",
  files: {
    "tests/test_c.py": `from pkg.calc import label


def test_label_is_wrong():
    assert label(1) == "big"
`,
  },
};

describe("the same report with and without pytest-xdist", () => {
  for (const single of [false, true]) {
    const mode = single ? "single run (--cov-context=test)" : "rerun (the frozen test deselected)";
    it(`${mode}: a patch that merges`, async () => {
      const [plain, distributed, dir, plainDir] = await both(single);
      expect(plain.report.decision, explain(plain)).toBe("MERGE");
      expect(distributed.report.decision, explain(distributed)).toBe("MERGE");
      expect(comparable(distributed.report)).toEqual(comparable(plain.report));
      const inputs = (r: CheckRun) => r.report.inputs.map((i) => `${i.role} ${i.path}`);
      expect(inputs(distributed)).toEqual(inputs(plain));
      expect(distributed.report.proven_coverage_percent).toBe(plain.report.proven_coverage_percent);
      expect(distributed.report.accounting).toEqual(plain.report.accounting);
      expect(distributed.report.accounting).toMatchObject({ collected: 9, proven: 8, frozen: 1 });
      // Two workers ran, each collected everything; the frozen test was deselected in each (rerun) or ran
      // in one of them (single run); together they ran every other test once.
      const workers = parts(dir);
      expect(workers.map((w) => w.xdist)).toEqual([
        { role: "worker", worker: "gw0" },
        { role: "worker", worker: "gw1" },
      ]);
      for (const w of workers) {
        expect(w.collected).toHaveLength(9);
        expect(w.deselected.proofgate).toEqual(single ? [] : [FROZEN]);
      }
      const ran = workers.flatMap((w) => w.tests.map((t) => t.id)).sort();
      expect(ran).toHaveLength(single ? 9 : 8);
      expect(new Set(ran).size).toBe(ran.length);
      expect(ran.includes(FROZEN)).toBe(single);
      expect(parts(plainDir)).toEqual([]);
      // The line only the frozen test reaches is not proven; in the single run, because its context
      // (recorded in a worker, combined by pytest-cov) names the frozen test.
      expect(distributed.report.proven_coverage_percent).toBeLessThan(100);
      if (single) {
        const coverage = distributed.report.coverage as {
          raw: { covered_lines: number };
          covered_lines: number;
          frozen_only: { files: { ranges: { tests?: string[] }[] }[] };
        };
        expect(coverage.covered_lines).toBeLessThan(coverage.raw.covered_lines);
        expect(coverage.frozen_only.files[0]?.ranges[0]?.tests).toEqual([FROZEN]);
      }
    });

    it(`${mode}: a patch with a failing test`, async () => {
      const [plain, distributed] = await both(single, { patch: [FAILING] });
      expect(plain.report.decision, explain(plain)).toBe("REJECT");
      expect(distributed.report.decision, explain(distributed)).toBe("REJECT");
      expect(comparable(distributed.report)).toEqual(comparable(plain.report));
    });
  }
});

// ---------------------------------------------------------------------------------------------------
// Tampering under xdist. The conftest.py is the base's (a human's): the patch adds nothing that a static
// scan would see, so only the run's records can show it.

const IN_WORKER = `os.environ.get("PYTEST_XDIST_WORKER")`;

const flipper = (where: "worker" | "controller"): string => `import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    # Only in ${where === "worker" ? "a pytest-xdist worker" : "pytest-xdist's controller"}.
    if ${where === "worker" ? "" : "not "}${IN_WORKER} and report.failed:
        report.outcome = "passed"
`;

/** A conftest.py that, in worker gw1 only, deletes or edits its record part once the session ended. */
const partTamperer = (how: "delete" | "forge"): string => `import glob
import json
import os


def pytest_unconfigure(config):
    if os.environ.get("PYTEST_XDIST_WORKER") != "gw1":
        return
    for part in glob.glob(os.path.join("proofgate-report", "*.workers", "gw1.json")):
        ${
          how === "delete"
            ? "os.remove(part)"
            : `with open(part) as f:
            record = json.load(f)
        record["tests"] = []
        with open(part, "w") as f:
            json.dump(record, f)`
        }
`;

async function distributed(base: Record<string, FileChange>, patch: PatchCommit[] = []): Promise<CheckRun> {
  const p = makeCheckProject({ base: { ...base, "proofgate.toml": toml({ single: false }) }, patch });
  return check(p.dir, ["--run"], { E2E_XDIST: XDIST });
}

const tampering = (r: CheckRun): string[] =>
  r.report.details.filter((d) => d.reason === "runner_tampering").map((d) => d.message);

describe("tampering under pytest-xdist", () => {
  it("a conftest.py that turns a failure into a pass only in the workers is caught in the worker's record", async () => {
    const r = await distributed({ "tests/conftest.py": flipper("worker") }, [FAILING]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.report.reasons).toContain("runner_tampering");
    expect(tampering(r).join("\n")).toContain(
      "tests/test_c.py::test_label_is_wrong: its call report was failed when made, but logged passed",
    );
  });

  it("a conftest.py that turns a failure into a pass only in the controller is caught against the worker's record", async () => {
    const r = await distributed({ "tests/conftest.py": flipper("controller") }, [FAILING]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.report.reasons).toContain("runner_tampering");
    expect(tampering(r).join("\n")).toContain(
      "pytest-xdist's controller and its workers' records disagree: tests/test_c.py::test_label_is_wrong: the controller logged call passed, setup passed, teardown passed, its worker call failed, setup passed, teardown passed",
    );
  });

  it("a worker whose record part is deleted is caught", async () => {
    const r = await distributed({ "tests/conftest.py": partTamperer("delete") });
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.report.reasons).toContain("runner_tampering");
    expect(tampering(r).join("\n")).toContain(
      "the proof run wrote no valid run record: pytest-xdist worker gw1: the proof run wrote no run record",
    );
  });

  it("a worker whose record part is edited is caught by its signature", async () => {
    const r = await distributed({ "tests/conftest.py": partTamperer("forge") });
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.report.reasons).toContain("runner_tampering");
    expect(tampering(r).join("\n")).toContain(
      "pytest-xdist worker gw1: the run record's signature does not match this run's key",
    );
  });
});

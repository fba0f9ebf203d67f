// Seed parity (GATE.md 12): proofgate against what the article's reference script answered on the same
// generated inputs (parity-cases.ts), as recorded in __fixtures__/parity/recording.json. Where the script
// is right they must agree: the same `deselect` stdout and exit code, the same values under the article's
// 11 `decide` keys and the same exit code. Where the script is wrong (shared/reference/README.md), a test
// per fault shows what the script answered and what proofgate answers instead, and why.
//
// No script is needed here: proofgate runs in-process with its clock (`io.now`) pinned to the recording's
// instant, the day the script's clock was pinned to. parity-recording.test.ts runs the script again where
// it is present and fails when the recording is stale. Needs `pnpm build` (the CLI imports core's dist).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { run } from "./main.js";
import {
  ALL_CASES,
  DATES_1,
  DATES_2,
  FAULTS,
  GET,
  GET_SLOW,
  PARITY_CASES,
  PARITY_NOW,
  PARITY_TODAY,
  RECORD_COMMAND,
  RECORDING_FILE,
  STALE_ID,
  UNIVERSE,
  caseFiles,
  commandArgs,
  readRecording,
  recordingDifferences,
  recordingOf,
  type CaseSpec,
  type RecordedRun,
  type ScriptCommand,
} from "./parity-cases.js";

/** The keys of the article's report, the ones proofgate must match value for value. */
const ARTICLE_KEYS = [
  "today_utc",
  "collected_tests",
  "active_leases",
  "expired_leases",
  "proven_coverage_percent",
  "min_proven_coverage_percent",
  "fixture_digest_delta",
  "property_failures",
  "agent_added_leases",
  "reasons",
  "decision",
] as const;

const recording = readRecording();
const STALE = `${RECORDING_FILE} is stale: run \`${RECORD_COMMAND}\` (needs the reference script) and review the diff`;

/** What the script answered on the case, from the recording. */
function script(c: CaseSpec, command: ScriptCommand): RecordedRun {
  const run = recording.cases.find((r) => r.name === c.name)?.runs[command];
  if (!run) throw new Error(`no recorded ${command} for "${c.name}": ${STALE}`);
  return run;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let root = "";
let counter = 0;

/** Writes the case's files into a fresh folder and returns it. */
function materialise(c: CaseSpec): string {
  const dir = join(root, `case-${++counter}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(caseFiles(c))) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * Runs proofgate in-process on the case's files, its clock pinned to the recording's instant (not
 * `--today`, which is a clock override and a REJECT of its own). `deselect` answers to the script's
 * `emit-deselect`; the arguments are the script's, the paths absolute (the runner's folder is not the case's).
 */
async function gate(dir: string, command: ScriptCommand, flags: string[] = []): Promise<Run> {
  const name = command === "emit-deselect" ? "deselect" : command;
  const args = commandArgs(command).map((a, i) => (i % 2 === 1 ? join(dir, a) : a));
  let stdout = "";
  let stderr = "";
  const code = await run([name, ...args, ...flags], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    now: () => new Date(PARITY_NOW),
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1" },
  });
  const strip = (text: string): string => text.split(`${dir}/`).join("");
  return { code, stdout: strip(stdout), stderr: strip(stderr) };
}

function articleValues(stdout: string): Record<string, unknown> {
  const report = JSON.parse(stdout) as Record<string, unknown>;
  return Object.fromEntries(ARTICLE_KEYS.map((k) => [k, report[k]]));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "proofgate-parity-"));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the recording", () => {
  it("holds every case, on the inputs the cases write, at the pinned instant", ({ expect }) => {
    // The runs are compared where the script is (parity-recording.test.ts); the inputs can be here.
    const inputsOnly = (r: typeof recording) => ({
      now: r.now,
      cases: r.cases.map(({ name, files, runs }) => ({
        name,
        files,
        argv: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.argv])),
      })),
    });
    const expected = recordingOf((_c, _command, argv) => ({ argv, code: 0, stdout: "", stderr: "" }));
    expect(recordingDifferences(inputsOnly(recording), inputsOnly(expected)), STALE).toEqual([]);
    expect(recording.cases).toHaveLength(ALL_CASES.length);
  });
});

// ---------------------------------------------------------------------------------------------
// Where the script is right, proofgate answers as it did.

describe("parity with the reference script where it is right", () => {
  it.for(PARITY_CASES)("$name", async (c, { expect }) => {
    const sd = script(c, "emit-deselect");
    const sc = script(c, "decide");
    const dir = materialise(c);
    const [gd, gc] = await Promise.all([gate(dir, "emit-deselect"), gate(dir, "decide", c.flags ?? [])]);

    // deselect: the same lines on stdout and the same exit code.
    expect(sd.stderr).not.toMatch(/Traceback/);
    if (c.expect.deselect >= 0) expect(sd.code).toBe(c.expect.deselect);
    expect(gd.stdout).toBe(sd.stdout);
    expect(gd.code).toBe(sd.code);

    // decide: the article's keys with the same values, the same exit code.
    if (c.deselectOnly) return;
    expect(sc.stderr).not.toMatch(/Traceback/);
    const values = articleValues(sc.stdout);
    expect(values.today_utc).toBe(PARITY_TODAY);
    if (c.expect.decide >= 0) {
      expect(sc.code).toBe(c.expect.decide);
      expect(values.reasons).toEqual(c.expect.reasons);
    }
    expect(articleValues(gc.stdout)).toEqual(values);
    expect(gc.code).toBe(sc.code);
  });
});

// ---------------------------------------------------------------------------------------------
// Where the script is wrong, proofgate is right.

describe.concurrent("where the reference script is wrong", () => {
  it("counts test ids outside tests/ and ids with spaces: the script's pattern drops or truncates them", async ({
    expect,
  }) => {
    const c = FAULTS.outsideTests;
    const dir = materialise(c);
    const sd = script(c, "emit-deselect");
    const sc = script(c, "decide");
    const [gd, gc] = await Promise.all([gate(dir, "emit-deselect"), gate(dir, "decide")]);

    // The script: `^(tests/\S+::\S+)` misses the ids outside tests/ and cuts `t[a b]` to `t[a`, so it
    // counts 2 of 4 and calls both (collected) leases missing.
    expect(JSON.parse(sc.stdout).collected_tests).toBe(2);
    expect(sd.code).toBe(2);
    expect(sd.stderr).toContain("leases for missing nodeids");
    // proofgate: every line before the summary is an id.
    const report = JSON.parse(gc.stdout) as Record<string, unknown>;
    expect(report.collected_tests).toBe(4);
    expect(report.active_leases).toBe(2);
    expect(report.reasons).toEqual([]);
    expect(report.decision).toBe("MERGE");
    expect(gc.code).toBe(0);
    expect(gd.stdout).toBe("--deselect=tests/t.py::t[a b]\n--deselect=pkg/tests/test_x.py::t\n");
    expect(gd.code).toBe(0);
  });

  it("rejects a coverage JSON without `totals` as an input error: the script reads it as 0.0%", async ({ expect }) => {
    const c = FAULTS.noTotals;
    const sc = script(c, "decide");
    const gc = await gate(materialise(c), "decide");

    const reference = JSON.parse(sc.stdout) as Record<string, unknown>;
    expect(reference.proven_coverage_percent).toBe(0);
    expect(reference.reasons).toEqual(["proven_coverage"]);
    expect(sc.code).toBe(1);

    // A broken report is not a low number: the gate could not evaluate, exit 2, REJECT on stdout.
    expect(gc.code).toBe(2);
    const report = JSON.parse(gc.stdout) as {
      reasons: string[];
      decision: string;
      errors: { code: string; file: string | null; message: string }[];
      proven_coverage_percent: unknown;
    };
    expect(report.decision).toBe("REJECT");
    expect(report.reasons).toEqual(["input_error"]);
    expect(report.proven_coverage_percent).toBeNull();
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "coverage_invalid", file: "proven_coverage.json" });
    expect(report.errors[0]!.message).toContain("no `totals`");
    const lines = gc.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^proofgate: error: proven_coverage\.json: the report has no `totals`/);
    expect(gc.stderr).not.toMatch(/\n\s+at /);
  });

  it("warns that pytest's --deselect is a prefix match and names the unleased test it would also drop", async ({
    expect,
  }) => {
    const c = FAULTS.prefix;
    const dir = materialise(c);
    const sd = script(c, "emit-deselect");
    const gd = await gate(dir, "emit-deselect");

    // The same lines as the script (so pipelines built on it keep working), and the same exit code...
    expect(sd.stdout).toBe(`--deselect=${GET}\n`);
    expect(gd.stdout).toBe(sd.stdout);
    expect(gd.code).toBe(0);
    expect(sd.code).toBe(0);
    // ...but the script says nothing while `test_get_slow`, which has no lease, leaves the proof set.
    expect(sd.stderr).toBe("");
    expect(gd.stderr).toContain(`--deselect=${GET} also drops: ${GET_SLOW}`);
    expect(gd.stderr).toContain("--format plugin");
    // The exact form deselects the leased id only.
    const js = await gate(dir, "emit-deselect", ["--format", "json"]);
    expect(js.code).toBe(0);
    const plan = JSON.parse(js.stdout) as { deselected: string[]; prefix_collateral: unknown[] };
    expect(plan.deselected).toEqual([GET]);
    expect(plan.prefix_collateral).toEqual([{ lease: GET, also_dropped_by_plain_deselect: [GET_SLOW] }]);
  });

  it("refuses --min-proven nan: the script's NaN floor lets any coverage pass", async ({ expect }) => {
    const c = FAULTS.nanFloor;
    const sc = script(c, "decide");
    const gc = await gate(materialise(c), "decide", c.flags);

    // 3% < NaN is false in Python, so the script merges 3% coverage (and prints JSON with a bare NaN).
    expect(sc.argv.slice(-2)).toEqual(["--min-proven", "nan"]);
    expect(sc.code).toBe(0);
    expect(sc.stdout).toContain('"min_proven_coverage_percent": NaN');
    expect(sc.stdout).toContain('"decision": "MERGE"');

    expect(gc.code).toBe(2);
    const report = JSON.parse(gc.stdout) as { reasons: string[]; decision: string };
    expect(report.decision).toBe("REJECT");
    expect(report.reasons).toEqual(["input_error"]);
    expect(gc.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^proofgate: error: --min-proven "nan" is not a percentage from 0 to 100/),
    ]);
  });

  it("rejects an active lease that names no collected test: the script's decide never checks", async ({ expect }) => {
    const c = FAULTS.unknownLease;
    const sc = script(c, "decide");
    const gc = await gate(materialise(c), "decide");

    // The lease subtracts nothing from the proof run, yet still spends the budget and hides a renamed test.
    expect(sc.code).toBe(0);
    expect(JSON.parse(sc.stdout).decision).toBe("MERGE");

    expect(gc.code).toBe(1);
    const report = JSON.parse(gc.stdout) as {
      reasons: string[];
      decision: string;
      active_leases: number;
      ledger: { unknown: { nodeid: string; close_ids: string[] }[] };
    };
    expect(report.reasons).toEqual(["unknown_leases"]);
    expect(report.decision).toBe("REJECT");
    expect(report.active_leases).toBe(1);
    // It says which collected ids look meant: the same test with other parameters.
    expect(report.ledger.unknown).toEqual([
      expect.objectContaining({ nodeid: STALE_ID, close_ids: [DATES_1, DATES_2] }),
    ]);
    expect(gc.stderr).toContain(`proofgate: unknown_leases: freeze.toml:`);
  });

  it("treats a ledger with no [[leases]] as zero leases: the goal state, which the script refuses", async ({
    expect,
  }) => {
    const c = FAULTS.noLeases;
    const dir = materialise(c);
    const sd = script(c, "emit-deselect");
    const sc = script(c, "decide");
    const [gd, gc] = await Promise.all([gate(dir, "emit-deselect"), gate(dir, "decide")]);

    expect(sc.code).toBe(1);
    expect(sc.stderr).toContain("freeze file missing [[leases]]");
    expect(sd.code).toBe(1);

    expect(gc.code).toBe(0);
    expect(articleValues(gc.stdout)).toEqual({
      today_utc: PARITY_TODAY,
      collected_tests: UNIVERSE.length,
      active_leases: 0,
      expired_leases: 0,
      proven_coverage_percent: 80,
      min_proven_coverage_percent: 70,
      fixture_digest_delta: 0,
      property_failures: 0,
      agent_added_leases: 0,
      reasons: [],
      decision: "MERGE",
    });
    expect(gd.code).toBe(0);
    expect(gd.stdout).toBe("");
  });

  it("rejects a coverage report that measured no statements: the script calls it 100%", async ({ expect }) => {
    const c = FAULTS.noStatements;
    const sc = script(c, "decide");
    const gc = await gate(materialise(c), "decide");

    // coverage.py prints 100% for nothing measured (a wrong --cov path); the script believes it.
    expect(sc.code).toBe(0);
    expect(JSON.parse(sc.stdout)).toMatchObject({ proven_coverage_percent: 100, decision: "MERGE" });

    expect(gc.code).toBe(1);
    const report = JSON.parse(gc.stdout) as Record<string, unknown>;
    expect(report.reasons).toEqual(["coverage_missing"]);
    expect(report.decision).toBe("REJECT");
    expect(gc.stderr).toContain(
      "proofgate: coverage_missing: proven_coverage.json: the coverage report measured no statements",
    );
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, type CliIo } from "./main.js";

// The CLI wiring of `proofgate decide`, in-process with a fixed clock: 2026-12-02 (UTC).

const NOW = new Date("2026-12-02T12:00:00Z");

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "proofgate-decide-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let serial = 0;
/** A folder with a valid ledger (one active lease), universe and 80% coverage; returns the flags that name them. */
function inputs(overrides: { freeze?: string; coverage?: string } = {}): { dir: string; flags: string[] } {
  const dir = join(root, String(serial++));
  mkdirSync(dir);
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const freeze = write(
    "freeze.toml",
    overrides.freeze ??
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_flaky"\nowner = "alice"\nreason = "race"\nexpires = "2026-12-10"\n',
  );
  const collected = write(
    "collected.txt",
    "tests/test_a.py::test_flaky\ntests/test_a.py::test_ok\n\n2 tests collected in 0.01s\n",
  );
  const coverage = write(
    "proven_coverage.json",
    overrides.coverage ??
      '{"meta": {"format": 3}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
  );
  return { dir, flags: ["--freeze", freeze, "--collected", collected, "--coverage", coverage] };
}

interface Report {
  today_utc: string | null;
  reasons: string[];
  decision: string;
  clock?: { source: string; today_utc: string };
  errors?: { code: string; file: string | null }[];
}

async function decide(
  argv: string[],
  cwd = root,
): Promise<{ code: number; stdout: string; stderr: string; report: Report }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    now: () => NOW,
    cwd,
    env: process.env,
  };
  const code = await run(["decide", ...argv], io);
  return { code, stdout, stderr, report: JSON.parse(stdout) as Report };
}

describe("decide", () => {
  it("MERGE exits 0 with no reasons and judges by the injected clock", async () => {
    const r = await decide(inputs().flags);
    expect(r.code).toBe(0);
    expect(r.report).toMatchObject({
      today_utc: "2026-12-02",
      reasons: [],
      decision: "MERGE",
      clock: { source: "system" },
    });
    expect(r.stderr).toBe("");
  });

  it("REJECT exits 1 and names each reason on stderr", async () => {
    const r = await decide([...inputs().flags, "--min-proven", "80.01", "--property-failures", "2"]);
    expect(r.code).toBe(1);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toEqual(["proven_coverage", "property_hold"]);
    expect(r.stderr).toMatch(/^proofgate: proven_coverage: /m);
    expect(r.stderr).toMatch(/^proofgate: property_hold: /m);
  });

  it("coverage exactly at the floor merges", async () => {
    const r = await decide([...inputs().flags, "--min-proven", "80"]);
    expect(r.code).toBe(0);
  });

  it("an expired lease rejects on the clock's day", async () => {
    const { flags } = inputs({
      freeze:
        'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_flaky"\nowner = "alice"\nreason = "race"\nexpires = "2026-12-01"\n',
    });
    const r = await decide(flags);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["expired_leases"]);
  });

  it("--today other than the clock adds clock_override, so it cannot MERGE", async () => {
    const r = await decide([...inputs().flags, "--today", "2026-12-01"]);
    expect(r.code).toBe(1);
    expect(r.report).toMatchObject({
      today_utc: "2026-12-01",
      reasons: ["clock_override"],
      decision: "REJECT",
      clock: { source: "override" },
    });
  });

  it("--today previews a later day: the reasons of that day, plus clock_override", async () => {
    const r = await decide([...inputs().flags, "--today", "2026-12-11"]);
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["expired_leases", "clock_override"]);
  });

  it("--today equal to the clock's date is no override", async () => {
    const r = await decide([...inputs().flags, "--today", "2026-12-02"]);
    expect(r.code).toBe(0);
    expect(r.report.reasons).toEqual([]);
  });

  it("--out writes the same JSON that it prints", async () => {
    const { dir, flags } = inputs();
    const out = join(dir, "reports", "gate.json");
    const r = await decide([...flags, "--out", out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(r.stdout);
  });

  it("on bad input, --out gets the REJECT report too, replacing an earlier MERGE", async () => {
    const { dir, flags } = inputs({ coverage: '{"meta": {"format": 3}}\n' });
    const out = join(dir, "gate.json");
    writeFileSync(out, '{"decision": "MERGE"}\n');
    const r = await decide([...flags, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.report).toMatchObject({
      decision: "REJECT",
      reasons: ["input_error"],
      errors: [{ code: "coverage_invalid", file: flags[5] }],
    });
    expect(readFileSync(out, "utf8")).toBe(r.stdout);
  });
});

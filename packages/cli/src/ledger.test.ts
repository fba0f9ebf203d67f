import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, type CliIo } from "./main.js";

// `proofgate ledger lint | list | expiring`, run in-process with a fixed clock: 2026-12-02 (UTC).

const NOW = new Date("2026-12-02T12:00:00Z");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "proofgate-ledger-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let serial = 0;
/** Writes a file into the temp folder and returns its absolute path. */
function file(name: string, text: string): string {
  const path = join(dir, `${serial++}-${name}`);
  writeFileSync(path, text);
  return path;
}

async function gate(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return gateIn(dir, argv);
}

async function gateIn(cwd: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    now: () => NOW,
    cwd,
    env: process.env,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

interface LeaseSpec {
  nodeid: string;
  owner: string;
  expires: string;
}

function ledgerText(leases: LeaseSpec[], top = "version = 1\nmax_active_leases = 10\n"): string {
  return (
    top +
    leases
      .map(
        (l) =>
          `\n[[leases]]\nnodeid = "${l.nodeid}"\nowner = "${l.owner}"\nreason = "flaky"\nexpires = "${l.expires}"\n`,
      )
      .join("")
  );
}

function universeText(ids: string[]): string {
  return `${ids.join("\n")}\n\n${ids.length} tests collected in 0.02s\n`;
}

// Days left as of 2026-12-02: -2, 0, 14, 15, 181.
const EXPIRED = { nodeid: "tests/test_a.py::test_expired", owner: "alice", expires: "2026-11-30" };
const TODAY = { nodeid: "tests/test_a.py::test_today", owner: "bob", expires: "2026-12-02" };
const IN_14 = { nodeid: "tests/test_b.py::test_two_weeks", owner: "carol", expires: "2026-12-16" };
const IN_15 = { nodeid: "tests/test_b.py::test_fifteen", owner: "dave", expires: "2026-12-17" };
const FAR = { nodeid: "tests/test_c.py::test_far[param 1]", owner: "erin", expires: "2027-06-01" };
const ALL = [EXPIRED, TODAY, IN_14, IN_15, FAR];
const ACTIVE = [TODAY, IN_14, IN_15, FAR];
const COLLECTED = [...ALL.map((l) => l.nodeid), "tests/test_c.py::test_plain"];

/** Line of the n-th `[[leases]]` header in `ledgerText` with the default top (2 lines, then 6 per lease). */
const headerLine = (n: number): number => 4 + 6 * n;

describe("ledger lint", () => {
  it("exits 0 on a good ledger and says what it holds", async () => {
    const freeze = file("freeze.toml", ledgerText(ACTIVE));
    const r = await gate([
      "ledger",
      "lint",
      "--freeze",
      freeze,
      "--collected",
      file("collected.txt", universeText(COLLECTED)),
    ]);
    expect(r).toEqual({
      code: 0,
      stdout: `${freeze}: valid; 4 lease(s), 4 active of a budget of 10, 0 expired\n`,
      stderr: "",
    });
  });

  it("exits 0 on a ledger with no leases, and warns when the budget is omitted (0, fail-closed)", async () => {
    const freeze = file("freeze.toml", "version = 1\n");
    const r = await gate(["ledger", "lint", "--freeze", freeze]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${freeze}: valid; 0 lease(s), 0 active of a budget of 0, 0 expired\n`);
    expect(r.stderr).toMatch(/^proofgate: warning: .*`max_active_leases` is omitted/);
  });

  it("exits 1 and lists the expired lease with its line", async () => {
    const freeze = file("freeze.toml", ledgerText(ALL));
    const r = await gate(["ledger", "lint", "--freeze", freeze]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      `${freeze}: valid TOML, but the gate would fail on it:\n  ${freeze}:${headerLine(0)}: tests/test_a.py::test_expired expired 2026-11-30\n`,
    );
  });

  it("exits 0 on an expired lease when reject_if_expired = false", async () => {
    const freeze = file(
      "freeze.toml",
      ledgerText([EXPIRED], "version = 1\nmax_active_leases = 1\nreject_if_expired = false\n"),
    );
    const r = await gate(["ledger", "lint", "--freeze", freeze]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 expired");
  });

  it("exits 1 when the active leases exceed the budget (expired ones do not count)", async () => {
    const freeze = file("freeze.toml", ledgerText([TODAY, IN_14, FAR], "version = 1\nmax_active_leases = 2\n"));
    const r = await gate(["ledger", "lint", "--freeze", freeze]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      `${freeze}: valid TOML, but the gate would fail on it:\n  ${freeze}: 3 active leases exceed max_active_leases = 2\n`,
    );

    const atBudget = file(
      "freeze.toml",
      ledgerText([TODAY, IN_14], "version = 1\nmax_active_leases = 2\nreject_if_expired = false\n"),
    );
    expect((await gate(["ledger", "lint", "--freeze", atBudget])).code).toBe(0);
  });

  it("exits 1 when a lease names no collected test, but only with --collected", async () => {
    const freeze = file("freeze.toml", ledgerText([TODAY, IN_14]));
    const collected = file(
      "collected.txt",
      universeText(["tests/test_a.py::test_today", "tests/test_b.py::test_other"]),
    );
    const r = await gate(["ledger", "lint", "--freeze", freeze, "--collected", collected]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      `${freeze}: valid TOML, but the gate would fail on it:\n  ${freeze}:${headerLine(1)}: tests/test_b.py::test_two_weeks names no collected test\n`,
    );
    expect((await gate(["ledger", "lint", "--freeze", freeze])).code).toBe(0);
  });

  it("lists every problem at once", async () => {
    const freeze = file("freeze.toml", ledgerText([EXPIRED, TODAY, IN_14], "version = 1\nmax_active_leases = 1\n"));
    const collected = file("collected.txt", universeText(["tests/test_a.py::test_today"]));
    const r = await gate(["ledger", "lint", "--freeze", freeze, "--collected", collected]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").slice(1, -1)).toEqual([
      `  ${freeze}:4: tests/test_a.py::test_expired expired 2026-11-30`,
      `  ${freeze}: 2 active leases exceed max_active_leases = 1`,
      `  ${freeze}:16: tests/test_b.py::test_two_weeks names no collected test`,
    ]);
  });

  it("judges as of --today (a preview)", async () => {
    const freeze = file("freeze.toml", ledgerText(ACTIVE));
    const r = await gate(["ledger", "lint", "--freeze", freeze, "--today", "2026-12-03"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("tests/test_a.py::test_today expired 2026-12-02");
    expect(r.stderr).toBe("proofgate: note: as of 2026-12-03 (--today)\n");
    expect((await gate(["ledger", "lint", "--freeze", freeze, "--today", "2026-12-02"])).code).toBe(0);
  });

  it("exits 2 on an invalid ledger, with the error on stderr and nothing on stdout", async () => {
    const freeze = file(
      "freeze.toml",
      'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/t.py::t"\nowner = "a"\nreason = "r"\nexpires = "2026-02-30"\n',
    );
    const r = await gate(["ledger", "lint", "--freeze", freeze]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `proofgate: error: ${freeze}:8: lease #1 (tests/t.py::t): \`expires\` is "2026-02-30", a day that does not exist. Fix: write \`expires = "2026-09-26"\` (a calendar date, YYYY-MM-DD)\n`,
    );
  });

  it("exits 2 on a missing ledger and on an invalid --collected", async () => {
    const missing = join(dir, "no-such-freeze.toml");
    const r = await gate(["ledger", "lint", "--freeze", missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^proofgate: error: ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the freeze ledger does not exist`,
      ),
    );

    const freeze = file("freeze.toml", ledgerText([TODAY]));
    const truncated = file("collected.txt", "tests/test_a.py::test_today\n");
    const bad = await gate(["ledger", "lint", "--freeze", freeze, "--collected", truncated]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`proofgate: error: ${truncated}:`);
  });
});

describe("ledger list", () => {
  it("prints a table of nodeid, owner, expires, days left and state", async () => {
    const freeze = file("freeze.toml", ledgerText(ALL));
    const r = await gate(["ledger", "list", "--freeze", freeze]);
    expect(r.code).toBe(0);
    // No contexts run: no cost column, and it says why.
    expect(r.stderr).toBe(
      "proofgate: note: no cost: the rerun does not record which test ran which line (pass --contexts .coverage --report full.json from a `pytest --cov-context=test` run, or set [coverage] contexts)\n",
    );
    expect(r.stdout).toBe(
      [
        "NODEID                              OWNER  EXPIRES     DAYS LEFT  STATE",
        "tests/test_a.py::test_expired       alice  2026-11-30  -2         expired",
        "tests/test_a.py::test_today         bob    2026-12-02  0          active",
        "tests/test_b.py::test_two_weeks     carol  2026-12-16  14         active",
        "tests/test_b.py::test_fifteen       dave   2026-12-17  15         active",
        "tests/test_c.py::test_far[param 1]  erin   2027-06-01  181        active",
        "",
      ].join("\n"),
    );
  });

  it("marks leases that name no collected test as unknown", async () => {
    const freeze = file("freeze.toml", ledgerText([TODAY, FAR]));
    const collected = file(
      "collected.txt",
      universeText(["tests/test_a.py::test_today", "tests/test_c.py::test_far[param 2]"]),
    );
    const r = await gate(["ledger", "list", "--freeze", freeze, "--collected", collected, "--format", "json"]);
    expect(r.code).toBe(0);
    const states = (JSON.parse(r.stdout) as { leases: { nodeid: string; state: string }[] }).leases.map((l) => [
      l.nodeid,
      l.state,
    ]);
    expect(states).toEqual([
      ["tests/test_a.py::test_today", "active"],
      ["tests/test_c.py::test_far[param 1]", "unknown"],
    ]);
  });

  it("--format json gives the date, every lease and its line", async () => {
    const freeze = file("freeze.toml", ledgerText([EXPIRED, IN_14]));
    const r = await gate(["ledger", "list", "--freeze", freeze, "--format", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      today_utc: "2026-12-02",
      leases: [
        {
          nodeid: EXPIRED.nodeid,
          owner: "alice",
          reason: "flaky",
          expires: "2026-11-30",
          days_left: -2,
          state: "expired",
          line: 4,
        },
        {
          nodeid: IN_14.nodeid,
          owner: "carol",
          reason: "flaky",
          expires: "2026-12-16",
          days_left: 14,
          state: "active",
          line: 10,
        },
      ],
      cost_pool: null,
      cost_not_measured: expect.stringMatching(/^no cost: the rerun does not record/),
    });
  });

  it("counts days from --today", async () => {
    const freeze = file("freeze.toml", ledgerText([IN_14]));
    const r = await gate(["ledger", "list", "--freeze", freeze, "--format", "json", "--today", "2026-12-20"]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      today_utc: "2026-12-20",
      leases: [{ days_left: -4, state: "expired" }],
    });
  });

  it("says so when there are no leases", async () => {
    const freeze = file("freeze.toml", "version = 1\nmax_active_leases = 0\n");
    expect(await gate(["ledger", "list", "--freeze", freeze])).toEqual({
      code: 0,
      stdout: `${freeze}: no leases\n`,
      stderr: "",
    });
  });

  it("rejects an unknown --format", async () => {
    const freeze = file("freeze.toml", ledgerText([IN_14]));
    const r = await gate(["ledger", "list", "--freeze", freeze, "--format", "yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^proofgate: error: Invalid values:/);
  });
});

describe("ledger expiring", () => {
  const nodeids = (stdout: string): string[] =>
    (JSON.parse(stdout) as { leases: { nodeid: string }[] }).leases.map((l) => l.nodeid);

  it.each(["14d", "2w", "14"])(
    "--within %s selects the expired leases and those with at most 14 days left",
    async (within) => {
      const freeze = file("freeze.toml", ledgerText(ALL));
      const r = await gate(["ledger", "expiring", "--freeze", freeze, "--within", within, "--format", "json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ today_utc: "2026-12-02", within_days: 14 });
      expect(nodeids(r.stdout)).toEqual([EXPIRED.nodeid, TODAY.nodeid, IN_14.nodeid]);
    },
  );

  it("defaults to 14 days and prints the table", async () => {
    const freeze = file("freeze.toml", ledgerText(ALL));
    const r = await gate(["ledger", "expiring", "--freeze", freeze]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "NODEID                           OWNER  EXPIRES     DAYS LEFT  STATE",
        "tests/test_a.py::test_expired    alice  2026-11-30  -2         expired",
        "tests/test_a.py::test_today      bob    2026-12-02  0          expiring",
        "tests/test_b.py::test_two_weeks  carol  2026-12-16  14         expiring",
        "",
      ].join("\n"),
    );
  });

  it("--within 15 takes the lease with 15 days left; --within 0d only today's and the expired", async () => {
    const freeze = file("freeze.toml", ledgerText(ALL));
    const r15 = await gate(["ledger", "expiring", "--freeze", freeze, "--within", "15", "--format", "json"]);
    expect(nodeids(r15.stdout)).toEqual([EXPIRED.nodeid, TODAY.nodeid, IN_14.nodeid, IN_15.nodeid]);
    const r0 = await gate(["ledger", "expiring", "--freeze", freeze, "--within", "0d", "--format", "json"]);
    expect(nodeids(r0.stdout)).toEqual([EXPIRED.nodeid, TODAY.nodeid]);
  });

  it("previews another day with --today", async () => {
    const freeze = file("freeze.toml", ledgerText(ALL));
    const r = await gate([
      "ledger",
      "expiring",
      "--freeze",
      freeze,
      "--within",
      "2w",
      "--today",
      "2026-12-17",
      "--format",
      "json",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("proofgate: note: as of 2026-12-17 (--today)\n");
    const leases = JSON.parse(r.stdout) as {
      today_utc: string;
      leases: { nodeid: string; days_left: number; state: string }[];
    };
    expect(leases.today_utc).toBe("2026-12-17");
    expect(leases.leases.map((l) => [l.nodeid, l.days_left, l.state])).toEqual([
      [EXPIRED.nodeid, -17, "expired"],
      [TODAY.nodeid, -15, "expired"],
      [IN_14.nodeid, -1, "expired"],
      [IN_15.nodeid, 0, "expiring"],
    ]);
  });

  it("still lists a soon-expiring lease that names no collected test", async () => {
    const freeze = file("freeze.toml", ledgerText([IN_14, FAR]));
    const collected = file("collected.txt", universeText(["tests/test_c.py::test_plain"]));
    const r = await gate(["ledger", "expiring", "--freeze", freeze, "--collected", collected, "--format", "json"]);
    expect(r.code).toBe(0);
    expect(nodeids(r.stdout)).toEqual([IN_14.nodeid]);
  });

  it("says so when nothing expires in the window", async () => {
    const freeze = file("freeze.toml", ledgerText([IN_15, FAR]));
    const r = await gate(["ledger", "expiring", "--freeze", freeze, "--within", "2w"]);
    expect(r).toEqual({ code: 0, stdout: "no lease expires within 14 days (as of 2026-12-02)\n", stderr: "" });
  });

  it.each(["two weeks", "-1d", "1.5w", "14h"])("rejects --within %s as a usage error", async (within) => {
    const freeze = file("freeze.toml", ledgerText([IN_14]));
    const r = await gate(["ledger", "expiring", "--freeze", freeze, "--within", within]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^proofgate: error: --within ".*" is not a number of days/);
  });
});

// What each lease costs, from a real coverage.py 6.5 `--cov-context=test --cov-branch` run: core's
// contexts fixtures (rows of its .coverage, written back into SQLite here, and its `coverage json`).
describe("ledger list with a single run's contexts", () => {
  const fixture = (name: string): string =>
    readFileSync(new URL(`../../core/src/__fixtures__/contexts/${name}`, import.meta.url), "utf8");
  const A = "tests/test_m.py::test_a";
  const B = "tests/test_m.py::test_b";
  const C = "tests/test_m.py::test_c";

  async function dataFile(): Promise<string> {
    const rows = JSON.parse(fixture("cov65-branch-rows.json")) as {
      hasArcs: boolean;
      contexts: { id: number; name: string }[];
      files: { id: number; path: string }[];
      lineBits: { fileId: number; contextId: number; numbits: string }[];
      arcs: [number, number, number, number][];
    };
    const SQL = await initSqlJs({
      locateFile: () => createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"),
    });
    const db = new SQL.Database();
    db.run(`
      CREATE TABLE coverage_schema (version integer);
      CREATE TABLE meta (key text, value text, unique (key));
      CREATE TABLE file (id integer primary key, path text, unique (path));
      CREATE TABLE context (id integer primary key, context text, unique (context));
      CREATE TABLE line_bits (file_id integer, context_id integer, numbits blob, unique (file_id, context_id));
      CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer, unique (file_id, context_id, fromno, tono));
      CREATE TABLE tracer (file_id integer primary key, tracer text);
      INSERT INTO coverage_schema VALUES (7);
      INSERT INTO meta VALUES ('version', '6.5.0');
      INSERT INTO meta VALUES ('has_arcs', '${rows.hasArcs ? 1 : 0}');`);
    for (const c of rows.contexts) db.run("INSERT INTO context VALUES (?, ?)", [c.id, c.name]);
    for (const f of rows.files) db.run("INSERT INTO file VALUES (?, ?)", [f.id, f.path]);
    for (const l of rows.lineBits)
      db.run("INSERT INTO line_bits VALUES (?, ?, ?)", [l.fileId, l.contextId, Buffer.from(l.numbits, "hex")]);
    for (const a of rows.arcs) db.run("INSERT INTO arc VALUES (?, ?, ?, ?)", a);
    const path = join(dir, `${serial++}.coverage`);
    writeFileSync(path, db.export());
    db.close();
    return path;
  }

  it("shows what only each lease's test runs and its share of the pool, dearest first", async () => {
    const freeze = file(
      "freeze.toml",
      ledgerText([
        { nodeid: C, owner: "carol", expires: "2026-12-31" },
        { nodeid: A, owner: "alice", expires: "2026-12-31" },
        { nodeid: B, owner: "bob", expires: "2026-12-31" },
        { nodeid: "tests/test_m.py::test_old", owner: "olga", expires: "2026-11-01" },
      ]),
    );
    const contexts = await dataFile();
    const report = file("full.json", fixture("cov65-branch-full.json"));
    const args = ["ledger", "list", "--freeze", freeze, "--contexts", contexts, "--report", report];
    const json = await gate([...args, "--format", "json"]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as {
      leases: { nodeid: string; cost: { status: string; lines?: number; branches?: number } | null }[];
      cost_pool: { lines: number; branches: number };
      cost_not_measured: null;
    };
    // Each single-test entry of the fixture's expected file is coverage.py's own count without that test:
    // with the other two frozen too, a lease's cost is still what leaving out only its test loses.
    const expected = JSON.parse(fixture("cov65-branch-expected.json")) as {
      frozen: string[];
      totals: { covered_lines: number; covered_branches: number };
    }[];
    const all = expected.find((e) => e.frozen.length === 0)!.totals;
    const without = (id: string) => expected.find((e) => e.frozen.length === 1 && e.frozen[0] === id)!.totals;
    for (const id of [A, B, C]) {
      const lease = out.leases.find((l) => l.nodeid === id)!;
      expect(lease.cost).toMatchObject({
        status: "measured",
        lines: all.covered_lines - without(id).covered_lines,
        branches: all.covered_branches - without(id).covered_branches,
      });
    }
    // Dearest first (b: 9 lines, a: 5, c: 3); the expired lease's test is not frozen, so it has no cost.
    expect(out.leases.map((l) => l.nodeid)).toEqual([B, A, C, "tests/test_m.py::test_old"]);
    expect(out.leases[3]!.cost).toBeNull();
    expect(out.cost_not_measured).toBeNull();
    expect(out.cost_pool.lines).toBeGreaterThanOrEqual(0);

    const text = await gate(args);
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toMatch(/^NODEID +OWNER +EXPIRES +DAYS LEFT +STATE +ONLY IT RUNS +SHARED$/);
    expect(lines[1]).toMatch(/^tests\/test_m\.py::test_b .* active +9 lines, 5 branches +/);
    expect(lines[4]).toMatch(/^tests\/test_m\.py::test_old .* expired +- +-$/);
    expect(text.stdout).toContain("what a run without only that test loses");
  });

  it("reads [coverage] contexts from proofgate.toml, and refuses --report alone", async () => {
    const sub = mkdtempSync(join(dir, "project-"));
    copyFileSync(await dataFile(), join(sub, ".coverage"));
    writeFileSync(join(sub, "full.json"), fixture("cov65-branch-full.json"));
    writeFileSync(join(sub, "freeze.toml"), ledgerText([{ nodeid: A, owner: "alice", expires: "2026-12-31" }]));
    writeFileSync(join(sub, "proofgate.toml"), '[coverage]\ncontexts = ".coverage"\nreports = ["full.json"]\n');
    const r = await gateIn(sub, ["ledger", "list", "--format", "json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { leases: { cost: unknown }[] }).leases[0]!.cost).toMatchObject({
      status: "measured",
      lines: 5,
    });
    const alone = await gateIn(sub, ["ledger", "list", "--report", "full.json"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--report without --contexts/);
  });
});

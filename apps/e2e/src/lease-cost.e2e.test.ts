// What each lease costs (`proofgate ledger list --contexts`), against real pytest 7.2, pytest-cov 4.0 and
// coverage.py 6.5: one `--cov-context=test --cov-branch` run gives every lease's cost, and for each
// lease coverage.py is run again without only that test (`--deselect`): what that run loses, line by
// line and branch by branch, is the cost proofgate printed. The pool is what only frozen tests run
// together: losing one of them loses none of it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeProject, proofgate, pytest, python, type Run } from "./helpers.js";

const A = "tests/test_m.py::test_a";
const B = "tests/test_m.py::test_b";
const C = "tests/test_m.py::test_c";

const lease = (nodeid: string): string =>
  `\n[[leases]]\nnodeid = "${nodeid}"\nowner = "e2e"\nreason = "flaky on CI"\nexpires = "2099-12-31"\n`;

const FILES = {
  "pkg/__init__.py": "",
  "pkg/m.py": `def only_a(x):
    if x > 10:
        y = x * 2
        return y + 1
    return x


def only_b(items):
    total = 0
    for item in items:
        total += item
    return total


def shared(text):
    words = text.split()
    if not words:
        return ""
    return words[0]


def kept(n):
    return n + 1
`,
  "tests/test_m.py": `from pkg.m import kept, only_a, only_b, shared


def test_a():
    assert only_a(11) == 23


def test_b():
    assert only_b([1, 2]) == 3
    assert shared("x y") == "x"


def test_c():
    assert shared("") == ""
    assert shared("z") == "z"


def test_kept():
    assert kept(1) == 2
    assert only_a(1) == 1
`,
  // Three leases: each runs code no other test runs; b and c together are the only ones to run shared().
  "freeze.toml": `version = 1\nmax_active_leases = 3\n${lease(A)}${lease(B)}${lease(C)}`,
};

interface CoverageJson {
  files: Record<string, { executed_lines: number[]; executed_branches?: [number, number][] }>;
  totals: { covered_lines: number; covered_branches: number };
}

interface LeaseRow {
  nodeid: string;
  state: string;
  cost: {
    status: string;
    lines: number;
    branches: number;
    shared_lines: number;
    shared_branches: number;
    files: { path: string; lines: number[]; branches: string[] }[];
  } | null;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function ok(r: Run, what: string): Run {
  expect(r.status, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

/** Executed lines and branches (as `"from>to"`), per file, from a coverage.py JSON report. */
function executed(report: CoverageJson): { lines: Set<string>; branches: Set<string> } {
  const lines = new Set<string>();
  const branches = new Set<string>();
  for (const [path, f] of Object.entries(report.files)) {
    for (const l of f.executed_lines) lines.add(`${path}:${l}`);
    for (const [a, b] of f.executed_branches ?? []) branches.add(`${path}:${a}>${b}`);
  }
  return { lines, branches };
}

describe("proofgate ledger list: what each lease costs", () => {
  it("equals what a run without only that test loses, for each lease; the pool is what they run together", () => {
    const dir = makeProject(FILES);
    dirs.push(dir);
    ok(pytest(["--cov=pkg", "--cov-branch", "--cov-context=test", "-q"], dir), "the single run");
    ok(python(["-m", "coverage", "json", "-o", "full.json"], dir), "coverage json");
    const full = readJson<CoverageJson>(join(dir, "full.json"));

    const listed = ok(
      proofgate(["ledger", "list", "--contexts", ".coverage", "--report", "full.json", "--format", "json"], dir),
      "ledger list",
    );
    const out = JSON.parse(listed.stdout) as {
      leases: LeaseRow[];
      cost_pool: { lines: number; branches: number };
      cost_not_measured: string | null;
    };
    expect(out.cost_not_measured).toBeNull();
    // Dearest first: b (the four lines of its loop), a (two lines and a branch), then c (only its
    // empty text reaches `return ""`).
    expect(out.leases.map((l) => l.nodeid)).toEqual([B, A, C]);

    const all = executed(full);
    for (const id of [A, B, C]) {
      // coverage.py again, without only this test (the others, frozen or not, all run).
      const without = join(dir, `without-${id.split("::")[1]}`);
      ok(
        pytest(["--cov=pkg", "--cov-branch", "-q", "--deselect", id], dir, { COVERAGE_FILE: `${without}.data` }),
        `run without ${id}`,
      );
      ok(
        python(["-m", "coverage", "json", "-o", `${without}.json`], dir, { COVERAGE_FILE: `${without}.data` }),
        "coverage json",
      );
      const rest = readJson<CoverageJson>(`${without}.json`);
      const left = executed(rest);
      const lostLines = [...all.lines].filter((l) => !left.lines.has(l)).sort();
      const lostBranches = [...all.branches].filter((b) => !left.branches.has(b)).sort();
      const cost = out.leases.find((l) => l.nodeid === id)!.cost!;
      expect(cost.status).toBe("measured");
      expect(cost.lines, id).toBe(full.totals.covered_lines - rest.totals.covered_lines);
      expect(cost.branches, id).toBe(full.totals.covered_branches - rest.totals.covered_branches);
      // Line by line and branch by branch, not only the counts.
      const costLines = cost.files.flatMap((f) => f.lines.map((l) => `${f.path}:${l}`)).sort();
      const costBranches = cost.files.flatMap((f) => f.branches.map((b) => `${f.path}:${b}`)).sort();
      expect(costLines, id).toEqual(lostLines);
      expect(costBranches, id).toEqual(lostBranches);
    }
    const a = out.leases.find((l) => l.nodeid === A)!.cost!;
    const c = out.leases.find((l) => l.nodeid === C)!.cost!;
    expect(a.lines).toBeGreaterThan(0);
    expect(a.branches).toBeGreaterThan(0);
    expect(c.lines).toBe(1);
    // shared() is run by b and c only: the pool, and each one's share of it.
    expect(out.cost_pool.lines).toBeGreaterThan(0);
    expect(c.shared_lines).toBeGreaterThan(0);
    const b = out.leases.find((l) => l.nodeid === B)!.cost!;
    expect(b.shared_lines).toBeGreaterThan(0);

    // The pool is what a run without all three loses beyond their own costs.
    const none = join(dir, "none");
    ok(
      pytest(["--cov=pkg", "--cov-branch", "-q", "--deselect", A, "--deselect", B, "--deselect", C], dir, {
        COVERAGE_FILE: `${none}.data`,
      }),
      "run without the three",
    );
    ok(
      python(["-m", "coverage", "json", "-o", `${none}.json`], dir, { COVERAGE_FILE: `${none}.data` }),
      "coverage json",
    );
    const proven = readJson<CoverageJson>(`${none}.json`).totals;
    const own = out.leases.reduce((n, l) => n + l.cost!.lines, 0);
    expect(own + out.cost_pool.lines).toBe(full.totals.covered_lines - proven.covered_lines);

    // The table: dearest first, with the two columns and the note on what they mean.
    const text = ok(proofgate(["ledger", "list", "--contexts", ".coverage", "--report", "full.json"], dir), "table");
    expect(text.stdout.split("\n")[0]).toMatch(/ONLY IT RUNS +SHARED$/);
    expect(text.stdout.split("\n")[1]).toContain(B);
    expect(text.stdout).toContain("what a run without only that test loses");
  });

  it("without a contexts run there is no cost column, and it says why", () => {
    const dir = makeProject(FILES);
    dirs.push(dir);
    const r = ok(proofgate(["ledger", "list"], dir), "ledger list");
    expect(r.stdout.split("\n")[0]).toMatch(/STATE$/);
    expect(r.stderr).toContain("no cost: the rerun does not record which test ran which line");
  });
});

// `proofgate check` end to end on a temp Python project with git history (check-project.ts): --run runs
// the base's [commands] with the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3;
// every reason code of GATE.md is reached through `check`, each with its exact `reasons` array and the
// file and commit its findings name; the same inputs give the same bytes; and every input deleted,
// emptied or corrupted is REJECT (exit 1 with the right reason, or exit 2 naming the file), never MERGE.
// Scenarios whose signal is history or config (not a run) reuse one real run's artifacts, to stay fast.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT,
  CALC,
  HUMAN,
  MERGE_PATCH,
  TEST_A,
  check,
  config,
  git,
  lease,
  ledger,
  lockOf,
  makeCheckProject,
  proofCommand,
  putArtifacts,
  saveArtifacts,
  type CheckRun,
  type FileChange,
  type Finding,
  type PatchCommit,
  type Project,
} from "./check-project.js";

const made: string[] = [];
function project(o: Parameters<typeof makeCheckProject>[0] = {}): Project {
  const p = makeCheckProject(o);
  made.push(p.dir);
  return p;
}

let mergeProject: Project;
let mergeRun: CheckRun;
let artifacts: string;

/** A project whose proof-run artifacts are the MERGE run's (the signal under test is not a run's). */
function reused(o: Parameters<typeof makeCheckProject>[0] = {}): Project {
  const p = project(o);
  putArtifacts(artifacts, p.dir);
  return p;
}

beforeAll(() => {
  mergeProject = project();
  mergeRun = check(mergeProject.dir, ["--run"]);
  artifacts = saveArtifacts(mergeProject.dir);
  made.push(artifacts);
});

afterAll(() => {
  for (const dir of made) {
    // `seeds materialize` leaves read-only folders behind.
    spawnSync("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

const short = (sha: string): string => sha.slice(0, 12);
const agentCommit = (message: string, files: Record<string, FileChange>, who = AGENT): PatchCommit => ({ message, files, who });

/** The findings as (reason, file, line, commit): what a reader and a merge queue act on. */
const where = (r: CheckRun): Pick<Finding, "reason" | "file" | "line" | "commit">[] => r.report.details.map(({ reason, file, line, commit }) => ({ reason, file, line, commit }));

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-4000)}`;
}

function expectReject(r: CheckRun, reasons: string[]): void {
  expect(r.report.reasons, explain(r)).toEqual(reasons);
  expect(r.report.decision).toBe("REJECT");
  expect(r.status, explain(r)).toBe(reasons.includes("input_error") ? 2 : 1);
  // Every row that answers for a fired reason fails; no other row does.
  const failing = r.report.signals.filter((s) => s.result === "fail").flatMap((s) => s.reasons);
  if (!reasons.includes("input_error")) expect(failing.sort()).toEqual([...reasons].sort());
}

describe("proofgate check --run: MERGE", () => {
  it("an agent's covered change: exit 0, MERGE, every row pass, the table printed, three reports written", () => {
    const r = mergeRun;
    expect(r.status, explain(r)).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(r.report.reasons).toEqual([]);
    expect(r.report.details).toEqual([]);
    expect(r.report.errors).toEqual([]);
    expect(r.report.signals.map((s) => `${s.id}:${s.result}`)).toEqual([
      "proven_coverage:pass",
      "freeze_budget:pass",
      "lease_authorship:pass",
      "fixture_digests:pass",
      "property_hold:pass",
      "test_evidence:pass",
      "protected_paths:pass",
      "history:pass",
      "universe:pass",
      "clock:pass",
    ]);
    expect(r.report).toMatchObject({
      base: mergeProject.base,
      head: mergeProject.head,
      collected_tests: 9,
      active_leases: 1,
      expired_leases: 0,
      min_proven_coverage_percent: 80,
      fixture_digest_delta: 0,
      property_failures: 0,
      agent_added_leases: 0,
    });
    // The frozen test was deselected exactly: 8 proven, 1 frozen, in the JUnit results.
    expect(r.report.accounting).toMatchObject({ collected: 9, proven: 8, frozen: 1, skipped: 0, failed: 0, missing: 0 });
    expect(readFileSync(join(mergeProject.dir, "results.xml"), "utf8")).not.toContain('name="test_frozen"');
    // coverage.py's own totals, from the proof run without the frozen test.
    const totals = (JSON.parse(readFileSync(join(mergeProject.dir, "proven_coverage.json"), "utf8")) as { totals: Record<string, number> }).totals;
    expect(r.report.coverage).toMatchObject({ num_statements: totals.num_statements, covered_lines: totals.covered_lines, num_branches: totals.num_branches, covered_branches: totals.covered_branches });
    expect(r.report.proven_coverage_percent).toBe(totals.percent_covered);
    expect(r.report.commands).toEqual([
      expect.objectContaining({ step: "collect", exit_code: 0 }),
      expect.objectContaining({ step: "proof", exit_code: 0 }),
      expect.objectContaining({ step: "properties", exit_code: 0 }),
    ]);
    expect(r.report.inputs.map((i) => `${i.role}:${i.path}`)).toEqual([
      `config:proofgate.toml at ${short(mergeProject.base)}`,
      "ledger:freeze.toml",
      "universe:collected.txt",
      "coverage:proven_coverage.json",
      "results:results.xml",
      "properties:properties.xml",
    ]);
    expect(r.report.warnings).toEqual([]);
    // The decision table on stdout, top to bottom in the article's order.
    expect(r.stdout).toMatch(/^proofgate: MERGE /);
    const rows = r.stdout.split("\n").filter((l) => /^\S.*\s(pass|fail|off|not_measured)\s/.test(l));
    expect(rows.map((l) => l.split(/\s{2,}/)[0])).toEqual(["Proven coverage", "Freeze budget", "Lease authorship", "Fixture digests", "Property hold", "Test evidence", "Protected paths", "History", "Test universe", "Clock"]);
    for (const f of ["report.json", "report.md", "report.txt"]) expect(existsSync(join(mergeProject.dir, "proofgate-report", f)), f).toBe(true);
  });

  it("a human's lease change with `Freeze-Lease: human` is allowed: MERGE (the lease rules can pass)", () => {
    const p = reused({ patch: [agentCommit("Renew the lease\n\nFreeze-Lease: human\n", { "freeze.toml": ledger({ expires: "2099-12-31" }).replace("flaky on CI", "flaky on CI, renewed") }, HUMAN)] });
    const r = check(p.dir, ["--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("--today equal to the machine's UTC date is no override: MERGE", () => {
    const p = reused();
    const r = check(p.dir, ["--format", "json", "--today", new Date().toISOString().slice(0, 10)]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });
});

interface Scenario {
  name: string;
  build: () => Project;
  /** Real pytest through --run, or the MERGE run's artifacts. */
  run: boolean;
  args?: string[];
  reasons: string[];
  /** The exact findings, as (reason, file, line, commit). */
  findings?: (p: Project, r: CheckRun) => Pick<Finding, "reason" | "file" | "line" | "commit">[];
  also?: (p: Project, r: CheckRun) => void;
}

const F = (reason: string, file: string | null, line: number | null = null, commit: string | null = null) => ({ reason, file, line, commit });
const anyLine = expect.any(Number) as unknown as number;
const BROKEN_DECODE = CALC.replace('bytes.fromhex(data).decode("utf-8")', 'bytes.fromhex(data).decode("ascii", errors="replace")');
const withMerge = (calc: string): string => MERGE_PATCH.files["pkg/calc.py"]!.toString().replace(CALC, calc);

const SCENARIOS: Scenario[] = [
  {
    name: "expired_leases: the base's lease expired (--run: the expired test runs again)",
    build: () => project({ base: { "freeze.toml": ledger({ expires: "2020-01-31" }) } }),
    run: true,
    reasons: ["expired_leases"],
    findings: () => [F("expired_leases", "freeze.toml", 4)],
    also: (_p, r) => expect(r.report.accounting).toMatchObject({ proven: 9, frozen: 0 }),
  },
  {
    name: "freeze_budget: one active lease, max_active_leases = 0",
    build: () => project({ base: { "freeze.toml": ledger({ max: 0 }) } }),
    run: true,
    reasons: ["freeze_budget"],
    findings: () => [F("freeze_budget", "freeze.toml")],
  },
  {
    name: "unknown_leases: a lease on test_param[one], close ids named; the proof run still deselects exactly",
    build: () => project({ base: { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[one]") }) } }),
    run: true,
    reasons: ["unknown_leases"],
    findings: () => [F("unknown_leases", "freeze.toml", 10)],
    also: (_p, r) => {
      expect(r.report.ledger!.unknown).toEqual([expect.objectContaining({ nodeid: "tests/test_a.py::test_param[one]", close_ids: ["tests/test_a.py::test_param[1]", "tests/test_a.py::test_param[2]"] })]);
      expect(r.report.accounting).toMatchObject({ proven: 8, frozen: 1, missing: 0 });
    },
  },
  {
    name: "agent_added_lease: the agent freezes test_roundtrip (--run deselects it)",
    build: () => project({ base: { "freeze.toml": ledger({ max: 2 }) }, patch: [agentCommit("Freeze a test\n", { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_b.py::test_roundtrip") }) })] }),
    run: true,
    reasons: ["agent_added_lease"],
    findings: (p) => [F("agent_added_lease", "freeze.toml", 10, p.commits[1]!)],
    also: (_p, r) => {
      expect(r.report.agent_added_leases).toBe(1);
      expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 2 });
    },
  },
  {
    name: "agent_added_lease: an agent commit carrying `Freeze-Lease: human` is still an agent's",
    build: () => reused({ base: { "freeze.toml": ledger({ max: 2 }) }, patch: [agentCommit("Freeze a test\n\nFreeze-Lease: human\n", { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[9]") }) })] }),
    run: false,
    reasons: ["unknown_leases", "agent_added_lease"],
    findings: (p) => [F("unknown_leases", "freeze.toml", 10), F("agent_added_lease", "freeze.toml", 10, p.commits[1]!)],
  },
  {
    name: "agent_extended_lease: the agent moves expires from 2098 to 2099",
    build: () => reused({ base: { "freeze.toml": ledger({ expires: "2098-12-31" }) }, patch: [agentCommit("Extend\n", { "freeze.toml": ledger({ expires: "2099-12-31" }) })] }),
    run: false,
    reasons: ["agent_extended_lease"],
    findings: (p) => [F("agent_extended_lease", "freeze.toml", 4, p.commits[1]!)],
  },
  {
    name: "agent_loosened_policy: the agent raises max_active_leases",
    build: () => reused({ patch: [agentCommit("Budget\n", { "freeze.toml": ledger({ max: 3 }) })] }),
    run: false,
    reasons: ["agent_loosened_policy"],
    findings: (p) => [F("agent_loosened_policy", "freeze.toml", null, p.commits[1]!)],
  },
  {
    name: "agent_loosened_policy: the agent turns reject_if_expired off (in a later commit of three)",
    build: () =>
      reused({
        patch: [agentCommit("Harmless\n", { "README.md": "hi\n" }), agentCommit("Policy\n", { "freeze.toml": `reject_if_expired = false\n${ledger()}` }), agentCommit("More\n", { "README.md": "hello\n" })],
      }),
    run: false,
    reasons: ["agent_loosened_policy"],
    findings: (p) => [F("agent_loosened_policy", "freeze.toml", null, p.commits[2]!)],
  },
  {
    name: "proven_coverage: the agent adds code no test runs",
    build: () =>
      project({
        patch: [
          agentCommit("Add an untested parser\n", {
            "pkg/parse.py": `def parse(text):\n${Array.from({ length: 12 }, (_, i) => `    if text == "${i}":\n        return ${i}\n`).join("")}    return None\n`,
            "tests/test_parse.py": "import pkg.parse  # noqa: F401\n\n\ndef test_import():\n    pass\n",
          }),
        ],
      }),
    run: true,
    reasons: ["proven_coverage"],
    findings: () => [F("proven_coverage", "proven_coverage.json")],
    also: (_p, r) => expect(r.report.proven_coverage_percent!).toBeLessThan(80),
  },
  {
    name: "coverage_missing: the proof run measured a package with no statements",
    build: () =>
      project({
        base: {
          "emptypkg/__init__.py": "",
          "tests/test_empty.py": "import emptypkg  # noqa: F401\n\n\ndef test_empty():\n    pass\n",
          "proofgate.toml": config({ proof: proofCommand({ cov: "emptypkg" }) }),
        },
      }),
    run: true,
    reasons: ["coverage_missing"],
    findings: () => [F("coverage_missing", "proven_coverage.json")],
  },
  {
    name: "shard_missing: the base declares 2 coverage shards, the run wrote 1",
    build: () => project({ base: { "proofgate.toml": config({ shards: 2 }) } }),
    run: true,
    reasons: ["shard_missing"],
    findings: () => [F("shard_missing", null)],
  },
  {
    name: "fixtures_unlocked: the agent changes a golden file, not the lock",
    build: () => reused({ patch: [agentCommit("Golden\n", { "tests/fixtures/golden.txt": "changed\n" })] }),
    run: false,
    reasons: ["fixtures_unlocked"],
    findings: () => [F("fixtures_unlocked", "fixtures.lock")],
  },
  {
    name: "fixture_digest: the agent changes a golden file and its lock",
    build: () => reused({ patch: [agentCommit("Golden and lock\n", { "tests/fixtures/golden.txt": "changed\n", "fixtures.lock": lockOf({ "tests/fixtures/golden.txt": "changed\n" }) })] }),
    run: false,
    reasons: ["fixture_digest"],
    findings: (p) => [F("fixture_digest", "fixtures.lock", null, p.commits[1]!)],
    also: (_p, r) => expect(r.report.fixture_digest_delta).toBe(1),
  },
  {
    name: "property_hold: the agent breaks decode() for non-ASCII; the property suite fails on the base's seeds",
    build: () => project({ patch: [agentCommit("Faster decode\n", { "pkg/calc.py": withMerge(BROKEN_DECODE) })] }),
    run: true,
    reasons: ["property_hold"],
    findings: () => [F("property_hold", null), F("property_hold", "properties.xml")],
    also: (_p, r) => expect(r.report.property_failures).toBe(1),
  },
  {
    name: "property_hold + seed_rewrite: the agent also deletes the seed that fails; the suite still runs the base's seeds",
    build: () => project({ patch: [agentCommit("Faster decode, fewer seeds\n", { "pkg/calc.py": withMerge(BROKEN_DECODE), "tests/properties/seeds/unicode.txt": null })] }),
    run: true,
    reasons: ["property_hold", "seed_rewrite"],
    findings: (p) => [F("property_hold", null), F("property_hold", "properties.xml"), F("seed_rewrite", "tests/properties/seeds/unicode.txt", null, p.commits[1]!)],
  },
  {
    name: "seeds_empty: the base has no seed files",
    build: () => project({ base: { "tests/properties/seeds/ascii.txt": null, "tests/properties/seeds/unicode.txt": null } }),
    run: true,
    reasons: ["seeds_empty"],
    findings: () => [F("seeds_empty", "tests/properties/seeds")],
  },
  {
    name: "seeds_empty + seed_rewrite: the agent deletes every seed",
    build: () => reused({ patch: [agentCommit("Drop seeds\n", { "tests/properties/seeds/ascii.txt": null, "tests/properties/seeds/unicode.txt": null })] }),
    run: false,
    reasons: ["seeds_empty", "seed_rewrite"],
    findings: (p) => [F("seeds_empty", "tests/properties/seeds"), F("seed_rewrite", "tests/properties/seeds/ascii.txt", null, p.commits[1]!)],
  },
  {
    name: "seed_rewrite: the agent adds a seed",
    build: () => reused({ patch: [agentCommit("A seed\n", { "tests/properties/seeds/new.txt": "new\n" })] }),
    run: false,
    reasons: ["seed_rewrite"],
    findings: (p) => [F("seed_rewrite", "tests/properties/seeds/new.txt", null, p.commits[1]!)],
  },
  {
    name: "tests_failed: the agent breaks the discount",
    build: () => project({ patch: [agentCommit("Discount\n", { "pkg/calc.py": withMerge(CALC.replace("(100 - discount) / 100", "(100 - discount) / 10")) })] }),
    run: true,
    reasons: ["tests_failed"],
    findings: () => [F("tests_failed", null), F("tests_failed", "results.xml", anyLine)],
    also: (_p, r) => {
      expect(r.report.details[1]!.message).toMatch(/^tests\/test_a\.py::test_discount failed in the proof run/);
      expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, failed: 1 });
    },
  },
  {
    name: "missing_evidence: the base's proof command leaves a collected test out",
    build: () => project({ base: { "proofgate.toml": config({ proof: proofCommand({ pytestArgs: "--deselect tests/test_a.py::test_total" }) }) } }),
    run: true,
    reasons: ["missing_evidence"],
    // The finding names the universe, which holds the test that has no result.
    findings: () => [F("missing_evidence", "collected.txt")],
    also: (_p, r) => {
      expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, missing: 1 });
      expect(r.report.details[0]!.message).toBe("1 collected test(s) have no result in results.xml: tests/test_a.py::test_total");
    },
  },
  {
    name: "skip_budget: the agent skips a test (max_unledgered_skips = 0)",
    build: () => project({ patch: [agentCommit("Skip\n", { "tests/test_a.py": TEST_A.replace("def test_negative", '@pytest.mark.skip(reason="later")\ndef test_negative') })] }),
    run: true,
    reasons: ["skip_budget"],
    findings: () => [F("skip_budget", "results.xml", anyLine)],
    also: (_p, r) => expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, skipped: 1 }),
  },
  {
    name: "frozen_in_proof_run: the base's proof command drops proofgate's PYTEST_ADDOPTS",
    build: () => project({ base: { "proofgate.toml": config({ proof: proofCommand({ prefix: "PYTEST_ADDOPTS= " }) }) } }),
    run: true,
    reasons: ["frozen_in_proof_run"],
    findings: () => [F("frozen_in_proof_run", "results.xml", anyLine)],
  },
  {
    name: "protected_path: the agent edits a CI workflow",
    build: () => reused({ patch: [agentCommit("CI\n", { ".github/workflows/ci.yml": "on: push\n" })] }),
    run: false,
    reasons: ["protected_path"],
    findings: (p) => [F("protected_path", ".github/workflows/ci.yml", null, p.commits[1]!)],
  },
  {
    name: "protected_path: the agent lowers min_proven in proofgate.toml; the base's floor still judges",
    build: () => reused({ patch: [agentCommit("Floor\n", { "proofgate.toml": config({ minProven: 10 }) })] }),
    run: false,
    reasons: ["protected_path"],
    findings: (p) => [F("protected_path", "proofgate.toml", null, p.commits[1]!)],
    also: (_p, r) => {
      expect(r.report.min_proven_coverage_percent).toBe(80);
      expect(r.report.warnings.join("\n")).toContain("the work tree's proofgate.toml differs from the base's");
    },
  },
  {
    name: "shallow_history: a --depth 1 clone cannot reach the base",
    build: () => {
      const origin = reused();
      const dir = `${origin.dir}-shallow`;
      made.push(dir);
      git(origin.dir, ["clone", "-q", "--depth", "1", "--branch", "patch", `file://${origin.dir}`, dir]);
      putArtifacts(artifacts, dir);
      return { ...origin, dir };
    },
    run: false,
    reasons: ["shallow_history"],
    findings: () => [F("shallow_history", null)],
  },
  {
    name: "collection_errors: the agent adds a test module that cannot be imported (the whole run is interrupted)",
    build: () => project({ patch: [agentCommit("New test\n", { "tests/test_c.py": "import not_installed_module\n\n\ndef test_c():\n    pass\n" })] }),
    run: true,
    reasons: ["proven_coverage", "tests_failed", "missing_evidence", "collection_errors"],
    findings: () => [
      F("proven_coverage", "proven_coverage.json"),
      F("tests_failed", null),
      F("tests_failed", "results.xml", anyLine),
      F("missing_evidence", "collected.txt"),
      F("collection_errors", null),
      F("collection_errors", "collected.txt", anyLine),
      F("collection_errors", "collected.txt", anyLine),
      F("collection_errors", "collected.txt", anyLine),
    ],
  },
  {
    name: "clock_override: --today in the future",
    build: () => reused(),
    run: false,
    args: ["--today", "2030-01-01"],
    reasons: ["clock_override"],
    findings: () => [F("clock_override", null)],
  },
  {
    name: "clock_override: --today after the lease's expiry previews expired_leases (and the expired test's missing result)",
    build: () => reused(),
    run: false,
    args: ["--today", "2100-01-01"],
    reasons: ["expired_leases", "missing_evidence", "clock_override"],
    findings: () => [F("expired_leases", "freeze.toml", 4), F("missing_evidence", "collected.txt"), F("clock_override", null)],
  },
];

describe("proofgate check: each reason code", () => {
  it.each(SCENARIOS)("$name", (s) => {
    const p = s.build();
    const r = check(p.dir, [...(s.run ? ["--run"] : []), "--base", p.base, "--format", "json", ...(s.args ?? [])]);
    expectReject(r, s.reasons);
    if (s.findings) expect(where(r), explain(r)).toEqual(s.findings(p, r));
    // stdout (--format json) is report.json's bytes.
    expect(r.stdout).toBe(r.json);
    s.also?.(p, r);
  });
});

// `proofgate check` end to end on a temp Python project with git history (check-project.ts): --run runs
// the base's [commands] with the real pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3;
// every reason code of docs/contract.md is reached through `check`, each with its exact `reasons` array and the
// file and commit its findings name; the same inputs give the same bytes; and every input deleted,
// emptied or corrupted is REJECT (exit 1 with the right reason, or exit 2 naming the file), never MERGE.
// Scenarios whose signal is history or config (not a run) reuse one real run's artifacts, to stay fast.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REASON_CODES } from "@proofgate/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT,
  CALC,
  GOLDEN,
  HUMAN,
  MERGE_PATCH,
  PROPERTIES,
  TEST_A,
  TEST_PROPS,
  check,
  config,
  COLLECT,
  copyProject,
  git,
  lease,
  ledger,
  lockOf,
  makeCheckProject,
  proofCommand,
  putArtifacts,
  saveArtifacts,
  sshKey,
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

beforeAll(async () => {
  mergeProject = project();
  mergeRun = await check(mergeProject.dir, ["--run"]);
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

/** The human's SSH signing key (made once), and a base that requires signed human trailers and lists it. */
let humanKey: ReturnType<typeof sshKey> | undefined;
function signingHuman(): { privateKey: string; base: Record<string, FileChange> } {
  if (!humanKey) {
    humanKey = sshKey("ada");
    made.push(humanKey.dir);
  }
  return {
    privateKey: humanKey.privateKey,
    base: {
      "proofgate.toml": config({
        extra: '\n[agents]\nhuman_signatures = "required"\nallowed_signers = ".github/allowed_signers"\n',
      }),
      ".github/allowed_signers": `${HUMAN.email} ${humanKey.publicKey}\n`,
    },
  };
}
/** The human renews the lease with `Freeze-Lease: human`: signed with `sign`, or not. */
const renewal = (sign?: string): PatchCommit => ({
  message: "Renew the lease\n\nFreeze-Lease: human\n",
  files: { "freeze.toml": ledger({ expires: "2100-06-30" }) },
  who: HUMAN,
  ...(sign ? { sign } : {}),
});
const agentCommit = (message: string, files: Record<string, FileChange>, who = AGENT): PatchCommit => ({
  message,
  files,
  who,
});

/** The findings as (reason, file, line, commit): what a reader and a merge queue act on. */
const where = (r: CheckRun): Pick<Finding, "reason" | "file" | "line" | "commit">[] =>
  r.report.details.map(({ reason, file, line, commit }) => ({ reason, file, line, commit }));

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
  it("an agent's covered change: exit 0, MERGE, every row pass (human signatures off by default), the table printed, three reports written", async () => {
    const r = mergeRun;
    expect(r.status, explain(r)).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(r.report.reasons).toEqual([]);
    expect(r.report.details).toEqual([]);
    expect(r.report.errors).toEqual([]);
    expect(r.report.signals.map((s) => `${s.id}:${s.result}`)).toEqual([
      "proven_coverage:pass",
      "coverage_drop:off",
      "freeze_budget:pass",
      "lease_authorship:pass",
      "fixture_digests:pass",
      "property_hold:pass",
      "test_evidence:pass",
      "test_runner:pass",
      "measurement:pass",
      // No [coverage] min_patch_proven at the base: the figure is shown, the row is off.
      "patch_coverage:off",
      "protected_paths:pass",
      "human_signatures:off",
      "history:pass",
      "universe:pass",
      "removed_tests:pass",
      "clock:pass",
      "policy:pass",
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
    expect(r.report.accounting).toMatchObject({
      collected: 9,
      proven: 8,
      frozen: 1,
      skipped: 0,
      failed: 0,
      missing: 0,
    });
    expect(readFileSync(join(mergeProject.dir, "results.xml"), "utf8")).not.toContain('name="test_frozen"');
    // coverage.py's own totals, from the proof run without the frozen test.
    const totals = (
      JSON.parse(readFileSync(join(mergeProject.dir, "proven_coverage.json"), "utf8")) as {
        totals: Record<string, number>;
      }
    ).totals;
    expect(r.report.coverage).toMatchObject({
      num_statements: totals.num_statements,
      covered_lines: totals.covered_lines,
      num_branches: totals.num_branches,
      covered_branches: totals.covered_branches,
    });
    expect(r.report.proven_coverage_percent).toBe(totals.percent_covered);
    // Every step is timed (the report says where the time went); the base's ran in its worktree, beside them.
    expect(r.report.commands?.every((c) => typeof c.seconds === "number" && c.seconds >= 0)).toBe(true);
    expect(r.report.commands?.filter((c) => c.step.startsWith("base "))).toEqual([
      expect.objectContaining({ step: "base collect", exit_code: 0 }),
      expect.objectContaining({ step: "base properties", exit_code: 0 }),
    ]);
    expect(r.report.commands?.filter((c) => !c.step.startsWith("base "))).toEqual([
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
      "fixtures_lock:fixtures.lock",
      "properties:properties.xml",
      `base_universe:collected.txt (collected at base ${short(mergeProject.base)})`,
      `base_properties:property test ids (collected at base ${short(mergeProject.base)})`,
      `base_properties:property test settings (collected at base ${short(mergeProject.base)})`,
    ]);
    expect(r.report.warnings).toEqual([]);
    // The decision table on stdout, top to bottom in the article's order.
    expect(r.stdout).toMatch(/^proofgate: MERGE /);
    const rows = r.stdout.split("\n").filter((l) => /^\S.*\s(pass|fail|off|not_measured)\s/.test(l));
    expect(rows.map((l) => l.split(/\s{2,}/)[0])).toEqual([
      "Proven coverage",
      "Coverage drop",
      "Freeze budget",
      "Lease authorship",
      "Fixture digests",
      "Property hold",
      "Test evidence",
      "Test runner",
      "Measurement",
      "Patch coverage",
      "Protected paths",
      "Human signatures",
      "History",
      "Test universe",
      "Removed tests",
      "Clock",
      "Policy",
    ]);
    for (const f of ["report.json", "report.md", "report.txt"])
      expect(existsSync(join(mergeProject.dir, "proofgate-report", f)), f).toBe(true);
  });

  it("a human's lease change with `Freeze-Lease: human` is allowed: MERGE (the lease rules can pass)", async () => {
    const p = reused({
      patch: [
        agentCommit(
          "Renew the lease\n\nFreeze-Lease: human\n",
          { "freeze.toml": ledger({ expires: "2099-12-31" }).replace("flaky on CI", "flaky on CI, renewed") },
          HUMAN,
        ),
      ],
    });
    const r = await check(p.dir, ["--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("human_signatures required: the human's renewal signed with the key the base lists for them: MERGE", async () => {
    const human = signingHuman();
    const p = reused({ base: human.base, patch: [renewal(human.privateKey)] });
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.signals.find((s) => s.id === "human_signatures")).toMatchObject({
      result: "pass",
      value: "1 human-trailer commit, 1 verified",
    });
    expect(r.report.inputs.map((i) => i.role)).toContain("allowed_signers");
  });

  it("--run deselects exactly: a lease on test_total leaves test_total_slow in the proof run", async () => {
    const p = project({
      base: {
        "tests/test_a.py": `${TEST_A}\n\ndef test_total_slow():\n    assert total([5] * 100) == 500\n`,
        "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_total") }),
      },
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.accounting).toMatchObject({ collected: 10, proven: 8, frozen: 2, missing: 0 });
    const results = readFileSync(join(p.dir, "results.xml"), "utf8");
    expect(results).toContain('name="test_total_slow"');
    expect(results).not.toMatch(/name="test_total"/);
    expect(results).not.toMatch(/name="test_frozen"/);
    // Each run's plugin has a name of its own; the next check leaves only its own steps' (proof, properties).
    const plugins = () => readdirSync(join(p.dir, "proofgate-report", "pytest")).filter((f) => f.endsWith(".py"));
    expect(plugins()).toHaveLength(2);
    const again = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(again.status, explain(again)).toBe(0);
    expect(plugins()).toHaveLength(2);
  });

  it("fixtures and properties turned off at the base: MERGE, their rows explicitly off", async () => {
    const p = reused({
      base: {
        "proofgate.toml": config({ extra: "\n[fixtures]\nenabled = false\n" }).replace(
          '[properties]\nresults = ["properties.xml"]',
          "[properties]\nenabled = false",
        ),
      },
    });
    const r = await check(p.dir, ["--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.signals.filter((s) => s.result !== "pass").map((s) => `${s.id}:${s.result}`)).toEqual([
      "coverage_drop:off",
      "fixture_digests:off",
      "property_hold:off",
      "patch_coverage:off",
      "human_signatures:off",
      // Without --run (and no [universe] base_collected) the base's universe is not collected: said, not hidden.
      "removed_tests:not_measured",
    ]);
    // Said once, in the rows (not as a warning on every run).
    expect(r.report.warnings).toEqual([]);
    expect(r.report.signals.filter((s) => s.result === "off").map((s) => s.value)).toEqual([
      "off: [coverage] max_drop is not set",
      `off: [fixtures] enabled = false in proofgate.toml at ${short(p.base)}`,
      `off: [properties] enabled = false in proofgate.toml at ${short(p.base)}`,
      // describe(), every line of it run by test_describe.
      expect.stringMatching(/^100\.00% \((\d+) of \1 changed statements proven; 1 file\)$/),
      'off: [agents] human_signatures = "off"',
    ]);
  });

  it("fixtures off (no golden folder, as init writes it): a data file in tests/ the tests read is still judged when it changes", async () => {
    // boltons keeps its test data beside the tests (tests/newlines_test_data.txt): init finds no golden folder.
    const off = config({ extra: "\n[fixtures]\nenabled = false\n" });
    const READS = `from pathlib import Path\n\n\ndef test_lines():\n    assert Path("tests/lines.txt").read_text().count("\\n") == 3\n`;
    const base = { "proofgate.toml": off, "tests/lines.txt": "a\n\nb\n", "tests/test_lines.py": READS };
    const rewrite = { "tests/lines.txt": "a\nb\nc\n" };
    // The agent's change and the agent's rewrite of the data: REJECT, naming the file and the test.
    const agent = project({ base, patch: [agentCommit("Simpler test data\n", rewrite)] });
    const r = await check(agent.dir, ["--run", "--base", agent.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["unlocked_fixture_read"]);
    expect(r.report.details[0]!.message).toContain(
      "data file(s) in a test folder that changed in the range without a human's `Fixture-Lock: human` on each commit that changed them ([fixtures] is off, so no lock holds them): tests/lines.txt (first by tests/test_lines.py::test_lines)",
    );
    expect(r.report.signals.find((x) => x.id === "fixture_digests")?.value).toContain("still judged");
    // The same rewrite by a human with the trailer, and the agent's covered change beside it: MERGE.
    const human = project({
      base,
      patch: [{ message: "Simpler test data\n\nFixture-Lock: human\n", files: rewrite, who: HUMAN }],
    });
    const h = await check(human.dir, ["--run", "--base", human.base, "--format", "json"]);
    expect(h.report.reasons, explain(h)).toEqual([]);
    expect(h.status).toBe(0);
  });

  it.concurrent.each([
    // A testdata/ folder at the top, read by tests/ (neither a test folder nor source).
    ["testdata/lines.txt", "tests/test_lines.py", 'Path("testdata/lines.txt")'],
    // pytest's own layout: tests in testing/, their data in a folder below it.
    ["testing/data/lines.txt", "testing/test_lines.py", 'Path("testing/data/lines.txt")'],
  ] as const)(
    "fixtures off: data the tests read at %s, rewritten by the agent, is judged too",
    async (data, test, path) => {
      const reads = `from pathlib import Path\n\n\ndef test_lines():\n    assert ${path}.read_text().count("\\n") == 3\n`;
      // The commands collect the test folder too when it is not tests/.
      const folder = test.split("/")[0]!;
      const also = (command: string) =>
        folder === "tests" ? command : command.replace(" tests ", ` ${folder} tests `);
      const [collect, proof] = [also(COLLECT), also(proofCommand())];
      const base = {
        "proofgate.toml": config({ collect, proof, extra: "\n[fixtures]\nenabled = false\n" }),
        [data]: "a\n\nb\n",
        [test]: reads,
      };
      const p = project({ base, patch: [agentCommit("Simpler test data\n", { [data]: "a\nb\nc\n" })] });
      const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
      expect(r.report.reasons, explain(r)).toEqual(["unlocked_fixture_read"]);
      expect(r.report.details[0]!.message).toContain(`${data} (first by ${test}::test_lines)`);
    },
  );

  it("fixtures off: a data case the agent deletes from a test folder (the test reads the whole folder) is judged", async () => {
    const reads = `from pathlib import Path\n\n\ndef test_cases():\n    for case in sorted(Path("tests/cases").glob("*.txt")):\n        assert case.read_text().endswith("\\n"), case\n`;
    const base = {
      "proofgate.toml": config({ extra: "\n[fixtures]\nenabled = false\n" }),
      "tests/cases/short.txt": "a\n",
      "tests/cases/long.txt": "a long case\n",
      "tests/test_cases.py": reads,
    };
    const p = project({ base, patch: [agentCommit("Drop a case\n", { "tests/cases/long.txt": null })] });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expect(r.report.reasons, explain(r)).toEqual(["unlocked_fixture_read"]);
    expect(r.report.details[0]!.message).toContain(
      "the range deleted 1 data file(s) from a test folder without a human's `Fixture-Lock: human`",
    );
    expect(r.report.details[0]!.message).toMatch(/: tests\/cases\/long\.txt$/);
  });

  it("--today equal to the machine's UTC date is no override: MERGE", async () => {
    const p = reused();
    const r = await check(p.dir, ["--format", "json", "--today", new Date().toISOString().slice(0, 10)]);
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

const F = (reason: string, file: string | null, line: number | null = null, commit: string | null = null) => ({
  reason,
  file,
  line,
  commit,
});
const anyLine = expect.any(Number) as unknown as number;
const BROKEN_DECODE = CALC.replace(
  'bytes.fromhex(data).decode("utf-8")',
  'bytes.fromhex(data).decode("ascii", errors="replace")',
);
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
    build: () =>
      project({ base: { "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[one]") }) } }),
    run: true,
    reasons: ["unknown_leases"],
    findings: () => [F("unknown_leases", "freeze.toml", 10)],
    also: (_p, r) => {
      expect(r.report.ledger!.unknown).toEqual([
        expect.objectContaining({
          nodeid: "tests/test_a.py::test_param[one]",
          close_ids: ["tests/test_a.py::test_param[1]", "tests/test_a.py::test_param[2]"],
        }),
      ]);
      expect(r.report.accounting).toMatchObject({ proven: 8, frozen: 1, missing: 0 });
    },
  },
  {
    name: "agent_added_lease: the agent freezes test_roundtrip (--run deselects it)",
    build: () =>
      project({
        base: { "freeze.toml": ledger({ max: 2 }) },
        patch: [
          agentCommit("Freeze a test\n", {
            "freeze.toml": ledger({ max: 2, extra: lease("tests/test_b.py::test_roundtrip") }),
          }),
        ],
      }),
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
    build: () =>
      reused({
        base: { "freeze.toml": ledger({ max: 2 }) },
        patch: [
          agentCommit("Freeze a test\n\nFreeze-Lease: human\n", {
            "freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_param[9]") }),
          }),
        ],
      }),
    run: false,
    reasons: ["unknown_leases", "agent_added_lease"],
    findings: (p) => [F("unknown_leases", "freeze.toml", 10), F("agent_added_lease", "freeze.toml", 10, p.commits[1]!)],
  },
  {
    name: "agent_added_lease + agent_loosened_policy: the agent turns reject_if_agent_adds_lease off and adds a lease in one commit",
    build: () =>
      project({
        base: { "freeze.toml": ledger({ max: 2 }) },
        patch: [
          agentCommit("Freeze\n", {
            "freeze.toml": `reject_if_agent_adds_lease = false\n${ledger({ max: 2, extra: lease("tests/test_b.py::test_roundtrip") })}`,
          }),
        ],
      }),
    run: true,
    reasons: ["agent_added_lease", "agent_loosened_policy"],
    findings: (p) => [
      F("agent_added_lease", "freeze.toml", 11, p.commits[1]!),
      F("agent_loosened_policy", "freeze.toml", null, p.commits[1]!),
    ],
  },
  {
    name: "agent_extended_lease: the agent moves expires from 2098 to 2099",
    build: () =>
      reused({
        base: { "freeze.toml": ledger({ expires: "2098-12-31" }) },
        patch: [agentCommit("Extend\n", { "freeze.toml": ledger({ expires: "2099-12-31" }) })],
      }),
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
        patch: [
          agentCommit("Harmless\n", { "README.md": "hi\n" }),
          agentCommit("Policy\n", { "freeze.toml": `reject_if_expired = false\n${ledger()}` }),
          agentCommit("More\n", { "README.md": "hello\n" }),
        ],
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
    name: "patch_unproven: min_patch_proven = 100, and the agent changes a line only the frozen test runs",
    build: () =>
      project({
        base: { "proofgate.toml": config({ minPatchProven: 100 }) },
        patch: [
          agentCommit("Bigger label\n", {
            "pkg/calc.py": withMerge(CALC).replace('return "big"  # only the frozen test', 'return "large"'),
          }),
        ],
      }),
    run: true,
    reasons: ["patch_unproven"],
    findings: () => [F("patch_unproven", "pkg/calc.py", 17)],
    also: (_p, r) => {
      const patch = r.report.coverage!.patch as {
        percent: number;
        files: { uncovered: number[]; frozen_only: number[] | null }[];
      };
      expect(patch.percent).toBeLessThan(100);
      // Rerun mode without a full report: the frozen-only lines are unknown, not empty.
      expect(patch.files).toEqual([expect.objectContaining({ uncovered: [17], frozen_only: null })]);
      expect(r.report.details[0]!.message).toContain("pkg/calc.py line 17 changed and not proven");
    },
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
    // The patch's pkg/calc.py is not in a report that measured emptypkg.
    reasons: ["coverage_missing", "unmeasured_source"],
    findings: (p) => [
      F("coverage_missing", "proven_coverage.json"),
      F("unmeasured_source", "pkg/calc.py", null, p.commits[0]!),
    ],
  },
  {
    name: "coverage_exclusions_added: the agent puts `# pragma: no cover` on a line it wrote (routes-measurement.e2e.test.ts runs each route)",
    build: () =>
      reused({
        patch: [
          agentCommit("Skip the branch\n", {
            "pkg/calc.py": withMerge(CALC).replace(
              'return "big"  # only the frozen test',
              'return "big"  # pragma: no cover',
            ),
          }),
        ],
      }),
    run: false,
    reasons: ["coverage_exclusions_added"],
    findings: (p) => [F("coverage_exclusions_added", "pkg/calc.py", 17, p.commits[1]!)],
  },
  {
    name: "unmeasured_source: the agent puts new code outside --cov=pkg",
    build: () =>
      reused({ patch: [agentCommit("Helpers\n", { "helpers/fast.py": "def fast(xs):\n    return sum(xs)\n" })] }),
    run: false,
    reasons: ["unmeasured_source"],
    findings: (p) => [F("unmeasured_source", "helpers/fast.py", null, p.commits[1]!)],
  },
  {
    name: "shard_missing: the base declares 2 coverage shards, the run wrote 1",
    build: () => project({ base: { "proofgate.toml": config({ shards: 2 }) } }),
    run: true,
    reasons: ["shard_missing"],
    findings: () => [F("shard_missing", null)],
  },
  {
    name: "coverage_dropped: [coverage] max_drop = 1, and the base pipeline's report (a CI artifact) says 99.5%",
    build: () => {
      const p = reused({
        base: {
          "proofgate.toml": config().replace(
            "min_proven = 80\n",
            'min_proven = 80\nmax_drop = 1\nbase_report = "base-report.json"\n',
          ),
        },
      });
      // What the base pipeline's gate wrote for the base commit, downloaded beside the checkout.
      writeFileSync(
        join(p.dir, "base-report.json"),
        JSON.stringify({ decision: "MERGE", proven_coverage_percent: 99.5, head: p.base }),
      );
      return p;
    },
    run: false,
    reasons: ["coverage_dropped"],
    findings: () => [F("coverage_dropped", "base-report.json")],
    also: (_p, r) => {
      expect(r.report.signals.find((s) => s.id === "coverage_drop")).toMatchObject({
        result: "fail",
        value: expect.stringMatching(/^99\.50% at the base, \d+\.\d\d% now: down \d+\.\d\d points/),
      });
      expect(r.report.coverage).toMatchObject({ max_drop_points: 1, base_proven_coverage_percent: 99.5 });
      expect(r.report.inputs).toContainEqual(
        expect.objectContaining({ role: "base_coverage", path: "base-report.json" }),
      );
    },
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
    build: () =>
      reused({
        patch: [
          agentCommit("Golden and lock\n", {
            "tests/fixtures/golden.txt": "changed\n",
            "fixtures.lock": lockOf({ "tests/fixtures/golden.txt": "changed\n" }),
          }),
        ],
      }),
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
    build: () =>
      project({
        patch: [
          agentCommit("Faster decode, fewer seeds\n", {
            "pkg/calc.py": withMerge(BROKEN_DECODE),
            "tests/properties/seeds/unicode.txt": null,
          }),
        ],
      }),
    run: true,
    reasons: ["property_hold", "seed_rewrite"],
    findings: (p) => [
      F("property_hold", null),
      F("property_hold", "properties.xml"),
      F("seed_rewrite", "tests/properties/seeds/unicode.txt", null, p.commits[1]!),
    ],
  },
  {
    name: "seeds_empty: the base has no seed files",
    build: () =>
      project({ base: { "tests/properties/seeds/ascii.txt": null, "tests/properties/seeds/unicode.txt": null } }),
    run: true,
    reasons: ["seeds_empty"],
    findings: () => [F("seeds_empty", "tests/properties/seeds")],
  },
  {
    name: "seeds_empty + seed_rewrite: the agent deletes every seed",
    build: () =>
      reused({
        patch: [
          agentCommit("Drop seeds\n", {
            "tests/properties/seeds/ascii.txt": null,
            "tests/properties/seeds/unicode.txt": null,
          }),
        ],
      }),
    run: false,
    reasons: ["seeds_empty", "seed_rewrite"],
    findings: (p) => [
      F("seeds_empty", "tests/properties/seeds"),
      F("seed_rewrite", "tests/properties/seeds/ascii.txt", null, p.commits[1]!),
    ],
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
    build: () =>
      project({
        patch: [
          agentCommit("Discount\n", {
            "pkg/calc.py": withMerge(CALC.replace("(100 - discount) / 100", "(100 - discount) / 10")),
          }),
        ],
      }),
    run: true,
    reasons: ["tests_failed"],
    // One finding per failed test; the proof run's exit code is explained by them.
    findings: () => [F("tests_failed", "results.xml", anyLine)],
    also: (_p, r) => {
      expect(r.report.details[0]!.message).toMatch(/^tests\/test_a\.py::test_discount failed in the proof run/);
      expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, failed: 1 });
    },
  },
  {
    name: "missing_evidence: the base's proof command leaves a collected test out",
    build: () =>
      project({
        base: {
          "proofgate.toml": config({ proof: proofCommand({ pytestArgs: "--deselect tests/test_a.py::test_total" }) }),
        },
      }),
    run: true,
    reasons: ["missing_evidence"],
    // The finding names the universe, which holds the test that has no result.
    findings: () => [F("missing_evidence", "collected.txt")],
    also: (_p, r) => {
      expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, missing: 1 });
      expect(r.report.details[0]!.message).toBe(
        "1 collected test(s) have no result in results.xml: tests/test_a.py::test_total",
      );
    },
  },
  {
    name: "skip_budget: the agent skips a test (max_unledgered_skips = 0)",
    build: () =>
      project({
        patch: [
          agentCommit("Skip\n", {
            "tests/test_a.py": TEST_A.replace(
              "def test_negative",
              '@pytest.mark.skip(reason="later")\ndef test_negative',
            ),
          }),
        ],
      }),
    run: true,
    // The skip is also new since the base (the base ran test_negative): a skip marker is a removal.
    reasons: ["skip_budget", "tests_skipped_unledgered"],
    findings: (p) => [
      F("skip_budget", "results.xml", anyLine),
      F("tests_skipped_unledgered", "tests/test_a.py", null, p.commits[1]!),
    ],
    also: (_p, r) => expect(r.report.accounting).toMatchObject({ proven: 7, frozen: 1, skipped: 1 }),
  },
  {
    name: "tests_removed: the agent deletes test_negative (the base, collected in a worktree, still has it)",
    build: () =>
      project({
        patch: [
          agentCommit("Drop a test\n", {
            "tests/test_a.py": TEST_A.replace(
              "def test_negative():\n    with pytest.raises(ValueError):\n        total([-1])\n\n\n",
              "",
            ),
          }),
        ],
      }),
    run: true,
    // Its line (the raise) is now covered by no test, yet proven coverage stays above the floor.
    reasons: ["tests_removed"],
    findings: (p) => [F("tests_removed", "tests/test_a.py", null, p.commits[1]!)],
    also: (_p, r) =>
      expect(r.report.details[0]!.message).toMatch(
        /^tests\/test_a\.py::test_negative is collected at base but not at head; commit [0-9a-f]{12} is an agent's /,
      ),
  },
  {
    name: "frozen_in_proof_run: the base's proof command drops proofgate's PYTEST_ADDOPTS",
    build: () =>
      project({ base: { "proofgate.toml": config({ proof: proofCommand({ prefix: "PYTEST_ADDOPTS= " }) }) } }),
    run: true,
    // Without proofgate's plugin the run writes no record either.
    reasons: ["frozen_in_proof_run", "runner_tampering"],
    findings: () => [
      F("frozen_in_proof_run", "results.xml", anyLine),
      F("runner_tampering", "proofgate-report/proof-record.json"),
    ],
  },
  {
    name: "runner_tampering: the agent breaks the discount and adds a conftest.py hook that turns failures into passes",
    build: () =>
      project({
        patch: [
          agentCommit("Discount, and steady tests\n", {
            "pkg/calc.py": withMerge(CALC.replace("(100 - discount) / 100", "(100 - discount) / 10")),
            "tests/conftest.py":
              'import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    report = outcome.get_result()\n    if report.failed:\n        report.outcome = "passed"\n',
          }),
        ],
      }),
    run: true,
    // conftest.py is protected too.
    reasons: ["runner_tampering", "protected_path"],
    also: (p, r) => {
      const tampering = r.report.details.filter((d) => d.reason === "runner_tampering");
      // The added hook, by the agent's commit, and the record: the failure was logged as a pass.
      expect(tampering).toContainEqual(
        expect.objectContaining({ file: "tests/conftest.py", commit: p.commits[1]!, line: 5 }),
      );
      expect(tampering.map((d) => d.message).join("\n")).toMatch(/test_discount/);
      expect(r.report.accounting).toMatchObject({ failed: 0 });
    },
  },
  {
    name: "run_wrote_repository: the agent's test regenerates the golden file it compares against",
    build: () =>
      project({
        patch: [
          agentCommit("Regenerate the golden file\n", {
            "tests/test_regen.py":
              'from pathlib import Path\n\nfrom pkg.calc import encode\n\n\ndef test_regen():\n    Path("tests/fixtures/golden.txt").write_text(encode("regenerated") + "\\n")\n',
          }),
        ],
      }),
    run: true,
    reasons: ["run_wrote_repository"],
    also: (p, r) => {
      const wrote = r.report.details.find((d) => d.reason === "run_wrote_repository")!;
      expect(wrote.file).toBe("tests/fixtures/golden.txt");
      expect(wrote.message).toContain("[commands] proof wrote the repository");
      expect(wrote.message).toContain("tests/fixtures/golden.txt (by tests/test_regen.py::test_regen)");
      // The gate put the fixture back as the commit has it.
      expect(readFileSync(join(p.dir, "tests/fixtures/golden.txt"), "utf8")).toBe(GOLDEN);
    },
  },
  {
    name: "shipped_code_replaced: the agent breaks decode and restores its old code for the tests in tests/__init__.py",
    build: () =>
      project({
        patch: [
          agentCommit("Faster decode\n", {
            "pkg/calc.py": withMerge(BROKEN_DECODE),
            "tests/__init__.py":
              'import pkg.calc\n\n\ndef _decode(data):\n    return bytes.fromhex(data).decode("utf-8")\n\n\npkg.calc.decode.__code__ = _decode.__code__\n',
          }),
        ],
      }),
    run: true,
    // The property suite does not import tests/__init__.py: it runs the shipped decode, and fails.
    reasons: ["property_hold", "shipped_code_replaced"],
    also: (p, r) =>
      expect(where(r).filter((f) => f.reason === "shipped_code_replaced")).toEqual([
        F("shipped_code_replaced", "tests/__init__.py", 8, p.commits[1]!),
      ]),
  },
  {
    name: "unlocked_fixture_read: the agent copies the golden file out of the lock and points the test at the copy",
    build: () =>
      project({
        patch: [
          agentCommit("Golden copy\n", {
            "tests/data/golden.txt": GOLDEN,
            "tests/test_b.py": MERGE_PATCH.files["tests/test_b.py"]!.toString().replace(
              "tests/fixtures/golden.txt",
              "tests/data/golden.txt",
            ),
          }),
        ],
      }),
    run: true,
    reasons: ["unlocked_fixture_read"],
    findings: () => [F("unlocked_fixture_read", "tests/data/golden.txt")],
    also: (_p, r) => expect(r.report.details[0]!.message).toContain("tests/test_b.py::test_golden"),
  },
  {
    name: "property_weakened: the agent makes the property test read no seed, so it passes on nothing",
    build: () =>
      project({
        patch: [
          agentCommit("Faster properties\n", {
            "tests/properties/test_props.py": TEST_PROPS.replace('glob("*")', 'glob("*.none")'),
          }),
        ],
      }),
    run: true,
    reasons: ["property_weakened"],
    // The changed property test (first added line, the agent's commit), and the seeds it no longer reads.
    findings: (p) => [
      F("property_weakened", "tests/properties/test_props.py", 9, p.commits[1]!),
      F("property_weakened", "tests/properties/seeds/ascii.txt"),
    ],
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
    name: "lease_too_long: [ledger] max_lease_days = 30, and the lease runs to 2099",
    build: () => reused({ base: { "proofgate.toml": config({ extra: "\n[ledger]\nmax_lease_days = 30\n" }) } }),
    run: false,
    reasons: ["lease_too_long"],
    findings: () => [F("lease_too_long", "freeze.toml", 4)],
  },
  {
    name: "unverified_human_trailer: signatures required, and the human's renewal is not signed: the trailer does not count",
    build: () => reused({ base: signingHuman().base, patch: [renewal()] }),
    run: false,
    reasons: ["agent_extended_lease", "unverified_human_trailer"],
    findings: (p) => [
      F("agent_extended_lease", "freeze.toml", 4, p.commits[1]!),
      F("unverified_human_trailer", null, null, p.commits[1]!),
    ],
    also: (p, r) => {
      const finding = r.report.details.find((d) => d.reason === "unverified_human_trailer");
      expect(finding?.message).toBe(
        `commit ${short(p.commits[1]!)} by Ada Lovelace <ada@example.org> carries \`Freeze-Lease: human\`, which does not count: it is not signed`,
      );
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
    build: () =>
      project({
        patch: [
          agentCommit("New test\n", {
            "tests/test_c.py": "import not_installed_module\n\n\ndef test_c():\n    pass\n",
          }),
        ],
      }),
    run: true,
    reasons: ["proven_coverage", "tests_failed", "missing_evidence", "collection_errors"],
    findings: () => [
      F("proven_coverage", "proven_coverage.json"),
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
    findings: () => [
      F("expired_leases", "freeze.toml", 4),
      F("missing_evidence", "collected.txt"),
      F("clock_override", null),
    ],
  },
];

describe("proofgate check: each reason code", () => {
  it("the scenarios below and the fail-closed matrix reach every reason code of @proofgate/core", () => {
    const codes = [...REASON_CODES];
    expect(codes.length).toBe(36);
    const reached = new Set([
      ...SCENARIOS.flatMap((s) => s.reasons),
      ...FAIL_CASES.flatMap((c) => c.reasons ?? (c.errorFiles ? ["input_error"] : [])),
    ]);
    expect(codes.filter((c) => !reached.has(c))).toEqual([]);
  });

  it.concurrent.each(SCENARIOS.map((s) => [s.name, s] as const))("%s", async (_name, s) => {
    const p = s.build();
    const r = await check(p.dir, [
      ...(s.run ? ["--run"] : []),
      "--base",
      p.base,
      "--format",
      "json",
      ...(s.args ?? []),
    ]);
    expectReject(r, s.reasons);
    if (s.findings) expect(where(r), explain(r)).toEqual(s.findings(p, r));
    // stdout (--format json) is report.json's bytes.
    expect(r.stdout).toBe(r.json);
    s.also?.(p, r);
  });
});

// Found by this suite: the property suite's cases that did not run (skip, xfail) count as held. These
// tests assert the contract (docs/contract.md §1 and §8: a suite that proved nothing is not a hold) and fail until
// packages/cli/src/commands/check.ts (loadPropertyResults) or core's propertyHold rule counts only cases
// that ran and passed.
describe("proofgate check --run: a property suite that did not run is no hold", () => {
  const PROPS_WITH = (marker: string): string =>
    TEST_PROPS.replace(
      "def test_roundtrip_on_seeds",
      `import pytest  # noqa: E402\n\n\n${marker}\ndef test_roundtrip_on_seeds`,
    );
  it.each([
    { marker: '@pytest.mark.xfail(reason="wip")', what: "xfail" },
    { marker: '@pytest.mark.skip(reason="wip")', what: "skip" },
  ])("the agent breaks decode() and marks the property test $what: REJECT property_hold", async ({ marker }) => {
    const p = project({
      patch: [
        agentCommit("Faster decode\n", {
          "pkg/calc.py": withMerge(BROKEN_DECODE),
          "tests/properties/test_props.py": PROPS_WITH(marker),
        }),
      ],
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    // The suite's one case did not pass: it was skipped or xfailed; and the agent changed a property test.
    expect(readFileSync(join(p.dir, "properties.xml"), "utf8")).toMatch(/<skipped /);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expectReject(r, ["property_hold", "property_weakened"]);
  });
});

describe("proofgate check --run runs the base's [commands]", () => {
  it("an agent's proofgate.toml with other commands: the base's run, and protected_path", async () => {
    const p = project({
      patch: [
        agentCommit("Commands\n", {
          "proofgate.toml": config({
            collect: `touch PATCH_COMMAND_RAN; ${config()
              .match(/collect = "(.*)"/)![1]!
              .replace(/\\"/g, '"')}`,
          }),
        }),
      ],
    });
    const r = await check(p.dir, ["--run", "--base", p.base, "--format", "json"]);
    expectReject(r, ["protected_path"]);
    expect(where(r)).toEqual([F("protected_path", "proofgate.toml", null, p.commits[1]!)]);
    expect(existsSync(join(p.dir, "PATCH_COMMAND_RAN")), "the patch's collect command ran").toBe(false);
  });
});

describe("proofgate check --run in a shallow clone", () => {
  it("runs none of the patch's [commands]: the policy is the base's, which the clone cannot read", async () => {
    const origin = reused({
      patch: [
        agentCommit("Commands\n", {
          "proofgate.toml": config({
            collect: `touch PATCH_COMMAND_RAN; ${config()
              .match(/collect = "(.*)"/)![1]!
              .replace(/\\"/g, '"')}`,
          }),
        }),
      ],
    });
    const dir = `${origin.dir}-shallow`;
    made.push(dir);
    git(origin.dir, ["clone", "-q", "--depth", "1", "--branch", "patch", `file://${origin.dir}`, dir]);
    putArtifacts(artifacts, dir);
    const r = await check(dir, ["--run", "--base", origin.base, "--format", "json"]);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.reasons).toContain("shallow_history");
    expect(existsSync(join(dir, "PATCH_COMMAND_RAN")), "the patch's collect command ran").toBe(false);
  });
});

describe("proofgate check: the same inputs give the same bytes", () => {
  it("twice in one checkout, and once in a copy at another path: report.json and report.md byte-identical", async () => {
    const p = reused({ patch: [agentCommit("CI\n", { ".github/workflows/ci.yml": "on: push\n" })] });
    const first = await check(p.dir, ["--format", "json"]);
    const md1 = readFileSync(join(p.dir, "proofgate-report", "report.md"));
    const second = await check(p.dir, ["--format", "json"]);
    const md2 = readFileSync(join(p.dir, "proofgate-report", "report.md"));
    const copy = copyProject(p);
    made.push(copy.dir);
    const third = await check(copy.dir, ["--format", "json"]);
    const md3 = readFileSync(join(copy.dir, "proofgate-report", "report.md"));
    expect(first.report.reasons).toEqual(["protected_path"]);
    expect(Buffer.from(second.json)).toEqual(Buffer.from(first.json));
    expect(Buffer.from(third.json)).toEqual(Buffer.from(first.json));
    expect(md2).toEqual(md1);
    expect(md3).toEqual(md1);
    // The only date in it is today_utc (and the clock block that repeats it).
    expect(first.json.match(/\d{4}-\d{2}-\d{2}T/g)).toBeNull();
  });

  it("an input error twice: the same bytes", async () => {
    const p = reused();
    writeFileSync(join(p.dir, "freeze.toml"), "version = 1\n[[leases]\n");
    const first = await check(p.dir, ["--format", "json"]);
    const second = await check(p.dir, ["--format", "json"]);
    expect(first.status).toBe(2);
    expect(Buffer.from(second.json)).toEqual(Buffer.from(first.json));
  });
});

// ---------------------------------------------------------------------------------------------------
// Fail closed: every input deleted, emptied or corrupted. Never MERGE: exit 2 naming the file (stderr
// and errors[].file), or exit 1 with the right reason; report.json is written either way, decision REJECT.

interface FailCase {
  name: string;
  /** The project: the MERGE project's files and artifacts, unless said otherwise. */
  build?: () => Project;
  mutate?: (p: Project) => void;
  run?: boolean;
  args?: (p: Project) => string[];
  /** Exit 2: the files errors[] names, in order. */
  errorFiles?: (p: Project) => (string | null)[];
  errorCodes?: string[];
  /** Exit 1: the reasons. */
  reasons?: string[];
}

const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]);
const put = (path: string, content: string | Buffer) => (p: Project) => writeFileSync(join(p.dir, path), content);
const del = (path: string) => (p: Project) => rmSync(join(p.dir, path), { force: true });
/** The mutation, committed on the patch branch by the agent. */
const committed = (mutate: (p: Project) => void) => (p: Project) => {
  mutate(p);
  git(p.dir, ["add", "-A"], AGENT);
  git(p.dir, ["commit", "-q", "-m", "Change the ledger"], AGENT);
};
const baseConfig = (p: Project) => `proofgate.toml at ${short(p.base)}`;

const FAIL_CASES: FailCase[] = [
  // The ledger, as the patch commits it (the work tree must be the head it judges).
  {
    name: "ledger deleted",
    mutate: committed(del("freeze.toml")),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["file_missing"],
  },
  {
    name: "ledger emptied",
    mutate: committed(put("freeze.toml", "")),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["file_empty"],
  },
  {
    name: "ledger corrupted (bad TOML)",
    mutate: committed(put("freeze.toml", "version = 1\n[[leases]\nnodeid = \n")),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["ledger_syntax"],
  },
  // Read from git first (the ledger diff, commit by commit): the error names the commit's copy.
  {
    name: "ledger corrupted (not UTF-8)",
    mutate: committed(put("freeze.toml", NOT_UTF8)),
    errorFiles: (p) => [`${git(p.dir, ["rev-parse", "HEAD"]).trim()}:freeze.toml`],
    errorCodes: ["file_unreadable"],
  },
  {
    name: "ledger corrupted (a lease without owner)",
    mutate: committed(put("freeze.toml", ledger().replace('owner = "ada"\n', ""))),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["ledger_invalid"],
  },
  {
    name: "ledger is a folder",
    mutate: committed((p) => {
      rmSync(join(p.dir, "freeze.toml"));
      mkdirSync(join(p.dir, "freeze.toml"));
      writeFileSync(join(p.dir, "freeze.toml", "keep"), "");
    }),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["file_unreadable"],
  },
  // Not committed: the work tree is not the head it would be judged as.
  {
    name: "ledger changed in the work tree only",
    mutate: put("freeze.toml", "version = 1\nmax_active_leases = 9\n"),
    errorFiles: () => ["freeze.toml"],
    errorCodes: ["work_tree_dirty"],
  },
  // The config at the base.
  {
    name: "config at base corrupted (bad TOML)",
    build: () => reused({ base: { "proofgate.toml": "[coverage\nmin_proven = 80\n" } }),
    errorFiles: (p) => [baseConfig(p)],
    errorCodes: ["config_invalid"],
  },
  {
    name: "config at base corrupted (unknown key)",
    build: () => reused({ base: { "proofgate.toml": config({ extra: "\n[results2]\nx = 1\n" }) } }),
    errorFiles: (p) => [baseConfig(p)],
    errorCodes: ["config_invalid"],
  },
  {
    name: "config at base corrupted (min_proven = 170)",
    build: () => reused({ base: { "proofgate.toml": config({ minProven: 170 }) } }),
    errorFiles: (p) => [baseConfig(p)],
    errorCodes: ["config_invalid"],
  },
  {
    name: "config at base corrupted (not UTF-8)",
    build: () => reused({ base: { "proofgate.toml": NOT_UTF8 } }),
    errorFiles: (p) => [`${p.base}:proofgate.toml`],
    errorCodes: ["file_unreadable"],
  },
  // Deleted or emptied at the base: the defaults judge, and they name no property results: property_hold.
  {
    name: "config at base deleted (defaults: no property results)",
    build: () => reused({ base: { "proofgate.toml": null } }),
    reasons: ["property_hold"],
  },
  {
    name: "config at base emptied (defaults: no property results)",
    build: () => reused({ base: { "proofgate.toml": "" } }),
    reasons: ["property_hold"],
  },
  {
    name: "config corrupted at head only: the base's judges; protected_path",
    build: () => reused({ patch: [agentCommit("Config\n", { "proofgate.toml": "[coverage\n" })] }),
    reasons: ["protected_path"],
  },
  {
    name: "config at base has no [commands], with --run",
    build: () => reused({ base: { "proofgate.toml": config().replace(/\[commands\][^]*$/, "") } }),
    run: true,
    errorFiles: (p) => [baseConfig(p)],
    errorCodes: ["usage"],
  },
  // The universe.
  {
    name: "universe deleted",
    mutate: del("collected.txt"),
    errorFiles: () => ["collected.txt"],
    errorCodes: ["file_missing"],
  },
  {
    name: "universe emptied",
    mutate: put("collected.txt", ""),
    errorFiles: () => ["collected.txt"],
    errorCodes: ["file_empty"],
  },
  {
    name: "universe corrupted (not pytest output)",
    mutate: put("collected.txt", "hello world\nthis is not a test list\n"),
    errorFiles: () => ["collected.txt"],
  },
  {
    name: "universe corrupted (not UTF-8)",
    mutate: put("collected.txt", NOT_UTF8),
    errorFiles: () => ["collected.txt"],
    errorCodes: ["file_unreadable"],
  },
  {
    // Cut off before pytest's summary. (Ids missing above an intact summary read as a narrowed collection:
    // tests_removed judges it, messages.e2e.test.ts.)
    name: "universe truncated (cut after 4 ids)",
    mutate: (p) =>
      put("collected.txt", readFileSync(join(p.dir, "collected.txt"), "utf8").split("\n").slice(0, 4).join("\n"))(p),
    errorFiles: () => ["collected.txt"],
  },
  // Coverage.
  {
    name: "coverage deleted",
    mutate: del("proven_coverage.json"),
    errorFiles: () => ["proven_coverage.json"],
    errorCodes: ["file_missing"],
  },
  { name: "coverage emptied", mutate: put("proven_coverage.json", ""), errorFiles: () => ["proven_coverage.json"] },
  {
    name: "coverage corrupted (truncated JSON)",
    mutate: (p) =>
      put("proven_coverage.json", readFileSync(join(p.dir, "proven_coverage.json"), "utf8").slice(0, 200))(p),
    errorFiles: () => ["proven_coverage.json"],
  },
  {
    name: "coverage corrupted ({} has no totals)",
    mutate: put("proven_coverage.json", "{}\n"),
    errorFiles: () => ["proven_coverage.json"],
  },
  {
    name: "coverage corrupted (not UTF-8)",
    mutate: put("proven_coverage.json", NOT_UTF8),
    errorFiles: () => ["proven_coverage.json"],
  },
  // Results.
  {
    name: "results deleted",
    mutate: del("results.xml"),
    errorFiles: () => ["results.xml"],
    errorCodes: ["file_missing"],
  },
  { name: "results emptied", mutate: put("results.xml", ""), errorFiles: () => ["results.xml"] },
  {
    name: "results corrupted (truncated XML)",
    mutate: (p) => put("results.xml", readFileSync(join(p.dir, "results.xml"), "utf8").slice(0, 300))(p),
    errorFiles: () => ["results.xml"],
  },
  {
    name: "results with no test case",
    mutate: put(
      "results.xml",
      '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="0"></testsuite></testsuites>',
    ),
    errorFiles: () => ["results.xml"],
  },
  // The property suite's results.
  {
    name: "property results deleted",
    mutate: del("properties.xml"),
    errorFiles: () => ["properties.xml"],
    errorCodes: ["file_missing"],
  },
  { name: "property results emptied", mutate: put("properties.xml", ""), errorFiles: () => ["properties.xml"] },
  {
    name: "property results corrupted",
    mutate: put("properties.xml", "<testsuites><testsuite"),
    errorFiles: () => ["properties.xml"],
  },
  {
    name: "property results with no test case",
    mutate: put(
      "properties.xml",
      '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="0"></testsuite></testsuites>',
    ),
    errorFiles: () => ["properties.xml"],
  },
  // The fixtures lock (work tree).
  {
    name: "fixtures lock deleted",
    mutate: del("fixtures.lock"),
    errorFiles: () => ["fixtures.lock"],
    errorCodes: ["file_missing"],
  },
  { name: "fixtures lock emptied", mutate: put("fixtures.lock", ""), errorFiles: () => ["fixtures.lock"] },
  {
    name: "fixtures lock corrupted",
    mutate: put("fixtures.lock", "not a digest  tests/fixtures/golden.txt\n"),
    errorFiles: () => ["fixtures.lock"],
  },
  {
    name: "fixtures lock deleted by the agent's commit",
    build: () => reused({ patch: [agentCommit("No lock\n", { "fixtures.lock": null })] }),
    errorFiles: () => ["fixtures.lock"],
    errorCodes: ["file_missing"],
  },
  {
    name: "a fixture deleted by the agent's commit",
    build: () => reused({ patch: [agentCommit("No golden\n", { "tests/fixtures/golden.txt": null })] }),
    errorFiles: () => ["tests/fixtures"],
  },
  // The seeds.
  {
    name: "seeds folder deleted by the agent's commit",
    build: () =>
      reused({
        patch: [
          agentCommit("No seeds\n", {
            "tests/properties/seeds/ascii.txt": null,
            "tests/properties/seeds/unicode.txt": null,
          }),
        ],
      }),
    reasons: ["seeds_empty", "seed_rewrite"],
  },
  {
    name: "a seed emptied by the agent's commit",
    build: () => reused({ patch: [agentCommit("Empty seed\n", { "tests/properties/seeds/unicode.txt": "" })] }),
    reasons: ["seed_rewrite"],
  },
  {
    name: "seeds folder replaced by a file by the agent's commit",
    build: () =>
      reused({
        patch: [
          agentCommit("Seeds file\n", {
            "tests/properties/seeds/ascii.txt": null,
            "tests/properties/seeds/unicode.txt": null,
            "tests/properties/seeds": "x\n",
          }),
        ],
      }),
    reasons: ["seed_rewrite"],
  },
  {
    name: "a seed at the base is a symlink (--run cannot materialize it)",
    build: () => project({ base: { "tests/properties/seeds/link.txt": { symlink: "ascii.txt" } } }),
    run: true,
    errorFiles: (p) => [`${p.base}:tests/properties/seeds/link.txt`],
    errorCodes: ["usage"],
  },
  // Git.
  {
    name: "--base is not an ancestor of head",
    mutate: (p) => {
      git(p.dir, ["checkout", "-q", "main"]);
      git(p.dir, ["commit", "-q", "--allow-empty", "-m", "Later on main"]);
      git(p.dir, ["checkout", "-q", "patch"]);
    },
    args: () => ["--base", "main"],
    reasons: ["shallow_history"],
  },
  {
    name: "--base names no commit",
    args: () => ["--base", "0123456789abcdef0123456789abcdef01234567"],
    reasons: ["shallow_history"],
  },
  {
    name: "a --depth 1 clone",
    build: () => {
      const o = reused();
      const dir = `${o.dir}-shallow`;
      made.push(dir);
      git(o.dir, ["clone", "-q", "--depth", "1", "--branch", "patch", `file://${o.dir}`, dir]);
      putArtifacts(artifacts, dir);
      return { ...o, dir };
    },
    reasons: ["shallow_history"],
  },
  {
    name: "--head names no commit",
    args: (p) => ["--base", p.base, "--head", "no-such-branch"],
    errorFiles: () => [null],
    errorCodes: ["usage"],
  },
  {
    name: "not a git repository",
    mutate: (p) => rmSync(join(p.dir, ".git"), { recursive: true, force: true }),
    errorFiles: () => [null],
    errorCodes: ["git_failed"],
  },
  {
    name: "--today is not a date",
    args: (p) => ["--base", p.base, "--today", "2026-02-30"],
    errorFiles: () => [null],
    errorCodes: ["usage"],
  },
  // --run: a step that leaves its outputs stale or unwritten.
  {
    name: "--run: the proof step writes nothing",
    build: () => reused({ base: { "proofgate.toml": config({ proof: "true" }) } }),
    run: true,
    errorFiles: () => ["proven_coverage.json", "results.xml"],
    errorCodes: ["file_missing", "file_missing"],
  },
  {
    name: "--run: the collect step writes nothing",
    build: () => reused({ base: { "proofgate.toml": config({ collect: "true" }) } }),
    run: true,
    errorFiles: () => ["collected.txt"],
    errorCodes: ["file_missing"],
  },
  {
    name: "--run: the property step writes nothing",
    // pytest runs (the base's property ids are collected) but writes no JUnit XML.
    build: () =>
      reused({
        base: {
          "proofgate.toml": config({
            properties: PROPERTIES.replace(" -o junit_family=xunit1 --junitxml=properties.xml", ""),
          }),
        },
      }),
    run: true,
    errorFiles: () => ["properties.xml"],
    errorCodes: ["file_missing"],
  },
  {
    name: "--run: the base's property step writes no ids (the command is not pytest)",
    build: () => reused({ base: { "proofgate.toml": config({ properties: "exit 0" }) } }),
    run: true,
    errorFiles: (p) => [`proofgate.toml at ${short(p.base)}`],
    errorCodes: ["file_missing"],
  },
  {
    name: "--run: the proof run measures a package never imported (coverage.py writes no report)",
    build: () => project({ base: { "proofgate.toml": config({ proof: proofCommand({ cov: "not_imported" }) }) } }),
    run: true,
    errorFiles: () => ["proven_coverage.json"],
    errorCodes: ["file_missing"],
  },
];

describe("proofgate check fails closed", () => {
  it.concurrent.each(FAIL_CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const p = c.build ? c.build() : reused();
    c.mutate?.(p);
    const r = await check(p.dir, [
      ...(c.run ? ["--run"] : []),
      "--format",
      "json",
      ...(c.args ? c.args(p) : ["--base", p.base]),
    ]);
    expect(r.report.decision, explain(r)).toBe("REJECT");
    expect(r.status).not.toBe(0);
    if (c.reasons) {
      expectReject(r, c.reasons);
      expect(r.report.errors).toEqual([]);
      return;
    }
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.reasons).toEqual(["input_error"]);
    expect(r.report.signals).toEqual([]);
    const files = c.errorFiles!(p);
    expect(
      r.report.errors.map((e) => e.file),
      explain(r),
    ).toEqual(files);
    if (c.errorCodes) expect(r.report.errors.map((e) => e.code)).toEqual(c.errorCodes);
    for (const e of r.report.errors) {
      expect(e.message.length).toBeGreaterThan(0);
      // Said on stderr too, naming the file, one line per error; no stack trace.
      expect(r.stderr).toContain(
        `proofgate: error: ${e.file ? `${e.file}${e.line ? `:${e.line}` : ""}: ` : ""}${e.message}`,
      );
    }
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  });
});

// Reports for the tests: a MERGE, a REJECT whose findings carry hostile text from the patch, and a
// run that could not evaluate. Built with core's own signal table and renderings.
import { buildSignals, renderMarkdown, type Finding, type PublishableReport, type GateReport, type SignalId, type SignalMeasure } from "@proofgate/core";

export const HEAD = "a".repeat(40);
export const BASE = "b".repeat(40);
export const MERGE_COMMIT = "c".repeat(40);

const pass = (value: string, policy: string): SignalMeasure => ({ value, policy });

function measures(over: Partial<Record<SignalId, SignalMeasure>> = {}): Record<SignalId, SignalMeasure> {
  return {
    proven_coverage: pass("82.35% (lines 85.00%)", ">= 70%"),
    coverage_drop: { value: "off: [coverage] max_drop is not set", policy: "drop <= [coverage] max_drop", off: true },
    freeze_budget: pass("1 active of 2", "<= 2"),
    lease_authorship: pass("no lease added", "human trailer"),
    fixture_digests: { value: "fixtures off", policy: "[fixtures] enabled", off: true },
    property_hold: { value: "no results given", policy: "0 failures", notMeasured: true },
    test_evidence: pass("120 proven", "0 failed, 0 missing"),
    test_runner: pass("proof run: 121 tests recorded", "a signed run record of this run"),
    measurement: pass("config .coveragerc: 0 loosenings", "Gate-Change: human"),
    patch_coverage: pass("100.00% (4 of 4 changed statements proven; 2 files)", ">= 80% of the changed statements proven; n/a passes"),
    protected_paths: pass("none touched", "Gate-Change: human"),
    human_signatures: { value: "not required", policy: "[agents] human_signatures", off: true },
    history: pass("3 commits", "reaches base"),
    universe: pass("121 collected", "no collection errors"),
    removed_tests: pass("0 of 121 base tests not collected at head", "Test-Removal: human"),
    clock: pass("2026-03-01", "the machine's clock"),
    policy: pass("proofgate.toml at bbbbbbbbbbbb", "the base revision's proofgate.toml"),
    ...over,
  };
}

function report(gate: GateReport, exitCode: 0 | 1 | 2): PublishableReport {
  return { gate, json: "{}\n", markdown: renderMarkdown(gate), exitCode };
}

/** Every signal passes. */
export function mergeReport(): PublishableReport {
  return report({ decision: "MERGE", reasons: [], todayUtc: "2026-03-01", collectedTests: null, activeLeases: null, expiredLeases: null, fixtureDigestDelta: null, propertyFailures: null, agentAddedLeases: null, schemaVersion: 2, inputs: [],  base: BASE, head: HEAD, provenCoveragePercent: 82.3456, minProvenCoveragePercent: 70, signals: buildSignals(measures(), []), findings: [], errors: [], warnings: [] }, 0);
}

/** Text a patch controls: markup, a mention, a line break, a terminal escape, a bidi override. */
export const HOSTILE = "tests/test_x.py::test_a[<img src=x onerror=alert(1)> @all\n**bold** \u001b[2J \u202eevil]";

/** Two reasons: proven coverage below the floor, and an agent's lease with hostile text. */
export function rejectReport(): PublishableReport {
  const findings: Finding[] = [
    { reason: "proven_coverage", message: "proven coverage 65.20% is below the floor 70%", fix: "add tests that are not frozen" },
    { reason: "agent_added_lease", message: `lease ${HOSTILE} was added by an agent`, file: "freeze.toml", line: 12, commit: "d".repeat(40), author: "bot[bot] <bot@example.com>", fix: "have a human add it with Freeze-Lease: human" },
    { reason: "agent_added_lease", message: "lease tests/test_y.py::test_b was added by an agent", file: "../../etc/passwd", line: 0, fix: "have a human add it" },
  ];
  const signals = buildSignals(measures({ proven_coverage: pass("65.20%", ">= 70%") }), ["proven_coverage", "agent_added_lease"]);
  return report({ decision: "REJECT", reasons: ["agent_added_lease", "proven_coverage"], todayUtc: "2026-03-01", collectedTests: null, activeLeases: null, expiredLeases: null, fixtureDigestDelta: null, propertyFailures: null, agentAddedLeases: null, schemaVersion: 2, inputs: [],  base: BASE, head: HEAD, provenCoveragePercent: 65.2, minProvenCoveragePercent: 70, signals, findings, errors: [], warnings: [{ code: "universe_invalid", message: `universe: ${HOSTILE}` }] }, 1);
}

/** The gate could not evaluate (exit 2): no table, no coverage. */
export function errorReportFixture(): PublishableReport {
  return report(
    {
      decision: "REJECT",
      reasons: ["input_error"],
      todayUtc: "2026-03-01", collectedTests: null, activeLeases: null, expiredLeases: null, fixtureDigestDelta: null, propertyFailures: null, agentAddedLeases: null, schemaVersion: 2, inputs: [], 
      base: null,
      head: HEAD,
      provenCoveragePercent: null,
      minProvenCoveragePercent: null,
      signals: [],
      findings: [],
      errors: [{ code: "ledger_syntax", message: `freeze.toml is not TOML: ${HOSTILE}`, file: "freeze.toml", line: 3, fix: "fix the syntax" }],
      warnings: [],
    },
    2,
  );
}

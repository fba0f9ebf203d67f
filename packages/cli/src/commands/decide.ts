import { GateError, classifyLeases, decide, reportJson, terminalSafe, type InputDigest } from "@proofgate/core";
import { intFlag, listFlag, optionalFlag, optionalIntFlag, percentFlag, stringFlag } from "../flags.js";
import { resolveToday, writeAtomic, type CliIo } from "../io.js";
import { loadLedger, loadUniverse } from "../inputs.js";
import { printWarnings } from "../messages.js";
import { loadProvenCoverage } from "../proven-coverage.js";
import { loadResults } from "../results.js";
import { loadPatchEvidence } from "../patch-evidence.js";
import { unlockedFixtures } from "../fixtures-check.js";

/** Options of `proofgate decide`: the reference script's flags, plus coverage sources, results, `--today` and `--out`. */
export interface DecideArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  coverage?: unknown;
  report?: unknown;
  coverageFormat?: unknown;
  contexts?: unknown;
  shards?: unknown;
  results?: unknown;
  maxUnledgeredSkips?: unknown;
  minProven?: unknown;
  fixtureDelta?: unknown;
  propertyFailures?: unknown;
  agentAddedLeases?: unknown;
  humanFixtureLock?: unknown;
  base?: unknown;
  head?: unknown;
  today?: unknown;
  out?: unknown;
}

/** `proofgate decide`: prints the JSON report; exit 0 MERGE, 1 REJECT (2 is raised as a GateError). */
export async function runDecide(args: DecideArgs, io: CliIo): Promise<number> {
  const minProven = percentFlag("min-proven", args.minProven, 70);
  const fixtureDelta = intFlag("fixture-delta", args.fixtureDelta, 0);
  const propertyFailures = intFlag("property-failures", args.propertyFailures, 0);
  const agentAddedLeases = intFlag("agent-added-leases", args.agentAddedLeases, 0);
  const humanFixtureLock = args.humanFixtureLock === true;
  const shards = optionalIntFlag("shards", args.shards, 1);
  const maxUnledgeredSkips = optionalIntFlag("max-unledgered-skips", args.maxUnledgeredSkips);
  const out = optionalFlag("out", args.out);
  const base = optionalFlag("base", args.base);
  const head = optionalFlag("head", args.head);
  const fromGit = base !== undefined || head !== undefined;
  if (fromGit && (agentAddedLeases > 0 || fixtureDelta > 0 || humanFixtureLock)) {
    throw new GateError({
      code: "usage",
      message:
        "--agent-added-leases, --fixture-delta and --human-fixture-lock cannot be combined with --base/--head: proofgate reads them from git",
      fix: "drop the manual counts",
    });
  }
  const { today, override } = resolveToday(optionalFlag("today", args.today), io);
  // --coverage is the reference script's flag (one coverage.py JSON report); --report is proofgate's,
  // any format, repeatable for shards.
  const shardReports = listFlag("report", args.report);
  // Neither flag: the article's default path, a coverage.py JSON report.
  const legacy =
    optionalFlag("coverage", args.coverage) ?? (shardReports.length === 0 ? "proven_coverage.json" : undefined);
  const reports = [...(legacy === undefined ? [] : [legacy]), ...shardReports];
  const declaredFormat = optionalFlag("coverage-format", args.coverageFormat);

  const ledger = loadLedger(stringFlag("freeze", args.freeze, "freeze.toml"));
  const universe = loadUniverse(stringFlag("collected", args.collected, "collected.txt"));
  const { active } = classifyLeases(ledger.value.leases, today);
  const coverage = await loadProvenCoverage({
    reports,
    contexts: optionalFlag("contexts", args.contexts),
    format: declaredFormat ?? (legacy !== undefined && reports.length === 1 ? "coveragepy-json" : undefined),
    shards,
    frozen: active.map((l) => l.nodeid),
    root: io.cwd,
  });
  const resultPaths = listFlag("results", args.results);
  const results = resultPaths.length > 0 ? loadResults(resultPaths, universe.value) : undefined;
  const patch = fromGit
    ? await loadPatchEvidence({
        cwd: io.cwd,
        base,
        head,
        unlocked: async (config) => (await unlockedFixtures(config, io)).delta,
      })
    : undefined;
  const warnings = [
    ...ledger.warnings,
    ...universe.warnings,
    ...coverage.warnings,
    ...(results?.warnings ?? []),
    ...(patch?.warnings ?? []),
  ];
  printWarnings(io, warnings);

  const inputs: InputDigest[] = [
    { role: "ledger", path: ledger.file.path, sha256: ledger.file.sha256 },
    { role: "universe", path: universe.file.path, sha256: universe.file.sha256 },
    ...coverage.files.map((f): InputDigest => ({ role: "coverage", path: f.path, sha256: f.sha256 })),
    ...(results?.files ?? []).map((f): InputDigest => ({ role: "results", path: f.path, sha256: f.sha256 })),
  ];
  const report = decide({
    today,
    clockOverride: override,
    ledger: ledger.value,
    universe: universe.value,
    coverage: coverage.coverage,
    evidence: results ? { results: results.results, maxUnledgeredSkips } : undefined,
    minProven,
    inputs,
    warnings,
    patch: patch
      ? { kind: "git", patch: patch.patch, policy: patch.policy }
      : { kind: "counts", agentAddedLeases, fixtureDelta, humanFixtureLock },
    properties: { kind: "count", failures: propertyFailures },
  });
  const json = reportJson(report);
  if (out !== undefined) writeAtomic(out, json);
  io.stdout(json);
  for (const f of report.findings) {
    io.stderr(
      `proofgate: ${f.reason}: ${terminalSafe(`${f.file ? `${f.file}${f.line ? `:${f.line}` : ""}: ` : ""}${f.message}. Fix: ${f.fix}`)}\n`,
    );
  }
  return report.decision === "MERGE" ? 0 : 1;
}

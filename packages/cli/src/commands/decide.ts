import { decide, toPythonJson, type InputDigest } from "@proofgate/core";
import { intFlag, optionalFlag, percentFlag, stringFlag } from "../flags.js";
import { resolveToday, writeAtomic, type CliIo } from "../io.js";
import { loadCoverage, loadLedger, loadUniverse, printWarnings } from "../inputs.js";

/** Options of `proofgate decide`: the reference script's flags, plus `--today` and `--out`. */
export interface DecideArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  coverage?: unknown;
  minProven?: unknown;
  fixtureDelta?: unknown;
  propertyFailures?: unknown;
  agentAddedLeases?: unknown;
  humanFixtureLock?: unknown;
  today?: unknown;
  out?: unknown;
}

/** `proofgate decide`: prints the JSON report; exit 0 MERGE, 1 REJECT (2 is raised as a GateError). */
export function runDecide(args: DecideArgs, io: CliIo): number {
  const minProven = percentFlag("min-proven", args.minProven, 70);
  const fixtureDelta = intFlag("fixture-delta", args.fixtureDelta, 0);
  const propertyFailures = intFlag("property-failures", args.propertyFailures, 0);
  const agentAddedLeases = intFlag("agent-added-leases", args.agentAddedLeases, 0);
  const humanFixtureLock = args.humanFixtureLock === true;
  const out = optionalFlag("out", args.out);
  const { today, override } = resolveToday(optionalFlag("today", args.today), io);

  const ledger = loadLedger(stringFlag("freeze", args.freeze, "freeze.toml"));
  const universe = loadUniverse(stringFlag("collected", args.collected, "collected.txt"));
  const coverage = loadCoverage(stringFlag("coverage", args.coverage, "proven_coverage.json"));
  const warnings = [...ledger.warnings, ...universe.warnings];
  printWarnings(io, warnings);

  const inputs: InputDigest[] = [
    { role: "ledger", path: ledger.file.path, sha256: ledger.file.sha256 },
    { role: "universe", path: universe.file.path, sha256: universe.file.sha256 },
    { role: "coverage", path: coverage.file.path, sha256: coverage.file.sha256 },
  ];
  const report = decide({
    today,
    clockOverride: override,
    ledger: ledger.value,
    universe: universe.value,
    coverage: coverage.value,
    minProven,
    fixtureDelta,
    propertyFailures,
    agentAddedLeases,
    humanFixtureLock,
    inputs,
    warnings,
  });
  const json = `${toPythonJson(report.json)}\n`;
  if (out !== undefined) writeAtomic(out, json);
  io.stdout(json);
  for (const f of report.findings) {
    io.stderr(`proofgate: ${f.reason}: ${f.file ? `${f.file}${f.line ? `:${f.line}` : ""}: ` : ""}${f.message}. Fix: ${f.fix}\n`);
  }
  return report.decision === "MERGE" ? 0 : 1;
}

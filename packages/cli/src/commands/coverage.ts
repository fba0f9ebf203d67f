import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { classifyLeases, findUnknownLeases, provenCoverageFromContexts, toPythonJson, PyFloat, GateError, type GateIssue } from "@proofgate/core";
import { optionalFlag, stringFlag } from "../flags.js";
import { readInput, resolveToday, type CliIo } from "../io.js";
import { loadCoverage, loadLedger, loadUniverse, printWarnings } from "../inputs.js";
import { readCoverageDataFile } from "../coverage-data-file.js";

/** Options of `proofgate coverage`, as yargs hands them over. */
export interface CoverageArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  contexts?: unknown;
  report?: unknown;
  format?: unknown;
  today?: unknown;
}

/** What `proofgate coverage` prints. */
interface ProvenCoverage {
  source: "contexts" | "report";
  percent: number;
  statements: number;
  coveredLines: number;
  branches: number;
  coveredBranches: number;
  lineRate: number;
  branchRate: number;
  frozen?: string[];
  droppedContexts?: number;
}

/**
 * `proofgate coverage`: proven coverage. With `--contexts .coverage`, from one `--cov-context=test` run
 * minus the frozen tests' contexts (`--report` is that run's `coverage json`, for the statements and
 * branches); with `--report` alone, the totals of a proof run's coverage.py JSON report.
 */
export async function runCoverage(args: CoverageArgs, io: CliIo): Promise<number> {
  const format = stringFlag("format", args.format, "text");
  if (format !== "text" && format !== "json") throw new GateError({ code: "usage", message: `--format ${JSON.stringify(format)} is not one of text, json`, fix: "see proofgate coverage --help" });
  const reportPath = stringFlag("report", args.report, "proven_coverage.json");
  const contextsPath = optionalFlag("contexts", args.contexts);

  let result: ProvenCoverage;
  if (contextsPath === undefined) {
    const totals = loadCoverage(reportPath).value;
    result = {
      source: "report",
      percent: totals.percent,
      statements: totals.statements,
      coveredLines: totals.coveredLines,
      branches: totals.branches,
      coveredBranches: totals.coveredBranches,
      lineRate: totals.lineRate,
      branchRate: totals.branchRate,
    };
  } else {
    const freezePath = stringFlag("freeze", args.freeze, "freeze.toml");
    const { today, override } = resolveToday(optionalFlag("today", args.today), io);
    const ledger = loadLedger(freezePath);
    const warnings: GateIssue[] = [...ledger.warnings];
    const { active } = classifyLeases(ledger.value.leases, today);
    const collectedPath = optionalFlag("collected", args.collected);
    if (collectedPath !== undefined) {
      const universe = loadUniverse(collectedPath);
      warnings.push(...universe.warnings);
      for (const { lease } of findUnknownLeases(active, universe.value)) {
        warnings.push({ code: "coverage_invalid", file: freezePath, line: lease.line, message: `lease ${lease.nodeid} names no test in ${collectedPath}, so no context of it can be dropped`, fix: "copy the id exactly as `pytest --collect-only -q` prints it" });
      }
    }
    if (override) io.stderr(`proofgate: warning: leases judged as of ${today} (--today), not the machine's clock\n`);
    const report = readInput(reportPath, "the coverage.py JSON report of the same run", "--report");
    const rows = await readCoverageDataFile(contextsPath);
    const frozen = active.map((l) => l.nodeid);
    const proven = provenCoverageFromContexts(rows, report.text, reportPath, frozen, (path) => readSource(path, io.cwd));
    if (proven.errors.length > 0 || !proven.summary) throw new GateError(proven.errors.length ? proven.errors : [{ code: "coverage_invalid", file: contextsPath, message: "no coverage data" }]);
    warnings.push(...proven.warnings);
    for (const nodeid of proven.frozenNotRun) {
      warnings.push({ code: "coverage_invalid", file: contextsPath, message: `the frozen test ${nodeid} has no context in the data file (it did not run, or its id differs)`, fix: "collect and run the whole suite with --cov-context=test" });
    }
    printWarnings(io, warnings);
    const s = proven.summary;
    if (s.statements === 0) {
      throw new GateError({ code: "coverage_invalid", file: reportPath, message: "the report measures no statements", fix: "measure the package under test: pytest --cov=<package>" });
    }
    result = {
      source: "contexts",
      percent: s.percent,
      statements: s.statements,
      coveredLines: s.coveredLines,
      branches: s.branches,
      coveredBranches: s.coveredBranches,
      lineRate: s.lineRate,
      branchRate: s.branchRate,
      frozen,
      droppedContexts: proven.droppedContexts.length,
    };
  }

  if (format === "json") {
    io.stdout(
      `${toPythonJson({
        proven_coverage_percent: new PyFloat(result.percent),
        num_statements: result.statements,
        covered_lines: result.coveredLines,
        num_branches: result.branches,
        covered_branches: result.coveredBranches,
        line_rate: new PyFloat(result.lineRate),
        branch_rate: new PyFloat(result.branchRate),
        source: result.source,
        ...(result.frozen ? { frozen_tests: result.frozen, dropped_contexts: result.droppedContexts } : {}),
      })}\n`,
    );
  } else {
    const pct = (n: number): string => `${(Math.round(n * 100) / 100).toFixed(2)}%`;
    io.stdout(
      `proven coverage: ${pct(result.percent)} (from ${result.source === "contexts" ? `${contextsPath}, without ${result.frozen?.length ?? 0} frozen test(s)` : reportPath})\n` +
        `  lines:    ${result.coveredLines}/${result.statements} (${pct(100 * result.lineRate)})\n` +
        `  branches: ${result.coveredBranches}/${result.branches} (${pct(100 * result.branchRate)})\n`,
    );
  }
  return 0;
}

/** A measured file's source, for telling docstrings from statements; undefined when it cannot be read. */
function readSource(path: string, cwd: string): string | undefined {
  try {
    return readFileSync(isAbsolute(path) ? path : resolve(cwd, path), "utf8");
  } catch {
    return undefined;
  }
}

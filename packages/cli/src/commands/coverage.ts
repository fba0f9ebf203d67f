import {
  classifyLeases,
  findUnknownLeases,
  toPythonJson,
  PyFloat,
  GateError,
  type GateIssue,
  type ProvenCoverage,
} from "@proofgate/core";
import { listFlag, optionalFlag, optionalIntFlag, stringFlag } from "../flags.js";
import { resolveToday, type CliIo } from "../io.js";
import { printWarnings } from "../messages.js";
import { loadLedger, loadProvenCoverage, loadUniverse } from "@proofgate/gate";
import { nodePorts } from "@proofgate/gate/node";

/** Options of `proofgate coverage`, as yargs hands them over. */
export interface CoverageArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  contexts?: unknown;
  report?: unknown;
  coverageFormat?: unknown;
  shards?: unknown;
  format?: unknown;
  today?: unknown;
}

/** What `proofgate coverage` prints: proven coverage, and in the single-run mode the frozen tests dropped. */
type Printed = ProvenCoverage & { frozen?: string[] };

/**
 * `proofgate coverage`: proven coverage. With `--contexts .coverage`, from one `--cov-context=test` run
 * minus the frozen tests' contexts (`--report` is that run's `coverage json`, for the statements and
 * branches); with `--report` alone, the totals of a proof run's coverage.py JSON report.
 */
export async function runCoverage(args: CoverageArgs, io: CliIo): Promise<number> {
  const format = stringFlag("format", args.format, "text");
  if (format !== "text" && format !== "json")
    throw new GateError({
      code: "usage",
      message: `--format ${JSON.stringify(format)} is not one of text, json`,
      fix: "see proofgate coverage --help",
    });
  const reports = listFlag("report", args.report);
  const contextsPaths = listFlag("contexts", args.contexts);
  const contextsPath = contextsPaths.length > 0 ? contextsPaths : undefined;
  const shards = optionalIntFlag("shards", args.shards, 1);

  const ports = nodePorts({ root: io.cwd, env: io.env });
  const warnings: GateIssue[] = [];
  let frozen: string[] = [];
  if (contextsPath !== undefined) {
    const freezePath = stringFlag("freeze", args.freeze, "freeze.toml");
    const { today, override } = resolveToday(optionalFlag("today", args.today), io);
    const ledger = loadLedger(ports.files, freezePath);
    warnings.push(...ledger.warnings);
    const { active } = classifyLeases(ledger.value.leases, today);
    frozen = active.map((l) => l.nodeid);
    const collectedPath = optionalFlag("collected", args.collected);
    if (collectedPath !== undefined) {
      const universe = loadUniverse(ports.files, [collectedPath], "--collected");
      warnings.push(...universe.warnings);
      for (const { lease } of findUnknownLeases(active, universe.value)) {
        warnings.push({
          code: "coverage_invalid",
          file: freezePath,
          line: lease.line,
          message: `lease ${lease.nodeid} names no test in ${collectedPath}, so no context of it can be dropped`,
          fix: "copy the id exactly as `pytest --collect-only -q` prints it",
        });
      }
    }
    if (override) io.stderr(`proofgate: warning: leases judged as of ${today} (--today), not the machine's clock\n`);
  }
  const loaded = await loadProvenCoverage(
    {
      reports: reports.length > 0 ? reports : ["proven_coverage.json"],
      contexts: contextsPath,
      format: optionalFlag("coverage-format", args.coverageFormat),
      shards,
      frozen,
    },
    ports,
  );
  warnings.push(...loaded.warnings);
  for (const nodeid of loaded.frozenNotRun) {
    warnings.push({
      code: "coverage_invalid",
      file: contextsPath?.join(", "),
      message: `the frozen test ${nodeid} has no context in the ${contextsPaths.length > 1 ? "data files" : "data file"} (it did not run, or its id differs)`,
      fix: "collect and run the whole suite with --cov-context=test",
    });
  }
  const c = loaded.coverage;
  if (c.upper) {
    warnings.push({
      code: "coverage_invalid",
      file: c.files.join(", "),
      message: `the data allows two counts (${c.upper.why.join("; ")}): proofgate counted the lower, ${c.percent.toFixed(2)}%; coverage.py may print up to ${c.upper.percent.toFixed(2)}%`,
      fix: 'check with `coverage json --contexts="$(proofgate deselect --format contexts-regex)"`, or use the rerun (deselect --format plugin)',
    });
  }
  printWarnings(io, warnings);
  if (c.statements === 0) {
    throw new GateError({
      code: "coverage_invalid",
      file: c.files.join(", "),
      message: "the report measures no statements",
      fix: "measure the package under test: pytest --cov=<package>",
    });
  }
  const given = c.source === "contexts" ? contextsPaths.length : c.files.length;
  const missingShards = shards !== undefined ? Math.max(0, shards - given) : 0;
  const result: Printed = { ...c, ...(c.source === "contexts" ? { frozen } : {}) };

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
        files: result.files,
        format: result.format,
        shards_expected: shards ?? null,
        shards_missing: missingShards,
        ...(result.frozen ? { frozen_tests: result.frozen } : {}),
      })}\n`,
    );
  } else {
    const pct = (n: number): string => `${(Math.round(n * 100) / 100).toFixed(2)}%`;
    io.stdout(
      `proven coverage: ${pct(result.percent)} (from ${result.source === "contexts" ? `${contextsPaths.join(", ")}, without ${result.frozen?.length ?? 0} frozen test(s)` : result.files.join(", ")})\n` +
        `  lines:    ${result.coveredLines}/${result.statements} (${pct(100 * result.lineRate)})\n` +
        `  branches: ${result.coveredBranches}/${result.branches} (${pct(100 * result.branchRate)})\n`,
    );
  }
  if (missingShards > 0) {
    io.stderr(
      `proofgate: shard_missing: ${missingShards} of ${shards} coverage shards are missing. Fix: ${c.source === "contexts" ? "pass every parallel job's .coverage with --contexts and its `coverage json` with --report" : "pass every parallel job's report with --report"}\n`,
    );
    return 1;
  }
  return 0;
}

import { GateError, formatIssue, reportJson, shallowHistoryFixFor, terminalSafe, type Env } from "@proofgate/core";
import { evaluateGate } from "@proofgate/gate";
import { nodePorts, resolveProjectRoot } from "@proofgate/gate/node";
import { intFlag, listFlag, optionalFlag, optionalIntFlag, percentFlag, stringFlag } from "../flags.js";
import { resolveToday, type CliIo } from "../io.js";
import { writeAtomic } from "@proofgate/gate/files";
import { cliLog } from "../messages.js";

/**
 * The history fix for the CI this runs in (every CI's, locally). The platforms load their API clients:
 * only `decide --base` pays for them, not the article's plain `decide` (BENCHMARKS.md, issue 14).
 */
async function detectedShallowFix(env: Env): Promise<string> {
  const platforms = (await import("./check.js")).availablePlatforms();
  const detected = platforms.find((p) => p.provider !== "local" && p.detect(env)) ?? platforms.at(-1)!;
  return shallowHistoryFixFor(detected, platforms);
}

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
  // Single run, in shards: one .coverage per shard, each with its `coverage json` (--report) in the same order.
  const contexts = listFlag("contexts", args.contexts);

  // With --base in a package's folder: that package, as `check` takes it (git reads paths from the root).
  const project = fromGit
    ? resolveProjectRoot(io.cwd, undefined, io.env)
    : { dir: io.cwd, root: "", gitRoot: undefined };
  const report = await evaluateGate(
    {
      kind: "decide",
      root: project.root || undefined,
      clock: { today, override },
      ledger: stringFlag("freeze", args.freeze, "freeze.toml"),
      collected: stringFlag("collected", args.collected, "collected.txt"),
      coverage: {
        reports,
        contexts: contexts.length > 0 ? contexts : undefined,
        format: declaredFormat ?? (legacy !== undefined && reports.length === 1 ? "coveragepy-json" : undefined),
        shards,
      },
      results: listFlag("results", args.results),
      maxUnledgeredSkips,
      minProven,
      propertyFailures,
      patch: fromGit
        ? { kind: "git", base, head, shallowFix: await detectedShallowFix(io.env) }
        : { kind: "counts", agentAddedLeases, fixtureDelta, humanFixtureLock },
    },
    nodePorts({ root: project.dir, gitRoot: project.gitRoot, env: io.env }),
    cliLog(io),
  );
  const json = reportJson(report);
  if (out !== undefined) writeAtomic(out, json);
  io.stdout(json);
  for (const f of report.findings) {
    io.stderr(`proofgate: ${f.reason}: ${terminalSafe(formatIssue(f))}\n`);
  }
  return report.decision === "MERGE" ? 0 : 1;
}

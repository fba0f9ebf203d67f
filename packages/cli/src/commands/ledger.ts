import {
  byCost,
  classifyLeases,
  daysBetween,
  findUnknownLeases,
  GateError,
  leaseCostObject,
  leaseCosts,
  terminalSafe,
  type Lease,
  type LeaseCost,
  type LeaseCosts,
} from "@proofgate/core";
import { daysFlag, listFlag, optionalFlag, stringFlag } from "../flags.js";
import { resolveToday, type CliIo } from "../io.js";
import { loadLedger, loadProvenCoverage, loadUniverse } from "@proofgate/gate";
import { nodeFiles, nodePorts } from "@proofgate/gate/node";
import { printWarnings } from "../messages.js";
import { loadWorkTreeConfig } from "../config-file.js";

/** Options shared by the `ledger` subcommands. */
export interface LedgerArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  within?: unknown;
  today?: unknown;
  format?: unknown;
  contexts?: unknown;
  report?: unknown;
}

interface Row {
  lease: Lease;
  daysLeft: number;
  state: "active" | "expired" | "expiring" | "unknown";
}

function rows(args: LedgerArgs, io: CliIo, withinDays: number | undefined) {
  const freezePath = stringFlag("freeze", args.freeze, "freeze.toml");
  const { today, override } = resolveToday(optionalFlag("today", args.today), io);
  const ledger = loadLedger(nodeFiles(io.cwd), freezePath);
  printWarnings(io, ledger.warnings);
  if (override) io.stderr(`proofgate: note: as of ${today} (--today)\n`);
  const { active, expired } = classifyLeases(ledger.value.leases, today);
  const collectedPath = optionalFlag("collected", args.collected);
  const unknown = new Set<Lease>();
  if (collectedPath !== undefined) {
    const universe = loadUniverse(nodeFiles(io.cwd), [collectedPath], "--collected");
    printWarnings(io, universe.warnings);
    for (const u of findUnknownLeases(active, universe.value)) unknown.add(u.lease);
  }
  const expiredSet = new Set(expired);
  const all: Row[] = ledger.value.leases.map((lease) => {
    const daysLeft = daysBetween(today, lease.expires);
    const state = expiredSet.has(lease)
      ? "expired"
      : unknown.has(lease)
        ? "unknown"
        : withinDays !== undefined && daysLeft <= withinDays
          ? "expiring"
          : "active";
    return { lease, daysLeft, state };
  });
  return { ledger: ledger.value, today, active, expired, unknown, all, freezePath };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const amount = (lines: number, branches: number): string =>
  branches > 0 ? `${plural(lines, "line")}, ${plural(branches, "branch", "branches")}` : plural(lines, "line");

/** A row's cost cells: what only its test runs, and its share of the pool. */
function costCells(row: Row, costs: LeaseCosts): [string, string] {
  if (row.state === "expired") return ["-", "-"];
  const c = costs.byTest.get(row.lease.nodeid);
  if (!c || c.status !== "measured") return ["not measured", "-"];
  return [amount(c.lines, c.branches), amount(c.sharedLines, c.sharedBranches)];
}

function table(list: Row[], costs?: LeaseCosts): string {
  const head = ["NODEID", "OWNER", "EXPIRES", "DAYS LEFT", "STATE", ...(costs ? ["ONLY IT RUNS", "SHARED"] : [])];
  const body = list.map((r) => [
    terminalSafe(r.lease.nodeid),
    terminalSafe(r.lease.owner),
    r.lease.expires,
    String(r.daysLeft),
    r.state,
    ...(costs ? costCells(r, costs) : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return (
    [head, ...body]
      .map((cols) => cols.map((c, i) => (i === cols.length - 1 ? c : c.padEnd(widths[i]!))).join("  "))
      .join("\n") + "\n"
  );
}

function rowJson(r: Row): Record<string, unknown> {
  return {
    nodeid: r.lease.nodeid,
    owner: r.lease.owner,
    reason: r.lease.reason,
    expires: r.lease.expires,
    days_left: r.daysLeft,
    state: r.state,
    line: r.lease.line ?? null,
  };
}

/** `proofgate ledger lint`: 0 when the ledger would pass, 1 when it would fail the gate, 2 when it is invalid. */
export function runLedgerLint(args: LedgerArgs, io: CliIo): number {
  const r = rows(args, io, undefined);
  const problems: string[] = [];
  if (r.ledger.rejectIfExpired)
    for (const l of r.expired) problems.push(`${r.freezePath}:${l.line ?? "?"}: ${l.nodeid} expired ${l.expires}`);
  if (r.active.length > r.ledger.maxActiveLeases)
    problems.push(
      `${r.freezePath}: ${r.active.length} active leases exceed max_active_leases = ${r.ledger.maxActiveLeases}`,
    );
  for (const l of r.unknown) problems.push(`${r.freezePath}:${l.line ?? "?"}: ${l.nodeid} names no collected test`);
  if (problems.length === 0) {
    io.stdout(
      `${r.freezePath}: valid; ${r.ledger.leases.length} lease(s), ${r.active.length} active of a budget of ${r.ledger.maxActiveLeases}, ${r.expired.length} expired\n`,
    );
    return 0;
  }
  io.stdout(`${r.freezePath}: valid TOML, but the gate would fail on it:\n${problems.map((p) => `  ${p}\n`).join("")}`);
  return 1;
}

/** Where the leases' costs come from: the flags, else the work tree's proofgate.toml, else nowhere (and why). */
function costSource(args: LedgerArgs, io: CliIo): { contexts: string[]; reports: string[] } | { why: string } {
  const contexts = optionalFlag("contexts", args.contexts);
  const reports = listFlag("report", args.report);
  if (contexts !== undefined) {
    if (reports.length !== 1)
      throw new GateError({
        code: "usage",
        message: `--contexts needs exactly one --report (the same run's \`coverage json\`), not ${reports.length}`,
        fix: "pass --report full.json written by `coverage json` from the same .coverage",
      });
    return { contexts: [contexts], reports };
  }
  if (reports.length > 0)
    throw new GateError({
      code: "usage",
      message: "--report without --contexts: a report alone does not say which test ran which line",
      fix: "pass --contexts .coverage (a `pytest --cov-context=test` run) with --report, that run's `coverage json`",
    });
  const config = loadWorkTreeConfig(io.cwd);
  const configured = config.coverage.contexts;
  if (configured === undefined)
    return {
      why: "no cost: the rerun does not record which test ran which line (pass --contexts .coverage --report full.json from a `pytest --cov-context=test` run, or set [coverage] contexts)",
    };
  const absent = configured.find((f) => !nodeFiles(io.cwd).exists(f));
  if (absent !== undefined)
    return {
      why: `no cost: ${absent} ([coverage] contexts) is not there; run the suite with --cov-context=test first`,
    };
  if (config.coverage.reports.length !== configured.length)
    return {
      why: "no cost: [coverage] reports must name one `coverage json` report per [coverage] contexts data file",
    };
  return { contexts: configured, reports: config.coverage.reports };
}

/** The active leases' costs from a single run's contexts, or why there are none. */
async function costsOf(
  args: LedgerArgs,
  io: CliIo,
  active: readonly Lease[],
): Promise<{ costs?: LeaseCosts; why?: string; source?: string }> {
  const source = costSource(args, io);
  if ("why" in source) return { why: source.why };
  const frozen = active.map((l) => l.nodeid);
  const loaded = await loadProvenCoverage(
    { reports: source.reports, contexts: source.contexts, frozen },
    nodePorts({ root: io.cwd, env: io.env }),
  );
  printWarnings(io, loaded.warnings);
  return {
    costs: leaseCosts(loaded.coverage.map, frozen, loaded.frozenNotRun),
    source: `${source.contexts.join(", ")} with ${source.reports.join(", ")}`,
  };
}

/**
 * `proofgate ledger list`: every lease with its days left and state; with a single run's contexts, what
 * each active lease costs (the lines only its test runs), dearest first.
 */
export async function runLedgerList(args: LedgerArgs, io: CliIo): Promise<number> {
  const r = rows(args, io, undefined);
  const { costs, why, source } = await costsOf(args, io, r.active);
  const list = costs
    ? byCost(
        r.all.map((row) => ({ ...row, nodeid: row.lease.nodeid })),
        costs,
      )
    : r.all;
  if (stringFlag("format", args.format, "text") === "json") {
    const costOf = (row: Row): LeaseCost | undefined =>
      row.state === "expired" ? undefined : costs?.byTest.get(row.lease.nodeid);
    io.stdout(
      `${JSON.stringify(
        {
          today_utc: r.today,
          leases: list.map((row) => ({
            ...rowJson(row),
            ...(costs ? { cost: row.state === "expired" ? null : leaseCostObject(costOf(row)) } : {}),
          })),
          cost_pool: costs?.pool ?? null,
          cost_not_measured: costs ? null : why,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  if (!r.all.length) {
    io.stdout(`${r.freezePath}: no leases\n`);
    return 0;
  }
  io.stdout(table(list, costs));
  if (costs?.pool) {
    io.stdout(
      `\nONLY IT RUNS: what a run without only that test loses (no kept or other frozen test runs it); sorted dearest first.\n` +
        `SHARED: frozen-only lines it runs that other frozen tests run too. Together the frozen tests alone run ${amount(costs.pool.lines, costs.pool.branches)} more (the pool).\n` +
        `From ${source}. Expired leases are not frozen: their tests count.\n`,
    );
  } else io.stderr(`proofgate: note: ${why}\n`);
  return 0;
}

/** `proofgate ledger expiring`: the leases that expire within the window, or already have. */
export function runLedgerExpiring(args: LedgerArgs, io: CliIo): number {
  const within = daysFlag("within", args.within, 14);
  const r = rows(args, io, within);
  // By days, not state: a lease that names no collected test (state "unknown") still runs out.
  const soon = r.all.filter((row) => row.daysLeft <= within);
  if (stringFlag("format", args.format, "text") === "json") {
    io.stdout(`${JSON.stringify({ today_utc: r.today, within_days: within, leases: soon.map(rowJson) }, null, 2)}\n`);
  } else {
    io.stdout(soon.length ? table(soon) : `no lease expires within ${within} days (as of ${r.today})\n`);
  }
  return 0;
}

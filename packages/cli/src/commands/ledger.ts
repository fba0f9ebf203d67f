import { classifyLeases, daysBetween, findUnknownLeases, type Lease } from "@proofgate/core";
import { daysFlag, optionalFlag, stringFlag } from "../flags.js";
import { resolveToday, type CliIo } from "../io.js";
import { loadLedger, loadUniverse } from "@proofgate/gate";
import { nodeFiles } from "@proofgate/gate/node";
import { printWarnings } from "../messages.js";

/** Options shared by the `ledger` subcommands. */
export interface LedgerArgs {
  [flag: string]: unknown;
  freeze?: unknown;
  collected?: unknown;
  within?: unknown;
  today?: unknown;
  format?: unknown;
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

function table(list: Row[]): string {
  const head = ["NODEID", "OWNER", "EXPIRES", "DAYS LEFT", "STATE"];
  const body = list.map((r) => [r.lease.nodeid, r.lease.owner, r.lease.expires, String(r.daysLeft), r.state]);
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

/** `proofgate ledger list`: every lease with its days left and state. */
export function runLedgerList(args: LedgerArgs, io: CliIo): number {
  const r = rows(args, io, undefined);
  if (stringFlag("format", args.format, "text") === "json")
    io.stdout(`${JSON.stringify({ today_utc: r.today, leases: r.all.map(rowJson) }, null, 2)}\n`);
  else io.stdout(r.all.length ? table(r.all) : `${r.freezePath}: no leases\n`);
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

import type { Ledger } from "./ledger.js";

/** A change to the ledger that loosens the gate (docs/contract.md §7). Tightening changes are never listed. */
export type LedgerLoosening =
  | { kind: "added_lease"; nodeid: string; expires: string; line?: number | undefined }
  | { kind: "extended_lease"; nodeid: string; before: string; after: string; line?: number | undefined }
  | { kind: "raised_budget"; before: number; after: number }
  | { kind: "disabled_flag"; flag: "reject_if_expired" | "reject_if_agent_adds_lease" };

/** The ledger as it stands before any file exists: no leases, a budget of 0, every check on. */
const NO_LEDGER = {
  maxActiveLeases: 0,
  rejectIfExpired: true,
  rejectIfAgentAddsLease: true,
  leases: [] as Ledger["leases"],
};

/**
 * Compares two ledgers by meaning, keyed by nodeid: added leases, later expiry dates, a higher budget,
 * a `reject_if_*` turned off. Reordering and reformatting change nothing; removing a lease, an earlier
 * expiry and a smaller budget are allowed and not listed. `before` undefined: the file is new.
 */
export function diffLedgers(
  before: Pick<Ledger, "maxActiveLeases" | "rejectIfExpired" | "rejectIfAgentAddsLease" | "leases"> | undefined,
  after: Ledger,
): LedgerLoosening[] {
  const base = before ?? NO_LEDGER;
  const out: LedgerLoosening[] = [];
  const earlier = new Map(base.leases.map((l) => [l.nodeid, l]));
  for (const lease of after.leases) {
    const old = earlier.get(lease.nodeid);
    if (!old) out.push({ kind: "added_lease", nodeid: lease.nodeid, expires: lease.expires, line: lease.line });
    else if (lease.expires > old.expires)
      out.push({
        kind: "extended_lease",
        nodeid: lease.nodeid,
        before: old.expires,
        after: lease.expires,
        line: lease.line,
      });
  }
  if (after.maxActiveLeases > base.maxActiveLeases)
    out.push({ kind: "raised_budget", before: base.maxActiveLeases, after: after.maxActiveLeases });
  if (base.rejectIfExpired && !after.rejectIfExpired) out.push({ kind: "disabled_flag", flag: "reject_if_expired" });
  if (base.rejectIfAgentAddsLease && !after.rejectIfAgentAddsLease)
    out.push({ kind: "disabled_flag", flag: "reject_if_agent_adds_lease" });
  return out;
}

/** A stable key per loosening, so a merge commit's changes can be compared across its parents. */
export function looseningKey(change: LedgerLoosening): string {
  switch (change.kind) {
    case "added_lease":
      return `added:${change.nodeid}`;
    case "extended_lease":
      return `extended:${change.nodeid}:${change.after}`;
    case "raised_budget":
      return `budget:${change.after}`;
    case "disabled_flag":
      return `flag:${change.flag}`;
  }
}

/** One line a reviewer reads. */
export function describeLoosening(change: LedgerLoosening): string {
  switch (change.kind) {
    case "added_lease":
      return `adds a lease on ${change.nodeid} (expires ${change.expires})`;
    case "extended_lease":
      return `extends the lease on ${change.nodeid} from ${change.before} to ${change.after}`;
    case "raised_budget":
      return `raises max_active_leases from ${change.before} to ${change.after}`;
    case "disabled_flag":
      return `turns ${change.flag} off`;
  }
}

// `[ledger] max_lease_days`: a freeze is a loan against the suite, and a long one is forgotten. A lease
// runs from its `created` date, or from today when it has none or names a later day (it counts today
// either way), to its `expires` date; longer than the limit is `lease_too_long`.
import { addDays, daysBetween, type IsoDate } from "../common/dates.js";
import type { Lease } from "./ledger.js";
import type { Finding } from "../model/report.js";

/** Where a lease's length is counted from, and how many days it runs to its expiry. */
export interface LeaseLength {
  from: IsoDate;
  /** Why `from`: its `created` date, or today (no `created`, or a `created` after today). */
  fromWhat: "created" | "today, as it has no created date" | "today, as its created date is later";
  days: number;
}

/** How long a lease runs, counted as `max_lease_days` counts it. */
export function leaseLength(lease: Pick<Lease, "created" | "expires">, today: IsoDate): LeaseLength {
  const from = lease.created !== undefined && lease.created <= today ? lease.created : today;
  const fromWhat =
    lease.created === undefined
      ? "today, as it has no created date"
      : lease.created <= today
        ? "created"
        : "today, as its created date is later";
  return { from, fromWhat, days: daysBetween(from, lease.expires) };
}

/** Active leases that run longer than `maxDays` (none when the limit is not set). */
export function leaseTooLongFindings(
  active: readonly Lease[],
  ledgerFile: string,
  maxDays: number | undefined,
  today: IsoDate,
): Finding[] {
  if (maxDays === undefined) return [];
  return active.flatMap((lease): Finding[] => {
    const { from, fromWhat, days } = leaseLength(lease, today);
    if (days <= maxDays) return [];
    const since =
      fromWhat === "created" ? `its created date ${from}` : `today (${from}, ${fromWhat.slice("today, ".length)})`;
    return [
      {
        reason: "lease_too_long",
        message: `lease on ${lease.nodeid} (owner ${lease.owner}) runs ${days} days, from ${since} to ${lease.expires}: more than [ledger] max_lease_days = ${maxDays}`,
        file: ledgerFile,
        line: lease.line,
        fix: `set its expires to ${addDays(from, maxDays)} or earlier (and renew it when it runs out, in a human commit); a longer freeze is a human's change to [ledger] max_lease_days in proofgate.toml`,
      },
    ];
  });
}

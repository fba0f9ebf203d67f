// The hidden debt as the renderings show it: one summary sentence (raw, proven, the points between
// them, the frozen-only counts) and the frozen-only ranges, each with the frozen tests behind it and
// their leases. The terminal, the Markdown and every platform read these, so they say the same thing.
import type { IsoDate } from "../common/dates.js";
import type { GateReport, ReportLease } from "../model/report.js";

/** A frozen test behind a range, with its lease when the report's ledger has one for it. */
export interface FrozenTestView {
  nodeid: string;
  lease?: { owner: string; expires: IsoDate } | undefined;
}

/** One contiguous run of lines only frozen tests run. */
export interface FrozenOnlyRangeView {
  path: string;
  start: number;
  end: number;
  /** Statements in it. */
  lines: number;
  /** The frozen tests that run it; null when the data cannot say (rerun mode). */
  tests: FrozenTestView[] | null;
  /** Whether the patch touched it; undefined while the report does not know. */
  patch?: boolean | undefined;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The lease of `nodeid` in the report's ledger: the lease of that exact id, else one whose id it
 * extends (a parametrised case `t[1]` or a test under a leased class `C::t`). Active before expired.
 */
export function leaseLookup(report: GateReport): (nodeid: string) => ReportLease | undefined {
  const leases = [...(report.ledger?.active ?? []), ...(report.ledger?.expired ?? [])];
  const exact = new Map<string, ReportLease>();
  for (const l of leases) if (!exact.has(l.nodeid)) exact.set(l.nodeid, l);
  return (nodeid) =>
    exact.get(nodeid) ?? leases.find((l) => nodeid.startsWith(`${l.nodeid}[`) || nodeid.startsWith(`${l.nodeid}::`));
}

/** Every frozen-only range of the report: files worst first (as the report lists them), lines in order. */
export function frozenOnlyRanges(report: GateReport): FrozenOnlyRangeView[] {
  const section = report.coverage?.frozenOnly;
  if (!section) return [];
  const lease = leaseLookup(report);
  const out: FrozenOnlyRangeView[] = [];
  for (const file of section.files)
    for (const r of file.ranges)
      out.push({
        path: file.path,
        start: r.start,
        end: r.end,
        lines: r.lines,
        tests:
          r.tests &&
          r.tests.map((nodeid) => {
            const l = lease(nodeid);
            return l ? { nodeid, lease: { owner: l.owner, expires: l.expires } } : { nodeid };
          }),
        ...(r.patch !== undefined ? { patch: r.patch } : {}),
      });
  return out;
}

/**
 * The ranges in the order a capped list keeps them: those the patch touched first (when the report
 * knows), then the most lines, then path and line. A new array.
 */
export function rangesByPriority(ranges: readonly FrozenOnlyRangeView[]): FrozenOnlyRangeView[] {
  return [...ranges].sort(
    (a, b) =>
      Number(b.patch === true) - Number(a.patch === true) ||
      b.lines - a.lines ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      a.start - b.start,
  );
}

/** The frozen-only counts in words: `42 lines and 3 branches`. */
export function frozenOnlyCounts(lines: number, branches: number): string {
  return `${plural(lines, "line")} and ${plural(branches, "branch", "branches")}`;
}

/**
 * The hidden debt in one sentence of proofgate's words (`why` is the report's own text, for the caller
 * to make safe): undefined when the report has no coverage section.
 */
export function hiddenDebtFacts(
  report: GateReport,
):
  | { measured: true; raw: number; proven: number; points: number; lines: number; branches: number }
  | { measured: false; why: string }
  | undefined {
  const c = report.coverage;
  if (!c) return undefined;
  if (!c.raw || c.hiddenPoints === null) return { measured: false, why: c.rawNotMeasured ?? "no full run's data" };
  return {
    measured: true,
    raw: c.raw.percent,
    proven: c.provenCoveragePercent,
    points: c.hiddenPoints,
    lines: c.frozenOnly?.lines ?? 0,
    branches: c.frozenOnly?.branches ?? 0,
  };
}

/** A frozen test as one line of text: the id, then its lease's owner and expiry when known (`safe` applied). */
export function frozenTestText(test: FrozenTestView, safe: (s: string) => string): string {
  return test.lease
    ? `${safe(test.nodeid)} (lease: ${safe(test.lease.owner)}, expires ${safe(test.lease.expires)})`
    : safe(test.nodeid);
}

/** `lines 10-24` or `line 10`. */
export function lineSpan(r: { start: number; end: number }): string {
  return r.start === r.end ? `line ${r.start}` : `lines ${r.start}-${r.end}`;
}

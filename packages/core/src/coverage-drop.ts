// `[coverage] max_drop`: proven coverage may fall at most that many percentage points below the base's
// proven figure. The base's figure is the proven percentage the base pipeline's own gate reported (its
// report.json, or `proofgate coverage --format json`), a CI artifact named by `[coverage] base_report`.
// No base figure: the signal is not measured; a drop is never guessed.
import type { GateIssue } from "./common/errors.js";
import type { Finding } from "./model/report.js";

/** What the coverage-drop signal judges: the policy, and the base's figure or why there is none. */
export type CoverageDropEvidence =
  | { kind: "measured"; maxDrop: number; basePercent: number; file: string }
  | { kind: "not_measured"; maxDrop: number; why: string; fix: string };

/** The base's proven figure from the base pipeline's report, or what is wrong with it. */
export function parseBaseCoverageReport(
  text: string,
  file: string,
  base: string,
): { percent?: number; errors: GateIssue[] } {
  const fail = (message: string, fix: string): { errors: GateIssue[] } => ({
    errors: [{ code: "coverage_invalid", file, message, fix }],
  });
  const writeIt =
    "have the base pipeline's CI job keep `proofgate check`'s report.json (or `proofgate coverage --format json`) as an artifact, and download it here";
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(`not valid JSON (${String((error as Error).message).split("\n")[0]}): not a proofgate report`, writeIt);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return fail("not a proofgate report: the top level is not an object", writeIt);
  const o = data as Record<string, unknown>;
  const percent = o.proven_coverage_percent;
  if (percent === null)
    return fail(
      "the base's report has no proven figure (`proven_coverage_percent` is null: its gate could not evaluate)",
      "fix the base pipeline's gate first, or unset [coverage] max_drop until it reports a figure",
    );
  if (typeof percent !== "number" || !Number.isFinite(percent) || percent < 0 || percent > 100)
    return fail("has no `proven_coverage_percent` between 0 and 100: not a proofgate report", writeIt);
  // A gate report names the commit it judged: it must be the base, not an older or other one.
  const head = o.head;
  if (typeof head === "string" && head !== base && !(head.length >= 7 && base.startsWith(head)))
    return fail(
      `is the report of commit ${head.slice(0, 12)}, not of the base ${base.slice(0, 12)}: the base's figure would be another commit's`,
      "download the report of the base pipeline's run on the base commit",
    );
  return { percent, errors: [] };
}

/** The drop in percentage points, rounded to 1e-9 so float noise never fails a drop equal to the policy. */
export function coverageDrop(basePercent: number, percent: number): number {
  return Math.round((basePercent - percent) * 1e9) / 1e9;
}

/** `coverage_dropped`: proven coverage fell more than `max_drop` points below the base's. */
export function coverageDroppedFindings(drop: CoverageDropEvidence | undefined, percent: number): Finding[] {
  if (drop?.kind !== "measured") return [];
  const points = coverageDrop(drop.basePercent, percent);
  if (points <= drop.maxDrop) return [];
  return [
    {
      reason: "coverage_dropped",
      message: `proven coverage fell ${points.toFixed(2)} points, from ${drop.basePercent.toFixed(2)}% at the base to ${percent.toFixed(2)}%: more than [coverage] max_drop = ${drop.maxDrop}`,
      file: drop.file,
      fix: "cover the new and changed code with tests that are not frozen, or unfreeze a lease whose test proves what was lost (`proofgate ledger list` shows what each costs)",
    },
  ];
}

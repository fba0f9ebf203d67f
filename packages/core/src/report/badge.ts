// The proven-coverage badge, two ways: shields.io's endpoint JSON (badge.json, for
// `https://img.shields.io/endpoint?url=...`) and a self-contained SVG (badge.svg) for places that
// cannot reach shields.io. Both say the same message in the same colour.
import { escapeHtml } from "./html-escape.js";
import type { GateReport } from "../model/report.js";

/** The badge's label. */
export const BADGE_LABEL = "proven coverage";

/** Colour thresholds, highest first: the first whose `min` the percentage reaches. */
export const BADGE_COLORS: readonly { min: number; color: string; hex: string }[] = [
  { min: 90, color: "brightgreen", hex: "#4c1" },
  { min: 80, color: "green", hex: "#97ca00" },
  { min: 70, color: "yellowgreen", hex: "#a4a61d" },
  { min: 60, color: "yellow", hex: "#dfb317" },
  { min: 50, color: "orange", hex: "#fe7d37" },
  { min: 0, color: "red", hex: "#e05d44" },
];

const UNKNOWN = { color: "lightgrey", hex: "#9f9f9f" };

/** What the badge says and its colour. */
export interface Badge {
  label: string;
  /** `NN.N%` (truncated, never rounded up past what was measured), or `unknown`. */
  message: string;
  color: string;
  hex: string;
}

/**
 * The badge of a report: proven coverage to one decimal, truncated (79.96 shows 79.9%, not a floor of
 * 80 it does not reach), coloured by BADGE_COLORS; red below the report's floor whatever the scale says;
 * `unknown` (grey) when the gate could not measure it.
 */
export function badgeOf(report: Pick<GateReport, "provenCoveragePercent" | "minProvenCoveragePercent">): Badge {
  const percent = report.provenCoveragePercent;
  if (percent === null || !Number.isFinite(percent)) return { label: BADGE_LABEL, message: "unknown", ...UNKNOWN };
  const tenths = Math.floor(percent * 10 + 1e-9) / 10;
  const message = `${tenths.toFixed(1)}%`;
  const floor = report.minProvenCoveragePercent;
  const step =
    floor !== null && percent < floor
      ? BADGE_COLORS[BADGE_COLORS.length - 1]!
      : BADGE_COLORS.find((c) => percent >= c.min)!;
  return { label: BADGE_LABEL, message, color: step.color, hex: step.hex };
}

/** shields.io's endpoint schema (schemaVersion 1), as badge.json's text. */
export function badgeJson(badge: Badge): string {
  return `${JSON.stringify({ schemaVersion: 1, label: badge.label, message: badge.message, color: badge.color }, null, 2)}\n`;
}

/** Verdana 11px advance widths, roughly: narrow glyphs, wide glyphs, the rest. */
function textWidth(text: string): number {
  let width = 0;
  for (const c of text) width += /[il.:;,'|!]/.test(c) ? 3.5 : /[mwMW%]/.test(c) ? 10 : /[A-Z0-9]/.test(c) ? 7.5 : 6.5;
  return Math.ceil(width);
}

/** A flat badge as an SVG document: no font file, no link, no script; the texts escaped. */
export function badgeSvg(badge: Badge): string {
  const left = textWidth(badge.label) + 12;
  const right = textWidth(badge.message) + 12;
  const width = left + right;
  const label = escapeHtml(badge.label);
  const message = escapeHtml(badge.message);
  const hex = escapeHtml(badge.hex);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${label}: ${message}">
<title>${label}: ${message}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${hex}"/><rect width="${width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${left / 2}" y="15" fill="#010101" fill-opacity=".3">${label}</text><text x="${left / 2}" y="14">${label}</text>
<text x="${left + right / 2}" y="15" fill="#010101" fill-opacity=".3">${message}</text><text x="${left + right / 2}" y="14">${message}</text>
</g>
</svg>
`;
}

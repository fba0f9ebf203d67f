// The report's views beside report.json: the HTML page (index.html) and the badge (badge.json for
// shields.io's endpoint, badge.svg). Core renders them; this reads the sources the page shows, from the
// work tree (the judged head), within a size budget.
import {
  badgeJson,
  badgeOf,
  badgeSvg,
  renderHtmlReport,
  type CoverageMap,
  type GateReport,
  type HtmlSource,
  type PatchView,
} from "@proofgate/core";
import type { FilePort } from "./ports.js";

/** A source larger than this is left out of the page, with a note. */
export const MAX_VIEW_SOURCE_BYTES = 1024 * 1024;
/**
 * The page's sources together: past this, the rest are left out, with a note. The page is 3 to 11 times their
 * size (11 for short lines: a monorepo's 20,000 small modules made an 88 MB page at 8 MB, slow to write, upload
 * and open), so 2 MB; the files a reviewer needs come first (see {@link readViewSources}).
 */
export const MAX_VIEW_TOTAL_BYTES = 2 * 1024 * 1024;

/**
 * The head's text of each file of the map, read from the work tree; too large or unreadable ones with why.
 * The files in `first` (those the patch changed, those with lines only frozen tests run) take the budget
 * first, in path order; then the rest, in path order.
 */
export function readViewSources(
  files: Pick<FilePort, "stamp" | "readSource">,
  map: CoverageMap | undefined,
  limits: { file: number; total: number } = { file: MAX_VIEW_SOURCE_BYTES, total: MAX_VIEW_TOTAL_BYTES },
  first: ReadonlySet<string> = new Set(),
): Map<string, HtmlSource> {
  const out = new Map<string, HtmlSource>();
  let total = 0;
  const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  const paths = [...(map?.files.keys() ?? [])].sort();
  for (const path of [...paths.filter((p) => first.has(p)), ...paths.filter((p) => !first.has(p))]) {
    const size = files.stamp(path)?.size;
    const text = size === undefined ? undefined : size > limits.file ? null : files.readSource(path);
    if (size !== undefined && size > limits.file)
      out.set(path, { skipped: `Not shown: ${size} bytes, over the ${mb(limits.file)} a file may have in this page.` });
    else if (text === undefined || text === null)
      out.set(path, { skipped: "Not shown: the file could not be read from the work tree." });
    else if (total + text.length > limits.total)
      out.set(path, { skipped: `Not shown: the page already holds ${mb(limits.total)} of source.` });
    else {
      total += text.length;
      out.set(path, { text });
    }
  }
  return out;
}

/**
 * The files of the views, by name: index.html, badge.json and badge.svg. `patch` adds the page's patch
 * column and line marks: pass it once the report carries patch coverage (the changed lines per file).
 */
export function renderViews(
  report: GateReport,
  map: CoverageMap | undefined,
  files: Pick<FilePort, "stamp" | "readSource">,
  patch?: PatchView,
): [name: string, text: string][] {
  // A report of a gate that could not evaluate shows its errors, not a map of what it read before failing.
  const shown = report.errors.length === 0 ? map : undefined;
  const p = report.coverage?.patch;
  const view: PatchView | undefined =
    patch ??
    (p
      ? {
          percent: p.percent,
          files: new Map(
            p.files.map((f) => [
              f.path,
              { lines: f.lines, percent: f.coverable === 0 ? null : (f.covered / f.coverable) * 100 },
            ]),
          ),
        }
      : undefined);
  const badge = badgeOf(report);
  // The report's own frozen-only files (core's frozenOnlyFiles), beside the patch's.
  const frozenOnly = report.coverage?.frozenOnly?.files.map((f) => f.path) ?? [];
  const first = new Set([...(view?.files.keys() ?? []), ...frozenOnly]);
  const sources = readViewSources(files, shown, undefined, first);
  return [
    ["index.html", renderHtmlReport({ report, map: shown, sources, patch: view })],
    ["badge.json", badgeJson(badge)],
    ["badge.svg", badgeSvg(badge)],
  ];
}

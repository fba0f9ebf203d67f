import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { errorReport } from "../build-report.js";
import type { CoverageMap, FileLines } from "../coverage/frozen-only.js";
import { escapeHtml, scriptJson } from "./html-escape.js";
import { HTML_REPORT_CSP, renderHtmlReport, type HtmlSource, type PatchView } from "./html-report.js";
import type { GateReport } from "../model/report.js";

// The view's escaping, without a DOM: what a hostile repository can put in a path, a source line, a test
// id or an owner must come out as text, and the data the script reads must round-trip.
const HOSTILE_PATH = `pkg/</script><img src=x onerror=alert(1)>"'.py`;
const HOSTILE_SOURCE = `x = "</script><script>alert(1)</script>"\n# <!-- <img src=x onerror=alert(2)> -->\nprint('&amp;')\n`;
const HOSTILE_TEST = `tests/t.py::test["</script><img onerror=alert(3)>'"]`;
const HOSTILE_OWNER = `<img src=x onerror=alert(4)>"`;

function fileLines(path: string, o: { proven: number[]; raw: number[]; statements: number[] }): FileLines {
  return {
    path,
    statements: o.statements,
    proven: new Set(o.proven),
    raw: new Set(o.raw),
    branches: new Map(),
    provenBranches: new Set(),
    rawBranches: new Set(),
    frozenTests: new Map(o.raw.filter((l) => !o.proven.includes(l)).map((l) => [String(l), [HOSTILE_TEST]])),
  };
}

function fixture(): { report: GateReport; map: CoverageMap; sources: Map<string, HtmlSource> } {
  const hostile = fileLines(HOSTILE_PATH, { statements: [1, 2, 3], proven: [1], raw: [1, 2] });
  const plain = fileLines("pkg/plain.py", { statements: [1, 2], proven: [1, 2], raw: [1, 2] });
  const summary = {
    statements: 5,
    coveredLines: 3,
    branches: 0,
    coveredBranches: 0,
    percent: 60,
    lineRate: 0.6,
    branchRate: 1,
  };
  const map: CoverageMap = {
    files: new Map([
      [hostile.path, hostile],
      [plain.path, plain],
    ]),
    proven: summary,
    raw: { ...summary, coveredLines: 4, percent: 80, lineRate: 0.8 },
    attributed: true,
  };
  const report: GateReport = {
    ...errorReport("2026-12-05", []),
    reasons: [],
    decision: "MERGE",
    provenCoveragePercent: 60,
    minProvenCoveragePercent: 50,
    head: "0123456789abcdef0123456789abcdef01234567",
    coverage: {
      source: "contexts",
      files: [".coverage"],
      format: "coveragepy-contexts",
      shardsExpected: null,
      provenCoveragePercent: 60,
      numStatements: 5,
      coveredLines: 3,
      numBranches: 0,
      coveredBranches: 0,
      lineRate: 0.6,
      branchRate: 1,
      raw: { percent: 80, numStatements: 5, coveredLines: 4, numBranches: 0, coveredBranches: 0 },
      rawNotMeasured: null,
      hiddenPoints: 20,
      frozenOnly: { lines: 1, branches: 0, attributed: true, files: [] },
      patch: null,
      patchNotMeasured: "decide reads no git diff",
      maxDropPoints: null,
      baseProvenCoveragePercent: null,
    },
    ledger: {
      file: "freeze.toml",
      maxActiveLeases: 1,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      active: [{ nodeid: HOSTILE_TEST, owner: HOSTILE_OWNER, expires: "2099-12-31", line: 3 }],
      expired: [],
      unknown: [],
      costPool: null,
      costNotMeasured: "the rerun does not record which test ran which line",
    },
  };
  const sources = new Map<string, HtmlSource>([
    [HOSTILE_PATH, { text: HOSTILE_SOURCE }],
    ["pkg/plain.py", { skipped: "pkg/plain.py is 2000000 bytes: over the 1 MB a source may have in the view" }],
  ]);
  return { report, map, sources };
}

/** The text of every `<script ...>` element, as an HTML parser would end it (at the first `</script`). */
function scripts(html: string): { attrs: string; text: string }[] {
  const out: { attrs: string; text: string }[] = [];
  const re = /<script([^>]*)>/gi;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html))) {
    const end = html.toLowerCase().indexOf("</script", re.lastIndex);
    out.push({ attrs: m[1]!, text: html.slice(re.lastIndex, end) });
    re.lastIndex = end;
  }
  return out;
}

describe("escapeHtml and scriptJson", () => {
  it("escapes the five characters HTML gives meaning to", () => {
    expect(escapeHtml(`<img src=x onerror="a('&')">`)).toBe("&lt;img src=x onerror=&quot;a(&#39;&amp;&#39;)&quot;&gt;");
  });

  it("writes JSON no string can end the script element with, and that parses back the same", () => {
    const value = { s: "</script><!-- <script>&\u2028\u2029" };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("renderHtmlReport with hostile names", () => {
  const { report, map, sources } = fixture();
  const html = renderHtmlReport({ report, map, sources });

  it("has exactly its two script elements: the data and its own script", () => {
    const found = scripts(html);
    expect(found.map((s) => s.attrs)).toEqual([' type="application/json" id="pg-data"', ""]);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
  });

  it("shows no markup of the project's: no img element, no event handler attribute", () => {
    expect(html).not.toMatch(/<img/i);
    // Escaped text has no `<`: every tag left is the view's own, and none has an event handler.
    const tags = html.match(/<[^>]*>/g) ?? [];
    expect(tags.filter((t) => /\son\w+\s*=/i.test(t))).toEqual([]);
    expect(html).toContain(escapeHtml(HOSTILE_PATH));
    expect(html).toContain(escapeHtml(`x = "</script><script>alert(1)</script>"`));
    expect(html).toContain("print(&#39;&amp;amp;&#39;)");
  });

  it("embeds the paths, the test ids and the leases' owners in data that round-trips", () => {
    const data = JSON.parse(scripts(html)[0]!.text) as {
      files: string[];
      tests: { nodeid: string; note: string }[];
      lines: Record<string, Record<string, number[]>>;
    };
    expect(data.files).toEqual(["pkg/</script><img src=x onerror=alert(1)>\"'.py", "pkg/plain.py"]);
    expect(data.tests).toEqual([{ nodeid: HOSTILE_TEST, note: `lease: owner ${HOSTILE_OWNER}, expires 2099-12-31` }]);
    // Line 2 of the hostile file is run only by the frozen test.
    expect(data.lines).toEqual({ "0": { "2": [0] } });
  });

  it("allows only its own script by hash, nothing from the network", () => {
    const own = scripts(html)[1]!.text;
    const hash = createHash("sha256").update(own, "utf8").digest("base64");
    expect(HTML_REPORT_CSP).toContain(`script-src 'sha256-${hash}'`);
    expect(HTML_REPORT_CSP).toMatch(/^default-src 'none'; /);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(HTML_REPORT_CSP)}">`);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });

  it("says why a skipped source is not shown", () => {
    expect(html).toContain("pkg/plain.py is 2000000 bytes: over the 1 MB a source may have in the view");
  });
});

describe("renderHtmlReport's patch column", () => {
  const { report, map, sources } = fixture();

  it("is absent without patch data", () => {
    const html = renderHtmlReport({ report, map, sources });
    expect(html).not.toContain(">Patch</th>");
    expect(html).not.toMatch(/class="[^"]*\bpatch\b/);
  });

  it("appears with the patch's figure, and marks its lines", () => {
    const patch: PatchView = { percent: 50, files: new Map([[HOSTILE_PATH, { lines: [2, 3], percent: 0 }]]) };
    const html = renderHtmlReport({ report, map, sources, patch });
    expect(html).toContain(">Patch</th>");
    expect(html).toContain("<td>50.00%</td></tr></tfoot>");
    expect(html).toMatch(
      /<tr id="f0-L2" data-l="2" class="frozen patch"[^>]*><td class="n">2<\/td><td class="m">\+<\/td>/,
    );
    expect(html).toMatch(/<tr id="f0-L3" data-l="3" class="missed patch">/);
    expect(html).toMatch(/<tr id="f0-L1" data-l="1" class="proven"><td class="n">1<\/td><td class="m"><\/td>/);
  });
});

describe("renderHtmlReport's frozen-only branches", () => {
  it("marks a proven line with a branch only frozen tests take, and names the branch and its tests", () => {
    const { report, sources } = fixture();
    const f: FileLines = {
      ...fileLines(HOSTILE_PATH, { statements: [1, 2, 3], proven: [1, 2], raw: [1, 2] }),
      branches: new Map([[1, ["1>2", "1>3"]]]),
      provenBranches: new Set(["1>3"]),
      rawBranches: new Set(["1>2", "1>3"]),
      frozenTests: new Map([["1>2", [HOSTILE_TEST]]]),
    };
    const summary = {
      statements: 3,
      coveredLines: 2,
      branches: 2,
      coveredBranches: 1,
      percent: 60,
      lineRate: 1,
      branchRate: 1,
    };
    const map: CoverageMap = { files: new Map([[f.path, f]]), proven: summary, raw: summary, attributed: true };
    const html = renderHtmlReport({ report, map, sources });
    expect(html).toMatch(
      /<tr id="f0-L1" data-l="1" class="proven fbranch" tabindex="0" title="a branch here only frozen tests take">/,
    );
    expect(html).toMatch(/<tr id="f0-L2" data-l="2" class="proven">/);
    const data = JSON.parse(scripts(html)[0]!.text) as { lines: unknown; branches: unknown };
    expect(data.branches).toEqual({ "0": { "1": ["1>2"] } });
    expect(data.lines).toEqual({ "0": { "1": [0] } });
    // Per file, of 3 statements and 2 arcs: raw 2 lines and 2 arcs, proven 2 lines and 1 arc.
    expect(html).toContain("<td>3</td><td>80.00%</td><td>60.00%</td><td>0</td>");
  });
});

describe("renderHtmlReport without a line map", () => {
  it("renders the decision and the errors, escaped", () => {
    const report = errorReport(undefined, [
      { code: "file_unreadable", file: "<b>x</b>.json", message: "cannot read <script>", fix: "write it" },
    ]);
    const html = renderHtmlReport({ report, sources: new Map() });
    expect(html).toContain('<span class="REJECT">REJECT</span>');
    expect(html).toContain("<code>&lt;b&gt;x&lt;/b&gt;.json</code>: cannot read &lt;script&gt; Fix: write it");
    expect(html).toContain("No line map: the gate could not evaluate.");
  });
});

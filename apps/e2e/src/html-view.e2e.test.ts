// The HTML view in a real browser: Debian's Chromium, headless, driven by playwright-core, opening
// proofgate-report/index.html as a file (as from a downloaded CI artifact). What is asserted is what a
// user sees: the table's cells, a line's colour, the lease panel's text, a patch line's mark; and that
// a hostile repository's names stay text, with the page's CSP letting its own script run.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { renderHtmlReport, type CoverageMap, type FileLines, type GateReport } from "@proofgate/core";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FROZEN, check, config, makeCheckProject, proofCommand } from "./check-project.js";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIPPED = `skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install chromium)`;
if (!HAVE_CHROMIUM) console.warn(`html-view.e2e.test.ts: ${SKIPPED}`);

const made: string[] = [];
let browser: Browser | undefined;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium refuses its sandbox to root (a CI container).
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
});

afterAll(async () => {
  await browser?.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Opens a file as a user would, failing the test on any script error or CSP violation the page logs. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("request", (r) => {
    if (!r.url().startsWith("file:")) problems.push(`request: ${r.url()}`);
  });
  await page.goto(pathToFileURL(path).href);
  return { page, problems };
}

/** The window's getComputedStyle, typed without the DOM library (the function runs in the page). */
type Styled = { getComputedStyle: (el: unknown) => { backgroundColor: string } };

/** The background colour the browser paints an element with. */
const background = (l: Locator): Promise<string> =>
  l.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor);

const cells = (page: Page, row: string): Promise<string[]> => page.locator(row).locator("td, th").allInnerTexts();

describe.skipIf(!HAVE_CHROMIUM)(`the view of a real check run (${HAVE_CHROMIUM ? CHROMIUM : SKIPPED})`, () => {
  it("shows the report's figures per file, and names the lease behind the line only the frozen test runs", async () => {
    // Single-run mode: one pytest run with per-test contexts, so the frozen-only line names its test.
    const single = config({ proof: proofCommand({ pytestArgs: "--cov-context=test" }), minProven: 50 }).replace(
      "[coverage]\n",
      '[coverage]\ncontexts = ".coverage"\n',
    );
    const p = makeCheckProject({ base: { "proofgate.toml": single } });
    made.push(p.dir);
    const r = await check(p.dir, ["--run"]);
    expect(r.report.decision, r.stderr).toBe("MERGE");
    const coverage = r.report.coverage as {
      raw: { percent_covered: number };
      frozen_only: { lines: number; files: { path: string; lines: number }[] };
      patch: { percent: number | null; files: { path: string; coverable: number; covered: number }[] } | null;
    };
    expect(coverage.frozen_only.files.map((f) => [f.path, f.lines])).toEqual([["pkg/calc.py", 1]]);

    const { page, problems } = await open(join(p.dir, "proofgate-report", "index.html"));
    await expect(page.title()).resolves.toBe("proofgate: MERGE");
    // The range's patch changed pkg/calc.py: the patch column shows its figure.
    expect(coverage.patch).not.toBeNull();
    const figure = (n: number | null): string => (n === null ? "n/a" : `${n.toFixed(2)}%`);
    const calcPatch = coverage.patch!.files.find((f) => f.path === "pkg/calc.py");
    const calcPct = calcPatch ? figure((calcPatch.covered / calcPatch.coverable) * 100) : "";
    expect(await cells(page, "table.files thead tr")).toEqual([
      "File",
      "Statements",
      "Raw",
      "Proven",
      "Frozen-only lines",
      "Patch",
    ]);
    // pkg/__init__.py has no statement: pkg/calc.py's figures are the report's totals.
    const row = await cells(page, 'table.files tbody tr:has(a:text-is("pkg/calc.py"))');
    const proven = `${r.report.proven_coverage_percent!.toFixed(2)}%`;
    const raw = `${coverage.raw.percent_covered.toFixed(2)}%`;
    expect(row.slice(0, 5)).toEqual(["pkg/calc.py", expect.stringMatching(/^\d+$/), raw, proven, "1"]);
    if (calcPatch) expect(row[5]).toBe(calcPct);
    expect(raw).not.toBe(proven);
    expect((await cells(page, "table.files tfoot tr")).slice(2)).toEqual([
      raw,
      proven,
      "1",
      figure(coverage.patch!.percent),
    ]);

    await page.locator('a:text-is("pkg/calc.py")').click();
    const line = page.locator('table.src tr:has(td.c:text-matches("return \\"big\\""))');
    await expect(line.getAttribute("class")).resolves.toMatch(/^frozen( patch)?$/);
    // A line the patch changed carries the + mark, and only such a line.
    for (const l of [line]) {
      const patched = ((await l.getAttribute("class")) ?? "").split(" ").includes("patch");
      expect(await l.locator("td.m").innerText()).toBe(patched ? "+" : "");
    }
    const colour = await background(line.locator("td.c"));
    expect(colour).toBe("rgb(255, 241, 194)");
    const panel = page.locator("#pg-lease");
    expect(await panel.isVisible()).toBe(false);
    await line.hover();
    expect(await panel.isVisible()).toBe(true);
    const said = await panel.innerText();
    expect(said).toContain(`pkg/calc.py:${await line.getAttribute("data-l")} runs only under frozen tests`);
    expect(said).toContain(`${FROZEN} — lease: owner ada, expires 2099-12-31`);
    // `if n > 1000:` runs under every test, but only the frozen one takes its branch to `return "big"`.
    const test = page.locator('table.src tr:has(td.c:text-matches("if n > 1000:"))');
    await expect(test.getAttribute("class")).resolves.toMatch(/^proven fbranch( patch)?$/);
    await test.hover();
    const branch = await panel.innerText();
    expect(branch).toMatch(/Branches only frozen tests take: \d+>\d+$/m);
    expect(branch).toContain(`${FROZEN} — lease: owner ada, expires 2099-12-31`);
    // A proven line is green, and hovering it does not change the panel.
    const provenLine = page.locator('table.src tr:has(td.c:text-matches("return \\"small\\""))');
    await expect(provenLine.getAttribute("class")).resolves.toMatch(/^proven( patch)?$/);
    expect(await background(provenLine.locator("td.c"))).toBe("rgb(218, 251, 225)");
    expect(problems).toEqual([]);

    const badge = JSON.parse(readFileSync(join(p.dir, "proofgate-report", "badge.json"), "utf8")) as {
      message: string;
    };
    expect(badge.message).toBe(`${(Math.floor(r.report.proven_coverage_percent! * 10 + 1e-9) / 10).toFixed(1)}%`);
    const svg = await open(join(p.dir, "proofgate-report", "badge.svg"));
    expect(await svg.page.locator("svg").getAttribute("aria-label")).toBe(`proven coverage: ${badge.message}`);
    expect(svg.problems).toEqual([]);
  });
});

// A repository's names are the attacker's: a path, a source line, a test id and an owner that try to
// close the script element, add an element with a handler, or break out of an attribute.
const PATH = `pkg/</script><img src=x onerror=alert(1)>"'.py`;
const SOURCE = `x = "</script><script>alert(2)</script>"\ny = '<img src=x onerror=alert(3)>'\nz = 1\n`;
const TEST = `tests/t.py::test["</script><img src=x onerror=alert(4)>']`;
const OWNER = `<img src=x onerror=alert(5)>"`;

function hostileInput(): { report: GateReport; map: CoverageMap } {
  const file: FileLines = {
    path: PATH,
    statements: [1, 2, 3],
    proven: new Set([1]),
    raw: new Set([1, 2]),
    // Line 1 is proven, but its branch to line 2 only the frozen test takes.
    branches: new Map([[1, ["1>2", "1>3"]]]),
    provenBranches: new Set(["1>3"]),
    rawBranches: new Set(["1>2", "1>3"]),
    frozenTests: new Map([
      ["2", [TEST]],
      ["1>2", [TEST]],
    ]),
  };
  const summary = {
    statements: 3,
    coveredLines: 1,
    branches: 0,
    coveredBranches: 0,
    percent: 100 / 3,
    lineRate: 1 / 3,
    branchRate: 1,
  };
  const report = {
    todayUtc: "2026-12-05",
    collectedTests: 1,
    activeLeases: 1,
    expiredLeases: 0,
    provenCoveragePercent: 100 / 3,
    minProvenCoveragePercent: 30,
    fixtureDigestDelta: 0,
    propertyFailures: 0,
    agentAddedLeases: 0,
    reasons: [],
    decision: "MERGE",
    schemaVersion: 2,
    signals: [],
    base: null,
    head: null,
    findings: [],
    inputs: [],
    warnings: [],
    errors: [],
    ledger: {
      file: "freeze.toml",
      maxActiveLeases: 1,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
      active: [{ nodeid: TEST, owner: OWNER, expires: "2099-12-31", line: 3 }],
      expired: [],
      unknown: [],
      costPool: null,
      costNotMeasured: "the rerun does not record which test ran which line",
    },
  } satisfies GateReport;
  return { report, map: { files: new Map([[PATH, file]]), proven: summary, raw: summary, attributed: true } };
}

describe.skipIf(!HAVE_CHROMIUM)(`hostile names and the patch column (${HAVE_CHROMIUM ? CHROMIUM : SKIPPED})`, () => {
  it("shows every name as text, runs only the page's script, and marks the patch's lines", async () => {
    const { report, map } = hostileInput();
    const dir = mkdtempSync(join(tmpdir(), "proofgate-html-"));
    made.push(dir);
    const html = renderHtmlReport({
      report,
      map,
      sources: new Map([[PATH, { text: SOURCE }]]),
      patch: { percent: 50, files: new Map([[PATH, { lines: [2, 3], percent: 0 }]]) },
    });
    writeFileSync(join(dir, "index.html"), html);
    const { page, problems } = await open(join(dir, "index.html"));

    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(2);
    expect(await page.locator("table.files tbody a").innerText()).toBe(PATH);
    expect(await cells(page, "table.files thead tr")).toEqual([
      "File",
      "Statements",
      "Raw",
      "Proven",
      "Frozen-only lines",
      "Patch",
    ]);
    // 3 statements and 2 arcs: raw 2 lines and 2 arcs (80%), proven 1 line and 1 arc (40%).
    expect(await cells(page, "table.files tbody tr")).toEqual([PATH, "3", "80.00%", "40.00%", "1", "0.00%"]);
    expect((await cells(page, "table.files tfoot tr")).at(-1)).toBe("50.00%");

    const lines = page.locator("table.src tbody tr");
    expect(await lines.locator("td.c").allInnerTexts()).toEqual(SOURCE.trimEnd().split("\n"));
    // The patch changed lines 2 and 3: a "+" beside each, none beside line 1.
    expect(await lines.locator("td.m").allInnerTexts()).toEqual(["", "+", "+"]);
    expect(await lines.nth(1).getAttribute("class")).toBe("frozen patch");
    expect(await lines.nth(2).getAttribute("class")).toBe("missed patch");
    expect(await background(lines.nth(2).locator("td.c"))).toBe("rgb(255, 235, 233)");

    await lines.nth(1).click();
    const said = await page.locator("#pg-lease").innerText();
    expect(said).toContain(`${PATH}:2 runs only under frozen tests`);
    expect(said).toContain(`${TEST} — lease: owner ${OWNER}, expires 2099-12-31`);

    // The proven line with a frozen-only branch: green, its number amber, the branch and the lease named.
    expect(await lines.nth(0).getAttribute("class")).toBe("proven fbranch");
    expect(await background(lines.nth(0).locator("td.c"))).toBe("rgb(218, 251, 225)");
    expect(await background(lines.nth(0).locator("td.n"))).toBe("rgb(255, 241, 194)");
    await lines.nth(0).hover();
    const branch = await page.locator("#pg-lease").innerText();
    expect(branch).toContain(`${PATH}:1 is proven, not all its branches`);
    expect(branch).toContain("Branches only frozen tests take: 1>2");
    expect(branch).toContain(`${TEST} — lease: owner ${OWNER}, expires 2099-12-31`);
    expect(await page.locator("img").count()).toBe(0);
    expect(problems).toEqual([]);
  });
});

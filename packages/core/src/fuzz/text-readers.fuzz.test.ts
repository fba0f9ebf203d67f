// Fuzzing the readers of text a patch can write (docs: issue 25): the ledger, pytest's collect-only
// output, JUnit XML, fixtures.lock, proofgate.toml, git diff output and the proof run's record. For any
// input each answers a value or typed issues naming the file (exit 2 at the cli), never an uncaught
// exception, and within a second on a megabyte. Fixed seed; PROOFGATE_FUZZ_RUNS raises the budget.
import { createHmac } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { stringify as stringifyToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS } from "../model/authorship.js";
import { parseConfig } from "../config/config.js";
import { errorReport } from "../build-report.js";
import { parseBaseCoverageReport } from "../coverage-drop.js";
import { formatFixturesLock, parseFixturesLock } from "../fixtures/fixtures-lock.js";
import { parseGitDiff } from "../patch/git-diff.js";
import { parseJunitXml } from "../evidence/junit.js";
import { parseLedger } from "../ledger/ledger.js";
import { canonicalJson } from "../proof-run/canonical-json.js";
import { verifyRunRecord } from "../proof-run/record.js";
import { reportJson } from "../report/report-json.js";
import { parseCollectOnly } from "../evidence/universe.js";
import {
  FUZZ_TIMEOUT,
  MB,
  MB_BUDGET_MS,
  anyText,
  expectIssues,
  fieldMutated,
  fuzzParams,
  mutated,
  repeatTo,
  timed,
  tokenLines,
  typed,
} from "../__fixtures__/fuzz.js";

const here = (path: string) => new URL(path, import.meta.url);
const read = (path: string) => readFileSync(here(path), "utf8");
const dirTexts = (dir: string, filter: (name: string) => boolean) =>
  readdirSync(here(dir))
    .filter(filter)
    .map((name) => read(`${dir}/${name}`));

/** A megabyte of each shape: every reader must answer it within a second. */
function bigInputs(units: readonly string[]): string[] {
  return [
    ...units.map((u) => repeatTo(u, MB)),
    "x".repeat(MB),
    "\n".repeat(MB),
    "[".repeat(MB),
    "{".repeat(MB),
    "<a>".repeat(MB / 3),
    '"'.repeat(MB),
    "\\".repeat(MB),
    "\0".repeat(MB),
  ];
}

function expectFast(name: string, inputs: readonly string[], readOne: (text: string) => unknown): void {
  for (const text of inputs) {
    const ms = timed(() => typed(() => readOne(text)));
    expect(ms, `${name} on ${JSON.stringify(text.slice(0, 12))}... (${text.length} chars)`).toBeLessThan(MB_BUDGET_MS);
  }
}

// ---------------------------------------------------------------- the ledger

const LEDGER_FILE = "freeze.toml";
const LEDGERS = dirTexts("../__fixtures__/ledger", (n) => n.endsWith(".toml"));
const LEDGER_TOKENS = [
  "version = 1",
  "max_active_leases = ",
  "reject_if_expired = true",
  "reject_if_agent_adds_lease = false",
  "[[leases]]",
  "[leases]",
  'nodeid = "tests/test_a.py::test_x"',
  'owner = "ada"',
  'reason = "flaky"',
  'expires = "2026-12-31"',
  "expires = 2026-12-31",
  'created = "2026-02-30"',
  'ticket = "T-1"',
  "expires = 2026-12-31T00:00:00Z",
  "= ",
  '"',
  "'''",
  "[",
  "]",
  "#",
];

function checkLedger(text: string): void {
  const result = typed(() => parseLedger(text, LEDGER_FILE), LEDGER_FILE);
  if ("issues" in result) return;
  expectIssues(result.errors, LEDGER_FILE);
  expectIssues(result.warnings, LEDGER_FILE);
  if (result.ledger) {
    expect(result.errors).toEqual([]);
    for (const lease of result.ledger.leases) expect(lease.expires).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }
}

describe("fuzz: freeze.toml (parseLedger)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text: a ledger or issues naming the file", () => {
    fc.assert(
      fc.property(anyText, (t) => checkLedger(t)),
      fuzzParams(0.5),
    );
  });
  it("the format's own tokens: a ledger or issues naming the file", () => {
    fc.assert(
      fc.property(tokenLines(LEDGER_TOKENS), (t) => checkLedger(t)),
      fuzzParams(),
    );
  });
  it("a recorded ledger with one byte or one line changed", () => {
    fc.assert(
      fc.property(mutated(LEDGERS), (t) => checkLedger(t)),
      fuzzParams(),
    );
  });
  it("round trip: leases written as TOML read back as written", () => {
    const day = fc
      .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== "");
    const lease = fc.record({ nodeid: text, owner: text, reason: text, expires: day });
    fc.assert(
      fc.property(fc.uniqueArray(lease, { selector: (l) => l.nodeid, maxLength: 8 }), (leases) => {
        const written = stringifyToml({
          version: 1,
          max_active_leases: leases.length,
          reject_if_expired: true,
          reject_if_agent_adds_lease: true,
          leases,
        });
        const result = parseLedger(written, LEDGER_FILE);
        // A nodeid the ledger refuses (a control character, no `::`) is an error naming it, never a crash.
        if (result.ledger === undefined) {
          expect(result.errors.length).toBeGreaterThan(0);
          expectIssues(result.errors, LEDGER_FILE);
          return;
        }
        expect(result.ledger.maxActiveLeases).toBe(leases.length);
        expect(
          result.ledger.leases.map((l) => ({ nodeid: l.nodeid, owner: l.owner, reason: l.reason, expires: l.expires })),
        ).toEqual(leases);
      }),
      fuzzParams(0.5),
    );
  });
  it("regression: thousands of broken leases are 100 issues and a count of the leases left unchecked", () => {
    const result = parseLedger(
      "version = 1\nmax_active_leases = 1\n" + '[[leases]]\nnodeid = "a::b"\n'.repeat(5000),
      LEDGER_FILE,
    );
    expect(result.ledger).toBeUndefined();
    expect(result.errors.length).toBeLessThanOrEqual(104);
    expect(result.errors.at(-1)!.message).toMatch(/^\.\.\. and \d+ more leases not checked after 100 errors$/);
    expectIssues(result.errors, LEDGER_FILE);
  });
  it("a megabyte in under a second", () => {
    expectFast("parseLedger", bigInputs(['[[leases]]\nnodeid = "a::b"\n', "a = [", "x.".repeat(10)]), (t) =>
      parseLedger(t, LEDGER_FILE),
    );
  });
});

// ---------------------------------------------------------------- collect-only output

const COLLECT_FILE = "collected.txt";
const COLLECTED = [
  ...dirTexts("../__fixtures__/pytest72", (n) => n.endsWith(".txt")),
  read("../__fixtures__/junit/pytest-7.2.1-collect-q.txt"),
];
const COLLECT_TOKENS = [
  "tests/test_a.py::test_x",
  "::",
  "[",
  "]",
  "3 tests collected in 0.01s",
  "no tests collected in 0.00s",
  "1 error in 0.05s",
  "==== ERRORS ====",
  "ERROR tests/test_b.py",
  "_____ ERROR collecting tests/test_b.py _____",
  "<Module test_a.py>",
  "  <Function test_x>",
  "3/8 tests collected (5 deselected) in 0.01s",
  "short test summary info",
  "\\x",
];

function checkCollect(text: string): void {
  const result = typed(() => parseCollectOnly(text, COLLECT_FILE), COLLECT_FILE);
  if ("issues" in result) return;
  expectIssues(result.errors, COLLECT_FILE);
  expectIssues(result.warnings, COLLECT_FILE);
}

describe("fuzz: pytest --collect-only -q output (parseCollectOnly)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text", () => fc.assert(fc.property(anyText, checkCollect), fuzzParams(0.5)));
  it("the format's own lines", () => fc.assert(fc.property(tokenLines(COLLECT_TOKENS), checkCollect), fuzzParams()));
  it("a recorded output with one byte or one line changed", () =>
    fc.assert(fc.property(mutated(COLLECTED), checkCollect), fuzzParams()));
  it("a megabyte in under a second", () =>
    expectFast(
      "parseCollectOnly",
      bigInputs(["tests/test_a.py::test_x\n", "a::b[", "=".repeat(100) + " ERRORS\n"]),
      (t) => parseCollectOnly(t, COLLECT_FILE),
    ));
});

// ---------------------------------------------------------------- JUnit XML

const JUNIT_FILE = "results.xml";
const JUNITS = dirTexts("../__fixtures__/junit", (n) => n.endsWith(".xml"));
const JUNIT_TOKENS = [
  '<?xml version="1.0" encoding="utf-8"?>',
  "<testsuites>",
  "</testsuites>",
  '<testsuite name="pytest" tests="1">',
  "</testsuite>",
  '<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py" line="3" time="0.1"/>',
  '<testcase classname="tests.test_a" name="test_y">',
  "</testcase>",
  '<skipped type="pytest.skip" message="x"/>',
  '<failure message="boom">',
  "</failure>",
  "<error/>",
  '<properties><property name="a" value="b"/></properties>',
  "<!DOCTYPE x>",
  '<!ENTITY e "x">',
  "&amp;",
  "&#0;",
  "&#x110000;",
  "&e;",
  "<![CDATA[",
  "]]>",
  "<!--",
  "-->",
  'name="a[b]"',
  "/>",
];

function checkJunit(text: string): void {
  for (const options of [{}, { runner: "pytest" as const }]) {
    const result = typed(() => parseJunitXml(text, JUNIT_FILE, options as never), JUNIT_FILE);
    if ("issues" in result) continue;
    expectIssues(result.errors, JUNIT_FILE);
    expectIssues(result.warnings, JUNIT_FILE);
  }
}

describe("fuzz: JUnit XML (parseJunitXml)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text", () => fc.assert(fc.property(anyText, checkJunit), fuzzParams(0.5)));
  it("the format's own elements", () => fc.assert(fc.property(tokenLines(JUNIT_TOKENS, 20), checkJunit), fuzzParams()));
  it("a recorded report with one byte or one line changed", () =>
    fc.assert(fc.property(mutated(JUNITS), checkJunit), fuzzParams()));
  it("regression: an unclosed comment is a truncated file at its line, in linear time (a megabyte of `<!--` took minutes)", () => {
    const result = parseJunitXml('<testsuite>\n<testcase name="a"/>\n<!-- cut', JUNIT_FILE);
    expect(result.errors).toEqual([
      expect.objectContaining({
        code: "results_invalid",
        file: JUNIT_FILE,
        line: 3,
        message: expect.stringContaining("never closed"),
      }),
    ]);
    expect(timed(() => parseJunitXml("<!--".repeat(MB / 4), JUNIT_FILE))).toBeLessThan(MB_BUDGET_MS);
  });
  it("a megabyte in under a second", () =>
    expectFast(
      "parseJunitXml",
      bigInputs([
        '<testsuite><testcase classname="a" name="b"/>',
        "<testsuites>" + '<testcase name="x">'.repeat(3),
        "<!--",
        "&#x41;",
        '<a b="',
      ]),
      (t) => parseJunitXml(t, JUNIT_FILE),
    ));
});

// ---------------------------------------------------------------- fixtures.lock

const LOCK_FILE = "fixtures.lock";
const HEX = "0123456789abcdef";
const sha = fc.string({ unit: fc.constantFrom(...HEX), minLength: 64, maxLength: 64 });
const LOCK_TOKENS = [
  "a".repeat(64) + "  tests/fixtures/a.txt",
  "0".repeat(64) + "  ",
  "\\" + "b".repeat(64) + "  tests/fixtures/a\\nb",
  "tests/fixtures/",
  "  ",
  "../",
  "./",
  "/",
  "A".repeat(64),
  "# comment",
];

function checkLock(text: string): void {
  for (const options of [{}, { allowSpecialNames: true }]) {
    const result = typed(() => parseFixturesLock(text, LOCK_FILE, options), LOCK_FILE);
    if ("issues" in result) continue;
    expectIssues(result.errors, LOCK_FILE);
    expectIssues(result.warnings, LOCK_FILE);
  }
}

describe("fuzz: fixtures.lock (parseFixturesLock)", { timeout: FUZZ_TIMEOUT }, () => {
  const recorded = formatFixturesLock([
    { sha256: "a".repeat(64), path: "tests/fixtures/a.txt" },
    { sha256: "b".repeat(64), path: "tests/fixtures/sub dir/b.bin" },
    { sha256: "c".repeat(64), path: "tests/fixtures/caf\u00e9.json" },
  ]);
  it("any text", () => fc.assert(fc.property(anyText, checkLock), fuzzParams(0.5)));
  it("the format's own lines", () => fc.assert(fc.property(tokenLines(LOCK_TOKENS), checkLock), fuzzParams()));
  it("a written lock with one byte or one line changed", () =>
    fc.assert(fc.property(mutated([recorded]), checkLock), fuzzParams()));
  it("round trip: formatFixturesLock, then parseFixturesLock, gives the entries back in byte order", () => {
    const segment = fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }).filter((s) => s !== "." && s !== "..");
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `tests/fixtures/${s.join("/")}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ sha256: sha, path }), { selector: (e) => e.path, maxLength: 10 }),
        (entries) => {
          const options = { allowSpecialNames: true };
          let text: string;
          try {
            text = formatFixturesLock(entries);
          } catch (error) {
            // The writer refuses a path the lock cannot hold (a control character): a typed error.
            expect(error).toBeInstanceOf(Error);
            return;
          }
          const back = parseFixturesLock(text, LOCK_FILE, options);
          if (back.errors.length > 0) {
            expectIssues(back.errors, LOCK_FILE);
            return;
          }
          expect(new Set(back.entries.map((e) => `${e.sha256} ${e.path}`))).toEqual(
            new Set(entries.map((e) => `${e.sha256} ${e.path}`)),
          );
          expect(formatFixturesLock(back.entries)).toBe(text);
        },
      ),
      fuzzParams(0.5),
    );
  });
  it("regression: a million bad lines are 100 issues and a count, not a million issues", () => {
    const result = parseFixturesLock("\n".repeat(MB), LOCK_FILE);
    expect(result.errors).toHaveLength(101);
    expect(result.errors[100]!.message).toBe(`... and ${MB - 100} more errors in this lock`);
    expectIssues(result.errors, LOCK_FILE);
  });
  it("a megabyte in under a second", () =>
    expectFast(
      "parseFixturesLock",
      bigInputs([`${"a".repeat(64)}  tests/fixtures/x\n`, "\\".repeat(65) + "  a\n"]),
      (t) => parseFixturesLock(t, LOCK_FILE),
    ));
});

// ---------------------------------------------------------------- proofgate.toml

const CONFIG_FILE = "proofgate.toml";
const CONFIG_TOKENS = [
  "[ledger]",
  "[coverage]",
  "[commands]",
  "[publish]",
  "[protect]",
  "[agents]",
  '["a("]',
  "[a.b]",
  "[[x]]",
  "path = ",
  "min_proven = 80",
  "min_proven = 101",
  "timeout = 0",
  "reports = []",
  'reports = ["a.json"]',
  'contexts = ".coverage"',
  'sections = ["pytest.ini [x"]',
  'paths = ["../x"]',
  'patterns = ["*[bot]*"]',
  'human_signatures = "maybe"',
  '"(" = 1',
  "'*+?' = 2",
  "x = ",
  "= 1",
  '"',
  "[",
];

function checkConfig(text: string): void {
  const result = typed(() => parseConfig(text, CONFIG_FILE, DEFAULT_AGENT_PATTERNS), CONFIG_FILE);
  if ("issues" in result) return;
  expectIssues(result.errors, CONFIG_FILE);
  expectIssues(result.warnings, CONFIG_FILE);
  if (result.config) expect(result.errors).toEqual([]);
}

describe("fuzz: proofgate.toml (parseConfig)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text", () => fc.assert(fc.property(anyText, checkConfig), fuzzParams(0.5)));
  it("the format's own tokens", () => fc.assert(fc.property(tokenLines(CONFIG_TOKENS), checkConfig), fuzzParams()));
  it("a full config with one byte or one line changed", () => {
    const full = read("../../../../docs/config.md")
      .split("```toml\n")
      .slice(1)
      .map((block) => block.split("```")[0]!);
    fc.assert(fc.property(mutated(full), checkConfig), fuzzParams());
  });
  it("regression: a table or key named with regex characters is an unknown one, not a crash", () => {
    for (const text of ['["a("]\nx = 1\n', '[ledger]\n"(" = 1\n', '"[" = 1\n', "['*+?']\n", '[commands]\n"a)" = 1\n']) {
      const result = parseConfig(text, CONFIG_FILE, DEFAULT_AGENT_PATTERNS);
      expect(result.config).toBeUndefined();
      expect(result.errors[0]?.message).toMatch(/^unknown (table|key)/);
      expectIssues(result.errors, CONFIG_FILE);
    }
  });
  it("regression: thousands of unknown keys are 20 issues and a count, each line looked up once", () => {
    const result = parseConfig(
      Array.from({ length: 5000 }, (_, i) => `k${i} = 1\n`).join(""),
      CONFIG_FILE,
      DEFAULT_AGENT_PATTERNS,
    );
    expect(result.errors).toHaveLength(21);
    expect(result.errors[20]!.message).toBe("... and 4980 more keys or tables not checked after 20 errors");
  });
  it("a megabyte in under a second", () =>
    expectFast(
      "parseConfig",
      [
        ...bigInputs(["[ledger]\n", "a = 1\n", '["(((a"]\n', "x = [\n"]),
        // Tens of thousands of unknown tables and keys, each an error whose line is looked up.
        Array.from({ length: 60_000 }, (_, i) => `k${i} = 1\n`).join(""),
        "[ledger]\n" + Array.from({ length: 60_000 }, (_, i) => `k${i} = 1\n`).join(""),
      ],
      (t) => parseConfig(t, CONFIG_FILE, DEFAULT_AGENT_PATTERNS),
    ));
});

// ---------------------------------------------------------------- git diff output

const DIFF_SOURCE = "git diff base..head";
const DIFFS = dirTexts("../__fixtures__/git-diff", (n) => n.endsWith(".diff"));
const DIFF_TOKENS = [
  "diff --git a/x.py b/x.py",
  'diff --git "a/\\303\\251.py" "b/\\303\\251.py"',
  "new file mode 100644",
  "deleted file mode 100644",
  "old mode 100644",
  "new mode 100755",
  "similarity index 90%",
  "rename from a.py",
  "rename to b.py",
  "copy from a.py",
  "index 0000000..8ba3a16",
  "--- a/x.py",
  "+++ b/x.py",
  "--- /dev/null",
  "@@ -1,3 +1,4 @@",
  "@@ -0,0 +1 @@",
  "@@ -1 +99999999999 @@",
  "+added",
  "-removed",
  " context",
  "\\ No newline at end of file",
  "Binary files a/x and b/x differ",
];

function checkDiff(text: string): void {
  const result = typed(() => parseGitDiff(text, DIFF_SOURCE), DIFF_SOURCE);
  if ("issues" in result) return;
  expectIssues(result.errors, DIFF_SOURCE);
  for (const file of result.files)
    for (const line of file.added) {
      expect(Number.isSafeInteger(line)).toBe(true);
      expect(line).toBeGreaterThanOrEqual(1);
    }
}

describe("fuzz: git diff output (parseGitDiff)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text", () => fc.assert(fc.property(anyText, checkDiff), fuzzParams(0.5)));
  it("the format's own lines", () => fc.assert(fc.property(tokenLines(DIFF_TOKENS, 40), checkDiff), fuzzParams()));
  it("a recorded diff with one byte or one line changed", () =>
    fc.assert(fc.property(mutated(DIFFS), checkDiff), fuzzParams()));
  it("regression: a diff unreadable on every line is 20 issues and a count", () => {
    const result = parseGitDiff("+x\n".repeat(10_000), DIFF_SOURCE);
    expect(result.errors).toHaveLength(21);
    expect(result.errors[20]!.message).toBe("... and 9980 more lines the diff parser could not read");
  });
  it("a megabyte in under a second", () =>
    expectFast(
      "parseGitDiff",
      bigInputs(["diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n+y\n", "+x\n", '"\\303\\251'.repeat(3)]),
      (t) => parseGitDiff(t, DIFF_SOURCE),
    ));
});

// ---------------------------------------------------------------- the proof run's record

const KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const NONCE = "0123456789abcdef0123456789abcdef";
const RECORD_FILE = "proofgate-report/run-record.json";
const RECORDED = read("../proof-run/__fixtures__/mixed-run.json");
const expected = { nonce: NONCE, key: KEY, file: RECORD_FILE };

/** A payload signed the way the plugin signs, so a changed field reaches the checks past the signature. */
function signed(text: string): string {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return text;
  const body = { ...(payload as Record<string, unknown>) };
  delete body.signature;
  const canonical = canonicalJson(body);
  if (canonical === undefined) return text;
  const signature = createHmac("sha256", Buffer.from(KEY, "hex")).update(canonical).digest("hex");
  return JSON.stringify({ ...body, signature });
}

function checkRecord(text: string): void {
  const result = typed(() => verifyRunRecord(text, expected), RECORD_FILE);
  if ("issues" in result) return;
  expectIssues(result.errors, RECORD_FILE);
  if (result.record) expect(result.errors).toEqual([]);
}

describe("fuzz: the proof run's record (verifyRunRecord)", { timeout: FUZZ_TIMEOUT }, () => {
  it("any text", () => fc.assert(fc.property(anyText, checkRecord), fuzzParams(0.5)));
  it("the recorded record with one byte or one line changed", () =>
    fc.assert(fc.property(mutated([RECORDED]), checkRecord), fuzzParams()));
  it("the recorded record with one field changed, signed again (past the signature check)", () =>
    fc.assert(
      fc.property(fieldMutated([RECORDED]), (t) => checkRecord(signed(t))),
      fuzzParams(),
    ));
  it("a megabyte in under a second", () =>
    expectFast("verifyRunRecord", bigInputs(['{"a":', "[1,", '{"signature":"']), (t) => verifyRunRecord(t, expected)));
});

// ---------------------------------------------------------------- report.json (written, then read back)

const REPORT_FILE = "base-report.json";
describe("fuzz: report.json (reportJson, read back by parseBaseCoverageReport)", { timeout: FUZZ_TIMEOUT }, () => {
  const issue = fc.record({
    code: fc.constantFrom("file_missing" as const, "ledger_invalid" as const, "coverage_invalid" as const),
    file: fc.option(fc.string({ unit: "binary", maxLength: 30 }), { nil: undefined }),
    line: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
    message: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
    fix: fc.option(fc.string({ unit: "binary", maxLength: 60 }), { nil: undefined }),
  });
  it("round trip: any error report is valid JSON that the base-report reader answers, with its issues intact", () => {
    fc.assert(
      fc.property(
        fc.array(issue, { minLength: 1, maxLength: 4 }),
        fc.string({ unit: fc.constantFrom(...HEX), minLength: 40, maxLength: 40 }),
        (issues, base) => {
          const json = reportJson(errorReport("2026-12-05", issues, [], { base }));
          const parsed = JSON.parse(json) as { errors: { message: string; file?: string }[] };
          expect(parsed.errors.map((e) => e.message)).toEqual(issues.map((i) => i.message));
          const back = parseBaseCoverageReport(json, REPORT_FILE, base);
          // An error report has no proven figure: the reader says so, as an issue naming the file.
          expect(back.percent).toBeUndefined();
          expectIssues(back.errors, REPORT_FILE);
        },
      ),
      fuzzParams(0.5),
    );
  });
  it("a written report with one byte or one field changed", () => {
    const written = reportJson(
      errorReport(
        "2026-12-05",
        [{ code: "file_missing", file: "freeze.toml", message: "missing", fix: "create it" }],
        [],
        {
          base: "b".repeat(40),
        },
      ),
    );
    const withFigure = JSON.stringify({
      ...(JSON.parse(written) as object),
      proven_coverage_percent: 81.5,
      head: "b".repeat(40),
    });
    const check = (text: string) => {
      const back = typed(() => parseBaseCoverageReport(text, REPORT_FILE, "b".repeat(40)), REPORT_FILE);
      if ("issues" in back) return;
      expectIssues(back.errors, REPORT_FILE);
      if (back.percent !== undefined) expect(back.percent >= 0 && back.percent <= 100).toBe(true);
    };
    fc.assert(fc.property(mutated([written, withFigure]), check), fuzzParams(0.5));
    fc.assert(fc.property(fieldMutated([written, withFigure]), check), fuzzParams(0.5));
  });
});

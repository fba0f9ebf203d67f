import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../common/errors.js";
import { classifyLeases, parseLedger, type Lease } from "./ledger.js";

const FILE = "freeze.toml";
const fixture = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/ledger/${name}`, import.meta.url), "utf8");

// The article (shared/reference, beside the repo, absent on a user's clone) is where article-freeze.toml
// was copied from; PROOFGATE_REFERENCE_ARTICLE names it elsewhere (then it must exist).
const NAMED_ARTICLE = process.env.PROOFGATE_REFERENCE_ARTICLE || undefined;
const ARTICLE =
  NAMED_ARTICLE ??
  fileURLToPath(new URL("../../../../../shared/reference/frozen-test-accounting.txt", import.meta.url));

describe("the article's example ledger (__fixtures__/ledger/article-freeze.toml)", () => {
  it('is still the article\'s text: the TOML from `# freeze.toml` to the line before "Four rules"', ({ skip }) => {
    if (NAMED_ARTICLE) expect(existsSync(ARTICLE), `PROOFGATE_REFERENCE_ARTICLE=${ARTICLE} does not exist`).toBe(true);
    else skip(!existsSync(ARTICLE), `no article at ${ARTICLE} (set PROOFGATE_REFERENCE_ARTICLE)`);
    const article = readFileSync(ARTICLE, "utf8");
    const start = article.indexOf("# freeze.toml");
    const end = article.indexOf("\nFour rules", start);
    expect(start, "the article has no `# freeze.toml` block").toBeGreaterThanOrEqual(0);
    expect(end, 'the article\'s ledger block no longer ends before "Four rules"').toBeGreaterThan(start);
    expect(fixture("article-freeze.toml")).toBe(`${article.slice(start, end).trimEnd()}\n`);
  });
});

/** A valid header followed by `body`, so each case changes one thing. */
const HEADER = "version = 1\nmax_active_leases = 8\n";
const LEASE =
  '[[leases]]\nnodeid = "tests/test_a.py::test_x"\nowner = "team-a"\nreason = "flaky"\nexpires = "2026-09-26"\n';

function parseOk(text: string) {
  const result = parseLedger(text, FILE);
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.ledger).toBeDefined();
  return { ledger: result.ledger!, warnings: result.warnings };
}

function onlyError(text: string) {
  const result = parseLedger(text, FILE);
  expect(result.ledger).toBeUndefined();
  expect(result.errors).toHaveLength(1);
  const issue = result.errors[0]!;
  expect(issue.file).toBe(FILE);
  return issue;
}

describe("parseLedger: valid files", () => {
  it("accepts the article's example file as it is", () => {
    const { ledger, warnings } = parseOk(fixture("article-freeze.toml"));
    expect(warnings).toEqual([]);
    expect(ledger).toMatchObject({
      file: FILE,
      version: 1,
      maxActiveLeases: 8,
      budgetOmitted: false,
      rejectIfExpired: true,
      rejectIfAgentAddsLease: true,
    });
    expect(ledger.leases).toEqual([
      {
        index: 0,
        nodeid: "tests/test_billing.py::test_invoice_total_currency_round",
        reason: "intermittent tz boundary on CI runners",
        owner: "platform-billing",
        expires: "2026-09-26",
        created: undefined,
        ticket: undefined,
        line: 7,
      },
      {
        index: 1,
        nodeid: "tests/test_cache.py::test_stampede_window",
        reason: "timing-dependent under load",
        owner: "platform-cache",
        expires: "2026-09-19",
        created: undefined,
        ticket: undefined,
        line: 13,
      },
    ]);
  });

  it("accepts TOML local dates for expires and created", () => {
    const { ledger } = parseOk(
      `${HEADER}[[leases]]\nnodeid = "tests/t.py::t"\nowner = "o"\nreason = "r"\nexpires = 2026-09-26\ncreated = 2026-08-01\nticket = "PROJ-1"\n`,
    );
    expect(ledger.leases[0]).toMatchObject({ expires: "2026-09-26", created: "2026-08-01", ticket: "PROJ-1" });
  });

  it("accepts created on the expiry day", () => {
    parseOk(`${HEADER}${LEASE}created = "2026-09-26"\n`);
  });

  it("keeps ids with spaces, brackets and non-ASCII exactly", () => {
    const id = "tests/t.py::TestA::test_p[caf\\\\xe9 a b-1]";
    const { ledger } = parseOk(
      `${HEADER}[[leases]]\nnodeid = "${id}"\nowner = "o"\nreason = "r"\nexpires = "2026-09-26"\n`,
    );
    expect(ledger.leases[0]!.nodeid).toBe("tests/t.py::TestA::test_p[caf\\xe9 a b-1]");
  });

  it("treats a file with no leases as a valid, empty ledger", () => {
    const { ledger, warnings } = parseOk("version = 1\nmax_active_leases = 0\n");
    expect(ledger.leases).toEqual([]);
    expect(ledger.maxActiveLeases).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("accepts an explicit empty leases array", () => {
    expect(parseOk("version = 1\nmax_active_leases = 0\nleases = []\n").ledger.leases).toEqual([]);
  });

  it("reads an omitted budget as 0 and warns (fail-closed)", () => {
    const { ledger, warnings } = parseOk(`version = 1\n${LEASE}`);
    expect(ledger.maxActiveLeases).toBe(0);
    expect(ledger.budgetOmitted).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/max_active_leases.*omitted.*0/);
    expect(warnings[0]!.file).toBe(FILE);
  });

  it("defaults both reject flags to true and honours false", () => {
    expect(parseOk(HEADER).ledger).toMatchObject({ rejectIfExpired: true, rejectIfAgentAddsLease: true });
    expect(parseOk(`${HEADER}reject_if_expired = false\nreject_if_agent_adds_lease = false\n`).ledger).toMatchObject({
      rejectIfExpired: false,
      rejectIfAgentAddsLease: false,
    });
  });

  it("accepts a byte-order mark and CRLF line endings, with lines still right", () => {
    const { ledger } = parseOk(`\uFEFF${HEADER}\n${LEASE}`.replace(/\n/g, "\r\n"));
    expect(ledger.leases[0]!.line).toBe(4);
  });

  it("accepts max_active_leases = 0", () => {
    expect(parseOk("version = 1\nmax_active_leases = 0\n").ledger.budgetOmitted).toBe(false);
  });
});

describe("parseLedger: errors name the file, the line and the fix", () => {
  // Each case: the text, the expected 1-based line, and a pattern the message must match.
  const cases: Array<[name: string, text: string, line: number | undefined, message: RegExp, fix?: RegExp]> = [
    [
      "unknown top-level key, with did-you-mean",
      `version = 1\nmax_active_lease = 8\n`,
      2,
      /unknown top-level key `max_active_lease`/,
      /did you mean `max_active_leases`/,
    ],
    [
      "unknown top-level key far from any known",
      `${HEADER}colour = "red"\n`,
      3,
      /unknown top-level key `colour`/,
      /known keys are version, max_active_leases/,
    ],
    [
      "unknown lease key, with did-you-mean",
      `${HEADER}${LEASE}expire = "2026-10-01"\n`,
      8,
      /lease #1 \(tests\/test_a\.py::test_x\): unknown key `expire`/,
      /did you mean `expires`/,
    ],
    [
      "missing owner",
      `${HEADER}[[leases]]\nnodeid = "tests/t.py::t"\nreason = "r"\nexpires = "2026-09-26"\n`,
      3,
      /lease #1 \(tests\/t\.py::t\): `owner` is missing/,
      /add `owner = "\.\.\."`/,
    ],
    [
      "missing reason",
      `${HEADER}[[leases]]\nnodeid = "tests/t.py::t"\nowner = "o"\nexpires = "2026-09-26"\n`,
      3,
      /`reason` is missing/,
    ],
    [
      "missing nodeid",
      `${HEADER}[[leases]]\nowner = "o"\nreason = "r"\nexpires = "2026-09-26"\n`,
      3,
      /^lease #1: `nodeid` is missing/,
    ],
    [
      "missing expires",
      `${HEADER}[[leases]]\nnodeid = "tests/t.py::t"\nowner = "o"\nreason = "r"\n`,
      3,
      /`expires` is missing/,
      /YYYY-MM-DD/,
    ],
    ["empty owner", `${HEADER}${LEASE.replace('owner = "team-a"', 'owner = ""')}`, 5, /`owner` is empty/],
    ["blank reason", `${HEADER}${LEASE.replace('reason = "flaky"', 'reason = "   "')}`, 6, /`reason` is empty/],
    [
      "empty nodeid",
      `${HEADER}${LEASE.replace('nodeid = "tests/test_a.py::test_x"', 'nodeid = ""')}`,
      4,
      /`nodeid` is empty/,
    ],
    [
      "nodeid with trailing space",
      `${HEADER}${LEASE.replace('test_x"', 'test_x "')}`,
      4,
      /leading or trailing whitespace/,
    ],
    ["nodeid with a line break", `${HEADER}${LEASE.replace('test_x"', 'test_x\\nmore"')}`, 4, /line break/],
    [
      "owner of the wrong type",
      `${HEADER}${LEASE.replace('owner = "team-a"', "owner = 42")}`,
      5,
      /`owner` must be a string, not number 42/,
    ],
    [
      "nodeid as an array",
      `${HEADER}${LEASE.replace('nodeid = "tests/test_a.py::test_x"', 'nodeid = ["a", "b"]')}`,
      4,
      /`nodeid` must be a string, not an array/,
    ],
    ["ticket as a number", `${HEADER}${LEASE}ticket = 123\n`, 8, /`ticket` must be a string/],
    [
      "impossible date 2026-02-30",
      `${HEADER}${LEASE.replace("2026-09-26", "2026-02-30")}`,
      7,
      /`expires` is "2026-02-30", a day that does not exist/,
      /expires = "2026-09-26"/,
    ],
    [
      "impossible TOML local date",
      `${HEADER}${LEASE.replace('"2026-09-26"', "2026-02-30")}`,
      7,
      /`expires` is 2026-02-30, a day that does not exist/,
    ],
    [
      "TOML local time instead of date",
      `${HEADER}${LEASE.replace('"2026-09-26"', "12:00:00")}`,
      7,
      /`expires` must be a calendar date/,
    ],
    [
      "non-ISO date 26/09/2026",
      `${HEADER}${LEASE.replace("2026-09-26", "26/09/2026")}`,
      7,
      /`expires` is "26\/09\/2026", not a YYYY-MM-DD date/,
    ],
    [
      "datetime instead of date",
      `${HEADER}${LEASE.replace('"2026-09-26"', "2026-09-26T12:00:00Z")}`,
      7,
      /`expires` must be a calendar date, not the date-time/,
    ],
    [
      "local datetime instead of date",
      `${HEADER}${LEASE.replace('"2026-09-26"', "2026-09-26T12:00:00")}`,
      7,
      /`expires` must be a calendar date, not the date-time/,
    ],
    [
      "datetime string instead of date",
      `${HEADER}${LEASE.replace("2026-09-26", "2026-09-26T12:00:00Z")}`,
      7,
      /not a YYYY-MM-DD date/,
    ],
    [
      "expires as a number",
      `${HEADER}${LEASE.replace('"2026-09-26"', "20260926")}`,
      7,
      /`expires` must be a date, not number 20260926/,
    ],
    [
      "created after expires",
      `${HEADER}${LEASE}created = "2026-09-27"\n`,
      8,
      /`created` \(2026-09-27\) is after `expires` \(2026-09-26\)/,
    ],
    [
      "impossible created date",
      `${HEADER}${LEASE}created = "2026-04-31"\n`,
      8,
      /`created` is "2026-04-31", a day that does not exist/,
    ],
    ["version missing", `max_active_leases = 8\n${LEASE}`, 1, /`version` is missing/, /version = 1/],
    ["version 2", `version = 2\nmax_active_leases = 8\n`, 1, /`version` is 2; this proofgate reads version 1/],
    ["version as a string", `max_active_leases = 8\nversion = "1"\n`, 2, /`version` is "1"/],
    [
      "negative budget",
      `version = 1\nmax_active_leases = -1\n`,
      2,
      /`max_active_leases` must be a whole number >= 0, not number -1/,
    ],
    ["fractional budget", `version = 1\nmax_active_leases = 2.5\n`, 2, /whole number >= 0, not number 2.5/],
    ["budget as a string", `version = 1\nmax_active_leases = "8"\n`, 2, /whole number >= 0, not the string "8"/],
    [
      "reject flag as a string",
      `${HEADER}reject_if_expired = "yes"\n`,
      3,
      /`reject_if_expired` must be true or false, not the string "yes"/,
    ],
    [
      "reject flag as a number",
      `${HEADER}reject_if_agent_adds_lease = 0\n`,
      3,
      /`reject_if_agent_adds_lease` must be true or false/,
    ],
    [
      "leases as a table",
      `${HEADER}[leases]\nnodeid = "x"\n`,
      undefined,
      /`leases` must be an array of tables, not a table/,
    ],
    [
      "leases as an array of strings",
      `${HEADER}leases = ["tests/t.py::t"]\n`,
      undefined,
      /lease #1 is the string "tests\/t\.py::t", not a table/,
    ],
  ];

  it.each(cases)("%s", (_name, text, line, message, fix) => {
    const issue = onlyError(text);
    expect(issue.code).toBe("ledger_invalid");
    expect(issue.message).toMatch(message);
    expect(issue.line).toBe(line);
    expect(issue.fix).toBeTruthy();
    if (fix) expect(issue.fix).toMatch(fix);
    expect(formatIssue(issue)).toMatch(line === undefined ? /^freeze\.toml: / : new RegExp(`^freeze\\.toml:${line}: `));
  });

  it("names the earlier lease and its line for a duplicate nodeid", () => {
    const issue = onlyError(`${HEADER}${LEASE}\n${LEASE.replace("team-a", "team-b")}`);
    expect(issue.line).toBe(9);
    expect(issue.message).toBe("lease #2 (tests/test_a.py::test_x) repeats lease #1 at line 3");
    expect(issue.fix).toMatch(/one lease per nodeid/);
  });

  it("points at the right lease when the second lease is the bad one", () => {
    const second = LEASE.replace("test_x", "test_y").replace('owner = "team-a"\n', "");
    const issue = onlyError(`${HEADER}${LEASE}\n${second}`);
    expect(issue.message).toMatch(/^lease #2 \(tests\/test_a\.py::test_y\): `owner` is missing/);
    expect(issue.line).toBe(9);
  });

  it("reports every problem, not only the first", () => {
    const result = parseLedger(`version = 2\nmax_active_leases = -3\ncolor = 1\n[[leases]]\nnodeid = "t::t"\n`, FILE);
    expect(result.ledger).toBeUndefined();
    const messages = result.errors.map((e) => e.message).join("\n");
    for (const part of [
      "`version` is 2",
      "max_active_leases",
      "`color`",
      "`owner` is missing",
      "`reason` is missing",
      "`expires` is missing",
    ]) {
      expect(messages).toContain(part);
    }
  });

  it("reports a TOML syntax error with its line", () => {
    const result = parseLedger(`${HEADER}[[leases]]\nnodeid = "tests/t.py::t\nowner = "o"\n`, FILE);
    expect(result.ledger).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "ledger_syntax", file: FILE, line: 4 });
    expect(result.errors[0]!.message).toMatch(/^not valid TOML: /);
    expect(result.errors[0]!.message).not.toContain("\n");
  });

  it("reports a TOML local date with month 13 as a syntax error on its line", () => {
    const result = parseLedger(`${HEADER}${LEASE.replace('"2026-09-26"', "2026-13-01")}`, FILE);
    expect(result.errors).toEqual([expect.objectContaining({ code: "ledger_syntax", file: FILE, line: 7 })]);
  });

  it("reports a key defined twice as a syntax error", () => {
    const result = parseLedger(`${HEADER}${LEASE}owner = "again"\n`, FILE);
    expect(result.errors[0]).toMatchObject({ code: "ledger_syntax", file: FILE, line: 8 });
  });

  it.each([[""], ["   \n\n"]])("reports an empty file (%j) as file_empty", (text) => {
    const result = parseLedger(text, FILE);
    expect(result.ledger).toBeUndefined();
    expect(result.errors).toEqual([expect.objectContaining({ code: "file_empty", file: FILE })]);
  });
});

describe("classifyLeases", () => {
  const lease = (nodeid: string, expires: string): Lease => ({ index: 0, nodeid, owner: "o", reason: "r", expires });
  const leases = [lease("a", "2026-09-26"), lease("b", "2026-09-19"), lease("c", "2027-01-01")];

  it.each([
    ["2026-09-18", ["a", "b", "c"], []],
    ["2026-09-19", ["a", "b", "c"], []], // active through its expires day
    ["2026-09-20", ["a", "c"], ["b"]], // expired the day after
    ["2026-09-26", ["a", "c"], ["b"]],
    ["2026-09-27", ["c"], ["a", "b"]],
    ["2027-01-02", [], ["a", "b", "c"]],
  ])("on %s: active %j, expired %j", (today, active, expired) => {
    const classes = classifyLeases(leases, today);
    expect(classes.active.map((l) => l.nodeid)).toEqual(active);
    expect(classes.expired.map((l) => l.nodeid)).toEqual(expired);
  });

  it("classifies the article's leases across month and year ends", () => {
    const { ledger } = parseOk(fixture("article-freeze.toml"));
    expect(classifyLeases(ledger.leases, "2026-09-19").expired).toEqual([]);
    expect(classifyLeases(ledger.leases, "2026-09-20").expired.map((l) => l.owner)).toEqual(["platform-cache"]);
    expect(classifyLeases(ledger.leases, "2026-10-01").active).toEqual([]);
  });
});

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, it, type ExpectStatic } from "vitest";

// Every bad input must make the real bundle exit 2 with one `proofgate: error:` line per problem that
// names the file (and line, where the format has lines), with no stack trace, and never print MERGE.
// The bundle is spawned as users run it: a crash that only the process boundary shows is caught here.

const BUNDLE = fileURLToPath(new URL("../dist/proofgate.js", import.meta.url));

const GOOD_LEDGER = `version = 1
max_active_leases = 2
reject_if_expired = true

[[leases]]
nodeid = "tests/test_a.py::test_flaky"
owner = "alice"
reason = "race in the cache"
expires = "2099-01-31"
`;

const GOOD_UNIVERSE = `tests/test_a.py::test_flaky
tests/test_a.py::test_ok
tests/test_b.py::test_other

3 tests collected in 0.01s
`;

const GOOD_COVERAGE = `{"meta": {"format": 3}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0, "missing_lines": 20, "excluded_lines": 0}}
`;

const DEFAULTS: Record<string, string> = {
  "freeze.toml": GOOD_LEDGER,
  "collected.txt": GOOD_UNIVERSE,
  "proven_coverage.json": GOOD_COVERAGE,
};

/** A folder where a file is expected. */
const FOLDER = Symbol("folder");
/** The default file is deleted. */
const ABSENT = Symbol("absent");
type Content = string | Buffer | typeof FOLDER | typeof ABSENT;

type Command = "deselect" | "decide" | "ledger lint";

interface BadInput {
  name: string;
  /** Files written into the temp folder over the valid defaults. */
  files?: Record<string, Content>;
  /** Flags after the command. */
  flags?: string[];
  /** The commands that read this input. */
  commands: readonly Command[];
  /** What the first stderr line names right after `proofgate: error: `: `file:line: `, `file: `, or "" for usage. */
  where: string;
  /** A fragment of the message, so the test proves the right problem was found. */
  says: string;
}

type CaseSpec = Omit<BadInput, "commands">;

const ALL: readonly Command[] = ["deselect", "decide", "ledger lint"];
const READS_UNIVERSE: readonly Command[] = ["deselect", "decide"];
const DECIDE: readonly Command[] = ["decide"];

/** A ledger with one lease whose body lines follow the header on line 3. */
const lease = (body: string, top = "version = 1\nmax_active_leases = 2\n"): string => `${top}[[leases]]\n${body}`;
const LEASE_OK = 'nodeid = "tests/test_a.py::test_flaky"\nowner = "alice"\nreason = "race"\n';
const coverage = (totals: string, meta = '{"format": 3}'): string => `{"meta": ${meta}, "totals": ${totals}}\n`;

/** A real SQLite database in coverage.py's shape (a `.coverage` data file), written with sql.js. */
const SQLITE_DATA_FILE: Buffer = await (async () => {
  const SQL = await initSqlJs({
    locateFile: () => createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"),
  });
  const db = new SQL.Database();
  db.run(
    "CREATE TABLE coverage_schema (version integer); INSERT INTO coverage_schema VALUES (7); CREATE TABLE meta (key text, value text, unique (key)); INSERT INTO meta VALUES ('version', '6.5.0');",
  );
  const bytes = Buffer.from(db.export());
  db.close();
  return bytes;
})();

/** JUnit XML in pytest 7.2.1's xunit2 shape (see src/__fixtures__/junit) for the default universe's tests. */
const JUNIT =
  '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="2" time="0.01" timestamp="2026-12-02T12:58:18.582084" hostname="vm"><testcase classname="tests.test_a" name="test_ok" time="0.001" /><testcase classname="tests.test_b" name="test_other" time="0.001" /></testsuite></testsuites>';
const ENTITY_COBERTURA = `<?xml version="1.0" ?>
<!DOCTYPE coverage [
<!ENTITY lol "lol">
<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
]>
<coverage version="6.5.0" lines-valid="1" lines-covered="1" line-rate="1" branches-covered="0" branches-valid="0" branch-rate="0" complexity="0">
<sources><source>&lol2;</source></sources>
<packages><package name="." line-rate="1" branch-rate="0" complexity="0"><classes><class name="a.py" filename="a.py" complexity="0" line-rate="1" branch-rate="0"><methods/><lines><line number="1" hits="1"/></lines></class></classes></package></packages>
</coverage>
`;

// Every command loads the ledger the same way; decide (which also prints a report) sees each case,
// deselect and ledger lint take turns, so the suite stays quick.
const ledgerCases: BadInput[] = (
  [
    {
      name: "ledger: invalid TOML",
      files: { "freeze.toml": 'version = 1\nmax_active_leases = 2\n[[leases]\nnodeid = "x"\n' },
      where: "freeze.toml:3: ",
      says: "not valid TOML",
    },
    {
      name: "ledger: unterminated string",
      files: { "freeze.toml": 'version = 1\nmax_active_leases = "2\n' },
      where: "freeze.toml:2: ",
      says: "not valid TOML",
    },
    {
      name: "ledger: unknown top-level key",
      files: { "freeze.toml": "version = 1\nmax_active_leases = 2\nmax_leases = 3\n" },
      where: "freeze.toml:3: ",
      says: "unknown top-level key `max_leases`",
    },
    {
      name: "ledger: unknown lease key",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = "2099-01-01"\ncolour = "red"\n`) },
      where: "freeze.toml:8: ",
      says: "unknown key `colour`",
    },
    {
      name: "ledger: missing reason",
      files: {
        "freeze.toml": lease('nodeid = "tests/test_a.py::test_flaky"\nowner = "alice"\nexpires = "2099-01-01"\n'),
      },
      where: "freeze.toml:3: ",
      says: "`reason` is missing",
    },
    {
      name: "ledger: missing expires",
      files: { "freeze.toml": lease(LEASE_OK) },
      where: "freeze.toml:3: ",
      says: "`expires` is missing",
    },
    {
      name: "ledger: missing version",
      files: { "freeze.toml": "max_active_leases = 2\n" },
      where: "freeze.toml:1: ",
      says: "`version` is missing",
    },
    {
      name: "ledger: version 2",
      files: { "freeze.toml": "version = 2\nmax_active_leases = 2\n" },
      where: "freeze.toml:1: ",
      says: "this proofgate reads version 1",
    },
    {
      name: "ledger: impossible date as a string",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = "2026-02-30"\n`) },
      where: "freeze.toml:7: ",
      says: "a day that does not exist",
    },
    // smol-toml rolls a bare 2026-02-30 over to 2026-03-02; the gate must not.
    {
      name: "ledger: impossible date as a TOML local date",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = 2026-02-30\n`) },
      where: "freeze.toml:7: ",
      says: "a day that does not exist",
    },
    {
      name: "ledger: impossible created date",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = 2099-01-01\ncreated = 2025-04-31\n`) },
      where: "freeze.toml:8: ",
      says: "a day that does not exist",
    },
    {
      name: "ledger: date in another shape",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = "31/01/2099"\n`) },
      where: "freeze.toml:7: ",
      says: "not a YYYY-MM-DD date",
    },
    {
      name: "ledger: expires as a date-time",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = 2099-01-01T10:00:00Z\n`) },
      where: "freeze.toml:7: ",
      says: "must be a calendar date",
    },
    {
      name: "ledger: created after expires",
      files: { "freeze.toml": lease(`${LEASE_OK}expires = "2099-01-01"\ncreated = "2099-02-01"\n`) },
      where: "freeze.toml:8: ",
      says: "is after `expires`",
    },
    {
      name: "ledger: duplicate nodeid",
      files: {
        "freeze.toml": `${lease(`${LEASE_OK}expires = "2099-01-01"\n`)}\n[[leases]]\n${LEASE_OK}expires = "2099-02-01"\n`,
      },
      where: "freeze.toml:9: ",
      says: "repeats lease #1 at line 3",
    },
    {
      name: "ledger: max_active_leases is a string",
      files: { "freeze.toml": 'version = 1\nmax_active_leases = "two"\n' },
      where: "freeze.toml:2: ",
      says: "must be a whole number >= 0",
    },
    {
      name: "ledger: max_active_leases is negative",
      files: { "freeze.toml": "version = 1\nmax_active_leases = -1\n" },
      where: "freeze.toml:2: ",
      says: "must be a whole number >= 0",
    },
    {
      name: "ledger: max_active_leases is a float",
      files: { "freeze.toml": "version = 1\nmax_active_leases = 2.5\n" },
      where: "freeze.toml:2: ",
      says: "must be a whole number >= 0",
    },
    {
      name: "ledger: reject_if_expired is a string",
      files: { "freeze.toml": 'version = 1\nmax_active_leases = 2\nreject_if_expired = "yes"\n' },
      where: "freeze.toml:3: ",
      says: "must be true or false",
    },
    {
      name: "ledger: owner is a number",
      files: {
        "freeze.toml": lease(
          'nodeid = "tests/test_a.py::test_flaky"\nowner = 5\nreason = "race"\nexpires = "2099-01-01"\n',
        ),
      },
      where: "freeze.toml:5: ",
      says: "`owner` must be a string",
    },
    {
      name: "ledger: empty nodeid",
      files: { "freeze.toml": lease('nodeid = ""\nowner = "alice"\nreason = "race"\nexpires = "2099-01-01"\n') },
      where: "freeze.toml:4: ",
      says: "`nodeid` is empty",
    },
    {
      name: "ledger: leases is a string",
      files: { "freeze.toml": 'version = 1\nmax_active_leases = 2\nleases = "none"\n' },
      where: "freeze.toml:3: ",
      says: "`leases` must be an array of tables",
    },
    { name: "ledger: empty file", files: { "freeze.toml": "" }, where: "freeze.toml: ", says: "the ledger is empty" },
    {
      name: "ledger: only whitespace",
      files: { "freeze.toml": "\n  \n\t\n" },
      where: "freeze.toml: ",
      says: "the ledger is empty",
    },
    {
      name: "ledger: a folder instead of a file",
      files: { "freeze.toml": FOLDER },
      where: "freeze.toml: ",
      says: "is a folder, not a file",
    },
    {
      name: "ledger: default file missing",
      files: { "freeze.toml": ABSENT },
      where: "freeze.toml: ",
      says: "does not exist",
    },
    {
      name: "ledger: --freeze names a missing file",
      flags: ["--freeze", "ledgers/nope.toml"],
      where: "ledgers/nope.toml: ",
      says: "does not exist",
    },
    {
      name: "ledger: not UTF-8",
      files: { "freeze.toml": Buffer.from(`version = 1\nmax_active_leases = 2\n# caf\xe9\n`, "latin1") },
      where: "freeze.toml: ",
      says: "not UTF-8",
    },
  ] satisfies CaseSpec[]
).map((c, i) => ({ commands: ["decide", i % 2 === 0 ? "ledger lint" : "deselect"] as const, ...c }));

const universeCases: BadInput[] = (
  [
    {
      name: "universe: empty file",
      files: { "collected.txt": "" },
      where: "collected.txt: ",
      says: "the test universe is empty",
    },
    {
      name: "universe: no tests collected",
      files: { "collected.txt": "\nno tests collected in 0.01s\n" },
      where: "collected.txt:2: ",
      says: "no tests were collected",
    },
    {
      // Fewer ids than the summary is a narrowed collection (tests_removed judges it); more is an edit.
      name: "universe: count mismatch (more ids than pytest collected)",
      files: {
        "collected.txt": "tests/test_a.py::test_flaky\ntests/test_a.py::test_ok\n\n1 test collected in 0.01s\n",
      },
      where: "collected.txt:4: ",
      says: "the summary says 1 tests but the file lists 2 ids",
    },
    {
      name: "universe: no summary line",
      files: { "collected.txt": "tests/test_a.py::test_flaky\ntests/test_a.py::test_ok\n" },
      where: "collected.txt:",
      says: "no pytest summary line",
    },
    {
      name: "universe: tree output without -q",
      files: {
        "collected.txt":
          "<Dir pg>\n  <Module tests/test_a.py>\n    <Function test_flaky>\n\n1 test collected in 0.01s\n",
      },
      where: "collected.txt:1: ",
      says: "tree output",
    },
    {
      name: "universe: -qq output",
      files: { "collected.txt": "tests/test_a.py: 2\ntests/test_b.py: 1\n\n3 tests collected in 0.01s\n" },
      where: "collected.txt:1: ",
      says: "`-qq` output",
    },
    {
      name: "universe: a line that is not a test id",
      files: { "collected.txt": "tests/test_a.py::test_flaky\nhello world\n\n2 tests collected in 0.01s\n" },
      where: "collected.txt:2: ",
      says: "not a test id",
    },
    {
      name: "universe: text after the summary",
      files: { "collected.txt": `${GOOD_UNIVERSE}tests/test_c.py::test_late\n` },
      where: "collected.txt:6: ",
      says: "summary line",
    },
    {
      name: "universe: not UTF-8",
      files: {
        "collected.txt": Buffer.from("tests/test_a.py::test_flaky[caf\xe9]\n\n1 test collected in 0.01s\n", "latin1"),
      },
      where: "collected.txt: ",
      says: "not UTF-8",
    },
    { name: "universe: a folder", files: { "collected.txt": FOLDER }, where: "collected.txt: ", says: "is a folder" },
    {
      name: "universe: default file missing",
      files: { "collected.txt": ABSENT },
      where: "collected.txt: ",
      says: "does not exist",
    },
  ] satisfies CaseSpec[]
).map((c) => ({ commands: READS_UNIVERSE, ...c }));

const coverageCases: BadInput[] = (
  [
    {
      name: "coverage: no totals",
      files: { "proven_coverage.json": '{"meta": {"format": 3}, "files": {}}\n' },
      where: "proven_coverage.json: ",
      says: "no `totals`",
    },
    {
      name: "coverage: truncated JSON",
      files: { "proven_coverage.json": '{"meta": {"format": 3}, "totals": {"covered_lines": 80, "num_sta' },
      where: "proven_coverage.json:1: ",
      says: "not valid JSON",
    },
    {
      name: "coverage: empty file",
      files: { "proven_coverage.json": "" },
      where: "proven_coverage.json: ",
      says: "the coverage report is empty",
    },
    {
      name: "coverage: non-numeric count",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": "80", "num_statements": 100, "percent_covered": 80.0}'),
      },
      where: "proven_coverage.json: ",
      says: "`totals.covered_lines` must be a whole number",
    },
    {
      name: "coverage: non-numeric percent",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 80, "num_statements": 100, "percent_covered": "80"}'),
      },
      where: "proven_coverage.json: ",
      says: "`totals.percent_covered` must be a number",
    },
    {
      name: "coverage: NaN percent",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 80, "num_statements": 100, "percent_covered": NaN}'),
      },
      where: "proven_coverage.json:",
      says: "not valid JSON",
    },
    {
      name: "coverage: negative percent",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 80, "num_statements": 100, "percent_covered": -5}'),
      },
      where: "proven_coverage.json: ",
      says: "from 0 to 100",
    },
    {
      name: "coverage: negative count",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": -1, "num_statements": 100, "percent_covered": 80.0}'),
      },
      where: "proven_coverage.json: ",
      says: "whole number >= 0",
    },
    {
      name: "coverage: percent over 100",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 80, "num_statements": 100, "percent_covered": 150}'),
      },
      where: "proven_coverage.json: ",
      says: "from 0 to 100",
    },
    {
      name: "coverage: covered > statements",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 120, "num_statements": 100, "percent_covered": 100.0}'),
      },
      where: "proven_coverage.json: ",
      says: "exceeds `num_statements`",
    },
    {
      name: "coverage: covered branches > branches",
      files: {
        "proven_coverage.json": coverage(
          '{"covered_lines": 80, "num_statements": 100, "num_branches": 10, "covered_branches": 20, "percent_covered": 90.0}',
        ),
      },
      where: "proven_coverage.json: ",
      says: "exceeds `num_branches`",
    },
    {
      name: "coverage: percent not matching the counts",
      files: {
        "proven_coverage.json": coverage('{"covered_lines": 80, "num_statements": 100, "percent_covered": 95.0}'),
      },
      where: "proven_coverage.json: ",
      says: "but the counts give 80",
    },
    {
      name: "coverage: branches without covered_branches",
      files: {
        "proven_coverage.json": coverage(
          '{"covered_lines": 80, "num_statements": 100, "num_branches": 10, "percent_covered": 80.0}',
        ),
      },
      where: "proven_coverage.json: ",
      says: "`totals.covered_branches` is missing",
    },
    {
      name: "coverage: format 99",
      files: {
        "proven_coverage.json": coverage(
          '{"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}',
          '{"format": 99}',
        ),
      },
      where: "proven_coverage.json: ",
      says: "format 99",
    },
    {
      name: "coverage: top-level array",
      files: { "proven_coverage.json": "[1, 2, 3]\n" },
      where: "proven_coverage.json: ",
      says: "the top level is not an object",
    },
    {
      name: "coverage: files disagree with totals",
      files: {
        "proven_coverage.json":
          '{"meta": {"format": 3}, "files": {"a.py": {"summary": {"num_statements": 10, "covered_lines": 10}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n',
      },
      where: "proven_coverage.json: ",
      says: "the files add up to 10/10 lines",
    },
    {
      name: "coverage: a folder",
      files: { "proven_coverage.json": FOLDER },
      where: "proven_coverage.json: ",
      says: "is a folder",
    },
    {
      name: "coverage: default file missing",
      files: { "proven_coverage.json": ABSENT },
      where: "proven_coverage.json: ",
      says: "does not exist",
    },
    {
      name: "coverage: not UTF-8",
      files: { "proven_coverage.json": Buffer.from('{"note": "caf\xe9"}\n', "latin1") },
      where: "proven_coverage.json: ",
      says: "not UTF-8",
    },
    {
      name: "report: LCOV without end_of_record",
      files: { "cov.info": "TN:\nSF:pkg/a.py\nDA:1,1\nDA:2,0\nLF:2\nLH:1\n" },
      flags: ["--report", "cov.info"],
      where: "cov.info:2: ",
      says: "has no `end_of_record`",
    },
    {
      name: "report: Cobertura with an ENTITY declaration",
      files: { "coverage.xml": ENTITY_COBERTURA },
      flags: ["--report", "coverage.xml"],
      where: "coverage.xml:2: ",
      says: "proofgate never expands entities",
    },
    {
      name: "report: a .coverage SQLite data file",
      files: { ".coverage": SQLITE_DATA_FILE },
      flags: ["--report", ".coverage"],
      where: ".coverage: ",
      says: "pass it as --contexts",
    },
    {
      name: "contexts: not a SQLite file",
      files: { "data.coverage": '!coverage.py: This is a private format, don\'t read it directly!{"lines": {}}' },
      flags: ["--contexts", "data.coverage", "--report", "proven_coverage.json"],
      where: "data.coverage: ",
      says: "not SQLite",
    },
    {
      name: "report: no format proofgate reads",
      files: { "cov.txt": "Name    Stmts   Miss  Cover\n" },
      flags: ["--report", "cov.txt"],
      where: "cov.txt: ",
      says: "name the format with `--coverage-format`",
    },
    {
      name: "results: truncated JUnit XML",
      files: { "results.xml": JUNIT.slice(0, 200) },
      flags: ["--results", "results.xml"],
      where: "results.xml:1: ",
      says: "looks truncated",
    },
    {
      name: "results: JUnit XML with a DOCTYPE",
      files: {
        "results.xml": `<?xml version="1.0"?>\n<!DOCTYPE testsuites SYSTEM "http://example.com/junit.dtd">\n${JUNIT.replace(/^<\?xml[^>]*>/, "")}\n`,
      },
      flags: ["--results", "results.xml"],
      where: "results.xml:2: ",
      says: "a DOCTYPE declaration",
    },
  ] satisfies CaseSpec[]
).map((c) => ({ commands: DECIDE, ...c }));

const usage = (name: string, commands: readonly Command[], flags: string[], says: string): BadInput => ({
  name,
  commands,
  flags,
  where: "",
  says,
});
const flagCases: BadInput[] = [
  usage("flags: unknown flag", ALL, ["--bogus"], "Unknown argument: bogus"),
  usage("flags: --min-proven abc", DECIDE, ["--min-proven", "abc"], '--min-proven "abc" is not a percentage'),
  usage("flags: --min-proven nan", DECIDE, ["--min-proven", "nan"], '--min-proven "nan" is not a percentage'),
  usage("flags: --min-proven 150", DECIDE, ["--min-proven", "150"], '--min-proven "150" is not a percentage'),
  usage("flags: --min-proven -1", DECIDE, ["--min-proven", "-1"], '--min-proven "-1" is not a percentage'),
  usage("flags: --min-proven Infinity", DECIDE, ["--min-proven", "Infinity"], "is not a percentage"),
  usage(
    "flags: --fixture-delta 1.5",
    DECIDE,
    ["--fixture-delta", "1.5"],
    '--fixture-delta "1.5" is not a whole number',
  ),
  usage("flags: --fixture-delta -1", DECIDE, ["--fixture-delta", "-1"], '--fixture-delta "-1" is not a whole number'),
  usage("flags: --fixture-delta x", DECIDE, ["--fixture-delta", "x"], '--fixture-delta "x" is not a whole number'),
  usage("flags: --property-failures 1e3", DECIDE, ["--property-failures", "1e3"], "is not a whole number"),
  usage("flags: --agent-added-leases empty", DECIDE, ["--agent-added-leases", ""], "is not a whole number"),
  usage(
    "flags: --coverage given twice",
    DECIDE,
    ["--coverage", "a.json", "--coverage", "b.json"],
    "--coverage was given 2 times",
  ),
  usage(
    "flags: --freeze given twice",
    ALL,
    ["--freeze", "freeze.toml", "--freeze", "other.toml"],
    "--freeze was given 2 times",
  ),
  usage("flags: --today 2026-02-30", ALL, ["--today", "2026-02-30"], '--today "2026-02-30" is not a YYYY-MM-DD date'),
  usage("flags: --today in another shape", ALL, ["--today", "02/12/2026"], "is not a YYYY-MM-DD date"),
  usage("flags: --format nope", ["deselect"], ["--format", "nope"], "Invalid values"),
  usage(
    "flags: --format plugin without --out",
    ["deselect"],
    ["--format", "plugin"],
    "--format plugin needs --out PATH.py",
  ),
  usage(
    "flags: --format plugin with a non-module file name",
    ["deselect"],
    ["--format", "plugin", "--out", "out/proofgate-frozen.py"],
    "is not a Python module file name",
  ),
  usage(
    "flags: --format plugin with a file that is not .py",
    ["deselect"],
    ["--format", "plugin", "--out", "frozen.txt"],
    "is not a Python module file name",
  ),
  usage(
    "flags: --min-proven without its value",
    DECIDE,
    ["--min-proven"],
    "Not enough arguments following: min-proven",
  ),
  usage("flags: --freeze without its value", ALL, ["--freeze"], "Not enough arguments following: freeze"),
  usage("flags: --today without its value", ALL, ["--today"], "Not enough arguments following: today"),
  usage(
    "flags: --contexts with two --report",
    DECIDE,
    ["--contexts", ".coverage", "--report", "a.json", "--report", "b.json"],
    "--contexts needs exactly one --report",
  ),
  usage("flags: --shards 0", DECIDE, ["--shards", "0"], "--shards must be at least 1"),
  usage(
    "flags: --shards x",
    DECIDE,
    ["--shards", "x"],
    '--shards "x" is not a whole number >= 1. Fix: write e.g. --shards 1',
  ),
  usage(
    "flags: --coverage-format nope",
    DECIDE,
    ["--coverage-format", "nope"],
    '--coverage-format "nope" is not one of coveragepy-json, lcov, cobertura',
  ),
];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundle as a user would (`node dist/proofgate.js ...`); async so the cases can overlap. */
function runBundle(cwd: string, argv: string[]): Promise<Run> {
  const env = { ...process.env };
  delete env.PROOFGATE_DEBUG;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE, ...argv], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

let root: string;
let serial = 0;

function folderWith(files: Record<string, Content> = {}): string {
  const dir = join(root, String(serial++));
  mkdirSync(dir);
  for (const [name, content] of Object.entries({ ...DEFAULTS, ...files })) {
    const path = join(dir, name);
    if (content === ABSENT) continue;
    if (content === FOLDER) mkdirSync(path);
    else writeFileSync(path, content);
  }
  return dir;
}

/** The checks every bad input must pass, whatever the command. */
function expectInputError(expect: ExpectStatic, r: Run, command: Command, c: BadInput): void {
  const context = `${command} ${(c.flags ?? []).join(" ")}\nstderr:\n${r.stderr}\nstdout:\n${r.stdout}`;
  expect(r.status, context).toBe(2);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  expect(lines.length, context).toBeGreaterThan(0);
  expect(lines[0], context).toMatch(/^proofgate: error: /);
  expect(
    lines[0]!.startsWith(`proofgate: error: ${c.where}`),
    `first line must name ${JSON.stringify(c.where)}\n${context}`,
  ).toBe(true);
  expect(lines[0], context).toContain(c.says);
  // One line per problem: a continuation line would not start with the program's name.
  for (const line of lines) expect(line, context).toMatch(/^proofgate: /);
  expect(r.stderr, context).not.toMatch(/^\s+at /m);
  expect(r.stderr, context).not.toMatch(/^\w*Error\b/m);
  expect(r.stderr, context).not.toContain("internal error");
  expect(r.stdout, context).not.toContain('"MERGE"');
  expect(r.stdout, context).not.toContain("MERGE");
  if (command === "decide") {
    const report = JSON.parse(r.stdout) as { decision: string; reasons: string[]; errors: { message: string }[] };
    expect(report.decision).toBe("REJECT");
    expect(report.reasons).toEqual(["input_error"]);
    expect(report.errors.length).toBeGreaterThan(0);
  } else {
    expect(r.stdout, context).toBe("");
  }
}

const cases = [...ledgerCases, ...universeCases, ...coverageCases, ...flagCases];
const runs = cases.flatMap((c) => c.commands.map((command) => ({ command, c })));

beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`pnpm build\` first`);
  root = mkdtempSync(join(tmpdir(), "proofgate-bad-input-"));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

// Each case spawns node; on a busy CI machine that can take seconds.
describe.concurrent("bad input exits 2 with one named line per problem, never MERGE", { timeout: 60_000 }, () => {
  it("has at least 30 distinct bad inputs", ({ expect }) => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it("the valid defaults pass every command (so each case fails for its own reason)", async ({ expect }) => {
    const dir = folderWith();
    const runs = await Promise.all([["deselect"], ["decide"], ["ledger", "lint"]].map((argv) => runBundle(dir, argv)));
    expect(runs.map((r) => r.status)).toEqual([0, 0, 0]);
    expect(runs[1]!.stdout).toContain('"decision": "MERGE"');
  });

  it.for(runs.map(({ command, c }) => [`${command}: ${c.name}`, command, c] as const))(
    "%s",
    async ([, command, c], { expect }) => {
      const dir = folderWith(c.files);
      const r = await runBundle(dir, [...command.split(" "), ...(c.flags ?? [])]);
      expectInputError(expect, r, command, c);
    },
  );

  it("an unknown command exits 2 and prints nothing on stdout", async ({ expect }) => {
    const r = await runBundle(folderWith(), ["merge-it"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^proofgate: error: Unknown argument: merge-it/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe("");
  });

  it("an unknown ledger subcommand exits 2", async ({ expect }) => {
    const r = await runBundle(folderWith(), ["ledger", "prune"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^proofgate: error: Unknown argument: prune/);
    expect(r.stdout).toBe("");
  });

  it("a bad --collected for `ledger lint` names that file", async ({ expect }) => {
    const dir = folderWith({ "bad.txt": "tests/test_a.py::test_flaky\n" });
    const r = await runBundle(dir, ["ledger", "lint", "--collected", "bad.txt"]);
    expectInputError(expect, r, "ledger lint", {
      name: "",
      commands: [],
      where: "bad.txt:",
      says: "no pytest summary line",
    });
  });

  it("every problem in a ledger gets its own line, each with its line number", async ({ expect }) => {
    const dir = folderWith({
      "freeze.toml":
        'version = 1\nmax_active_leases = 2\nfoo = 1\n[[leases]]\nnodeid = "tests/test_a.py::test_flaky"\nowner = 7\nreason = "race"\nexpires = "2026-02-30"\n',
    });
    const r = await runBundle(dir, ["ledger", "lint"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^proofgate: error: freeze\.toml:3: unknown top-level key `foo`/),
      expect.stringMatching(
        /^proofgate: error: freeze\.toml:6: lease #1 \(tests\/test_a\.py::test_flaky\): `owner` must be a string/,
      ),
      expect.stringMatching(
        /^proofgate: error: freeze\.toml:8: lease #1 \(tests\/test_a\.py::test_flaky\): `expires` is "2026-02-30", a day that does not exist/,
      ),
    ]);
  });

  it("decide --out to a path it cannot write exits 2 and prints no MERGE", async ({ expect }) => {
    const dir = folderWith({ blocker: "a file, not a folder" });
    const r = await runBundle(dir, ["decide", "--out", "blocker/report.json"]);
    expectInputError(expect, r, "decide", {
      name: "",
      commands: [],
      where: "blocker/report.json: ",
      says: "cannot write",
    });
  });

  it("decide with a bad --today still writes a REJECT report with no date", async ({ expect }) => {
    const r = await runBundle(folderWith(), ["decide", "--today", "2026-02-30"]);
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout) as { today_utc: unknown; decision: string };
    expect(report).toMatchObject({ today_utc: null, decision: "REJECT" });
  });
});

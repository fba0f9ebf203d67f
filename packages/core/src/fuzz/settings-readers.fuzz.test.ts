// Fuzzing the readers of the files beside the reports (issue 25): the evidence stamp (proofgate-evidence.json,
// written by a CI step), coverage.py's configuration (.coveragerc, setup.cfg, tox.ini, pyproject.toml),
// pytest's settings in the same files, and the property-settings file. For any input: a value or a
// problem naming the file, never an uncaught exception. Round trip: a rendered stamp reads back as written.
// Fixed seed; PROOFGATE_FUZZ_RUNS raises the budget.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coverageConfigCandidates, readCoverageConfig } from "../python/coverage-config.js";
import { EVIDENCE_STAMP_FORMAT, parseEvidenceStamp, renderEvidenceStamp } from "../evidence/evidence-stamp.js";
import { parsePropertySettingsFile } from "../evidence/property-settings.js";
import { readPytestSettings } from "../python/runner-config.js";
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

const HEX = [..."0123456789abcdef"];
const hex = (n: number) => fc.string({ unit: fc.constantFrom(...HEX), minLength: n, maxLength: n });

describe("fuzz: the evidence stamp (parseEvidenceStamp)", { timeout: FUZZ_TIMEOUT }, () => {
  const FILE = "proofgate-evidence.json";
  const stamp = fc.record({
    format: fc.constant(EVIDENCE_STAMP_FORMAT),
    version: fc.constant(1 as const),
    commit: hex(40),
    tree: hex(40),
    runs: fc.array(
      fc.record({
        command: fc.string({ unit: "binary", maxLength: 40 }),
        exitCode: fc.integer({ min: 0, max: 255 }),
        files: fc.array(fc.record({ path: fc.string({ minLength: 1, maxLength: 30 }), sha256: hex(64) }), {
          maxLength: 4,
        }),
      }),
      { maxLength: 3 },
    ),
  });
  const check = (text: string) => {
    const result = typed(() => parseEvidenceStamp(text, FILE), FILE);
    if ("issues" in result) return;
    expectIssues(result.errors, FILE);
    if (result.stamp) expect(result.errors).toEqual([]);
  };
  const written = fc.sample(stamp, { seed: 7, numRuns: 5 }).map(renderEvidenceStamp);

  it("round trip: a rendered stamp reads back as written (or names what it refuses)", () =>
    fc.assert(
      fc.property(stamp, (s) => {
        const back = parseEvidenceStamp(renderEvidenceStamp(s), FILE);
        if (back.stamp) expect(back.stamp).toEqual(s);
        else expectIssues(back.errors, FILE);
      }),
      fuzzParams(0.5),
    ));
  it("any text", () => fc.assert(fc.property(anyText, check), fuzzParams(0.25)));
  it("a written stamp with one byte, one line or one field changed", () => {
    fc.assert(fc.property(mutated(written), check), fuzzParams(0.5));
    fc.assert(fc.property(fieldMutated(written), check), fuzzParams(0.5));
  });
  it("regression: a null (or any non-object) file entry is a stamp refused, not a TypeError", () => {
    for (const entry of ["null", "1", '"a"', "[]"]) {
      const text = `{"format": "proofgate-evidence", "version": 1, "commit": "${"a".repeat(40)}", "tree": "${"b".repeat(40)}", "runs": [{"command": "pytest", "exitCode": 0, "files": [${entry}]}]}`;
      const result = parseEvidenceStamp(text, FILE);
      expect(result.stamp).toBeUndefined();
      expect(result.errors).toEqual([
        expect.objectContaining({
          code: "evidence_unbound",
          file: FILE,
          message: "is not an evidence stamp: a run without its command, exit code or files",
        }),
      ]);
    }
  });
  it("a megabyte within the time budget", () => {
    for (const text of [repeatTo('{"runs": [', MB), "[".repeat(MB), repeatTo('{"path": "a", "sha256": "b"},', MB)])
      expect(timed(() => typed(() => parseEvidenceStamp(text, FILE)))).toBeLessThan(MB_BUDGET_MS);
  });
});

// coverage.py's and pytest's settings: a patch can write any of these files.
const INI_TOKENS = [
  "[run]",
  "[report]",
  "[coverage:run]",
  "[coverage:report]",
  "[tool:pytest]",
  "[pytest]",
  "[tool.coverage.run]",
  "[tool.coverage.report]",
  "[tool.pytest.ini_options]",
  "omit = tests/*",
  "source = src",
  "branch = True",
  "branch = maybe",
  "exclude_lines =",
  "    pragma: no cover",
  'exclude_also = ["if TYPE_CHECKING:"]',
  "addopts = -p no:cacheprovider",
  "testpaths = tests",
  "pythonpath = .",
  'omit = ["a", 1]',
  "%(here)s",
  "${HOME}",
  "[",
  "= x",
  "; comment",
  "# comment",
  "\t",
];

describe("fuzz: coverage.py's configuration and pytest's settings", { timeout: FUZZ_TIMEOUT }, () => {
  const files = [...new Set([...coverageConfigCandidates(), "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"])];
  const contents = fc.dictionary(fc.constantFrom(...files), fc.oneof(anyText, tokenLines(INI_TOKENS)), {
    maxKeys: 3,
  });
  it("any text in any of the files: a configuration or a problem naming its file", () =>
    fc.assert(
      fc.property(contents, (given) => {
        const read = (path: string) => given[path];
        const coverage = readCoverageConfig(read);
        if ("problem" in coverage && coverage.problem !== undefined) {
          expect(files).toContain(coverage.problem.file);
          expect(coverage.problem.message.length).toBeGreaterThan(0);
        }
        const pytest = typed(() => readPytestSettings(read));
        expect(pytest).toBeDefined();
      }),
      fuzzParams(),
    ));
  it("a megabyte within the time budget", () => {
    for (const text of [
      repeatTo("[run]\nomit = a\n", MB),
      repeatTo("    pragma\n", MB),
      "[".repeat(MB),
      "x = [".repeat(MB / 5),
    ]) {
      for (const file of [".coveragerc", "pyproject.toml"])
        expect(timed(() => typed(() => readCoverageConfig((p) => (p === file ? text : undefined))))).toBeLessThan(
          MB_BUDGET_MS,
        );
    }
  });
});

describe("fuzz: the property-settings file (parsePropertySettingsFile)", { timeout: FUZZ_TIMEOUT }, () => {
  const FILE = "property-settings.jsonl";
  const line = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.constant('{"tests/test_p.py::test_x": {"max_examples": 100, "derandomize": false, "database": null}}'),
    fc.string({ unit: "binary", maxLength: 40 }),
  );
  const check = (text: string) => {
    const result = typed(() => parsePropertySettingsFile(text, FILE), FILE);
    if ("issues" in result) return;
    expectIssues(result.errors, FILE);
  };
  it("lines of any JSON or text", () =>
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }).map((l) => l.join("\n")),
        check,
      ),
      fuzzParams(),
    ));
  it("a megabyte within the time budget", () => {
    for (const text of [repeatTo("{}\n", MB), "[".repeat(MB), repeatTo('{"a": {"max_examples": 1}}\n', MB)])
      expect(timed(() => typed(() => parsePropertySettingsFile(text, FILE)))).toBeLessThan(MB_BUDGET_MS);
  });
});

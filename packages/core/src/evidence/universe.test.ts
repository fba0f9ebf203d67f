import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../common/errors.js";
import { parseCollectOnly } from "./universe.js";

const FILE = "collected.txt";
/** Real `pytest --collect-only` output of Debian's pytest 7.2.1, recorded in __fixtures__/pytest72. */
const recorded = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/pytest72/${name}`, import.meta.url), "utf8");

function parseOk(text: string) {
  const result = parseCollectOnly(text, FILE);
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.universe).toBeDefined();
  return { universe: result.universe!, warnings: result.warnings };
}

function onlyError(text: string) {
  const result = parseCollectOnly(text, FILE);
  expect(result.universe).toBeUndefined();
  expect(result.errors).toHaveLength(1);
  expect(result.errors[0]!.file).toBe(FILE);
  expect(result.errors[0]!.fix).toBeTruthy();
  return result.errors[0]!;
}

describe("parseCollectOnly: real pytest 7.2 output", () => {
  it("reads every id: spaces, classes, \\x escapes, commas, paths outside tests/, past the warnings summary", () => {
    const { universe, warnings } = parseOk(recorded("collect-q.txt"));
    expect(warnings).toEqual([]);
    const ids = [
      "pkg/tests/test_b.py::test_outside",
      "tests/test_a.py::test_x",
      "tests/test_a.py::test_x_slow",
      "tests/test_a.py::test_param[a b]",
      "tests/test_a.py::test_param[caf\\xe9]",
      "tests/test_a.py::test_param[na\\xefve \\xfcmlaut]",
      "tests/test_a.py::test_param[x,y]",
      "tests/test_a.py::TestBilling::test_total",
      "tests/test_a.py::TestBilling::test_round[1]",
      "tests/test_a.py::TestBilling::test_round[2]",
    ];
    expect(universe).toEqual({
      file: FILE,
      ids,
      duplicates: [],
      collectionErrors: [],
      summaryCount: 10,
      index: new Set(ids),
    });
  });

  it("a universe collected with -k (5/10-style summary) is what would run, and says it was narrowed", () => {
    const text = recorded("deselected-k.txt");
    const { universe } = parseOk(text);
    expect(universe.ids).toHaveLength(5);
    expect(universe.narrowed).toEqual({
      deselected: 5,
      unlisted: 0,
      file: "collected.txt",
      line: text.trimEnd().split("\n").length, // the summary line
      summary: expect.stringMatching(/^5\/10 tests collected \(5 deselected\)/),
    });
  });

  it("a universe where every test was deselected leaves nothing to prove: it says what left them out", () => {
    const issue = onlyError("\nno tests collected (10 deselected) in 0.05s\n");
    expect(issue.code).toBe("universe_empty");
    expect(issue.message).toContain("left out every one (`no tests collected (10 deselected) in 0.05s`)");
  });

  it("reports collection errors with their lines and keeps the ids it got", () => {
    const text = recorded("collection-error.txt");
    const lines = text.split("\n");
    const { universe } = parseOk(text);
    expect(universe.ids).toEqual([
      "tests/test_ok.py::test_ok",
      "tests/test_two.py::test_1",
      "tests/test_two.py::test_2",
    ]);
    expect(universe.summaryCount).toBe(3);
    expect(universe.collectionErrors.length).toBeGreaterThan(0);
    for (const error of universe.collectionErrors) expect(lines[error.line - 1]).toContain(error.text);
    const texts = universe.collectionErrors.map((e) => e.text);
    expect(texts).toContain("ERROR collecting tests/test_bad.py");
    expect(texts).toContain("ERROR tests/test_bad.py");
    expect(texts).toContain("Interrupted: 1 error during collection");
  });

  it("reports collection errors with --continue-on-collection-errors too", () => {
    const { universe } = parseOk(recorded("collection-error-continue.txt"));
    expect(universe.ids).toHaveLength(3);
    expect(universe.collectionErrors.map((e) => e.text)).toContain("ERROR tests/test_bad.py");
  });

  it("reports a run where collection only failed (`no tests collected, 1 error`) as collection errors, not as a clean empty suite", () => {
    // The universe is kept so that `decide` rejects with collection_errors and shows where.
    const { universe } = parseOk(recorded("only-errors.txt"));
    expect(universe.ids).toEqual([]);
    expect(universe.collectionErrors.map((e) => e.text)).toEqual([
      "ERROR collecting tests/test_bad.py",
      "ERROR tests/test_bad.py",
      "Interrupted: 1 error during collection",
    ]);
  });

  it("keeps ids that pytest printed twice once, and warns", () => {
    const { universe, warnings } = parseOk(recorded("duplicates.txt"));
    expect(universe.ids).toEqual(["tests/test_d.py::test_one", "tests/test_d.py::test_two"]);
    expect(universe.duplicates).toEqual(["tests/test_d.py::test_one", "tests/test_d.py::test_two"]);
    expect(universe.summaryCount).toBe(4);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/2 test id\(s\) printed more than once/);
    expect(warnings[0]!.file).toBe(FILE);
  });

  it("refuses the tree output of `--collect-only` without -q, pointing to -q", () => {
    const issue = onlyError(recorded("tree.txt"));
    expect(issue.code).toBe("universe_invalid");
    expect(issue.fix).toMatch(/-q/);
    expect(issue.message).toMatch(/tree output/);
    expect(issue.line).toBe(1);
  });

  it("refuses tree output that lacks the session header", () => {
    const tree = recorded("tree.txt");
    const issue = onlyError(tree.slice(tree.indexOf("<Module")));
    expect(issue).toMatchObject({ code: "universe_invalid", line: 1 });
    expect(issue.message).toMatch(/tree output/);
  });

  it("refuses -qq output (counts per file), pointing to a single -q", () => {
    const issue = onlyError(recorded("qq.txt"));
    expect(issue).toMatchObject({ code: "universe_invalid", line: 1 });
    expect(issue.message).toMatch(/-qq/);
  });

  it("refuses `no tests collected` as an empty universe", () => {
    const text = recorded("no-tests.txt");
    const issue = onlyError(text);
    expect(issue).toMatchObject({ code: "universe_empty", line: 2 });
  });
});

describe("parseCollectOnly: shapes of pytest 7, 8 and 9", () => {
  const ids = "tests/test_a.py::test_x\ntests/test_a.py::TestC::test_y[a b]\n";
  it.each([
    ["pytest 7/8 summary", `${ids}\n2 tests collected in 0.01s\n`],
    ["no trailing newline", `${ids}\n2 tests collected in 0.01s`],
    ["CRLF line endings", `${ids}\n2 tests collected in 0.01s\n`.replace(/\n/g, "\r\n")],
    ["a byte-order mark", `\uFEFF${ids}\n2 tests collected in 0.01s\n`],
    ["a summary with = rules", `${ids}\n========== 2 tests collected in 0.01s ==========\n`],
    ["a long run's duration", `${ids}\n2 tests collected in 61.20s (0:01:01)\n`],
    ["a summary without duration", `${ids}\n2 tests collected\n`],
    [
      "colour codes (--color=yes)",
      `${ids}\n\u001b[32m\u001b[32m2 tests collected\u001b[0m\u001b[32m in 0.02s\u001b[0m\u001b[0m\n`,
    ],
  ])("reads %s", (_name, text) => {
    expect(parseOk(text).universe.ids).toEqual(["tests/test_a.py::test_x", "tests/test_a.py::TestC::test_y[a b]"]);
  });

  it("reads the singular `1 test collected`", () => {
    expect(parseOk("tests/t.py::t\n\n1 test collected in 0.01s\n").universe.ids).toEqual(["tests/t.py::t"]);
  });

  it("reads `9 tests collected, 1 error in 0.06s` as a collection error on that line", () => {
    const nine = Array.from({ length: 9 }, (_, i) => `tests/t.py::test_${i}`).join("\n");
    const { universe } = parseOk(`${nine}\n\n9 tests collected, 1 error in 0.06s\n`);
    expect(universe.ids).toHaveLength(9);
    expect(universe.collectionErrors).toEqual([{ line: 11, text: expect.stringMatching(/1 error/) }]);
  });

  it("reads `Interrupted: 1 error` lines as collection errors", () => {
    const text =
      "tests/t.py::t\n\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n1 test collected, 1 error in 0.05s\n";
    const { universe } = parseOk(text);
    expect(universe.collectionErrors[0]).toEqual({ line: 3, text: "Interrupted: 1 error during collection" });
  });
});

describe("parseCollectOnly: broken files", () => {
  it("fewer ids than the summary counts (a hook dropped items without deselecting them): narrowed, unlisted", () => {
    const { universe } = parseOk("tests/t.py::a\ntests/t.py::b\n\n3 tests collected in 0.01s\n");
    expect(universe.ids).toEqual(["tests/t.py::a", "tests/t.py::b"]);
    expect(universe.narrowed).toMatchObject({ deselected: 0, unlisted: 1, line: 4 });
    expect(parseOk("tests/t.py::a\n\n1 test collected in 0.01s\n").universe.narrowed).toBeUndefined();
  });

  it("says the count disagrees when ids were added (edited)", () => {
    expect(onlyError("tests/t.py::a\ntests/t.py::b\n\n1 test collected in 0.01s\n").message).toMatch(
      /summary says 1 tests but the file lists 2/,
    );
  });

  it("refuses a file without the summary line (cut off)", () => {
    const issue = onlyError("tests/t.py::a\ntests/t.py::b\n");
    expect(issue.code).toBe("universe_invalid");
    expect(issue.message).toMatch(/no pytest summary line/);
  });

  it("refuses a file cut off inside the warnings summary", () => {
    const text = recorded("collect-q.txt");
    expect(onlyError(text.slice(0, text.indexOf("-- Docs"))).message).toMatch(/no pytest summary line/);
  });

  it("refuses an id after the summary line", () => {
    const issue = onlyError("tests/t.py::a\n\n1 test collected in 0.01s\ntests/t.py::late\n");
    expect(issue.code).toBe("universe_invalid");
  });

  it("refuses text after the summary line (two files concatenated)", () => {
    const text = "tests/t.py::a\n\n1 test collected in 0.01s\ntests/t.py::b\n\n1 test collected in 0.01s\n";
    const issue = onlyError(text);
    expect(issue).toMatchObject({ code: "universe_invalid", line: 4 });
    expect(issue.message).toMatch(/follows pytest's summary line/);
  });

  it("refuses a line that is not a test id, naming its line", () => {
    const issue = onlyError("tests/t.py::a\nsomething else\n\n2 tests collected in 0.01s\n");
    expect(issue).toMatchObject({ code: "universe_invalid", line: 2 });
    expect(issue.message).toContain('"something else"');
  });

  it.each([[""], ["\n\n  \n"]])("refuses an empty file (%j)", (text) => {
    const result = parseCollectOnly(text, FILE);
    expect(result.universe).toBeUndefined();
    expect(result.errors).toEqual([expect.objectContaining({ code: "file_empty", file: FILE })]);
  });

  it("refuses `no tests collected` as universe_empty", () => {
    expect(onlyError("\nno tests collected in 0.00s\n")).toMatchObject({ code: "universe_empty", line: 2 });
  });

  it("never yields a universe from a file with no summary, whatever comes before", () => {
    for (const text of ["tests/t.py::a", "collected 3 items", "==== ERRORS ====\n"]) {
      expect(parseCollectOnly(text, FILE).universe).toBeUndefined();
    }
  });
});

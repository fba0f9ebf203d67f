import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Lease } from "../ledger/ledger.js";
import { idShape, leaseShapeIssues, looksLikeVitestList, parseVitestList, vitestName } from "./universe-vitest.js";
import { mergeUniverses } from "./universe.js";

// `npx vitest list --json` of vitest 4.1.12, run in /repo (two files, nested describes, one name in both).
const recorded = readFileSync(new URL("../__fixtures__/vitest/list-4.1.12.json", import.meta.url), "utf8");

const lease = (nodeid: string, line = 7): Lease => ({
  index: 0,
  nodeid,
  owner: "o",
  reason: "r",
  expires: "2099-01-01",
  line,
});

describe("parseVitestList", () => {
  it("reads vitest 4.1.12's list as `<file> > <describe> > <test>` ids relative to the root", () => {
    expect(looksLikeVitestList(recorded)).toBe(true);
    const { universe, errors, warnings } = parseVitestList(recorded, "collected.json", "/repo");
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(universe!.runner).toBe("vitest");
    expect(universe!.ids).toEqual([
      "test/a.test.js > math > add > adds",
      "test/a.test.js > math > add > adds more",
      "test/a.test.js > math > sub",
      "test/a.test.js > top level",
      "test/b.test.js > math > sub",
    ]);
  });

  it("takes relative paths as written, and refuses a file outside the root", () => {
    const text = JSON.stringify([{ name: "t", file: "./src/x.test.ts" }]);
    expect(parseVitestList(text, "c.json", "/repo").universe!.ids).toEqual(["src/x.test.ts > t"]);
    const outside = parseVitestList(JSON.stringify([{ name: "t", file: "/elsewhere/x.test.ts" }]), "c.json", "/repo");
    expect(outside.errors[0]!.message).toMatch(
      /"\/elsewhere\/x\.test\.ts", which is not inside the repository \(\/repo\)/,
    );
    expect(
      parseVitestList(JSON.stringify([{ name: "t", file: "../x.test.ts" }]), "c.json", "/repo").errors,
    ).toHaveLength(1);
  });

  it("names what is wrong with a malformed list", () => {
    expect(parseVitestList("", "c.json").errors[0]!.code).toBe("file_empty");
    expect(parseVitestList("[", "c.json").errors[0]!.message).toMatch(/not valid JSON/);
    expect(parseVitestList('{"a":1}', "c.json").errors[0]!.message).toMatch(/not a JSON array/);
    expect(parseVitestList('[{"name":"x"}]', "c.json").errors[0]!.message).toMatch(/entry 1 is not a test/);
    expect(parseVitestList("[]", "c.json").errors[0]!.code).toBe("universe_empty");
    expect(parseVitestList('[{"name":"a","file":"x\\n.test.ts"}]', "c.json").errors[0]!.message).toMatch(/line break/);
  });

  it("a list preceded by what a test file printed at import (unjs/defu's node:test describe): says so, and how to collect", () => {
    const text =
      'TAP version 13\n# Subtest: isPlainObject\nok 1 - isPlainObject\n[\n  {\n    "name": "defu > copies",\n    "file": "/r/test/defu.test.ts"\n  }\n]\n';
    const [error] = parseVitestList(text, "collected.json", "/r").errors;
    expect(error!.message).toBe(
      'not valid JSON: the list is preceded by other output, starting "TAP version 13" (a test file that prints to stdout when vitest imports it, with stdout redirected to this file)',
    );
    expect(error!.fix).toContain("`npx vitest list --json=collected.json`");
  });

  it("reads a tab or line break in a name as JUnit XML does, a space; two names that then agree count once", () => {
    // vitest 4.1.12's own output for it.each([["a\\nb"], ["a b"]])("name %s") inside describe("d\\tx").
    const text = JSON.stringify([
      { name: "d\tx > name a\nb", file: "/repo/t/a.test.js" },
      { name: "d\tx > name a b", file: "/repo/t/a.test.js" },
      { name: "crlf a\r\nb", file: "/repo/t/a.test.js" },
    ]);
    const { universe, errors, warnings } = parseVitestList(text, "c.json", "/repo");
    expect(errors).toEqual([]);
    expect(universe!.ids).toEqual(["t/a.test.js > d x > name a b", "t/a.test.js > crlf a b"]);
    expect(warnings[0]!.message).toMatch(/1 test id\(s\) listed more than once/);
    // JUnit of the same run: the literal line break inside the attribute reads the same.
    expect(vitestName("d\tx > name a\nb")).toBe("d x > name a b");
  });

  it("drops what vitest's JUnit reporter drops (controls, U+FFFD, lone surrogates), so both name a test alike", () => {
    // vitest 4.1.12: it("a\\x01b"), it("c\\x7fd"), it("e\\uFFFDf") are listed as written, and its JUnit
    // names them "ab", "cd", "ef".
    const text = JSON.stringify([
      { name: "a\u0001b", file: "/r/t.test.js" },
      { name: "c\u007fd", file: "/r/t.test.js" },
      { name: "e\ufffdf", file: "/r/t.test.js" },
      { name: "g\ud800h \u{1fffe}i \u{1f600}", file: "/r/t.test.js" },
    ]);
    expect(parseVitestList(text, "c.json", "/r").universe!.ids).toEqual([
      "t.test.js > ab",
      "t.test.js > cd",
      "t.test.js > ef",
      "t.test.js > gh i \u{1f600}",
    ]);
    expect(vitestName("tab\there \u0085next")).toBe("tab here \u0085next");
    // The JUnit reader trims an attribute's value: `it.each` of " " ends a name with blanks.
    expect(vitestName("d > deselect --freeze  ")).toBe("d > deselect --freeze");
  });

  it("warns once for two tests with the same name path in one file", () => {
    const text = JSON.stringify([
      { name: "d > t", file: "/repo/x.test.ts" },
      { name: "d > t", file: "/repo/x.test.ts" },
    ]);
    const { universe, warnings } = parseVitestList(text, "c.json", "/repo");
    expect(universe!.ids).toEqual(["x.test.ts > d > t"]);
    expect(warnings[0]!.message).toMatch(/listed more than once/);
  });

  it("keeps the runner through mergeUniverses (shards)", () => {
    const a = parseVitestList(JSON.stringify([{ name: "t", file: "a.test.ts" }]), "1.json").universe!;
    const b = parseVitestList(JSON.stringify([{ name: "t", file: "b.test.ts" }]), "2.json").universe!;
    expect(mergeUniverses([a, b]).runner).toBe("vitest");
  });
});

describe("lease ids of the other runner's shape", () => {
  it("tells pytest's and vitest's ids apart", () => {
    expect(idShape("tests/test_a.py::test_x")).toBe("pytest");
    expect(idShape("tests/test_a.py::TestA::test_x[a > b]")).toBe("pytest");
    expect(idShape("test/a.test.ts > math > adds")).toBe("vitest");
    expect(idShape("src/x.spec.tsx > a::b")).toBe("vitest");
    expect(idShape("whatever")).toBeUndefined();
  });

  it("is an error naming the ledger's line and the fix", () => {
    const [issue] = leaseShapeIssues([lease("tests/test_a.py::test_x")], "vitest", "freeze.toml");
    expect(issue).toMatchObject({ code: "ledger_invalid", file: "freeze.toml", line: 7 });
    expect(issue!.message).toMatch(/is a pytest test id, but this project's tests run under vitest/);
    expect(issue!.fix).toMatch(/`<file> > <describe> > <test>`/);
    expect(leaseShapeIssues([lease("test/a.test.ts > t")], "pytest", "freeze.toml")[0]!.message).toMatch(
      /is a vitest test id, but this project's tests run under pytest/,
    );
    expect(leaseShapeIssues([lease("test/a.test.ts > t")], "vitest", "freeze.toml")).toEqual([]);
  });
});

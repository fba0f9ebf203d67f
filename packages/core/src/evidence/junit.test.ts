import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../common/errors.js";
import {
  mergeJunitResults,
  parseJunitXml,
  pytestJunitNames,
  universeFromJunit,
  type JunitParseOptions,
  type TestResult,
} from "./junit.js";
import { parseCollectOnly } from "./universe.js";

/** Recorded output of real tools (see __fixtures__/junit/README.md). */
const recorded = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/junit/${name}`, import.meta.url), "utf8");
const universe = parseCollectOnly(recorded("pytest-7.2.1-collect-q.txt"), "collected.txt").universe!;

function parseOk(name: string, options?: JunitParseOptions) {
  const result = parseJunitXml(recorded(name), name, options);
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.results).toBeDefined();
  return { results: result.results!, warnings: result.warnings, producer: result.producer };
}

function onlyError(text: string, options?: JunitParseOptions) {
  const result = parseJunitXml(text, "results.xml", options);
  expect(result.results).toBeUndefined();
  expect(result.errors).toHaveLength(1);
  expect(result.errors[0]!.file).toBe("results.xml");
  expect(result.errors[0]!.fix).toBeTruthy();
  return result.errors[0]!;
}

const outcomes = (results: readonly TestResult[]): [string, string][] => results.map((r) => [r.id, r.outcome]);

/** The pytest project's 21 tests and what they did, in the order pytest ran them. */
const PYTEST_OUTCOMES: [string, string][] = [
  ["tests/test_a.py::test_pass", "passed"],
  ["tests/test_a.py::test_fail", "failed"],
  ["tests/test_a.py::test_error", "error"],
  ["tests/test_a.py::test_skip", "skipped"],
  ["tests/test_a.py::test_skip_inside", "skipped"],
  ["tests/test_a.py::test_xfail", "xfail"],
  ["tests/test_a.py::test_xpass", "passed"],
  ["tests/test_a.py::test_param[a b]", "passed"],
  ["tests/test_a.py::test_param[caf\\xe9]", "passed"],
  ["tests/test_a.py::test_param[na\\xefve \\xfcmlaut]", "passed"],
  ["tests/test_a.py::test_param[x,y]", "failed"],
  ["tests/test_a.py::test_param[<&>]", "passed"],
  ["tests/test_a.py::TestK::test_m", "passed"],
  ["tests/test_a.py::TestK::test_round[1]", "passed"],
  ["tests/test_a.py::TestK::test_round[2]", "failed"],
  ["tests/test_a.py::TestK::TestInner::test_deep", "passed"],
  ["tests/test_c.py::test_fail_and_teardown_error", "error"],
  ["tests/test_c.py::test_xpass_strict", "failed"],
  ["tests/test_plain.py::test_pass", "passed"],
  ["tests/sub/test_b.py::test_b", "passed"],
  ["tests/sub/test_b.py::test_teardown_err", "error"],
];

describe("parseJunitXml: pytest 7.2 xunit1", () => {
  it("maps every testcase to its nodeid through the file attribute, with outcomes", () => {
    const { results, warnings, producer } = parseOk("pytest-7.2.1-xunit1.xml");
    expect(producer).toBe("pytest");
    expect(warnings).toEqual([]);
    expect(outcomes(results)).toEqual(PYTEST_OUTCOMES);
    expect(results.every((r) => r.mapping === "file" && !r.collectionError)).toBe(true);
  });

  it("every id is one the universe collected, so xunit1 can serve as the universe", () => {
    const { results } = parseOk("pytest-7.2.1-xunit1.xml");
    const parsed = universeFromJunit(results, "pytest-7.2.1-xunit1.xml");
    expect(parsed.errors).toEqual([]);
    expect(parsed.universe!.ids).toEqual(universe.ids);
    expect(parsed.universe).toMatchObject({
      file: "pytest-7.2.1-xunit1.xml",
      duplicates: [],
      collectionErrors: [],
      summaryCount: 21,
    });
  });

  it("keeps messages and points at the testcase's line", () => {
    const { results } = parseOk("pytest-7.2.1-xunit1.xml");
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get("tests/test_a.py::test_fail")).toMatchObject({
      message: "AssertionError: one is not two",
      line: 1,
      classname: "tests.test_a",
      name: "test_fail",
    });
    expect(byId.get("tests/test_a.py::test_xfail")).toMatchObject({ outcome: "xfail", message: "known bug" });
    expect(byId.get("tests/test_a.py::test_skip")).toMatchObject({ outcome: "skipped", message: "not today" });
    expect(byId.get("tests/test_a.py::TestK::test_round[2]")).toMatchObject({
      classname: "tests.test_a.TestK",
      name: "test_round[2]",
      message: "assert 2 == 1",
    });
    const line = byId.get("tests/test_a.py::TestK::test_round[2]")!.line;
    expect(recorded("pytest-7.2.1-xunit1.xml").split("\n")[line - 1]).toContain('name="test_round[2]"');
  });

  it("a failed call plus a teardown error (two <testcase> for one id) counts once, as error, without a warning", () => {
    const { results, warnings } = parseOk("pytest-7.2.1-xunit1.xml");
    const twice = results.filter((r) => r.id === "tests/test_c.py::test_fail_and_teardown_error");
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatchObject({
      outcome: "error",
      message: 'failed on teardown with "ValueError: teardown after failure"',
    });
    expect(recorded("pytest-7.2.1-xunit1.xml").match(/name="test_fail_and_teardown_error"/g)).toHaveLength(2);
    expect(warnings).toEqual([]);
  });

  it("a test inherited from a base class in another file: the file attribute does not fit, so the id is guessed, with a warning", () => {
    // pytest's file attribute is where the function is defined; the classname follows the nodeid.
    const xml =
      '<testsuites><testsuite name="pytest"><testcase classname="tests.test_child.TestChild" name="test_inherited" file="tests/base.py" line="3"/></testsuite></testsuites>';
    const result = parseJunitXml(xml, "r.xml");
    expect(result.results).toMatchObject([
      { id: "tests/test_child.py::TestChild::test_inherited", mapping: "guessed" },
    ]);
    expect(result.warnings).toHaveLength(1);
    const resolved = parseJunitXml(xml, "r.xml", { universe: ["tests/test_child.py::TestChild::test_inherited"] });
    expect(resolved.results).toMatchObject([
      { id: "tests/test_child.py::TestChild::test_inherited", mapping: "universe" },
    ]);
    expect(resolved.warnings).toEqual([]);
  });

  it("checks the file attribute's ids against a universe when one is given", () => {
    const { results, warnings } = parseOk("pytest-7.2.1-xunit1.xml", { universe });
    expect(warnings).toEqual([]);
    expect(outcomes(results)).toEqual(PYTEST_OUTCOMES);
  });

  it("a module that failed to import is a collection error with the module's path as id", () => {
    const { results, warnings } = parseOk("pytest-7.2.1-xunit1-collection-error.xml");
    expect(warnings).toEqual([]);
    expect(results).toEqual([
      {
        id: "tests/test_broken.py",
        outcome: "error",
        file: "pytest-7.2.1-xunit1-collection-error.xml",
        line: 1,
        classname: "",
        name: "tests.test_broken",
        mapping: "file",
        collectionError: true,
        message: "collection failure",
      },
    ]);
    const parsed = universeFromJunit(results, "r.xml");
    expect(parsed.universe!.collectionErrors).toEqual([{ line: 1, text: "tests/test_broken.py: collection failure" }]);
  });
});

describe("parseJunitXml: pytest 7.2 module-level skips (`pytest.skip(allow_module_level=True)`, `importorskip`)", () => {
  const skipUniverse = parseCollectOnly(recorded("pytest-7.2.1-module-skip-collect-q.txt"), "c.txt").universe!;

  it.each([
    ["pytest-7.2.1-xunit1-module-skip.xml", "file"],
    ["pytest-7.2.1-xunit2-module-skip.xml", "guessed"],
  ])("%s: the collection-skipped entry is the module's skip, its reason read from pytest's text", (file, mapping) => {
    // xunit2 carries no file attribute: without a universe every id is guessed (and says so).
    for (const options of mapping === "file" ? [{}, { universe: skipUniverse }] : [{ universe: skipUniverse }]) {
      const { results, warnings } = parseOk(file, options);
      expect(warnings).toEqual([]);
      const modules = results.filter((r) => r.collectionSkip === true);
      expect(modules.map((r) => [r.id, r.outcome, r.mapping, r.collectionError, r.message])).toEqual([
        ["tests/test_c.py", "skipped", mapping, false, "collection skipped: not on this platform"],
        [
          "tests/test_e.py",
          "skipped",
          mapping,
          false,
          "collection skipped: could not import 'no_such_module_here': No module named 'no_such_module_here'",
        ],
      ]);
      expect(outcomes(results.filter((r) => r.collectionSkip !== true))).toEqual([
        ["tests/test_a.py::test_one", "passed"],
        ["tests/test_d.py::test_s", "skipped"],
        ["tests/test_d.py::test_xf", "xfail"],
        ["tests/test_d.py::test_b", "skipped"],
      ]);
    }
  });

  it("a universe made from the results holds no module as a test: pytest collected none of it", () => {
    const { results } = parseOk("pytest-7.2.1-xunit1-module-skip.xml");
    expect(universeFromJunit(results, "r.xml").universe!.ids).toEqual(skipUniverse.ids);
  });
});

describe("parseJunitXml: pytest 7.2 xunit2 (no file attribute)", () => {
  it("resolves every classname and name against the universe, exactly", () => {
    const { results, warnings } = parseOk("pytest-7.2.1-xunit2.xml", { universe });
    expect(warnings).toEqual([]);
    expect(outcomes(results)).toEqual(PYTEST_OUTCOMES);
    expect(results.every((r) => r.mapping === "universe")).toBe(true);
  });

  it("accepts the universe as a plain id list too", () => {
    const { results } = parseOk("pytest-7.2.1-xunit2.xml", { universe: universe.ids });
    expect(outcomes(results)).toEqual(PYTEST_OUTCOMES);
  });

  it("without a universe, guesses (classes are the capitalised segments) and says so in one warning", () => {
    const { results, warnings } = parseOk("pytest-7.2.1-xunit2.xml");
    expect(outcomes(results)).toEqual(PYTEST_OUTCOMES);
    expect(results.every((r) => r.mapping === "guessed")).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(
      /^21 pytest testcase\(s\) carry no file attribute \(xunit2\) and no universe was given, so their nodeids are guessed/,
    );
    expect(warnings[0]!.fix).toMatch(/collect-only -q.*junit_family=xunit1/);
  });

  it("guessed ids cannot serve as the universe", () => {
    const { results } = parseOk("pytest-7.2.1-xunit2.xml");
    const parsed = universeFromJunit(results, "x.xml");
    expect(parsed.universe).toBeUndefined();
    expect(parsed.errors[0]).toMatchObject({ code: "universe_invalid", file: "x.xml" });
    expect(parsed.errors[0]!.message).toMatch(/21 test id\(s\) could only be guessed/);
  });

  it("a testcase no collected id maps to is a warning that names it, never a silent guess", () => {
    const small = parseCollectOnly("tests/test_a.py::test_pass\n\n1 test collected in 0.01s\n", "c.txt").universe!;
    const { results, warnings } = parseOk("pytest-7.2.1-xunit2.xml", { universe: small });
    expect(results[0]).toMatchObject({ id: "tests/test_a.py::test_pass", mapping: "universe" });
    expect(results.filter((r) => r.mapping === "guessed")).toHaveLength(20);
    expect(warnings).toHaveLength(20);
    expect(warnings[0]).toMatchObject({
      line: 1,
      message:
        'no collected test maps to classname "tests.test_a" name "test_fail"; kept as tests/test_a.py::test_fail',
    });
  });

  it("a mapping that two collected ids share is an error naming both", () => {
    // `tests/a.b/test_x.py` and `tests/a/b/test_x.py` both mangle to classname tests.a.b.test_x.
    const ids = ["tests/a.b/test_x.py::test_one", "tests/a/b/test_x.py::test_one"];
    const xml =
      '<testsuites><testsuite name="pytest"><testcase classname="tests.a.b.test_x" name="test_one" time="0"/></testsuite></testsuites>';
    const issue = onlyError(xml, { universe: ids });
    expect(issue.message).toBe(
      'testcase classname "tests.a.b.test_x" name "test_one" matches 2 collected ids (tests/a.b/test_x.py::test_one, tests/a/b/test_x.py::test_one): proofgate will not pick one',
    );
    expect(issue.line).toBe(1);
    // xunit1's file attribute tells them apart.
    const xunit1 = xml.replace('time="0"', 'file="tests/a/b/test_x.py" time="0"');
    expect(parseJunitXml(xunit1, "r.xml", { universe: ids }).results).toMatchObject([
      { id: "tests/a/b/test_x.py::test_one", mapping: "file" },
    ]);
  });

  it("a collection error without a universe entry is kept, flagged, with the module's path", () => {
    const { results } = parseOk("pytest-7.2.1-xunit2-collection-error.xml", {
      universe: ["tests/test_ok.py::test_ok"],
    });
    expect(results.map((r) => [r.id, r.outcome, r.collectionError])).toEqual([
      ["tests/test_broken.py", "error", true],
      ["tests/test_ok.py::test_ok", "passed", false],
    ]);
  });
});

describe("pytestJunitNames (pytest's mangle_test_address)", () => {
  it.each([
    ["tests/test_a.py::TestK::test_m[a b]", "tests.test_a.TestK", "test_m[a b]"],
    ["tests/test_a.py::test_p[x::y/z.py]", "tests.test_a", "test_p[x::y/z.py]"],
    ["tests/sub/test_b.py::test_b", "tests.sub.test_b", "test_b"],
    ["tests/test_a.py::TestK::TestInner::test_deep", "tests.test_a.TestK.TestInner", "test_deep"],
    ["tests/test_a.py::test_c[\u0001]", "tests.test_a", "test_c[#x01]"],
  ])("%s -> %s / %s", (nodeid, classname, name) => {
    expect(pytestJunitNames(nodeid)).toEqual({ classname, name });
  });
});

describe("parseJunitXml: vitest 4.1.12 junit reporter", () => {
  it("ids are `<file>::<describe > test>`; todo and skip are skipped, it.fails passed", () => {
    const { results, warnings, producer } = parseOk("vitest-4.1.12-junit.xml");
    expect(producer).toBe("vitest");
    expect(warnings).toEqual([]);
    expect(results.map((r) => [r.id, r.outcome, r.collectionError])).toEqual([
      ["src/broken.test.js", "failed", true],
      ["src/math.test.js > math > adds", "passed", false],
      ['src/math.test.js > math > fails <here> & "there"', "failed", false],
      ["src/math.test.js > math > skipped one", "skipped", false],
      ["src/math.test.js > math > todo one", "skipped", false],
      ["src/math.test.js > math > expected to fail", "passed", false],
      ["src/math.test.js > math > nested > param a b", "passed", false],
      ["src/math.test.js > math > nested > param café", "passed", false],
      ["src/math.test.js > math > nested > param naïve ümlaut", "passed", false],
      ["src/math.test.js > top level", "passed", false],
      ["src/sub/other.test.js > other passes", "passed", false],
      ["src/sub/other.test.js > throws non-assertion", "failed", false],
    ]);
    expect(results[2]).toMatchObject({
      line: 17,
      message: "expected 2 to be 3 // Object.is equality",
      mapping: "direct",
    });
    expect(results[0]!.message).toBe(
      "Cannot find module './does-not-exist.js' imported from /tmp/pgjunit/vt/src/broken.test.js",
    );
  });

  it("serves as a universe: the file that failed to import is a collection error", () => {
    const { results } = parseOk("vitest-4.1.12-junit.xml");
    const { universe: u, errors } = universeFromJunit(results, "vitest.xml");
    expect(errors).toEqual([]);
    expect(u!.ids).toHaveLength(11);
    expect(u!.collectionErrors).toEqual([
      {
        line: 4,
        text: "src/broken.test.js: Cannot find module './does-not-exist.js' imported from /tmp/pgjunit/vt/src/broken.test.js",
      },
    ]);
  });
});

describe("parseJunitXml: jest-junit (hand-written in its documented default shape)", () => {
  it("ids are `<suite>::<name>`; a suite that failed to run is a collection error", () => {
    const { results, warnings, producer } = parseOk("jest-junit-handwritten.xml");
    expect(producer).toBe("jest-junit");
    expect(warnings).toEqual([]);
    expect(results.map((r) => [r.id, r.outcome, r.collectionError])).toEqual([
      ["math::math adds", "passed", false],
      ['math::math fails <here> & "there"', "failed", false],
      ["math::math skipped one", "skipped", false],
      ["math::math nested param café", "passed", false],
      ["math::math nested param naïve ümlaut", "passed", false],
      ["src/broken.test.js", "error", true],
    ]);
    expect(results[1]!.message).toBe("Error: expect(received).toBe(expected) // Object.is equality");
  });

  it("uses the file attribute when jest-junit writes one (addFileAttribute)", () => {
    const xml =
      '<testsuites name="jest tests"><testsuite name="math"><testcase classname="math adds" name="math adds" file="src/math.test.js" time="0"/></testsuite></testsuites>';
    expect(parseJunitXml(xml, "r.xml").results).toMatchObject([
      { id: "src/math.test.js::math adds", outcome: "passed" },
    ]);
  });

  it("the same name twice (no file attribute) warns and the worse outcome counts", () => {
    const xml =
      '<testsuites name="jest tests"><testsuite name="a"><testcase classname="a t" name="a t"/></testsuite><testsuite name="a"><testcase classname="a t" name="a t"><failure>x</failure></testcase></testsuite></testsuites>';
    const result = parseJunitXml(xml, "r.xml");
    expect(result.results).toMatchObject([{ id: "a::a t", outcome: "failed" }]);
    expect(result.warnings[0]!.message).toBe("a::a t appears again (first at line 1); the worse outcome counts");
    expect(result.warnings[0]!.fix).toMatch(/addFileAttribute/);
  });
});

describe("parseJunitXml: roots and other producers", () => {
  it("reads a bare <testsuite> root", () => {
    const xml =
      '<?xml version="1.0"?>\n<testsuite name="pytest">\n  <testcase classname="tests.test_a" name="test_pass" file="tests/test_a.py"/>\n  <testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py"><skipped type="pytest.skip" message="no"/></testcase>\n</testsuite>\n';
    const result = parseJunitXml(xml, "r.xml");
    expect(result.errors).toEqual([]);
    expect(result.results!.map((r) => [r.id, r.outcome, r.line])).toEqual([
      ["tests/test_a.py::test_pass", "passed", 3],
      ["tests/test_a.py::test_skip", "skipped", 4],
    ]);
  });

  it("an unknown producer gives `<classname>::<name>` ids and a warning", () => {
    const xml =
      '<testsuites><testsuite name="suite"><testcase classname="com.acme.FooTest" name="bar"/></testsuite></testsuites>';
    const result = parseJunitXml(xml, "r.xml");
    expect(result.producer).toBe("junit");
    expect(result.results).toMatchObject([{ id: "com.acme.FooTest::bar", mapping: "direct" }]);
    expect(result.warnings[0]!.message).toMatch(/could not tell which tool wrote this JUnit XML/);
  });

  it("the producer can be given: pytest with a renamed suite and no skips", () => {
    const xml =
      '<testsuites><testsuite name="my-suite"><testcase classname="tests.test_a" name="test_pass" file="tests/test_a.py"/></testsuite></testsuites>';
    expect(parseJunitXml(xml, "r.xml", { producer: "pytest" }).results).toMatchObject([
      { id: "tests/test_a.py::test_pass", mapping: "file" },
    ]);
  });

  it("decodes character references in names", () => {
    const xml =
      '<testsuites name="vitest tests"><testsuite name="a.test.js"><testcase classname="a.test.js" name="caf&#233; &#x263A; &apos;q&apos;"/></testsuite></testsuites>';
    expect(parseJunitXml(xml, "r.xml").results![0]!.id).toBe("a.test.js > café ☺ 'q'");
  });

  it("reads a vitest name's literal tab or line break as a space, as `vitest list` ids hold it", () => {
    // vitest 4.1.12 writes them literally inside the attribute (it.each of "a\\nb", describe "d\\tx").
    const xml =
      '<testsuites name="vitest tests"><testsuite name="t/a.test.js"><testcase classname="t/a.test.js" name="d\tx &gt; name a\nb"/><testcase classname="t/a.test.js" name="crlf a\r\nb"/></testsuite></testsuites>';
    expect(parseJunitXml(xml, "r.xml").results!.map((r) => r.id)).toEqual([
      "t/a.test.js > d x > name a b",
      "t/a.test.js > crlf a b",
    ]);
  });
});

describe("parseJunitXml: bad input", () => {
  it("refuses a DOCTYPE with entity declarations, and never expands them", () => {
    const xml =
      '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;">\n]>\n<testsuites><testsuite name="pytest"><testcase classname="t" name="&lol2;"/></testsuite></testsuites>';
    const issue = onlyError(xml);
    expect(issue).toMatchObject({ code: "results_invalid", line: 2 });
    expect(issue.message).toMatch(/DOCTYPE declaration: proofgate never expands XML entities/);
  });

  it("a DOCTYPE inside CDATA or escaped in text is test output, not a declaration", () => {
    const xml =
      '<testsuites name="jest tests"><testsuite name="a"><testcase classname="a t" name="a t"><failure>expected &lt;!DOCTYPE html&gt;</failure></testcase><system-out><![CDATA[<!DOCTYPE html><!ENTITY x "y">]]></system-out></testsuite></testsuites>';
    const result = parseJunitXml(xml, "r.xml");
    expect(result.errors).toEqual([]);
    expect(result.results).toMatchObject([{ id: "a::a t", outcome: "failed", message: "expected <!DOCTYPE html>" }]);
  });

  it("refuses an external entity (XXE) declaration", () => {
    const xml =
      '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<testsuites><testsuite><testcase classname="a" name="&x;"/></testsuite></testsuites>';
    expect(onlyError(xml).message).toMatch(/never expands/);
  });

  it("an undeclared entity reference is an error, not text", () => {
    const xml =
      '<testsuites name="vitest tests"><testsuite name="a"><testcase classname="a" name="x &foo; y"/></testsuite></testsuites>';
    expect(onlyError(xml).message).toMatch(/attribute name has an undeclared entity reference/);
  });

  it("a truncated file says so, at its last line", () => {
    const text = recorded("vitest-4.1.12-junit.xml");
    const cut = text.slice(0, text.indexOf("</testsuite>", 1500));
    const issue = onlyError(cut);
    expect(issue.message).toMatch(/the file looks truncated/);
    expect(issue.line).toBe(cut.split("\n").length);
  });

  it("a file cut inside a tag is truncated too", () => {
    const text = recorded("pytest-7.2.1-xunit1.xml");
    expect(onlyError(text.slice(0, 300)).message).toMatch(/truncated/);
  });

  it("malformed XML reports the parser's line", () => {
    const issue = onlyError(
      '<testsuites>\n<testsuite name="pytest">\n<testcase name="a"></testcase>\n</testsuites>\n</testsuite>',
    );
    expect(issue.message).toMatch(/^not well-formed XML: Expected closing tag 'testsuite'/);
    expect(issue.line).toBe(4);
  });

  it("a root that is neither <testsuites> nor <testsuite>", () => {
    const issue = onlyError('<?xml version="1.0"?>\n<coverage line-rate="1"/>');
    expect(issue.message).toBe(
      "the root element is <coverage>, neither <testsuites> nor <testsuite>: this is not JUnit XML",
    );
    expect(issue.line).toBe(2);
  });

  it("two roots", () => {
    expect(onlyError("<testsuites/><testsuites/>").message).toMatch(/2 root elements/);
  });

  it("an empty file, and a file with no testcase", () => {
    expect(onlyError("  \n").code).toBe("file_empty");
    expect(onlyError('<testsuites name="vitest tests" tests="0"></testsuites>').message).toMatch(/no <testcase>/);
  });

  it("not XML at all", () => {
    expect(onlyError("tests/test_a.py::test_pass\n").message).toMatch(/^not well-formed XML/);
  });

  it("a testcase without a name", () => {
    expect(
      onlyError('<testsuites name="vitest tests"><testsuite><testcase classname="a"/></testsuite></testsuites>')
        .message,
    ).toBe("a <testcase> without a name");
  });
});

describe("mergeJunitResults: shards", () => {
  const shard = (name: string): TestResult[] => parseOk(name, { universe }).results;

  it("two real pytest shards union to the whole run", () => {
    const merged = mergeJunitResults([
      shard("pytest-7.2.1-xunit2-shard1.xml"),
      shard("pytest-7.2.1-xunit2-shard2.xml"),
    ]);
    expect(merged.errors).toEqual([]);
    expect(merged.warnings).toEqual([]);
    expect(new Map(outcomes(merged.results!))).toEqual(new Map(PYTEST_OUTCOMES));
    expect(merged.results!.find((r) => r.id === "tests/test_plain.py::test_pass")!.file).toBe(
      "pytest-7.2.1-xunit2-shard2.xml",
    );
  });

  it("the same id with different outcomes in two shards is an error naming both files", () => {
    const a = shard("pytest-7.2.1-xunit2-shard1.xml");
    const b = a.map((r) =>
      r.id === "tests/test_a.py::test_fail"
        ? { ...r, outcome: "passed" as const, file: "other.xml", line: 7 }
        : { ...r, file: "other.xml" },
    );
    const merged = mergeJunitResults([a, b.filter((r) => r.id === "tests/test_a.py::test_fail")]);
    expect(merged.results).toBeUndefined();
    expect(merged.errors).toHaveLength(1);
    expect(merged.errors[0]).toMatchObject({ code: "results_invalid", file: "other.xml", line: 7 });
    expect(merged.errors[0]!.message).toBe(
      "tests/test_a.py::test_fail is failed in pytest-7.2.1-xunit2-shard1.xml:1 but passed in other.xml:7: the shards disagree",
    );
  });

  it("the same id with the same outcome in two shards counts once, with a warning", () => {
    const a = shard("pytest-7.2.1-xunit2-shard2.xml");
    const merged = mergeJunitResults([a, a.map((r) => ({ ...r, file: "again.xml" }))]);
    expect(merged.results).toHaveLength(a.length);
    expect(merged.warnings).toHaveLength(a.length);
    expect(merged.warnings[0]!.message).toMatch(
      / is in pytest-7.2.1-xunit2-shard2.xml:\d+ and again.xml:\d+ \(both \w+\); counted once$/,
    );
  });
});

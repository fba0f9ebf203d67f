import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { summarizeCoverage, type CoverageData, type FileCoverage } from "./coverage-model.js";
import { formatIssue } from "../common/errors.js";
import { readCobertura } from "./cobertura-reader.js";
import { readCoveragePyJson } from "./coveragepy-json-reader.js";

/** Real coverage.py output, see __fixtures__/README.md. The XML's `<source>` is /tmp/pgcov-py. */
const recorded = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const FILE = "coverage.xml";

function readOk(text: string, root?: string): CoverageData {
  const result = readCobertura(text, FILE, root === undefined ? {} : { root });
  expect(result.errors.map(formatIssue)).toEqual([]);
  expect(result.warnings).toEqual([]);
  return result.data!;
}

function errorsOf(text: string): string[] {
  const result = readCobertura(text, FILE);
  expect(result.data).toBeUndefined();
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.code).toBe("coverage_invalid");
    expect(e.file).toBe(FILE);
    expect(e.fix).toBeTruthy();
  }
  return result.errors.map(formatIssue);
}

const entry = (data: CoverageData, path: string): FileCoverage => data.files.get(path) as FileCoverage;
const lines = (set: Set<string>): number[] => [...set].map(Number).sort((a, b) => a - b);

describe("readCobertura: coverage.py's XML", () => {
  it.each([
    ["cobertura-coveragepy-6.5-branch.xml", "coveragepy-6.5-branch.json"],
    ["cobertura-coveragepy-6.5-lines.xml", "coveragepy-6.5-lines.json"],
    ["cobertura-coveragepy-6.5-shard1.xml", "coveragepy-6.5-shard1.json"],
    ["cobertura-coveragepy-6.5-shard2.xml", "coveragepy-6.5-shard2.json"],
    ["cobertura-coveragepy-7.16.2-branch.xml", "coveragepy-7.16.2-branch.json"],
  ])("%s: the totals of %s, file by file", (xml, json) => {
    const data = readOk(recorded(xml), "/tmp/pgcov-py");
    const reference = readCoveragePyJson(recorded(json), "coverage.json").data!;
    expect(data.format).toBe("cobertura");
    expect(data.hasBranches).toBe(reference.hasBranches);
    expect(summarizeCoverage(data)).toEqual(summarizeCoverage(reference));
    expect([...data.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    for (const [path, ref] of reference.files) {
      const r = ref as FileCoverage;
      const fc = entry(data, path);
      expect([fc.statements.size, fc.coveredStatements.size, fc.branches.size, fc.coveredBranches.size]).toEqual([
        r.statements.size,
        r.coveredStatements.size,
        r.branches.size,
        r.coveredBranches.size,
      ]);
    }
  });

  it("lists the exact statements (6.5's XML equals 7.16.2's JSON, docstrings left out), branches from condition-coverage", () => {
    const xml = readOk(recorded("cobertura-coveragepy-6.5-branch.xml"));
    const exact = readCoveragePyJson(recorded("coveragepy-7.16.2-branch.json"), "coverage.json").data!;
    for (const [path, ref] of exact.files) {
      expect(lines(entry(xml, path).statements)).toEqual(lines((ref as FileCoverage).statements));
      expect(lines(entry(xml, path).coveredStatements)).toEqual(lines((ref as FileCoverage).coveredStatements));
    }
    const cart = entry(xml, "shop/cart.py");
    // <line number="4" hits="1" branch="true" condition-coverage="50% (1/2)" missing-branches="5"/>
    expect([...cart.branches].filter((k) => k.startsWith("4:"))).toEqual(["4:0", "4:1"]);
    expect([...cart.coveredBranches].filter((k) => k.startsWith("4:"))).toEqual(["4:0"]);
  });

  it("paths: the source joined and made relative to root; kept as written when the source is elsewhere or relative", () => {
    const text = recorded("cobertura-coveragepy-6.5-lines.xml");
    expect([...readOk(text, "/tmp").files.keys()]).toContain("pgcov-py/shop/cart.py");
    expect([...readOk(text, "/elsewhere").files.keys()]).toContain("shop/cart.py");
    expect([...readOk(text).files.keys()]).toContain("shop/cart.py");
    const relative = text.replace("<source>/tmp/pgcov-py</source>", "<source>src</source>");
    expect([...readOk(relative).files.keys()]).toContain("src/shop/cart.py");
    const absolute = text.replace('filename="shop/cart.py"', 'filename="/tmp/pgcov-py/shop/cart.py"');
    expect([...readOk(absolute, "/tmp/pgcov-py").files.keys()].sort()).toEqual([
      "shop/__init__.py",
      "shop/cart.py",
      "shop/util/__init__.py",
      "shop/util/fmt.py",
    ]);
  });

  it("a bare external DOCTYPE (as Cobertura and gcovr write it) is neither fetched nor refused", () => {
    const text = recorded("cobertura-coveragepy-6.5-lines.xml").replace(
      '<?xml version="1.0" ?>',
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE coverage SYSTEM 'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>",
    );
    expect(summarizeCoverage(readOk(text)).statements).toBe(30);
  });
});

describe("readCobertura: bad input", () => {
  const xml = recorded("cobertura-coveragepy-6.5-branch.xml");

  it("an entity declaration is refused, never expanded: billion laughs fails fast", () => {
    const laughs = [
      '<?xml version="1.0"?>',
      "<!DOCTYPE coverage [",
      '  <!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `  <!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`),
      "]>",
      '<coverage version="1"><sources><source>&lol9;</source></sources><packages/></coverage>',
    ].join("\n");
    const started = performance.now();
    const errors = errorsOf(laughs);
    expect(performance.now() - started).toBeLessThan(50);
    expect(errors).toEqual([
      expect.stringMatching(
        /^coverage\.xml:2: the XML declares entities or a DTD subset .*refused, proofgate never expands entities/,
      ),
    ]);
  });

  it("an external entity (XXE) and an entity declared anywhere are refused too", () => {
    const xxe = xml
      .replace(
        '<?xml version="1.0" ?>',
        '<?xml version="1.0" ?>\n<!DOCTYPE coverage [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
      )
      .replace("<source>/tmp/pgcov-py</source>", "<source>&xxe;</source>");
    expect(errorsOf(xxe)[0]).toMatch(/^coverage\.xml:2: the XML declares entities/);
    expect(errorsOf(`${xml}\n<!ENTITY x "y">`)[0]).toMatch(/declares entities/);
  });

  it("only XML's predefined entities and character references are decoded, once, in paths", () => {
    const text = recorded("cobertura-coveragepy-6.5-lines.xml").replace(
      'filename="shop/cart.py"',
      'filename="shop/c&amp;rt&#233;&amp;lt;.py"',
    );
    expect([...readOk(text).files.keys()]).toContain("shop/c&rt\u00e9&lt;.py");
    expect([...readOk(text.replace("&amp;rt", "&undeclared;rt")).files.keys()]).toContain(
      "shop/c&undeclared;rt\u00e9&lt;.py",
    );
  });

  it("empty, truncated, not well-formed", () => {
    expect(errorsOf("")).toEqual([expect.stringContaining("empty")]);
    expect(errorsOf(xml.slice(0, xml.indexOf('<line number="8"')))[0]).toMatch(
      /^coverage\.xml:\d+: not well-formed XML .*truncated/,
    );
    expect(errorsOf("<coverage><packages></coverage>")[0]).toMatch(/not well-formed XML/);
  });

  it("wrong schema: another root, no packages, a class without filename", () => {
    expect(errorsOf('<?xml version="1.0"?>\n<report name="jacoco"/>')).toEqual([
      expect.stringContaining("no `<coverage>` root element"),
    ]);
    expect(errorsOf('<coverage version="1"><sources/></coverage>')).toEqual([
      expect.stringContaining("has no `<packages>`"),
    ]);
    expect(errorsOf(xml.replace(' filename="shop/util/fmt.py"', ""))).toEqual([
      expect.stringMatching(/^coverage\.xml:48: a `<class>` has no `filename`/),
    ]);
  });

  it("negative and NaN hits, bad condition-coverage, with their line", () => {
    expect(errorsOf(xml.replace('<line number="5" hits="0"/>', '<line number="5" hits="-1"/>'))).toEqual([
      expect.stringMatching(/^coverage\.xml:24: line 5 of `shop\/cart\.py` has hits "-1": negative/),
    ]);
    expect(errorsOf(xml.replace('<line number="5" hits="0"/>', '<line number="5" hits="NaN"/>'))).toEqual([
      expect.stringMatching(/^coverage\.xml:24: line 5 of `shop\/cart\.py` has hits "NaN": not a whole number/),
    ]);
    expect(errorsOf(xml.replace('<line number="5" hits="0"/>', '<line number="x" hits="0"/>'))[0]).toMatch(
      /^coverage\.xml:24: a `<line>` has number "x"/,
    );
    expect(errorsOf(xml.replace('condition-coverage="50% (1/2)" missing-branches="5"', ""))[0]).toMatch(
      /^coverage\.xml:23: line 4 of `shop\/cart\.py` has branch="true" but no `condition-coverage`/,
    );
    expect(errorsOf(xml.replace("50% (1/2)", "150% (3/2)"))[0]).toMatch(/condition-coverage covers 3 of 2 branches/);
  });
});

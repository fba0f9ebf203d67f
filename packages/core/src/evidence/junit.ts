import { XMLParser, XMLValidator } from "fast-xml-parser";
import { LineIndex } from "../common/text-lines.js";
import type { GateIssue } from "../common/errors.js";
import type { Universe, UniverseParseResult } from "./universe.js";
import { vitestName } from "./universe-vitest.js";

/** What one test did in the proof run. pytest's xfail is its own outcome; xpass counts as passed. */
export type TestOutcome = "passed" | "failed" | "error" | "skipped" | "xfail";

/** The tool that wrote a JUnit XML file, as far as the file tells. `junit` is any other producer. */
export type JunitProducer = "pytest" | "vitest" | "jest-junit" | "junit";

/**
 * How a testcase became an id. `file`: pytest xunit1's file attribute; `universe`: the one collected id
 * whose pytest mangling gives this classname and name; `guessed`: neither was possible, see the
 * warnings; `direct`: the producer's own names (vitest, jest-junit, other JUnit).
 */
export type IdMapping = "file" | "universe" | "guessed" | "direct";

/** One test's result, read from a `<testcase>`. */
export interface TestResult {
  /** The test's id: a pytest nodeid for pytest, `<file> > <name>` for vitest (as `vitest list` prints it), `<file>::<name>` for jest-junit. */
  id: string;
  outcome: TestOutcome;
  /** The result file it was read from. */
  file: string;
  /** 1-based line of the `<testcase>` in that file. */
  line: number;
  classname: string;
  name: string;
  mapping: IdMapping;
  /** True for a module that failed to import or collect (pytest, vitest, jest-junit each write one). */
  collectionError: boolean;
  /**
   * True for pytest's "collection skipped" entry: a module that skipped itself while it was collected
   * (`pytest.skip(allow_module_level=True)`, `pytest.importorskip`). Its id is the module's path; its
   * tests are in no universe, since pytest collected none of them.
   */
  collectionSkip?: boolean | undefined;
  /** The failure, error or skip message, first line only. */
  message?: string | undefined;
}

/** Options for {@link parseJunitXml}. */
export interface JunitParseOptions {
  /** Collected ids: resolves pytest xunit2 classnames to nodeids exactly, and checks xunit1's. */
  universe?: Universe | readonly string[] | undefined;
  /** Overrides the producer read from the file. */
  producer?: JunitProducer | undefined;
}

/** The results of one JUnit XML file, or everything wrong with it. */
export interface JunitParseResult {
  results?: TestResult[] | undefined;
  producer?: JunitProducer | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
}

const FIX_XML =
  "pass the JUnit XML file the test run wrote (pytest --junitxml=FILE, vitest --reporter=junit, jest-junit), complete and unedited";
const SEVERITY: Record<TestOutcome, number> = { passed: 0, xfail: 1, skipped: 2, failed: 3, error: 4 };
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

type XmlNode = Record<string | symbol, unknown>;

/**
 * `body` with each comment and CDATA section blanked (newlines kept, so offsets and lines hold). Linear: an
 * opener without its closer blanks the rest (a lazy regex would rescan the rest from every opener, which
 * took minutes on a megabyte of `<!--`).
 */
function blankCommentsAndCdata(body: string): { markup: string; unclosed?: number } {
  const opener = /<!--|<!\[CDATA\[/g;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  let out = "";
  let from = 0;
  for (let m = opener.exec(body); m !== null; m = opener.exec(body)) {
    const closer = m[0] === "<!--" ? "-->" : "]]>";
    const end = body.indexOf(closer, m.index + m[0].length);
    const stop = end < 0 ? body.length : end + closer.length;
    out += body.slice(from, m.index) + blank(body.slice(m.index, stop));
    from = stop;
    opener.lastIndex = stop;
    if (end < 0) return { markup: out, unclosed: m.index };
  }
  return { markup: out + body.slice(from) };
}

/**
 * Reads a JUnit XML file of pytest (xunit1 and xunit2), vitest's junit reporter or jest-junit. Entities
 * are never expanded: a DOCTYPE or ENTITY declaration is refused. pytest testcases are mapped back to
 * nodeids; a mapping that is ambiguous is an error, one that had to be guessed is a warning.
 */
export function parseJunitXml(text: string, file: string, options: JunitParseOptions = {}): JunitParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const fail = (message: string, line?: number, fix: string = FIX_XML): JunitParseResult => {
    errors.push({ code: "results_invalid", file, line, message, fix });
    return { errors, warnings };
  };
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") {
    errors.push({ code: "file_empty", file, message: "the JUnit XML file is empty", fix: FIX_XML });
    return { errors, warnings };
  }
  const lines = new LineIndex(body);
  // Markup declarations, wherever they are; CDATA sections and comments (same length, so offsets hold) are text.
  const { markup, unclosed } = blankCommentsAndCdata(body);
  if (unclosed !== undefined)
    return fail("a comment or CDATA section is never closed: the file looks truncated", lines.lineOf(unclosed));
  const declaration = /<!(DOCTYPE|ENTITY)\b/i.exec(markup);
  if (declaration) {
    return fail(
      `a ${declaration[1]!.toUpperCase()} declaration: proofgate never expands XML entities and refuses documents that declare them`,
      lines.lineOf(declaration.index),
      "write the results without a DOCTYPE; test runners never emit one",
    );
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    const { msg, line } = valid.err;
    if (/^Invalid '\[|^Unclosed tag/.test(msg) || (body.trimStart().startsWith("<") && !body.trimEnd().endsWith(">"))) {
      return fail(
        `the XML ends before its elements are closed (${msg.replace(/\s+/g, " ")}): the file looks truncated`,
        lines.count,
      );
    }
    return fail(`not well-formed XML: ${msg}`, line);
  }

  let doc: XmlNode;
  try {
    doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "@_",
      processEntities: false,
      htmlEntities: false,
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: true,
      captureMetaData: true,
      isArray: (name) => ["testsuite", "testcase", "failure", "error", "skipped"].includes(name),
    }).parse(body) as XmlNode;
  } catch (error) {
    return fail(`not well-formed XML: ${(error as Error).message.split("\n")[0]}`);
  }
  const roots = Object.keys(doc).filter((k) => !k.startsWith("?"));
  const rootCount = roots.reduce((n, k) => n + (Array.isArray(doc[k]) ? (doc[k] as unknown[]).length : 1), 0);
  if (rootCount !== 1)
    return fail(
      `the document has ${rootCount} root elements (${roots.join(", ")}); JUnit XML has one: concatenated files?`,
      undefined,
      "pass each result file on its own; shards are merged by proofgate",
    );
  const rootName = roots[0]!;
  if (rootName !== "testsuites" && rootName !== "testsuite") {
    return fail(
      `the root element is <${rootName}>, neither <testsuites> nor <testsuite>: this is not JUnit XML`,
      lines.lineOf(body.indexOf(`<${rootName}`)),
    );
  }
  const root = asNodes(doc[rootName])[0] ?? {};
  const meta = XMLParser.getMetaDataSymbol() as unknown as symbol;
  const lineOf = (node: XmlNode): number => {
    const m = node[meta] as { startIndex?: number } | undefined;
    return typeof m?.startIndex === "number" ? lines.lineOf(m.startIndex) : 1;
  };
  const attr = (node: XmlNode, name: string, line: number): string | undefined => {
    const raw = node[`@_${name}`];
    if (raw === undefined) return undefined;
    const decoded = decodeXmlText(String(raw));
    if (decoded === undefined) {
      errors.push({
        code: "results_invalid",
        file,
        line,
        message: `attribute ${name} has an undeclared entity reference: ${JSON.stringify(String(raw).slice(0, 80))}`,
        fix: FIX_XML,
      });
      return String(raw);
    }
    return decoded;
  };

  const suites: { suite: XmlNode; name: string }[] = [];
  const collectSuites = (node: XmlNode): void => {
    for (const child of asNodes(node.testsuite)) {
      suites.push({ suite: child, name: attr(child, "name", lineOf(child)) ?? "" });
      collectSuites(child);
    }
  };
  if (rootName === "testsuite") suites.push({ suite: root, name: attr(root, "name", 1) ?? "" });
  collectSuites(root);
  const rootSuitesName = rootName === "testsuites" ? attr(root, "name", 1) : undefined;

  const producer =
    options.producer ??
    detectProducer(
      rootSuitesName,
      suites.map((s) => s.suite),
      body,
    );
  if (producer === "junit") {
    warnings.push({
      code: "results_invalid",
      file,
      message: "could not tell which tool wrote this JUnit XML; test ids are `<classname>::<name>`",
      fix: "pass the producer (pytest, vitest or jest-junit) explicitly",
    });
  }
  const resolver = producer === "pytest" ? new PytestIdResolver(options.universe) : undefined;

  const byId = new Map<string, TestResult>();
  const unresolved = new Set<string>();
  let cases = 0;
  for (const { suite, name: suiteName } of suites) {
    for (const tc of asNodes(suite.testcase)) {
      cases++;
      const line = lineOf(tc);
      const classname = attr(tc, "classname", line) ?? "";
      const name = attr(tc, "name", line);
      if (name === undefined || name === "") {
        errors.push({ code: "results_invalid", file, line, message: "a <testcase> without a name", fix: FIX_XML });
        continue;
      }
      const { outcome, message } = outcomeOf(tc, (n, a) => attr(n, a, line));
      const caseFile = attr(tc, "file", line);
      let id: string;
      let mapping: IdMapping = "direct";
      let collectionError = false;
      let collectionSkip = false;
      let isUnresolved = false;
      if (resolver) {
        collectionError = classname === "" && outcome === "error" && /^collection failure/.test(message ?? "");
        collectionSkip = classname === "" && outcome === "skipped" && /^collection skipped/.test(message ?? "");
        const mapped =
          collectionError || collectionSkip
            ? collectionFileId(name, caseFile)
            : resolver.resolve(classname, name, caseFile);
        if ("ambiguous" in mapped) {
          errors.push({
            code: "results_invalid",
            file,
            line,
            message: `testcase classname ${JSON.stringify(classname)} name ${JSON.stringify(name)} matches ${mapped.ambiguous.length} collected ids (${mapped.ambiguous.join(", ")}): proofgate will not pick one`,
            fix: "write the results with `-o junit_family=xunit1`, whose file attribute tells them apart",
          });
          continue;
        }
        ({ id, mapping } = mapped);
        isUnresolved = mapped.unresolved === true;
      } else if (producer === "vitest") {
        collectionError = name === classname && outcome !== "passed" && /\.[cm]?[jt]sx?$/.test(name);
        id = collectionError ? name : `${classname} > ${vitestName(name)}`;
      } else if (producer === "jest-junit") {
        collectionError = classname === "Test suite failed to run";
        id = collectionError ? name : `${caseFile ?? suiteName}::${name}`;
      } else {
        id = classname === "" ? name : `${classname}::${name}`;
      }
      const result: TestResult = {
        id,
        outcome,
        file,
        line,
        classname,
        name,
        mapping,
        collectionError,
        ...(collectionSkip ? { collectionSkip: true } : {}),
        ...(message !== undefined ? { message } : {}),
      };
      if (isUnresolved) unresolved.add(id);
      const earlier = byId.get(id);
      if (earlier) {
        // pytest writes a second <testcase> for a teardown error after a failed call: the worse outcome counts.
        const teardown = producer === "pytest" && (earlier.outcome === "error" || outcome === "error");
        if (!teardown) {
          warnings.push({
            code: "results_invalid",
            file,
            line,
            message: `${id} appears again (first at line ${earlier.line}); the worse outcome counts`,
            fix:
              producer === "jest-junit"
                ? "set jest-junit's addFileAttribute=true so ids carry their file"
                : "give each test a unique name",
          });
        }
        if (SEVERITY[outcome] > SEVERITY[earlier.outcome]) byId.set(id, { ...result, line: earlier.line });
        continue;
      }
      byId.set(id, result);
    }
  }

  if (cases === 0)
    return fail(
      "the file holds no <testcase>: the run recorded no tests",
      1,
      "check that the test run found its tests before writing the results",
    );
  const results = [...byId.values()];
  // A module's entry (failed or skipped collection) names its dotted module, whose path is all it can give.
  const moduleEntry = (r: TestResult): boolean => r.collectionError || r.collectionSkip === true;
  const guessed = results.filter(
    (r) => r.mapping === "guessed" && !unresolved.has(r.id) && !(options.universe && moduleEntry(r)),
  );
  if (guessed.length > 0) {
    warnings.push({
      code: "results_invalid",
      file,
      line: guessed[0]!.line,
      message: `${guessed.length} pytest testcase(s) carry no file attribute (xunit2) and no universe was given, so their nodeids are guessed from the dotted classname (${guessed
        .slice(0, 3)
        .map((g) => `${g.classname === "" ? "" : `${g.classname}.`}${g.name} -> ${g.id}`)
        .join("; ")}${guessed.length > 3 ? "; ..." : ""})`,
      fix: "give the collected universe (`pytest --collect-only -q`), or write the results with `-o junit_family=xunit1`",
    });
  }
  for (const u of results.filter((r) => unresolved.has(r.id))) {
    warnings.push({
      code: "results_invalid",
      file,
      line: u.line,
      message: `no collected test maps to classname ${JSON.stringify(u.classname)} name ${JSON.stringify(u.name)}; kept as ${u.id}`,
      fix: "collect the universe and the results from the same commit and root directory",
    });
  }
  if (errors.length > 0) return { producer, errors, warnings };
  return { results, producer, errors, warnings };
}

/** The union of several result files (shards), or the ids two shards disagree on. */
export interface JunitMergeResult {
  results?: TestResult[] | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
}

/**
 * Unions the results of several shards. An id in two shards with different outcomes is an error naming
 * both files; the same outcome twice is a warning (a test ran in two shards) and counts once.
 */
export function mergeJunitResults(shards: readonly (readonly TestResult[])[]): JunitMergeResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const byId = new Map<string, TestResult>();
  for (const shard of shards) {
    for (const result of shard) {
      const earlier = byId.get(result.id);
      if (!earlier) {
        byId.set(result.id, result);
      } else if (earlier.outcome !== result.outcome) {
        errors.push({
          code: "results_invalid",
          file: result.file,
          line: result.line,
          message: `${result.id} is ${earlier.outcome} in ${earlier.file}:${earlier.line} but ${result.outcome} in ${result.file}:${result.line}: the shards disagree`,
          fix: "run each test in one shard only, and pass each shard's results once",
        });
      } else {
        warnings.push({
          code: "results_invalid",
          file: result.file,
          line: result.line,
          message: `${result.id} is in ${earlier.file}:${earlier.line} and ${result.file}:${result.line} (both ${result.outcome}); counted once`,
          fix: "run each test in one shard only",
        });
      }
    }
  }
  if (errors.length > 0) return { errors, warnings };
  return { results: [...byId.values()], errors, warnings };
}

/**
 * Uses JUnit results as the test universe: every id once, collection errors (modules that failed to
 * import) as the universe's collection errors. Guessed pytest ids are refused: a universe must be exact.
 */
export function universeFromJunit(results: readonly TestResult[], file: string): UniverseParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const guessed = results.filter((r) => r.mapping === "guessed" && !r.collectionError && r.collectionSkip !== true);
  if (guessed.length > 0) {
    errors.push({
      code: "universe_invalid",
      file,
      line: guessed[0]!.line,
      message: `${guessed.length} test id(s) could only be guessed from the results (${guessed
        .slice(0, 3)
        .map((g) => g.id)
        .join(", ")}${guessed.length > 3 ? ", ..." : ""}), so they cannot serve as the universe`,
      fix: "write the results with `-o junit_family=xunit1`, or use `pytest --collect-only -q` output as the universe",
    });
    return { errors, warnings };
  }
  const seen = new Set<string>();
  const ids: string[] = [];
  const duplicates: string[] = [];
  const collectionErrors: Universe["collectionErrors"] = [];
  for (const r of results) {
    if (r.collectionError) {
      collectionErrors.push({ line: r.line, text: `${r.id}: ${r.message ?? "failed to collect"}` });
    } else if (r.collectionSkip === true) {
      // A module that skipped itself holds no collected test: pytest's --collect-only lists none of it.
      continue;
    } else if (seen.has(r.id)) {
      duplicates.push(r.id);
    } else {
      seen.add(r.id);
      ids.push(r.id);
    }
  }
  if (ids.length === 0 && collectionErrors.length === 0) {
    errors.push({
      code: "universe_empty",
      file,
      message: "the JUnit results name no tests",
      fix: "use the results of a run that collected the whole suite",
    });
    return { errors, warnings };
  }
  return { universe: { file, ids, duplicates, collectionErrors, summaryCount: ids.length }, errors, warnings };
}

/**
 * pytest's junitxml `mangle_test_address`: a nodeid as the classname and name pytest writes for it.
 * `tests/test_a.py::TestK::test_m[a b]` -> classname `tests.test_a.TestK`, name `test_m[a b]`.
 */
export function pytestJunitNames(nodeid: string): { classname: string; name: string } {
  const bracket = nodeid.indexOf("[");
  const path = bracket === -1 ? nodeid : nodeid.slice(0, bracket);
  const params = bracket === -1 ? "" : nodeid.slice(bracket);
  const names = path.split("::");
  names[0] = names[0]!.replaceAll("/", ".").replace(/\.py$/, "");
  const last = names.pop()! + params;
  return { classname: names.join("."), name: binXmlEscape(last) };
}

type Resolved = { id: string; mapping: IdMapping; unresolved?: boolean } | { ambiguous: string[] };

class PytestIdResolver {
  private readonly index: Map<string, string[]> | undefined;

  constructor(universe: Universe | readonly string[] | undefined) {
    if (!universe) return;
    const ids = "ids" in universe ? universe.ids : universe;
    this.index = new Map();
    for (const id of ids) {
      const { classname, name } = pytestJunitNames(id);
      const key = `${classname}\u0000${name}`;
      const list = this.index.get(key);
      if (list) list.push(id);
      else this.index.set(key, [id]);
    }
  }

  resolve(classname: string, name: string, caseFile: string | undefined): Resolved {
    const fromFile = caseFile === undefined ? undefined : idFromFile(classname, name, caseFile);
    if (this.index) {
      const candidates = this.index.get(`${classname}\u0000${name}`) ?? [];
      if (candidates.length > 1) {
        const exact = fromFile !== undefined && candidates.includes(fromFile) ? fromFile : undefined;
        return exact !== undefined ? { id: exact, mapping: "file" } : { ambiguous: candidates };
      }
      if (candidates.length === 1) return { id: candidates[0]!, mapping: "universe" };
      return fromFile !== undefined
        ? { id: fromFile, mapping: "file", unresolved: true }
        : { id: guessNodeid(classname, name), mapping: "guessed", unresolved: true };
    }
    return fromFile !== undefined
      ? { id: fromFile, mapping: "file" }
      : { id: guessNodeid(classname, name), mapping: "guessed" };
  }
}

/** xunit1: the file attribute names the module, the rest of the classname is the class chain. */
function idFromFile(classname: string, name: string, caseFile: string): string | undefined {
  const path = caseFile.replaceAll("\\", "/");
  const module = path.replaceAll("/", ".").replace(/\.py$/, "");
  if (classname !== module && !classname.startsWith(`${module}.`)) return undefined; // e.g. a test inherited from a base class in another file
  const classes = classname.slice(module.length + 1);
  return [path, ...(classes === "" ? [] : classes.split(".")), name].join("::");
}

/** Without a file attribute or a universe: segments up to the first capitalised one are the module path. */
function guessNodeid(classname: string, name: string): string {
  const parts = classname === "" ? [] : classname.split(".");
  let firstClass = parts.findIndex((p, i) => i > 0 && /^[A-Z]/.test(p));
  if (firstClass === -1) firstClass = parts.length;
  const module = parts.slice(0, firstClass);
  return [...(module.length > 0 ? [`${module.join("/")}.py`] : []), ...parts.slice(firstClass), name].join("::");
}

/** pytest's collection-error testcase: classname "", name the dotted module. The id is the module's path. */
function collectionFileId(name: string, caseFile: string | undefined): Resolved {
  return caseFile !== undefined
    ? { id: caseFile.replaceAll("\\", "/"), mapping: "file" }
    : { id: `${name.replaceAll(".", "/")}.py`, mapping: "guessed" };
}

function outcomeOf(
  tc: XmlNode,
  attr: (node: XmlNode, name: string) => string | undefined,
): { outcome: TestOutcome; message?: string } {
  const first = (key: string): XmlNode | undefined => {
    const list = tc[key];
    if (!Array.isArray(list) || list.length === 0) return undefined;
    const node = list[0] as unknown;
    return typeof node === "object" && node !== null ? (node as XmlNode) : { "#text": String(node) };
  };
  const messageOf = (node: XmlNode): string | undefined => {
    const text =
      attr(node, "message") ?? (typeof node["#text"] === "string" ? decodeXmlText(node["#text"]) : undefined);
    const line = text
      ?.split("\n")
      .find((l) => l.trim() !== "")
      ?.trim();
    return line === undefined || line === "" ? undefined : line.slice(0, 300);
  };
  const error = first("error");
  if (error) return withMessage("error", messageOf(error));
  const failure = first("failure");
  if (failure) return withMessage("failed", messageOf(failure));
  const skipped = first("skipped");
  if (skipped) {
    const type = attr(skipped, "type");
    const message = messageOf(skipped);
    // pytest's module-level skip: message "collection skipped", the reason in the text as a repr'd tuple
    // `('/abs/tests/test_c.py', 2, 'Skipped: why')`.
    if (type === undefined && message === "collection skipped") {
      const text = typeof skipped["#text"] === "string" ? decodeXmlText(skipped["#text"]) : undefined;
      const why = text === undefined ? undefined : /, \d+, (['"])(?:Skipped: )?([\s\S]*)\1\)\s*$/.exec(text)?.[2];
      return withMessage("skipped", why ? `collection skipped: ${why.slice(0, 280)}` : message);
    }
    return withMessage(type === "pytest.xfail" ? "xfail" : "skipped", message);
  }
  return { outcome: "passed" };
}

function withMessage(outcome: TestOutcome, message: string | undefined): { outcome: TestOutcome; message?: string } {
  return message === undefined ? { outcome } : { outcome, message };
}

function detectProducer(suitesName: string | undefined, suites: readonly XmlNode[], body: string): JunitProducer {
  if (suitesName === "vitest tests") return "vitest";
  if (suitesName === "jest tests") return "jest-junit";
  if (suites.some((s) => s["@_name"] === "pytest") || /\btype="pytest\.(?:skip|xfail)"/.test(body)) return "pytest";
  return "junit";
}

/** Decodes the five predefined entities and character references; undefined on any other reference. */
function decodeXmlText(raw: string): string | undefined {
  let ok = true;
  const text = raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g, (_, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    const value = PREDEFINED[ref];
    if (value === undefined) ok = false;
    return value ?? "";
  });
  return ok ? text : undefined;
}

/** pytest's `bin_xml_escape`: characters XML cannot hold become `#xNN`. */
function binXmlEscape(text: string): string {
  return text.replace(/[^\u0009\u000A\u000D\u0020-\u007E\u0080-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    return code <= 0xff
      ? `#x${code.toString(16).toUpperCase().padStart(2, "0")}`
      : `#x${code.toString(16).toUpperCase().padStart(4, "0")}`;
  });
}

function asNode(value: unknown): XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as XmlNode) : {};
}

function asNodes(value: unknown): XmlNode[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(asNode);
}

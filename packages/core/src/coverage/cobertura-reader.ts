import { XMLParser, XMLValidator } from "fast-xml-parser";
import {
  normalizeCoveragePath,
  type CoverageData,
  type CoverageReadResult,
  type FileCoverage,
} from "./coverage-model.js";
import type { CoverageReadOptions } from "./read-options.js";
import { isRecord, LineIndex, ReportIssues } from "./report-issues.js";

const REGENERATE = "regenerate the Cobertura report (`coverage xml`, `gcovr --cobertura`, ...)";

/** Elements that may repeat, always read as lists. */
const LISTS = new Set([
  "coverage.sources.source",
  "coverage.packages.package",
  "coverage.packages.package.classes.class",
  "coverage.packages.package.classes.class.lines.line",
]);

/**
 * An internal DTD subset (`<!DOCTYPE x [ ... ]>`) or an entity declaration: the door to entity expansion
 * (billion laughs) and external entities. Refused before any parsing. A bare `<!DOCTYPE coverage SYSTEM
 * "...coverage-04.dtd">`, as Cobertura and gcovr write it, declares nothing and is never fetched.
 */
const DTD_DECLARATIONS = /<!DOCTYPE[^>[]*\[|<!ENTITY/i;

const CONDITION = /\((\d+)\/(\d+)\)/;
const WHOLE = /^\d+$/;

/**
 * Reads a Cobertura XML report (coverage.py, gcovr, Cobertura, JaCoCo converters, ...) into the model.
 * Every `<class>` of every `<package>` adds its `filename`'s `<lines>`: a statement per line `number`,
 * covered when `hits` > 0; a line with `branch="true"` adds the branches of its `condition-coverage`
 * (`"50% (1/2)"`: 2 branches `"line:0"`, `"line:1"`, the first one covered). Methods' line lists repeat
 * the class's and are ignored. A relative `filename` is joined to a `<source>`: made relative to `root`
 * when that lands under it, else to the source itself when the source is relative. Entities are never
 * expanded; a document that declares any is refused.
 */
export function readCobertura(text: string, file: string, options: CoverageReadOptions = {}): CoverageReadResult {
  const issues = new ReportIssues(file, REGENERATE);
  if (text.trim() === "") {
    issues.error("the Cobertura report is empty");
    return issues.result(undefined);
  }
  const index = new LineIndex(text);
  const declaration = DTD_DECLARATIONS.exec(text);
  if (declaration) {
    issues.error(
      "the XML declares entities or a DTD subset (`<!DOCTYPE ... [` or `<!ENTITY`): refused, proofgate never expands entities (a coverage tool does not write them)",
      index.lineOf(declaration.index),
      "regenerate the report with the coverage tool; do not hand-edit it",
    );
    return issues.result(undefined);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    issues.error(
      `not well-formed XML (${valid.err.msg}): the file is truncated or is not a Cobertura report`,
      valid.err.line,
    );
    return issues.result(undefined);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    captureMetaData: true,
    isArray: (_name, jpath) => LISTS.has(String(jpath)),
  });
  let doc: unknown;
  try {
    doc = parser.parse(text);
  } catch (error) {
    issues.error(`the XML could not be parsed (${String((error as Error).message).split("\n")[0]})`);
    return issues.result(undefined);
  }
  const meta = XMLParser.getMetaDataSymbol();
  const lineOf = (node: unknown): number | undefined => {
    const start = isRecord(node)
      ? (node as Record<symbol, { startIndex?: number } | undefined>)[meta as unknown as symbol]?.startIndex
      : undefined;
    return start === undefined ? undefined : index.lineOf(start);
  };

  const coverage = isRecord(doc) ? doc.coverage : undefined;
  if (!isRecord(coverage)) {
    issues.error("no `<coverage>` root element: not a Cobertura report");
    return issues.result(undefined);
  }
  const sources = readSources(coverage.sources);
  const packages = coverage.packages;
  if (packages === undefined) {
    issues.error("`<coverage>` has no `<packages>`: the report is incomplete", lineOf(coverage));
    return issues.result(undefined);
  }
  const files = new Map<string, FileCoverage>();
  let hasBranches = Number(coverage["branches-valid"]) > 0;
  const packageList = isRecord(packages) && Array.isArray(packages.package) ? packages.package : [];
  for (const pkg of packageList) {
    const classes = isRecord(pkg) && isRecord(pkg.classes) && Array.isArray(pkg.classes.class) ? pkg.classes.class : [];
    for (const cls of classes) {
      if (!isRecord(cls)) continue;
      const filename = typeof cls.filename === "string" ? decodeXmlText(cls.filename).trim() : "";
      if (filename === "") {
        issues.error("a `<class>` has no `filename`", lineOf(cls));
        continue;
      }
      const path = resolvePath(filename, sources, options.root);
      let fc = files.get(path);
      if (!fc) {
        fc = {
          path,
          statements: new Set(),
          coveredStatements: new Set(),
          branches: new Set(),
          coveredBranches: new Set(),
        };
        files.set(path, fc);
      }
      const lines = isRecord(cls.lines) && Array.isArray(cls.lines.line) ? cls.lines.line : [];
      for (const line of lines) {
        if (!isRecord(line)) continue;
        if (readLine(line, fc, issues, lineOf(line))) hasBranches = true;
      }
    }
  }
  if (issues.failed) return issues.result(undefined);
  const data: CoverageData = { format: "cobertura", sources: [file], files, hasBranches };
  return issues.result(data);
}

/** Adds one `<line>`; returns whether it carries branches. */
function readLine(
  line: Record<string, unknown>,
  fc: FileCoverage,
  issues: ReportIssues,
  at: number | undefined,
): boolean {
  const number = String(line.number ?? "");
  const hits = String(line.hits ?? "");
  if (!WHOLE.test(number) || Number(number) < 1) {
    issues.error(`a \`<line>\` has number ${JSON.stringify(number)}, not a line number >= 1`, at);
    return false;
  }
  if (!WHOLE.test(hits)) {
    issues.error(
      `line ${number} of \`${fc.path}\` has hits ${JSON.stringify(hits)}: ${/^-\d/.test(hits) ? "negative" : "not a whole number"}`,
      at,
    );
    return false;
  }
  const key = String(Number(number));
  fc.statements.add(key);
  if (Number(hits) > 0) fc.coveredStatements.add(key);
  if (String(line.branch ?? "").toLowerCase() !== "true") return false;
  const condition = CONDITION.exec(String(line["condition-coverage"] ?? ""));
  if (!condition) {
    issues.error(
      `line ${number} of \`${fc.path}\` has branch="true" but no \`condition-coverage\` like "50% (1/2)"`,
      at,
    );
    return false;
  }
  const covered = Number(condition[1]);
  const total = Number(condition[2]);
  if (covered > total) {
    issues.error(`line ${number} of \`${fc.path}\`: condition-coverage covers ${covered} of ${total} branches`, at);
    return false;
  }
  for (let i = 0; i < total; i++) {
    fc.branches.add(`${key}:${i}`);
    if (i < covered) fc.coveredBranches.add(`${key}:${i}`);
  }
  return true;
}

function readSources(sources: unknown): string[] {
  const list = isRecord(sources) && Array.isArray(sources.source) ? sources.source : [];
  return list
    .map((s) =>
      decodeXmlText(typeof s === "string" ? s : isRecord(s) && typeof s["#text"] === "string" ? s["#text"] : "").trim(),
    )
    .filter((s) => s !== "");
}

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * Decodes XML's five predefined entities and character references in one pass (the parser expands
 * none). Nothing is expanded recursively and no declared entity exists (those documents are refused).
 */
function decodeXmlText(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9A-Fa-f]{1,6});/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name.startsWith("#x") ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[name] ?? whole;
  });
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path);
}

function resolvePath(filename: string, sources: string[], root: string | undefined): string {
  if (isAbsolute(filename)) return normalizeCoveragePath(filename, root);
  for (const source of sources) {
    const joined = `${source.replace(/[\\/]+$/, "")}/${filename}`;
    if (isAbsolute(source)) {
      if (root === undefined) continue;
      const rel = normalizeCoveragePath(joined, root);
      if (!isAbsolute(rel)) return rel;
    } else if (source !== ".") {
      return normalizeCoveragePath(joined, root);
    }
  }
  return normalizeCoveragePath(filename, root);
}

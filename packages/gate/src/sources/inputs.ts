// The gate's file inputs, read through the file port and parsed by core: the ledger, the universe, the
// proof run's results and the property suite's. Each comes with its file (for the report's digests) and
// the parser's warnings; any problem is a GateError naming the file and the key or flag that set it.
// Core by module, not its index: `deselect` and `ledger` load this file, and the index would bring the whole
// policy into their start-up (BENCHMARKS.md, issue 14).
import { GateError, orThrow, type GateIssue } from "@proofgate/core/errors";
import type { PropertyEvidence } from "@proofgate/core";
import { countPropertyResults } from "@proofgate/core/evidence";
import { mergeJunitResults, parseJunitXml, universeFromJunit, type TestResult } from "@proofgate/core/junit";
import { parseLedger, type Ledger } from "@proofgate/core/ledger";
import { mergeUniverses, parseCollectOnly, type Universe } from "@proofgate/core/universe";
import { looksLikeVitestList, parseVitestList } from "@proofgate/core/universe-vitest";
import type { FilePort, InputFile } from "../ports.js";

/** A parsed input and the files it came from. */
export interface Loaded<T> {
  value: T;
  files: InputFile[];
  warnings: GateIssue[];
}

/** Reads and validates the freeze ledger (`flag` is where its path came from: `--freeze`, `[ledger] path`). */
export function loadLedger(fs: FilePort, path: string, flag = "--freeze"): Loaded<Ledger> {
  const file = fs.readText(path, "the freeze ledger", flag);
  const result = parseLedger(file.text, path);
  return { value: orThrow(result, result.ledger), files: [file], warnings: result.warnings };
}

/**
 * Reads the universe from one or more files: `pytest --collect-only -q` output, or JUnit XML. Several
 * files (collection shards) are one universe: their ids in order, once.
 */
export function loadUniverse(
  fs: FilePort,
  paths: readonly string[],
  flag = "[universe] collected",
  /** `[commands] runner`, when the config names one: vitest's list is read as one, whatever precedes it. */
  runner?: "pytest" | "vitest" | undefined,
): Loaded<Universe> {
  if (paths.length === 0)
    throw new GateError({
      code: "config_invalid",
      message: "[universe] collected names no file",
      fix: 'write collected = ["collected.txt"]',
    });
  const loaded = paths.map((path) => {
    const file = fs.readText(path, "the collected test list", flag);
    return { file, ...parseUniverseText(file.text, path, fs.root, runner) };
  });
  return {
    value: mergeUniverses(loaded.map((l) => l.universe)),
    files: loaded.map((l) => l.file),
    warnings: loaded.flatMap((l) => l.warnings),
  };
}

/**
 * One universe file's text, `pytest --collect-only -q` output, `vitest list --json` output (its absolute
 * paths made relative to `root`, the folder the collection ran in) or JUnit XML, named `name` in
 * messages; anything wrong with it is a GateError.
 */
export function parseUniverseText(
  text: string,
  name: string,
  root?: string,
  /** `[commands] runner`: with "vitest", text that is not JUnit is read as vitest's list (and its error is vitest's). */
  runner?: "pytest" | "vitest" | undefined,
): { universe: Universe; warnings: GateIssue[] } {
  const junitText = /^\s*<(\?xml|testsuites?[\s>])/.test(text);
  if (looksLikeVitestList(text) || (runner === "vitest" && !junitText)) {
    const result = parseVitestList(text, name, root);
    return { universe: orThrow(result, result.universe), warnings: result.warnings };
  }
  // JUnit XML (not pytest's `--collect-only` tree, whose lines also start with `<`).
  if (junitText) {
    const junit = parseJunitXml(text, name);
    if (junit.errors.length > 0 || !junit.results) throw new GateError(junit.errors);
    const result = universeFromJunit(junit.results, name);
    return { universe: orThrow(result, result.universe), warnings: [...junit.warnings, ...result.warnings] };
  }
  const result = parseCollectOnly(text, name);
  return { universe: orThrow(result, result.universe), warnings: result.warnings };
}

/** Reads and merges the proof run's JUnit XML files (shards), mapping pytest's test cases to the universe's ids. */
export function loadResults(
  fs: FilePort,
  paths: readonly string[],
  universe: Universe,
  flag = "--results",
): Loaded<TestResult[]> {
  const files = paths.map((path) => fs.readText(path, "the JUnit XML results", flag));
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const shards: TestResult[][] = [];
  for (const file of files) {
    const parsed = parseJunitXml(file.text, file.path, { universe });
    errors.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    if (parsed.results) shards.push(parsed.results);
  }
  if (errors.length > 0) throw new GateError(errors);
  const merged = mergeJunitResults(shards);
  if (merged.errors.length > 0 || !merged.results) throw new GateError(merged.errors);
  return { value: merged.results, files, warnings: [...warnings, ...merged.warnings] };
}

/** Reads the property suite's JUnit results and counts what ran, failed and was skipped. */
export function loadPropertyResults(
  fs: FilePort,
  paths: readonly string[],
  /** Reads what JUnit XML cannot say into the results (the run record's xpasses) before they are counted. */
  adjust: (results: TestResult[]) => TestResult[] = (results) => results,
): Loaded<PropertyEvidence> {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const results: TestResult[] = [];
  const files = paths.map((path) => {
    const file = fs.readText(path, "the property suite's JUnit results", "[properties] results");
    const parsed = parseJunitXml(file.text, path);
    errors.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    results.push(...(parsed.results ?? []));
    return file;
  });
  if (errors.length > 0) throw new GateError(errors);
  return { value: countPropertyResults([...paths], adjust(results)), files, warnings };
}

import {
  GateError,
  mergeJunitResults,
  parseJunitXml,
  type GateIssue,
  type TestResult,
  type Universe,
} from "@proofgate/core";
import { readInput, type InputFile } from "./io.js";

/** The proof run's results, read from its JUnit XML files (several are shards). */
export interface LoadedResults {
  results: TestResult[];
  files: InputFile[];
  warnings: GateIssue[];
}

/** Reads and merges JUnit XML result files, mapping pytest testcases to the universe's ids. */
export function loadResults(paths: readonly string[], universe: Universe): LoadedResults {
  const files = paths.map((path) => readInput(path, "the JUnit XML results", "--results"));
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
  return { results: merged.results, files, warnings: [...warnings, ...merged.warnings] };
}

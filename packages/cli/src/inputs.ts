import {
  GateError,
  parseCollectOnly,
  parseJunitXml,
  parseLedger,
  universeFromJunit,
  type GateIssue,
  type Ledger,
  type Universe,
} from "@proofgate/core";
import { orThrow, readInput, type InputFile } from "./io.js";

/** A parsed input and the file it came from. */
export interface Loaded<T> {
  value: T;
  file: InputFile;
  warnings: GateIssue[];
}

/** Reads and validates `freeze.toml`. */
export function loadLedger(path: string): Loaded<Ledger> {
  const file = readInput(path, "the freeze ledger", "--freeze");
  const result = parseLedger(file.text, path);
  return { value: orThrow(result, result.ledger), file, warnings: result.warnings };
}

/** Reads and validates the `pytest --collect-only -q` output. */
export function loadUniverse(path: string): Loaded<Universe> {
  const file = readInput(path, "the collected test list", "--collected");
  const result = parseCollectOnly(file.text, path);
  return { value: orThrow(result, result.universe), file, warnings: result.warnings };
}

/**
 * Reads the universe from one or more files: `pytest --collect-only -q` output, or JUnit XML (a file
 * starting with `<`). Several files (collection shards) are one universe: their ids in order, once.
 */
export function loadUniverses(paths: readonly string[]): Loaded<Universe> & { files: InputFile[] } {
  if (paths.length === 0)
    throw new GateError({
      code: "config_invalid",
      message: "[universe] collected names no file",
      fix: 'write collected = ["collected.txt"]',
    });
  const loaded = paths.map((path) => {
    const file = readInput(path, "the collected test list", "[universe] collected");
    const name = path;
    if (file.text.trimStart().startsWith("<")) {
      const junit = parseJunitXml(file.text, name);
      if (junit.errors.length > 0 || !junit.results) throw new GateError(junit.errors);
      const result = universeFromJunit(junit.results, name);
      return { value: orThrow(result, result.universe), file, warnings: [...junit.warnings, ...result.warnings] };
    }
    const result = parseCollectOnly(file.text, name);
    return { value: orThrow(result, result.universe), file, warnings: result.warnings };
  });
  if (loaded.length === 1) return { ...loaded[0]!, files: [loaded[0]!.file] };
  const ids: string[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const { value } of loaded) {
    duplicates.push(...value.duplicates);
    for (const id of value.ids) {
      if (seen.has(id)) duplicates.push(id);
      else {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  const universe: Universe = {
    file: loaded.map((l) => l.value.file).join(", "),
    ids,
    duplicates,
    collectionErrors: loaded.flatMap((l) =>
      l.value.collectionErrors.map((e) => ({ ...e, text: `${l.value.file}: ${e.text}` })),
    ),
    summaryCount: ids.length,
    index: seen,
  };
  return {
    value: universe,
    file: loaded[0]!.file,
    files: loaded.map((l) => l.file),
    warnings: loaded.flatMap((l) => l.warnings),
  };
}

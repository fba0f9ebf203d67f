import { parseCollectOnly, parseLedger, type GateIssue, type Ledger, type Universe } from "@proofgate/core";
import { orThrow, readInput, type CliIo, type InputFile } from "./io.js";

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

/** Prints warnings on stderr, one line each. */
export function printWarnings(io: CliIo, warnings: readonly GateIssue[]): void {
  for (const w of warnings) io.stderr(`proofgate: warning: ${w.file ? `${w.file}${w.line ? `:${w.line}` : ""}: ` : ""}${w.message}${w.fix ? ` Fix: ${w.fix}` : ""}\n`);
}

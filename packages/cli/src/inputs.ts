import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_AGENT_PATTERNS, GateError, parseCollectOnly, parseConfig, parseLedger, type GateConfig, type GateIssue, type Ledger, type Universe } from "@proofgate/core";
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

/** The work tree's `proofgate.toml` (defaults when there is none). For paths a command works on; the gate's policy comes from the base revision. */
export function loadWorkTreeConfig(cwd: string): GateConfig {
  const path = join(cwd, "proofgate.toml");
  const text = existsSync(path) ? readInput(path, "the config", "proofgate.toml").text : "";
  const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
  if (!parsed.config) throw new GateError(parsed.errors);
  return parsed.config;
}

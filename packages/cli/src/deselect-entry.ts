// `proofgate deselect` on a plain command line, run from bin.ts without yargs and main.ts: `deselect` runs
// before every proof run, and yargs (its parser, every command's options, its help text) cost a good part
// of its start-up (BENCHMARKS.md, issue 25, item 3). Any other command line, and every `deselect` line
// that is not plain (help, a usage error, a repeated or unknown flag), goes to yargs in main.ts.
// deselect-entry.test.ts runs both paths on the same command lines: the same output, errors and exit code.
import { DESELECT_FORMATS } from "./command-options.js";
import { runDeselect, type DeselectArgs } from "./commands/deselect.js";
import { printFailure } from "./messages.js";
import { plainValue } from "./plain-args.js";
import type { CliIo } from "./cli-io.js";

const FLAGS = ["freeze", "collected", "format", "out", "today"] as const;

/**
 * The options of a `proofgate deselect` (or `emit-deselect`) command line in a plain form, as yargs would
 * hand them to the command, or undefined. Plain: the command, then each of `--freeze`, `--collected`,
 * `--format` (one of its choices), `--out` and `--today` at most once, in any order, as `--flag VALUE` or
 * `--flag=VALUE`, with a value that is not empty and does not start with `-`.
 */
export function plainDeselectArgs(argv: readonly string[]): DeselectArgs | undefined {
  if (argv[0] !== "deselect" && argv[0] !== "emit-deselect") return undefined;
  const given: Partial<Record<(typeof FLAGS)[number], string>> = {};
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) return undefined;
    const eq = arg.indexOf("=");
    const name = (eq === -1 ? arg.slice(2) : arg.slice(2, eq)) as (typeof FLAGS)[number];
    if (!FLAGS.includes(name) || given[name] !== undefined) return undefined;
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (!plainValue(value)) return undefined;
    given[name] = value;
  }
  if (given.format !== undefined && !(DESELECT_FORMATS as readonly string[]).includes(given.format)) return undefined;
  return {
    freeze: given.freeze ?? "freeze.toml",
    collected: given.collected ?? "collected.txt",
    format: given.format ?? "args",
    ...(given.out === undefined ? {} : { out: given.out }),
    ...(given.today === undefined ? {} : { today: given.today }),
  };
}

/** Runs `proofgate deselect` with plain options; a failure is printed as main.ts prints it, and exit code 2. */
export function runDeselectCommand(args: DeselectArgs, io: CliIo): number {
  try {
    return runDeselect(args, io);
  } catch (error) {
    printFailure(error, io);
    return 2;
  }
}

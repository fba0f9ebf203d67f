// `proofgate record -- <command>`: a CI's own test step, bound to its commit. It runs the command (through
// `sh -c`, in the repository root) on a clean checkout and writes a stamp: the commit, its tree and the
// sha256 of each evidence file the command wrote. `proofgate check` then reads only evidence so bound.
import { recordEvidence } from "@proofgate/gate";
import { nodePorts } from "@proofgate/gate/node";
import { GateError } from "@proofgate/core/errors";
import { DEFAULT_AGENT_PATTERNS } from "@proofgate/core/authorship";
import { defaultConfig, MAX_COMMAND_TIMEOUT } from "@proofgate/core/config";
import { listFlag, optionalFlag, timeoutFlag } from "../flags.js";
import type { CliIo } from "../io.js";
import { loadWorkTreeConfig } from "../config-file.js";
import { cliLog } from "../messages.js";
import { shellQuote } from "@proofgate/core";

/** Options of `proofgate record`, as yargs hands them over. */
export interface RecordArgs {
  [flag: string]: unknown;
  stamp?: unknown;
  writes?: unknown;
  timeout?: unknown;
  command?: unknown;
  _?: unknown;
}

/** Runs the command, stamps what it wrote, and exits with the command's exit code (2 when nothing was bound). */
export async function runRecord(args: RecordArgs, io: CliIo): Promise<number> {
  // yargs leaves the words after `--` in `_`, after the command's name.
  const rest = Array.isArray(args._) ? args._.slice(1) : [];
  const words = [...(Array.isArray(args.command) ? args.command : []), ...rest].map(String).filter((w) => w !== "");
  if (words.length === 0)
    throw new GateError({
      code: "usage",
      message: "no command to record",
      fix: "proofgate record -- 'python -m pytest --junitxml=results.xml ...'",
    });
  // One word is a shell line (quoted as in [commands]); several are the words of one command.
  const command = words.length === 1 ? words[0]! : words.map(shellQuote).join(" ");
  const writes = listFlag("writes", args.writes);
  const stamp = optionalFlag("stamp", args.stamp);
  const timeout = timeoutFlag(args.timeout, MAX_COMMAND_TIMEOUT);
  // With the files and the stamp named, the work tree's proofgate.toml is not needed (nor read).
  const config =
    writes.length > 0 && stamp !== undefined ? defaultConfig(DEFAULT_AGENT_PATTERNS) : loadWorkTreeConfig(io.cwd);
  const result = await recordEvidence({
    ports: nodePorts({ root: io.cwd, env: io.env }),
    config: timeout === undefined ? config : { ...config, commands: { ...config.commands, timeout } },
    command,
    env: io.env,
    stamp,
    writes: writes.length > 0 ? writes : undefined,
    log: cliLog(io),
  });
  io.stderr(`proofgate: bound ${result.bound.join(", ")} to this commit in ${result.file}\n`);
  return result.exitCode;
}

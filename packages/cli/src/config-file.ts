import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_AGENT_PATTERNS } from "@proofgate/core/authorship";
import { parseConfig, type GateConfig } from "@proofgate/core/config";
import { GateError } from "@proofgate/core/errors";
import { readInput } from "./io.js";

/** The work tree's `proofgate.toml` (defaults when there is none). For paths a command works on; the gate's policy comes from the base revision. */
export function loadWorkTreeConfig(cwd: string): GateConfig {
  const path = join(cwd, "proofgate.toml");
  const text = existsSync(path) ? readInput(path, "the config", "proofgate.toml").text : "";
  const parsed = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
  if (!parsed.config) throw new GateError(parsed.errors);
  return parsed.config;
}

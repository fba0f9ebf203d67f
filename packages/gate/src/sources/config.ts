// The work tree's proofgate.toml: what commands work on (`lock`, `init`, `seeds`), and the gate's fallback
// when a truncated history has no base to read the policy from. The gate's policy is the base's.
import { DEFAULT_AGENT_PATTERNS } from "@proofgate/core/authorship";
import { parseConfig, type GateConfig } from "@proofgate/core/config";
import { GateError } from "@proofgate/core/errors";
import type { FilePort } from "../ports.js";

/** The config file, at the repository root. */
export const CONFIG_FILE = "proofgate.toml";

/** The work tree's `proofgate.toml`, or the defaults when there is none; an invalid one is a GateError. */
export function readWorkTreeConfig(fs: FilePort): GateConfig {
  const text = fs.exists(CONFIG_FILE) ? fs.readText(CONFIG_FILE, "the config", CONFIG_FILE).text : "";
  const parsed = parseConfig(text, CONFIG_FILE, DEFAULT_AGENT_PATTERNS);
  if (!parsed.config) throw new GateError(parsed.errors);
  return parsed.config;
}

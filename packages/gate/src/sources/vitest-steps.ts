// Which steps run vitest: they get vitest's setup, not pytest's plugins.
import type { GateConfig } from "@proofgate/core";

/** Whether a step runs vitest: `[commands] runner = "vitest"`, or, unset, a command that names vitest. */
export function isVitestCommand(config: GateConfig, command: string): boolean {
  return config.commands.runner === "vitest" || (config.commands.runner === undefined && /\bvitest\b/.test(command));
}

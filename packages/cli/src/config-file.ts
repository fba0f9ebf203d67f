import { readWorkTreeConfig } from "@proofgate/gate/config";
import type { GateConfig } from "@proofgate/core/config";
import { nodeFiles } from "@proofgate/gate/files";

/** The work tree's `proofgate.toml` (defaults when there is none). For paths a command works on; the gate's policy comes from the base revision. */
export function loadWorkTreeConfig(cwd: string): GateConfig {
  return readWorkTreeConfig(nodeFiles(cwd));
}

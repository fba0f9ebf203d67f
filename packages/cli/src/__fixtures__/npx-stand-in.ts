// A stand-in for `npx` in tests of the CI templates (the GitLab component's script, the Buildkite
// plugin's hook): @proofgate/cli is not on the registry while it is being built, so `npx` is a script on
// PATH that accepts exactly `npx --yes --package=@proofgate/cli@<version> proofgate ARGS` and runs this
// build's bundle (packages/cli/dist, after `pnpm build`) with ARGS. Any other command line fails loudly.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The bundle the stand-in runs. */
export const CLI_BUNDLE = fileURLToPath(new URL("../../dist/proofgate.js", import.meta.url));

/** Writes `npx` into `binDir`, accepting only `@proofgate/cli@<version>`; returns its path. */
export function writeNpxStandIn(binDir: string, version: string): string {
  const path = join(binDir, "npx");
  writeFileSync(
    path,
    `#!/usr/bin/env bash
set -euo pipefail
if [[ "$#" -lt 3 || "$1" != "--yes" || "$2" != "--package=@proofgate/cli@${version}" || "$3" != "proofgate" ]]; then
  echo "npx stand-in: unexpected command line: npx $*" >&2
  exit 97
fi
shift 3
exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BUNDLE)} "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

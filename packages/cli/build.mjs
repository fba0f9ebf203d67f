// Bundles the CLI into one ESM file so `proofgate` starts without resolving hundreds of modules.
import { build } from "esbuild";
import { readFileSync, chmodSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
await build({
  entryPoints: ["src/bin.ts"],
  outfile: "dist/proofgate.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  legalComments: "none",
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __proofgateRequire } from 'node:module';\nconst require = __proofgateRequire(import.meta.url);" },
  define: { __PROOFGATE_VERSION__: JSON.stringify(pkg.version) },
  logLevel: "warning",
});
chmodSync("dist/proofgate.js", 0o755);

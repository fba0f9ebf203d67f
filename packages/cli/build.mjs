// Bundles the CLI into one ESM file so `proofgate` starts without resolving hundreds of modules.
import { build } from "esbuild";
import { readFileSync, chmodSync, copyFileSync } from "node:fs";
import { createRequire } from "node:module";

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
  // sql.js's Node glue reads `__dirname`, which an ES module lacks (Node >= 20.11 has import.meta.dirname).
  define: { __PROOFGATE_VERSION__: JSON.stringify(pkg.version), __dirname: "import.meta.dirname" },
  logLevel: "warning",
});
chmodSync("dist/proofgate.js", 0o755);
// sql.js's SQLite (WebAssembly) for `coverage --contexts`: read from beside the bundle (coverage-data-file.ts).
copyFileSync(createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"), "dist/sql-wasm.wasm");

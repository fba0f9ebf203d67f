// Bundles the CLI so `proofgate` starts without resolving hundreds of modules: a small entry file
// (dist/proofgate.js) that answers --version alone and loads the rest, split into chunks beside it,
// only when a command needs it (yargs and the policy code; sql.js only for `coverage --contexts`).
import { build } from "esbuild";
import { readFileSync, writeFileSync, chmodSync, copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: { proofgate: "src/bin.ts", index: "src/index.ts" },
  outdir: "dist",
  splitting: true,
  chunkNames: "[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  legalComments: "none",
  banner: {
    js: "import { createRequire as __proofgateRequire } from 'node:module';\nconst require = __proofgateRequire(import.meta.url);",
  },
  // sql.js's Node glue reads `__dirname`, which an ES module lacks: defined, so the module loads (its value is
  // only sql.js's default folder for the .wasm, unused: coverage-data-file.ts hands it the bytes).
  // yargs lays out its help text with string-width on every command run (not only for --help); the
  // same measure from fast-string-width costs a fraction of its Intl.Segmenter start-up.
  alias: { "string-width": "fast-string-width" },
  define: {
    __PROOFGATE_VERSION__: JSON.stringify(pkg.version),
    __dirname: "import.meta.dirname",
    __PROOFGATE_HASH_WORKER__: JSON.stringify("./hash-worker.cjs"),
    __PROOFGATE_SHARD_WORKER__: JSON.stringify("./shard-worker.cjs"),
  },
  logLevel: "warning",
});
// The hash worker, a file of its own (a worker thread starts from a file; hash-workers.ts finds it beside its
// chunk): CommonJS in one file, which a worker thread loads 10-15 ms sooner than ES modules (it runs on
// every `lock` and every check's fixture hashing).
// The coverage shard worker likewise (core's coverage readers bundled in; shard-workers.ts finds it beside its chunk).
await build({
  entryPoints: {
    "hash-worker": createRequire(import.meta.url).resolve("@proofgate/gate/hash-worker"),
    "shard-worker": createRequire(import.meta.url).resolve("@proofgate/gate/shard-worker"),
  },
  outExtension: { ".js": ".cjs" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
});
writeFileSync("dist/proofgate.js", `#!/usr/bin/env node\n${readFileSync("dist/proofgate.js", "utf8")}`);
chmodSync("dist/proofgate.js", 0o755);
// sql.js's SQLite (WebAssembly) for `coverage --contexts`: read from beside the bundle (coverage-data-file.ts).
copyFileSync(createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm"), "dist/sql-wasm.wasm");

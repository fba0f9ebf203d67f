// Builds the action's release tree: what the action repository holds at a release tag, so `uses:` of that
// tag runs with nothing installed. action.yml at the root (the Marketplace lists only root actions),
// main.mjs, the CLI bundle in dist/ (with a package.json that makes its .js files ES modules), the README
// and the LICENSE. `pnpm release:action` builds the CLI first; .github/workflows/release.yml pushes the tree.
//
//   node apps/github-action/release.mjs [--out DIR]   (default apps/github-action/release)
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const cliDist = join(root, "packages", "cli", "dist");
const outFlag = process.argv.indexOf("--out");
const out = resolve(outFlag >= 0 ? process.argv[outFlag + 1] : join(here, "release"));

const fail = (message) => {
  process.stderr.write(`release:action: ${message}\n`);
  process.exit(2);
};

const version = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")).version;
if (!existsSync(join(cliDist, "proofgate.js"))) fail("packages/cli/dist/proofgate.js is missing: run pnpm build first");
// A bundle from another version would ship under this version's tag: it must answer this version.
const built = spawnSync(process.execPath, [join(cliDist, "proofgate.js"), "--version"], { encoding: "utf8" });
if (built.stdout.trim() !== version)
  fail(`packages/cli/dist answers ${JSON.stringify(built.stdout.trim())}, not ${version}: run pnpm build first`);

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "dist"), { recursive: true });
for (const file of ["action.yml", "main.mjs", "README.md"]) cpSync(join(here, file), join(out, file));
cpSync(join(root, "LICENSE"), join(out, "LICENSE"));
// The runtime files of the bundle: its chunks, the hash worker and sql.js's WebAssembly; not the type declarations.
for (const name of readdirSync(cliDist)) {
  if (name === "types") continue;
  cpSync(join(cliDist, name), join(out, "dist", name), { recursive: true });
}
writeFileSync(join(out, "dist", "package.json"), `${JSON.stringify({ type: "module", version }, null, 2)}\n`);
process.stdout.write(`release:action: the action ${version} is in ${out}\n`);

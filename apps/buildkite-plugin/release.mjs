// Builds the plugin repository's tree: Buildkite takes a plugin from a repository of its own
// (proofgate/proofgate-buildkite-plugin, referenced as proofgate/proofgate#v<version>), whose root holds
// plugin.yml, hooks/ and the README that Buildkite's plugin linter reads. .github/workflows/release.yml
// pushes the tree and tags it v<version>, the CLI's version.
//
//   node apps/buildkite-plugin/release.mjs [--out DIR]   (default apps/buildkite-plugin/release)
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const outFlag = process.argv.indexOf("--out");
const out = resolve(outFlag >= 0 ? process.argv[outFlag + 1] : join(here, "release"));

const version = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")).version;
// The plugin of a release runs the CLI of that release by default (pnpm snippets keeps them equal).
const hook = readFileSync(join(here, "hooks", "command"), "utf8");
const readme = readFileSync(join(here, "README.md"), "utf8");
for (const [file, ok] of [
  ["hooks/command", hook.includes(`\ndefault_version="${version}"\n`)],
  ["README.md", readme.includes(`proofgate/proofgate#v${version}:`)],
]) {
  if (!ok) {
    process.stderr.write(`release:buildkite-plugin: ${file} does not pin ${version}: run pnpm snippets\n`);
    process.exit(2);
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "hooks"), { recursive: true });
for (const file of ["plugin.yml", "README.md", "hooks/command"]) cpSync(join(here, file), join(out, file));
cpSync(join(root, "LICENSE"), join(out, "LICENSE"));
chmodSync(join(out, "hooks", "command"), 0o755);
process.stdout.write(`release:buildkite-plugin: the plugin ${version} is in ${out}\n`);

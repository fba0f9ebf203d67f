// Writes every CI snippet the repository shows from its one source, the platform packages'
// ci-snippet modules, pinned to the one version a release moves: @proofgate/cli's (changesets bumps it).
//
//   node tooling/release/snippets.mjs           rewrite what is stale (`pnpm snippets`, after `pnpm build`)
//   node tooling/release/snippets.mjs --check   list what is stale and exit 1 (a test runs this check)
//
// In Markdown, a snippet sits between `<!-- snippet: ID -->` and `<!-- /snippet -->`; the lines between
// are a ```yaml fence with the snippet's text. Example files are written whole, and the defaults that pin
// the CLI (the component's `version` input, the plugin hook's default) are rewritten in place.
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildkitePluginStep, buildkiteShardedPipeline, buildkiteStep } from "@proofgate/buildkite";
import { githubCliWorkflow, githubWorkflow } from "@proofgate/github";
import { gitlabComponentInclude, gitlabJob } from "@proofgate/gitlab";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The version every snippet pins: the CLI's, as its package.json says. */
export function releaseVersion(root = ROOT) {
  return JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8")).version;
}

/** The snippets Markdown may embed, by id. */
export function snippetTexts(version) {
  return {
    "github-workflow": githubWorkflow(version).text,
    "github-cli-workflow": githubCliWorkflow(version).text,
    "gitlab-job": gitlabJob(version).text,
    "gitlab-component": gitlabComponentInclude(version).text,
    "buildkite-step": buildkiteStep(version).text,
    "buildkite-plugin": buildkitePluginStep(version).text,
    "buildkite-sharded": buildkiteShardedPipeline(version).text,
  };
}

/** The Markdown files with snippet blocks. */
export const MARKDOWN = [
  "README.md",
  "docs/github.md",
  "docs/gitlab.md",
  "docs/buildkite.md",
  "apps/github-action/README.md",
  "apps/gitlab-component/README.md",
  "apps/buildkite-plugin/README.md",
];

const BLOCK = /(<!-- snippet: ([a-z0-9-]+) -->\n)([\s\S]*?)(<!-- \/snippet -->)/g;

/** `text` with each snippet block holding its snippet; throws on an unknown id. */
export function fillMarkdown(text, snippets, file) {
  return text.replace(BLOCK, (_m, open, id, _old, close) => {
    const body = snippets[id];
    if (body === undefined)
      throw new Error(`${file}: unknown snippet id ${id} (known: ${Object.keys(snippets).join(", ")})`);
    return `${open}\`\`\`yaml\n${body}\`\`\`\n${close}`;
  });
}

/** Replaces the one match of `pattern` in `text` with `replacement`; throws when it is not exactly one. */
function replaceOnce(text, pattern, replacement, file) {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`${file}: expected one match of ${pattern}, found ${matches.length}`);
  return text.replace(pattern, replacement);
}

/** Every generated file and what it should hold, for `version`. */
export function plan(root = ROOT, version = releaseVersion(root)) {
  const snippets = snippetTexts(version);
  const read = (file) => readFileSync(join(root, file), "utf8");
  const out = MARKDOWN.map((file) => {
    const text = read(file);
    if (!BLOCK.test(text)) throw new Error(`${file}: no <!-- snippet: ID --> block`);
    BLOCK.lastIndex = 0;
    return { file, text: fillMarkdown(text, snippets, file) };
  });
  out.push({
    file: "apps/gitlab-component/example/.gitlab-ci.yml",
    text: `# proofgate in a project's .gitlab-ci.yml, without the component: the same job written out.\n# Generated from @proofgate/gitlab's gitlabJob() by tooling/release/snippets.mjs: edit that, then run pnpm snippets.\n${snippets["gitlab-job"]}`,
  });
  out.push({
    file: "apps/buildkite-plugin/example/pipeline.yml",
    text: `# Generated from @proofgate/buildkite's buildkiteShardedPipeline() by tooling/release/snippets.mjs.\n${snippets["buildkite-sharded"]}`,
  });
  const template = "apps/gitlab-component/templates/proofgate.yml";
  out.push({
    file: template,
    text: replaceOnce(
      read(template),
      /( {4}version:\n {6}type: string\n {6}default: )"[^"]*"/,
      `$1"${version}"`,
      template,
    ),
  });
  const hook = "apps/buildkite-plugin/hooks/command";
  out.push({ file: hook, text: replaceOnce(read(hook), /^(default_version=)"[^"]*"$/m, `$1"${version}"`, hook) });
  const pluginYml = "apps/buildkite-plugin/plugin.yml";
  out.push({
    file: pluginYml,
    text: replaceOnce(
      read(pluginYml),
      /(Default )\d+\.\d+\.\d+( \(this plugin's release\))/,
      `$1${version}$2`,
      pluginYml,
    ),
  });
  return out;
}

/** The generated files whose content differs from the plan. */
export function staleFiles(root = ROOT, version = releaseVersion(root)) {
  return plan(root, version).filter(({ file, text }) => readFileSync(join(root, file), "utf8") !== text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes("--check");
  const stale = staleFiles();
  if (check) {
    for (const { file } of stale) process.stderr.write(`snippets: ${file} is stale: run pnpm snippets\n`);
    process.exit(stale.length > 0 ? 1 : 0);
  }
  for (const { file, text } of stale) writeFileSync(join(ROOT, file), text);
  process.stdout.write(
    stale.length > 0
      ? `snippets: wrote ${stale.map((s) => relative(ROOT, join(ROOT, s.file))).join(", ")} (version ${releaseVersion()})\n`
      : `snippets: every file is current (version ${releaseVersion()})\n`,
  );
}

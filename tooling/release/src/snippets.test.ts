// Every CI snippet in the repository's Markdown and examples is the platform packages' text, pinned to
// the CLI's version: `pnpm snippets` writes them, and this test fails when one is stale or hand-written.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
// @ts-expect-error: a plain ES module without declarations
import { MARKDOWN, ROOT, plan, releaseVersion, snippetTexts, staleFiles } from "../snippets.mjs";

type Planned = { file: string; text: string }[];
const version = releaseVersion() as string;

describe("the snippets in README, docs and examples", () => {
  it("are current: pnpm snippets has nothing to write", () => {
    expect((staleFiles() as Planned).map((f) => f.file)).toEqual([]);
  });

  it("pin the CLI's version, which a release moves: every pin follows it", () => {
    const moved = new Map((plan(ROOT, "9.8.7") as Planned).map((p) => [p.file, p.text]));
    expect(moved.get("README.md")).toContain("uses: proofgate/proofgate-action@v9.8.7\n");
    expect(moved.get("README.md")).toContain("npx --yes --package=@proofgate/cli@9.8.7 proofgate check --run\n");
    expect(moved.get("apps/buildkite-plugin/README.md")).toContain("proofgate/proofgate#v9.8.7:");
    expect(moved.get("apps/gitlab-component/README.md")).toContain("/proofgate@9.8.7\n");
    expect(moved.get("apps/buildkite-plugin/hooks/command")).toContain('\ndefault_version="9.8.7"\n');
    expect(moved.get("apps/buildkite-plugin/plugin.yml")).toContain("Default 9.8.7 (this plugin's release)");
    const [spec] = parseAllDocuments(moved.get("apps/gitlab-component/templates/proofgate.yml")!);
    expect((spec!.toJS() as { spec: { inputs: { version: { default: string } } } }).spec.inputs.version.default).toBe(
      "9.8.7",
    );
    // No pin of the current version is left behind (prose may still say "like 0.1.0").
    const pin = new RegExp(`(?:@v?|#v)${version.replace(/\./g, "\\.")}(?![\\d.])`);
    for (const [file, text] of moved) expect(text, file).not.toMatch(pin);
  });

  it("are valid YAML, each one", () => {
    for (const [id, text] of Object.entries(snippetTexts(version) as Record<string, string>))
      expect(() => parse(text), id).not.toThrow();
  });

  it("leave no CI configuration written by hand in the Markdown", () => {
    const outside = /<!-- snippet: [a-z0-9-]+ -->[\s\S]*?<!-- \/snippet -->/g;
    for (const file of MARKDOWN as string[]) {
      const text = readFileSync(join(ROOT as string, file), "utf8").replace(outside, "");
      const blocks = [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!);
      const ci = blocks.filter((b) => /proofgate check|uses:|plugins:|include:|\bsteps:/.test(b));
      expect(ci, file).toEqual([]);
    }
  });
});

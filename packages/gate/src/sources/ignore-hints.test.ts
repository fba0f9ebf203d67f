// vitest's coverage ignore hints as coverage-v8 honours them (ast-v8-to-istanbul 1.x): `v8`, `c8`, `istanbul` and
// `node:coverage`; `/**` comments; `start`/`stop` on any line, in prose; a break between the words. Each added
// by the range is an exclusion charged to the commit that wrote its line; a base's `ignore stop` deleted is one
// too (the region then runs on to the end of the file). Real git histories, through loadMeasurement.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS, defaultConfig } from "@proofgate/core";
import { nodeGit } from "../node/git.js";
import { ISOLATED_GIT_ENV, scratchRepo, type ScratchIdentity, type ScratchRepo } from "../testing/git-scratch.js";
import { loadMeasurement } from "./measurement.js";

const AGENT: ScratchIdentity = { name: "coder-agent[bot]", email: "7+coder-agent[bot]@users.noreply.github.com" };

const SOURCE = `export function parse(input) {
  if (input === "") {
    return null;
  }
  return new URL(input);
}
`;

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** The hints the agent's one commit adds to src/url.js (its text at head), as loadMeasurement reads them. */
function hintsAdded(head: string, base = SOURCE): { line: number; text: string; author: string }[] {
  const repo = scratchRepo("proofgate-hints-");
  repos.push(repo);
  const baseSha = repo.commit("base", { "src/url.js": base, "README.md": "x\n" });
  const headSha = repo.commit("agent", { "src/url.js": head }, { author: AGENT });
  const git = nodeGit({ cwd: repo.dir, env: { ...process.env, ...ISOLATED_GIT_ENV } });
  const commits = git.listCommits({ base: baseSha, head: headSha });
  const evidence = loadMeasurement(git, {
    base: baseSha,
    head: headSha,
    commits,
    touched: new Map(commits.map((c) => [c.sha, git.changedPaths(c.sha).map((p) => p.path)])),
    config: defaultConfig(DEFAULT_AGENT_PATTERNS),
  });
  return evidence.excluded
    .filter((e) => e.key === "coverage-v8/istanbul ignore comment")
    .map((e) => ({ line: e.line, text: e.text, author: e.commit.author.name }));
}

const wrapped = (open: string, close = ""): string =>
  SOURCE.replace("  return new URL(input);\n", `  ${open}\n  return new URL(input);\n${close ? `  ${close}\n` : ""}`);

describe("ignore hints added to JavaScript and TypeScript source", () => {
  it.each([
    ["/* v8 ignore next */", 5],
    ["/* c8 ignore next */", 5],
    ["/* istanbul ignore next */", 5],
    ["/* node:coverage ignore next -- @preserve */", 5],
    ["/** v8 ignore next -- @preserve */", 5],
    ["// deprecated, kept for compat: v8 ignore start", 5],
    ['const note = "v8 ignore start";', 5],
  ])("%s is an exclusion the agent added", (hint, line) => {
    const found = hintsAdded(wrapped(hint));
    expect(found).toEqual([{ line, text: `  ${hint}`, author: AGENT.name }]);
  });

  it("a start/stop pair in node:coverage's spelling: both lines", () => {
    const found = hintsAdded(wrapped("/* node:coverage ignore start */", "/* node:coverage ignore stop */"));
    expect(found.map((f) => f.line)).toEqual([5, 7]);
  });

  it("a hint whose words a line break splits: the line the agent wrote", () => {
    const found = hintsAdded(wrapped("/* v8\n  ignore next */"));
    expect(found).toEqual([{ line: 5, text: "  /* v8", author: AGENT.name }]);
  });

  it("a hint of the base's kept as it was: nothing added", () => {
    const base = wrapped("/* v8 ignore next */");
    expect(hintsAdded(base.replace("export function", "// Parses a URL.\nexport function"), base)).toEqual([]);
  });

  it("a base's `v8 ignore stop` deleted: the region runs on, charged to the commit that changed the file", () => {
    const base = `${wrapped("/* v8 ignore start */", "/* v8 ignore stop */")}export const two = () => 2;\n`;
    const head = base.replace("  /* v8 ignore stop */\n", "");
    const found = hintsAdded(head, base);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ line: 5, author: AGENT.name });
    expect(found[0]!.text).toMatch(/ignore stop` of the base removed/);
  });

  it("prose that names coverage without a hint is not one", () => {
    expect(hintsAdded(wrapped("// v8 coverage is on; ignore nothing here"))).toEqual([]);
  });
});

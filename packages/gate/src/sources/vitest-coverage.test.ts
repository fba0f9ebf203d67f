// Which commits answer for a loosened vitest coverage setting: those that touched a vitest config file or a
// package.json; when none did, every commit that changed anything but documentation.
import { describe, expect, it } from "vitest";
import type { Commit } from "@proofgate/core";
import type { VitestCoverageSettings } from "@proofgate/core/proof-run";
import { vitestCoverageChanges } from "./vitest-coverage.js";

const BASE: VitestCoverageSettings = {
  provider: "v8",
  customProviderModule: null,
  include: null,
  exclude: ["coverage/**"],
  excludeAfterRemap: false,
  changed: null,
  allowExternal: false,
  ignoreClassMethods: [],
  setupFiles: [],
  configFile: "vitest.config.ts",
  configDependencies: [],
};
const LOOSER: VitestCoverageSettings = { ...BASE, exclude: ["coverage/**", "src/hard.ts"] };

const who = { name: "coding-agent[bot]", email: "agent@example.com" };
const commit = (sha: string): Commit => ({ sha, parents: [], author: who, committer: who, subject: sha, trailers: [] });
const A = commit("a".repeat(40));
const B = commit("b".repeat(40));
const C = commit("c".repeat(40));

const steady = (settings: VitestCoverageSettings | null) => ({
  start: settings,
  end: { settings, altered: [] as string[] },
});
const charged = (touched: Record<string, string[]>, head: ReturnType<typeof steady> = steady(LOOSER)) =>
  vitestCoverageChanges(BASE, head, [A, B, C], new Map(Object.entries(touched))).commits.map((c) => [
    c.commit.sha[0],
    c.changes.map((x) => x.item),
  ]);

describe("vitestCoverageChanges", () => {
  it("no change: nothing charged", () => {
    const r = vitestCoverageChanges(BASE, steady(BASE), [A], new Map([[A.sha, ["vitest.config.ts"]]]));
    expect(r).toEqual({ net: [], commits: [] });
  });

  it("charges the commits that touched a vitest config or a package.json, each with every change", () => {
    expect(
      charged({ [A.sha]: ["src/a.ts"], [B.sha]: ["vitest.config.ts"], [C.sha]: ["packages/x/package.json"] }),
    ).toEqual([
      ["b", ["src/hard.ts"]],
      ["c", ["src/hard.ts"]],
    ]);
  });

  it("when none did (a config importing a module), every commit that changed more than documentation", () => {
    expect(
      charged({ [A.sha]: ["src/a.ts"], [B.sha]: ["README.md", "docs/x.md"], [C.sha]: ["coverage.settings.ts"] }),
    ).toEqual([
      ["a", ["src/hard.ts"]],
      ["c", ["src/hard.ts"]],
    ]);
  });

  it("settings the proof run could not read are charged like a loosening", () => {
    expect(charged({ [A.sha]: ["vitest.config.ts"] }, steady(null))).toEqual([["a", [undefined]]]);
  });

  it("a file the config imports (vite's list) answers for the config's settings, as the config file does", () => {
    // B (a human's harmless edit) touched the config, A the plugin module it imports.
    const imports = { ...LOOSER, configDependencies: ["tools/coverage-plugin.ts"] };
    const head = { start: imports, end: { settings: imports, altered: [] as string[] } };
    expect(
      charged({ [A.sha]: ["tools/coverage-plugin.ts"], [B.sha]: ["vitest.config.ts"], [C.sha]: ["src/a.ts"] }, head),
    ).toEqual([
      ["a", ["src/hard.ts"]],
      ["b", ["src/hard.ts"]],
    ]);
  });

  it("a change made while the tests ran answers to every commit that changed code, not only the config's", () => {
    // B touched the config (a human's harmless edit), A added a globalSetup file that pushes an exclude.
    const during = { start: BASE, end: { settings: LOOSER, altered: [] } };
    expect(
      charged({ [A.sha]: ["test/global-setup.ts"], [B.sha]: ["vitest.config.ts"], [C.sha]: ["README.md"] }, during),
    ).toEqual([
      ["a", ["src/hard.ts", undefined]],
      ["b", ["src/hard.ts", undefined]],
    ]);
    // Both kinds at once: the config's change stays with the config's commit.
    const both = { start: LOOSER, end: { settings: LOOSER, altered: ["the coverage provider was replaced"] } };
    expect(charged({ [A.sha]: ["src/a.ts"], [B.sha]: ["vitest.config.ts"] }, both)).toEqual([
      ["a", ["the coverage provider was replaced"]],
      ["b", ["src/hard.ts", "the coverage provider was replaced"]],
    ]);
  });
});

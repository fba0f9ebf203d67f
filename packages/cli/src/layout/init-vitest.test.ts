import { DEFAULT_AGENT_PATTERNS, defaultConfig, parseConfig, pathMatcher, protectedPaths } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { configTemplate } from "../commands/init.js";
import { addDevCommand, detectVitest, vitestTooOld } from "./detect-vitest.js";
import { planVitestInit, VITEST_CONFIG_GLOBS, vitestPropertiesCommand } from "./init-vitest.js";
import { memoryTree } from "./layout-tree.js";

const DEFAULTS = defaultConfig(DEFAULT_AGENT_PATTERNS);

// A pnpm monorepo like this one: vitest at the root, projects in packages, recorded fixtures and snapshots
// beside the sources, a fast-check property suite with a committed seed corpus.
const MONOREPO = {
  "package.json": JSON.stringify({
    private: true,
    devDependencies: { vitest: "4.1.12", "@vitest/coverage-v8": "4.1.12" },
  }),
  "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
  "vitest.config.ts": "export default {}\n",
  "packages/core/vitest.config.ts": "export default {}\n",
  "packages/core/src/index.ts": "",
  "packages/core/src/__fixtures__/report.json": "{}",
  "packages/core/src/__snapshots__/render.test.ts.snap": "// snapshot\n",
  "packages/core/src/__properties__/gate.property.test.ts": "",
  "packages/core/properties/seeds/floor/001.json": "{}",
  "packages/cli/test/fixtures/help.txt": "usage",
  // ufo's shape: golden JSON in test/fixture/ (singular), as pytest projects name such folders too.
  "packages/url/test/fixture/toascii.json": "[]",
  "packages/cli/src/fixtures/not-a-test-folder.ts": "",
  "packages/cli/src/__fixtures__/.gitkeep": "",
  "node_modules/some-lib/__fixtures__/x.json": "{}",
  "packages/core/dist/__fixtures__/report.json": "{}",
};

describe("detectVitest", () => {
  it("finds a vitest monorepo: the package manager, the root config, golden folders and seeds, never node_modules or dist", () => {
    expect(detectVitest(memoryTree(MONOREPO))).toEqual({
      from: "vitest in package.json devDependencies",
      exec: "pnpm exec vitest",
      configFiles: ["vitest.config.ts"],
      fixtures: [
        "packages/cli/test/fixtures",
        "packages/core/src/__fixtures__",
        "packages/core/src/__snapshots__",
        "packages/url/test/fixture",
      ],
      seeds: ["packages/core/properties/seeds"],
      propertyTests: ["packages/core/properties", "packages/core/src/__properties__"],
    });
  });

  it("a vitest config alone is enough; npm's runner never downloads a vitest the project lacks", () => {
    const found = detectVitest(
      memoryTree({ "vitest.config.mts": "", "package-lock.json": "{}", "package.json": "{}" }),
    );
    expect(found).toMatchObject({ from: "vitest.config.mts", exec: "npx --no vitest", fixtures: [], seeds: [] });
    expect(detectVitest(memoryTree({ "yarn.lock": "", "package.json": '{"dependencies":{"vitest":"4"}}' }))?.exec).toBe(
      "yarn vitest",
    );
  });

  it("a workspace's member (init in its folder): vitest, the lockfile and the install from the workspace's root", () => {
    const root = memoryTree({
      "package.json": JSON.stringify({ scripts: { build: "pnpm -r build" }, devDependencies: { vitest: "4.1.12" } }),
      "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
      "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    });
    const member = memoryTree({
      "package.json": JSON.stringify({ name: "beasties", dependencies: { postcss: "8" } }),
      "src/index.ts": "",
      "test/__snapshots__/index.test.ts.snap": "// snapshot\n",
    });
    expect(detectVitest(member, { tree: root, up: "../.." })).toEqual({
      from: "vitest in the workspace root's package.json devDependencies (../../package.json)",
      exec: "pnpm exec vitest",
      configFiles: [],
      fixtures: ["test/__snapshots__"],
      seeds: [],
      propertyTests: [],
      setup: "cd ../.. && pnpm install --frozen-lockfile --prefer-offline && pnpm run build",
    });
    // Alone (no repository around it), the member is no vitest project; nor is a folder that is no package.
    expect(detectVitest(member)).toBeUndefined();
    expect(detectVitest(memoryTree({ "src/a.ts": "" }), { tree: root, up: ".." })).toBeUndefined();
    // A member with its own vitest config: the root's lockfile and install still.
    const own = memoryTree({ "package.json": "{}", "vitest.config.mts": "" });
    expect(detectVitest(own, { tree: root, up: "../.." })).toMatchObject({
      from: "vitest.config.mts",
      exec: "pnpm exec vitest",
      setup: "cd ../.. && pnpm install --frozen-lockfile --prefer-offline && pnpm run build",
    });
  });

  it("a workspace gets the install (and the build, when the root has one) its base's worktree needs; a single package none", () => {
    const pnpm = { ...MONOREPO, "pnpm-workspace.yaml": "packages:\n  - packages/*\n" };
    expect(detectVitest(memoryTree(pnpm))?.setup).toBe("pnpm install --frozen-lockfile --prefer-offline");
    const built = {
      ...pnpm,
      "package.json": JSON.stringify({ scripts: { build: "turbo run build" }, devDependencies: { vitest: "4" } }),
    };
    expect(detectVitest(memoryTree(built))?.setup).toBe(
      "pnpm install --frozen-lockfile --prefer-offline && pnpm run build",
    );
    const npm = {
      "package.json": JSON.stringify({ workspaces: ["packages/*"], devDependencies: { vitest: "4" } }),
      "package-lock.json": "{}",
    };
    expect(detectVitest(memoryTree(npm))?.setup).toBe("npm ci --prefer-offline --no-audit --no-fund");
    expect(detectVitest(memoryTree({ ...npm, "yarn.lock": "" }))?.setup).toBe("yarn install --immutable");
    expect(detectVitest(memoryTree(MONOREPO))?.setup).toBeUndefined();
    const plan = planVitestInit(detectVitest(memoryTree(built))!, DEFAULTS, true);
    expect(plan.config.commands.baseSetup).toBe("pnpm install --frozen-lockfile --prefer-offline && pnpm run build");
    const loaded = parseConfig(configTemplate(plan.config, plan.notes), "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(loaded.config?.commands.baseSetup).toBe(plan.config.commands.baseSetup);
    expect(
      planVitestInit(detectVitest(memoryTree(MONOREPO))!, DEFAULTS, true).config.commands.baseSetup,
    ).toBeUndefined();
  });

  it("no vitest: a Python project, a package.json without vitest, one that is not JSON", () => {
    expect(detectVitest(memoryTree({ "pyproject.toml": "", "tests/test_a.py": "" }))).toBeUndefined();
    expect(detectVitest(memoryTree({ "package.json": '{"devDependencies":{"jest":"29"}}' }))).toBeUndefined();
    expect(detectVitest(memoryTree({ "package.json": "{ not json" }))).toBeUndefined();
  });
});

describe("planVitestInit", () => {
  const layout = detectVitest(memoryTree(MONOREPO))!;

  it("writes vitest's commands: the universe from `vitest list --json`, coverage-v8's Istanbul JSON, JUnit, the gate's reporter", () => {
    const { config, warnings } = planVitestInit(layout, DEFAULTS, true);
    expect(config.commands).toMatchObject({
      runner: "vitest",
      record: true,
      collect: "pnpm exec vitest list --json=collected.json",
      proof:
        "pnpm exec vitest run --coverage.enabled --coverage.provider=v8 --coverage.reporter=json --coverage.reportOnFailure --coverage.reportsDirectory=coverage --reporter=default --reporter=junit --outputFile.junit=results.xml ${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}",
    });
    expect(config.universe.collected).toEqual(["collected.json"]);
    expect(config.coverage.reports).toEqual(["coverage/coverage-final.json"]);
    expect(config.results.junit).toEqual(["results.xml"]);
    expect(warnings).toEqual([]);
  });

  it("locks the golden folders; runs the property test folders on the base's seeds as the properties step", () => {
    const { config } = planVitestInit(layout, DEFAULTS, true);
    expect(config.fixtures).toMatchObject({ enabled: true, paths: layout.fixtures });
    expect(config.properties).toMatchObject({
      enabled: true,
      judgeTests: true,
      seeds: ["packages/core/properties/seeds"],
      results: ["properties.xml"],
      tests: ["packages/core/properties", "packages/core/src/__properties__"],
    });
    expect(config.commands.properties).toBe(
      "pnpm exec vitest run packages/core/properties packages/core/src/__properties__ --reporter=default --reporter=junit --outputFile.junit=properties.xml ${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}",
    );
  });

  it("quotes a property folder that is not one plain shell word; no seeds: no properties step, the tests still judged", () => {
    expect(vitestPropertiesCommand("npx --no vitest", ["test/my props", "it's"])).toBe(
      "npx --no vitest run 'test/my props' 'it'\\''s' --reporter=default --reporter=junit --outputFile.junit=properties.xml ${PROOFGATE_VITEST_REPORTER:+--reporter=$PROOFGATE_VITEST_REPORTER}",
    );
    const unseeded = detectVitest(
      memoryTree({ "package.json": '{"devDependencies":{"vitest":"4"}}', "src/__properties__/a.test.ts": "" }),
    )!;
    const { config } = planVitestInit(unseeded, DEFAULTS, true);
    expect(config.properties).toMatchObject({ enabled: false, judgeTests: true, tests: ["src/__properties__"] });
    expect(config.commands.properties).toBeUndefined();
  });

  it("protects every vitest and vite config, a workspace project's too", () => {
    const { config } = planVitestInit(layout, DEFAULTS, true);
    const protect = pathMatcher(protectedPaths(config));
    for (const path of [
      "vitest.config.ts",
      "packages/core/vitest.config.ts",
      "apps/web/vite.config.mjs",
      "vitest.workspace.ts",
    ])
      expect(protect(path), path).toBe(true);
    expect(protect("packages/core/src/index.ts")).toBe(false);
    expect(config.protect.paths).toEqual([...DEFAULTS.protect.paths, ...VITEST_CONFIG_GLOBS]);
  });

  it("warns when @vitest/coverage-v8 is missing, and turns fixtures off where there are none", () => {
    const bare = detectVitest(memoryTree({ "package.json": '{"devDependencies":{"vitest":"4"}}' }))!;
    const { config, warnings } = planVitestInit(bare, DEFAULTS, false);
    expect(warnings).toEqual([expect.stringContaining("@vitest/coverage-v8 is not installed")]);
    expect(config.fixtures.enabled).toBe(false);
    expect(config.properties).toMatchObject({ enabled: false, judgeTests: false });
  });

  it("the template it writes is a config the gate loads as planned, [protect] paths uncommented", () => {
    const plan = planVitestInit(layout, DEFAULTS, true);
    const text = configTemplate(plan.config, plan.notes);
    expect(text).toMatch(/^paths = \[.*"\*\*\/vitest\.config\.\*"/m);
    const loaded = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(loaded.errors).toEqual([]);
    expect(loaded.config?.commands).toEqual(plan.config.commands);
    expect(loaded.config?.protect.paths).toEqual(plan.config.protect.paths);
    expect(loaded.config?.properties).toEqual(plan.config.properties);
    expect(loaded.config?.fixtures.paths).toEqual(plan.config.fixtures.paths);
  });
});

describe("vitestTooOld: the installed vitest, when too old for the gate's runner (before 4.1: no TestRunner export)", () => {
  const at = (version: string) => memoryTree({ "node_modules/vitest/package.json": JSON.stringify({ version }) });
  it("names a vitest 3 (or older) and 4.0; 4.1 and later, none installed or an unreadable package.json are not", () => {
    expect(vitestTooOld(at("3.2.4"))).toBe("3.2.4");
    expect(vitestTooOld(at("1.6.0"))).toBe("1.6.0");
    expect(vitestTooOld(at("4.0.17"))).toBe("4.0.17");
    expect(vitestTooOld(at("4.0.18"))).toBe("4.0.18");
    expect(vitestTooOld(at("4.1.0"))).toBeUndefined();
    expect(vitestTooOld(at("4.1.12"))).toBeUndefined();
    expect(vitestTooOld(at("5.0.0-beta.1"))).toBeUndefined();
    expect(vitestTooOld(memoryTree({}))).toBeUndefined();
    expect(vitestTooOld(memoryTree({ "node_modules/vitest/package.json": "{" }))).toBeUndefined();
  });
});

describe("addDevCommand: the upgrade command init suggests, by the lockfile", () => {
  it("pnpm, yarn, bun, else npm", () => {
    expect(addDevCommand(memoryTree({ "pnpm-lock.yaml": "" }))).toBe("pnpm add -D");
    expect(addDevCommand(memoryTree({ "yarn.lock": "" }))).toBe("yarn add -D");
    expect(addDevCommand(memoryTree({ "bun.lock": "" }))).toBe("bun add -d");
    expect(addDevCommand(memoryTree({ "package-lock.json": "{}" }))).toBe("npm i -D");
  });
});

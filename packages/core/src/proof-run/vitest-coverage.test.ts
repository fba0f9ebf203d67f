import { describe, expect, it } from "vitest";
import {
  diffVitestCoverage,
  diffVitestCoverageRun,
  isVitestConfigPath,
  parseVitestSettingsFile,
  readVitestCoverageSettings,
  type VitestCoverageSettings,
} from "./vitest-coverage.js";
import { VITEST_SETTINGS_FORMAT } from "./vitest.js";

// What vitest 4.1.12 resolves for a project that sets nothing but the provider (its own default excludes,
// the config file made repository-relative by the reporter).
const BASE: VitestCoverageSettings = {
  provider: "v8",
  customProviderModule: null,
  include: null,
  exclude: ["coverage/**", "**/node_modules/**", "**/*.test.ts", "vitest.config.ts"],
  excludeAfterRemap: false,
  changed: null,
  allowExternal: false,
  ignoreClassMethods: [],
  setupFiles: [],
  configFile: "vitest.config.ts",
  configDependencies: [],
};
const head = (edit: Partial<VitestCoverageSettings>): VitestCoverageSettings => ({ ...BASE, ...edit });
const keys = (base: VitestCoverageSettings, h: VitestCoverageSettings | null) =>
  diffVitestCoverage(base, h).map((c) => [c.key, c.item]);

describe("diffVitestCoverage: what the head measures less than the base", () => {
  it("the same settings, reordered or with a pattern dropped from exclude, are no change", () => {
    expect(diffVitestCoverage(BASE, BASE)).toEqual([]);
    expect(diffVitestCoverage(BASE, head({ exclude: [...BASE.exclude].reverse() }))).toEqual([]);
    expect(diffVitestCoverage(BASE, head({ exclude: BASE.exclude.slice(1) }))).toEqual([]);
    expect(diffVitestCoverage(head({ include: ["src/**"] }), BASE)).toEqual([]);
    expect(diffVitestCoverage(head({ allowExternal: true }), head({ allowExternal: true }))).toEqual([]);
  });

  it("an exclude pattern added is a loosening of coverage.exclude, named with its file", () => {
    const changes = diffVitestCoverage(BASE, head({ exclude: [...BASE.exclude, "src/hard.ts"] }));
    expect(changes).toEqual([
      {
        kind: "loosening",
        key: "vitest:coverage.exclude",
        item: "src/hard.ts",
        message: `vitest's coverage.exclude adds "src/hard.ts": the files it matches are no longer measured`,
        file: "vitest.config.ts",
      },
    ]);
  });

  it("include set where it was unset, or a pattern of it removed", () => {
    expect(keys(BASE, head({ include: ["src/easy/**"] }))).toEqual([["vitest:coverage.include", undefined]]);
    expect(keys(head({ include: ["src/**", "lib/**"] }), head({ include: ["src/**"] }))).toEqual([
      ["vitest:coverage.include", "lib/**"],
    ]);
    expect(keys(head({ include: ["src/**"] }), head({ include: ["src/**", "lib/**"] }))).toEqual([]);
  });

  it("another provider or custom module, ignoreClassMethods, excludeAfterRemap on, allowExternal off", () => {
    expect(keys(BASE, head({ provider: "istanbul" }))).toEqual([["vitest:coverage.provider", undefined]]);
    expect(
      keys(
        head({ provider: "custom", customProviderModule: "a.js" }),
        head({ provider: "custom", customProviderModule: "b.js" }),
      ),
    ).toEqual([["vitest:coverage.customProviderModule", undefined]]);
    expect(keys(BASE, head({ ignoreClassMethods: ["render", "render"] }))).toEqual([
      ["vitest:coverage.ignoreClassMethods", "render"],
    ]);
    expect(keys(BASE, head({ excludeAfterRemap: true }))).toEqual([["vitest:coverage.excludeAfterRemap", undefined]]);
    expect(keys(BASE, head({ changed: "main" }))).toEqual([["vitest:coverage.changed", undefined]]);
    expect(keys(head({ changed: "main" }), head({ changed: "main" }))).toEqual([]);
    expect(keys(head({ changed: "main" }), BASE)).toEqual([]);
    expect(keys(head({ allowExternal: true }), BASE)).toEqual([["vitest:coverage.allowExternal", undefined]]);
  });

  it("a base file coverage measures made a setup file is a loosening; a new or unmeasured setup file is not", () => {
    const setup = (path: string, measured: boolean) => head({ setupFiles: [{ path, measured }] });
    const existed = (path: string) => path.startsWith("src/");
    expect(diffVitestCoverage(BASE, setup("src/hard.ts", true), existed)).toMatchObject([
      { key: "vitest:setupFiles", item: "src/hard.ts", message: expect.stringMatching(/never measures a setup file/) },
    ]);
    expect(diffVitestCoverage(BASE, setup("test/setup.ts", true), existed)).toEqual([]);
    expect(diffVitestCoverage(BASE, setup("src/hard.ts", false), existed)).toEqual([]);
    expect(diffVitestCoverage(setup("src/hard.ts", true), setup("src/hard.ts", true), existed)).toEqual([]);
    expect(keys(BASE, setup("test/setup.ts", true))).toEqual([["vitest:setupFiles", "test/setup.ts"]]);
  });

  it("the head's settings unread (the proof run's reporter failed to read them) fail closed", () => {
    expect(diffVitestCoverage(BASE, null)).toMatchObject([
      { kind: "loosening", key: "vitest:coverage.settings", file: "vitest.config.ts" },
    ]);
  });

  it("names the head's config file, else the base's, else vitest.config", () => {
    const moved = head({ configFile: "vite.config.mts", exclude: [...BASE.exclude, "x"] });
    expect(diffVitestCoverage(BASE, moved)[0]!.file).toBe("vite.config.mts");
    const none = { ...BASE, configFile: null };
    expect(diffVitestCoverage(none, { ...none, exclude: ["x"] })[0]!.file).toBe("vitest.config");
  });
});

describe("diffVitestCoverageRun: the settings read before any test and again when the run ended", () => {
  const run = (
    start: VitestCoverageSettings | null,
    end?: { settings: VitestCoverageSettings | null; altered: string[] },
  ) => {
    const r = diffVitestCoverageRun(BASE, start, end);
    return { config: r.config.map((c) => [c.key, c.item]), duringRun: r.duringRun.map((c) => [c.key, c.item]) };
  };
  const same = { settings: BASE, altered: [] };

  it("unchanged from start to end: only what the config changed", () => {
    expect(run(BASE, same)).toEqual({ config: [], duringRun: [] });
    const looser = head({ exclude: [...BASE.exclude, "src/a.ts"] });
    expect(run(looser, { settings: looser, altered: [] })).toEqual({
      config: [["vitest:coverage.exclude", "src/a.ts"]],
      duringRun: [],
    });
  });

  it("an exclude pattern pushed while the tests ran (a globalSetup file) is a loosening, and the change itself", () => {
    const r = diffVitestCoverageRun(BASE, BASE, {
      settings: head({ exclude: [...BASE.exclude, "src/hard.ts"] }),
      altered: [],
    });
    expect(r.config).toEqual([]);
    expect(r.duringRun.map((c) => [c.key, c.item])).toEqual([
      ["vitest:coverage.exclude", "src/hard.ts"],
      ["vitest:coverage.duringRun", undefined],
    ]);
    expect(r.duringRun[0]!.message).toMatch(/adds "src\/hard.ts".*\(set while the tests ran\)/);
    expect(r.duringRun[1]!.message).toMatch(/changed while the tests ran/);
  });

  it("a change that loosens nothing by itself (a pattern dropped) still counts: the settings moved under the run", () => {
    expect(run(BASE, { settings: head({ exclude: BASE.exclude.slice(1) }), altered: [] }).duringRun).toEqual([
      ["vitest:coverage.duringRun", undefined],
    ]);
  });

  it("the provider's filter replaced or its cache seeded: each said, with the settings unchanged", () => {
    const what = "the coverage provider's file filter (isIncluded) was replaced";
    expect(run(BASE, { settings: BASE, altered: [what] }).duringRun).toEqual([["vitest:coverage.duringRun", what]]);
  });

  it("no second reading, or one that failed, fails closed", () => {
    expect(run(BASE, undefined).duringRun).toEqual([["vitest:coverage.duringRun", undefined]]);
    expect(
      run(BASE, { settings: null, altered: ["the coverage settings could not be read when the run ended"] }).duringRun,
    ).toEqual([
      ["vitest:coverage.settings", undefined],
      ["vitest:coverage.duringRun", "the coverage settings could not be read when the run ended"],
    ]);
  });

  it("a loosening already in the first reading is not said twice", () => {
    const looser = head({ exclude: [...BASE.exclude, "src/a.ts"] });
    const later = head({ exclude: [...BASE.exclude, "src/a.ts", "src/b.ts"] });
    expect(run(looser, { settings: later, altered: [] })).toEqual({
      config: [["vitest:coverage.exclude", "src/a.ts"]],
      duringRun: [
        ["vitest:coverage.exclude", "src/b.ts"],
        ["vitest:coverage.duringRun", undefined],
      ],
    });
  });
});

describe("reading the settings", () => {
  const written = {
    provider: "v8",
    custom_provider_module: null,
    include: null,
    exclude: ["coverage/**"],
    exclude_after_remap: false,
    changed: null,
    allow_external: false,
    ignore_class_methods: [],
    setup_files: [],
    config_file: "vitest.config.ts",
    config_dependencies: [],
  };

  it("reads what the reporters write, and names the first field of the wrong shape", () => {
    expect(readVitestCoverageSettings(written, "c")).toEqual({ ...BASE, exclude: ["coverage/**"] });
    expect(readVitestCoverageSettings([], "c")).toBe("c is not an object");
    expect(readVitestCoverageSettings({ ...written, provider: 1 }, "c")).toBe("c.provider is not a string");
    expect(readVitestCoverageSettings({ ...written, include: "src" }, "c")).toBe(
      "c.include is not a list of strings or null",
    );
    expect(readVitestCoverageSettings({ ...written, exclude: [1] }, "c")).toBe("c.exclude is not a list of strings");
    expect(readVitestCoverageSettings({ ...written, changed: undefined }, "c")).toBe(
      "c.changed is not a string or null",
    );
    expect(readVitestCoverageSettings({ ...written, allow_external: "no" }, "c")).toBe(
      "c.allow_external is not a boolean",
    );
    expect(readVitestCoverageSettings({ ...written, setup_files: [{ path: "a" }] }, "c")).toBe(
      "c.setup_files is not a list of {path, measured}",
    );
    expect(readVitestCoverageSettings({ ...written, config_file: undefined }, "c")).toBe(
      "c.config_file is not a string or null",
    );
    expect(readVitestCoverageSettings({ ...written, config_dependencies: "tools/plugin.ts" }, "c")).toBe(
      "c.config_dependencies is not a list of strings",
    );
    expect(readVitestCoverageSettings({ ...written, config_dependencies: ["tools/plugin.ts"] }, "c")).toMatchObject({
      configDependencies: ["tools/plugin.ts"],
    });
  });

  it("parseVitestSettingsFile: only this check's file (format and nonce), each refusal a run_record_invalid with a fix", () => {
    const file = (v: unknown) => JSON.stringify(v);
    const ok = parseVitestSettingsFile(
      file({ format: VITEST_SETTINGS_FORMAT, nonce: "n1", coverage: written }),
      "f",
      "n1",
    );
    expect(ok.settings?.exclude).toEqual(["coverage/**"]);
    const refused = (text: string) => {
      const r = parseVitestSettingsFile(text, "f", "n1");
      expect(r.settings).toBeUndefined();
      expect(r.errors![0]).toMatchObject({ code: "run_record_invalid", file: "f" });
      expect(r.errors![0]!.fix).toContain("PROOFGATE_VITEST_REPORTER");
      return r.errors![0]!.message;
    };
    expect(refused("{")).toMatch(/not JSON/);
    expect(refused(file({ format: "other", nonce: "n1", coverage: written }))).toMatch(/not proofgate's/);
    expect(refused(file({ format: VITEST_SETTINGS_FORMAT, nonce: "n2", coverage: written }))).toMatch(/another nonce/);
    expect(
      refused(file({ format: VITEST_SETTINGS_FORMAT, nonce: "n1", coverage: { ...written, exclude: null } })),
    ).toMatch(/malformed: coverage\.exclude/);
  });
});

describe("isVitestConfigPath: the files whose change may change vitest's resolved settings", () => {
  it.each([
    "vitest.config.ts",
    "vitest.config.mts",
    "packages/web/vite.config.js",
    "vitest.config.e2e.ts",
    "vitest.workspace.ts",
    "vitest.workspace.json",
    "vitest.projects.cjs",
    "package.json",
    "apps/site/package.json",
  ])("%s is one", (path) => expect(isVitestConfigPath(path)).toBe(true));

  it.each([
    "src/vitest.ts",
    "vitest.config",
    "package.jsonc",
    "docs/vitest.config.md",
    "my-vite.config.ts",
    "tsconfig.json",
  ])("%s is not", (path) => expect(isVitestConfigPath(path)).toBe(false));
});

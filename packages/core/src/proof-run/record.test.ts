import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { verifyRunRecord } from "./record.js";

// Recorded by __fixtures__/record.mjs with these (see __fixtures__/README.md).
const KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const NONCE = "0123456789abcdef0123456789abcdef";
const FILE = "proofgate-report/run-record.json";
const RECORDED = readFileSync(new URL("./__fixtures__/mixed-run.json", import.meta.url), "utf8");
const expected = { nonce: NONCE, key: KEY, file: FILE };

/** The recorded payload, changed by `edit`, signed again with `key` the way the plugin signs. */
function resigned(edit: (payload: Record<string, unknown>) => void, key = KEY): string {
  const payload = JSON.parse(RECORDED) as Record<string, unknown>;
  delete payload.signature;
  edit(payload);
  const signature = createHmac("sha256", Buffer.from(key, "hex")).update(canonicalJson(payload)!).digest("hex");
  return JSON.stringify({ ...payload, signature });
}

describe("verifyRunRecord on a record the real plugin wrote (pytest 7.2)", () => {
  const { record, errors } = verifyRunRecord(RECORDED, expected);

  it("verifies Python's signature and reads every test with its outcome", () => {
    expect(errors).toEqual([]);
    expect(record!.pytest).toBe("7.2.1");
    expect(Object.fromEntries(record!.tests.map((t) => [t.id.split("::")[1], t.outcome]))).toEqual({
      test_add: "passed",
      test_locked: "passed",
      test_fails: "failed",
      test_skip_marker: "skipped",
      test_skip_body: "skipped",
      test_skip_fixture: "skipped",
      test_xfail: "xfailed",
      test_xpass: "xpassed",
    });
  });

  it("records where each skip came from", () => {
    const origin = (name: string) => record!.tests.find((t) => t.id.endsWith(`::${name}`))!.origin;
    expect(origin("test_skip_marker")).toMatchObject({ by: "marker", path: "tests/test_calc.py" });
    expect(origin("test_skip_body")).toMatchObject({ by: "code", path: "tests/test_calc.py", phase: "call" });
    expect(origin("test_skip_fixture")).toMatchObject({ by: "code", path: "tests/conftest.py", phase: "setup" });
    expect(origin("test_xfail")).toMatchObject({ by: "marker" });
  });

  it("records the module-level skip, the collection error, the deselected lease and the files read", () => {
    expect(record!.collection.map((c) => [c.id, c.scope, c.logged])).toEqual([
      ["tests/test_broken.py", "module", "failed"],
      ["tests/test_module_skip.py", "module", "skipped"],
    ]);
    expect(record!.deselected).toEqual({ proofgate: ["tests/test_calc.py::test_frozen"], other: [] });
    expect(record!.files.filter((f) => !f.path.endsWith(".py")).map((f) => [f.path, f.first])).toEqual([
      ["tests/data/golden.txt", "tests/test_calc.py::test_add"],
      ["tests/fixtures/locked.txt", "tests/test_calc.py::test_locked"],
    ]);
  });
});

describe("verifyRunRecord refuses what is not this run's record", () => {
  const problem = (text: string | undefined, exp = expected) => {
    const result = verifyRunRecord(text, exp);
    expect(result.record).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.file).toBe(FILE);
    expect(result.errors[0]!.fix).toBeTruthy();
    return result.errors[0]!;
  };

  it("no file: the plugin did not run (file_missing)", () => {
    expect(problem(undefined)).toMatchObject({ code: "file_missing", problem: "missing" });
  });

  it("an empty file (file_empty)", () => {
    expect(problem("  \n")).toMatchObject({ code: "file_empty", problem: "empty" });
  });

  it("not JSON, or JSON of another kind", () => {
    expect(problem("{nope")).toMatchObject({ code: "run_record_invalid", problem: "not_json" });
    expect(problem('{"tests": []}')).toMatchObject({ problem: "malformed" });
    expect(problem("[]")).toMatchObject({ problem: "malformed" });
  });

  it("unsigned", () => {
    const payload = JSON.parse(RECORDED) as Record<string, unknown>;
    delete payload.signature;
    expect(problem(JSON.stringify(payload))).toMatchObject({ problem: "unsigned" });
  });

  it("another plugin version, even when signed", () => {
    expect(problem(resigned((p) => (p.plugin = "0")))).toMatchObject({ problem: "wrong_version" });
    expect(problem(resigned((p) => (p.version = 2)))).toMatchObject({ problem: "wrong_version" });
  });

  it("another run's record (its nonce), naming both nonces", () => {
    const error = problem(RECORDED, { ...expected, nonce: "ffffffffffffffffffffffffffffffff" });
    expect(error).toMatchObject({ problem: "wrong_nonce" });
    expect(error.message).toContain(NONCE);
  });

  it("a record whose outcome was edited after the plugin signed it", () => {
    const edited = RECORDED.replace('"outcome":"failed"', '"outcome":"passed"');
    expect(edited).not.toBe(RECORDED);
    expect(problem(edited)).toMatchObject({ problem: "bad_signature" });
  });

  it("a record signed with another key (made outside this run)", () => {
    const other = "ff".repeat(32);
    expect(problem(resigned(() => {}, other))).toMatchObject({ problem: "bad_signature" });
  });

  it("a field added to a signed record", () => {
    const added = RECORDED.replace('{"addopts"', '{"extra":1,"addopts"');
    expect(problem(added)).toMatchObject({ problem: "bad_signature" });
  });

  it("a signed record of the wrong shape is malformed, not a crash", () => {
    expect(problem(resigned((p) => (p.tests = [{ id: 1 }])))).toMatchObject({ problem: "malformed" });
    expect(problem(resigned((p) => delete p.files))).toMatchObject({ problem: "malformed" });
    expect(problem(resigned((p) => (p.modules = ["pkg/a.py", 3])))).toMatchObject({ problem: "malformed" });
  });

  it("reads the modules the run loaded; a record without them (an older plugin) has none", () => {
    const modules = ["pkg/calc.py", "tests/helpers_impl.py"];
    expect(
      verifyRunRecord(
        resigned((p) => (p.modules = modules)),
        expected,
      ).record!.modules,
    ).toEqual(modules);
    expect(
      verifyRunRecord(
        resigned((p) => delete p.modules),
        expected,
      ).record!.modules,
    ).toBeUndefined();
  });

  it("reads each module's first importer (a repository file or null); another shape is malformed", () => {
    const importers = { "tests/helpers.py": "tests/test_calc.py", "tests/test_calc.py": null };
    expect(
      verifyRunRecord(
        resigned((p) => (p.importers = importers)),
        expected,
      ).record!.importers,
    ).toEqual(importers);
    expect(
      verifyRunRecord(
        resigned(() => {}),
        expected,
      ).record!.importers,
    ).toBeUndefined();
    expect(problem(resigned((p) => (p.importers = { "pkg/a.py": 3 })))).toMatchObject({ problem: "malformed" });
    expect(problem(resigned((p) => (p.importers = ["pkg/a.py"])))).toMatchObject({ problem: "malformed" });
  });

  it("reads vitest's coverage settings (null when its reporter could not read them); another shape is malformed", () => {
    const settings = {
      provider: "v8",
      custom_provider_module: null,
      include: ["src/**"],
      exclude: ["coverage/**"],
      exclude_after_remap: false,
      changed: null,
      allow_external: false,
      ignore_class_methods: [],
      setup_files: [{ path: "test/setup.ts", measured: false }],
      config_file: "vitest.config.ts",
      config_dependencies: [],
    };
    const read = (v: unknown) =>
      verifyRunRecord(
        resigned((p) => (p.vitest_coverage = v)),
        expected,
      ).record!;
    expect(read(settings).vitestCoverage).toMatchObject({ include: ["src/**"], configFile: "vitest.config.ts" });
    expect(read(null).vitestCoverage).toBeNull();
    expect(verifyRunRecord(RECORDED, expected).record!.vitestCoverage).toBeUndefined();
    expect(problem(resigned((p) => (p.vitest_coverage = { ...settings, exclude: "x" })))).toMatchObject({
      problem: "malformed",
    });
    // The second reading, when the run ended.
    const end = (v: unknown) =>
      verifyRunRecord(
        resigned((p) => (p.vitest_coverage_end = v)),
        expected,
      );
    expect(end({ settings, altered: ["the coverage provider was replaced"] }).record!.vitestCoverageEnd).toMatchObject({
      settings: { include: ["src/**"] },
      altered: ["the coverage provider was replaced"],
    });
    expect(end({ settings: null, altered: [] }).record!.vitestCoverageEnd).toEqual({ settings: null, altered: [] });
    expect(verifyRunRecord(RECORDED, expected).record!.vitestCoverageEnd).toBeUndefined();
    for (const bad of [
      null,
      [],
      { altered: [] },
      { settings, altered: "x" },
      { settings: { ...settings, include: 1 }, altered: [] },
    ])
      expect(problem(resigned((p) => (p.vitest_coverage_end = bad)))).toMatchObject({
        problem: "malformed",
      });
    // Which changed source files the coverage settings measure.
    const measures = (v: unknown) =>
      verifyRunRecord(
        resigned((p) => (p.vitest_measures = v)),
        expected,
      );
    expect(measures({ "src/a.ts": true, "src/b.ts": false }).record!.vitestMeasures).toEqual({
      "src/a.ts": true,
      "src/b.ts": false,
    });
    expect(measures({}).record!.vitestMeasures).toEqual({});
    expect(verifyRunRecord(RECORDED, expected).record!.vitestMeasures).toBeUndefined();
    for (const bad of [null, [], "x", { "src/a.ts": "yes" }, { "src/a.ts": null }])
      expect(problem(resigned((p) => (p.vitest_measures = bad)))).toMatchObject({ problem: "malformed" });
  });

  it("accepts the same record signed again with this key (the resigning helper is faithful)", () => {
    expect(
      verifyRunRecord(
        resigned(() => {}),
        expected,
      ).errors,
    ).toEqual([]);
  });
});

describe("verifyRunRecord: the replaced source (shipped code)", () => {
  const entry = {
    module: "pkg.calc",
    name: "add",
    kind: "function",
    path: "pkg/calc.py",
    qualname: "add",
    first: 4,
    last: 5,
    by: { path: "tests/test_calc.py", line: 9 },
    phase: "setup",
    test: "tests/test_calc.py::test_add",
    near: "tests/test_calc.py",
  };

  it("reads each replacement, with the writer's file and line", () => {
    const { record, errors } = verifyRunRecord(
      resigned((p) => {
        const unseen: Record<string, unknown> = { ...entry, kind: "code", test: null, near: null, phase: "collection" };
        delete unseen.by;
        p.replaced = [entry, unseen];
      }),
      expected,
    );
    expect(errors).toEqual([]);
    expect(record!.replaced[0]).toEqual(entry);
    expect(record!.replaced[1]).toMatchObject({ kind: "code", by: undefined, test: null, near: null });
  });

  it("a kind the plugin does not write, or a writer without a line, is a malformed record", () => {
    for (const bad of [
      { ...entry, kind: "swapped" },
      { ...entry, by: { path: "tests/x.py" } },
    ]) {
      const { errors } = verifyRunRecord(
        resigned((p) => {
          p.replaced = [bad];
        }),
        expected,
      );
      expect(errors[0]!.problem).toBe("malformed");
    }
  });
});

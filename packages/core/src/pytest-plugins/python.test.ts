import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DESELECT_PLUGIN_PY, HYPOTHESIS_SETTINGS_PY, PROOF_PLUGIN_PY, PROPERTY_IDS_PLUGIN_PY } from "./generated.js";
import { fillPythonSlots } from "./slots.js";

// The plugins' Python lives in the .py files of this folder (docs/architecture.md, "The pytest plugins").
const HERE = dirname(fileURLToPath(import.meta.url));
const CORE = join(HERE, "..", "..");
const PYTHON = "/usr/bin/python3";
const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("generated.ts", () => {
  it("is in step with the .py files (else: node packages/core/scripts/pytest-plugins.mjs)", () => {
    const run = spawnSync(process.execPath, [join(CORE, "scripts", "pytest-plugins.mjs"), "--check"], {
      cwd: CORE,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(PROOF_PLUGIN_PY).toBe(readFileSync(join(HERE, "proofgate_proof_plugin.py"), "utf8"));
    expect(DESELECT_PLUGIN_PY).toBe(readFileSync(join(HERE, "proofgate_deselect_plugin.py"), "utf8"));
    expect(PROPERTY_IDS_PLUGIN_PY).toBe(readFileSync(join(HERE, "proofgate_property_ids_plugin.py"), "utf8"));
    expect(PROOF_PLUGIN_PY.endsWith(HYPOTHESIS_SETTINGS_PY)).toBe(true);
    expect(PROPERTY_IDS_PLUGIN_PY.endsWith(HYPOTHESIS_SETTINGS_PY)).toBe(true);
    expect(HYPOTHESIS_SETTINGS_PY.startsWith("\ndef _proofgate_hypothesis_settings(item):\n")).toBe(true);
  });
});

describe("fillPythonSlots", () => {
  const template = [
    "# Made on __PROOFGATE_TODAY__.",
    'LEDGER = "__PROOFGATE_LEDGER__"',
    "IDS = frozenset([",
    '    "__PROOFGATE_IDS__",',
    "])",
    "PAIRS = (",
    '        ("__PROOFGATE_PAIRS__", "", ""),',
    ")",
    "",
  ].join("\n");

  it("fills bare, quoted and list slots", () => {
    expect(
      fillPythonSlots(
        template,
        { text: { TODAY: "2026-12-05" }, values: { LEDGER: '"f.toml"' }, lists: { IDS: ['"a"', '"b"'], PAIRS: [] } },
        "t",
      ),
    ).toBe(
      [
        "# Made on 2026-12-05.",
        'LEDGER = "f.toml"',
        "IDS = frozenset([",
        '    "a",',
        '    "b",',
        "])",
        "PAIRS = (",
        ")",
        "",
      ].join("\n"),
    );
  });

  it("names the slot it has no value for", () => {
    expect(() => fillPythonSlots(template, { text: { TODAY: "x" }, values: {}, lists: {} }, "renderX")).toThrow(
      'renderX: no value for the slot in "\\"__PROOFGATE_LEDGER__\\""',
    );
    expect(() => fillPythonSlots('X = "__PROOFGATE_X__"\n', { text: { X: "1" } }, "r")).toThrow(/no value/);
  });
});

describe("the plugins' own pytest suite (src/pytest-plugins/tests, Debian's python3 and pytest)", () => {
  // A dozen pytest processes: on 2 cores shared with the other suites, they get more than the usual minute.
  it("passes: hook order, the record's signature, a failure flipped by a conftest, deselection", () => {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-pytest-plugins-"));
    temps.push(dir);
    const junit = join(dir, "junit.xml");
    const run = spawnSync(
      PYTHON,
      ["-m", "pytest", "-p", "no:cacheprovider", "-q", `--junitxml=${junit}`, join(HERE, "tests")],
      { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: dir, PYTHONDONTWRITEBYTECODE: "1" } },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const xml = readFileSync(junit, "utf8");
    const suite = /<testsuite [^>]*>/.exec(xml)![0];
    const count = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)![1]);
    expect({ failures: count("failures"), errors: count("errors"), skipped: count("skipped") }).toEqual({
      failures: 0,
      errors: 0,
      skipped: 0,
    });
    expect(count("tests")).toBeGreaterThanOrEqual(10);
    for (const name of [
      "test_signature_fails_on_a_changed_byte_or_another_key",
      "test_a_failure_flipped_by_a_conftest_hook_is_caught",
      "test_hook_order_views_at_the_ends_of_the_chains",
      "test_deselects_exactly_the_leased_ids",
      "test_writes_the_ids_and_settings_and_runs_nothing",
    ])
      expect(xml).toContain(`name="${name}"`);
  }, 300_000);
});

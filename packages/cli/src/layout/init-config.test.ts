import { DEFAULT_AGENT_PATTERNS, defaultConfig, parseConfig } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { configTemplate } from "../commands/init.js";
import { detectLayout } from "./detect-layout.js";
import { collectQuietFlags, planInit, shellWord } from "./init-config.js";
import { memoryTree } from "./layout-tree.js";
import type { PythonTools } from "./python-tools.js";

const DEFAULTS = defaultConfig(DEFAULT_AGENT_PATTERNS);
const DEBIAN: PythonTools = {
  command: "python",
  python: "3.11.2",
  pytest: "7.2.1",
  pytestCov: "4.0.0",
  coverage: "6.5.0",
};
const NEWER: PythonTools = { ...DEBIAN, pytest: "8.3.4", pytestCov: "4.1.0", coverage: "7.6.1" };

const FLAT = { "pyproject.toml": '[project]\nname = "pkg"\n', "pkg/__init__.py": "", "tests/test_a.py": "" };
const plan = (files: Record<string, string>, tools: PythonTools = DEBIAN) =>
  planInit(detectLayout(memoryTree(files)), tools, DEFAULTS);

describe("planInit: the commands", () => {
  it("pytest-cov before 4.1: `coverage json` writes the report, and the step keeps pytest's exit code", () => {
    expect(plan(FLAT).config.commands).toEqual({
      collect: "python -m pytest --collect-only -q tests > collected.txt",
      proof:
        "python -m pytest tests --cov=pkg --cov-branch -o junit_family=xunit1 --junitxml=results.xml; s=$?; python -m coverage json -q -o proven_coverage.json; exit $s",
      record: true,
      collectBesideProof: true,
      safePath: false,
      timeout: 1800,
    });
  });

  it("the head's collection beside the proof run, written and read back", () => {
    const p = plan(FLAT);
    expect(p.config.commands.collectBesideProof).toBe(true);
    const text = configTemplate(p.config, p.notes);
    expect(text).toMatch(/^collect_beside_proof = true$/m);
    const loaded = parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS);
    expect(loaded.errors).toEqual([]);
    expect(loaded.config?.commands).toEqual(p.config.commands);
  });

  it("pytest-cov 4.1 and later: its own JSON report", () => {
    for (const pytestCov of ["4.1.0", "5.0.0", "6.2.1", "10.0"]) {
      expect(plan(FLAT, { ...NEWER, pytestCov }).config.commands.proof).toBe(
        "python -m pytest tests --cov=pkg --cov-branch --cov-report=json:proven_coverage.json -o junit_family=xunit1 --junitxml=results.xml",
      );
    }
  });

  it("an unknown pytest-cov gets the form every version runs, and a warning naming what to install", () => {
    const p = plan(FLAT, { command: "python3", python: "3.12.1" });
    expect(p.config.commands.proof).toContain("; s=$?; python3 -m coverage json -q -o proven_coverage.json; exit $s");
    expect(p.warnings).toContain(
      "`python3` has no pytest, pytest-cov, coverage: install pytest pytest-cov coverage into it (pip install), or pass --python <interpreter>",
    );
    expect(plan(FLAT, { command: "nope" }).warnings).toContain(
      "`nope` did not run: install Python with pytest and pytest-cov, or pass --python <interpreter>",
    );
  });

  it("testpaths in pytest's settings: the commands name no folder, so pytest collects what the project says", () => {
    const p = plan({ ...FLAT, "setup.cfg": "[tool:pytest]\ntestpaths = pkg\n" });
    expect(p.config.commands.collect).toBe("python -m pytest --collect-only -q > collected.txt");
    expect(p.config.commands.proof).toMatch(/^python -m pytest --cov=pkg --cov-branch /);
  });

  it.each([
    [[], "-q"],
    [["-q"], ""],
    [["--quiet"], ""],
    [["-qq"], "-v"],
    [["-v"], "-qq"],
    [["-vv", "-q"], "-qq"],
    [["--verbosity=2"], "-qqq"],
    [["--verbosity", "0", "-ra"], "-q"],
  ])("addopts %j: the collection runs at verbosity -1 with %j", (addopts, flags) => {
    expect(collectQuietFlags(addopts)).toBe(flags);
  });

  it("addopts that turn coverage on: the collection turns it off, so the universe holds only ids", () => {
    const p = plan({ ...FLAT, "setup.cfg": "[tool:pytest]\naddopts = -q --cov=pkg --cov-report=term\n" });
    expect(p.config.commands.collect).toBe("python -m pytest --collect-only --no-cov tests > collected.txt");
  });

  it("coverage.py's fail_under: the gate's floor takes it, and pytest-cov's own is off (no tests_failed for it)", () => {
    const p = plan({ ...FLAT, ".coveragerc": "[run]\nsource = pkg\n[report]\nfail_under = 92\n" });
    expect(p.config.coverage.minProven).toBe(92);
    expect(p.config.commands.proof).toContain("--cov-branch --cov-fail-under=0 -o junit_family=xunit1");
    expect(plan(FLAT).config.commands.proof).not.toContain("--cov-fail-under");
  });

  it("warns about a settings file it could not read", () => {
    const p = plan({ ...FLAT, "pyproject.toml": "[project\n" });
    expect(p.warnings[0]).toMatch(
      /^pyproject\.toml:1: not valid TOML \(.*\); init read it as holding no settings, and pytest will stop on it too$/,
    );
  });

  it("coverage.py's [run] include: --cov= overrides it, and -W keeps its warning from failing a filterwarnings = error run", () => {
    const p = plan({ ...FLAT, ".coveragerc": "[run]\ninclude =\n  pkg/*\n" });
    expect(p.config.commands.proof).toMatch(
      /^python -m pytest tests -W 'ignore:--include is ignored because --source is set' --cov=pkg --cov-branch /,
    );
    expect(p.notes.commands?.join(" ")).toContain("-W ignores coverage.py's warning");
    expect(plan(FLAT).config.commands.proof).not.toContain("-W");
  });

  it("quotes what sh would split", () => {
    expect(shellWord("src/my pkg")).toBe("'src/my pkg'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("src/pkg-1.0")).toBe("src/pkg-1.0");
    expect(plan({ "my pkg/__init__.py": "" }).config.commands.proof).toContain("--cov='my pkg'");
  });

  it("test evidence is on: the proof run writes JUnit with each test's file (xunit1)", () => {
    const p = plan(FLAT);
    expect(p.config.results.junit).toEqual(["results.xml"]);
    expect(p.config.commands.proof).toContain("-o junit_family=xunit1 --junitxml=results.xml");
  });
});

describe("planInit: fixtures and seeds", () => {
  it("no golden files and no seeds: both off, and the config says how to turn them on", () => {
    const p = plan(FLAT);
    expect(p.config.fixtures.enabled).toBe(false);
    expect(p.config.properties.enabled).toBe(false);
    expect(p.config.commands.properties).toBeUndefined();
    const text = configTemplate(p.config, p.notes);
    expect(text).toContain("# Off: `proofgate init` found no golden-file folder");
    expect(text).toContain("paths, set enabled = true, run `proofgate lock`");
    expect(text).toContain("# Off: `proofgate init` found no seed folder");
    expect(text).toContain("enabled = true, and add [commands] properties that runs the property suite");
  });

  it("golden files and seeds beside a property suite: both on, the suite run on its own", () => {
    const p = plan({
      ...FLAT,
      "tests/golden/out.txt": "x",
      "tests/properties/test_props.py": "",
      "tests/properties/seeds/s1": "1",
    });
    expect(p.config.fixtures).toMatchObject({ enabled: true, paths: ["tests/golden"] });
    expect(p.config.properties).toMatchObject({
      enabled: true,
      seeds: ["tests/properties/seeds"],
      results: ["properties.xml"],
    });
    expect(p.config.commands.properties).toBe(
      "python -m pytest tests/properties -o junit_family=xunit1 --junitxml=properties.xml",
    );
  });

  it("a property suite elsewhere than tests/properties: its folder is [properties] tests", () => {
    const p = plan({ ...FLAT, "tests/fuzz/test_fuzz.py": "", "tests/fuzz/corpus/c1": "1" });
    expect(p.config.properties).toMatchObject({ seeds: ["tests/fuzz/corpus"], tests: ["tests/fuzz"] });
    const text = configTemplate(p.config, p.notes);
    expect(text).toContain('tests = ["tests/fuzz"]\n');
    expect(parseConfig(text, "proofgate.toml", DEFAULT_AGENT_PATTERNS).config?.properties.tests).toEqual([
      "tests/fuzz",
    ]);
  });

  it("seeds without a property suite of their own: on, no command, and a warning to write one", () => {
    const p = plan({ ...FLAT, "tests/seeds/s1": "1" });
    expect(p.config.properties).toMatchObject({ enabled: true, seeds: ["tests/seeds"], results: [] });
    expect(p.config.commands.properties).toBeUndefined();
    expect(p.warnings.join("\n")).toContain("but no folder of property tests beside them");
  });
});

describe("configTemplate of a layout", () => {
  const layouts: Record<string, Record<string, string>> = {
    flat: FLAT,
    "src layout, fixtures, seeds, fail_under": {
      "pyproject.toml": '[tool.coverage.run]\nsource = ["pkg"]\n[tool.coverage.report]\nfail_under = 80.5\n',
      "src/pkg/__init__.py": "",
      "tests/fixtures/a.json": "{}",
      "tests/properties/test_p.py": "",
      "tests/properties/seeds/a": "a",
    },
    "tests in the package": {
      "setup.cfg": "[tool:pytest]\ntestpaths = pkg\n",
      "pkg/__init__.py": "",
      "pkg/tests/test_a.py": "",
    },
  };
  it.each(Object.entries(layouts))("%s: parses to exactly the planned config", (_, files) => {
    for (const tools of [DEBIAN, NEWER]) {
      const p = plan(files, tools);
      const parsed = parseConfig(configTemplate(p.config, p.notes), "proofgate.toml", DEFAULT_AGENT_PATTERNS);
      expect(parsed.errors).toEqual([]);
      expect(parsed.config).toEqual(p.config);
      // The only warnings are the signals turned off, which every report states.
      for (const w of parsed.warnings) expect(w.message).toMatch(/enabled = false: its signals are off/);
    }
  });
});

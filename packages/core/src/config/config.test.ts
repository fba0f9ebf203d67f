import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS } from "../model/authorship.js";
import { DEFAULT_PROTECTED_PATHS, defaultConfig, parseConfig, protectedPaths, type GateConfig } from "./config.js";

const FILE = "proofgate.toml";
const parse = (text: string) => parseConfig(text, FILE, DEFAULT_AGENT_PATTERNS);
/** The config of a text that must parse. */
function ok(text: string): GateConfig {
  const result = parse(text);
  expect(result.errors).toEqual([]);
  expect(result.config).toBeDefined();
  return result.config!;
}

const TABLES =
  "[ledger], [universe], [coverage], [results], [fixtures], [properties], [agents], [protect], [measurement], [trailers], [commands], [evidence], [publish]";

describe("parseConfig: defaults", () => {
  it("an empty or absent file is the article's defaults", () => {
    const expected: GateConfig = {
      file: FILE,
      ledger: { path: "freeze.toml" },
      universe: { collected: ["collected.txt"], baseCollected: [] },
      coverage: { reports: ["proven_coverage.json"], minProven: 70 },
      results: { junit: [], baseJunit: [], maxNewSkips: 0 },
      fixtures: {
        enabled: true,
        paths: ["tests/fixtures"],
        lock: "fixtures.lock",
        allowSymlinks: false,
        allowSpecialNames: false,
      },
      properties: {
        enabled: true,
        seeds: ["tests/properties/seeds"],
        results: [],
        tests: ["tests/properties"],
        judgeTests: true,
      },
      agents: { patterns: [...DEFAULT_AGENT_PATTERNS], humanSignatures: "off" },
      protect: {
        paths: ["proofgate.toml", ".github/workflows/**", ".gitlab-ci.yml", ".buildkite/**", "**/conftest.py"],
        sections: [
          "**/pytest.toml",
          "**/.pytest.toml",
          "**/pytest.ini",
          "**/.pytest.ini",
          "**/pyproject.toml [tool.pytest]",
          "**/tox.ini [pytest]",
          "**/setup.cfg [tool:pytest]",
          "pyproject.toml [project.entry-points.pytest11]",
          "pyproject.toml [tool.poetry.plugins.pytest11]",
          "setup.cfg [options.entry_points]",
        ],
        commands: true,
      },
      measurement: { enabled: true, exempt: ["setup.py", "noxfile.py", "docs/conf.py"] },
      trailers: {
        freezeLease: "Freeze-Lease",
        fixtureLock: "Fixture-Lock",
        propertySeeds: "Property-Seeds",
        gateChange: "Gate-Change",
        testRemoval: "Test-Removal",
      },
      commands: { record: true, collectBesideProof: false, safePath: false, timeout: 1800 },
      evidence: { stamps: ["proofgate-evidence.json"], bound: true },
      publish: { timeout: 60 },
    };
    for (const text of ["", "  \n\n", "# only a comment\n"]) {
      const result = parse(text);
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(result.config).toMatchObject(expected);
    }
    expect(defaultConfig(DEFAULT_AGENT_PATTERNS)).toEqual(expected);
    expect(DEFAULT_PROTECTED_PATHS).toEqual(expected.protect.paths);
  });

  it("a table with some keys keeps the defaults of the others", () => {
    const config = ok('[fixtures]\nlock = "golden.lock"\n');
    expect(config.fixtures).toEqual({
      enabled: true,
      paths: ["tests/fixtures"],
      lock: "golden.lock",
      allowSymlinks: false,
      allowSpecialNames: false,
    });
    expect(config.ledger.path).toBe("freeze.toml");
  });

  it("the defaults are copies: a parsed config does not share the caller's arrays", () => {
    const patterns = ["*[bot]*"];
    const config = parseConfig("", FILE, patterns).config!;
    config.agents.patterns.push("x");
    config.protect.paths.push("y");
    expect(patterns).toEqual(["*[bot]*"]);
    expect(DEFAULT_PROTECTED_PATHS).toHaveLength(5);
  });

  it("a byte order mark is accepted", () => {
    expect(ok('\uFEFF[ledger]\npath = "ledger.toml"\n').ledger.path).toBe("ledger.toml");
  });
});

describe("parseConfig: every table and key", () => {
  it("reads each key into its place", () => {
    const config = ok(`
[ledger]
path = "ci/freeze.toml"

[universe]
collected = ["a.txt", "b.txt"]
base_collected = ["base-collected.txt"]

[coverage]
reports = ["cov1.json", "cov2.xml"]
shards = 4
contexts = ".coverage"
min_proven = 82.5

[results]
junit = ["junit-*.xml"]
max_unledgered_skips = 3
base_junit = ["base-results.xml"]
max_new_skips = 2

[fixtures]
enabled = false
paths = ["tests/golden", "data"]
lock = "golden.lock"
allow_symlinks = true
allow_special_names = true

[properties]
enabled = false
seeds = ["tests/seeds"]
results = ["props.xml"]
tests = ["tests/props", "./tests/fuzz/"]

[agents]
patterns = ["*[bot]*", "*<robot@example.org>"]

[protect]
paths = ["proofgate.toml", "ci/**"]
sections = ["pytest.ini", "./setup.cfg [coverage:*]", "pyproject.toml [tool.hatch.envs.test]"]
commands = true

[measurement]
enabled = true
exempt = ["tools/**"]

[trailers]
freeze_lease = "Lease-Approved"
fixture_lock = "Golden-Approved"
property_seeds = "Seeds-Approved"
gate_change = "CI-Approved"
test_removal = "Tests-Dropped"

[commands]
collect = "pytest --collect-only -q"
proof = "pytest -q"
properties = "pytest tests/properties"
collect_beside_proof = true

[evidence]
stamps = ["cov/stamp-1.json", "cov/stamp-2.json"]
bound = true

[publish]
timeout = 120
`);
    expect(config).toEqual({
      file: FILE,
      ledger: { path: "ci/freeze.toml" },
      universe: { collected: ["a.txt", "b.txt"], baseCollected: ["base-collected.txt"] },
      coverage: { reports: ["cov1.json", "cov2.xml"], shards: 4, contexts: [".coverage"], minProven: 82.5 },
      results: { junit: ["junit-*.xml"], maxUnledgeredSkips: 3, baseJunit: ["base-results.xml"], maxNewSkips: 2 },
      fixtures: {
        enabled: false,
        paths: ["tests/golden", "data"],
        lock: "golden.lock",
        allowSymlinks: true,
        allowSpecialNames: true,
      },
      properties: {
        enabled: false,
        seeds: ["tests/seeds"],
        results: ["props.xml"],
        tests: ["tests/props", "tests/fuzz"],
        judgeTests: false,
      },
      agents: { patterns: ["*[bot]*", "*<robot@example.org>"], humanSignatures: "off" },
      protect: {
        paths: ["proofgate.toml", "ci/**"],
        sections: ["pytest.ini", "./setup.cfg [coverage:*]", "pyproject.toml [tool.hatch.envs.test]"],
        commands: true,
      },
      measurement: { enabled: true, exempt: ["tools/**"] },
      trailers: {
        freezeLease: "Lease-Approved",
        fixtureLock: "Golden-Approved",
        propertySeeds: "Seeds-Approved",
        gateChange: "CI-Approved",
        testRemoval: "Tests-Dropped",
      },
      commands: {
        collect: "pytest --collect-only -q",
        proof: "pytest -q",
        properties: "pytest tests/properties",
        record: true,
        collectBesideProof: true,
        safePath: false,
        timeout: 1800,
      },
      evidence: { stamps: ["cov/stamp-1.json", "cov/stamp-2.json"], bound: true },
      publish: { timeout: 120 },
    });
  });

  it("[evidence] bound = false, the opt-out of bound evidence, parses but warns with its line", () => {
    const result = parse("[evidence]\nbound = false\n");
    expect(result.errors).toEqual([]);
    expect(result.config?.evidence).toEqual({ stamps: ["proofgate-evidence.json"], bound: false });
    expect(result.warnings.map((w) => [w.line, w.message.split(":")[0]])).toEqual([[2, "[evidence] bound = false"]]);
  });

  it("loosening switches parse but warn, each with its line (a signal turned off is shown in its row instead)", () => {
    const result = parse(
      "[fixtures]\nenabled = false\nallow_symlinks = true\nallow_special_names = true\n\n[properties]\nenabled = false\n",
    );
    expect(result.errors).toEqual([]);
    expect(result.config).toBeDefined();
    expect(result.warnings.map((w) => [w.line, w.message])).toEqual([
      [3, "[fixtures] allow_symlinks = true loosens the fixture lock"],
      [4, "[fixtures] allow_special_names = true loosens the fixture lock"],
    ]);
    expect(result.given).toEqual([
      "fixtures.enabled",
      "fixtures.allow_symlinks",
      "fixtures.allow_special_names",
      "properties.enabled",
    ]);
    expect(result.warnings.every((w) => w.file === FILE && w.code === "config_invalid")).toBe(true);
  });

  it("turning the commands' protection off parses but warns, with its line (a signal turned off says so in its row)", () => {
    const result = parse("[protect]\ncommands = false\n\n[measurement]\nenabled = false\n");
    expect(result.errors).toEqual([]);
    expect(result.config?.measurement.enabled).toBe(false);
    expect(result.config?.protect.commands).toBe(false);
    expect(result.warnings.map((w) => [w.line, w.message])).toEqual([
      [2, "[protect] commands = false: the files the [commands] run (Makefile, tox.ini, scripts) are not protected"],
    ]);
  });

  it("a [protect] sections entry must be a path in the repository, optionally with one [section]", () => {
    const result = parse('[protect]\nsections = ["../x.ini", "setup.cfg []", "/etc/pytest.ini", "a [b] [c]"]\n');
    expect(result.config).toBeUndefined();
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [2, '[protect] sections "../x.ini" is not a path inside the repository, optionally followed by [section]'],
      [2, '[protect] sections "setup.cfg []" is not a path inside the repository, optionally followed by [section]'],
      [2, '[protect] sections "/etc/pytest.ini" is not a path inside the repository, optionally followed by [section]'],
      [2, '[protect] sections "a [b] [c]" is not a path inside the repository, optionally followed by [section]'],
    ]);
    expect(ok("[protect]\nsections = []\n").protect.sections).toEqual([]);
  });

  it("min_proven takes 0 and 100 and whole numbers; an empty list is allowed where lists may be empty", () => {
    expect(ok("[coverage]\nmin_proven = 0\n").coverage.minProven).toBe(0);
    expect(ok("[coverage]\nmin_proven = 100\n").coverage.minProven).toBe(100);
    expect(ok("[results]\njunit = []\n").results.junit).toEqual([]);
    expect(ok("[protect]\npaths = []\n").protect.paths).toEqual([]);
  });

  it("[commands] base_setup: a string, unset by default; another type is an error with its line", () => {
    expect(ok("").commands.baseSetup).toBeUndefined();
    expect(ok('[commands]\nbase_setup = "pnpm install --frozen-lockfile"\n').commands.baseSetup).toBe(
      "pnpm install --frozen-lockfile",
    );
    const bad = parse("[commands]\nbase_setup = true\n");
    expect(bad.config).toBeUndefined();
    expect(bad.errors).toEqual([expect.objectContaining({ code: "config_invalid", line: 2 })]);
  });

  it("[commands] timeout: seconds, 1800 unset, 0 for no limit, at most six hours (with its line otherwise)", () => {
    expect(ok("").commands.timeout).toBe(1800);
    expect(ok("[commands]\ntimeout = 0\n").commands.timeout).toBe(0);
    expect(ok("[commands]\ntimeout = 21600\n").commands.timeout).toBe(21600);
    const tooLong = parse('[commands]\nproof = "pytest"\ntimeout = 21601\n');
    expect(tooLong.config).toBeUndefined();
    expect(tooLong.errors).toEqual([
      expect.objectContaining({
        code: "config_invalid",
        line: 3,
        message: "[commands] timeout = 21601 is more than 21600 seconds (six hours)",
      }),
    ]);
    for (const bad of ["-1", "1.5", '"30"'])
      expect(parse(`[commands]\ntimeout = ${bad}\n`).errors[0]?.message).toBe(
        "[commands] timeout must be a whole number >= 0",
      );
  });

  it("[publish] timeout: seconds publishing may take in all, 60 unset, 1 to 3600 (with its line otherwise)", () => {
    expect(ok("").publish.timeout).toBe(60);
    expect(ok("[publish]\ntimeout = 1\n").publish.timeout).toBe(1);
    expect(ok("[publish]\ntimeout = 3600\n").publish.timeout).toBe(3600);
    for (const bad of ["0", "3601"]) {
      const result = parse(`[commands]\nrecord = true\n\n[publish]\ntimeout = ${bad}\n`);
      expect(result.config).toBeUndefined();
      expect(result.errors).toEqual([
        expect.objectContaining({
          code: "config_invalid",
          line: 5,
          message: `[publish] timeout = ${bad} is not from 1 to 3600 seconds`,
        }),
      ]);
    }
    expect(parse('[publish]\ntimeout = "60"\n').errors[0]?.message).toBe(
      "[publish] timeout must be a whole number >= 0",
    );
  });

  it("[coverage] contexts: one data file as a string, or one per shard as a list; never empty", () => {
    expect(ok('[coverage]\ncontexts = ".coverage"\n').coverage.contexts).toEqual([".coverage"]);
    expect(ok('[coverage]\ncontexts = ["cov/1.coverage", "cov/2.coverage"]\n').coverage.contexts).toEqual([
      "cov/1.coverage",
      "cov/2.coverage",
    ]);
    expect(ok("").coverage.contexts).toBeUndefined();
    for (const bad of ["[]", '""', '["a", ""]', "3"])
      expect(parse(`[coverage]\ncontexts = ${bad}\n`).errors).toEqual([
        expect.objectContaining({
          code: "config_invalid",
          line: 2,
          message: "[coverage] contexts must be a non-empty string or a non-empty list of non-empty strings",
          fix: 'write contexts = "..." (one file) or contexts = ["...", "..."] (one per shard)',
        }),
      ]);
  });

  it("dotted keys and inline tables are the same tables", () => {
    expect(ok('ledger.path = "x.toml"\n').ledger.path).toBe("x.toml");
    expect(ok('trailers = { gate_change = "CI-OK" }\n').trailers.gateChange).toBe("CI-OK");
  });
});

describe("parseConfig: unknown tables and keys", () => {
  it("an unknown table names the known ones and its line", () => {
    const result = parse('[ledger]\npath = "f.toml"\n\n[fixture]\npaths = ["x"]\n');
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([
      {
        code: "config_invalid",
        file: FILE,
        line: 4,
        message: "unknown table [fixture]",
        fix: `the tables are ${TABLES}`,
      },
    ]);
  });

  it("an unknown key names its table's keys and its line", () => {
    const result = parse('[fixtures]\npaths = ["x"]\nlocks = "f.lock"\n');
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([
      {
        code: "config_invalid",
        file: FILE,
        line: 3,
        message: "unknown key `locks` in [fixtures]",
        fix: "[fixtures] has enabled, paths, lock, allow_symlinks, allow_special_names",
      },
    ]);
  });

  it("an unknown top-level key is an unknown table (every key lives in a table), with its line", () => {
    const result = parse("# policy\nmin_proven = 80\n[coverage]\nmin_proven = 80\n");
    expect(result.errors.map((e) => [e.line, e.message, e.fix])).toEqual([
      [2, "unknown table [min_proven]", `the tables are ${TABLES}`],
    ]);
  });

  it("every problem is listed, not only the first", () => {
    const result = parse('[agents]\npattern = ["*"]\n\n[trailers]\nfreeze = "X"\n\n[nope]\n');
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [2, "unknown key `pattern` in [agents]"],
      [5, "unknown key `freeze` in [trailers]"],
      [7, "unknown table [nope]"],
    ]);
  });

  it("not TOML: the parser's message and line", () => {
    const result = parse('[ledger]\npath = "unterminated\n');
    expect(result.config).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "config_invalid", file: FILE, line: 2, fix: "see https://toml.io" });
    expect(result.errors[0]!.message).toMatch(/^not valid TOML: /);
  });
});

describe("parseConfig: wrong types", () => {
  it.each([
    ["[ledger]\npath = 3\n", "[ledger] path must be a non-empty string", 'write path = "..."'],
    ['[ledger]\npath = "  "\n', "[ledger] path must be a non-empty string", 'write path = "..."'],
    [
      '[universe]\ncollected = "collected.txt"\n',
      "[universe] collected must be a list of non-empty strings",
      'write collected = ["...", "..."]',
    ],
    [
      '[coverage]\nreports = ["a", 1]\n',
      "[coverage] reports must be a list of non-empty strings",
      'write reports = ["...", "..."]',
    ],
    [
      '[coverage]\nreports = [""]\n',
      "[coverage] reports must be a list of non-empty strings",
      'write reports = ["...", "..."]',
    ],
    [
      "[coverage]\nshards = 2.5\n",
      "[coverage] shards must be a whole number >= 0",
      "write shards = 2 (a whole number)",
    ],
    ["[coverage]\nshards = -1\n", "[coverage] shards must be a whole number >= 0", "write shards = 2 (a whole number)"],
    [
      '[coverage]\nshards = "4"\n',
      "[coverage] shards must be a whole number >= 0",
      "write shards = 2 (a whole number)",
    ],
    [
      "[coverage]\nmin_proven = 100.5\n",
      "[coverage] min_proven must be a number from 0 to 100",
      "write min_proven = 70 (a percentage from 0 to 100)",
    ],
    [
      '[coverage]\nmin_proven = "70"\n',
      "[coverage] min_proven must be a number from 0 to 100",
      "write min_proven = 70 (a percentage from 0 to 100)",
    ],
    [
      "[coverage]\nmin_proven = nan\n",
      "[coverage] min_proven must be a number from 0 to 100",
      "write min_proven = 70 (a percentage from 0 to 100)",
    ],
    [
      "[results]\nmax_unledgered_skips = true\n",
      "[results] max_unledgered_skips must be a whole number >= 0",
      "write max_unledgered_skips = 2 (a whole number)",
    ],
    ['[fixtures]\nenabled = "yes"\n', "[fixtures] enabled must be true or false", "write enabled = true or false"],
    [
      "[fixtures]\nallow_symlinks = 1\n",
      "[fixtures] allow_symlinks must be true or false",
      "write allow_symlinks = true or false",
    ],
    [
      '[trailers]\nfreeze_lease = ["Freeze-Lease"]\n',
      "[trailers] freeze_lease must be a non-empty string",
      'write freeze_lease = "..."',
    ],
    ["[commands]\nproof = 2026-12-02\n", "[commands] proof must be a non-empty string", 'write proof = "..."'],
  ])("%j", (text, message, fix) => {
    const result = parse(text);
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([{ code: "config_invalid", file: FILE, line: 2, message, fix }]);
  });

  it("a table that is not a table", () => {
    const result = parse('ledger = "freeze.toml"\n');
    expect(result.errors).toEqual([
      {
        code: "config_invalid",
        file: FILE,
        line: 1,
        message: "`ledger` must be a table",
        fix: "write it as [ledger] with its keys below",
      },
    ]);
    expect(parse("[[protect]]\npaths = []\n").errors.map((e) => e.message)).toEqual(["`protect` must be a table"]);
  });
});

describe("parseConfig: [agents] patterns", () => {
  it("an empty list is refused: every commit would count as a human's", () => {
    const result = parse("[protect]\npaths = []\n\n[agents]\npatterns = []\n");
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([
      {
        code: "config_invalid",
        file: FILE,
        line: 5,
        message: "[agents] patterns is empty: every commit would count as a human's",
        fix: 'keep at least "*[bot]*"',
      },
    ]);
  });

  it("patterns replace the defaults (they are not merged)", () => {
    expect(ok('[agents]\npatterns = ["*<ci@example.org>"]\n').agents.patterns).toEqual(["*<ci@example.org>"]);
  });

  it("the defaults come from the caller", () => {
    expect(parseConfig("", FILE, ["x*"]).config!.agents.patterns).toEqual(["x*"]);
  });
});

describe("parseConfig: paths that git judges", () => {
  it("are written as git writes them, so `./seeds` still matches a commit that touched seeds/x", () => {
    const config = ok(
      '[ledger]\npath = "./ops//freeze.toml"\n[fixtures]\npaths = ["./tests/fixtures/", "golden"]\nlock = "./fixtures.lock"\n[properties]\nseeds = ["./seeds/"]\n',
    );
    expect(config.ledger.path).toBe("ops/freeze.toml");
    expect(config.fixtures.paths).toEqual(["tests/fixtures", "golden"]);
    expect(config.fixtures.lock).toBe("fixtures.lock");
    expect(config.properties.seeds).toEqual(["seeds"]);
  });

  it.each([
    ["", true],
    ["[properties]\nenabled = true\n", true],
    // A config written before judge_tests: enabled = false turned the property-test rule off with the seeds.
    ["[properties]\nenabled = false\n", false],
    ["[properties]\nenabled = false\njudge_tests = true\n", true],
    ["[properties]\njudge_tests = false\n", false],
    ["[properties]\nenabled = true\njudge_tests = false\n", false],
  ])("[properties] judge_tests in %j: %s", (text, judged) => {
    expect(ok(text).properties.judgeTests).toBe(judged);
  });

  it("[properties] judge_tests must be true or false", () => {
    expect(parse('[properties]\njudge_tests = "yes"\n').errors).toEqual([
      expect.objectContaining({ line: 2, message: expect.stringContaining("[properties] judge_tests") }),
    ]);
  });

  it("[properties] tests: folders of property tests, written as git writes them; a wrong type or key names its line", () => {
    expect(ok("").properties.tests).toEqual(["tests/properties"]);
    expect(ok('[properties]\ntests = ["./props/", "tests/test_fuzz.py"]\n').properties.tests).toEqual([
      "props",
      "tests/test_fuzz.py",
    ]);
    expect(parse('[properties]\nseeds = ["s"]\ntests = "tests/properties"\n').errors).toEqual([
      {
        code: "config_invalid",
        file: FILE,
        line: 3,
        message: "[properties] tests must be a list of non-empty strings",
        fix: 'write tests = ["...", "..."]',
      },
    ]);
    expect(parse("[properties]\ntest = []\n").errors).toEqual([
      expect.objectContaining({
        line: 2,
        message: "unknown key `test` in [properties]",
        fix: "[properties] has enabled, seeds, results, tests, judge_tests",
      }),
    ]);
  });

  it.each([
    ["[fixtures]\npaths = ['/etc']", '[fixtures] paths "/etc"'],
    ["[properties]\nseeds = ['../elsewhere']", '[properties] seeds "../elsewhere"'],
    ["[properties]\ntests = ['tests/properties', '/abs/props']", '[properties] tests "/abs/props"'],
    ["[fixtures]\nlock = '.'", '[fixtures] lock "."'],
    ["[ledger]\npath = 'a\\b.toml'", '[ledger] path "a\\\\b.toml"'],
  ])("a path outside the repository is refused at its line: %s", (text, message) => {
    const result = parse(text);
    expect(result.config).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "config_invalid", line: 2 });
    expect(result.errors[0]!.message).toContain(message);
    expect(result.errors[0]!.message).toContain("is not a path inside the repository");
  });
});

describe("parseConfig: [agents] human_signatures, allowed_signers and [ledger] max_lease_days", () => {
  it("off by default; required with an allowed-signers file written as git writes paths, and always protected", () => {
    expect(ok("").agents.humanSignatures).toBe("off");
    expect(ok("").agents.allowedSigners).toBeUndefined();
    const config = ok(
      '[agents]\nhuman_signatures = "required"\nallowed_signers = "./.github/allowed_signers"\n\n[ledger]\nmax_lease_days = 30\n',
    );
    expect(config.agents).toMatchObject({ humanSignatures: "required", allowedSigners: ".github/allowed_signers" });
    expect(config.ledger.maxLeaseDays).toBe(30);
    expect(protectedPaths(config)).toContain(".github/allowed_signers");
    expect(protectedPaths(ok(""))).not.toContain(".github/allowed_signers");
  });

  it("the package managers' files that load code into the runner are protected whatever [protect] paths says", () => {
    const narrow = ok('[protect]\npaths = ["proofgate.toml"]\n');
    for (const p of ["**/.npmrc", "**/pnpm-workspace.yaml", "**/.yarnrc.yml", ".yarn/releases/**", "**/.pnp.cjs"])
      expect(protectedPaths(narrow), p).toContain(p);
  });

  it.each([
    ['[agents]\nhuman_signatures = "yes"', 2, '[agents] human_signatures "yes" is not "off" or "required"'],
    ["[agents]\nhuman_signatures = true", 2, "[agents] human_signatures must be a non-empty string"],
    [
      '[agents]\nallowed_signers = "../keys"',
      2,
      '[agents] allowed_signers "../keys" is not a path inside the repository',
    ],
    ["[ledger]\nmax_lease_days = 0", 2, "[ledger] max_lease_days = 0 would make every lease too long"],
    ["[ledger]\nmax_lease_days = -3", 2, "[ledger] max_lease_days must be a whole number >= 0"],
    ["[ledger]\nmax_lease_days = 1.5", 2, "[ledger] max_lease_days must be a whole number >= 0"],
  ])("refuses %j at its line", (text, line, message) => {
    const result = parse(text);
    expect(result.config).toBeUndefined();
    expect(result.errors).toEqual([expect.objectContaining({ code: "config_invalid", line, message })]);
  });
});

describe("parseConfig: [commands] collect_beside_proof", () => {
  const steps =
    '[commands]\ncollect = "python -m pytest --collect-only -q > collected.txt"\nproof = "python -m pytest"\n';
  it("off by default; on with pytest's collect and proof commands and the record", () => {
    expect(ok("").commands.collectBesideProof).toBe(false);
    expect(ok(`${steps}collect_beside_proof = true\n`).commands.collectBesideProof).toBe(true);
  });

  it.each([
    ['[commands]\ncollect_beside_proof = true\nproof = "python -m pytest"\n', "needs [commands] collect and proof"],
    [`${steps}collect_beside_proof = true\nrecord = false\n`, "needs [commands] record = true"],
    [`${steps}collect_beside_proof = true\nrunner = "vitest"\n`, "is for pytest"],
    [`${steps}collect_beside_proof = "yes"\n`, "collect_beside_proof must be"],
  ])("refuses %j at the key's line", (text, message) => {
    const result = parse(text);
    expect(result.config).toBeUndefined();
    const line = text.split("\n").findIndex((l) => l.startsWith("collect_beside_proof")) + 1;
    expect(result.errors).toEqual([
      expect.objectContaining({ code: "config_invalid", line, message: expect.stringContaining(message) }),
    ]);
  });
});

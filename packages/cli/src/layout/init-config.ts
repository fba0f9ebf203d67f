// From a detected layout and the Python test tools found, the config `proofgate init` writes: the
// commands that run the suite as this repository runs it, the evidence files they write, and the
// fixture and seed signals on where their files exist (off, with how to turn them on, where not).
// Pure: the caller detects and probes.
import type { GateConfig } from "@proofgate/core";
import type { Layout } from "./detect-layout.js";
import { atLeast, type PythonTools } from "./python-tools.js";
import { INCLUDE_IGNORED } from "./try-collect.js";

/** Comment lines for a table of the written config, saying why its values are what they are. */
export type TemplateNotes = Partial<Record<"coverage" | "floor" | "fixtures" | "properties" | "commands", string[]>> & {
  /** `[properties]` written with every key commented out: unset, the gate decides from the seeds present. */
  seedsUnset?: boolean;
};

/** What `init` writes and says for a layout. */
export interface InitPlan {
  config: GateConfig;
  notes: TemplateNotes;
  /** What was found, one line each, for the terminal. */
  findings: string[];
  /** What will make the first `check --run` fail or mislead unless the user acts, with the action. */
  warnings: string[];
}

/** The evidence files the commands write (the config's defaults where it has one). */
const RESULTS = "results.xml";
const PROPERTY_RESULTS = "properties.xml";

/** pytest-cov learned `--cov-report=json` in 4.1. */
const PYTEST_COV_JSON: readonly number[] = [4, 1];

/** A word for `sh`: as it is when it needs no quoting, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** pytest's verbosity from `addopts` (-q -1, -v +1, `--verbosity=N` sets it). */
function addoptsVerbosity(addopts: readonly string[]): number {
  let level = 0;
  for (let i = 0; i < addopts.length; i++) {
    const a = addopts[i]!;
    if (a === "--quiet") level--;
    else if (a === "--verbose") level++;
    else if (/^-q+$/.test(a)) level -= a.length - 1;
    else if (/^-v+$/.test(a)) level += a.length - 1;
    else if (a.startsWith("--verbosity=")) level = Number(a.slice(12)) || 0;
    else if (a === "--verbosity") level = Number(addopts[++i]) || 0;
  }
  return level;
}

/**
 * The flags that bring `--collect-only` to verbosity -1, where pytest prints one node id a line (the
 * universe's format): `-q`, or more or fewer when the project's addopts already set a verbosity.
 */
export function collectQuietFlags(addopts: readonly string[]): string {
  const needed = addoptsVerbosity(addopts) + 1;
  if (needed > 0) return `-${"q".repeat(needed)}`;
  if (needed < 0) return `-${"v".repeat(-needed)}`;
  return "";
}

/** Plans the config for `layout`, run with `tools`, on top of `defaults`. */
export function planInit(layout: Layout, tools: PythonTools, defaults: GateConfig): InitPlan {
  const config: GateConfig = structuredClone(defaults);
  const notes: TemplateNotes = {};
  const findings: string[] = [];
  const warnings: string[] = [];
  const py = tools.command;
  const addopts = layout.pytest?.addopts ?? [];
  const args = layout.collectArgs.map((a) => ` ${shellWord(a)}`).join("");
  const collected = config.universe.collected[0]!;
  const report = config.coverage.reports[0]!;

  // The universe: one node id a line. A project whose addopts turn coverage on would print its
  // coverage table into the file, so the collection turns it off.
  const quiet = collectQuietFlags(addopts);
  const noCov = addopts.some((a) => a.startsWith("--cov")) ? " --no-cov" : "";
  const collect = `${py} -m pytest --collect-only${quiet ? ` ${quiet}` : ""}${noCov}${args} > ${shellWord(collected)}`;

  // The proof run: coverage of the source, with branches, and JUnit results whose file attribute
  // names each test exactly (xunit1). pytest-cov's own floor would turn a low total into a failed run
  // (tests_failed); the gate's floor is min_proven.
  // `--cov=` overrides coverage.py's `[run] include`, which then warns "--include is ignored because --source is
  // set": a project's `filterwarnings = error` (pluggy) would fail every run on that warning alone.
  const includeIgnored = (layout.coverage?.include.length ?? 0) > 0 ? ` -W ${shellWord(INCLUDE_IGNORED)}` : "";
  const cov = `${includeIgnored}${layout.source.map((s) => ` --cov=${shellWord(s)}`).join("")}`;
  const failUnder = layout.coverage?.failUnder;
  const noFloor =
    failUnder !== undefined || addopts.some((a) => a.startsWith("--cov-fail-under")) ? " --cov-fail-under=0" : "";
  const junit = `-o junit_family=xunit1 --junitxml=${RESULTS}`;
  const jsonReport = atLeast(tools.pytestCov, PYTEST_COV_JSON);
  const proof = jsonReport
    ? `${py} -m pytest${args}${cov} --cov-branch --cov-report=json:${shellWord(report)}${noFloor} ${junit}`
    : `${py} -m pytest${args}${cov} --cov-branch${noFloor} ${junit}; s=$?; ${py} -m coverage json -q -o ${shellWord(report)}; exit $s`;
  // The head's collection runs beside the proof run, not before it: its time is off the check's.
  config.commands = { ...config.commands, collect, proof, collectBesideProof: true };
  config.results.junit = [RESULTS];
  if (failUnder !== undefined) {
    config.coverage.minProven = Math.min(100, Math.max(0, failUnder));
    notes.coverage = [`min_proven is fail_under of ${layout.coverage!.where.replace(/ \[.*$/, "")}.`];
  }

  notes.commands = [
    `Written by \`proofgate init\` for pytest's settings ${layout.pytest ? `in ${layout.pytest.where}` : layout.pytestAbove ? `in ${layout.pytestAbove.where}, above this folder` : "(none: pytest's defaults)"}`,
    `and --cov=${layout.source.join(",")} (${layout.sourceFrom}).`,
    ...(includeIgnored
      ? [`It overrides ${layout.coverage!.where}'s include, and -W ignores coverage.py's warning that it does.`]
      : []),
    `Python: \`${py}\`${toolsText(tools) ? ` (${toolsText(tools)})` : ""}.`,
    ...(jsonReport
      ? ["pytest-cov writes the JSON report (--cov-report=json, pytest-cov 4.1 or later)."]
      : [
          "pytest-cov before 4.1 has no JSON report: `coverage json` writes it, and the step keeps",
          "pytest's exit code.",
        ]),
  ];

  findings.push(
    `pytest settings: ${
      layout.pytest
        ? `${layout.pytest.where}${layout.pytest.testpaths.length ? ` (testpaths ${layout.pytest.testpaths.join(", ")})` : ""}`
        : layout.pytestAbove
          ? `none in this folder; pytest reads ${layout.pytestAbove.where}, so its rootdir is ${layout.pytestAbove.rootdir} and test ids (and leases) start there`
          : "none found (pytest's defaults)"
    }`,
    `tests: ${layout.testFolders.length ? layout.testFolders.join(", ") : "no tests/ or test/ folder found: pytest collects from the root"}`,
    `coverage source: ${layout.source.join(", ")} (${layout.sourceFrom})`,
  );
  for (const u of layout.unreadable) {
    warnings.push(`${u.path}: ${u.why}; init read it as holding no settings, and pytest will stop on it too`);
  }
  if (layout.source.length === 1 && layout.source[0] === ".") {
    warnings.push(
      "no package folder found (src/<pkg>/, <pkg>/__init__.py): the proof run measures the whole repository, tests included. Set [tool.coverage.run] source, or edit --cov= in [commands] proof",
    );
  }
  if (layout.sourceTests.length > 0) {
    warnings.push(
      `coverage.py's source in ${layout.coverage!.where} lists ${layout.sourceTests.join(", ")}: test code is not source, so the proof run does not measure it (--cov=${layout.source.join(",")}); measured, the tests' own lines would count as proven coverage. Remove ${layout.sourceTests.join(", ")} from source`,
    );
  }
  for (const folder of layout.testsMeasured) {
    warnings.push(
      `coverage.py measures ${folder} too (${layout.coverage ? `no omit for it in ${layout.coverage.where}` : "no coverage.py settings"}): tests count as covered code. Add omit = ["${folder}/*"] to coverage.py's [run] settings`,
    );
  }

  // Fixtures: on where golden files exist, else off with how to turn them on.
  const t = config.trailers;
  if (layout.fixtures.length > 0) {
    config.fixtures.paths = [...layout.fixtures];
    notes.fixtures = [`Found by \`proofgate init\`: ${layout.fixtures.join(", ")} (files, no Python module).`];
    findings.push(`golden files: ${layout.fixtures.join(", ")}`);
  } else {
    config.fixtures.enabled = false;
    notes.fixtures = [
      `Off: \`proofgate init\` found no golden-file folder (fixtures, data, golden, snapshots, expected or`,
      `testdata in a test folder, holding files and no Python module). To turn it on: list the folder in`,
      `paths, set enabled = true, run \`proofgate lock\`, and commit both in a human commit with`,
      `\`${t.gateChange}: human\` and \`${t.fixtureLock}: human\`.`,
    ];
    findings.push("golden files: none found, so [fixtures] enabled = false");
  }
  for (const p of layout.passed) findings.push(`  passed over ${p.path}: ${p.why}`);

  // Seeds and the property suite.
  if (layout.seeds.length > 0) {
    config.properties.seeds = [...layout.seeds];
    findings.push(`seeds: ${layout.seeds.join(", ")}`);
    if (layout.propertySuite !== undefined) {
      config.commands.properties = `${py} -m pytest ${shellWord(layout.propertySuite)} -o junit_family=xunit1 --junitxml=${PROPERTY_RESULTS}`;
      config.properties.results = [PROPERTY_RESULTS];
      config.properties.tests = [layout.propertySuite];
      notes.properties = [
        `Found by \`proofgate init\`: ${layout.seeds.join(", ")}; the suite in ${layout.propertySuite}.`,
      ];
      findings.push(`property suite: ${layout.propertySuite}`);
    } else {
      notes.properties = [
        `Found by \`proofgate init\`: ${layout.seeds.join(", ")}. No folder of property tests of its own beside`,
        `them: write [commands] properties (it gets the base's seeds in $PROOFGATE_SEEDS_DIR) and results.`,
      ];
      warnings.push(
        `seeds in ${layout.seeds.join(", ")}, but no folder of property tests beside them: the gate judges the seeds; write [commands] properties and [properties] results to run the suite`,
      );
    }
  } else if (layout.hypothesisTests.length > 0) {
    // No seeds, but property tests: the seed signals stay off until a seed folder exists (the gate turns
    // them off on its own while the seeds are left unset), and the property tests are judged meanwhile.
    notes.seedsUnset = true;
    const shown = layout.hypothesisTests.slice(0, 3).join(", ");
    const more = layout.hypothesisTests.length > 3 ? ` and ${layout.hypothesisTests.length - 3} more` : "";
    notes.properties = [
      `\`proofgate init\` found no seed folder, and test modules that import hypothesis (${shown}${more}).`,
      `Every key but judge_tests is left unset: the seed signals stay off until the default seed folder has files,`,
      `and a change to a property test needs \`${t.propertySeeds}: human\` meanwhile (\`property_weakened\`).`,
    ];
    findings.push(
      `seeds: none found; ${layout.hypothesisTests.length} test module(s) import hypothesis, so the property tests are judged (the seed signals wait for seeds)`,
    );
  } else {
    config.properties.enabled = false;
    notes.properties = [
      "Off: `proofgate init` found no seed folder (properties/seeds, seeds, corpus or fuzz/corpus in a test",
      "folder, holding files). To turn it on: commit the seed files, list their folder in seeds, set",
      "enabled = true, and add [commands] properties that runs the property suite on $PROOFGATE_SEEDS_DIR",
      `(the base's seeds), in a human commit with \`${t.gateChange}: human\` and \`${t.propertySeeds}: human\`.`,
    ];
    findings.push("seeds: none found, so [properties] enabled = false");
  }

  findings.push(
    `python: \`${py}\`${tools.python ? ` (${toolsText(tools)})` : " did not run"}${tools.pytest ? `: ${jsonReport ? "pytest-cov writes the JSON report" : "`coverage json` writes the JSON report (pytest-cov before 4.1 has none)"}` : ""}`,
  );
  if (tools.python === undefined) {
    warnings.push(`\`${py}\` did not run: install Python with pytest and pytest-cov, or pass --python <interpreter>`);
  } else {
    const missing = [
      ["pytest", tools.pytest],
      ["pytest-cov", tools.pytestCov],
      ["coverage", tools.coverage],
    ].filter(([, version]) => version === undefined);
    if (missing.length > 0)
      warnings.push(
        `\`${py}\` has no ${missing.map(([name]) => name).join(", ")}: install ${missing.map(([name]) => name).join(" ")} into it (pip install), or pass --python <interpreter>`,
      );
    else if (!jsonReport && !atLeast(tools.coverage, [5]))
      warnings.push(`coverage ${tools.coverage} has no \`coverage json\` (5.0 added it): upgrade coverage`);
  }
  return { config, notes, findings, warnings };
}

function toolsText(tools: PythonTools): string {
  return [
    tools.python && `Python ${tools.python}`,
    tools.pytest && `pytest ${tools.pytest}`,
    tools.pytestCov && `pytest-cov ${tools.pytestCov}`,
    tools.coverage && `coverage ${tools.coverage}`,
  ]
    .filter(Boolean)
    .join(", ");
}

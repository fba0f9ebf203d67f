#!/usr/bin/env node
// Issue 25, item 2: `proofgate check` (without --run) end to end on a generated monorepo-sized case, at
// 1/4, 1/2 and full size: wall clock and peak RSS per size, optionally a CPU profile summary.
//
//   node tooling/bench/scale.mjs [--sizes 0.25,0.5,1] [--runs 3] [--variants shards,contexts]
//        [--cache DIR] [--profile] [--cli PATH] [--build-only]
//
// Full size: 100,000 collected tests (2,000 test files), 1,000 leases, 20,000 source modules, 100,000
// fixture files with their fixtures.lock, 100 seeds, and a range of 200 commits from the base, each of
// which changes the ledger, a fixture and the lock, and adds a seed (every 4th also a source module's
// constant, every 10th is an agent's source-only commit). Two variants of the same repository, which
// differ only in the base's proofgate.toml: `shards`, 50 coverage.py JSON reports (one per CI job; each
// lists the modules its tests ran), and `contexts`, one `.coverage` with a context per test (100,001)
// and that run's `coverage json`. The evidence is bound to the head with `proofgate record`.
// A size scales every count but the 50 shards. The repositories are built once per size (git
// fast-import, then a checkout) under --cache (default $TMPDIR/proofgate-scale) and reused; a
// `built.json` in each marks it complete. Nothing of it is committed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { summariseProfile } from "./cpuprofile.mjs";
import {
  benchDir,
  clock,
  fromRoot,
  hasGnuTime,
  machineInfo,
  machineLine,
  makeFail,
  median,
  parseOptions,
  publish,
  root,
  run,
  table,
  wholeNumber,
} from "./lib.mjs";

const fail = makeFail("scale");
const options = parseOptions(
  "scale.mjs",
  {
    sizes: {
      value: "LIST",
      default: [0.25, 0.5, 1],
      parse: (v, { flag, fail }) => {
        const sizes = v.split(",").map(Number);
        if (sizes.some((s) => !(s > 0 && s <= 1))) fail(`${flag} takes sizes in (0, 1], comma-separated`);
        return sizes;
      },
    },
    runs: { value: "N", default: 3, parse: wholeNumber(1) },
    variants: {
      value: "LIST",
      default: ["shards", "contexts"],
      parse: (v, { flag, fail }) => {
        const list = v.split(",");
        if (list.some((x) => x !== "shards" && x !== "contexts")) fail(`${flag} takes shards and/or contexts`);
        return list;
      },
    },
    cache: { value: "DIR", default: join(tmpdir(), "proofgate-scale") },
    cli: { value: "PATH", default: join(root, "packages/cli/dist/proofgate.js") },
    "baseline-cli": { value: "PATH" },
    profile: {},
    "no-warm-up": {},
    "build-only": {},
  },
  fail,
);
if (!existsSync(options.cli)) fail(`no CLI at ${options.cli}: run pnpm build first`);
const PYTHON = "/usr/bin/python3";

// ---------------------------------------------------------------------------------------------- the case

const FUNCTIONS = 10;
const TESTS_PER_FILE = 50;
const SHARDS = 50;
const HUMAN = "Ada Lovelace <ada@example.org>";
const AGENT = "patchbot[bot] <patchbot@example.org>";

/** Must match module_source in make_scale_coverage.py. */
function moduleSource(index, bump = 0) {
  let s = `"""Module ${index} of the scale benchmark."""\n`;
  for (let j = 0; j < FUNCTIONS; j++) {
    const c = index + j + (j === 0 ? bump : 0);
    s += `\n\ndef f_${j}(x):\n    if x > 0:\n        y = x + ${c}\n    else:\n        y = x - ${c}\n    return y\n`;
  }
  return s;
}
const pad = (n, w) => String(n).padStart(w, "0");
const modulePath = (i) => `src/pkg_${pad(Math.floor(i / 100), 3)}/mod_${pad(i, 5)}.py`;
const testFilePath = (tf, packages) => `tests/pkg_${pad(tf % packages, 3)}/test_m${pad(tf, 5)}.py`;
const fixturePath = (i) => `tests/fixtures/d${pad(Math.floor(i / 1000), 3)}/f${pad(i, 6)}.txt`;
const fixtureText = (i, rev = 0) => `fixture ${i} revision ${rev}\n${"golden output line ".repeat(3 + (i % 5))}\n`;
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

function counts(size) {
  const tests = Math.round(100_000 * size);
  const leases = Math.round(1_000 * size);
  return {
    size,
    tests,
    testFiles: tests / TESTS_PER_FILE,
    leases,
    every: tests / leases,
    files: Math.round(20_000 * size),
    fixtures: Math.round(100_000 * size),
    seeds: Math.max(10, Math.round(100 * size)),
    commits: Math.round(200 * size),
    shards: SHARDS,
  };
}

function nodeid(t) {
  const tf = Math.floor(t / TESTS_PER_FILE);
  return `${tf}::test_f${Math.floor((t % TESTS_PER_FILE) / 5)}[${t % 5}]`;
}

function testFileSource(tf) {
  let s = "import pytest\n\n";
  for (let j = 0; j < TESTS_PER_FILE / 5; j++) {
    s += `\n@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])\ndef test_f${j}(n):\n    assert n + ${tf} >= ${tf}\n\n`;
  }
  return s;
}

function ledgerText(c, active, revision) {
  let s = `version = 1\nmax_active_leases = ${c.leases}\n`;
  for (const k of active) {
    const t = k * c.every;
    const id = `${testFilePath(Math.floor(t / TESTS_PER_FILE), c.files / 100)}::${nodeid(t).split("::")[1]}`;
    const note = revision.get(k) ?? 0;
    s += `\n[[leases]]\nnodeid = "${id}"\nowner = "owner-${k % 17}"\nreason = "flaky on CI runner ${k % 7} (note ${note})"\nexpires = "2999-12-31"\nticket = "FLAKE-${1000 + k}"\n`;
  }
  return s;
}

function configText(c, variant) {
  const reports =
    variant === "shards"
      ? `reports = [${Array.from({ length: c.shards }, (_, s) => `"cov/shard-${pad(s + 1, 2)}.json"`).join(", ")}]\nshards = ${c.shards}`
      : `reports = ["coverage.json"]\ncontexts = ".coverage"`;
  return `[coverage]\n${reports}\nmin_proven = 50\n\n[properties]\nresults = ["properties.xml"]\n`;
}

const GITIGNORE = [
  "collected.txt",
  "cov/",
  ".coverage",
  "coverage.json",
  "properties.xml",
  "proofgate-evidence.json",
  "proofgate-report/",
  "__pycache__/",
  "",
].join("\n");

const PYPROJECT = `[project]\nname = "scale"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n\n[tool.coverage.run]\nbranch = true\nsource = ["src"]\n`;

const PROPS = `import os\nfrom pathlib import Path\n\n\ndef test_roundtrip_on_seeds():\n    root = Path(os.environ.get("PROOFGATE_SEEDS_DIR", ".")) / "tests" / "properties" / "seeds"\n    for seed in sorted(root.glob("*")):\n        assert seed.read_text(encoding="utf-8")\n`;

/** Writes git fast-import's stream for one variant to `out` (a writable fd-backed function). */
function fastImportStream(c, variant, write) {
  let ts = 1_760_000_000;
  const data = (text) => {
    const b = Buffer.from(text);
    write(`data ${b.length}\n`);
    write(b);
    write("\n");
  };
  const file = (path, text) => {
    write(`M 100644 inline ${path}\n`);
    data(text);
  };
  const commit = (who, message, from, body) => {
    write(`commit refs/heads/main\nauthor ${who} ${ts} +0000\ncommitter ${who} ${ts} +0000\n`);
    ts += 60;
    data(message);
    // Later commits on the branch continue from its tip.
    body();
    write("\n");
  };
  const packages = c.files / 100;
  const fixtureRev = new Uint32Array(c.fixtures);
  const lockLines = Array.from({ length: c.fixtures }, (_, i) => `${sha256(fixtureText(i))}  ${fixturePath(i)}\n`);
  const added = Math.ceil(c.commits / 2);
  const active = [];
  for (let k = 0; k < c.leases - added; k++) active.push(k);
  const revision = new Map();

  // The bulk of the repository: a human's first commit.
  commit(HUMAN, "Monorepo\n", false, () => {
    file(".gitignore", GITIGNORE);
    file("pyproject.toml", PYPROJECT);
    for (let p = 0; p < packages; p++) file(`src/pkg_${pad(p, 3)}/__init__.py`, "");
    for (let i = 0; i < c.files; i++) file(modulePath(i), moduleSource(i));
    for (let tf = 0; tf < c.testFiles; tf++) file(testFilePath(tf, packages), testFileSource(tf));
    for (let i = 0; i < c.fixtures; i++) file(fixturePath(i), fixtureText(i));
    file("fixtures.lock", lockLines.join(""));
    file("tests/properties/test_props.py", PROPS);
    for (let s = 0; s < c.seeds; s++) file(`tests/properties/seeds/seed_${pad(s, 4)}.txt`, `seed ${s}\n`);
    file("freeze.toml", ledgerText(c, active, revision));
  });
  // The base: the policy, a human's.
  commit(HUMAN, "Adopt proofgate\n", true, () => file("proofgate.toml", configText(c, variant)));
  // The range.
  for (let i = 1; i <= c.commits; i++) {
    if (i % 10 === 5) {
      const m = (i * 7919) % c.files;
      commit(AGENT, `Tune module ${m}\n`, true, () => file(modulePath(m), moduleSource(m, 1000 + i)));
      continue;
    }
    const message = `Range commit ${i}: a lease, a fixture, a seed\n\nFreeze-Lease: human\nFixture-Lock: human\nProperty-Seeds: human\n`;
    commit(HUMAN, message, true, () => {
      if (i % 2 === 0 && active.length < c.leases) active.push(active.length);
      else {
        const k = active[(i * 31) % active.length];
        revision.set(k, i);
      }
      file("freeze.toml", ledgerText(c, active, revision));
      const f = (i * 104729) % c.fixtures;
      fixtureRev[f] = i;
      const text = fixtureText(f, i);
      file(fixturePath(f), text);
      lockLines[f] = `${sha256(text)}  ${fixturePath(f)}\n`;
      file("fixtures.lock", lockLines.join(""));
      file(`tests/properties/seeds/seed_r${pad(i, 4)}.txt`, `range seed ${i}\n`);
      if (i % 4 === 0) {
        const m = (i * 131) % c.files;
        file(modulePath(m), moduleSource(m, i));
      }
    });
  }
  if (active.length !== c.leases) throw new Error(`the range left ${active.length} leases, not ${c.leases}`);
}

function git(cwd, args, input) {
  const r = spawnSync("git", args, {
    cwd,
    input,
    encoding: input === undefined ? "utf8" : undefined,
    maxBuffer: 1 << 30,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.stderr}`);
  return String(r.stdout);
}

function buildVariant(c, variant, dir) {
  const elapsed = clock();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main", "."]);
  // The stream goes through a file: the lock's 200 versions are gigabytes at full size.
  const streamFile = `${dir}.fast-import`;
  const fd = openSync(streamFile, "w");
  fastImportStream(c, variant, (x) => writeSync(fd, x));
  closeSync(fd);
  const input = openSync(streamFile, "r");
  const fi = spawnSync("git", ["fast-import", "--quiet", "--depth=50"], {
    cwd: dir,
    stdio: [input, "ignore", "pipe"],
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
  closeSync(input);
  rmSync(streamFile, { force: true });
  if (fi.status !== 0) throw new Error(`git fast-import failed: ${fi.stderr}`);
  git(dir, ["checkout", "-q", "-f", "main"]);
  const log = git(dir, ["rev-list", "--reverse", "main"]).trim().split("\n");
  const base = log[1];
  const head = log.at(-1);
  // The evidence, written by a CI step bound to the head with `proofgate record`.
  const stage = `${dir}.evidence`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const packages = c.files / 100;
  const ids = [];
  for (let t = 0; t < c.tests; t++) {
    const tf = Math.floor(t / TESTS_PER_FILE);
    ids.push(`${testFilePath(tf, packages)}::${nodeid(t).split("::")[1]}`);
  }
  writeFileSync(join(stage, "collected.txt"), `${ids.join("\n")}\n\n${c.tests} tests collected in 9.99s\n`);
  writeFileSync(
    join(stage, "properties.xml"),
    `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="1" time="0.5"><testcase classname="tests.properties.test_props" name="test_roundtrip_on_seeds" file="tests/properties/test_props.py" line="4" time="0.4" /></testsuite></testsuites>\n`,
  );
  const py = spawnSync(
    PYTHON,
    [
      join(benchDir, "make_scale_coverage.py"),
      variant,
      stage,
      "--root",
      dir,
      "--files",
      String(c.files),
      "--every",
      String(c.every),
      "--shards",
      String(c.shards),
      "--tests-per-file",
      String(TESTS_PER_FILE),
    ],
    { encoding: "utf8", maxBuffer: 1 << 26 },
  );
  if (py.status !== 0) throw new Error(`make_scale_coverage.py failed: ${py.stderr}`);
  const evidence = readdirSync(stage, { recursive: true }).filter((p) => !p.endsWith("cov"));
  const writes = evidence.flatMap((p) => ["--writes", p]);
  const rec = spawnSync(
    process.execPath,
    [options.cli, "record", "--stamp", "proofgate-evidence.json", ...writes, "--", `cp -r ${stage}/. .`],
    { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } },
  );
  if (rec.status !== 0) throw new Error(`proofgate record failed (exit ${rec.status}): ${rec.stderr}`);
  rmSync(stage, { recursive: true, force: true });
  const built = { variant, base, head, counts: c, coverage: JSON.parse(py.stdout), seconds: elapsed() / 1000 };
  writeFileSync(join(dir, "..", `built-${variant}.json`), `${JSON.stringify(built, null, 2)}\n`);
  return built;
}

function theCase(size, variant) {
  const c = counts(size);
  const folder = join(options.cache, `size-${size}-v1`);
  const dir = join(folder, variant);
  const marker = join(folder, `built-${variant}.json`);
  if (existsSync(marker) && existsSync(dir)) return { dir, ...JSON.parse(readFileSync(marker, "utf8")) };
  process.stderr.write(`scale: building the ${variant} case at size ${size} in ${dir} ...\n`);
  rmSync(marker, { force: true });
  const built = buildVariant(c, variant, dir);
  process.stderr.write(`scale: built in ${built.seconds.toFixed(0)} s\n`);
  return { dir, ...built };
}

// ---------------------------------------------------------------------------------------------- timing

function checkOnce(k, { profileDir, cli = options.cli } = {}) {
  const cmd = [
    process.execPath,
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    cli,
    "check",
    "--platform",
    "local",
    "--base",
    k.base,
    "--out-dir",
    "proofgate-report",
  ];
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };
  for (const key of Object.keys(env)) if (/^(GITHUB_|GITLAB_|BUILDKITE|CI$|CI_)/.test(key)) delete env[key];
  const r = run(cmd, {
    cwd: k.dir,
    env,
    time: hasGnuTime ? { format: "%e %U %S %M", out: join(k.dir, "..", "time.txt") } : undefined,
  });
  let report;
  try {
    report = JSON.parse(readFileSync(join(k.dir, "proofgate-report", "report.json"), "utf8"));
  } catch {
    throw new Error(`check wrote no report.json (exit ${r.status}):\n${r.stderr.slice(-3000)}`);
  }
  if (r.status === 2 || report.errors?.length)
    throw new Error(
      `check exit ${r.status}: ${JSON.stringify(report.errors).slice(0, 2000)}\n${r.stderr.slice(-2000)}`,
    );
  const [, user, sys, rss] = r.fields ?? [];
  return {
    ms: r.ms,
    cpu_ms: r.fields ? (user + sys) * 1000 : null,
    rss_mib: r.fields ? rss / 1024 : null,
    status: r.status,
    decision: report.decision,
    reasons: report.reasons,
    commits: report.commits,
  };
}

// ---------------------------------------------------------------------------------------------- main

const startedAt = new Date();
const loadBefore = loadavg();
const cases = [];
for (const size of options.sizes) for (const variant of options.variants) cases.push(theCase(size, variant));
if (options.buildOnly) process.exit(0);

// Each case with this build, and with --baseline-cli when given: interleaved, case by case.
const clis = [options.cli, ...(options.baselineCli ? [options.baselineCli] : [])];
const members = cases.flatMap((k) => clis.map((cli) => ({ k, cli, build: cli === options.cli ? "this" : "baseline" })));
const samples = members.map(() => []);
for (const [i, m] of options.noWarmUp ? [] : members.entries()) {
  const first = checkOnce(m.k, { cli: m.cli }); // warm-up: the page cache and git's index
  process.stderr.write(
    `scale: size ${m.k.counts.size} ${m.k.variant} ${m.build}: warm-up ${(first.ms / 1000).toFixed(1)} s, ${first.decision} ${first.reasons.join(",")}\n`,
  );
  samples[i].first = first;
}
for (let r = 1; r <= options.runs; r++) {
  for (const [i, m] of members.entries()) {
    const s = checkOnce(m.k, { cli: m.cli });
    samples[i].push(s);
    process.stderr.write(
      `scale: run ${r} size ${m.k.counts.size} ${m.k.variant} ${m.build}: ${(s.ms / 1000).toFixed(2)} s, CPU ${(s.cpu_ms / 1000).toFixed(1)} s, ${s.rss_mib?.toFixed(0)} MiB\n`,
    );
  }
}
const profiles = [];
if (options.profile) {
  for (const k of cases) {
    const dir = join(k.dir, "..", `profile-${k.variant}`);
    rmSync(dir, { recursive: true, force: true });
    checkOnce(k, { profileDir: dir });
    const file = readdirSync(dir).find((f) => f.endsWith(".001.cpuprofile")) ?? readdirSync(dir)[0];
    profiles.push({
      size: k.counts.size,
      variant: k.variant,
      file: join(dir, file),
      ...summariseProfile(join(dir, file)),
    });
  }
}

const rows = members.map(({ k, build }, i) => {
  const s = samples[i];
  const ms = s.map((x) => x.ms);
  const rss = s.map((x) => x.rss_mib).filter((x) => x !== null);
  const cpu = s.map((x) => x.cpu_ms).filter((x) => x !== null);
  return {
    size: k.counts.size,
    variant: k.variant,
    build,
    counts: k.counts,
    coverage: k.coverage,
    decision: s[0]?.decision,
    reasons: s[0]?.reasons ?? [],
    wall_ms: { samples: ms, median: median(ms), min: Math.min(...ms), max: Math.max(...ms) },
    cpu_ms: cpu.length ? median(cpu) : null,
    peak_rss_mib: rss.length ? Math.max(...rss) : null,
  };
});
const machine = machineInfo(loadBefore);
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const markdown = [
  `### Results (${startedAt.toISOString().slice(0, 16)}Z, \`node tooling/bench/scale.mjs ${process.argv.slice(2).join(" ")}\`)`,
  "",
  machineLine(machine),
  "",
  ...table(
    [
      "size",
      "variant",
      "tests / leases / modules / fixtures / commits",
      "wall, median (min-max)",
      "CPU",
      "peak RSS",
      "answer",
    ],
    rows.map((r) => [
      `${r.size}`,
      r.variant,
      `${r.counts.tests} / ${r.counts.leases} / ${r.counts.files} / ${r.counts.fixtures} / ${r.counts.commits}`,
      `${fmtS(r.wall_ms.median)} (${fmtS(r.wall_ms.min)}-${fmtS(r.wall_ms.max)})`,
      r.cpu_ms === null ? "n/a" : fmtS(r.cpu_ms),
      r.peak_rss_mib === null ? "n/a" : `${r.peak_rss_mib.toFixed(0)} MiB`,
      `${r.decision} ${r.reasons.join(", ")}`.trim(),
    ]),
  ),
  "",
  ...profiles.flatMap((p) => [
    `Profile, size ${p.size} ${p.variant} (${p.total_ms} ms of samples), inclusive time of the bundle's functions:`,
    "",
    ...p.inclusive.slice(0, 25).map((x) => `- ${x.name}: ${x.ms} ms (${(x.share * 100).toFixed(1)} %)`),
    "",
    "Self time:",
    "",
    ...p.self.slice(0, 15).map((x) => `- ${x.name}: ${x.ms} ms (${(x.share * 100).toFixed(1)} %)`),
    "",
  ]),
];
publish({
  tag: "scale",
  script: "scale.mjs",
  prefix: "scale",
  startedAt,
  markdown,
  data: { machine, cli: fromRoot(options.cli), baseline_cli: options.baselineCli ?? null, cases: rows, profiles },
});

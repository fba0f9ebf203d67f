// A Python project with git history for `proofgate check` end to end: a package, a pytest suite with one
// frozen (leased) test, a golden fixture and its lock, a property suite that reads its seeds from
// PROOFGATE_SEEDS_DIR, and a proofgate.toml whose [commands] run the real pytest 7.2, pytest-cov 4.0 and
// coverage.py 6.5 of /usr/bin/python3. The base commit is a human's; the patch's commits are an agent's
// unless a scenario says otherwise. Git never reads the machine's config (the approach of
// packages/cli/src/git-scratch.ts, which the CLI package does not export).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PROOFGATE, PYTHON } from "./helpers.js";

export interface Identity {
  name: string;
  email: string;
}

/** A human developer (matches no agent pattern). */
export const HUMAN: Identity = { name: "Ada Lovelace", email: "ada@example.org" };
/** An agent: matches the default pattern `*[bot]*`. */
export const AGENT: Identity = { name: "patchbot[bot]", email: "patchbot@example.org" };

/** A file's new text, a symlink, or null to delete it. */
export type FileChange = string | Buffer | { symlink: string } | null;

export interface PatchCommit {
  message: string;
  files: Record<string, FileChange>;
  /** Author and committer; default AGENT. */
  who?: Identity;
  /** An SSH private key file: the commit is signed with it (`git commit -S`, gpg.format=ssh). */
  sign?: string;
}

/** Environment for git, pytest and proofgate: nothing from the caller's shell, CI or git config steers them. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([k, v]) =>
      v !== undefined &&
      !/^(PYTHON|PYTEST_|COVERAGE_|GIT_|GITHUB_|GITLAB_|BUILDKITE|CI$|CI_|NO_COLOR|FORCE_COLOR)/.test(k),
  ) as [string, string][];
  return {
    ...Object.fromEntries(kept),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    PYTHONDONTWRITEBYTECODE: "1",
    LC_ALL: "C",
    ...extra,
  };
}

let clock = 1_750_000_000;

/** Runs git in `cwd` as `who`, with fixed, increasing dates; throws with stderr on failure. */
export function git(cwd: string, args: readonly string[], who: Identity = HUMAN): string {
  const date = `${clock++} +0000`;
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: cleanEnv({
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
      GIT_COMMITTER_DATE: date,
    }),
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.error ?? r.stderr}`);
  return r.stdout;
}

export const sha256 = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

// ---------------------------------------------------------------------------------------------------
// The project's files at the base.

export const FROZEN = "tests/test_a.py::test_frozen";

export const CALC = `"""Prices, labels and a text codec."""


def total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result


def label(n):
    if n > 1000:
        return "big"  # only the frozen test
    return "small"


def encode(text):
    return text.encode("utf-8").hex()


def decode(data):
    return bytes.fromhex(data).decode("utf-8")
`;

export const TEST_A = `import pytest

from pkg.calc import label, total


def test_frozen():
    assert label(5000) == "big"


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert total([100], discount=10) == 90


def test_negative():
    with pytest.raises(ValueError):
        total([-1])


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert label(n) == "small"
`;

export const TEST_B = `from pathlib import Path

from pkg.calc import decode, encode


def test_roundtrip():
    assert decode(encode("abc")) == "abc"


def test_golden():
    assert Path("tests/fixtures/golden.txt").read_text() == encode("golden") + "\\n"
`;

/** The property suite: every seed of the base (PROOFGATE_SEEDS_DIR) must survive encode/decode. */
export const TEST_PROPS = `import os
from pathlib import Path

from pkg.calc import decode, encode


def seeds():
    root = Path(os.environ["PROOFGATE_SEEDS_DIR"]) / "tests" / "properties" / "seeds"
    return sorted(p for p in root.glob("*") if p.is_file()) if root.is_dir() else []


def test_roundtrip_on_seeds():
    for seed in seeds():
        text = seed.read_text(encoding="utf-8")
        assert decode(encode(text)) == text, seed.name
`;

export const GOLDEN = `${Buffer.from("golden").toString("hex")}\n`;
export const lockOf = (files: Record<string, string>): string =>
  Object.keys(files)
    .sort()
    .map((path) => `${sha256(files[path]!)}  ${path}\n`)
    .join("");

export const ledger = (o: { max?: number; expires?: string; extra?: string } = {}): string => `version = 1
max_active_leases = ${o.max ?? 1}

[[leases]]
nodeid = "${FROZEN}"
owner = "ada"
reason = "flaky on CI"
expires = "${o.expires ?? "2099-12-31"}"
${o.extra ?? ""}`;

export const lease = (nodeid: string, expires = "2099-12-31"): string => `
[[leases]]
nodeid = "${nodeid}"
owner = "someone"
reason = "frozen"
expires = "${expires}"
`;

export const PY = PYTHON;
export const COLLECT = `${PY} -m pytest -p no:cacheprovider --collect-only -q tests --ignore=tests/properties > collected.txt`;
/** The proof run: pytest-cov 4.0 has no JSON report, so coverage.py writes it, whatever pytest's exit code. */
export const proofCommand = (o: { cov?: string; pytestArgs?: string; prefix?: string } = {}): string =>
  `${o.prefix ?? ""}${PY} -m pytest -p no:cacheprovider -q tests --ignore=tests/properties --cov=${o.cov ?? "pkg"} --cov-branch --cov-report= -o junit_family=xunit1 --junitxml=results.xml${o.pytestArgs ? ` ${o.pytestArgs}` : ""}; s=$?; ${PY} -m coverage json -q -o proven_coverage.json; exit $s`;
export const PROPERTIES = `${PY} -m pytest -p no:cacheprovider -q tests/properties -o junit_family=xunit1 --junitxml=properties.xml`;

export const config = (
  o: {
    minProven?: number;
    minPatchProven?: number;
    shards?: number;
    proof?: string;
    collect?: string;
    properties?: string;
    extra?: string;
  } = {},
): string => `[coverage]
reports = ["proven_coverage.json"]
min_proven = ${o.minProven ?? 80}
${o.minPatchProven === undefined ? "" : `min_patch_proven = ${o.minPatchProven}\n`}${o.shards === undefined ? "" : `shards = ${o.shards}\n`}
[results]
junit = ["results.xml"]
max_unledgered_skips = 0

[properties]
results = ["properties.xml"]

[commands]
collect = ${JSON.stringify(o.collect ?? COLLECT)}
proof = ${JSON.stringify(o.proof ?? proofCommand())}
properties = ${JSON.stringify(o.properties ?? PROPERTIES)}
${o.extra ?? ""}`;

export const SEEDS = {
  "tests/properties/seeds/ascii.txt": "hello\n",
  "tests/properties/seeds/unicode.txt": "héllo €\n",
};

export function baseFiles(): Record<string, FileChange> {
  return {
    ".gitignore":
      "collected.txt\nproven_coverage.json\nresults.xml\nproperties.xml\n.coverage\nproofgate-evidence.json\nproofgate-report/\n__pycache__/\n",
    "pkg/__init__.py": "",
    "pkg/calc.py": CALC,
    "tests/test_a.py": TEST_A,
    "tests/test_b.py": TEST_B,
    "tests/properties/test_props.py": TEST_PROPS,
    ...SEEDS,
    "tests/fixtures/golden.txt": GOLDEN,
    "fixtures.lock": lockOf({ "tests/fixtures/golden.txt": GOLDEN }),
    "freeze.toml": ledger(),
    "proofgate.toml": config(),
  };
}

/** The patch that merges: the agent adds a covered function and its test. */
export const MERGE_PATCH: PatchCommit = {
  message: "Add describe()\n",
  files: {
    "pkg/calc.py": `${CALC}

def describe(items):
    if not items:
        return "empty"
    return f"{len(items)} items"
`,
    "tests/test_b.py": `${TEST_B}

def test_describe():
    from pkg.calc import describe

    assert describe([]) == "empty"
    assert describe([1, 2]) == "2 items"
`,
  },
};

export interface Project {
  dir: string;
  base: string;
  head: string;
  /** The patch's commits, oldest first (MERGE_PATCH's first unless left out). */
  commits: string[];
}

export function applyFiles(dir: string, files: Record<string, FileChange>): void {
  for (const [path, change] of Object.entries(files)) {
    const full = join(dir, path);
    rmSync(full, { force: true, recursive: true });
    if (change === null) continue;
    mkdirSync(dirname(full), { recursive: true });
    if (typeof change === "object" && !Buffer.isBuffer(change)) symlinkSync(change.symlink, full);
    else writeFileSync(full, change);
  }
}

/**
 * A repository: the base (a human's commit of baseFiles() with `base` applied) on `main`, then on
 * branch `patch` the MERGE_PATCH commit (unless `mergePatch: false`) and `patch`'s commits.
 */
export function makeCheckProject(
  o: { base?: Record<string, FileChange>; patch?: PatchCommit[]; mergePatch?: boolean } = {},
): Project {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-check-"));
  git(dir, ["init", "-q", "-b", "main", "."]);
  applyFiles(dir, { ...baseFiles(), ...o.base });
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "Base"]);
  const base = git(dir, ["rev-parse", "HEAD"]).trim();
  git(dir, ["checkout", "-q", "-b", "patch"]);
  const commits: string[] = [];
  for (const c of [...(o.mergePatch === false ? [] : [MERGE_PATCH]), ...(o.patch ?? [])]) {
    applyFiles(dir, c.files);
    git(dir, ["add", "-A"]);
    const sign = c.sign ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${c.sign}`] : [];
    git(
      dir,
      [...sign, "commit", "-q", "--allow-empty", "--cleanup=verbatim", ...(c.sign ? ["-S"] : []), "-m", c.message],
      c.who ?? AGENT,
    );
    commits.push(git(dir, ["rev-parse", "HEAD"]).trim());
  }
  return { dir, base, head: commits.at(-1) ?? base, commits };
}

/** An SSH signing key made with ssh-keygen (ed25519, no passphrase) in a new temp folder `dir`. */
export function sshKey(name: string): { dir: string; privateKey: string; publicKey: string } {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-key-"));
  const privateKey = join(dir, name);
  const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", privateKey], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.error ?? r.stderr}`);
  return { dir, privateKey, publicKey: readFileSync(`${privateKey}.pub`, "utf8").trim() };
}

/** The files a proof run leaves, to reuse in scenarios whose signal is history or config, not a run. */
export const ARTIFACTS = ["collected.txt", "proven_coverage.json", "results.xml", "properties.xml"] as const;

export function saveArtifacts(from: string): string {
  const to = mkdtempSync(join(tmpdir(), "proofgate-artifacts-"));
  for (const f of ARTIFACTS) cpSync(join(from, f), join(to, f));
  return to;
}

/**
 * Copies the artifacts into `dir` through `proofgate record`, which binds them to `dir`'s commit: the
 * scenarios that reuse them judge history or config, not which run wrote the files.
 */
export function putArtifacts(from: string, dir: string): void {
  const writes = ARTIFACTS.flatMap((f) => ["--writes", f]);
  const copy = ARTIFACTS.map((f) => `cp ${join(from, f)} ${f}`).join(" && ");
  // The files and the stamp named: record reads no proofgate.toml (a scenario may corrupt the work tree's).
  const r = record(dir, ["--stamp", "proofgate-evidence.json", ...writes, "--", copy]);
  if (r.status !== 0) throw new Error(`proofgate record failed (exit ${r.status}): ${r.stderr}`);
}

/** `proofgate record ...args` in `dir`, in cleanEnv(`env`). */
export function record(
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PROOFGATE, "record", ...args], {
    cwd: dir,
    env: cleanEnv(env),
    encoding: "utf8",
    timeout: 110_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

// ---------------------------------------------------------------------------------------------------
// Running `proofgate check`.

export interface Finding {
  reason: string;
  message: string;
  file: string | null;
  line: number | null;
  commit: string | null;
  author: string | null;
}

export interface CheckReport {
  decision: string;
  reasons: string[];
  today_utc: string | null;
  collected_tests: number | null;
  active_leases: number | null;
  expired_leases: number | null;
  proven_coverage_percent: number | null;
  min_proven_coverage_percent: number | null;
  fixture_digest_delta: number | null;
  property_failures: number | null;
  agent_added_leases: number | null;
  base: string | null;
  head: string | null;
  commits?: number | null;
  signals: { id: string; result: string; reasons: string[]; value: string }[];
  details: Finding[];
  errors: { code: string; message: string; file: string | null; line: number | null }[];
  accounting?: Record<string, unknown> | null;
  coverage?: Record<string, unknown>;
  ledger?: { unknown: { nodeid: string; close_ids: string[] }[]; active: { nodeid: string }[] };
  commands?: { step: string; exit_code: number; seconds?: number }[];
  inputs: { role: string; path: string; sha256: string }[];
  warnings: string[];
}

export interface CheckRun {
  status: number;
  stdout: string;
  stderr: string;
  /** report.json's bytes. */
  json: string;
  report: CheckReport;
}

/** Checks running at once: CI has 2 cores, and each --run check is three pytest processes in a row. */
const MAX_RUNNING = 3;
let running = 0;
const waiting: (() => void)[] = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RUNNING) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * `proofgate check --platform local --out-dir proofgate-report ...args` in `dir`, in cleanEnv(`env`);
 * reads report.json.
 */
export function check(dir: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<CheckRun> {
  return slot(
    () =>
      new Promise<CheckRun>((resolve, reject) => {
        const out = join(dir, "proofgate-report");
        rmSync(join(out, "report.json"), { force: true });
        const child = spawn(
          process.execPath,
          [PROOFGATE, "check", "--platform", "local", "--out-dir", "proofgate-report", ...args],
          { cwd: dir, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] },
        );
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        child.stdout.on("data", (b: Buffer) => stdout.push(b));
        child.stderr.on("data", (b: Buffer) => stderr.push(b));
        const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
        child.on("error", reject);
        child.on("close", (code) => {
          clearTimeout(timer);
          const run = {
            status: code ?? -1,
            stdout: Buffer.concat(stdout).toString("utf8"),
            stderr: Buffer.concat(stderr).toString("utf8"),
          };
          let json: string;
          try {
            json = readFileSync(join(out, "report.json"), "utf8");
          } catch {
            reject(
              new Error(`proofgate check wrote no report.json (exit ${run.status})\n${run.stdout}\n${run.stderr}`),
            );
            return;
          }
          resolve({ ...run, json, report: JSON.parse(json) as CheckReport });
        });
      }),
  );
}

/** `value` (a report, parsed JSON) with every object key in `keys` left out, at any depth. */
export function withoutKeys(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutKeys(v, keys));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => !keys.has(k))
      .map(([k, x]) => [k, withoutKeys(x, keys)]),
  );
}

/** A copy of a project's folder (work tree and .git) at another path. */
export function copyProject(p: Project): Project {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-check-copy-"));
  cpSync(p.dir, dir, { recursive: true, verbatimSymlinks: true });
  rmSync(join(dir, "proofgate-report"), { recursive: true, force: true });
  return { ...p, dir };
}

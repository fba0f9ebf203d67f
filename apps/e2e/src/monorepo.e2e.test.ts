// Issue 23 item 4, a gate per package in a monorepo: two packages (pkgs/a, pkgs/b) in one git repository,
// each with its own proofgate.toml, freeze.toml, fixtures.lock, golden files, seeds and [commands] (the real
// pytest 7.2, pytest-cov 4.0 and coverage.py 6.5 of /usr/bin/python3), gated from the repository root with
// `check --run --root pkgs/a` and `--root pkgs/b` on one pull request, published to GitHub through the real
// @octokit/rest client against the fake GitHub on 127.0.0.1 (every request checked against GitHub's OpenAPI
// description). An agent's lease in a rejects a's gate and leaves b's MERGE; b's commits are not a's; a
// commit to the shared CI files counts for both; the two gates publish under two names; annotations point
// at repository paths. `--root` refuses a folder that does not exist, is outside the repository, or is
// reached through a symlink; a symlink out of the package does not carry another package's ledger in.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT,
  CALC,
  GOLDEN,
  HUMAN,
  TEST_A,
  TEST_B,
  MERGE_PATCH,
  applyFiles,
  baseFiles,
  config,
  cleanEnv,
  git,
  lease,
  ledger,
  type CheckReport,
  type FileChange,
  type Identity,
} from "./check-project.js";
import { PROOFGATE } from "./helpers.js";
import { TOKENS, startFakeGithub, type FakeGithub } from "../../../packages/github/src/__fixtures__/openapi-server.js";

const WORKFLOW = `name: ci
on: pull_request
jobs:
  gate:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        package: [pkgs/a, pkgs/b]
    steps:
      - uses: actions/checkout@v4
        with: { fetch-depth: 0 }
      - uses: proofgate/proofgate@v1
        with: { run: true, working-directory: \${{ matrix.package }} }
`;

/** A package's files under `dir` (pkgs/a/...). */
const under = (dir: string, files: Record<string, FileChange>): Record<string, FileChange> =>
  Object.fromEntries(Object.entries(files).map(([path, change]) => [`${dir}/${path}`, change]));

function commit(dir: string, message: string, files: Record<string, FileChange>, who: Identity = AGENT): string {
  applyFiles(dir, files);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "--allow-empty", "-m", message], who);
  return git(dir, ["rev-parse", "HEAD"]).trim();
}

interface Gate {
  status: number;
  stdout: string;
  stderr: string;
  report: CheckReport & { root?: string };
}

/** `proofgate check ...args` at the repository root as a GitHub Actions job of pull request 7 would run it. */
function gate(
  dir: string,
  args: readonly string[],
  pr?: { base: string; head: string; api: string },
  baseRef = "main",
): Promise<Gate> {
  const out = join(dir, `report-${Math.random().toString(36).slice(2)}`);
  const event = join(out, "..", `${out.split("/").at(-1)}.event.json`);
  const env: Record<string, string> = pr
    ? {
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_EVENT_PATH: event,
        GITHUB_REPOSITORY: "acme/mono",
        GITHUB_SERVER_URL: "https://github.example",
        GITHUB_API_URL: pr.api,
        GITHUB_RUN_ID: "5",
        GITHUB_SHA: pr.head,
        GITHUB_WORKSPACE: dir,
        GITHUB_TOKEN: TOKENS.write,
      }
    : {};
  if (pr)
    writeFileSync(
      event,
      JSON.stringify({
        action: "synchronize",
        number: 7,
        pull_request: {
          number: 7,
          user: { login: "patchbot[bot]", type: "Bot" },
          base: { ref: "main", sha: pr.base, repo: { full_name: "acme/mono" } },
          head: { ref: "patch", sha: pr.head, repo: { full_name: "acme/mono" } },
        },
        repository: { full_name: "acme/mono", default_branch: "main" },
      }),
    );
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [PROOFGATE, "check", "--platform", pr ? "github" : "local", "--out-dir", out, "--base", baseRef, ...args],
      { cwd: dir, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 170_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      rmSync(event, { force: true });
      try {
        const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as Gate["report"];
        rmSync(out, { recursive: true, force: true });
        resolve({ status: code ?? -1, stdout, stderr, report });
      } catch {
        reject(new Error(`no report.json (exit ${code})\n${stdout}\n${stderr}`));
      }
    });
  });
}

let dir: string;
let base: string;
let fake: FakeGithub;

beforeAll(async () => {
  fake = await startFakeGithub({ owner: "acme", repo: "mono" });
  dir = mkdtempSync(join(tmpdir(), "proofgate-monorepo-"));
  git(dir, ["init", "-q", "-b", "main", "."]);
  base = commit(
    dir,
    "Base: two packages",
    {
      ".gitignore": "report-*\n",
      ".github/workflows/ci.yml": WORKFLOW,
      "README.md": "Two packages, a gate each.\n",
      ...under("pkgs/a", baseFiles()),
      ...under("pkgs/b", baseFiles()),
    },
    HUMAN,
  );
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("two packages, two gates on one pull request", () => {
  it("an agent's lease in pkgs/a rejects a's gate, b's good change MERGEs, each published under its own name", async () => {
    git(dir, ["checkout", "-q", "-b", "patch", base]);
    // b's change: a covered function and its test (b's gate MERGEs it); it touches nothing of a.
    const onlyB = commit(dir, "b: add describe()\n", under("pkgs/b", MERGE_PATCH.files));
    // a's change: the agent freezes a second test with a lease of its own.
    const leaseA = commit(dir, "a: freeze test_total\n", {
      "pkgs/a/freeze.toml": ledger({ max: 2, extra: lease("tests/test_a.py::test_total") }),
    });
    fake.commits.add(leaseA);
    const pr = { base, head: leaseA, api: fake.url };

    const a = await gate(dir, ["--run", "--root", "pkgs/a"], pr);
    expect(a.report.errors, a.stderr).toEqual([]);
    expect(a.status, a.stdout).toBe(1);
    expect(a.report.decision).toBe("REJECT");
    expect(a.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy"]);
    expect(a.report.root).toBe("pkgs/a");
    expect(a.stdout).toMatch(/^proofgate: REJECT .*  package pkgs\/a$/m);
    // b's commit is not a's: a's range holds its own commit only, and the finding names it.
    expect(a.report.commits).toBe(1);
    const finding = a.report.details.find((d) => d.reason === "agent_added_lease")!;
    expect(finding).toMatchObject({ commit: leaseA, file: "freeze.toml" });
    expect(a.report.details.some((d) => d.commit === onlyB)).toBe(false);
    // a's own run: its collected tests and its frozen ones, measured in pkgs/a.
    expect(a.report.collected_tests).toBe(8);
    expect(a.report.active_leases).toBe(2);
    expect(a.report.coverage).toMatchObject({ files: ["proven_coverage.json"] });
    // The workflow annotation points at the repository's path of a's ledger.
    expect(a.stdout).toMatch(/^::error file=pkgs\/a\/freeze\.toml,line=\d+,title=proofgate%3A agent_added_lease::/m);

    const b = await gate(dir, ["--run", "--root", "pkgs/b"], pr);
    expect(b.report.errors, b.stderr).toEqual([]);
    expect(b.status, b.stdout).toBe(0);
    expect(b.report.decision).toBe("MERGE");
    expect(b.report.root).toBe("pkgs/b");
    expect(b.report.commits).toBe(1);
    expect(b.report.active_leases).toBe(1);
    expect(b.report.collected_tests).toBe(9);
    // The patch's lines, from git's diff of the package's part, named as coverage.py names b's files.
    const patch = (
      b.report.coverage as {
        patch: { changed_files: number; files: { path: string; coverable: number; covered: number }[] } | null;
      }
    ).patch;
    expect(patch?.files.map((f) => f.path)).toEqual(["pkg/calc.py"]);
    expect(patch?.files[0]).toMatchObject({ coverable: 4, covered: 4 });

    // Two check runs and two PR comments, by name: neither gate replaced the other's.
    expect(fake.violations).toEqual([]);
    const runs = [...fake.checkRuns.values()];
    expect(runs.map((r) => [r.body.name, r.body.conclusion, r.body.head_sha])).toEqual([
      ["proofgate/pkgs/a", "failure", leaseA],
      ["proofgate/pkgs/b", "success", leaseA],
    ]);
    // The check run's annotation for a's lease is on pkgs/a/freeze.toml, where GitHub shows a's ledger.
    const annotations = runs[0]!.annotations as { path: string; annotation_level: string; title: string }[];
    expect(annotations).toContainEqual(
      expect.objectContaining({
        path: "pkgs/a/freeze.toml",
        annotation_level: "failure",
        title: "proofgate: agent_added_lease",
      }),
    );
    expect(annotations.every((x) => x.path.startsWith("pkgs/a/"))).toBe(true);
    expect(fake.comments.map((c) => [c.issue, c.body.split("\n")[0]!.replace(/ \(.*-->$/, "")])).toEqual([
      [7, "<!-- proofgate:report:proofgate/pkgs/a"],
      [7, "<!-- proofgate:report:proofgate/pkgs/b"],
    ]);
    expect(fake.comments[0]!.body).toMatch(/REJECT/);
    // Each comment says which package it judged (its paths are relative to it).
    expect(fake.comments[0]!.body).toContain("package `pkgs/a`");
    expect(fake.comments[1]!.body).toContain("package `pkgs/b`");
    expect(fake.comments[1]!.body).toMatch(/MERGE/);

    // A second run of a's gate updates a's check run and comment, not b's.
    const again = await gate(dir, ["--run", "--root", "pkgs/a"], pr);
    expect(again.status).toBe(1);
    expect(fake.comments).toHaveLength(2);
    expect(fake.comments[1]!.body).toMatch(/MERGE/);
  }, 600_000);

  it("a commit to the shared CI files counts for both packages; an agent's conftest.py in b is b's alone", async () => {
    git(dir, ["checkout", "-q", "-b", "ci", base]);
    const ci = commit(dir, "ci: skip the gate\n", {
      ".github/workflows/ci.yml": WORKFLOW.replace("run: true", "run: false"),
    });
    // A protected path of b's (`**/conftest.py`): a gate of the whole repository would reject a for it too.
    const conftest = commit(dir, "b: a conftest\n", { "pkgs/b/tests/conftest.py": "# b's fixtures\n" });
    // An unrelated human commit at the root: neither package's.
    commit(dir, "docs\n", { "README.md": "Two packages.\n" }, HUMAN);
    const expected: Record<string, { commits: number; touched: [string, string][] }> = {
      "pkgs/a": { commits: 1, touched: [[ci, "../../.github/workflows/ci.yml"]] },
      "pkgs/b": {
        commits: 2,
        touched: [
          [ci, "../../.github/workflows/ci.yml"],
          [conftest, "tests/conftest.py"],
        ],
      },
    };
    for (const [pkg, want] of Object.entries(expected)) {
      const r = await gate(dir, ["--run", "--root", pkg]);
      expect(r.report.errors, r.stderr).toEqual([]);
      expect(r.status, r.stdout).toBe(1);
      expect(r.report.reasons).toEqual(["protected_path"]);
      expect(r.report.root).toBe(pkg);
      expect(r.report.commits).toBe(want.commits);
      expect(r.report.details.filter((d) => d.reason === "protected_path").map((d) => [d.commit, d.file])).toEqual(
        want.touched,
      );
    }
  }, 600_000);

  it("a symlink out of the package does not carry b's files into a's gate", async () => {
    git(dir, ["checkout", "-q", "-b", "link", base]);
    commit(dir, "a: share b's ledger\n", { "pkgs/a/freeze.toml": { symlink: "../b/freeze.toml" } });
    const r = await gate(dir, ["--root", "pkgs/a"]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    expect(r.report.errors).toContainEqual(
      expect.objectContaining({ file: "freeze.toml", message: expect.stringMatching(/outside the package folder/) }),
    );
  }, 120_000);
});

describe("what a package's tests read elsewhere in the repository", () => {
  // The test reads the file from the repository's top, three folders above it (pkgs/<x>/tests/).
  const SHARED_TEST = (path: string) => `from pathlib import Path

from pkg.calc import total

EXPECTED = Path(__file__).resolve().parent / ${JSON.stringify(path)}


def test_total_matches_the_shared_expectation():
    assert total([1, 2, 3], discount=50) == float(EXPECTED.read_text())
`;
  // a's code breaks the 50% discount; the agent rewrites the shared expectation to match.
  const REGRESSION = {
    "pkgs/a/pkg/calc.py": CALC.replace(
      "    return result\n",
      "    if discount == 50:\n        result += 1\n    return result\n",
    ),
    "testdata/expected.txt": "4.0\n",
  };
  const reads = (r: Gate) =>
    (
      r.report.details.find((d) => d.reason === "unlocked_fixture_read") as
        { message: string; fix?: string } | undefined
    )?.message;

  it("a golden file beside the package, rewritten by the agent to match a regression: REJECT unlocked_fixture_read", async () => {
    git(dir, ["checkout", "-q", "-b", "shared-golden", base]);
    const setup = commit(
      dir,
      "a: check total against the shared expectation\n",
      {
        "testdata/expected.txt": "3.0\n",
        "pkgs/a/tests/test_shared.py": SHARED_TEST("../../../testdata/expected.txt"),
      },
      HUMAN,
    );
    // As the base had it, the file is the base's evidence: nothing to judge.
    const same = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, setup);
    expect(same.report.errors, same.stderr).toEqual([]);
    expect(same.status, same.stdout).toBe(0);
    // Neither a's lock nor a's commits hold testdata/: the commit that changed it need not be one of a's.
    commit(dir, "a: round discounts\n", { "pkgs/a/pkg/calc.py": REGRESSION["pkgs/a/pkg/calc.py"] });
    commit(dir, "shared: new expectation\n", { "testdata/expected.txt": REGRESSION["testdata/expected.txt"] });
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, setup);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.status, r.stdout).toBe(1);
    expect(r.report.reasons).toEqual(["unlocked_fixture_read"]);
    expect(reads(r)).toContain(
      "the tests read 1 file(s) outside the package's folder that changed in the range without a human's `Fixture-Lock: human` on each commit that changed them (no lock of the package holds them): ../../testdata/expected.txt (first by tests/test_shared.py::test_total_matches_the_shared_expectation)",
    );
  }, 300_000);

  it("... read through a symlink in the package: the file it leads to is judged", async () => {
    git(dir, ["checkout", "-q", "-b", "shared-golden-link", base]);
    const setup = commit(
      dir,
      "a: check total against the shared expectation, linked\n",
      {
        "testdata/expected.txt": "3.0\n",
        "pkgs/a/tests/shared": { symlink: "../../../testdata" },
        "pkgs/a/tests/test_shared.py": SHARED_TEST("shared/expected.txt"),
      },
      HUMAN,
    );
    commit(dir, "a: round discounts\n", REGRESSION);
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, setup);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.status, r.stdout).toBe(1);
    expect(r.report.reasons).toEqual(["unlocked_fixture_read"]);
    expect(reads(r)).toContain("../../testdata/expected.txt (first by tests/test_shared.py::");
  }, 300_000);

  it("a package with its fixtures off still answers for a golden file it reads beside it; a human's trailer approves", async () => {
    git(dir, ["checkout", "-q", "-b", "shared-golden-b", base]);
    // A human moves b's golden file to the repository's top: b has no fixtures left and turns the signal off as
    // `init` writes it for such a package, and b's test reads the shared copy.
    const setup = commit(
      dir,
      "b: read the golden file from testdata/\n",
      {
        "testdata/golden.txt": GOLDEN,
        "pkgs/b/tests/fixtures/golden.txt": null,
        "pkgs/b/fixtures.lock": null,
        "pkgs/b/proofgate.toml": `${config()}\n[fixtures]\nenabled = false\n`,
        "pkgs/b/tests/test_b.py": TEST_B.replace(
          'Path("tests/fixtures/golden.txt")',
          'Path("../../testdata/golden.txt")',
        ),
      },
      HUMAN,
    );
    // The agent changes the codec and rewrites the golden file to match: b's tests pass.
    const upper = {
      "pkgs/b/pkg/calc.py": CALC.replace('text.encode("utf-8").hex()', 'text.encode("utf-8").hex().upper()'),
      "testdata/golden.txt": GOLDEN.toUpperCase(),
    };
    commit(dir, "b: upper-case hex\n", upper);
    const r = await gate(dir, ["--run", "--root", "pkgs/b"], undefined, setup);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.status, r.stdout).toBe(1);
    expect(r.report.reasons).toEqual(["unlocked_fixture_read"]);
    expect(reads(r)).toContain("../../testdata/golden.txt (first by tests/test_b.py::test_golden)");
    // The same change by a human, with the trailer: MERGE.
    git(dir, ["checkout", "-q", "-b", "shared-golden-b-human", setup]);
    commit(dir, "b: upper-case hex\n\nFixture-Lock: human\n", upper, HUMAN);
    const approved = await gate(dir, ["--run", "--root", "pkgs/b"], undefined, setup);
    expect(approved.report.errors, approved.stderr).toEqual([]);
    expect(approved.report.reasons).toEqual([]);
    expect(approved.status, approved.stdout).toBe(0);
    // An untracked file beside the package (a virtualenv at the top) is not one: only what git has counts.
    git(dir, ["checkout", "-q", "-b", "shared-venv-b", base]);
    const venv = commit(
      dir,
      "b: a test reads an untracked file\n",
      {
        "pkgs/b/tests/test_untracked.py": `from pathlib import Path\n\n\ndef test_reads():\n    assert Path("../../untracked.txt").read_text()\n`,
      },
      HUMAN,
    );
    commit(dir, "b: describe()\n", under("pkgs/b", MERGE_PATCH.files));
    writeFileSync(join(dir, "untracked.txt"), "not committed\n");
    const clean = await gate(dir, ["--run", "--root", "pkgs/b"], undefined, venv);
    rmSync(join(dir, "untracked.txt"));
    expect(clean.report.errors, clean.stderr).toEqual([]);
    expect(clean.report.reasons).toEqual([]);
    expect(clean.status, clean.stdout).toBe(0);
  }, 300_000);
});

describe("a package whose pytest settings are the repository's (test ids from the top, paths from the package)", () => {
  // pytest finds its settings in the top's pyproject.toml, so its rootdir is the top and a's test ids read
  // `pkgs/a/tests/test_a.py::...`, while git's paths and the findings' files are the package's.
  const ROOT_SETTINGS = `[tool.pytest.ini_options]\nminversion = "7.0"\n`;
  const withoutDiscount = TEST_A.replace("def test_discount():\n    assert total([100], discount=10) == 90\n\n\n", "");
  // A human moves pytest's settings to the repository's top, and a's lease to the id that gives its test.
  const moveSettingsToTop = (): string =>
    commit(
      dir,
      "pytest settings at the top\n\nGate-Change: human\nFreeze-Lease: human\n",
      {
        "pyproject.toml": ROOT_SETTINGS,
        "pkgs/a/freeze.toml": ledger().replace(`nodeid = "tests/`, `nodeid = "pkgs/a/tests/`),
      },
      HUMAN,
    );
  let setup: string;
  beforeAll(() => {
    git(dir, ["checkout", "-q", "-b", "root-settings", base]);
    setup = moveSettingsToTop();
  });

  it("the human's move of the settings itself: every id changed, none removed (the row says they moved)", async () => {
    git(dir, ["checkout", "-q", setup]);
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, base);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.report.reasons, r.stdout).toEqual([]);
    expect(r.status, r.stdout).toBe(0);
    const row = (r.report as unknown as { signals: { id: string; value: string }[] }).signals.find(
      (x) => x.id === "removed_tests",
    );
    expect(row?.value).toContain(
      "0 of 8 base tests not collected at head; 8 base tests collected under new ids (pytest's rootdir is ../.. at head)",
    );
  }, 300_000);

  it("... with a test skipped on both sides: the base's run is asked for it by its base id, no new skip", async () => {
    git(dir, ["checkout", "-q", "-b", "root-settings-move-skip", base]);
    const skipped = commit(
      dir,
      "a: a test for another platform\n",
      {
        "pkgs/a/tests/test_platform.py": `import pytest\n\n\n@pytest.mark.skipif(True, reason="windows only")\ndef test_windows():\n    assert False\n`,
      },
      HUMAN,
    );
    moveSettingsToTop();
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, skipped);
    expect(r.report.errors, r.stderr).toEqual([]);
    // a's config allows no unledgered skip at all (max_unledgered_skips = 0): the skip counts there, not as new.
    expect(r.report.reasons, r.stdout).toEqual(["skip_budget"]);
    expect(r.report.signals.find((x) => x.id === "test_evidence")?.value).toContain("0 new skips");
  }, 300_000);

  it("a human's removal with Test-Removal: human MERGEs though an agent changed code in the range", async () => {
    git(dir, ["checkout", "-q", "-b", "root-settings-human", setup]);
    commit(
      dir,
      "a: drop a redundant test\n\nTest-Removal: human\n",
      { "pkgs/a/tests/test_a.py": withoutDiscount },
      HUMAN,
    );
    commit(dir, "a: add describe()\n", under("pkgs/a", MERGE_PATCH.files));
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, setup);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.report.reasons, r.stdout).toEqual([]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.report.collected_tests).toBe(8);
  }, 300_000);

  it("a module that skips itself at the base and at head (a missing optional dependency) is no new skip", async () => {
    git(dir, ["checkout", "-q", "-b", "root-settings-optional", setup]);
    const optional = commit(
      dir,
      "a: yaml support, tested where the dependency is installed\n",
      {
        "pkgs/a/tests/test_optional.py": `import pytest\n\nyaml = pytest.importorskip("no_such_optional_dependency")\n\n\ndef test_dump():\n    assert yaml\n`,
      },
      HUMAN,
    );
    commit(dir, "a: add describe()\n", under("pkgs/a", MERGE_PATCH.files));
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], undefined, optional);
    expect(r.report.errors, r.stderr).toEqual([]);
    // Not a new skip: the base's run skipped the module too. (a's config allows no unledgered skip at all,
    // max_unledgered_skips = 0, which counts every skip at head, new or not.)
    expect(r.report.reasons, r.stdout).toEqual(["skip_budget"]);
    expect(r.report.signals.find((x) => x.id === "test_evidence")?.value).toContain("0 new skips");
  }, 300_000);

  it("an agent's removal REJECTs on the package's test file, annotated at its repository path", async () => {
    git(dir, ["checkout", "-q", "-b", "root-settings-agent", setup]);
    commit(dir, "a: docs\n\nTest-Removal: human\n", { "pkgs/a/README.md": "a\n" }, HUMAN);
    const removal = commit(dir, "a: tidy tests\n", { "pkgs/a/tests/test_a.py": withoutDiscount });
    fake.commits.add(removal);
    const r = await gate(dir, ["--run", "--root", "pkgs/a"], { base: setup, head: removal, api: fake.url }, setup);
    expect(r.report.errors, r.stderr).toEqual([]);
    expect(r.status, r.stdout).toBe(1);
    expect(r.report.reasons).toEqual(["tests_removed"]);
    const finding = r.report.details.find((d) => d.reason === "tests_removed")!;
    expect(finding).toMatchObject({ file: "tests/test_a.py", commit: removal });
    expect(finding.message).toContain("pkgs/a/tests/test_a.py::test_discount is collected at base but not at head");
    expect(r.stdout).toMatch(/^::error file=pkgs\/a\/tests\/test_a\.py,title=proofgate%3A tests_removed::/m);
  }, 300_000);
});

describe("--root refuses a folder the gate cannot stand behind (exit 2, the flag named)", () => {
  it.each([
    ["pkgs/c", /--root "pkgs\/c" does not exist/],
    ["..", /--root "\.\." is outside the git repository/],
    ["pkgs/a/freeze.toml", /--root "pkgs\/a\/freeze\.toml" is not a folder/],
    [".git", /inside the repository's \.git folder/],
    ["alias", /--root "alias" passes through a symlink/],
  ])("--root %s", async (root, message) => {
    git(dir, ["checkout", "-q", "main"]);
    rmSync(join(dir, "alias"), { force: true });
    symlinkSync("pkgs/b", join(dir, "alias"));
    try {
      const r = await gate(dir, ["--root", root]);
      expect(r.status).toBe(2);
      expect(r.report.decision).toBe("REJECT");
      expect(r.report.errors).toEqual([
        expect.objectContaining({ code: "usage", message: expect.stringMatching(message) }),
      ]);
      expect(r.stdout).toMatch(message);
      expect(r.stdout).toMatch(/--root/);
    } finally {
      rmSync(join(dir, "alias"), { force: true });
    }
  });
});

// `decide --base <base>` over real git histories (docs/contract.md §6, §7, §8, §10): each scenario scripts a
// repository in a temp folder (git-scratch: no global config is read or written), runs the CLI
// in-process with a fixed clock (2026-12-02) in the repository, and checks the EXACT reasons, the
// commit and file of each finding, the counts and the range.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ADA,
  DEPENDABOT,
  ISOLATED_GIT_ENV,
  scratchGit,
  scratchRepo,
  wrapRepo,
  type ScratchFile,
  type ScratchIdentity,
  type ScratchRepo,
} from "@proofgate/gate/testing";
import { run, type CliIo } from "./main.js";

const NOW = new Date("2026-12-02T12:00:00Z");

/** The coding agent of these histories: a GitHub App, so `*[bot]*` matches it. */
const AGENT: ScratchIdentity = { name: "agent[bot]", email: "123456+agent[bot]@users.noreply.github.com" };
const BY_AGENT = { author: AGENT };
/** A human-authored commit whose message names an agent co-author. */
const CLAUDE_CO_AUTHOR = "Co-authored-by: Claude <noreply@anthropic.com>";

// ---- the project ------------------------------------------------------------------------------

const id = (name: string): string => `tests/test_a.py::test_${name}`;
const NAMES = ["one", "two", "three", "four", "five"];
const COLLECTED = `${NAMES.map(id).join("\n")}\n\n${NAMES.length} tests collected in 0.01s\n`;
const COVERAGE =
  '{"meta": {"format": 3}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n';

interface LedgerSpec {
  budget?: number;
  rejectIfExpired?: boolean;
  rejectIfAgentAddsLease?: boolean;
  leases: [name: string, expires: string][];
}

/** `freeze.toml` in the article's layout. */
function ledger(spec: LedgerSpec): string {
  let out = `version = 1\nmax_active_leases = ${spec.budget ?? 3}\n`;
  if (spec.rejectIfExpired !== undefined) out += `reject_if_expired = ${spec.rejectIfExpired}\n`;
  if (spec.rejectIfAgentAddsLease !== undefined) out += `reject_if_agent_adds_lease = ${spec.rejectIfAgentAddsLease}\n`;
  for (const [name, expires] of spec.leases)
    out += `\n[[leases]]\nnodeid = "${id(name)}"\nowner = "alice"\nreason = "flaky ${name}"\nexpires = "${expires}"\n`;
  return out;
}

/** The 1-based line of the `[[leases]]` header of the lease on `id(name)` in a ledger text (`ledger()`'s layout). */
const lineOf = (text: string, name: string): number =>
  text.split("\n").findIndex((l) => l === `nodeid = "${id(name)}"`);

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
/** `fixtures.lock` as `sha256sum` writes it, paths in byte order. */
function lock(files: Record<string, string>): string {
  return Object.keys(files)
    .sort()
    .map((path) => `${sha256(files[path]!)}  ${path}\n`)
    .join("");
}

const GOLDEN = "tests/fixtures/golden.json";
const TABLE = "tests/fixtures/nested/table.csv";
const GOLDENS = { [GOLDEN]: '{"total": 42}\n', [TABLE]: "a,b\n1,2\n" };
const SEEDS = "tests/properties/seeds";
const S1 = `${SEEDS}/s1.json`;
const S2 = `${SEEDS}/s2.json`;
const S3 = `${SEEDS}/s3.json`;
/** A vitest snapshot file outside `[fixtures] paths` (tests/fixtures), and a test with an inline snapshot. */
const SNAP = "web/__snapshots__/sum.test.ts.snap";
const SNAP_TEXT = '// Vitest Snapshot v1\n\nexports[`sum 1`] = `\n{\n  "sum": "4",\n}\n`;\n';
const INLINE = "web/sum.test.ts";
const INLINE_TEXT =
  'import { describe, expect, test } from "vitest";\n\ndescribe("sum", () => {\n  test("adds", () => {\n    expect({ sum: 2 + 2 }).toMatchInlineSnapshot(`\n      {\n        "sum": 4,\n      }\n    `);\n  });\n});\n';
/** A monorepo's root pyproject.toml: pytest's settings (shared by a package without its own) and a linter's. */
const ROOT_PYPROJECT = '[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n';
const BASE_LEDGER = ledger({ leases: [["one", "2026-12-20"]] });

/** Property tests: one under the default [properties] tests folder, one outside it that imports hypothesis. */
const PROPS = "tests/properties/test_props.py";
const FUZZ = "tests/test_fuzz.py";
const PLAIN = "tests/test_plain.py";
const PROPERTY_FILES = {
  [PROPS]:
    "from hypothesis import given, settings, strategies as st\n\n\n@given(st.text())\n@settings(max_examples=200)\ndef test_roundtrip(s):\n    assert s == s\n",
  [FUZZ]:
    "import hypothesis.strategies as st\nfrom hypothesis import given\n\n@given(st.integers())\ndef test_fuzz(n):\n    assert n == n\n",
  [PLAIN]: "def test_plain():\n    assert 'from hypothesis import given'\n",
};

/** The base commit's files: a ledger with one active lease, golden files and their lock, two seeds. */
function baseFiles(overrides: Record<string, ScratchFile> = {}): Record<string, ScratchFile> {
  return {
    "freeze.toml": BASE_LEDGER,
    ...GOLDENS,
    "fixtures.lock": lock(GOLDENS),
    [S1]: '{"seed": 1}\n',
    [S2]: '{"seed": 2}\n',
    "src/app.py": "def total():\n    return 42\n",
    ...overrides,
  };
}

// ---- running it -------------------------------------------------------------------------------

interface Detail {
  reason: string;
  message: string;
  file: string | null;
  line: number | null;
  commit: string | null;
  author: string | null;
  fix: string;
}

interface Report {
  decision: string;
  reasons: string[];
  agent_added_leases: number | null;
  fixture_digest_delta: number | null;
  base?: string | null;
  head?: string | null;
  commits?: number | null;
  details?: Detail[];
  errors?: { code: string; message: string }[];
}

let inputsDir: string;
const temps: string[] = [];
beforeAll(() => {
  inputsDir = mkdtempSync(join(tmpdir(), "proofgate-patch-inputs-"));
  temps.push(inputsDir);
  writeFileSync(join(inputsDir, "collected.txt"), COLLECTED);
  writeFileSync(join(inputsDir, "proven_coverage.json"), COVERAGE);
});
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  // The code under test runs git with the process's environment: keep it off the machine's config and CI.
  for (const [k, v] of Object.entries(ISOLATED_GIT_ENV)) vi.stubEnv(k, v);
  for (const k of ["GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"]) vi.stubEnv(k, "");
});

function track(repo: ScratchRepo): ScratchRepo {
  temps.push(repo.dir);
  return repo;
}

/** `proofgate decide <argv>` in `repo` (the ledger is the repo's work tree's; universe and coverage are fixed). */
async function decideIn(repo: string, argv: string[]): Promise<{ code: number; stderr: string; report: Report }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    now: () => NOW,
    cwd: repo,
    env: process.env,
  };
  const flags = [
    "--freeze",
    join(repo, "freeze.toml"),
    "--collected",
    join(inputsDir, "collected.txt"),
    "--coverage",
    join(inputsDir, "proven_coverage.json"),
  ];
  const code = await run(["decide", ...flags, ...argv], io);
  return { code, stderr, report: JSON.parse(stdout) as Report };
}

// ---- the scenarios ----------------------------------------------------------------------------

type Shas = Record<string, string>;

interface Scenario {
  name: string;
  /** Overrides of the base commit's files (null deletes one). */
  base?: Record<string, ScratchFile>;
  /** The patch: commits on top of the base; returns the commits by name. */
  patch: (repo: ScratchRepo) => Shas;
  reasons: string[];
  /** Each finding's reason, commit (by name) and file, in report order. */
  details: [reason: string, commit: string | null, file: string | null][];
  agentAddedLeases?: number;
  fixtureDelta?: number;
  /** The commit (by name) passed as --base; default the base commit. */
  baseAt?: string;
  /**
   * A package's folder: the base's files go there, and decide runs there (no --root: the folder it runs in is
   * the project). `outside` are base files at the repository root.
   */
  root?: string;
  outside?: Record<string, ScratchFile>;
  /** More checks on the finished run. */
  check?: (r: { repo: ScratchRepo; shas: Shas; report: Report; stderr: string }) => void;
}

const SCENARIOS: Scenario[] = [
  // ---- docs/contract.md §7: lease authorship -------------------------------------------------------------
  {
    name: "an agent adds a lease in the first of three commits (a grep over git diff HEAD~1 misses it)",
    patch: (repo) => ({
      add: repo.commit(
        "Freeze a flaky test\n",
        {
          "freeze.toml": ledger({
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
        BY_AGENT,
      ),
      c2: repo.commit("Refactor\n", { "src/app.py": "def total():\n    return 40 + 2\n" }, BY_AGENT),
      c3: repo.commit("Docs\n", { "README.md": "# app\n" }, BY_AGENT),
    }),
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "add", "freeze.toml"]],
    agentAddedLeases: 1,
    check: ({ repo, report }) => {
      // The article's check, `git diff HEAD~1 -- freeze.toml | grep -c '^+\[\[leases\]\]'`, sees only the last commit.
      const grep = spawnSync("sh", ["-c", "git diff HEAD~1 -- freeze.toml | grep -c '^+\\[\\[leases\\]\\]'"], {
        cwd: repo.dir,
        env: { ...process.env, ...ISOLATED_GIT_ENV, LC_ALL: "C" },
      });
      expect(grep.stdout.toString()).toBe("0\n");
      expect(grep.status).toBe(1);
      const text = ledger({
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      });
      expect(report.details![0]!.line).toBe(lineOf(text, "two"));
      expect(report.details![0]!.message).toContain(`adds a lease on ${id("two")} (expires 2026-12-15)`);
      expect(report.details![0]!.author).toBe(`${AGENT.name} <${AGENT.email}>`);
      expect(report.commits).toBe(3);
    },
  },
  {
    name: "an agent extends an expiry",
    patch: (repo) => ({
      ext: repo.commit("Give it more time\n", { "freeze.toml": ledger({ leases: [["one", "2027-01-31"]] }) }, BY_AGENT),
    }),
    reasons: ["agent_extended_lease"],
    details: [["agent_extended_lease", "ext", "freeze.toml"]],
    check: ({ report }) => {
      expect(report.details![0]!.message).toContain(`extends the lease on ${id("one")} from 2026-12-20 to 2027-01-31`);
      expect(report.details![0]!.line).toBe(lineOf(BASE_LEDGER, "one"));
    },
  },
  {
    name: "an agent raises the budget and turns reject_if_expired off: two findings, one per commit",
    patch: (repo) => ({
      budget: repo.commit(
        "More leases\n",
        { "freeze.toml": ledger({ budget: 5, leases: [["one", "2026-12-20"]] }) },
        BY_AGENT,
      ),
      flag: repo.commit(
        "Stop failing on expiry\n",
        { "freeze.toml": ledger({ budget: 5, rejectIfExpired: false, leases: [["one", "2026-12-20"]] }) },
        BY_AGENT,
      ),
    }),
    reasons: ["agent_loosened_policy"],
    details: [
      ["agent_loosened_policy", "budget", "freeze.toml"],
      ["agent_loosened_policy", "flag", "freeze.toml"],
    ],
    check: ({ report }) => {
      expect(report.details!.map((d) => d.message.split(":")[0])).toEqual([
        "raises max_active_leases from 3 to 5",
        "turns reject_if_expired off",
      ]);
    },
  },
  {
    name: "an agent reorders and reformats the ledger: no change",
    base: {
      "freeze.toml": ledger({
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      }),
    },
    patch: (repo) => ({
      fmt: repo.commit(
        "Tidy the ledger\n",
        {
          "freeze.toml": [
            "# the freeze ledger",
            "max_active_leases=3",
            "version=1",
            "reject_if_expired = true   # the default, now explicit",
            "",
            "[[leases]]",
            "expires = 2026-12-15",
            `reason = 'flaky two'`,
            "owner   = 'alice'",
            `nodeid = "${id("two")}"`,
            "",
            "[[leases]]",
            `nodeid   =   "${id("one")}"`,
            `owner = "alice"`,
            `reason = """flaky one"""`,
            `expires = "2026-12-20"`,
            "",
          ].join("\r\n"),
        },
        BY_AGENT,
      ),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "an agent removes a lease, shortens an expiry and lowers the budget: allowed",
    base: {
      "freeze.toml": ledger({
        leases: [
          ["one", "2026-12-20"],
          ["two", "2026-12-15"],
        ],
      }),
    },
    patch: (repo) => ({
      rm: repo.commit("Test two is fixed\n", { "freeze.toml": ledger({ leases: [["one", "2026-12-20"]] }) }, BY_AGENT),
      short: repo.commit(
        "Sooner\n",
        {
          "freeze.toml": ledger({
            budget: 1,
            rejectIfExpired: true,
            rejectIfAgentAddsLease: true,
            leases: [["one", "2026-12-10"]],
          }),
        },
        BY_AGENT,
      ),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "a human commit with `Freeze-Lease: human` adds a lease, and one with `freeze-lease: HUMAN` extends one: allowed",
    patch: (repo) => ({
      add: repo.commit("Freeze test two\n\nFreeze-Lease: human\n", {
        "freeze.toml": ledger({
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      }),
      ext: repo.commit("Extend test one\n\nSigned-off-by: Ada Lovelace <ada@example.org>\nfreeze-lease:  HUMAN\n", {
        "freeze.toml": ledger({
          leases: [
            ["one", "2027-01-10"],
            ["two", "2026-12-15"],
          ],
        }),
      }),
    }),
    reasons: [],
    details: [],
    agentAddedLeases: 0,
  },
  {
    name: "a bot-authored commit carries `Freeze-Lease: human`: rejected",
    patch: (repo) => ({
      add: repo.commit(
        "Freeze test two\n\nFreeze-Lease: human\n",
        {
          "freeze.toml": ledger({
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
        { author: DEPENDABOT },
      ),
    }),
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "add", "freeze.toml"]],
    agentAddedLeases: 1,
    check: ({ report }) => {
      expect(report.details![0]!.message).toMatch(
        /is an agent's \(author "dependabot\[bot\] <.*>" matches "\*\[bot\]\*"/,
      );
      expect(report.details![0]!.author).toBe(`${DEPENDABOT.name} <${DEPENDABOT.email}>`);
    },
  },
  {
    name: "a human-authored commit with an agent `Co-authored-by:` trailer adds a lease: an agent's",
    patch: (repo) => ({
      add: repo.commit(`Freeze test two\n\n${CLAUDE_CO_AUTHOR}\nFreeze-Lease: human\n`, {
        "freeze.toml": ledger({
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      }),
    }),
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "add", "freeze.toml"]],
    agentAddedLeases: 1,
    check: ({ report }) => {
      expect(report.details![0]!.author).toBe(`${ADA.name} <${ADA.email}>`);
      expect(report.details![0]!.message).toContain(
        'Co-authored-by trailer "Claude <noreply@anthropic.com>" matches "*<noreply@anthropic.com>"',
      );
    },
  },
  {
    name: "`reject_if_agent_adds_lease = false` at base: an agent-added lease is allowed (still counted)",
    base: { "freeze.toml": ledger({ rejectIfAgentAddsLease: false, leases: [["one", "2026-12-20"]] }) },
    patch: (repo) => ({
      add: repo.commit(
        "Freeze test two\n",
        {
          "freeze.toml": ledger({
            rejectIfAgentAddsLease: false,
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
        BY_AGENT,
      ),
    }),
    reasons: [],
    details: [],
    // The article's key counts what agents added; the flag only turns the rejection off.
    agentAddedLeases: 1,
  },
  {
    name: "an agent turns `reject_if_agent_adds_lease` off in the patch: the base's flag still judges its lease",
    patch: (repo) => ({
      off: repo.commit(
        "Allow agents to freeze\n",
        {
          "freeze.toml": ledger({
            rejectIfAgentAddsLease: false,
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
        BY_AGENT,
      ),
    }),
    reasons: ["agent_added_lease", "agent_loosened_policy"],
    details: [
      ["agent_added_lease", "off", "freeze.toml"],
      ["agent_loosened_policy", "off", "freeze.toml"],
    ],
    agentAddedLeases: 1,
    check: ({ report }) => expect(report.details![1]!.message).toMatch(/^turns reject_if_agent_adds_lease off: /),
  },
  {
    name: "a human merges an agent's branch that added a lease: the agent's commit is flagged, the merge is not",
    patch: (repo) => {
      repo.git(["checkout", "-q", "-b", "agent-branch"]);
      const add = repo.commit(
        "Freeze test two\n",
        {
          "freeze.toml": ledger({
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
        BY_AGENT,
      );
      repo.git(["checkout", "-q", "main"]);
      const human = repo.commit("Unrelated work\n", { "src/other.py": "x = 1\n" });
      repo.git(["merge", "-q", "--no-ff", "--no-edit", "agent-branch"]);
      return { add, human, merge: repo.git(["rev-parse", "HEAD"]).trim() };
    },
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "add", "freeze.toml"]],
    agentAddedLeases: 1,
    check: ({ report, shas }) => {
      expect(report.commits).toBe(3);
      expect(report.head).toBe(shas.merge);
    },
  },
  {
    name: "a merge commit whose own resolution adds a lease answers for it",
    patch: (repo) => {
      repo.git(["checkout", "-q", "-b", "topic"]);
      const topic = repo.commit("Topic work\n", { "src/topic.py": "t = 1\n" });
      repo.git(["checkout", "-q", "main"]);
      const human = repo.commit("Main work\n", { "src/other.py": "x = 1\n" });
      repo.git(["merge", "-q", "--no-ff", "--no-commit", "topic"]);
      writeFileSync(
        join(repo.dir, "freeze.toml"),
        ledger({
          leases: [
            ["one", "2026-12-20"],
            ["three", "2026-12-12"],
          ],
        }),
      );
      repo.git(["add", "freeze.toml"]);
      // A human's merge, but no `Freeze-Lease: human`: the lease its resolution adds is unapproved.
      repo.git(["commit", "-q", "--no-edit"]);
      return { topic, human, merge: repo.git(["rev-parse", "HEAD"]).trim() };
    },
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "merge", "freeze.toml"]],
    agentAddedLeases: 1,
  },

  ...(["base", "main"] as const).map((baseAt): Scenario => ({
    name: `a human merges main (with an approved CI, seed and lease change) into the branch, judged from ${baseAt === "base" ? "the old base" : "main's tip"}: allowed`,
    patch: (repo) => {
      repo.git(["checkout", "-q", "-b", "feature"]);
      const work = repo.commit("Feature work\n", { "src/app.py": "def total():\n    return 41 + 1\n" });
      repo.git(["checkout", "-q", "main"]);
      const main = repo.commit(
        "CI, seeds and a lease, approved\n\nGate-Change: human\nProperty-Seeds: human\nFreeze-Lease: human\n",
        {
          ".github/workflows/x.yml": "on: push\n",
          [S3]: '{"seed": 3}\n',
          "freeze.toml": ledger({
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-15"],
            ],
          }),
        },
      );
      repo.git(["checkout", "-q", "feature"]);
      repo.git(["merge", "-q", "--no-ff", "--no-edit", "main"]);
      return { work, main, merge: repo.git(["rev-parse", "HEAD"]).trim() };
    },
    baseAt,
    reasons: [],
    details: [],
  })),

  {
    name: "a human merges an agent's branch that touched a workflow, adding a CI file in the merge: each commit answers for its own paths",
    patch: (repo) => {
      repo.git(["checkout", "-q", "-b", "agent-branch"]);
      const wf = repo.commit("Skip the gate\n", { ".github/workflows/x.yml": "on: push\n" }, BY_AGENT);
      repo.git(["checkout", "-q", "main"]);
      const human = repo.commit("Unrelated work\n", { "src/other.py": "x = 1\n" });
      repo.git(["merge", "-q", "--no-ff", "--no-commit", "agent-branch"]);
      writeFileSync(join(repo.dir, ".gitlab-ci.yml"), "stages: [test]\n");
      repo.git(["add", ".gitlab-ci.yml"]);
      repo.git(["commit", "-q", "--no-edit"]);
      return { wf, human, merge: repo.git(["rev-parse", "HEAD"]).trim() };
    },
    reasons: ["protected_path"],
    details: [
      ["protected_path", "wf", ".github/workflows/x.yml"],
      ["protected_path", "merge", ".gitlab-ci.yml"],
    ],
    check: ({ report }) =>
      expect(report.details![1]!.message).toMatch(/lacks `Gate-Change: human` and touches \.gitlab-ci\.yml$/),
  },
  // ---- docs/contract.md §8: fixtures ---------------------------------------------------------------------
  {
    name: "an agent rewrites golden files with their lock: fixture_digest",
    patch: (repo) => {
      const next = { [GOLDEN]: '{"total": 41}\n', [TABLE]: "a,b\n1,3\n" };
      return { gold: repo.commit("Update goldens\n", { ...next, "fixtures.lock": lock(next) }, BY_AGENT) };
    },
    reasons: ["fixture_digest"],
    details: [["fixture_digest", "gold", "fixtures.lock"]],
    fixtureDelta: 2,
    check: ({ report }) =>
      expect(report.details![0]!.message).toMatch(
        /^2 fixture digest\(s\) changed between base and head; commit [0-9a-f]{12} is an agent's .* and touches fixtures\.lock, tests\/fixtures\/golden\.json, tests\/fixtures\/nested\/table\.csv$/,
      ),
  },
  {
    name: "a human rewrites golden files with their lock and `Fixture-Lock: human`: allowed",
    patch: (repo) => {
      const next = { [GOLDEN]: '{"total": 41}\n', [TABLE]: "a,b\n1,3\n" };
      return { gold: repo.commit("Update goldens\n\nFixture-Lock: human\n", { ...next, "fixtures.lock": lock(next) }) };
    },
    reasons: [],
    details: [],
    fixtureDelta: 2,
  },
  {
    name: "an agent's fixture change is not excused by a later human commit with `Fixture-Lock: human`",
    patch: (repo) => {
      const mid = { ...GOLDENS, [GOLDEN]: '{"total": 41}\n' };
      const gold = repo.commit("Agent updates a golden\n", { ...mid, "fixtures.lock": lock(mid) }, BY_AGENT);
      const added = { ...mid, "tests/fixtures/new.txt": "new\n" };
      return {
        gold,
        human: repo.commit("Add a fixture\n\nFixture-Lock: human\n", { ...added, "fixtures.lock": lock(added) }),
      };
    },
    reasons: ["fixture_digest"],
    details: [["fixture_digest", "gold", "fixtures.lock"]],
    fixtureDelta: 2,
  },
  {
    name: "a golden file changed without relocking: fixtures_unlocked",
    patch: (repo) => ({ gold: repo.commit("Update a golden\n", { [GOLDEN]: '{"total": 41}\n' }, BY_AGENT) }),
    reasons: ["fixtures_unlocked"],
    details: [["fixtures_unlocked", null, "fixtures.lock"]],
    fixtureDelta: 0,
    check: ({ report }) =>
      expect(report.details![0]!.message).toBe(`the fixtures differ from fixtures.lock: changed ${GOLDEN}`),
  },

  // ---- snapshots: golden files whether or not [fixtures] paths names them -----------------------------------
  {
    name: "an agent rewrites a snapshot file outside [fixtures] paths: fixture_digest naming it",
    base: { [SNAP]: SNAP_TEXT },
    patch: (repo) => ({
      snap: repo.commit("Update snapshots\n", { [SNAP]: SNAP_TEXT.replace('"4"', '"5"') }, BY_AGENT),
    }),
    reasons: ["fixture_digest"],
    details: [["fixture_digest", "snap", SNAP]],
    fixtureDelta: 0,
    check: ({ report }) =>
      expect(report.details![0]!.message).toMatch(
        /^snapshot file\(s\) outside `\[fixtures\] paths`, which fixtures\.lock does not guard, changed: web\/__snapshots__\/sum\.test\.ts\.snap; commit [0-9a-f]{12} is an agent's/,
      ),
  },
  {
    name: "an agent adds a snapshot folder, or deletes a snapshot file: fixture_digest",
    base: { [SNAP]: SNAP_TEXT },
    patch: (repo) => ({
      add: repo.commit("New test\n", { "lib/__snapshots__/new.test.js.snap": "exports[`x 1`] = `1`;\n" }, BY_AGENT),
      del: repo.commit("Drop a snapshot\n", { [SNAP]: null }, BY_AGENT),
    }),
    reasons: ["fixture_digest"],
    details: [
      ["fixture_digest", "add", "lib/__snapshots__/new.test.js.snap"],
      ["fixture_digest", "del", SNAP],
    ],
    fixtureDelta: 0,
  },
  {
    name: "a human rewrites a snapshot file with `Fixture-Lock: human`: allowed",
    base: { [SNAP]: SNAP_TEXT },
    patch: (repo) => ({
      snap: repo.commit("Update snapshots\n\nFixture-Lock: human\n", { [SNAP]: SNAP_TEXT.replace('"4"', '"5"') }),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "an agent rewrites an inline snapshot (toMatchInlineSnapshot) to match new output: fixture_digest",
    base: { [INLINE]: INLINE_TEXT },
    patch: (repo) => ({
      inline: repo.commit(
        "Update inline snapshot\n",
        { [INLINE]: INLINE_TEXT.replace('"sum": 4', '"sum": 5'), "src/sum.ts": "export const sum = 5;\n" },
        BY_AGENT,
      ),
    }),
    reasons: ["fixture_digest"],
    details: [["fixture_digest", "inline", INLINE]],
    check: ({ report }) =>
      expect(report.details![0]!.message).toMatch(
        /^1 inline snapshot\(s\) \(toMatchInlineSnapshot\) rewritten or taken away in web\/sum\.test\.ts; commit [0-9a-f]{12} is an agent's/,
      ),
  },
  {
    name: "an agent re-indents an inline snapshot, moves a test with its snapshot to another file, adds a new one: allowed",
    base: { [INLINE]: INLINE_TEXT },
    patch: (repo) => {
      const moved = INLINE_TEXT.replace("describe(", "describe.concurrent(").replace(/\n {4}/g, "\n        ");
      return {
        move: repo.commit(
          "Reorganise tests\n",
          {
            [INLINE]: null,
            "web/moved.test.ts": `${moved}\ntest("more", () => {\n  expect(1).toMatchInlineSnapshot(\`1\`);\n});\n`,
          },
          BY_AGENT,
        ),
      };
    },
    reasons: [],
    details: [],
  },
  // ---- docs/contract.md §8: seeds ------------------------------------------------------------------------
  {
    name: "an agent deletes a seed: seed_rewrite",
    patch: (repo) => ({ del: repo.commit("Drop a seed\n", { [S2]: null }, BY_AGENT) }),
    reasons: ["seed_rewrite"],
    details: [["seed_rewrite", "del", S2]],
  },
  {
    name: "an agent changes a seed: seed_rewrite",
    patch: (repo) => ({ chg: repo.commit("Easier seed\n", { [S1]: '{"seed": 0}\n' }, BY_AGENT) }),
    reasons: ["seed_rewrite"],
    details: [["seed_rewrite", "chg", S1]],
  },
  {
    name: "an agent adds a seed: seed_rewrite",
    patch: (repo) => ({ add: repo.commit("New seed\n", { [S3]: '{"seed": 3}\n' }, BY_AGENT) }),
    reasons: ["seed_rewrite"],
    details: [["seed_rewrite", "add", S3]],
  },
  {
    name: "an agent deletes the last seeds over two commits: seeds_empty and a seed_rewrite per commit",
    patch: (repo) => ({
      d1: repo.commit("Drop s1\n", { [S1]: null }, BY_AGENT),
      d2: repo.commit("Drop s2\n", { [S2]: null }, BY_AGENT),
    }),
    reasons: ["seeds_empty", "seed_rewrite"],
    details: [
      ["seeds_empty", null, SEEDS],
      ["seed_rewrite", "d1", S1],
      ["seed_rewrite", "d2", S2],
    ],
  },
  {
    name: "a human changes, adds and deletes seeds with `Property-Seeds: human`: allowed",
    patch: (repo) => ({
      seeds: repo.commit("Reseed\n\nProperty-Seeds: human\n", {
        [S1]: '{"seed": 0}\n',
        [S2]: null,
        [S3]: '{"seed": 3}\n',
      }),
    }),
    reasons: [],
    details: [],
  },

  // ---- property tests are judged with the seeds (property_weakened) --------------------------------------
  {
    name: "an agent lowers max_examples in tests/properties: property_weakened at the first changed line",
    base: PROPERTY_FILES,
    patch: (repo) => ({
      few: repo.commit("Faster properties\n", { [PROPS]: PROPERTY_FILES[PROPS].replace("200", "2") }, BY_AGENT),
    }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "few", PROPS]],
    check: ({ report, shas }) => {
      expect(report.details![0]).toMatchObject({ line: 5, author: `${AGENT.name} <${AGENT.email}>` });
      expect(report.details![0]!.message).toBe(
        `commit ${shas.few!.slice(0, 12)} is an agent's (author "${AGENT.name} <${AGENT.email}>" matches "*[bot]*"; committer "${AGENT.name} <${AGENT.email}>" matches "*[bot]*") and changes property tests, which are judged with the seeds: ${PROPS}`,
      );
      expect(report.details![0]!.fix).toContain("`Property-Seeds: human`");
    },
  },
  {
    name: "an agent narrows a strategy in a test file outside the folder that imports hypothesis: property_weakened",
    base: PROPERTY_FILES,
    patch: (repo) => ({
      narrow: repo.commit(
        "Tidy\n",
        { [FUZZ]: PROPERTY_FILES[FUZZ].replace("st.integers()", "st.integers(0, 1)") },
        BY_AGENT,
      ),
    }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "narrow", FUZZ]],
    check: ({ report }) => expect(report.details![0]!.line).toBe(4),
  },
  {
    name: "an agent deletes a hypothesis test file (it imported hypothesis at the base): property_weakened, no line",
    base: PROPERTY_FILES,
    patch: (repo) => ({ gone: repo.commit("Drop fuzz\n", { [FUZZ]: null }, BY_AGENT) }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "gone", FUZZ]],
    check: ({ report }) => expect(report.details![0]!.line).toBeNull(),
  },
  {
    name: "an agent adds a property test that imports hypothesis: property_weakened (a human reviews new properties)",
    base: PROPERTY_FILES,
    patch: (repo) => ({ add: repo.commit("More props\n", { "tests/test_more.py": PROPERTY_FILES[FUZZ] }, BY_AGENT) }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "add", "tests/test_more.py"]],
  },
  {
    name: "an agent rewrites a seed and a plain test (no hypothesis): seed_rewrite only, the seed not reported twice",
    base: PROPERTY_FILES,
    patch: (repo) => ({
      both: repo.commit(
        "Tidy\n",
        { [S1]: '{"seed": 0}\n', [PLAIN]: `# reformatted\n${PROPERTY_FILES[PLAIN]}` },
        BY_AGENT,
      ),
    }),
    reasons: ["seed_rewrite"],
    details: [["seed_rewrite", "both", S1]],
  },
  {
    name: "[properties] tests names another folder: any file there is a property test, hypothesis or not",
    base: {
      ...PROPERTY_FILES,
      "proofgate.toml": '[properties]\ntests = ["checks/props"]\n',
      "checks/props/data.py": "N = 200\n",
    },
    patch: (repo) => ({ n: repo.commit("Fewer\n", { "checks/props/data.py": "N = 2\n" }, BY_AGENT) }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "n", "checks/props/data.py"]],
  },
  {
    name: "[properties] enabled = false at the base: property tests are not judged",
    base: { ...PROPERTY_FILES, "proofgate.toml": "[properties]\nenabled = false\n" },
    patch: (repo) => ({
      few: repo.commit("Faster\n", { [PROPS]: PROPERTY_FILES[PROPS].replace("200", "2") }, BY_AGENT),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "a human changes property tests with `Property-Seeds: human`: allowed",
    base: PROPERTY_FILES,
    patch: (repo) => ({
      props: repo.commit("Retune\n\nProperty-Seeds: human\n", {
        [PROPS]: PROPERTY_FILES[PROPS].replace("200", "50"),
        [FUZZ]: null,
      }),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "a human without the trailer: property_weakened says what the commit lacks",
    base: PROPERTY_FILES,
    patch: (repo) => ({ bare: repo.commit("Retune\n", { [PROPS]: PROPERTY_FILES[PROPS].replace("200", "50") }) }),
    reasons: ["property_weakened"],
    details: [["property_weakened", "bare", PROPS]],
    check: ({ report, shas }) =>
      expect(report.details![0]!.message).toContain(
        `commit ${shas.bare!.slice(0, 12)} lacks \`Property-Seeds: human\``,
      ),
  },

  // ---- docs/contract.md §10: protected paths -------------------------------------------------------------
  {
    name: "an agent touches .github/workflows/x.yml and .gitlab-ci.yml: protected_path per commit",
    patch: (repo) => ({
      gh: repo.commit("Skip the gate\n", { ".github/workflows/x.yml": "on: push\n" }, BY_AGENT),
      gl: repo.commit("Skip the gate on GitLab\n", { ".gitlab-ci.yml": "stages: [test]\n" }, BY_AGENT),
    }),
    reasons: ["protected_path"],
    details: [
      ["protected_path", "gh", ".github/workflows/x.yml"],
      ["protected_path", "gl", ".gitlab-ci.yml"],
    ],
  },
  {
    name: "a human touches CI files with `Gate-Change: human`: allowed",
    patch: (repo) => ({
      ci: repo.commit("CI\n\nGate-Change: human\n", {
        ".github/workflows/x.yml": "on: push\n",
        ".gitlab-ci.yml": "stages: [test]\n",
      }),
    }),
    reasons: [],
    details: [],
  },
  {
    name: "an agent drops .github/workflows/** from [protect] paths and touches a workflow: the base's config judges both",
    base: { "proofgate.toml": '[protect]\npaths = ["proofgate.toml", ".github/workflows/**", ".gitlab-ci.yml"]\n' },
    patch: (repo) => ({
      cfg: repo.commit(
        "Unprotect workflows\n",
        { "proofgate.toml": '[protect]\npaths = ["proofgate.toml", ".gitlab-ci.yml"]\n' },
        BY_AGENT,
      ),
      wf: repo.commit("Skip the gate\n", { ".github/workflows/x.yml": "on: push\n" }, BY_AGENT),
    }),
    reasons: ["protected_path"],
    details: [
      ["protected_path", "cfg", "proofgate.toml"],
      ["protected_path", "wf", ".github/workflows/x.yml"],
    ],
  },
  {
    name: "the same, in one commit that also empties [protect] paths: one finding naming both paths",
    base: { "proofgate.toml": '[protect]\npaths = ["proofgate.toml", ".github/workflows/**", ".gitlab-ci.yml"]\n' },
    patch: (repo) => ({
      both: repo.commit(
        "Unprotect and skip\n",
        { "proofgate.toml": "[protect]\npaths = []\n", ".github/workflows/x.yml": "on: push\n" },
        BY_AGENT,
      ),
    }),
    reasons: ["protected_path"],
    details: [["protected_path", "both", ".github/workflows/x.yml"]],
    check: ({ report }) =>
      expect(report.details![0]!.message).toMatch(/ and touches \.github\/workflows\/x\.yml, proofgate\.toml$/),
  },
  {
    name: "a base config whose [protect] paths leave itself out still protects proofgate.toml: an agent turning the fixtures off is caught",
    base: { "proofgate.toml": '[protect]\npaths = [".github/workflows/**"]\n' },
    patch: (repo) => ({
      off: repo.commit(
        "Fixtures are noisy\n",
        { "proofgate.toml": '[protect]\npaths = [".github/workflows/**"]\n\n[fixtures]\nenabled = false\n' },
        BY_AGENT,
      ),
    }),
    reasons: ["protected_path"],
    details: [["protected_path", "off", "proofgate.toml"]],
  },

  // ---- a package's folder (decide run there, no --root), and pytest's files above it ---------------------
  {
    name: "run in a package's folder: the package's own ledger judges an agent's lease (not the root's, which has none)",
    root: "pkgs/a",
    patch: (repo) => ({
      add: repo.commit(
        "Freeze a flaky test\n",
        {
          "pkgs/a/freeze.toml": ledger({
            leases: [
              ["one", "2026-12-20"],
              ["two", "2026-12-20"],
            ],
          }),
        },
        BY_AGENT,
      ),
    }),
    reasons: ["agent_added_lease"],
    details: [["agent_added_lease", "add", "freeze.toml"]],
    agentAddedLeases: 1,
  },
  {
    name: "an agent adds a conftest.py above the package (pytest loads it for a package without settings): protected_path",
    root: "pkgs/a",
    patch: (repo) => ({
      cf: repo.commit(
        "Quieter tests\n",
        { "conftest.py": "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n" },
        BY_AGENT,
      ),
      mid: repo.commit("More\n", { "pkgs/conftest.py": "collect_ignore = ['a/tests']\n" }, BY_AGENT),
    }),
    reasons: ["protected_path"],
    details: [
      ["protected_path", "cf", "../../conftest.py"],
      ["protected_path", "mid", "../../pkgs/conftest.py"],
    ],
  },
  {
    name: "an agent loosens pytest's section of the root pyproject.toml: protected_path; its other sections are not the package's",
    root: "pkgs/a",
    outside: { "pyproject.toml": ROOT_PYPROJECT },
    patch: (repo) => ({
      ruff: repo.commit("Lint\n", { "pyproject.toml": ROOT_PYPROJECT.replace("100", "120") }, BY_AGENT),
      warn: repo.commit(
        "Quiet warnings\n",
        {
          "pyproject.toml": ROOT_PYPROJECT.replace("100", "120").replace(
            '"error"',
            '"error", "ignore::DeprecationWarning"',
          ),
        },
        BY_AGENT,
      ),
    }),
    reasons: ["protected_path"],
    details: [["protected_path", "warn", "../../pyproject.toml"]],
  },
];

/** Each scenario spawns a few dozen git processes: generous on a loaded machine. */
const TIMEOUT = 60_000;

describe("decide --base: the patch from a real git history", { timeout: TIMEOUT }, () => {
  // One test per scenario, named in full (it.each's `$name` would cut the names at 40 characters).
  for (const scenario of SCENARIOS)
    it(scenario.name, async () => {
      const repo = track(scratchRepo("proofgate-patch-"));
      const files = baseFiles(scenario.base);
      const inPackage = scenario.root
        ? {
            ...scenario.outside,
            ...Object.fromEntries(Object.entries(files).map(([p, f]) => [`${scenario.root}/${p}`, f])),
          }
        : files;
      const base = repo.commit("Base\n", inPackage);
      const named = scenario.patch(repo);
      const shas: Shas = { ...named, base };
      const head = repo.git(["rev-parse", "HEAD"]).trim();
      const judgedBase = shas[scenario.baseAt ?? "base"]!;
      const cwd = scenario.root ? join(repo.dir, scenario.root) : repo.dir;
      const { code, stderr, report } = await decideIn(cwd, ["--base", judgedBase]);

      expect(report.reasons, stderr).toEqual(scenario.reasons);
      expect(report.decision).toBe(scenario.reasons.length === 0 ? "MERGE" : "REJECT");
      expect(code).toBe(scenario.reasons.length === 0 ? 0 : 1);
      const got = (report.details ?? []).map((d) => [d.reason, d.commit, d.file]);
      const want = scenario.details.map(([reason, commit, file]) => [
        reason,
        commit === null ? null : shas[commit],
        file,
      ]);
      expect(got).toEqual(want);
      // Every finding with a commit names a full object name of the range, and who authored it.
      for (const d of report.details ?? []) {
        if (d.commit !== null) {
          expect(d.commit).toMatch(/^[0-9a-f]{40}$/);
          expect(d.author).not.toBeNull();
        }
      }
      expect(report.base).toBe(judgedBase);
      expect(report.head).toBe(head);
      expect(report.agent_added_leases).toBe(scenario.agentAddedLeases ?? 0);
      expect(report.fixture_digest_delta).toBe(scenario.fixtureDelta ?? 0);
      for (const reason of scenario.reasons) expect(stderr).toMatch(new RegExp(`^proofgate: ${reason}: `, "m"));
      scenario.check?.({ repo, shas, report, stderr });
    });
});

describe("decide --base: the range itself", { timeout: TIMEOUT }, () => {
  it("a `git clone --depth 1` judged with a base outside it: shallow_history alone, exit 1", async () => {
    const source = track(scratchRepo("proofgate-patch-src-"));
    const base = source.commit("Base\n", baseFiles());
    // The patch adds a lease, touches CI and deletes a seed: none of it is judged on a truncated range.
    source.commit(
      "Freeze test two\n",
      {
        "freeze.toml": ledger({
          leases: [
            ["one", "2026-12-20"],
            ["two", "2026-12-15"],
          ],
        }),
      },
      BY_AGENT,
    );
    source.commit("Skip the gate\n", { ".github/workflows/x.yml": "on: push\n", [S2]: null }, BY_AGENT);
    const cloneDir = mkdtempSync(join(tmpdir(), "proofgate-patch-clone-"));
    temps.push(cloneDir);
    scratchGit(tmpdir(), ["clone", "-q", "--depth", "1", `file://${source.dir}`, cloneDir]);
    const clone = wrapRepo(cloneDir);
    expect(clone.git(["rev-parse", "--is-shallow-repository"]).trim()).toBe("true");
    const head = clone.git(["rev-parse", "HEAD"]).trim();

    const { code, stderr, report } = await decideIn(cloneDir, ["--base", base]);
    expect(code).toBe(1);
    expect(report.reasons).toEqual(["shallow_history"]);
    expect(report.decision).toBe("REJECT");
    expect(report.details!.map((d) => [d.reason, d.commit, d.file])).toEqual([["shallow_history", null, null]]);
    expect(report.details![0]!.message).toContain(`the base ${base} is not in this clone (this clone is shallow)`);
    expect(report.details![0]!.fix).toContain("fetch-depth: 0");
    expect(report.details![0]!.fix).toContain("GIT_DEPTH: 0");
    expect(report.details![0]!.fix).toContain("git fetch --unshallow");
    expect(report.base).toBe(base);
    expect(report.head).toBe(head);
    expect(report.agent_added_leases).toBe(0);
    expect(report.fixture_digest_delta).toBe(0);
    expect(stderr).toMatch(/^proofgate: shallow_history: /m);
  });

  it("`--base` with `--agent-added-leases 1`: a usage error, exit 2", async () => {
    const repo = track(scratchRepo("proofgate-patch-"));
    const base = repo.commit("Base\n", baseFiles());
    repo.commit("Work\n", { "src/app.py": "x = 1\n" }, BY_AGENT);
    const { code, stderr, report } = await decideIn(repo.dir, ["--base", base, "--agent-added-leases", "1"]);
    expect(code).toBe(2);
    expect(report.reasons).toEqual(["input_error"]);
    expect(report.decision).toBe("REJECT");
    expect(report.errors!.map((e) => e.code)).toEqual(["usage"]);
    expect(report.errors![0]!.message).toContain("cannot be combined with --base/--head");
    expect(stderr).toMatch(/^proofgate: error: /m);
  });
});

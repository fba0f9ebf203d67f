// `[agents] human_signatures = "required"` through `proofgate check`, in-process, on scripted repositories
// whose human commits are signed with REAL SSH keys made here (ssh-keygen -t ed25519; git's gpg.format=ssh,
// commit -S). Anyone who can push can write `Ada Lovelace <ada@example.org>` as author: only a commit
// that the base's allowed signers verify keeps its human trailer. (The platforms' verification, GitHub's
// and GitLab's, is tested with runGate in packages/gate/src/signatures-platforms.test.ts.)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { localPlatform, type Platform } from "@proofgate/core";
import {
  ADA,
  ISOLATED_GIT_ENV,
  scratchRepo,
  signingKeys,
  type ScratchIdentity,
  type ScratchRepo,
  type SigningKey,
  type SigningKeys,
  stampEvidence,
} from "@proofgate/gate/testing";
import { runCheck } from "./commands/check.js";
import type { CliIo } from "./io.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const BOB: ScratchIdentity = { name: "Bob", email: "bob@example.org" };
const SIGNERS = ".github/allowed_signers";
const COLLECTED = "tests/test_a.py::test_one\ntests/test_a.py::test_two\n\n2 tests collected in 0.01s\n";
const COVERAGE =
  '{"meta": {"format": 3}, "files": {"src/app.py": {"summary": {"covered_lines": 80, "num_statements": 100}}}, "totals": {"covered_lines": 80, "num_statements": 100, "percent_covered": 80.0}}\n';
const LEDGER =
  'version = 1\nmax_active_leases = 1\n\n[[leases]]\nnodeid = "tests/test_a.py::test_two"\nowner = "ada"\nreason = "flaky"\nexpires = "2026-12-20"\n';
/** The human's change: one more lease, and the budget raised for it (both need `Freeze-Lease: human`). */
const LEDGER_PLUS =
  LEDGER.replace("max_active_leases = 1", "max_active_leases = 2") +
  '\n[[leases]]\nnodeid = "tests/test_a.py::test_one"\nowner = "ada"\nreason = "flaky too"\nexpires = "2026-12-20"\n';
const LEASE_MESSAGE = "Freeze test_one while the cache is fixed\n\nFreeze-Lease: human\n";
const OFF = "[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n";
const REQUIRED = `${OFF}\n[agents]\nhuman_signatures = "required"\n`;
const REQUIRED_WITH_SIGNERS = `${REQUIRED}allowed_signers = "${SIGNERS}"\n`;

let keys: SigningKeys;
let ada: SigningKey;
let mallory: SigningKey;
beforeAll(() => {
  keys = signingKeys();
  ada = keys.make("ada");
  mallory = keys.make("mallory");
});
afterAll(() => keys.cleanup());

const repos: ScratchRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/**
 * A base commit with the policy, the ledger, the artifacts and the allowed signers (by default Ada's key
 * for ada@example.org; null: no such file).
 */
function project(config: string, signers: string | null = `# the humans\n${ada.signerLine(ADA.email)}`) {
  const repo = scratchRepo("proofgate-signatures-");
  repos.push(repo);
  const base = repo.commit("base", {
    "proofgate.toml": config,
    "freeze.toml": LEDGER,
    "collected.txt": COLLECTED,
    "proven_coverage.json": COVERAGE,
    ".gitignore": "proofgate-report/\n",
    ...(signers === null ? {} : { [SIGNERS]: signers }),
  });
  return { repo, base };
}

interface Finding {
  reason: string;
  message: string;
  file: string | null;
  commit: string | null;
  author: string | null;
  fix: string;
}
interface Ran {
  code: number;
  err: string;
  report: {
    decision: string;
    reasons: string[];
    details: Finding[];
    errors: { code: string; message: string; file: string | null; fix: string | null }[];
    signals: { id: string; result: string; value: string; policy: string; reasons: string[] }[];
    inputs: { role: string; path: string; sha256: string }[];
    warnings: string[];
  };
}

async function check(
  repo: ScratchRepo,
  args: Record<string, unknown>,
  env: Record<string, string | undefined> = {},
  platforms: readonly Platform[] = [localPlatform],
): Promise<Ran> {
  // The artifacts are the subject's fixture, not a run's: bound to the commit judged (docs/config.md#evidence).
  stampEvidence(repo.dir);
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    now: () => NOW,
    cwd: repo.dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME, ...ISOLATED_GIT_ENV, ...env },
    isTTY: false,
  };
  const previous = process.cwd();
  process.chdir(repo.dir);
  let code: number;
  try {
    code = await runCheck(args, io, platforms);
  } finally {
    process.chdir(previous);
  }
  const path = join(repo.dir, "proofgate-report", "report.json");
  expect(existsSync(path), `${out}\n${err}`).toBe(true);
  return { code, err, report: JSON.parse(readFileSync(path, "utf8")) as Ran["report"] };
}

const row = (r: Ran, id: string) => r.report.signals.find((s) => s.id === id);
const short = (sha: string) => sha.slice(0, 12);

describe("human_signatures = required, verified against the base's allowed signers", { timeout: 60_000 }, () => {
  it("an unsigned human commit: its trailer does not count, so REJECT with the lease's reasons and unverified_human_trailer", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    const head = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy", "unverified_human_trailer"]);
    const unverified = r.report.details.find((d) => d.reason === "unverified_human_trailer")!;
    expect(unverified).toMatchObject({ commit: head, author: "Ada Lovelace <ada@example.org>", file: null });
    expect(unverified.message).toBe(
      `commit ${short(head)} by Ada Lovelace <ada@example.org> carries \`Freeze-Lease: human\`, which does not count: it is not signed`,
    );
    expect(unverified.fix).toContain(`${SIGNERS} at ${short(base)}`);
    const added = r.report.details.find((d) => d.reason === "agent_added_lease")!;
    expect(added.message).toContain(`commit ${short(head)}'s \`Freeze-Lease: human\` does not count: it is not signed`);
    expect(row(r, "human_signatures")).toMatchObject({
      result: "fail",
      value: "1 human-trailer commit, 0 verified",
      policy: `human trailers on commits verified by ${SIGNERS} at ${short(base)}`,
    });
    expect(r.report.inputs).toContainEqual(
      expect.objectContaining({ role: "allowed_signers", path: `${SIGNERS} at ${short(base)}` }),
    );
  });

  it("the same change signed with the human's listed key: MERGE, and the row says it verified", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, undefined, { sign: ada.privateKey });
    const r = await check(repo, { base, platform: "local" });
    expect(r.report.details).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.decision).toBe("MERGE");
    expect(row(r, "human_signatures")).toMatchObject({ result: "pass", value: "1 human-trailer commit, 1 verified" });
  });

  it("signed by a key the allowed signers do not list for the author: not verified", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    const head = repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, undefined, { sign: mallory.privateKey });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy", "unverified_human_trailer"]);
    const unverified = r.report.details.find((d) => d.reason === "unverified_human_trailer")!;
    expect(unverified.commit).toBe(head);
    expect(unverified.message).toMatch(
      new RegExp(
        `signed by the key SHA256:\\S+, which ${SIGNERS} at ${short(base)} does not list for <ada@example.org>$`,
      ),
    );
  });

  it("a listed human's key on a commit that claims to be someone else's: the key counts only for its own principals", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, { author: BOB }, { sign: ada.privateKey });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy", "unverified_human_trailer"]);
    expect(r.report.details.find((d) => d.reason === "unverified_human_trailer")!.message).toContain(
      `and ${SIGNERS} at ${short(base)} lists no key for <bob@example.org>`,
    );
  });

  it("a patch that adds its own key to the allowed signers: the base's file judges, and the file is protected", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    const head = repo.commit(
      `${LEASE_MESSAGE}Gate-Change: human\n`,
      {
        [SIGNERS]: `# the humans\n${ada.signerLine(ADA.email)}${mallory.signerLine(ADA.email)}`,
        "freeze.toml": LEDGER_PLUS,
      },
      undefined,
      { sign: mallory.privateKey },
    );
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(1);
    expect(r.report.reasons).toEqual([
      "agent_added_lease",
      "agent_loosened_policy",
      "protected_path",
      "unverified_human_trailer",
    ]);
    expect(r.report.details.find((d) => d.reason === "protected_path")).toMatchObject({ file: SIGNERS, commit: head });
    expect(r.report.details.find((d) => d.reason === "unverified_human_trailer")!.message).toContain(
      "carries `Freeze-Lease: human`, `Gate-Change: human`, which does not count",
    );
  });

  it("a human's signed change to the allowed signers, then the new human's signed lease in a later patch: MERGE", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    const carol = keys.make("carol");
    const CAROL = { name: "Carol", email: "carol@example.org" };
    const added = repo.commit(
      "Carol joins\n\nGate-Change: human\n",
      { [SIGNERS]: `# the humans\n${ada.signerLine(ADA.email)}${carol.signerLine(CAROL.email)}` },
      undefined,
      { sign: ada.privateKey },
    );
    const first = await check(repo, { base, platform: "local" });
    expect(first.report.details).toEqual([]);
    expect(first.code).toBe(0);
    repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, { author: CAROL }, { sign: carol.privateKey });
    // Judged from the merged allowed signers: the base is now the commit that added Carol.
    const second = await check(repo, { base: added, platform: "local" });
    expect(second.report.details).toEqual([]);
    expect(second.code).toBe(0);
  });

  it("an agent's commit is judged as before: its forged trailer never counted, and no signature makes it a human's", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS);
    const bot = { name: "coding-agent[bot]", email: "7+coding-agent[bot]@users.noreply.github.com" };
    repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS }, { author: bot }, { sign: ada.privateKey });
    const r = await check(repo, { base, platform: "local" });
    expect(r.report.reasons).toEqual(["agent_added_lease", "agent_loosened_policy"]);
    expect(r.report.details[0]!.message).toContain("is an agent's");
    expect(row(r, "human_signatures")).toMatchObject({ result: "pass", value: "0 human-trailer commits, 0 verified" });
  });

  it("off (the default): the row says so, and an unsigned human trailer counts as before", async () => {
    const { repo, base } = project(OFF);
    repo.commit(LEASE_MESSAGE, { "freeze.toml": LEDGER_PLUS });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(0);
    expect(row(r, "human_signatures")).toMatchObject({ result: "off", reasons: [] });
  });
});

describe("human_signatures = required fails closed", { timeout: 60_000 }, () => {
  it("no allowed signers and no platform that verifies: exit 2 naming [agents] allowed_signers", async () => {
    const { repo, base } = project(REQUIRED, null);
    repo.commit("a change", { "src.py": "x = 1\n" });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(2);
    expect(r.report.reasons).toEqual(["input_error"]);
    expect(r.report.errors).toEqual([
      expect.objectContaining({ code: "config_invalid", file: `proofgate.toml at ${short(base)}` }),
    ]);
    expect(r.report.errors[0]!.message).toContain("[agents] allowed_signers is not set");
  });

  it("an allowed-signers file the base does not have (the patch brings it): exit 2 naming the file", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS, null);
    repo.commit(LEASE_MESSAGE, { [SIGNERS]: ada.signerLine(ADA.email), "freeze.toml": LEDGER_PLUS }, undefined, {
      sign: ada.privateKey,
    });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({ code: "file_missing", file: `${SIGNERS} at ${short(base)}` }),
    ]);
  });

  it("an allowed-signers file with no signer in it: exit 2", async () => {
    const { repo, base } = project(REQUIRED_WITH_SIGNERS, "# nobody yet\n\n");
    repo.commit("a change", { "src.py": "x = 1\n" });
    const r = await check(repo, { base, platform: "local" });
    expect(r.code).toBe(2);
    expect(r.report.errors).toEqual([
      expect.objectContaining({ code: "file_empty", file: `${SIGNERS} at ${short(base)}` }),
    ]);
  });
});

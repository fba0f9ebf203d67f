// Who is human, verified: the allowed-signers lines a commit is judged against, git's verdicts as reasons a
// reader can act on, the platform's word where the signers did not vouch, and every trailer rule going
// through the one check (`hasHumanTrailer`), so an unverified commit's trailer counts for none of them.
import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS, hasHumanTrailer, type Commit, type CommitSignature } from "../model/authorship.js";
import { defaultConfig } from "../config/config.js";
import { judgePatch, type PatchEvidence, type PatchPolicy } from "./patch.js";
import {
  allowedSignersFor,
  commitsNeedingSignatures,
  judgeSignatureCheck,
  principalMatches,
  withPlatformVerdict,
  type SignatureCheck,
} from "./signatures.js";

const ADA = { name: "Ada Lovelace", email: "ada@example.org" };
const BOB = { name: "Bob", email: "bob@example.org" };
const BOT = { name: "patchbot[bot]", email: "patchbot@example.org" };
const sha = (n: number): string => n.toString(16).padStart(40, "0");

function commit(n: number, o: Partial<Commit> = {}): Commit {
  return { sha: sha(n), parents: [sha(n - 1)], author: ADA, committer: ADA, subject: "s", trailers: [], ...o };
}
const humanTrailer = (key: string) => [{ key, value: "human" }];
const FILE = ".github/allowed_signers at 1a2b3c4d5e6f";

describe("principalMatches: an allowed-signers line's principals, as OpenSSH matches them", () => {
  it.each([
    ["ada@example.org", "ada@example.org", true],
    ["Ada@Example.org", "ada@example.org", true],
    ["carol@example.org,ada@example.org", "ada@example.org", true],
    ["*@example.org", "ada@example.org", true],
    ["*@example.org", "ada@example.org.evil", false],
    ["a?a@example.org", "ada@example.org", true],
    ["*@example.org,!mallory@example.org", "mallory@example.org", false],
    ["!mallory@example.org,*@example.org", "ada@example.org", true],
    ["bob@example.org", "ada@example.org", false],
    ["ada@example.org", "", false],
    ["ada.example.org", "adaXexample.org", false],
  ])("%s vs %s: %s", (principals, email, expected) => {
    expect(principalMatches(principals, email)).toBe(expected);
  });
});

describe("allowedSignersFor: the lines a commit is verified against", () => {
  const file = [
    "# humans of this repository",
    "ada@example.org ssh-ed25519 AAAAada",
    "",
    'bob@example.org,carol@example.org namespaces="git" ssh-ed25519 AAAAbob',
    '"dan@example.org,eve@example.org" ssh-ed25519 AAAAdan',
    "*@ops.example.org cert-authority ssh-ed25519 AAAAca",
  ].join("\n");

  it("keeps only the lines that list the commit's emails", () => {
    expect(allowedSignersFor(file, ["ada@example.org"])).toEqual({
      text: "ada@example.org ssh-ed25519 AAAAada\n",
      lines: 1,
    });
    expect(allowedSignersFor(file, ["mallory@example.org", "carol@example.org"]).text).toBe(
      'bob@example.org,carol@example.org namespaces="git" ssh-ed25519 AAAAbob\n',
    );
    expect(allowedSignersFor(file, ["eve@example.org"]).lines).toBe(1);
    expect(allowedSignersFor(file, ["sre@ops.example.org"]).text).toContain("cert-authority");
    expect(allowedSignersFor(file, ["mallory@example.org"])).toEqual({ text: "", lines: 0 });
  });
});

describe("judgeSignatureCheck: git's answer as a verdict with its reason", () => {
  const c = commit(2);
  const listed = { file: FILE, listed: true };
  const ssh = (status: string, extra: Partial<SignatureCheck> = {}): SignatureCheck => ({
    sha: c.sha,
    format: "ssh",
    status,
    key: "SHA256:abc",
    ...extra,
  });

  it.each<[string, SignatureCheck | undefined, { file: string; listed: boolean }, CommitSignature]>([
    [
      "good",
      ssh("G", { principals: "ada@example.org" }),
      listed,
      { verified: true, why: `signed by the key SHA256:abc that ${FILE} lists for <ada@example.org>` },
    ],
    ["unsigned", { sha: c.sha, format: "none" }, listed, { verified: false, why: "it is not signed" }],
    ["no answer", undefined, listed, { verified: false, why: "it is not signed" }],
    [
      "a key listed for others only",
      ssh("U"),
      listed,
      { verified: false, why: `it is signed by the key SHA256:abc, which ${FILE} does not list for <ada@example.org>` },
    ],
    [
      "no key listed for the commit's emails",
      ssh("U"),
      { file: FILE, listed: false },
      { verified: false, why: `it is signed by the key SHA256:abc, and ${FILE} lists no key for <ada@example.org>` },
    ],
    [
      "bad",
      ssh("B"),
      listed,
      {
        verified: false,
        why: `its SSH signature does not verify against ${FILE} (a bad signature, or a key not allowed for git there)`,
      },
    ],
    ["expired key", ssh("Y"), listed, { verified: false, why: "it is signed by an expired key SHA256:abc" }],
    ["revoked key", ssh("R"), listed, { verified: false, why: "it is signed by a revoked key SHA256:abc" }],
    ["cannot check", ssh("E"), listed, { verified: false, why: "git could not check its signature (status E)" }],
    [
      "OpenPGP",
      { sha: c.sha, format: "openpgp" },
      listed,
      {
        verified: false,
        why: `it is signed with OpenPGP (GPG); the gate verifies SSH signatures only, against ${FILE}`,
      },
    ],
  ])("%s", (_name, check, signers, expected) => {
    expect(judgeSignatureCheck(c, check, signers)).toEqual(expected);
  });

  it("names the committer and the author when they differ", () => {
    const mixed = commit(3, { author: BOB });
    expect(judgeSignatureCheck(mixed, ssh("U"), { file: FILE, listed: false }).why).toContain(
      "its committer <ada@example.org> or its author <bob@example.org>",
    );
  });
});

describe("withPlatformVerdict: the platform vouches where the allowed signers did not", () => {
  const unsigned = { verified: false, why: "it is not signed" };
  it("keeps a local verification; takes the platform's; says why neither vouched", () => {
    const good = { verified: true, why: "signed by ..." };
    expect(withPlatformVerdict(good, { name: "GitHub", verdict: undefined })).toBe(good);
    expect(
      withPlatformVerdict(unsigned, {
        name: "GitHub",
        verdict: { sha: sha(1), verified: true, detail: "verified (valid)" },
      }),
    ).toEqual({ verified: true, why: "GitHub verified its signature (verified (valid))" });
    expect(
      withPlatformVerdict(undefined, {
        name: "GitLab",
        verdict: { sha: sha(1), verified: false, detail: "not signed (404 GPG Signature Not Found)" },
      }),
    ).toEqual({
      verified: false,
      why: "no allowed-signers file is set ([agents] allowed_signers); GitLab: not signed (404 GPG Signature Not Found)",
    });
    expect(withPlatformVerdict(unsigned, { name: "GitHub", verdict: undefined })).toEqual({
      verified: false,
      why: "it is not signed; GitHub: did not list the commit",
    });
    expect(withPlatformVerdict(unsigned, undefined)).toEqual(unsigned);
  });
});

describe("commitsNeedingSignatures", () => {
  it("a human's commits with any trailer valued human (whatever its key); never an agent's", () => {
    const plain = commit(2);
    const lease = commit(3, { trailers: humanTrailer("Freeze-Lease") });
    const newKey = commit(4, { trailers: humanTrailer("Test-Removal") });
    const agent = commit(5, { author: BOT, trailers: humanTrailer("Freeze-Lease") });
    const coAuthored = commit(6, {
      trailers: [...humanTrailer("Gate-Change"), { key: "Co-authored-by", value: "Claude <noreply@anthropic.com>" }],
    });
    expect(
      commitsNeedingSignatures([plain, lease, newKey, agent, coAuthored], DEFAULT_AGENT_PATTERNS).map((c) => c.sha),
    ).toEqual([lease.sha, newKey.sha]);
  });
});

describe("one check for every trailer rule", () => {
  const unverified: CommitSignature = { verified: false, why: "it is not signed" };
  const verified: CommitSignature = { verified: true, why: "signed" };

  it("hasHumanTrailer: an unverified signature takes the trailer away; a verified one or none (not required) keeps it", () => {
    const c = commit(2, { trailers: humanTrailer("Freeze-Lease") });
    expect(hasHumanTrailer(c, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(true);
    expect(hasHumanTrailer({ ...c, signature: verified }, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(true);
    expect(hasHumanTrailer({ ...c, signature: unverified }, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("every trailer kind: the rule fires, naming why the trailer did not count, and unverified_human_trailer names the commit", () => {
    const config = defaultConfig(DEFAULT_AGENT_PATTERNS);
    const policy: PatchPolicy = {
      agentPatterns: config.agents.patterns,
      trailers: config.trailers,
      signatures: { required: true, allowedSigners: FILE },
    };
    const all = [
      ...humanTrailer("Freeze-Lease"),
      ...humanTrailer("Fixture-Lock"),
      ...humanTrailer("Property-Seeds"),
      ...humanTrailer("Gate-Change"),
    ];
    const forged = commit(2, { author: BOB, committer: BOB, trailers: all, signature: unverified });
    const signed = commit(3, { trailers: all, signature: verified });
    const patch = (c: Commit): PatchEvidence => ({
      base: sha(1),
      head: c.sha,
      commits: [c],
      ledger: {
        file: "freeze.toml",
        rejectIfAgentAddsLease: true,
        changes: [
          {
            commit: c,
            changes: [{ kind: "added_lease", nodeid: "tests/test_a.py::test_x", expires: "2026-12-31", line: 9 }],
          },
        ],
      },
      fixtures: {
        lock: "fixtures.lock",
        delta: { changed: ["g.txt"], added: [], removed: [] },
        touching: [{ commit: c, paths: ["g.txt"] }],
      },
      seeds: { dirs: ["seeds"], filesAtHead: 1, touching: [{ commit: c, paths: ["seeds/a"] }] },
      protect: { patterns: ["proofgate.toml"], touching: [{ commit: c, paths: ["proofgate.toml"] }] },
    });
    const judged = judgePatch(
      { kind: "git", patch: patch(forged), policy },
      { file: "freeze.toml", rejectIfAgentAddsLease: true },
      false,
    );
    const fired = [...judged.leases, ...judged.fixtureDigest, ...judged.seedRewrite, ...judged.protectedPaths];
    expect(fired.map((f) => f.reason)).toEqual([
      "agent_added_lease",
      "fixture_digest",
      "seed_rewrite",
      "protected_path",
    ]);
    for (const f of fired) expect(f.message).toMatch(/'s `[A-Za-z-]+: human` does not count: it is not signed/);
    expect(judged.leases[0]!.message).toContain(
      "commit 000000000000's `Freeze-Lease: human` does not count: it is not signed",
    );
    expect(judged.unverifiedTrailers).toEqual([
      expect.objectContaining({
        reason: "unverified_human_trailer",
        commit: forged.sha,
        author: "Bob <bob@example.org>",
        message: expect.stringContaining(
          "carries `Freeze-Lease: human`, `Fixture-Lock: human`, `Property-Seeds: human`, `Gate-Change: human`, which does not count: it is not signed",
        ),
      }),
    ]);

    const ok = judgePatch(
      { kind: "git", patch: patch(signed), policy },
      { file: "freeze.toml", rejectIfAgentAddsLease: true },
      false,
    );
    expect([
      ...ok.leases,
      ...ok.fixtureDigest,
      ...ok.seedRewrite,
      ...ok.protectedPaths,
      ...ok.unverifiedTrailers,
    ]).toEqual([]);
  });
});

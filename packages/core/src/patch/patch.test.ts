import { describe, expect, it } from "vitest";
import { DEFAULT_AGENT_PATTERNS, type Commit, type Identity, type Trailer } from "../model/authorship.js";
import { defaultConfig } from "../config/config.js";
import type { LedgerLoosening } from "../ledger/ledger-diff.js";
import {
  agentAddedLeaseCount,
  fixtureDelta,
  fixtureDigestFindings,
  leaseFindings,
  judgePatch,
  pathMatcher,
  propertyTestFindings,
  protectedPathFindings,
  seedRewriteFindings,
  seedsEmptyFindings,
  shallowFindings,
  unlockedFindings,
  type PatchEvidence,
  type PatchPolicy,
} from "./patch.js";

// The patch rules (docs/contract.md §6, §7, §8, §10) on hand-built evidence: no git here.

const ADA: Identity = { name: "Ada Lovelace", email: "ada@example.org" };
const BOT: Identity = { name: "agent[bot]", email: "1+agent[bot]@users.noreply.github.com" };
const POLICY: PatchPolicy = {
  agentPatterns: DEFAULT_AGENT_PATTERNS,
  trailers: defaultConfig(DEFAULT_AGENT_PATTERNS).trailers,
};

let serial = 0;
/** A commit: human (Ada) unless told; a fresh sha each time. */
function commit(o: { author?: Identity; committer?: Identity; trailers?: [string, string][] } = {}): Commit {
  const n = (serial++).toString(16).padStart(2, "0");
  return {
    sha: n.repeat(20),
    parents: [],
    author: o.author ?? ADA,
    committer: o.committer ?? o.author ?? ADA,
    subject: "change",
    trailers: (o.trailers ?? []).map(([key, value]): Trailer => ({ key, value })),
  };
}
const human = (...trailers: [string, string][]): Commit => commit({ trailers });
const agent = (...trailers: [string, string][]): Commit => commit({ author: BOT, trailers });

const added = (n: string, line = 5): LedgerLoosening => ({
  kind: "added_lease",
  nodeid: `t::${n}`,
  expires: "2026-12-20",
  line,
});
const extended = (n: string, line = 9): LedgerLoosening => ({
  kind: "extended_lease",
  nodeid: `t::${n}`,
  before: "2026-12-10",
  after: "2027-01-10",
  line,
});
const BUDGET: LedgerLoosening = { kind: "raised_budget", before: 2, after: 4 };
const FLAG: LedgerLoosening = { kind: "disabled_flag", flag: "reject_if_expired" };

/** Evidence with nothing in it; each test fills what its rule reads. */
function patch(over: Partial<PatchEvidence> = {}): PatchEvidence {
  return {
    base: "b".repeat(40),
    head: "c".repeat(40),
    commits: [],
    ledger: { file: "freeze.toml", changes: [], rejectIfAgentAddsLease: true },
    protect: { patterns: [], touching: [] },
    ...over,
  };
}
const withLedger = (changes: PatchEvidence["ledger"]["changes"], rejectIfAgentAddsLease = true): PatchEvidence =>
  patch({ commits: changes.map((c) => c.commit), ledger: { file: "freeze.toml", changes, rejectIfAgentAddsLease } });

describe("leaseFindings: the trailer rule (docs/contract.md §6, §7)", () => {
  it("`Freeze-Lease: human` on a human commit is accepted", () => {
    expect(
      leaseFindings(
        withLedger([{ commit: human(["Freeze-Lease", "human"]), changes: [added("a"), extended("b"), BUDGET, FLAG] }]),
        POLICY,
      ),
    ).toEqual([]);
  });

  it("the same trailer on an agent's commit is refused, naming the identity and pattern", () => {
    const c = agent(["Freeze-Lease", "human"]);
    const findings = leaseFindings(withLedger([{ commit: c, changes: [added("a")] }]), POLICY);
    expect(findings).toEqual([
      {
        reason: "agent_added_lease",
        message: `adds a lease on t::a (expires 2026-12-20): commit ${c.sha.slice(0, 12)} is an agent's (author "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; committer "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; its \`Freeze-Lease: human\` trailer was ignored: a human trailer counts only on a human's commit)`,
        file: "freeze.toml",
        line: 5,
        commit: c.sha,
        author: "agent[bot] <1+agent[bot]@users.noreply.github.com>",
        fix: "a human makes this change, in a commit with the trailer `Freeze-Lease: human`",
      },
    ]);
  });

  it("an agent committer, or an agent co-author, makes a human-authored commit an agent's", () => {
    const committed = commit({ author: ADA, committer: BOT, trailers: [["Freeze-Lease", "human"]] });
    const coAuthored = human(["Co-authored-by", "Claude <noreply@anthropic.com>"], ["Freeze-Lease", "human"]);
    const findings = leaseFindings(
      withLedger([
        { commit: committed, changes: [added("a")] },
        { commit: coAuthored, changes: [added("b")] },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.commit, f.author])).toEqual([
      ["agent_added_lease", committed.sha, "Ada Lovelace <ada@example.org>"],
      ["agent_added_lease", coAuthored.sha, "Ada Lovelace <ada@example.org>"],
    ]);
    expect(findings[0]!.message).toContain(
      'committer "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"',
    );
    expect(findings[1]!.message).toContain(
      'Co-authored-by trailer "Claude <noreply@anthropic.com>" matches "*<noreply@anthropic.com>"',
    );
  });

  it.each([
    ["freeze-lease", "human"],
    ["FREEZE-LEASE", "Human"],
    ["Freeze-Lease", "HUMAN"],
    ["  Freeze-Lease ", "  human  "],
  ])("the trailer key and value compare case-insensitively and trimmed: %j: %j", (key, value) => {
    expect(leaseFindings(withLedger([{ commit: human([key, value]), changes: [added("a")] }]), POLICY)).toEqual([]);
  });

  it.each([
    ["Freeze-Lease", "humans"],
    ["Freeze-Lease", "yes"],
    ["Freeze-Lease", ""],
    ["Freeze-Leases", "human"],
    ["Fixture-Lock", "human"],
    ["Signed-off-by", "human"],
  ])("another value or key is no approval: %j: %j", (key, value) => {
    const c = human([key, value]);
    const findings = leaseFindings(withLedger([{ commit: c, changes: [added("a")] }]), POLICY);
    expect(findings.map((f) => f.reason)).toEqual(["agent_added_lease"]);
    expect(findings[0]!.message).toBe(
      `adds a lease on t::a (expires 2026-12-20): commit ${c.sha.slice(0, 12)} lacks \`Freeze-Lease: human\``,
    );
  });

  it("each change maps to its reason; lines only for leases; one finding per change per commit, in commit order", () => {
    const c1 = agent();
    const c2 = human();
    const findings = leaseFindings(
      withLedger([
        { commit: c1, changes: [added("a"), extended("b")] },
        { commit: c2, changes: [BUDGET, FLAG] },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.commit, f.line, f.message.split(": ")[0]])).toEqual([
      ["agent_added_lease", c1.sha, 5, "adds a lease on t::a (expires 2026-12-20)"],
      ["agent_extended_lease", c1.sha, 9, "extends the lease on t::b from 2026-12-10 to 2027-01-10"],
      ["agent_loosened_policy", c2.sha, undefined, "raises max_active_leases from 2 to 4"],
      ["agent_loosened_policy", c2.sha, undefined, "turns reject_if_expired off"],
    ]);
  });

  it("a human trailer on one commit approves only that commit", () => {
    const ok = human(["Freeze-Lease", "human"]);
    const bad = agent();
    const findings = leaseFindings(
      withLedger([
        { commit: ok, changes: [added("a")] },
        { commit: bad, changes: [extended("a")] },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.commit])).toEqual([["agent_extended_lease", bad.sha]]);
  });

  it("reject_if_agent_adds_lease = false at base: added leases pass, every other loosening still counts", () => {
    const c = agent();
    const findings = leaseFindings(
      withLedger(
        [
          {
            commit: c,
            changes: [added("a"), extended("b"), BUDGET, { kind: "disabled_flag", flag: "reject_if_agent_adds_lease" }],
          },
        ],
        false,
      ),
      POLICY,
    );
    expect(findings.map((f) => f.reason)).toEqual([
      "agent_extended_lease",
      "agent_loosened_policy",
      "agent_loosened_policy",
    ]);
  });

  it("the trailer names come from the policy: a renamed trailer replaces the default", () => {
    const policy: PatchPolicy = { ...POLICY, trailers: { ...POLICY.trailers, freezeLease: "Lease-Approved" } };
    expect(
      leaseFindings(withLedger([{ commit: human(["lease-approved", "Human"]), changes: [added("a")] }]), policy),
    ).toEqual([]);
    const findings = leaseFindings(
      withLedger([{ commit: human(["Freeze-Lease", "human"]), changes: [added("a")] }]),
      policy,
    );
    expect(findings.map((f) => [f.reason, f.fix])).toEqual([
      ["agent_added_lease", "a human makes this change, in a commit with the trailer `Lease-Approved: human`"],
    ]);
    expect(findings[0]!.message).toMatch(/lacks `Lease-Approved: human`$/);
  });

  it("the agent patterns come from the policy", () => {
    const policy: PatchPolicy = { ...POLICY, agentPatterns: ["*<ada@example.org>"] };
    expect(
      leaseFindings(withLedger([{ commit: human(["Freeze-Lease", "human"]), changes: [added("a")] }]), policy).map(
        (f) => f.reason,
      ),
    ).toEqual(["agent_added_lease"]);
    expect(
      leaseFindings(withLedger([{ commit: agent(["Freeze-Lease", "human"]), changes: [added("a")] }]), policy),
    ).toEqual([]);
  });
});

describe("agentAddedLeaseCount", () => {
  it("counts leases added by commits without an accepted trailer, across commits; not extensions or policy", () => {
    const evidence = withLedger([
      { commit: agent(), changes: [added("a"), added("b"), extended("c"), BUDGET] },
      { commit: agent(["Freeze-Lease", "human"]), changes: [added("d")] },
      { commit: human(["Freeze-Lease", "human"]), changes: [added("e"), added("f")] },
      { commit: human(), changes: [added("g")] },
    ]);
    expect(agentAddedLeaseCount(evidence, POLICY)).toBe(4);
  });

  it("zero with no ledger changes", () => {
    expect(agentAddedLeaseCount(patch(), POLICY)).toBe(0);
  });

  it("counts what agents added even where the base's flag lets them (the flag turns the rejection off, not the count)", () => {
    expect(agentAddedLeaseCount(withLedger([{ commit: agent(), changes: [added("a")] }], false), POLICY)).toBe(1);
  });
});

describe("fixtures: fixture_digest and fixtures_unlocked (docs/contract.md §8)", () => {
  const fixtures = (
    delta: { changed?: string[]; added?: string[]; removed?: string[] },
    touching: { commit: Commit; paths: string[] }[],
    unlocked?: { changed?: string[]; added?: string[]; removed?: string[] },
  ) =>
    patch({
      commits: touching.map((t) => t.commit),
      fixtures: {
        lock: "fixtures.lock",
        delta: { changed: [], added: [], removed: [], ...delta },
        touching,
        unlocked: unlocked && { changed: [], added: [], removed: [], ...unlocked },
      },
    });

  it("the delta counts entries changed, added and removed", () => {
    expect(fixtureDelta(fixtures({ changed: ["a"], added: ["b", "c"], removed: ["d"] }, []))).toBe(4);
    expect(fixtureDelta(fixtures({}, []))).toBe(0);
    expect(fixtureDelta(patch())).toBe(0);
  });

  it("a delta of 0 is no finding, whoever touched the fixtures", () => {
    expect(
      fixtureDigestFindings(fixtures({}, [{ commit: agent(), paths: ["tests/fixtures/a.json"] }]), POLICY),
    ).toEqual([]);
  });

  it("a delta > 0: one finding per touching commit without `Fixture-Lock: human` on a human commit", () => {
    const a = agent(["Fixture-Lock", "human"]);
    const h = human(["fixture-lock", "HUMAN"]);
    const n = human();
    const findings = fixtureDigestFindings(
      fixtures({ changed: ["tests/fixtures/a.json"], added: ["tests/fixtures/b.json"] }, [
        { commit: a, paths: ["fixtures.lock", "tests/fixtures/a.json"] },
        { commit: h, paths: ["tests/fixtures/b.json"] },
        { commit: n, paths: ["fixtures.lock"] },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.commit, f.file])).toEqual([
      ["fixture_digest", a.sha, "fixtures.lock"],
      ["fixture_digest", n.sha, "fixtures.lock"],
    ]);
    expect(findings[0]!.message).toMatch(
      /^2 fixture digest\(s\) changed between base and head; commit [0-9a-f]{12} is an agent's \(.*\) and touches fixtures\.lock, tests\/fixtures\/a\.json$/,
    );
    expect(findings[1]!.message).toMatch(/lacks `Fixture-Lock: human` and touches fixtures\.lock$/);
  });

  it("fixtures off (no evidence): no findings", () => {
    expect(fixtureDigestFindings(patch(), POLICY)).toEqual([]);
    expect(unlockedFindings(patch())).toEqual([]);
  });

  it("unlocked: the files that differ from the lock, or nothing when they match or were not checked", () => {
    expect(unlockedFindings(fixtures({}, [], { changed: ["x"], added: ["y"], removed: ["z"] }))).toEqual([
      {
        reason: "fixtures_unlocked",
        message: "the fixtures differ from fixtures.lock: changed x, unlocked y, missing z",
        file: "fixtures.lock",
        fix: "run `proofgate lock` in a human commit with `Fixture-Lock: human`, or restore the fixtures",
      },
    ]);
    expect(unlockedFindings(fixtures({}, [], {}))).toEqual([]);
    expect(unlockedFindings(fixtures({}, []))).toEqual([]);
  });

  it("unlocked: more than ten files are cut with an ellipsis", () => {
    const many = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    const [finding] = unlockedFindings(fixtures({}, [], { changed: many }));
    expect(finding!.message).toBe(
      `the fixtures differ from fixtures.lock: ${many
        .slice(0, 10)
        .map((f) => `changed ${f}`)
        .join(", ")}, ...`,
    );
  });
});

describe("seeds: seeds_empty and seed_rewrite (docs/contract.md §8)", () => {
  const seeds = (filesAtHead: number, touching: { commit: Commit; paths: string[] }[]) =>
    patch({
      commits: touching.map((t) => t.commit),
      seeds: { dirs: ["tests/properties/seeds", "more/seeds"], filesAtHead, touching },
    });

  it("no seed files at head: seeds_empty, naming the first folder", () => {
    expect(seedsEmptyFindings(seeds(0, []))).toEqual([
      {
        reason: "seeds_empty",
        message: "the seed corpus (tests/properties/seeds, more/seeds) has no files at head",
        file: "tests/properties/seeds",
        fix: "restore the seeds from the base: proofgate seeds materialize --ref <base> --out <dir>",
      },
    ]);
    expect(seedsEmptyFindings(seeds(1, []))).toEqual([]);
    expect(seedsEmptyFindings(patch())).toEqual([]);
  });

  it("a rewrite per commit without `Property-Seeds: human` on a human commit, filed under its first seed path", () => {
    const a = agent(["Property-Seeds", "human"]);
    const h = human(["PROPERTY-SEEDS", " human "]);
    const n = human(["Property-Seeds", "no"]);
    const paths = [
      "tests/properties/seeds/1",
      "tests/properties/seeds/2",
      "tests/properties/seeds/3",
      "tests/properties/seeds/4",
      "tests/properties/seeds/5",
      "tests/properties/seeds/6",
    ];
    const findings = seedRewriteFindings(
      seeds(3, [
        { commit: a, paths: ["tests/properties/seeds/s1.json"] },
        { commit: h, paths: ["tests/properties/seeds/s2.json"] },
        { commit: n, paths },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.commit, f.file])).toEqual([
      ["seed_rewrite", a.sha, "tests/properties/seeds/s1.json"],
      ["seed_rewrite", n.sha, "tests/properties/seeds/1"],
    ]);
    expect(findings[1]!.message).toBe(
      `commit ${n.sha.slice(0, 12)} lacks \`Property-Seeds: human\` and rewrites seeds: ${paths.slice(0, 5).join(", ")}, ...`,
    );
    expect(seedRewriteFindings(patch(), POLICY)).toEqual([]);
  });
});

describe("property tests are judged with the seeds (property_weakened)", () => {
  const props = (touching: NonNullable<PatchEvidence["propertyTests"]>["touching"]): PatchEvidence =>
    patch({ commits: touching.map((t) => t.commit), propertyTests: { dirs: ["tests/properties"], touching } });

  it("an agent's change: the file, the first added line, the commit, its author and the fix", () => {
    const a = agent(["Property-Seeds", "human"]);
    const findings = propertyTestFindings(
      props([
        {
          commit: a,
          paths: ["tests/properties/test_props.py", "tests/test_fuzz.py"],
          first: { path: "tests/properties/test_props.py", line: 12 },
        },
      ]),
      POLICY,
    );
    expect(findings).toEqual([
      {
        reason: "property_weakened",
        message: `commit ${a.sha.slice(0, 12)} is an agent's (author "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; committer "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; its \`Property-Seeds: human\` trailer was ignored: a human trailer counts only on a human's commit) and changes property tests, which are judged with the seeds: tests/properties/test_props.py, tests/test_fuzz.py`,
        file: "tests/properties/test_props.py",
        line: 12,
        commit: a.sha,
        author: "agent[bot] <1+agent[bot]@users.noreply.github.com>",
        fix: `restore the property tests as they are at the base ${"b".repeat(12)} (a file the patch added goes); a human who means to change them (fewer examples, a narrower strategy, a property removed, or one added: a new module runs beside the others, and what it does at import, such as loading a Hypothesis profile or replacing a strategy, weakens them too) does so in a commit with \`Property-Seeds: human\``,
      },
    ]);
  });

  it("a human's commit with `Property-Seeds: human` is approved; without it, or a deletion (no line), it is not", () => {
    const ok = human(["Property-Seeds", "human"]);
    const bare = human();
    const findings = propertyTestFindings(
      props([
        {
          commit: ok,
          paths: ["tests/properties/test_props.py"],
          first: { path: "tests/properties/test_props.py", line: 3 },
        },
        { commit: bare, paths: ["tests/properties/test_gone.py"] },
      ]),
      POLICY,
    );
    expect(findings.map((f) => [f.reason, f.file, f.line, f.commit])).toEqual([
      ["property_weakened", "tests/properties/test_gone.py", undefined, bare.sha],
    ]);
    expect(findings[0]!.message).toContain(`commit ${bare.sha.slice(0, 12)} lacks \`Property-Seeds: human\``);
  });

  it("the trailer's name is the base's `[trailers] property_seeds`", () => {
    const renamed = human(["Props-Approved", "human"]);
    const policy: PatchPolicy = { ...POLICY, trailers: { ...POLICY.trailers, propertySeeds: "Props-Approved" } };
    const evidence = props([{ commit: renamed, paths: ["tests/properties/test_props.py"] }]);
    expect(propertyTestFindings(evidence, policy)).toEqual([]);
    expect(propertyTestFindings(evidence, POLICY)).toHaveLength(1);
  });

  it("judgePatch reports them, except on a truncated history; no evidence (properties off): nothing", () => {
    const a = agent();
    const evidence = props([{ commit: a, paths: ["tests/properties/test_props.py"] }]);
    const ledger = { file: "freeze.toml", rejectIfAgentAddsLease: true };
    expect(judgePatch({ kind: "git", patch: evidence, policy: POLICY }, ledger, false).propertyTests).toHaveLength(1);
    const shallow = { ...evidence, shallow: { message: "cut", fix: "fetch" } };
    expect(judgePatch({ kind: "git", patch: shallow, policy: POLICY }, ledger, false).propertyTests).toEqual([]);
    expect(propertyTestFindings(patch(), POLICY)).toEqual([]);
  });
});

describe("protected paths (docs/contract.md §10)", () => {
  it("a commit touching protected paths without `Gate-Change: human` on a human commit", () => {
    const a = agent(["Gate-Change", "human"]);
    const h = human(["gate-change", "human"]);
    const n = human();
    const evidence = patch({
      protect: {
        patterns: ["proofgate.toml", ".github/workflows/**"],
        touching: [
          { commit: a, paths: [".github/workflows/ci.yml", "proofgate.toml"] },
          { commit: h, paths: ["proofgate.toml"] },
          { commit: n, paths: [".github/workflows/x.yml"] },
        ],
      },
    });
    const findings = protectedPathFindings(evidence, POLICY);
    expect(findings.map((f) => [f.reason, f.commit, f.file, f.author])).toEqual([
      ["protected_path", a.sha, ".github/workflows/ci.yml", "agent[bot] <1+agent[bot]@users.noreply.github.com>"],
      ["protected_path", n.sha, ".github/workflows/x.yml", "Ada Lovelace <ada@example.org>"],
    ]);
    expect(findings[0]!.message).toMatch(/is an agent's .* and touches \.github\/workflows\/ci\.yml, proofgate\.toml$/);
    // The agent's `Gate-Change: human` is named as ignored, with the identity and pattern that made it an agent's.
    expect(findings[0]!.message).toBe(
      `commit ${a.sha.slice(0, 12)} is an agent's (author "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; committer "agent[bot] <1+agent[bot]@users.noreply.github.com>" matches "*[bot]*"; its \`Gate-Change: human\` trailer was ignored: a human trailer counts only on a human's commit) and touches .github/workflows/ci.yml, proofgate.toml`,
    );
    expect(findings[1]!.message).toBe(
      `commit ${n.sha.slice(0, 12)} lacks \`Gate-Change: human\` and touches .github/workflows/x.yml`,
    );
    expect(findings[0]!.fix).toBe("CI files and the gate's config change in a human commit with `Gate-Change: human`");
  });

  it("pathMatcher: `**` crosses folders, dot files match, an empty list matches nothing", () => {
    const m = pathMatcher(["proofgate.toml", ".github/workflows/**", ".gitlab-ci.yml", ".buildkite/**"]);
    expect(
      [
        ".github/workflows/x.yml",
        ".github/workflows/sub/y.yaml",
        ".gitlab-ci.yml",
        ".buildkite/pipeline.yml",
        "proofgate.toml",
      ].every(m),
    ).toBe(true);
    expect(
      [".github/dependabot.yml", "sub/proofgate.toml", "gitlab-ci.yml", "src/.gitlab-ci.yml", "docs/.buildkite/x"].some(
        m,
      ),
    ).toBe(false);
    expect(pathMatcher([])("proofgate.toml")).toBe(false);
  });
});

describe("shallow history", () => {
  it("a truncated range is one finding with the fix; a full one none", () => {
    expect(
      shallowFindings(patch({ shallow: { message: "the base is not in this clone", fix: "fetch-depth: 0" } })),
    ).toEqual([{ reason: "shallow_history", message: "the base is not in this clone", fix: "fetch-depth: 0" }]);
    expect(shallowFindings(patch())).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  DEFAULT_AGENT_PATTERNS,
  agentCommitClause,
  classifyCommit,
  coAuthors,
  formatIdentity,
  hasHumanTrailer,
  isAgentIdentity,
  matchAgentPattern,
  type Commit,
  type Trailer,
} from "./authorship.js";

const human = { name: "Ada Lovelace", email: "ada@example.org" };
const bot = { name: "dependabot[bot]", email: "49699333+dependabot[bot]@users.noreply.github.com" };

function commit(over: Partial<Commit> = {}, trailers: Trailer[] = []): Commit {
  return { sha: "a".repeat(40), parents: [], author: human, committer: human, subject: "s", trailers, ...over };
}

describe("isAgentIdentity", () => {
  it.each([
    ["dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"],
    ["github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"],
    ["copilot-swe-agent[bot] <198982749+Copilot@users.noreply.github.com>"],
    ["Copilot <198982749+Copilot@users.noreply.github.com>"],
    ["devin-ai-integration[bot] <158243242+devin-ai-integration[bot]@users.noreply.github.com>"],
    ["Devin <158243242+devin-ai-integration[bot]@users.noreply.github.com>"],
    ["Claude <noreply@anthropic.com>"],
    ["Claude Opus 4.5 <NoReply@Anthropic.com>"],
    ["Codex <noreply@openai.com>"],
    ["Codex <codex@openai.com>"],
    ["Cursor Agent <cursoragent@cursor.com>"],
    ["aider (gpt-4o) <noreply@aider.chat>"],
    ["Jane Doe (aider) <jane@example.org>"],
    ["RENOVATE[BOT] <x@y>"],
  ])("%s is an agent by default", (identity) => {
    expect(isAgentIdentity(identity, DEFAULT_AGENT_PATTERNS)).toBe(true);
  });

  it.each([
    ["Ada Lovelace <ada@example.org>"],
    ["Bob Ottobot <bob@example.org>"], // b, o, t: a glob class [bot] would match; the pattern is literal
    ["GitHub <noreply@github.com>"], // the web-flow committer of human merges and edits
    ["Jane <12345+jane@users.noreply.github.com>"],
    ["Anthropic Staff <someone@anthropic.com>"],
    ["Copilotta Rossi <c.rossi@example.org>"],
  ])("%s is a human by default", (identity) => {
    expect(isAgentIdentity(identity, DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("treats only * and ? as wildcards; brackets, parens, braces, dots and slashes are literal", () => {
    expect(isAgentIdentity("a.b <x>", ["a?b <x>"])).toBe(true);
    expect(isAgentIdentity("ab <x>", ["a.b <x>"])).toBe(false);
    expect(isAgentIdentity("x{a,b} <y>", ["x{a,b} <y>"])).toBe(true);
    expect(isAgentIdentity("xa <y>", ["x{a,b} <y>"])).toBe(false);
    expect(isAgentIdentity("ci/bot <a/b@c>", ["*bot <*"])).toBe(true);
    expect(isAgentIdentity("x <y>", ["!x <y>"])).toBe(false);
    expect(isAgentIdentity("\u00c9LODIE <e@x>", ["élodie <*"])).toBe(true);
    expect(matchAgentPattern({ name: "x[bot]", email: "e" }, ["nope", "*[bot]*"])).toBe("*[bot]*");
    expect(isAgentIdentity(human, [])).toBe(false);
    // A folded co-author value from a CRLF message: whitespace runs count as one space.
    expect(isAgentIdentity("Copilot\r <1+Copilot@users.noreply.github.com>", DEFAULT_AGENT_PATTERNS)).toBe(true);
    expect(
      isAgentIdentity("Cursor\t Agent\r\n <cursoragent@cursor.com> ", ["cursor agent <cursoragent@cursor.com>"]),
    ).toBe(true);
  });

  it("matches the whole text, and a pattern is a literal when it has no wildcard", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, email) => {
        const text = formatIdentity({ name, email });
        const literal = text.replace(/[*?]/g, "");
        expect(isAgentIdentity(literal, [literal])).toBe(true);
        expect(isAgentIdentity(text, ["*"])).toBe(true);
        expect(isAgentIdentity(`${literal}x`, [literal])).toBe(false);
      }),
      { seed: 4, numRuns: 300 },
    );
  });
});

describe("classifyCommit", () => {
  it("a human author and a human committer: a human commit", () => {
    expect(classifyCommit(commit(), DEFAULT_AGENT_PATTERNS)).toEqual({ agent: false, reasons: [] });
  });

  it("a bot author: an agent's, with the reason", () => {
    expect(classifyCommit(commit({ author: bot }), DEFAULT_AGENT_PATTERNS)).toEqual({
      agent: true,
      reasons: ['author "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>" matches "*[bot]*"'],
    });
  });

  it("a bot committer alone makes it an agent's", () => {
    const c = classifyCommit(
      commit({ committer: { name: "Copilot", email: "198982749+Copilot@users.noreply.github.com" } }),
      DEFAULT_AGENT_PATTERNS,
    );
    expect(c.agent).toBe(true);
    expect(c.reasons[0]).toMatch(/^committer "Copilot </);
  });

  it("a human author with an agent Co-authored-by trailer (any key case): an agent's", () => {
    const c = classifyCommit(
      commit({}, [{ key: "co-Authored-BY", value: "  Claude Sonnet 4 <noreply@anthropic.com> " }]),
      DEFAULT_AGENT_PATTERNS,
    );
    expect(c).toEqual({
      agent: true,
      reasons: ['co-Authored-BY trailer "Claude Sonnet 4 <noreply@anthropic.com>" matches "*<noreply@anthropic.com>"'],
    });
    expect(
      classifyCommit(
        commit({}, [{ key: "Co-developed-by", value: "Cursor Agent <cursoragent@cursor.com>" }]),
        DEFAULT_AGENT_PATTERNS,
      ).agent,
    ).toBe(true);
  });

  it("a human co-author, or an agent named in another trailer, keeps it a human's", () => {
    const trailers = [
      { key: "Co-authored-by", value: "Grace Hopper <grace@example.org>" },
      { key: "Reviewed-by", value: "claude[bot] <x@y>" },
    ];
    expect(classifyCommit(commit({}, trailers), DEFAULT_AGENT_PATTERNS).agent).toBe(false);
    expect(coAuthors(commit({}, trailers))).toEqual(["Grace Hopper <grace@example.org>"]);
  });

  it("lists every matching identity", () => {
    const c = classifyCommit(
      commit({ author: bot, committer: bot }, [{ key: "Co-authored-by", value: "Codex <noreply@openai.com>" }]),
      DEFAULT_AGENT_PATTERNS,
    );
    expect(c.reasons).toHaveLength(3);
  });
});

describe("hasHumanTrailer", () => {
  const lease = [{ key: "Freeze-Lease", value: "human" }];

  it("true on a human commit with the trailer (key any case, value trimmed and any case)", () => {
    expect(hasHumanTrailer(commit({}, lease), "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(true);
    expect(
      hasHumanTrailer(commit({}, [{ key: "freeze-lease", value: " Human " }]), "FREEZE-LEASE", DEFAULT_AGENT_PATTERNS),
    ).toBe(true);
  });

  it("false on a bot commit that carries `Freeze-Lease: human`", () => {
    expect(hasHumanTrailer(commit({ author: bot }, lease), "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("false on a human commit with an agent co-author", () => {
    const trailers = [...lease, { key: "Co-authored-by", value: "Claude <noreply@anthropic.com>" }];
    expect(hasHumanTrailer(commit({}, trailers), "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("false without the trailer, with another value, or another key", () => {
    expect(hasHumanTrailer(commit(), "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
    expect(
      hasHumanTrailer(commit({}, [{ key: "Freeze-Lease", value: "humans" }]), "Freeze-Lease", DEFAULT_AGENT_PATTERNS),
    ).toBe(false);
    expect(
      hasHumanTrailer(
        commit({}, [{ key: "Freeze-Lease", value: "not human" }]),
        "Freeze-Lease",
        DEFAULT_AGENT_PATTERNS,
      ),
    ).toBe(false);
    expect(
      hasHumanTrailer(commit({}, [{ key: "Fixture-Lock", value: "human" }]), "Freeze-Lease", DEFAULT_AGENT_PATTERNS),
    ).toBe(false);
  });

  it("never true on a commit that classifyCommit calls an agent's", () => {
    const identity = fc.oneof(fc.constantFrom(human, bot), fc.record({ name: fc.string(), email: fc.string() }));
    const trailer = fc.record({
      key: fc.constantFrom("Freeze-Lease", "Co-authored-by", "Signed-off-by"),
      value: fc.oneof(fc.constant("human"), fc.constant("Claude <noreply@anthropic.com>"), fc.string()),
    });
    fc.assert(
      fc.property(identity, identity, fc.array(trailer, { maxLength: 4 }), (author, committer, trailers) => {
        const c = commit({ author, committer }, trailers);
        if (classifyCommit(c, DEFAULT_AGENT_PATTERNS).agent)
          expect(hasHumanTrailer(c, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
      }),
      { seed: 6, numRuns: 300 },
    );
  });
});

describe("agentCommitClause: why an agent's commit did not approve", () => {
  const agent = {
    sha: "a".repeat(40),
    trailers: [
      { key: "test-removal", value: " Human " },
      { key: "Co-authored-by", value: "Claude <noreply@anthropic.com>" },
    ],
  };
  const reasons = ['Co-authored-by trailer "Claude <noreply@anthropic.com>" matches "*<noreply@anthropic.com>"'];

  it("names the identity and pattern, and says that the human trailer it carries was ignored", () => {
    expect(agentCommitClause(agent, "Test-Removal", reasons)).toBe(
      `commit aaaaaaaaaaaa is an agent's (${reasons[0]}; its \`Test-Removal: human\` trailer was ignored: a human trailer counts only on a human's commit)`,
    );
  });

  it("without that trailer, only the identity and pattern", () => {
    expect(agentCommitClause(agent, "Gate-Change", reasons)).toBe(`commit aaaaaaaaaaaa is an agent's (${reasons[0]})`);
  });
});

// Commits and the patch policy for the rules' unit tests: a human, an agent, and a commit factory whose
// SHAs count up (each test file gets its own factory, so its SHAs are its own).
import { DEFAULT_AGENT_PATTERNS, type Commit, type Identity } from "../model/authorship.js";
import { defaultConfig } from "../config/config.js";
import type { PatchPolicy } from "../patch/patch.js";

export const ADA: Identity = { name: "Ada Lovelace", email: "ada@example.org" };
export const BOT: Identity = { name: "patchbot[bot]", email: "patchbot@example.org" };

/** The default agent patterns and trailers. */
export const POLICY: PatchPolicy = {
  agentPatterns: DEFAULT_AGENT_PATTERNS,
  trailers: defaultConfig(DEFAULT_AGENT_PATTERNS).trailers,
};

/** A factory of parentless commits by `who`, with an optional `<trailer>: human`; SHAs are `fill`-padded counts. */
export function commitFactory(fill: string): (who: Identity, trailer?: string) => Commit {
  let n = 0;
  return (who, trailer) => {
    n++;
    return {
      sha: String(n).padStart(40, fill),
      parents: [],
      author: who,
      committer: who,
      subject: `commit ${n}`,
      trailers: trailer ? [{ key: trailer, value: "human" }] : [],
    };
  };
}

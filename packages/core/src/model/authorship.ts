// Agent or human (docs/contract.md §6): a commit is an agent's unless its author and its committer match none
// of the agent patterns and no co-author trailer matches them. Pure: the caller reads git.

/** A git identity as git records it (`%an`/`%ae`, `%cn`/`%ce`; never remapped by a .mailmap). */
export interface Identity {
  name: string;
  email: string;
}

/** One trailer as git parses it: the key as written (any case), the value unfolded and trimmed. */
export interface Trailer {
  key: string;
  value: string;
}

/** One commit of the patch, as `listCommits` reads it from git. */
export interface Commit {
  /** The full object name. */
  sha: string;
  /** Parent object names; the first is the first parent, none for a root commit. */
  parents: string[];
  author: Identity;
  committer: Identity;
  /** The subject line (git's `%s`: the first paragraph, lines joined by spaces). */
  subject: string;
  /** Every trailer of the message in order, as git reads it (`%(trailers:only,unfold)`). */
  trailers: Trailer[];
  /**
   * Whether its signature vouches for it (`[agents] human_signatures = "required"`): set on every commit of
   * the range when signatures are required, absent when they are not. An unverified commit's human
   * trailers do not count (`hasHumanTrailer`).
   */
  signature?: CommitSignature | undefined;
}

/** What the gate learned of a commit's signature: verified against the base's signers, or why not. */
export interface CommitSignature {
  verified: boolean;
  /** One clause: `signed by alice@example.com (SHA256:…)`, `not signed`, `signed by a key not in …`. */
  why: string;
}

/** Whether a commit counts as an agent's, and each identity that made it so. */
export interface CommitClass {
  agent: boolean;
  /** One line per matching identity, e.g. `author "x[bot] <…>" matches "*[bot]*"`; empty for a human commit. */
  reasons: string[];
}

/**
 * The default agent patterns, matched case-insensitively against `Name <email>` (see
 * `isAgentIdentity`). Each names a real identity that coding agents commit or co-author with:
 * - `*[bot]*`: every GitHub App (dependabot[bot], github-actions[bot], copilot-swe-agent[bot],
 *   devin-ai-integration[bot], claude[bot], cursor[bot], chatgpt-codex-connector[bot], google-labs-jules[bot]).
 * - GitHub Copilot's coding agent authors as `Copilot <198982749+Copilot@users.noreply.github.com>`.
 * - Claude Code adds `Co-Authored-By: Claude … <noreply@anthropic.com>`.
 * - Codex adds `Co-authored-by: Codex <noreply@openai.com>`; Codex cloud commits as `Codex <codex@openai.com>`.
 * - Cursor's agents commit and co-author as `Cursor Agent <cursoragent@cursor.com>`.
 * - aider co-authors as `aider (model) <noreply@aider.chat>` and appends ` (aider)` to the author's name.
 */
export const DEFAULT_AGENT_PATTERNS: readonly string[] = Object.freeze([
  "*[bot]*",
  "copilot <*",
  "*<*+copilot@users.noreply.github.com>",
  "*<noreply@anthropic.com>",
  "*<noreply@openai.com>",
  "*<codex@openai.com>",
  "*<cursoragent@cursor.com>",
  "*<*@aider.chat>",
  "*(aider) <*",
]);

/** Trailer keys (compared case-insensitively) whose value names a co-author of the commit. */
export const CO_AUTHOR_TRAILER_KEYS: readonly string[] = Object.freeze(["Co-authored-by", "Co-developed-by"]);

/** An identity as the patterns see it: `Name <email>`. */
export function formatIdentity(identity: Identity): string {
  return `${identity.name} <${identity.email}>`;
}

const compiled = new Map<string, RegExp>();

/**
 * The pattern as a regular expression. Only `*` (any text, empty included) and `?` (one character)
 * are wildcards; everything else is literal, so `*[bot]*` matches the text `[bot]` and `(aider)`
 * matches the parentheses. Identities are not paths: `*` crosses `/`.
 */
function compile(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    let source = "";
    for (const ch of pattern) {
      source += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
    }
    re = new RegExp(`^${source}$`, "iu");
    compiled.set(pattern, re);
  }
  return re;
}

/** The text patterns see: `Name <email>`, each run of whitespace (CR, tab, newline) one space, trimmed. */
function identityText(identity: Identity | string): string {
  return (typeof identity === "string" ? identity : formatIdentity(identity)).replace(/\s+/gu, " ").trim();
}

/**
 * The first pattern that `identity` matches (case-insensitive, whole text), or undefined. Runs of
 * whitespace count as one space, so a CRLF message's folded `Claude\r <…>` still reads `Claude <…>`.
 */
export function matchAgentPattern(identity: Identity | string, patterns: readonly string[]): string | undefined {
  const text = identityText(identity);
  return patterns.find((pattern) => compile(pattern.replace(/\s+/gu, " ").trim()).test(text));
}

/**
 * True when the identity (`Name <email>`, or an Identity) matches one of the agent patterns.
 * Patterns are wildcards: `*` any text, `?` one character, all else literal, case-insensitive.
 */
export function isAgentIdentity(identity: Identity | string, patterns: readonly string[]): boolean {
  return matchAgentPattern(identity, patterns) !== undefined;
}

/** The values of the commit's co-author trailers (`Co-authored-by`, `Co-developed-by`), trimmed. */
export function coAuthors(commit: Pick<Commit, "trailers">): string[] {
  const keys = new Set(CO_AUTHOR_TRAILER_KEYS.map((k) => k.toLowerCase()));
  return commit.trailers.filter((t) => keys.has(t.key.trim().toLowerCase())).map((t) => t.value.trim());
}

/**
 * Agent or human (docs/contract.md §6): the commit is an agent's when its author, its committer or any
 * co-author trailer matches an agent pattern. The reasons name each identity and the pattern it matched.
 */
export function classifyCommit(
  commit: Pick<Commit, "author" | "committer" | "trailers">,
  patterns: readonly string[],
): CommitClass {
  const reasons: string[] = [];
  const check = (role: string, identity: Identity | string): void => {
    const pattern = matchAgentPattern(identity, patterns);
    if (pattern !== undefined) {
      const text = identityText(identity);
      reasons.push(`${role} ${JSON.stringify(text)} matches ${JSON.stringify(pattern)}`);
    }
  };
  check("author", commit.author);
  check("committer", commit.committer);
  const coKeys = new Set(CO_AUTHOR_TRAILER_KEYS.map((k) => k.toLowerCase()));
  for (const trailer of commit.trailers) {
    if (coKeys.has(trailer.key.trim().toLowerCase())) check(`${trailer.key.trim()} trailer`, trailer.value);
  }
  return { agent: reasons.length > 0, reasons };
}

/** True when the commit's message carries the trailer `key` (any case) with the value `human` (trimmed, any case). */
export function carriesHumanTrailer(commit: Pick<Commit, "trailers">, key: string): boolean {
  const wanted = key.trim().toLowerCase();
  return commit.trailers.some((t) => t.key.trim().toLowerCase() === wanted && t.value.trim().toLowerCase() === "human");
}

/** True when any trailer of the commit has the value `human`, whatever its key. */
export function carriesAnyHumanTrailer(commit: Pick<Commit, "trailers">): boolean {
  return commit.trailers.some((t) => t.value.trim().toLowerCase() === "human");
}

/**
 * The one test every trailer rule goes through: true only when the commit is a human's (see
 * `classifyCommit`), carries the trailer `key` (compared case-insensitively) with the value `human`
 * (trimmed, any case), and, when signatures are required, its signature verified (`commit.signature`).
 * A human trailer on an agent's commit, or on a commit whose signature did not verify, never counts.
 */
export function hasHumanTrailer(
  commit: Pick<Commit, "author" | "committer" | "trailers" | "signature">,
  key: string,
  patterns: readonly string[],
): boolean {
  return (
    carriesHumanTrailer(commit, key) && !classifyCommit(commit, patterns).agent && commit.signature?.verified !== false
  );
}

/**
 * An agent's commit as findings name it: `commit X is an agent's (author "…" matches "*[bot]*")`; when it
 * carries `key: human`, also that the trailer was ignored, so the report says why it did not count.
 */
export function agentCommitClause(
  commit: Pick<Commit, "sha" | "trailers">,
  key: string,
  reasons: readonly string[],
): string {
  const ignored = carriesHumanTrailer(commit, key)
    ? [`its \`${key.trim()}: human\` trailer was ignored: a human trailer counts only on a human's commit`]
    : [];
  return `commit ${commit.sha.slice(0, 12)} is an agent's (${[...reasons, ...ignored].join("; ")})`;
}

import picomatch from "picomatch";
import {
  agentCommitClause,
  carriesHumanTrailer,
  classifyCommit,
  hasHumanTrailer,
  type Commit,
} from "../model/authorship.js";
import type { TrailerKeys } from "../config/config.js";
import type { Finding } from "../model/report.js";
import { describeLoosening, type LedgerLoosening } from "../ledger/ledger-diff.js";
import type { SignaturePolicy } from "./signatures.js";

/** The ledger's loosening changes that one commit made (docs/contract.md §7). */
export interface CommitLedgerChanges {
  commit: Commit;
  changes: LedgerLoosening[];
}

/** The paths one commit touched that a rule cares about (old names of renames included). */
export interface CommitPaths {
  commit: Commit;
  paths: string[];
}

/** A commit that took `removed` inline snapshots away from the source files it touched (`paths`). */
export type InlineSnapshotTouch = CommitPaths & { removed: number };

/** A fixture lock delta: entries changed, added or removed. */
export interface LockDelta {
  changed: string[];
  added: string[];
  removed: string[];
}

/** What git says about the patch: computed by the caller, judged here. */
export interface PatchEvidence {
  base: string;
  head: string;
  commits: Commit[];
  /** Set when the history cannot reach the base: nothing else is judged. */
  shallow?: { message: string; fix: string } | undefined;
  ledger: {
    file: string;
    changes: CommitLedgerChanges[];
    /** The base's `reject_if_agent_adds_lease`: a patch that turns it off is itself a loosening. */
    rejectIfAgentAddsLease: boolean;
  };
  fixtures?:
    | {
        lock: string;
        /** Lock entries changed between base and head: the fixture digest delta. */
        delta: LockDelta;
        /** Commits that touched the lock or a fixture. */
        touching: CommitPaths[];
        /** Files on disk that differ from the lock at head; undefined when not checked. */
        unlocked?: LockDelta | undefined;
        /**
         * Commits that touched snapshot files outside `[fixtures] paths` (`isSnapshotPath`): golden files the
         * lock does not guard. Undefined when not read.
         */
        snapshotsOutside?: CommitPaths[] | undefined;
        /** Commits that took inline snapshots away from the source files they touched, each with those files. */
        inlineSnapshots?: InlineSnapshotTouch[] | undefined;
      }
    | undefined;
  seeds?:
    | {
        dirs: string[];
        /** Seed files at head. */
        filesAtHead: number;
        touching: CommitPaths[];
      }
    | undefined;
  /**
   * Property test files (`[properties] tests`, and test files that import hypothesis at the base or head;
   * seed files are `seeds`'): judged with the seeds, so a commit that touches one needs the seeds' trailer.
   */
  propertyTests?:
    | {
        dirs: string[];
        touching: PropertyTestTouch[];
      }
    | undefined;
  protect: {
    patterns: string[];
    touching: CommitPaths[];
    /** Protected files and sections (`[protect] sections`) whose meaning a commit changed. */
    sections?: SectionTouch[] | undefined;
  };
}

/** A commit that touched property test files, and its first added line in them (none for a deletion). */
export interface PropertyTestTouch extends CommitPaths {
  first?: { path: string; line: number } | undefined;
}

/** A commit that changed the meaning of a protected file or section. */
export interface SectionTouch {
  commit: Commit;
  /** The file, and the section as the spec names it (none: the whole file). */
  file: string;
  section?: string | undefined;
  /** The keys that differ, e.g. `[pytest] addopts`; empty when the file could not be read. */
  keys: string[];
  line?: number | undefined;
  /** The file could not be read at one side: the gate cannot show that nothing changed. */
  unreadable?: string | undefined;
}

/** The policy a patch is judged by: the agent patterns and trailer names (from the base's config). */
export interface PatchPolicy {
  agentPatterns: readonly string[];
  trailers: TrailerKeys;
  /** `[agents] human_signatures` and what vouches; the verdicts themselves are on each `Commit.signature`. */
  signatures?: SignaturePolicy | undefined;
}

const short = (sha: string): string => sha.slice(0, 12);
/** A commit's author as findings name it: `Name <email>`. */
export const who = (c: Commit): string => `${c.author.name} <${c.author.email}>`;

/** Why a commit's change is not approved: an agent's commit (and which identity matched), or no trailer. */
export function needsTrailer(commit: Commit, key: string, policy: PatchPolicy): string {
  const { agent, reasons } = classifyCommit(commit, policy.agentPatterns);
  if (agent) return agentCommitClause(commit, key, reasons);
  if (carriesHumanTrailer(commit, key) && commit.signature?.verified === false)
    return `commit ${short(commit.sha)}'s \`${key}: human\` does not count: ${commit.signature.why}`;
  return `commit ${short(commit.sha)} lacks \`${key}: human\``;
}

/** Lease changes by commits without `Freeze-Lease: human` on a human commit. */
export function leaseFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const key = policy.trailers.freezeLease;
  const out: Finding[] = [];
  for (const { commit, changes } of patch.ledger.changes) {
    if (hasHumanTrailer(commit, key, policy.agentPatterns)) continue;
    for (const change of changes) {
      if (change.kind === "added_lease" && !patch.ledger.rejectIfAgentAddsLease) continue;
      out.push({
        reason:
          change.kind === "added_lease"
            ? "agent_added_lease"
            : change.kind === "extended_lease"
              ? "agent_extended_lease"
              : "agent_loosened_policy",
        message: `${describeLoosening(change)}: ${needsTrailer(commit, key, policy)}`,
        file: patch.ledger.file,
        line: "line" in change ? change.line : undefined,
        commit: commit.sha,
        author: who(commit),
        fix: `a human makes this change, in a commit with the trailer \`${key}: human\``,
      });
    }
  }
  return out;
}

/** Fixture files that differ from the lock in the work tree. */
export function unlockedFindings(patch: PatchEvidence): Finding[] {
  const u = patch.fixtures?.unlocked;
  if (!u || u.changed.length + u.added.length + u.removed.length === 0) return [];
  const list = [
    ...u.changed.map((p) => `changed ${p}`),
    ...u.added.map((p) => `unlocked ${p}`),
    ...u.removed.map((p) => `missing ${p}`),
  ];
  return [
    {
      reason: "fixtures_unlocked",
      message: `the fixtures differ from ${patch.fixtures!.lock}: ${list.slice(0, 10).join(", ")}${list.length > 10 ? ", ..." : ""}`,
      file: patch.fixtures!.lock,
      fix: "run `proofgate lock` in a human commit with `Fixture-Lock: human`, or restore the fixtures",
    },
  ];
}

/**
 * A fixture digest delta from commits without `Fixture-Lock: human` on a human commit, and the golden files
 * outside the lock that such commits rewrote: snapshot files outside `[fixtures] paths`, inline snapshots.
 */
export function fixtureDigestFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const f = patch.fixtures;
  if (!f) return [];
  const key = policy.trailers.fixtureLock;
  const unapproved = <T extends CommitPaths>(touches: readonly T[] | undefined): T[] =>
    (touches ?? []).filter(({ commit }) => !hasHumanTrailer(commit, key, policy.agentPatterns));
  const delta = f.delta.changed.length + f.delta.added.length + f.delta.removed.length;
  const named = (paths: readonly string[]) => `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}`;
  return [
    ...(delta === 0 ? [] : unapproved(f.touching)).map(({ commit, paths }) => ({
      reason: "fixture_digest" as const,
      message: `${delta} fixture digest(s) changed between base and head; ${needsTrailer(commit, key, policy)} and touches ${named(paths)}`,
      file: f.lock,
      commit: commit.sha,
      author: who(commit),
      fix: `a human updates golden files and the lock, in a commit with \`${key}: human\``,
    })),
    ...unapproved(f.snapshotsOutside).map(({ commit, paths }) => ({
      reason: "fixture_digest" as const,
      message: `snapshot file(s) outside \`[fixtures] paths\`, which ${f.lock} does not guard, changed: ${named(paths)}; ${needsTrailer(commit, key, policy)}`,
      file: paths[0],
      commit: commit.sha,
      author: who(commit),
      fix: `restore the snapshots; a human changes golden files in a commit with \`${key}: human\`, and adds their folder to \`[fixtures] paths\` and runs \`proofgate lock\` so the lock guards them`,
    })),
    ...unapproved(f.inlineSnapshots).map(({ commit, paths, removed }) => ({
      reason: "fixture_digest" as const,
      message: `${removed} inline snapshot(s) (toMatchInlineSnapshot) rewritten or taken away in ${named(paths)}; ${needsTrailer(commit, key, policy)}`,
      file: paths[0],
      commit: commit.sha,
      author: who(commit),
      fix: `restore the inline snapshots (an inline snapshot is a golden file); a human updates them in a commit with \`${key}: human\``,
    })),
  ];
}

/** An empty seed corpus at head. */
export function seedsEmptyFindings(patch: PatchEvidence): Finding[] {
  const s = patch.seeds;
  if (!s || s.filesAtHead > 0) return [];
  return [
    {
      reason: "seeds_empty",
      message: `the seed corpus (${s.dirs.join(", ")}) has no files at head`,
      file: s.dirs[0],
      fix: "restore the seeds from the base: proofgate seeds materialize --ref <base> --out <dir>",
    },
  ];
}

/** Seed files added, changed, renamed or removed without `Property-Seeds: human` on a human commit. */
export function seedRewriteFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const s = patch.seeds;
  if (!s) return [];
  const key = policy.trailers.propertySeeds;
  return s.touching
    .filter(({ commit }) => !hasHumanTrailer(commit, key, policy.agentPatterns))
    .map(({ commit, paths }) => ({
      reason: "seed_rewrite" as const,
      message: `${needsTrailer(commit, key, policy)} and rewrites seeds: ${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}`,
      file: paths[0],
      commit: commit.sha,
      author: who(commit),
      fix: `seeds predate the patch: restore them, or a human changes them with \`${key}: human\``,
    }));
}

/**
 * Property test files added, changed, renamed or removed without `Property-Seeds: human` on a human commit:
 * a lowered `max_examples`, a narrowed strategy or a deleted property passes on the seeds and proves less.
 */
export function propertyTestFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const t = patch.propertyTests;
  if (!t) return [];
  const key = policy.trailers.propertySeeds;
  return t.touching
    .filter(({ commit }) => !hasHumanTrailer(commit, key, policy.agentPatterns))
    .map(({ commit, paths, first }) => ({
      reason: "property_weakened" as const,
      message: `${needsTrailer(commit, key, policy)} and changes property tests, which are judged with the seeds: ${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}`,
      file: first?.path ?? paths[0],
      line: first?.line,
      commit: commit.sha,
      author: who(commit),
      fix: `restore the property tests as they are at the base ${short(patch.base)} (a file the patch added goes); a human who means to change them (fewer examples, a narrower strategy, a property removed, or one added: a new module runs beside the others, and what it does at import, such as loading a Hypothesis profile or replacing a strategy, weakens them too) does so in a commit with \`${key}: human\``,
    }));
}

/** Protected paths touched, and protected sections changed, without `Gate-Change: human` on a human commit. */
export function protectedPathFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const key = policy.trailers.gateChange;
  const unapproved = ({ commit }: { commit: Commit }): boolean => !hasHumanTrailer(commit, key, policy.agentPatterns);
  const paths: Finding[] = patch.protect.touching.filter(unapproved).map(({ commit, paths }) => ({
    reason: "protected_path" as const,
    message: `${needsTrailer(commit, key, policy)} and touches ${paths.slice(0, 5).join(", ")}`,
    file: paths[0],
    commit: commit.sha,
    author: who(commit),
    fix: `CI files and the gate's config change in a human commit with \`${key}: human\``,
  }));
  const sections: Finding[] = (patch.protect.sections ?? []).filter(unapproved).map((t) => {
    const what = t.section === undefined ? t.file : `${t.file} [${t.section}]`;
    const how = t.unreadable
      ? `, which cannot be read (${t.unreadable})`
      : t.keys.length > 0
        ? ` (${t.keys.slice(0, 5).join(", ")}${t.keys.length > 5 ? ", ..." : ""})`
        : "";
    return {
      reason: "protected_path" as const,
      message: `${needsTrailer(t.commit, key, policy)} and changes the test runner's settings in ${what}${how}`,
      file: t.file,
      line: t.line,
      commit: t.commit.sha,
      author: who(t.commit),
      fix: `revert it; the test runner's configuration changes in a human commit with \`${key}: human\``,
    };
  });
  return [...paths, ...sections];
}

/**
 * Human commits that carry a human trailer (any of `[trailers]`) whose signature did not verify, when
 * `[agents] human_signatures = "required"`: the trailer does not count, so the rule it was for fires too.
 */
export function unverifiedTrailerFindings(patch: PatchEvidence, policy: PatchPolicy): Finding[] {
  const keys = [...new Set(Object.values(policy.trailers))];
  const out: Finding[] = [];
  for (const commit of patch.commits) {
    if (commit.signature?.verified !== false) continue;
    const carried = keys.filter((key) => carriesHumanTrailer(commit, key));
    if (carried.length === 0 || classifyCommit(commit, policy.agentPatterns).agent) continue;
    const signers = policy.signatures?.allowedSigners;
    out.push({
      reason: "unverified_human_trailer",
      message: `commit ${short(commit.sha)} by ${who(commit)} carries ${carried.map((k) => `\`${k}: human\``).join(", ")}, which does not count: ${commit.signature.why}`,
      commit: commit.sha,
      author: who(commit),
      fix: signers
        ? `the human signs the commit with an SSH key listed for their email in ${signers} (git commit -S with gpg.format=ssh), or the platform verifies it; adding a key to the allowed signers is itself a human's signed change`
        : "the human signs the commit with a key the platform verifies (or set [agents] allowed_signers to an SSH allowed-signers file, in a human's change)",
    });
  }
  return out;
}

/** A history that cannot reach the base: the range is truncated and is not judged. */
export function shallowFindings(patch: PatchEvidence): Finding[] {
  return patch.shallow ? [{ reason: "shallow_history", message: patch.shallow.message, fix: patch.shallow.fix }] : [];
}

/** The count the article's `agent_added_leases` key reports: leases added without a human's trailer. */
export function agentAddedLeaseCount(patch: PatchEvidence, policy: PatchPolicy): number {
  return patch.ledger.changes
    .filter(({ commit }) => !hasHumanTrailer(commit, policy.trailers.freezeLease, policy.agentPatterns))
    .reduce((n, { changes }) => n + changes.filter((c) => c.kind === "added_lease").length, 0);
}

/** The fixture digest delta: lock entries changed, added or removed between base and head. */
export function fixtureDelta(patch: PatchEvidence): number {
  const d = patch.fixtures?.delta;
  return d ? d.changed.length + d.added.length + d.removed.length : 0;
}

/** A matcher for `[protect] paths` globs (`**` crosses folders; dot files match). */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  return patterns.length === 0 ? () => false : picomatch([...patterns], { dot: true });
}

/**
 * Where the gate learns what the patch did: from git (`check`, `decide --base/--head`), or from the
 * article's manual counts (`decide --agent-added-leases --fixture-delta --human-fixture-lock`).
 */
export type PatchSource =
  | { kind: "git"; patch: PatchEvidence; policy: PatchPolicy }
  | { kind: "counts"; agentAddedLeases: number; fixtureDelta: number; humanFixtureLock: boolean };

/** What the patch did, judged once: the findings of every patch rule and the article's two counts. */
export interface PatchJudgement {
  /** The range judged, when git gave one (also when truncated). */
  evidence?: PatchEvidence | undefined;
  /** The policy it was judged by (agent patterns, trailer names). */
  policy?: PatchPolicy | undefined;
  /** agent_added_lease, agent_extended_lease and agent_loosened_policy, commit by commit. */
  leases: Finding[];
  agentAddedLeases: number;
  fixtureDelta: number;
  unlocked: Finding[];
  fixtureDigest: Finding[];
  seedsEmpty: Finding[];
  seedRewrite: Finding[];
  /** property_weakened: property test files changed without the seeds' trailer. */
  propertyTests: Finding[];
  protectedPaths: Finding[];
  /** unverified_human_trailer: human trailers on commits whose signature did not verify. */
  unverifiedTrailers: Finding[];
  shallow: Finding[];
}

/**
 * Judges the patch. A truncated history (`shallow`) is judged on shallow_history alone: none of its
 * commits may be trusted to be all of them.
 */
export function judgePatch(
  source: PatchSource,
  ledger: { file: string; rejectIfAgentAddsLease: boolean },
  fixturesOff: boolean,
): PatchJudgement {
  const none = {
    unlocked: [],
    seedsEmpty: [],
    seedRewrite: [],
    propertyTests: [],
    protectedPaths: [],
    unverifiedTrailers: [],
    shallow: [],
  };
  if (source.kind === "counts") {
    const { agentAddedLeases, fixtureDelta: delta, humanFixtureLock } = source;
    return {
      ...none,
      agentAddedLeases,
      fixtureDelta: delta,
      leases:
        ledger.rejectIfAgentAddsLease && agentAddedLeases > 0
          ? [
              {
                reason: "agent_added_lease",
                message: `${agentAddedLeases} lease(s) added by an agent`,
                file: ledger.file,
                fix: "a human adds leases, in a commit with the trailer `Freeze-Lease: human`",
              },
            ]
          : [],
      fixtureDigest:
        !fixturesOff && delta > 0 && !humanFixtureLock
          ? [
              {
                reason: "fixture_digest",
                message: `${delta} fixture digest(s) changed without a human lock`,
                fix: "a human updates golden files, in a commit with `Fixture-Lock: human`",
              },
            ]
          : [],
    };
  }
  const { patch, policy } = source;
  if (patch.shallow) {
    return {
      ...none,
      evidence: patch,
      policy,
      leases: [],
      agentAddedLeases: 0,
      fixtureDelta: 0,
      fixtureDigest: [],
      shallow: shallowFindings(patch),
    };
  }
  return {
    evidence: patch,
    policy,
    leases: leaseFindings(patch, policy),
    agentAddedLeases: agentAddedLeaseCount(patch, policy),
    fixtureDelta: fixtureDelta(patch),
    unlocked: unlockedFindings(patch),
    fixtureDigest: fixturesOff ? [] : fixtureDigestFindings(patch, policy),
    seedsEmpty: seedsEmptyFindings(patch),
    seedRewrite: seedRewriteFindings(patch, policy),
    propertyTests: propertyTestFindings(patch, policy),
    protectedPaths: protectedPathFindings(patch, policy),
    unverifiedTrailers: unverifiedTrailerFindings(patch, policy),
    shallow: [],
  };
}

/**
 * What a merge commit answers for, given what it changed against each parent: only what differs from
 * every parent (its own resolution). What it brings in from a merged side is that side's commits' doing
 * (in the range), or was already there (merging the base branch in). A commit with one parent answers
 * for all of it.
 */
export function mergeOwnChanges<T>(perParent: readonly (readonly T[])[], key: (change: T) => string): T[] {
  const [first, ...rest] = perParent;
  const others = rest.map((changes) => new Set(changes.map(key)));
  return (first ?? []).filter((change) => others.every((other) => other.has(key(change))));
}

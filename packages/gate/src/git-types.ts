// What git answers, as the gate's ports hand it over.
import type { GateIssue } from "@proofgate/core";

/** The commits to judge: base..head, both full object names. */
export interface GitRange {
  /** The base commit; its own changes are not the patch's. */
  base: string;
  head: string;
  /** What was asked for: the --base flag, or the default branch the merge-base was taken with. */
  baseRef: string;
  headRef: string;
  /** Whether base came from the flag or from the merge-base with the default branch. */
  baseSource: "flag" | "merge-base";
  /** The clone is shallow, but its history reaches the base: every commit of the range is present. */
  shallow: boolean;
}

/**
 * A resolved range, or `shallow_history` (docs/contract.md §6): the history cannot show every commit of
 * base..head, so nothing about the patch may be judged. The issue carries the fix for the CI.
 */
export type RangeResolution =
  | { ok: true; range: GitRange }
  | { ok: false; issue: GateIssue & { code: "shallow_history"; fix: string }; shallow: boolean };

/** One path a commit changed: git's status letter (A, M, D, R, C, T, U, X), the path, and a rename's or copy's old path. */
export interface ChangedPath {
  status: string;
  /** Git's similarity for R and C (0-100). */
  score?: number | undefined;
  /** The path at the commit (for D, the path that was removed), relative to the repository root. */
  path: string;
  /** For R and C: the path in the parent. */
  oldPath?: string | undefined;
}

/** One entry of a tree listing: a file (mode 100644/100755), a symlink (120000) or a submodule (160000). */
export interface TreeEntry {
  /** Repository-relative, verbatim. */
  path: string;
  /** Git's octal mode, e.g. "100644". */
  mode: string;
  /** "blob", or "commit" for a submodule. */
  type: string;
  objectSha: string;
}

/** One line of a file at head, and the commit of base..head that wrote it (none: it predates the base). */
export interface BlameLine {
  /** 1-based, at head. */
  line: number;
  text: string;
  sha?: string | undefined;
}

/**
 * Which files' added lines to read (GitPort.addedLines): those whose path ends with one of `suffixes`, and
 * those named in `paths`. Git then diffs no other file.
 */
export interface AddedLinesFilter {
  suffixes?: readonly string[];
  paths?: readonly string[];
}

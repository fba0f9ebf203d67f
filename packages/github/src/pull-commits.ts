// https://docs.github.com/en/rest/pulls/pulls#list-commits-on-a-pull-request
import type { GithubClient } from "./client.js";

/** GitHub lists at most 250 commits of a pull request; git has them all. */
export const PULL_COMMITS_LIMIT = 250;

/** A pull request's commit as GitHub reports it. */
export interface PullCommit {
  sha: string;
  /** GitHub verified the commit's signature (`commit.verification.verified`). */
  verified: boolean;
  /** GitHub's reason (`valid`, `unsigned`, `bad_email`, ...). */
  verificationReason: string | undefined;
  /**
   * GitHub signed it itself (committer `web-flow`, `GitHub <noreply@github.com>`): a commit made on
   * github.com or through its API, by whoever holds a token; GitHub vouches for no author then.
   */
  signedByGithub: boolean;
}

/** The pull request's commits from the API, and whether that list can be the whole range. */
export interface PullCommits {
  commits: PullCommit[];
  /** False when GitHub's list stopped at its limit: the range may hold more commits. */
  complete: boolean;
  /** Why the list is incomplete, for the log. */
  note?: string;
}

/**
 * The commits of pull request `number` from `pulls.listCommits`, for a caller that asks for GitHub's
 * view (signature verification). The gate's commits come from git, which has every one: GitHub's list
 * stops at 250, so a list that reaches 250 is reported incomplete and must not stand for the range.
 */
export async function listPullCommits(
  client: GithubClient,
  at: { owner: string; repo: string; number: number },
): Promise<PullCommits> {
  const listed = await client.paginate(client.rest.pulls.listCommits, {
    owner: at.owner,
    repo: at.repo,
    pull_number: at.number,
    per_page: 100,
  });
  const commits = listed.map((c): PullCommit => ({
    sha: c.sha,
    verified: c.commit.verification?.verified === true,
    verificationReason: c.commit.verification?.reason,
    signedByGithub: c.committer?.login === "web-flow" || c.commit.committer?.email === "noreply@github.com",
  }));
  if (commits.length >= PULL_COMMITS_LIMIT) {
    return {
      commits,
      complete: false,
      note: `GitHub lists at most ${PULL_COMMITS_LIMIT} commits of a pull request: this one may have more, so its list cannot stand for the range (git's can)`,
    };
  }
  return { commits, complete: true };
}

/**
 * The extra condition for a human commit (`[agents] human_signatures`): GitHub verified its signature
 * against its committer's registered keys. A commit GitHub signed itself vouches for no author, and a
 * commit GitHub did not list (past the 250 limit) is not verified.
 */
export function verifiedHuman(sha: string, commits: PullCommits): boolean {
  return commits.commits.some((c) => c.sha === sha && c.verified && !c.signedByGithub);
}

/** GitHub's word on one commit, as the gate's `verifiedCommits` reports it. */
export function githubVerdict(sha: string, commits: PullCommits): { sha: string; verified: boolean; detail: string } {
  const c = commits.commits.find((x) => x.sha === sha);
  if (!c)
    return {
      sha,
      verified: false,
      detail: commits.complete
        ? "not among the pull request's commits"
        : `not among the ${PULL_COMMITS_LIMIT} commits GitHub lists of this pull request`,
    };
  if (c.verified && c.signedByGithub)
    return {
      sha,
      verified: false,
      detail: "signed by GitHub itself (web-flow): made on github.com or through its API, which vouches for no author",
    };
  return {
    sha,
    verified: verifiedHuman(sha, commits),
    detail: c.verified
      ? `verified (${c.verificationReason ?? "valid"})`
      : `not verified (${c.verificationReason ?? "no reason given"})`,
  };
}

// Issue comments (a pull request is an issue): https://docs.github.com/en/rest/issues/comments
import { fitText } from "@proofgate/core";
import type { GithubClient } from "./client.js";
import { statusOf } from "./client.js";

/**
 * The hidden first line of proofgate's comment, by which later runs find it. Report text cannot
 * forge it: the Markdown rendering escapes `<`.
 */
export const COMMENT_MARKER = "<!-- proofgate:report (edited in place by every run; do not copy this line) -->";
/** An issue comment holds at most 65536 characters. */
export const COMMENT_LIMIT = 65536;

/** The comment's body: the marker, the Markdown report (trimmed with a note) and a link to the run. */
export function renderComment(markdown: string, runUrl?: string): string {
  const footer = runUrl ? `\n<sub>[proofgate run](${runUrl})</sub>\n` : "";
  const room = COMMENT_LIMIT - COMMENT_MARKER.length - footer.length - 8;
  const body = fitText(markdown, {
    limit: room,
    unit: "bytes",
    note: "\n\n> **proofgate:** trimmed to fit a comment; the job summary holds the whole report.\n",
  }).text;
  return `${COMMENT_MARKER}\n${body}${footer}`;
}

/** A comment as the list answers it: enough to tell whose it is. */
interface ListedComment {
  id: number;
  body?: string | undefined;
  html_url: string;
  user: { login: string; type: string } | null;
}

/**
 * Which listed comment is proofgate's: the oldest with the marker written by an app (GITHUB_TOKEN writes
 * as `github-actions[bot]`), or by `self` (the login of a personal token). Anyone may write the marker
 * into a comment of their own; such a comment is never taken for the gate's.
 */
export function findGateComment(comments: readonly ListedComment[], self?: string): ListedComment | undefined {
  const marked = comments.filter((c) => c.body?.startsWith(COMMENT_MARKER) === true);
  return (
    marked.find((c) => c.user?.type === "Bot") ??
    (self === undefined ? undefined : marked.find((c) => c.user?.login === self))
  );
}

/** Creates proofgate's comment on pull request `number`, or edits the one an earlier run wrote. */
export async function upsertPrComment(
  client: GithubClient,
  at: { owner: string; repo: string; number: number },
  body: string,
): Promise<{ action: "created" | "updated"; id: number; url: string }> {
  const comments: ListedComment[] = await client.paginate(client.rest.issues.listComments, {
    owner: at.owner,
    repo: at.repo,
    issue_number: at.number,
    per_page: 100,
  });
  let found = findGateComment(comments);
  if (found === undefined && comments.some((c) => c.body?.startsWith(COMMENT_MARKER) && c.user?.type !== "Bot")) {
    // A personal token comments as its user: ask who that is (an app token cannot, and answers 403).
    const self = await client.rest.users.getAuthenticated().then(
      (r) => r.data.login,
      (error: unknown) => {
        if (statusOf(error) === 403 || statusOf(error) === 401) return undefined;
        throw error;
      },
    );
    found = findGateComment(comments, self);
  }
  if (found) {
    const updated = await client.rest.issues.updateComment({
      owner: at.owner,
      repo: at.repo,
      comment_id: found.id,
      body,
    });
    return { action: "updated", id: updated.data.id, url: updated.data.html_url };
  }
  const created = await client.rest.issues.createComment({
    owner: at.owner,
    repo: at.repo,
    issue_number: at.number,
    body,
  });
  return { action: "created", id: created.data.id, url: created.data.html_url };
}

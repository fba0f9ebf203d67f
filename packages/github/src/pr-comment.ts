// Issue comments (a pull request is an issue): https://docs.github.com/en/rest/issues/comments
import { DEFAULT_GATE_NAME, fitText } from "@proofgate/core";
import type { GithubClient } from "./client.js";
import { statusOf } from "./client.js";

/**
 * The hidden first line of proofgate's comment, by which later runs find it. Report text cannot
 * forge it: the Markdown rendering escapes `<`.
 */
export const COMMENT_MARKER = "<!-- proofgate:report (edited in place by every run; do not copy this line) -->";

/**
 * The marker of the gate named `name`: COMMENT_MARKER for the default name (so comments from before
 * names existed are still found), else one that names the gate. Two gates on one pull request keep a
 * comment each, because no marker is another's first line.
 */
export function commentMarker(name: string = DEFAULT_GATE_NAME): string {
  return name === DEFAULT_GATE_NAME
    ? COMMENT_MARKER
    : `<!-- proofgate:report:${name} (edited in place by every run; do not copy this line) -->`;
}
/** An issue comment holds at most 65536 characters. */
export const COMMENT_LIMIT = 65536;

/**
 * The comment's body: the marker, the Markdown report (trimmed with a note) and a link to the run. A
 * gate with its own name says it in the footer, so two gates' comments tell themselves apart.
 */
export function renderComment(markdown: string, runUrl?: string, name: string = DEFAULT_GATE_NAME): string {
  const marker = commentMarker(name);
  const gate = name === DEFAULT_GATE_NAME ? "" : `gate \`${name}\``;
  const link = runUrl ? `[proofgate run](${runUrl})` : "";
  const footer = gate || link ? `\n<sub>${[gate, link].filter(Boolean).join(" · ")}</sub>\n` : "";
  const room = COMMENT_LIMIT - marker.length - footer.length - 8;
  const body = fitText(markdown, {
    limit: room,
    unit: "bytes",
    note: "\n\n> **proofgate:** trimmed to fit a comment; the job summary holds the whole report.\n",
  }).text;
  return `${marker}\n${body}${footer}`;
}

/** A comment as the list answers it: enough to tell whose it is. */
interface ListedComment {
  id: number;
  body?: string | undefined;
  html_url: string;
  user: { login: string; type: string } | null;
}

/** Whether `body` is the comment of the gate whose marker is `marker`: its first line is the marker. */
function marks(body: string | undefined, marker: string): boolean {
  return body !== undefined && (body === marker || body.startsWith(`${marker}\n`));
}

/**
 * Which listed comment is proofgate's: the oldest with the marker written by an app (GITHUB_TOKEN writes
 * as `github-actions[bot]`), or by `self` (the login of a personal token). Anyone may write the marker
 * into a comment of their own; such a comment is never taken for the gate's.
 */
export function findGateComment(
  comments: readonly ListedComment[],
  self?: string,
  marker: string = COMMENT_MARKER,
): ListedComment | undefined {
  const marked = comments.filter((c) => marks(c.body, marker));
  return (
    marked.find((c) => c.user?.type === "Bot") ??
    (self === undefined ? undefined : marked.find((c) => c.user?.login === self))
  );
}

/** Creates the gate's comment on pull request `number`, or edits the one an earlier run of it wrote. */
export async function upsertPrComment(
  client: GithubClient,
  at: { owner: string; repo: string; number: number },
  body: string,
  name: string = DEFAULT_GATE_NAME,
): Promise<{ action: "created" | "updated"; id: number; url: string }> {
  const comments: ListedComment[] = await client.paginate(client.rest.issues.listComments, {
    owner: at.owner,
    repo: at.repo,
    issue_number: at.number,
    per_page: 100,
  });
  const marker = commentMarker(name);
  let found = findGateComment(comments, undefined, marker);
  if (found === undefined && comments.some((c) => marks(c.body, marker) && c.user?.type !== "Bot")) {
    // A personal token comments as its user: ask who that is (an app token cannot, and answers 403).
    const self = await client.rest.users.getAuthenticated().then(
      (r) => r.data.login,
      (error: unknown) => {
        if (statusOf(error) === 403 || statusOf(error) === 401) return undefined;
        throw error;
      },
    );
    found = findGateComment(comments, self, marker);
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

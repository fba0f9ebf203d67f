// The thin layer over @gitbeaker/rest: the four calls publishing makes, in proofgate's own types.
// API: commit statuses https://docs.gitlab.com/api/commits/#set-the-pipeline-status-of-a-commit,
// merge request notes https://docs.gitlab.com/api/notes/#merge-requests, the current user
// https://docs.gitlab.com/api/users/#retrieve-the-current-user, a commit's signature
// https://docs.gitlab.com/api/commits/#get-commit-signature.
import { Commits, MergeRequestNotes, Users } from "@gitbeaker/rest";
import { createRequesterFn, GitlabRequestError, type RetryOptions } from "./requester.js";

/** A commit status as proofgate posts it. */
export interface StatusInput {
  projectId: number;
  sha: string;
  state: "success" | "failed";
  name: string;
  description: string;
  targetUrl?: string | undefined;
  coverage?: number | undefined;
  pipelineId?: number | undefined;
}

/** An MR note: its id, author and text. */
export interface NoteSummary {
  id: number;
  authorId: number | undefined;
  body: string;
  system: boolean;
}

/** A commit's signature as GitLab reports it, or that it has none (GitLab answers 404). */
export type CommitSignatureAnswer = { signed: true; type: string; status: string } | { signed: false; detail: string };

/** What publishing needs from GitLab. Tests of the publishing logic may swap it for a fake. */
export interface GitlabApi {
  setStatus: (status: StatusInput) => Promise<void>;
  currentUserId: () => Promise<number>;
  listNotes: (projectId: number, iid: number) => Promise<NoteSummary[]>;
  createNote: (projectId: number, iid: number, body: string) => Promise<number>;
  editNote: (projectId: number, iid: number, noteId: number, body: string) => Promise<void>;
  /** GET /projects/:id/repository/commits/:sha/signature: GitLab's verification of the commit's signature. */
  commitSignature: (projectId: number, sha: string) => Promise<CommitSignatureAnswer>;
}

/** How to reach the API. */
export interface GitlabApiSettings {
  /** `CI_API_V4_URL`, e.g. `https://gitlab.example.com/api/v4` or `https://example.com/gitlab/api/v4`. */
  apiUrl: string;
  token: string;
  fetch?: typeof fetch | undefined;
  retry?: RetryOptions | undefined;
  /** Per request, retries included. Default 30 s. */
  timeoutMs?: number | undefined;
  /** Publishing's deadline: when aborted, every request stops and none is retried. */
  signal?: AbortSignal | undefined;
}

/** gitbeaker builds `<host>/api/v4/...` itself: the host is the API URL without its `/api/v4`. */
export function hostOf(apiUrl: string): string {
  const trimmed = apiUrl.replace(/\/+$/, "");
  if (!/\/api\/v4$/.test(trimmed)) throw new Error(`CI_API_V4_URL ${JSON.stringify(apiUrl)} does not end in /api/v4`);
  return trimmed.slice(0, -"/api/v4".length);
}

const MAX_NOTE_PAGES = 20;

/** The GitLab API through @gitbeaker/rest's resources and proofgate's retrying requester. */
export function createGitlabApi(settings: GitlabApiSettings): GitlabApi {
  const options = {
    host: hostOf(settings.apiUrl),
    token: settings.token,
    queryTimeout: settings.timeoutMs ?? 30_000,
    requesterFn: createRequesterFn({
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
      ...(settings.retry ? { retry: settings.retry } : {}),
      ...(settings.signal ? { signal: settings.signal } : {}),
    }),
  };
  // requesterFn is gitbeaker's documented seam; its option type is not exported from @gitbeaker/rest.
  const commits = new Commits(options as unknown as ConstructorParameters<typeof Commits>[0]);
  const notes = new MergeRequestNotes(options as unknown as ConstructorParameters<typeof MergeRequestNotes>[0]);
  const users = new Users(options as unknown as ConstructorParameters<typeof Users>[0]);
  return {
    setStatus: async (s) => {
      await commits.editStatus(s.projectId, s.sha, s.state, {
        name: s.name,
        description: s.description,
        ...(s.targetUrl !== undefined ? { targetUrl: s.targetUrl } : {}),
        ...(s.coverage !== undefined ? { coverage: s.coverage } : {}),
        ...(s.pipelineId !== undefined ? { pipelineId: s.pipelineId } : {}),
      });
    },
    currentUserId: async () => {
      const user = (await users.showCurrentUser()) as { id?: unknown };
      if (typeof user.id !== "number") throw new Error("GET /user answered without a user id");
      return user.id;
    },
    listNotes: async (projectId, iid) => {
      const list = (await notes.all(projectId, iid, {
        sort: "asc",
        orderBy: "created_at",
        perPage: 100,
        maxPages: MAX_NOTE_PAGES,
      })) as unknown[];
      return list.map((n) => {
        const note = n as { id?: unknown; body?: unknown; system?: unknown; author?: { id?: unknown } };
        return {
          id: Number(note.id),
          authorId: typeof note.author?.id === "number" ? note.author.id : undefined,
          body: typeof note.body === "string" ? note.body : "",
          system: note.system === true,
        };
      });
    },
    createNote: async (projectId, iid, body) => {
      const note = (await notes.create(projectId, iid, body)) as { id?: unknown };
      return Number(note.id);
    },
    editNote: async (projectId, iid, noteId, body) => {
      await notes.edit(projectId, iid, noteId, { body });
    },
    commitSignature: async (projectId, sha) => {
      try {
        const sig = (await commits.showGPGSignature(projectId, sha)) as {
          signature_type?: unknown;
          verification_status?: unknown;
        };
        return {
          signed: true,
          type: typeof sig.signature_type === "string" ? sig.signature_type : "unknown",
          status: typeof sig.verification_status === "string" ? sig.verification_status : "unknown",
        };
      } catch (error) {
        // An unsigned commit is a 404 ("404 GPG Signature Not Found"), as is one GitLab does not have.
        if (GitlabRequestError.isInstance(error) && error.status === 404)
          return { signed: false, detail: error.detail || "404" };
        throw error;
      }
    },
  };
}

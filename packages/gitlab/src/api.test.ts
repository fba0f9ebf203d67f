// The real @gitbeaker/rest client against a GitLab stand-in on 127.0.0.1. Methods, paths and body
// fields are the ones GitLab's API documentation gives: POST /projects/:id/statuses/:sha (state, name,
// target_url, description, coverage, pipeline_id); GET, POST and PUT
// /projects/:id/merge_requests/:merge_request_iid/notes[/:note_id] (sort, order_by; body); GET /user.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createGitlabApi, hostOf } from "./api.js";
import { GitlabRequestError, retryAfterMs } from "./requester.js";
import { startGitlabServer, type GitlabServer, type Handler } from "./__fixtures__/gitlab-server.js";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8"));
const SHA = "18f3e63d05582537db6d183d9d557be09e1f90c8";
const TOKEN = "glpat-test-token";

let server: GitlabServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function apiWith(script: Handler[], retry: { retries?: number } = {}) {
  server = await startGitlabServer(script);
  const sleeps: number[] = [];
  const api = createGitlabApi({
    apiUrl: server.apiUrl,
    token: TOKEN,
    retry: { baseDelayMs: 5, ...retry, sleep: async (ms) => void sleeps.push(ms) },
  });
  return { api, server, sleeps };
}

describe("the GitLab API through @gitbeaker/rest", () => {
  it("posts the commit status: POST /projects/:id/statuses/:sha with the documented fields, JSON, the token in PRIVATE-TOKEN", async () => {
    const { api, server } = await apiWith([() => ({ status: 201, body: fixture("commit-status.json") })]);
    await api.setStatus({
      projectId: 42,
      sha: SHA,
      state: "failed",
      name: "proofgate",
      description: "REJECT: proven 65.20% (floor 70.00%), 1 reason",
      targetUrl: "https://gitlab.example.com/g/p/-/jobs/9",
      coverage: 65.2,
      pipelineId: 8,
    });
    expect(server.seen).toHaveLength(1);
    const [req] = server.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe(`/gitlab/api/v4/projects/42/statuses/${SHA}`);
    expect(req!.headers["private-token"]).toBe(TOKEN);
    expect(req!.contentType).toBe("application/json");
    expect(req!.body).toMatchInlineSnapshot(`
      {
        "coverage": 65.2,
        "description": "REJECT: proven 65.20% (floor 70.00%), 1 reason",
        "name": "proofgate",
        "pipeline_id": 8,
        "state": "failed",
        "target_url": "https://gitlab.example.com/g/p/-/jobs/9",
      }
    `);
  });

  it("lists MR notes oldest first, 100 a page, following the Link header to the next page", async () => {
    const note = fixture("mr-note.json") as Record<string, unknown>;
    const { api, server } = await apiWith([
      (req, base) => ({
        status: 200,
        body: [note],
        headers: {
          link: `<${base}${req.path}?page=2&per_page=100&sort=asc&order_by=created_at>; rel="next"`,
          "x-next-page": "2",
          "x-page": "1",
        },
      }),
      () => ({
        status: 200,
        body: [{ ...note, id: 302, body: "second page", author: { id: 77 } }],
        headers: { "x-page": "2" },
      }),
    ]);
    const notes = await api.listNotes(42, 7);
    expect(notes).toEqual([
      { id: 301, authorId: 1, body: "Comment for MR", system: false },
      { id: 302, authorId: 77, body: "second page", system: false },
    ]);
    expect(server.seen.map((r) => [r.method, r.path])).toEqual([
      ["GET", "/gitlab/api/v4/projects/42/merge_requests/7/notes"],
      ["GET", "/gitlab/api/v4/projects/42/merge_requests/7/notes"],
    ]);
    expect(server.seen[0]!.query).toEqual({ sort: "asc", order_by: "created_at", per_page: "100" });
    expect(server.seen[1]!.query).toMatchObject({ page: "2" });
    expect(server.seen[0]!.body).toBeUndefined();
  });

  it("creates a note (POST, body) and edits one in place (PUT .../notes/:note_id, body)", async () => {
    const { api, server } = await apiWith([
      () => ({ status: 201, body: fixture("mr-note.json") }),
      () => ({ status: 200, body: fixture("mr-note.json") }),
    ]);
    expect(await api.createNote(42, 7, "<!-- m -->\nhello")).toBe(301);
    await api.editNote(42, 7, 301, "<!-- m -->\nagain");
    expect(server.seen.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/gitlab/api/v4/projects/42/merge_requests/7/notes", { body: "<!-- m -->\nhello" }],
      ["PUT", "/gitlab/api/v4/projects/42/merge_requests/7/notes/301", { body: "<!-- m -->\nagain" }],
    ]);
  });

  it("reads the token's user: GET /user", async () => {
    const { api, server } = await apiWith([() => ({ status: 200, body: fixture("current-user.json") })]);
    expect(await api.currentUserId()).toBe(77);
    expect(server.seen.map((r) => [r.method, r.path])).toEqual([["GET", "/gitlab/api/v4/user"]]);
  });

  it("401 fails at once with GitLab's message, no retry", async () => {
    const { api, server, sleeps } = await apiWith([() => ({ status: 401, body: { message: "401 Unauthorized" } })]);
    const error = await api
      .setStatus({ projectId: 42, sha: SHA, state: "success", name: "proofgate", description: "MERGE" })
      .catch((e: unknown) => e);
    expect(GitlabRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      method: "POST",
      message: `POST /gitlab/api/v4/projects/42/statuses/${SHA}: HTTP 401 (401 Unauthorized)`,
    });
    expect(server.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("429 waits what retry-after asks (seconds), then succeeds", async () => {
    const { api, server, sleeps } = await apiWith([
      () => ({ status: 429, body: { message: "Retry later" }, headers: { "retry-after": "3" } }),
      () => ({ status: 201, body: fixture("mr-note.json") }),
    ]);
    expect(await api.createNote(42, 7, "x")).toBe(301);
    expect(sleeps).toEqual([3000]);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.body).toEqual({ body: "x" });
  });

  it("a 500 then success: retried after the backoff, the same request sent again", async () => {
    const { api, server, sleeps } = await apiWith([
      () => ({ status: 500, body: { message: "500 Internal Server Error" } }),
      () => ({ status: 201, body: fixture("commit-status.json") }),
    ]);
    await api.setStatus({ projectId: 42, sha: SHA, state: "success", name: "proofgate", description: "MERGE" });
    expect(sleeps).toEqual([5]);
    expect(server.seen.map((r) => r.body)).toEqual([
      { state: "success", name: "proofgate", description: "MERGE" },
      { state: "success", name: "proofgate", description: "MERGE" },
    ]);
  });

  it("gives up after the retries with the last status", async () => {
    const down = () => ({ status: 503, body: { message: "down" } });
    const { api, server, sleeps } = await apiWith([down, down, down], { retries: 2 });
    await expect(api.currentUserId()).rejects.toMatchObject({ name: "GitlabRequestError", status: 503 });
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toEqual([5, 10]);
  });
});

describe("helpers", () => {
  it("hostOf strips /api/v4, keeping a relative URL root; refuses other URLs", () => {
    expect(hostOf("https://gitlab.example.com/api/v4")).toBe("https://gitlab.example.com");
    expect(hostOf("https://example.com/gitlab/api/v4/")).toBe("https://example.com/gitlab");
    expect(() => hostOf("https://example.com/api/v3")).toThrow(/does not end in \/api\/v4/);
  });

  it("retryAfterMs reads seconds and HTTP dates", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs("soon")).toBeUndefined();
  });
});

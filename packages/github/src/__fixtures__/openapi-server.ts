// A GitHub REST API on 127.0.0.1 for tests: every request is checked against GitHub's published OpenAPI
// description (@octokit/openapi), recorded, and answered the way GitHub answers, with state (check runs,
// comments) and scripted faults (403, 422, 500, secondary rate limits).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  names: string[];
  op: Schema;
}
interface Description {
  operations: Operation[];
  root: Schema;
}

const descriptions = new Map<string, Description>();

/** GitHub's description `name` ("api.github.com", "ghes-3.19"), indexed by method and path. */
function description(name: string): Description {
  const cached = descriptions.get(name);
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const root = require(`@octokit/openapi/generated/${name}.json`) as Schema;
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(root.paths as Record<string, Record<string, Schema>>)) {
    const names: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_m, n: string) => {
      names.push(n);
      return "([^/]+)";
    });
    const literals = template.split("/").filter((s) => s !== "" && !s.startsWith("{")).length;
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "patch", "put", "delete"].includes(method)) continue;
      operations.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), literals, names, op });
    }
  }
  const made = { operations, root };
  descriptions.set(name, made);
  return made;
}

function resolve(root: Schema, schema: Schema): Schema {
  let s = schema;
  while (typeof s.$ref === "string") {
    s = (s.$ref as string)
      .slice(2)
      .split("/")
      .reduce<Schema>((o, k) => o[k.replace(/~1/g, "/").replace(/~0/g, "~")] as Schema, root);
  }
  return s;
}

/** Violations of `schema` by `value` (a subset of JSON Schema: the keywords GitHub's request bodies use). */
export function validate(root: Schema, schemaIn: Schema, value: unknown, where: string): string[] {
  const schema = resolve(root, schemaIn);
  const out: string[] = [];
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf as Schema[]) out.push(...validate(root, s, value, where));
  for (const key of ["oneOf", "anyOf"] as const) {
    if (Array.isArray(schema[key]) && !(schema[key] as Schema[]).some((s) => validate(root, s, value, where).length === 0)) out.push(`${where}: matches none of ${key}`);
  }
  if (value === null) {
    if (schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes("null")) || schema.type === "null") return out;
    if (schema.type !== undefined) out.push(`${where}: null is not ${JSON.stringify(schema.type)}`);
    return out;
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const actual = Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length > 0 && !types.some((t) => t === actual || (t === "number" && actual === "integer"))) {
    out.push(`${where}: ${actual} is not ${types.join(" or ")}`);
    return out;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) out.push(`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.maxLength === "number" && length > schema.maxLength) out.push(`${where}: ${length} characters, more than maxLength ${schema.maxLength}`);
    if (typeof schema.minLength === "number" && length < schema.minLength) out.push(`${where}: shorter than minLength ${schema.minLength}`);
    if (schema.format === "date-time" && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) out.push(`${where}: ${value} is not a date-time`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) out.push(`${where}: ${value.length} items, more than maxItems ${schema.maxItems}`);
    if (typeof schema.minItems === "number" && value.length < schema.minItems) out.push(`${where}: fewer than minItems ${schema.minItems}`);
    if (schema.items) value.forEach((v, i) => out.push(...validate(root, schema.items as Schema, v, `${where}[${i}]`)));
  }
  if (actual === "object") {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) out.push(`${where}: lacks required ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) out.push(...validate(root, props[k]!, v, `${where}.${k}`));
      // Stricter than the description: a property it does not name is a mistake in proofgate.
      else if (schema.properties !== undefined && schema.additionalProperties === undefined) out.push(`${where}.${k}: not in GitHub's description`);
      else if (typeof schema.additionalProperties === "object") out.push(...validate(root, schema.additionalProperties as Schema, v, `${where}.${k}`));
    }
  }
  return out;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  operationId: string | undefined;
  query: Record<string, string>;
  body: unknown;
  status: number;
  token: string | undefined;
}

/** A scripted answer. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
  issue: number;
}

/** Tokens the fake knows: an Actions token that may write, a read-only one, and a personal token. */
export const TOKENS = { write: "ghs_write", readOnly: "ghs_read_only", personal: "ghp_personal" } as const;

/** The fake GitHub and what it saw. */
export interface FakeGithub {
  /** The API root to put in `GITHUB_API_URL`. */
  url: string;
  requests: RecordedRequest[];
  /** Requests that GitHub's description does not allow: a test expects none. */
  violations: string[];
  checkRuns: Map<number, { body: Record<string, unknown>; annotations: unknown[] }>;
  comments: Comment[];
  /** Commits the repository has (a check run on another is a 422, as on GitHub). */
  commits: Set<string>;
  /** Commits of the pull request that `pulls.listCommits` serves. */
  pullCommits: { sha: string; verified: boolean; reason?: string; webFlow?: boolean }[];
  /** Answers `operationId`'s next requests with these, in order, before the normal answer. */
  script: (operationId: string, ...answers: Answer[]) => void;
  close: () => Promise<void>;
}

const RATE_HEADERS = () => ({
  "x-ratelimit-limit": "5000",
  "x-ratelimit-remaining": "4990",
  "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
  "x-ratelimit-used": "10",
  "x-ratelimit-resource": "core",
  "x-github-api-version-selected": "2022-11-28",
});

/** GitHub's answer to a write with a token that may not write. */
export const FORBIDDEN: Answer = { status: 403, body: { message: "Resource not accessible by integration", documentation_url: "https://docs.github.com/rest/checks/runs#create-a-check-run", status: "403" } };
/** GitHub's secondary rate limit, with the wait it asks for. */
export const SECONDARY_LIMIT: Answer = {
  status: 403,
  headers: { "retry-after": "1" },
  body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", documentation_url: "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", status: "403" },
};
/** A server error. */
export const SERVER_ERROR: Answer = { status: 500, body: { message: "Server Error" } };

/**
 * Starts the fake on 127.0.0.1. `spec` picks the description ("api.github.com"; "ghes-3.19" serves
 * under `/api/v3`, as GitHub Enterprise Server does).
 */
export async function startFakeGithub(options: { spec?: string; owner?: string; repo?: string } = {}): Promise<FakeGithub> {
  const spec = options.spec ?? "api.github.com";
  const prefix = spec.startsWith("ghes") ? "/api/v3" : "";
  const { operations, root } = description(spec);
  const fullName = `${options.owner ?? "acme"}/${options.repo ?? "widgets"}`;
  const scripts = new Map<string, Answer[]>();
  let nextId = 1000;
  const state: Omit<FakeGithub, "url" | "close" | "script"> = { requests: [], violations: [], checkRuns: new Map(), comments: [], commits: new Set(), pullCommits: [] };

  const html = (path: string) => `https://github.example/${fullName}${path}`;
  const commentJson = (c: Comment) => ({
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `http://api.example/repos/${fullName}/issues/comments/${c.id}`,
    html_url: html(`/pull/${c.issue}#issuecomment-${c.id}`),
    issue_url: `http://api.example/repos/${fullName}/issues/${c.issue}`,
    body: c.body,
    user: { login: c.user.login, id: c.user.type === "Bot" ? 41898282 : 583231, type: c.user.type, site_admin: false },
    author_association: c.user.type === "Bot" ? "NONE" : "CONTRIBUTOR",
    created_at: "2026-03-01T10:00:00Z",
    updated_at: "2026-03-01T10:00:00Z",
  });
  const checkJson = (id: number) => {
    const run = state.checkRuns.get(id)!;
    const b = run.body;
    const output = (b.output ?? {}) as Record<string, unknown>;
    return {
      id,
      node_id: `CR_${id}`,
      head_sha: b.head_sha,
      external_id: b.external_id ?? "",
      url: `http://api.example/repos/${fullName}/check-runs/${id}`,
      html_url: html(`/runs/${id}`),
      details_url: b.details_url ?? null,
      status: b.status ?? "queued",
      conclusion: b.conclusion ?? null,
      started_at: "2026-03-01T10:00:00Z",
      completed_at: b.completed_at ?? null,
      name: b.name,
      output: { title: output.title ?? null, summary: output.summary ?? null, text: output.text ?? null, annotations_count: run.annotations.length, annotations_url: `http://api.example/repos/${fullName}/check-runs/${id}/annotations` },
      check_suite: { id: 5 },
      app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
      pull_requests: [],
    };
  };

  function answer(op: Operation, params: Record<string, string>, query: Record<string, string>, body: Record<string, unknown>, token: string | undefined, base: string): Answer {
    const id = op.op.operationId as string;
    const write = op.method !== "GET";
    if (params.owner !== undefined && `${params.owner}/${params.repo}` !== fullName) return { status: 404, body: { message: "Not Found", status: "404" } };
    if (write && token === TOKENS.readOnly) return FORBIDDEN;
    const page = Number(query.page ?? "1");
    const perPage = Math.min(100, Number(query.per_page ?? "30"));
    const paged = <T>(items: T[], path: string): Answer => {
      const last = Math.max(1, Math.ceil(items.length / perPage));
      const links: string[] = [];
      const link = (p: number, rel: string) => `<${base}${path}?per_page=${perPage}&page=${p}>; rel="${rel}"`;
      if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
      if (page > 1) links.push(link(1, "first"), link(page - 1, "prev"));
      return { status: 200, body: items.slice((page - 1) * perPage, page * perPage), headers: links.length ? { link: links.join(", ") } : {} };
    };
    switch (id) {
      case "checks/create": {
        if (!state.commits.has(String(body.head_sha))) return { status: 422, body: { message: `No commit found for SHA: ${String(body.head_sha)}`, documentation_url: "https://docs.github.com/rest/checks/runs#create-a-check-run", status: "422" } };
        const runId = nextId++;
        const annotations = ((body.output as Record<string, unknown> | undefined)?.annotations as unknown[] | undefined) ?? [];
        state.checkRuns.set(runId, { body, annotations: [...annotations] });
        return { status: 201, body: checkJson(runId) };
      }
      case "checks/update": {
        const run = state.checkRuns.get(Number(params.check_run_id));
        if (!run) return { status: 404, body: { message: "Not Found", status: "404" } };
        const output = body.output as Record<string, unknown> | undefined;
        run.annotations.push(...(((output?.annotations as unknown[] | undefined) ?? []) as unknown[]));
        run.body = { ...run.body, ...body, output: { ...((run.body.output as object) ?? {}), ...(output ?? {}) } };
        return { status: 200, body: checkJson(Number(params.check_run_id)) };
      }
      case "issues/list-comments":
        return paged(state.comments.filter((c) => c.issue === Number(params.issue_number)).map(commentJson), `/repos/${fullName}/issues/${params.issue_number}/comments`);
      case "issues/create-comment": {
        const user = token === TOKENS.personal ? { login: "maintainer", type: "User" } : { login: "github-actions[bot]", type: "Bot" };
        const c: Comment = { id: nextId++, body: String(body.body), user, issue: Number(params.issue_number) };
        state.comments.push(c);
        return { status: 201, body: commentJson(c) };
      }
      case "issues/update-comment": {
        const c = state.comments.find((x) => x.id === Number(params.comment_id));
        if (!c) return { status: 404, body: { message: "Not Found", status: "404" } };
        c.body = String(body.body);
        return { status: 200, body: commentJson(c) };
      }
      case "users/get-authenticated":
        if (token !== TOKENS.personal) return { status: 403, body: { message: "Resource not accessible by integration", status: "403" } };
        return { status: 200, body: { login: "maintainer", id: 583231, type: "User" } };
      case "pulls/list-commits": {
        // GitHub serves at most 250 commits of a pull request, whatever the page.
        // A web-flow commit: GitHub signed it itself, as it does for commits made on github.com or through its API.
        const committer = (c: { webFlow?: boolean }) => (c.webFlow ? { name: "GitHub", email: "noreply@github.com", date: "2026-12-01T12:00:00Z" } : { name: "Ada Lovelace", email: "ada@example.org", date: "2026-12-01T12:00:00Z" });
        const listed = state.pullCommits.slice(0, 250).map((c) => ({ sha: c.sha, node_id: `C_${c.sha}`, committer: c.webFlow ? { login: "web-flow", id: 19864447, type: "User" } : null, commit: { message: "m", committer: committer(c), verification: { verified: c.verified, reason: c.reason ?? (c.verified ? "valid" : "unsigned"), signature: null, payload: null } } }));
        return paged(listed, `/repos/${fullName}/pulls/${params.pull_number}/commits`);
      }
      default:
        return { status: 404, body: { message: `the fake does not serve ${id}` } };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
    const method = req.method ?? "GET";
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const auth = req.headers.authorization;
    const token = auth ? auth.replace(/^(token|bearer)\s+/i, "") : undefined;
    const record: RecordedRequest = { method, path, operationId: undefined, query, body: undefined, status: 0, token };
    state.requests.push(record);
    const send = (a: Answer) => {
      record.status = a.status;
      res.writeHead(a.status, { "content-type": "application/json; charset=utf-8", "x-github-request-id": `FAKE:${state.requests.length}`, ...RATE_HEADERS(), ...(a.headers ?? {}) });
      res.end(a.body === undefined ? "" : JSON.stringify(a.body));
    };
    const violation = (message: string) => {
      state.violations.push(`${method} ${url.pathname}: ${message}`);
      send({ status: 400, body: { message: `proofgate's fake GitHub: ${message}` } });
    };
    if (prefix && !url.pathname.startsWith(prefix)) return violation(`GitHub Enterprise Server serves the API under ${prefix}`);
    const matches = operations.filter((o) => o.method === method && o.pattern.test(path)).sort((a, b) => b.literals - a.literals);
    const op = matches[0];
    if (!op) return violation("no such operation in GitHub's description");
    record.operationId = op.op.operationId as string;
    const values = op.pattern.exec(path)!.slice(1).map(decodeURIComponent);
    const params = Object.fromEntries(op.names.map((n, i) => [n, values[i]!]));
    const problems: string[] = [];
    if (!token) problems.push("no authorization header");
    if (!/application\/vnd\.github/.test(String(req.headers.accept ?? ""))) problems.push(`accept ${String(req.headers.accept)} is not GitHub's media type`);
    const declared = ((op.op.parameters ?? []) as Schema[]).map((p) => resolve(root, p));
    for (const p of declared) {
      const value = p.in === "path" ? params[p.name as string] : p.in === "query" ? query[p.name as string] : undefined;
      if (p.in === "path" || p.in === "query") {
        if (value === undefined) {
          if (p.required === true) problems.push(`lacks ${p.in} parameter ${String(p.name)}`);
          continue;
        }
        const schema = resolve(root, (p.schema ?? {}) as Schema);
        const typed = schema.type === "integer" ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
        problems.push(...validate(root, schema, typed, `${p.in} ${String(p.name)}`));
      }
    }
    for (const q of Object.keys(query)) if (!declared.some((p) => p.in === "query" && p.name === q)) problems.push(`query ${q} is not a parameter of ${record.operationId}`);
    let body: Record<string, unknown> = {};
    const content = op.op.requestBody ? ((resolve(root, op.op.requestBody as Schema).content as Record<string, Schema>)["application/json"]?.schema as Schema | undefined) : undefined;
    if (raw !== "") {
      if (!/application\/json/.test(String(req.headers["content-type"] ?? ""))) problems.push("a body that is not application/json");
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
        record.body = body;
      } catch {
        problems.push("a body that is not JSON");
      }
      if (!content) problems.push(`a body for ${record.operationId}, which takes none`);
      else problems.push(...validate(root, content, body, "body"));
    } else if (content && (resolve(root, op.op.requestBody as Schema).required === true)) {
      problems.push("no body, which is required");
    }
    if (problems.length > 0) return violation(problems.join("; "));
    const scripted = scripts.get(record.operationId)?.shift();
    send(scripted ?? answer(op, params, query, body, token, base));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      state.violations.push(`the fake crashed: ${String(error)}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return {
    ...state,
    url: `http://127.0.0.1:${port}${prefix}`,
    script: (operationId, ...answers) => scripts.set(operationId, [...(scripts.get(operationId) ?? []), ...answers]),
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

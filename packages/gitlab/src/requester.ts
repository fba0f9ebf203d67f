// The HTTP layer under @gitbeaker/rest's resources (its `requesterFn` option). gitbeaker 43.8's own
// layer retries only 429 and 502, ten times within about a quarter second, and never reads
// `retry-after`; GitLab's rate limits answer 429 with `retry-after` in seconds
// (https://docs.gitlab.com/security/rate_limits/), and a 500 or 503 of a busy instance deserves a
// second try. The resources (paths, parameters, pagination) stay gitbeaker's.

/** Retry policy for the GitLab API. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** First backoff when the server gives no `retry-after`, doubled each time. Default 1000 ms. */
  baseDelayMs?: number;
  /** The longest wait honoured, from `retry-after` or backoff. Default 60 s. */
  maxDelayMs?: number;
  /** Waits `ms`; tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

/** A GitLab API request that failed for good: its status (0 when no response came) and GitLab's message. */
export class GitlabRequestError extends Error {
  override readonly name = "GitlabRequestError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${method} ${path}: ${status === 0 ? "no response" : `HTTP ${status}`}${detail ? ` (${detail})` : ""}`,
      options,
    );
  }

  /** True for a GitlabRequestError, across bundles. */
  static isInstance(error: unknown): error is GitlabRequestError {
    return (
      error instanceof Error &&
      error.name === "GitlabRequestError" &&
      typeof (error as { status?: unknown }).status === "number"
    );
  }
}

/** What gitbeaker's BaseResource hands a requester factory (requester-utils' ResourceOptions, the part used here). */
interface ServiceOptions {
  url: string;
  headers?: Record<string, string>;
  authHeaders?: Record<string, () => Promise<string>>;
}

/** What gitbeaker's RequestHelper passes with each request. */
interface RequestOptions {
  body?: unknown;
  searchParams?: Record<string, unknown>;
  sudo?: string | number;
  signal?: AbortSignal;
  asStream?: boolean;
}

/** What RequestHelper expects back. */
interface ResponseBodyTypes {
  body: unknown;
  headers: Record<string, string>;
  status: number;
}

type Method = "get" | "post" | "put" | "patch" | "delete";
type Requester = Record<Method, (endpoint: string, options?: RequestOptions) => Promise<ResponseBodyTypes>>;

const RETRYABLE = (status: number): boolean => status === 429 || status >= 500;

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** gitbeaker's resources take camelCase options; GitLab's API reads snake_case (xcase's decamelizeKeys). */
function decamelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decamelize);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [snake(k), decamelize(v)]),
    );
  }
  return value;
}

function query(params: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null) continue;
    if (typeof value === "object") throw new TypeError(`query parameter ${key} must be a string, number or boolean`);
    search.append(snake(key), String(value));
  }
  return search.toString();
}

/** The wait a `retry-after` header asks for: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const text = await response.text();
  if (type === "application/json") return text === "" ? {} : (JSON.parse(text) as unknown);
  return text;
}

function errorDetail(body: unknown): string {
  if (typeof body === "string") return body.slice(0, 200);
  if (body && typeof body === "object") {
    const b = body as { message?: unknown; error?: unknown };
    const m = b.message ?? b.error;
    return (typeof m === "string" ? m : JSON.stringify(m ?? body)).slice(0, 200);
  }
  return "";
}

/**
 * A `requesterFn` for @gitbeaker/rest that sends with `fetch` and retries 429 (waiting what
 * `retry-after` asks, up to `maxDelayMs`), 5xx and network failures with backoff.
 */
export function createRequesterFn(
  settings: { fetch?: typeof fetch; retry?: RetryOptions; signal?: AbortSignal } = {},
): (service: ServiceOptions) => Requester {
  const retries = settings.retry?.retries ?? 3;
  const baseDelayMs = settings.retry?.baseDelayMs ?? 1000;
  const maxDelayMs = settings.retry?.maxDelayMs ?? 60_000;
  const deadline = settings.signal;
  // The default wait ends early at publishing's deadline: a pending back-off would hold the job open.
  const sleep =
    settings.retry?.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          deadline?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        deadline?.addEventListener("abort", done, { once: true });
      }));
  return (service) => {
    const send = async (method: Method, endpoint: string, options: RequestOptions = {}): Promise<ResponseBodyTypes> => {
      const doFetch = settings.fetch ?? globalThis.fetch;
      const base = service.url.endsWith("/") ? service.url : `${service.url}/`;
      const url = new URL(endpoint, base);
      url.search = query(options.searchParams);
      const headers: Record<string, string> = { ...service.headers };
      if (options.sudo !== undefined) headers.sudo = String(options.sudo);
      for (const [name, value] of Object.entries(service.authHeaders ?? {})) headers[name] = await value();
      let body: string | undefined;
      if (
        options.body !== undefined &&
        method !== "get" &&
        !(method === "delete" && Object.keys(options.body as object).length === 0)
      ) {
        body = JSON.stringify(decamelize(options.body));
        headers["content-type"] = "application/json";
      }
      // gitbeaker's per-request timeout, and publishing's deadline (past it, no retry starts either).
      const signals = [options.signal, settings.signal].filter((x): x is AbortSignal => x !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const verb = method.toUpperCase();
      const path = url.pathname;
      for (let attempt = 0; ; attempt += 1) {
        let response: Response;
        try {
          response = await doFetch(url, {
            method: verb,
            headers,
            ...(body === undefined ? {} : { body }),
            ...(signal ? { signal } : {}),
          });
        } catch (error) {
          if (signal?.aborted || attempt >= retries)
            throw new GitlabRequestError(verb, path, 0, error instanceof Error ? error.message : String(error), {
              cause: error,
            });
          await sleep(Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
          continue;
        }
        if (response.ok) {
          return {
            body: await readBody(response),
            headers: Object.fromEntries(response.headers.entries()),
            status: response.status,
          };
        }
        const failed = await readBody(response).catch(() => "");
        if (!RETRYABLE(response.status) || attempt >= retries || signal?.aborted)
          throw new GitlabRequestError(verb, path, response.status, errorDetail(failed));
        const asked = retryAfterMs(response.headers.get("retry-after"));
        await sleep(Math.min(maxDelayMs, asked ?? baseDelayMs * 2 ** attempt));
      }
    };
    return {
      get: (endpoint, options) => send("get", endpoint, options),
      post: (endpoint, options) => send("post", endpoint, options),
      put: (endpoint, options) => send("put", endpoint, options),
      patch: (endpoint, options) => send("patch", endpoint, options),
      delete: (endpoint, options) => send("delete", endpoint, options),
    };
  };
}

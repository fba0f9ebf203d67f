import { Octokit } from "@octokit/rest";
import { retry } from "@octokit/plugin-retry";
import { throttling, type ThrottlingOptions } from "@octokit/plugin-throttling";

// Typed as the plain REST client: the plugins add behaviour, and no method proofgate calls.
const GithubOctokit: typeof Octokit = Octokit.plugin(retry, throttling);

/** The REST client proofgate publishes with: @octokit/rest with retries and rate-limit handling. */
export type GithubClient = Octokit;

/** How long the client waits; production values by default, small ones in tests. */
export interface GithubClientTiming {
  /** Milliseconds per second of `retry-after`, and per step of the retry back-off (1000). */
  retryAfterBaseMs?: number;
  /** GitHub asks integrators to leave a second between writes, three after a notifying one such as a comment (true); tests turn it off. */
  spaceWrites?: boolean;
  /** A rate limit that asks for a longer wait than this (seconds) fails the step instead (60). */
  maxWaitSeconds?: number;
  /** Each request's time limit in milliseconds (30000). */
  requestTimeoutMs?: number;
}

/** Settings of `createGithubClient`. */
export interface GithubClientOptions extends GithubClientTiming {
  token: string;
  /** The REST API's root (`GITHUB_API_URL`). */
  baseUrl: string;
  /** A line for the log (retries, rate limits). */
  log: (line: string) => void;
  /** The fetch to use (tests may record); the global fetch by default. */
  fetch?: typeof fetch;
  userAgent?: string;
  /** Publishing's deadline: when aborted, every request stops and none is retried. */
  signal?: AbortSignal | undefined;
}

// The write group without spacing, in the shape the throttling plugin schedules on (Bottleneck.Group).
const UNSPACED = {
  key: () => ({ schedule: (_options: unknown, job: () => Promise<unknown>) => job() }),
} as unknown as NonNullable<ThrottlingOptions["write"]>;

/**
 * A client for `baseUrl` with `token`. Server errors (5xx) are retried with back-off; a rate limit is
 * waited out once (twice for a secondary limit) when GitHub asks for no more than `maxWaitSeconds`.
 */
export function createGithubClient(options: GithubClientOptions): GithubClient {
  const base = options.retryAfterBaseMs ?? 1000;
  const maxWait = options.maxWaitSeconds ?? 60;
  const timeout = options.requestTimeoutMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const deadline = options.signal;
  const limitedFetch: typeof fetch = (input, init) => {
    const signals = [
      AbortSignal.timeout(timeout),
      ...(init?.signal ? [init.signal] : []),
      ...(deadline ? [deadline] : []),
    ];
    return doFetch(input, { ...init, signal: AbortSignal.any(signals) });
  };
  const throttle: ThrottlingOptions = {
    retryAfterBaseValue: base,
    onRateLimit: (retryAfter, request, _octokit, retryCount) => {
      const again = retryCount < 1 && retryAfter <= maxWait;
      options.log(
        `GitHub's rate limit on ${request.method} ${request.url}: ${again ? `retrying in ${retryAfter} s` : `not waiting ${retryAfter} s`}`,
      );
      return again;
    },
    onSecondaryRateLimit: (retryAfter, request, _octokit, retryCount) => {
      const again = retryCount < 2 && retryAfter <= maxWait;
      options.log(
        `GitHub's secondary rate limit on ${request.method} ${request.url}: ${again ? `retrying in ${retryAfter} s` : `not waiting ${retryAfter} s`}`,
      );
      return again;
    },
  };
  if (options.spaceWrites === false) {
    throttle.write = UNSPACED;
    throttle.notifications = UNSPACED;
  }
  const client = new GithubOctokit({
    auth: options.token,
    baseUrl: options.baseUrl,
    userAgent: options.userAgent ?? "proofgate",
    request: { fetch: limitedFetch },
    retry: { retryAfterBaseValue: base },
    throttle,
    // A failed request is reported once, by the step that made it; octokit's own error lines would repeat it.
    log: { debug: () => {}, info: () => {}, warn: (message: string) => options.log(message), error: () => {} },
  });
  if (deadline) {
    // Past the deadline no request starts, and the retry plugin (which reads `request.retries` when a
    // request fails) waits for no further attempt: its back-off timer would hold the job open.
    client.hook.wrap("request", (request, requestOptions) => {
      const settings = ((requestOptions as { request?: Record<string, unknown> }).request ??= {});
      const stop = () => (settings.retries = 0);
      if (deadline.aborted) {
        stop();
        throw deadline.reason instanceof Error ? deadline.reason : new Error("publishing timed out");
      }
      deadline.addEventListener("abort", stop, { once: true });
      return Promise.resolve(request(requestOptions)).finally(() => deadline.removeEventListener("abort", stop));
    });
  }
  return client;
}

/** An HTTP status from a failed request, when it has one. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** One line for a failed request: status and GitHub's message. */
export function describeRequestError(error: unknown): string {
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return status === undefined ? message : `HTTP ${status}: ${message}`;
}

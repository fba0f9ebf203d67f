// GitHub Actions' environment and event payloads:
// https://docs.github.com/en/actions/reference/workflows-and-actions/variables#default-environment-variables
// https://docs.github.com/en/webhooks/webhook-events-and-payloads
import { isFullSha, type CiContext, type Env } from "@proofgate/core";

/** The events proofgate reads a range from; any other event judges `GITHUB_SHA` against git's merge-base. */
export const GITHUB_EVENTS = [
  "pull_request",
  "pull_request_target",
  "merge_group",
  "push",
  "workflow_dispatch",
] as const;

/** What a GitHub Actions run tells about itself, beyond the normalised context. */
export interface GithubRun {
  context: CiContext;
  /** `GITHUB_EVENT_NAME`. */
  event: string | undefined;
  /** The REST API's root: `GITHUB_API_URL` (GitHub Enterprise Server: `https://HOST/api/v3`). */
  apiUrl: string;
  /** The web root: `GITHUB_SERVER_URL`. */
  serverUrl: string;
  /** The pull request comes from another repository (a fork): its workflows get a read-only token. */
  fork: boolean;
  /** The pull request's author, as the payload names them (`user.type` is `Bot` for apps such as Dependabot). */
  prAuthor?: { login: string; type: string } | undefined;
  /** `GITHUB_ACTOR`: who triggered the run. */
  actor: string | undefined;
  /** What the run's setup means for the gate, one line each (pull_request_target's write token, an unreadable payload). */
  notes: string[];
}

/** True in GitHub Actions (`GITHUB_ACTIONS=true`). */
export function detectGithub(env: Env): boolean {
  return env.GITHUB_ACTIONS === "true";
}

type Json = Record<string, unknown>;

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Json)[key];
  }
  return current;
}

/** A full commit id, never the all-zero "no commit" of a created or deleted branch. */
function sha(value: unknown): string | undefined {
  return isFullSha(value) ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function branch(ref: unknown): string | undefined {
  const name = text(ref);
  return name?.startsWith("refs/heads/") ? name.slice("refs/heads/".length) : name;
}

function readEvent(
  env: Env,
  readFile: ((path: string) => string | undefined) | undefined,
  notes: string[],
): Json | undefined {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return undefined;
  const raw = readFile?.(path);
  if (raw === undefined) {
    notes.push(`the event payload ${path} (GITHUB_EVENT_PATH) is unreadable: base and head come from flags or git`);
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // reported below
  }
  notes.push(
    `the event payload ${path} (GITHUB_EVENT_PATH) is not a JSON object: base and head come from flags or git`,
  );
  return undefined;
}

/** The run's web page: `SERVER/OWNER/REPO/actions/runs/ID`, with the attempt when it is a re-run. */
export function runUrl(env: Env): string | undefined {
  const server = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
  const repo = env.GITHUB_REPOSITORY;
  const id = env.GITHUB_RUN_ID;
  if (!repo || !id || !/^\d+$/.test(id)) return undefined;
  const attempt = env.GITHUB_RUN_ATTEMPT;
  return `${server}/${repo}/actions/runs/${id}${attempt && /^\d+$/.test(attempt) && attempt !== "1" ? `/attempts/${attempt}` : ""}`;
}

/**
 * Reads the run from the Actions environment and its event payload. A pull request's `GITHUB_SHA` is
 * GitHub's test merge of the head into the base branch, not the head: the head (the commit the check
 * run belongs on, and the last commit the patch's author wrote) is `pull_request.head.sha`, and it is
 * never replaced by `GITHUB_SHA` when the payload cannot say.
 */
export function readGithubRun(env: Env, readFile?: (path: string) => string | undefined): GithubRun {
  const notes: string[] = [];
  const event = text(env.GITHUB_EVENT_NAME);
  const payload = readEvent(env, readFile, notes);
  const repo = text(env.GITHUB_REPOSITORY);
  const context: CiContext = { provider: "github" };
  if (repo !== undefined) context.repo = repo;
  const buildUrl = runUrl(env);
  if (buildUrl !== undefined) context.buildUrl = buildUrl;
  let fork = false;
  let prAuthor: GithubRun["prAuthor"];

  if (event === "pull_request" || event === "pull_request_target") {
    const pr = at(payload, "pull_request");
    context.base = sha(at(pr, "base", "sha"));
    context.head = sha(at(pr, "head", "sha"));
    const number = at(pr, "number") ?? at(payload, "number");
    if (typeof number === "number" && Number.isSafeInteger(number) && number > 0) context.change = number;
    context.targetBranch = text(at(pr, "base", "ref")) ?? text(env.GITHUB_BASE_REF);
    const headRepo = text(at(pr, "head", "repo", "full_name"));
    const baseRepo = text(at(pr, "base", "repo", "full_name")) ?? repo;
    // A deleted fork has no head repo: it was not this repository either.
    fork = pr !== undefined && (headRepo === undefined || headRepo !== baseRepo);
    const login = text(at(pr, "user", "login"));
    if (login !== undefined) prAuthor = { login, type: text(at(pr, "user", "type")) ?? "User" };
    if (event === "pull_request_target") {
      notes.push(
        "pull_request_target runs with the base repository's write token: never check out and run the pull request's code in this job (proofgate check --run runs the patch's commands); use pull_request for the gate",
      );
    }
    if (payload !== undefined && context.head === undefined)
      notes.push(
        `the ${event} payload has no pull_request.head.sha: the head comes from flags or git (GITHUB_SHA is a test merge, not the head)`,
      );
  } else if (event === "merge_group") {
    const group = at(payload, "merge_group");
    context.base = sha(at(group, "base_sha"));
    context.head = sha(at(group, "head_sha")) ?? sha(env.GITHUB_SHA);
    context.targetBranch = branch(at(group, "base_ref"));
  } else if (event === "push") {
    // `before` is the branch's previous tip: all zeros when the push created the branch.
    context.base = payload?.created === true ? undefined : sha(at(payload, "before"));
    context.head = sha(at(payload, "after")) ?? sha(env.GITHUB_SHA);
    context.targetBranch = text(at(payload, "repository", "default_branch"));
  } else {
    context.head = sha(env.GITHUB_SHA);
    context.targetBranch = text(at(payload, "repository", "default_branch"));
  }
  for (const key of Object.keys(context) as (keyof CiContext)[]) if (context[key] === undefined) delete context[key];
  return {
    context,
    event,
    apiUrl: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    serverUrl: (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, ""),
    fork,
    prAuthor,
    actor: text(env.GITHUB_ACTOR),
    notes,
  };
}

/** `owner/name` split, or undefined when it is not one. */
export function splitRepo(repo: string | undefined): { owner: string; repo: string } | undefined {
  const m = repo === undefined ? null : /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo);
  return m ? { owner: m[1]!, repo: m[2]! } : undefined;
}

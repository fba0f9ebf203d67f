import { appendFileSync, readFileSync, statSync } from "node:fs";
import type {
  CiContext,
  CommitVerification,
  Env,
  Platform,
  PublishableReport,
  PublishOutcome,
  PublishTools,
  VerifyTools,
} from "@proofgate/core";
import { checkRunAnnotations, reportAnnotations } from "./annotations.js";
import { publishCheckRun, renderCheckRun } from "./check-run.js";
import {
  createGithubClient,
  describeRequestError,
  statusOf,
  type GithubClient,
  type GithubClientTiming,
} from "./client.js";
import { detectGithub, readGithubRun, splitRepo, type GithubRun } from "./context.js";
import { githubVerdict, listPullCommits, type PullCommits } from "./pull-commits.js";
import { renderJobSummary } from "./job-summary.js";
import { renderComment, upsertPrComment } from "./pr-comment.js";
import { annotationCommand } from "./workflow-commands.js";

/** Settings of `createGithubPlatform`; the defaults are the real ones. */
export interface GithubPlatformOptions {
  /** Reads the event payload (`GITHUB_EVENT_PATH`); undefined when it cannot. */
  readFile?: (path: string) => string | undefined;
  /** The client's waits (tests make them short). */
  timing?: GithubClientTiming;
  /** The fetch the client uses. */
  fetch?: typeof fetch;
  /** The clock for the check run's `completed_at`. */
  now?: () => Date;
}

/** The token to publish with: `PROOFGATE_GITHUB_TOKEN` (a token of your choice), else `GITHUB_TOKEN`. */
export function githubToken(env: Env): string | undefined {
  return env.PROOFGATE_GITHUB_TOKEN || env.GITHUB_TOKEN || undefined;
}

/** Set by proofgate's action (apps/github-action/main.mjs): the token comes from its `token` input, not `env`. */
const ACTION_MARKER = "PROOFGATE_GITHUB_ACTION";

/** What is missing, in the words of where the token comes from. */
function noToken(env: Env): string {
  return env[ACTION_MARKER] === "1"
    ? "no token: the action's `token` input is empty"
    : "no GITHUB_TOKEN or PROOFGATE_GITHUB_TOKEN";
}

/** How to give the run a token: the action's input under the action, the job's environment otherwise. */
function tokenFix(env: Env): string {
  return env[ACTION_MARKER] === "1"
    ? "give the action `with: token: ${{ github.token }}` (its default) or a token of your own"
    : "pass `env: GITHUB_TOKEN: ${{ github.token }}`";
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Why a token may not write, for the one-line note. */
function readOnlyWhy(run: GithubRun): string {
  if (run.fork) return "a pull request from a fork gets a read-only GITHUB_TOKEN";
  if (run.actor === "dependabot[bot]" || run.prAuthor?.login === "dependabot[bot]")
    return "Dependabot's runs get a read-only GITHUB_TOKEN";
  return "the token lacks the permission (give the job `permissions: checks: write, pull-requests: write`)";
}

/** A 403 that is a missing permission, not a rate limit (which the client already waited out). */
function isForbidden(error: unknown): boolean {
  return statusOf(error) === 403 && !/rate limit/i.test(error instanceof Error ? error.message : "");
}

function appendStepSummary(path: string, markdown: string): number {
  let existing = 0;
  try {
    existing = statSync(path).size;
  } catch {
    // a file the runner has not created yet
  }
  const text = renderJobSummary(markdown, existing, "report.md in proofgate's out dir");
  appendFileSync(path, text);
  return Buffer.byteLength(text, "utf8");
}

/**
 * Publishes `report`: the job summary, workflow annotations, the check run, then the PR comment. Each
 * step's failure is one line in `failures`; none changes the decision or the exit code. Without a
 * token, or with a read-only one, only the first two happen, and the log says why.
 */
async function publish(
  report: PublishableReport,
  context: CiContext,
  tools: PublishTools,
  options: GithubPlatformOptions & { run: (env: Env) => GithubRun },
): Promise<PublishOutcome> {
  const published: string[] = [];
  const failures: string[] = [];
  const run = options.run(tools.env);
  for (const note of run.notes) tools.log(`note: ${note}`);
  const annotations = reportAnnotations(report.gate);

  const summaryPath = tools.env.GITHUB_STEP_SUMMARY;
  if (summaryPath) {
    try {
      const bytes = appendStepSummary(summaryPath, report.markdown);
      published.push(`job summary (${bytes} bytes)`);
    } catch (error) {
      failures.push(
        `the job summary (GITHUB_STEP_SUMMARY=${summaryPath}) could not be written: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  } else {
    tools.log("note: GITHUB_STEP_SUMMARY is not set: no job summary");
  }

  try {
    tools.stdout(
      annotations
        .map((a) =>
          annotationCommand({
            level: a.level === "failure" ? "error" : a.level,
            file: a.path,
            line: a.line,
            title: a.title,
            message: a.message,
          }),
        )
        .join(""),
    );
    if (annotations.length > 0)
      published.push(`${annotations.length} workflow annotation${annotations.length === 1 ? "" : "s"}`);
    // The runner shows 10 error and 10 warning annotations per step; the check run carries every one.
    if (annotations.length > 10)
      tools.log(
        `note: GitHub shows the first 10 annotations of each level on the run; the check run and the summary list all ${annotations.length}`,
      );
  } catch (error) {
    failures.push(
      `the workflow annotations could not be printed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  const token = githubToken(tools.env);
  if (!token) {
    tools.log(
      `note: ${noToken(tools.env)}: the job summary and annotations only, no check run or comment (${tokenFix(tools.env)} to publish them)`,
    );
    return { published, failures };
  }
  const repo = splitRepo(context.repo);
  if (!repo) {
    failures.push(
      `no check run or comment: the repository ${JSON.stringify(context.repo ?? "")} is not owner/name (GITHUB_REPOSITORY)`,
    );
    return { published, failures };
  }
  const client: GithubClient = createGithubClient({
    token,
    baseUrl: run.apiUrl,
    log: tools.log,
    ...options.timing,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    signal: tools.signal,
  });

  let readOnly = false;
  if (context.head === undefined) {
    failures.push(
      "no check run: the head commit is unknown (a pull request's GITHUB_SHA is a test merge, not the head); pass --head",
    );
  } else {
    try {
      // The reasons' annotations, then one notice per frozen-only range within the cap.
      const checks = checkRunAnnotations(report.gate);
      const plan = renderCheckRun(report, checks.annotations, {
        headSha: context.head,
        detailsUrl: context.buildUrl,
        now: (options.now ?? (() => new Date()))(),
        name: tools.name,
        note: checks.note,
      });
      const check = await publishCheckRun(client, repo, plan);
      published.push(`check run ${check.url}`);
      if (checks.frozenOnly.ranges > 0)
        tools.log(
          `note: ${checks.frozenOnly.annotated} of ${checks.frozenOnly.ranges} frozen-only ranges annotated on the check run (at most ${checks.frozenOnly.cap})`,
        );
    } catch (error) {
      if (isForbidden(error)) {
        readOnly = true;
        tools.log(
          `note: the token cannot write a check run (${readOnlyWhy(run)}): the job summary and annotations only`,
        );
      } else {
        failures.push(`the check run on ${context.head.slice(0, 12)} failed: ${describeRequestError(error)}`);
      }
    }
  }

  if (!tools.comment) {
    tools.log("note: --no-comment: no PR comment");
  } else if (context.change !== undefined && !readOnly) {
    try {
      const comment = await upsertPrComment(
        client,
        { ...repo, number: context.change },
        renderComment(report.markdown, context.buildUrl, tools.name),
        tools.name,
      );
      published.push(`PR comment ${comment.url} (${comment.action})`);
    } catch (error) {
      if (isForbidden(error))
        tools.log(
          `note: the token cannot comment on pull request #${context.change} (${readOnlyWhy(run)}): no PR comment`,
        );
      else failures.push(`the PR comment on #${context.change} failed: ${describeRequestError(error)}`);
    }
  }
  return { published, failures };
}

/**
 * GitHub's verification of the pull request's commits (`pulls.listCommits`, `commit.verification`), for
 * `[agents] human_signatures`. Throws, saying why, when it cannot ask: no token, no repository, not a
 * pull request, or the API failed.
 */
async function verifiedCommits(
  context: CiContext,
  shas: readonly string[],
  tools: VerifyTools,
  options: GithubPlatformOptions & { run: (env: Env) => GithubRun },
): Promise<CommitVerification[]> {
  const token = githubToken(tools.env);
  if (!token)
    throw new Error(
      `${noToken(tools.env)} to read the pull request's commits (${tokenFix(tools.env)}, with \`pull-requests: read\`)`,
    );
  const repo = splitRepo(context.repo);
  if (!repo) throw new Error(`the repository ${JSON.stringify(context.repo ?? "")} is not owner/name`);
  if (context.change === undefined)
    throw new Error("this run is not a pull request's: GitHub's verification is read from a pull request's commits");
  const client = createGithubClient({
    token,
    baseUrl: options.run(tools.env).apiUrl,
    log: tools.log,
    ...options.timing,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let listed: PullCommits;
  try {
    listed = await listPullCommits(client, { ...repo, number: context.change });
  } catch (error) {
    throw new Error(`pulls.listCommits on #${context.change} failed: ${describeRequestError(error)}`, { cause: error });
  }
  if (listed.note) tools.log(`note: ${listed.note}`);
  return shas.map((sha) => githubVerdict(sha, listed));
}

/** The GitHub platform with `options` (tests inject the clock, waits and payload reader). */
export function createGithubPlatform(options: GithubPlatformOptions = {}): Platform {
  // The event payload is read once per environment: the context and publishing share it.
  const runs = new WeakMap<Env, GithubRun>();
  const run = (env: Env, readFile?: (path: string) => string | undefined): GithubRun => {
    let found = runs.get(env);
    if (!found) runs.set(env, (found = readGithubRun(env, readFile ?? options.readFile ?? readOptional)));
    return found;
  };
  return {
    provider: "github",
    detect: detectGithub,
    context: (env, readFile) => run(env, readFile).context,
    publish: (report, context, tools) => publish(report, context, tools, { ...options, run: (env) => run(env) }),
    shallowHistoryFix: "GitHub Actions: give actions/checkout `with: fetch-depth: 0`",
    artifacts: [],
    verifiedCommits: (context, shas, tools) =>
      verifiedCommits(context, shas, tools, { ...options, run: (env) => run(env) }),
  };
}

/** proofgate on GitHub Actions: context from the event, then summary, annotations, check run and comment. */
export const githubPlatform: Platform = createGithubPlatform();

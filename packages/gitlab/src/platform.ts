import {
  DEFAULT_GATE_NAME,
  fitText,
  publishedDecision,
  type CommitVerification,
  type VerifyTools,
  type CiContext,
  type Env,
  type Platform,
  type PublishableReport,
  type PublishOutcome,
  type PublishTools,
} from "@proofgate/core";
import { createGitlabApi, type CommitSignatureAnswer, type GitlabApi, type GitlabApiSettings } from "./api.js";
import { CODE_QUALITY_FILE, codeQualityReport } from "./code-quality.js";
import { PROVEN_COBERTURA_FILE, provenCobertura } from "./cobertura.js";
import { detectGitlab, gitlabContext, gitlabPipeline } from "./context.js";
import { DOTENV_FILE, dotenvReport } from "./dotenv-report.js";
import { JUNIT_FILE, junitReport } from "./junit-report.js";
import type { RetryOptions } from "./requester.js";

/** The commit status's name for the default gate name: branch protection and MR checks refer to it. A named gate's status is its name. */
export const STATUS_NAME = "proofgate";

/** The first line of proofgate's MR note: how a later run finds the note to edit. Hidden when rendered. */
export const NOTE_MARKER = "<!-- proofgate:gitlab:mr-note -->";

/** The note marker of the gate named `name`: NOTE_MARKER for the default name, else one naming the gate. */
export function noteMarker(name: string = DEFAULT_GATE_NAME): string {
  return name === DEFAULT_GATE_NAME ? NOTE_MARKER : `<!-- proofgate:gitlab:mr-note:${name} -->`;
}

/** GitLab's limit for a note body. */
const MAX_NOTE_CHARS = 1_000_000;

/** Settings of {@link createGitlabPlatform}; the defaults suit a GitLab CI job. */
export interface GitlabPlatformOptions {
  /** Replaces `fetch` for the API (the default is the global one, looked up at call time). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Per API request. Default 30 s. */
  timeoutMs?: number;
  /** Builds the API client; tests of the publishing logic pass a fake. */
  api?: (settings: GitlabApiSettings) => GitlabApi;
}

/** The API token: `PROOFGATE_GITLAB_TOKEN`, else `GITLAB_TOKEN` (a token with the api scope). */
export function apiToken(env: Env): string | undefined {
  for (const name of ["PROOFGATE_GITLAB_TOKEN", "GITLAB_TOKEN"]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * The line GitLab's `coverage:` regex reads. Printed even when proven coverage was not computed, as
 * 0.00%: GitLab takes the last matching line of the job log, and the log also holds output the patch
 * controls (its tests print what they like), so the gate's own line must always be there.
 */
export function coverageLine(report: PublishableReport): string {
  const pct = report.gate.provenCoveragePercent;
  return pct === null || !Number.isFinite(pct)
    ? "Proven coverage: 0.00% (not measured: the gate could not compute it)"
    : `Proven coverage: ${pct.toFixed(2)}%`;
}

/** The commit status's description: the decision and three numbers (proven coverage, its floor, reasons). */
export function statusDescription(report: PublishableReport): string {
  const view = report.gate;
  const proven =
    view.provenCoveragePercent === null
      ? "proven coverage not measured"
      : `proven ${view.provenCoveragePercent.toFixed(2)}%`;
  const floor = view.minProvenCoveragePercent === null ? "" : ` (floor ${view.minProvenCoveragePercent.toFixed(2)}%)`;
  const reasons = `${view.reasons.length} reason${view.reasons.length === 1 ? "" : "s"}`;
  return `${report.exitCode === 2 ? "REJECT (could not evaluate)" : view.decision}: ${proven}${floor}, ${reasons}`.slice(
    0,
    255,
  );
}

/** The MR note: the hidden marker, then the Markdown report (cut at a line if it is too long for GitLab). */
export function noteBody(
  report: PublishableReport,
  jobUrl: string | undefined,
  name: string = DEFAULT_GATE_NAME,
): string {
  const marker = noteMarker(name);
  const gate = name === DEFAULT_GATE_NAME ? "" : `\n---\nGate \`${name}\`.\n`;
  const footer =
    gate +
    (jobUrl ? `\n---\n[The job](${encodeURI(jobUrl)}) · the full report is the job's \`report.md\` artifact.\n` : "");
  const room = MAX_NOTE_CHARS - marker.length - footer.length - 1;
  const { text: markdown } = fitText(report.markdown, {
    limit: room,
    unit: "chars",
    note: "\n\n*(cut: too long for a GitLab note)*\n",
  });
  return `${marker}\n${markdown}${footer}`;
}

async function step(
  outcome: PublishOutcome,
  what: string,
  run: () => Promise<string | undefined> | string | undefined,
): Promise<void> {
  try {
    const published = await run();
    if (published) outcome.published.push(published);
  } catch (error) {
    outcome.failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * GitLab's word on one commit. Only `verified` counts: `verified_system` is GitLab's own signature on a
 * commit made in its web editor or API, whose author is whatever the caller wrote, and every other
 * status (`unverified`, `other_user`, `same_user_different_email`, `unverified_key`, ...) says the key
 * does not vouch for the committer.
 */
export function gitlabVerdict(sha: string, answer: CommitSignatureAnswer): CommitVerification {
  if (!answer.signed) return { sha, verified: false, detail: `not signed (${answer.detail})` };
  if (answer.status === "verified") return { sha, verified: true, detail: `${answer.type} signature verified` };
  if (answer.status === "verified_system")
    return {
      sha,
      verified: false,
      detail:
        "signed by GitLab itself (verified_system): made in GitLab's web editor or API, which vouches for no author",
    };
  return { sha, verified: false, detail: `${answer.type} signature not verified (${answer.status})` };
}

/**
 * GitLab's verification of commits (the commit signature endpoint, one request per commit), for
 * `[agents] human_signatures`. Throws, saying why, when it cannot ask.
 */
async function verifiedCommits(
  shas: readonly string[],
  tools: VerifyTools,
  options: GitlabPlatformOptions,
): Promise<CommitVerification[]> {
  const token = apiToken(tools.env);
  if (token === undefined)
    throw new Error(
      "no PROOFGATE_GITLAB_TOKEN or GITLAB_TOKEN to read commit signatures (a project access token with read_api)",
    );
  const pipeline = gitlabPipeline(tools.env);
  if (pipeline.apiUrl === undefined || pipeline.projectId === undefined)
    throw new Error("CI_API_V4_URL and CI_PROJECT_ID are needed to read commit signatures: run inside a GitLab CI job");
  const api = (options.api ?? createGitlabApi)({
    apiUrl: pipeline.apiUrl,
    token,
    fetch: options.fetch,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
  });
  const out: CommitVerification[] = [];
  for (const sha of shas) out.push(gitlabVerdict(sha, await api.commitSignature(pipeline.projectId, sha)));
  return out;
}

/**
 * proofgate on GitLab. Publishing writes the Code Quality, JUnit, dotenv and proven Cobertura reports into the out
 * dir, logs the coverage line, then posts the commit status on the head and the one MR note. Every
 * step that fails is one line in `failures`; none changes the decision or the exit code.
 */
export function createGitlabPlatform(options: GitlabPlatformOptions = {}): Platform {
  const makeApi = options.api ?? createGitlabApi;
  return {
    provider: "gitlab",
    detect: detectGitlab,
    context: (env) => gitlabContext(env),
    shallowHistoryFix: "GitLab CI: set the variable `GIT_DEPTH: 0`",
    artifacts: [CODE_QUALITY_FILE, JUNIT_FILE, DOTENV_FILE, PROVEN_COBERTURA_FILE],
    verifiedCommits: (_context, shas, tools) => verifiedCommits(shas, tools, options),
    publish: async (report: PublishableReport, context: CiContext, tools: PublishTools): Promise<PublishOutcome> => {
      const outcome: PublishOutcome = { published: [], failures: [] };
      await step(outcome, `writing ${CODE_QUALITY_FILE}`, () =>
        tools.writeArtifact(CODE_QUALITY_FILE, codeQualityReport(report.gate)),
      );
      await step(outcome, `writing ${JUNIT_FILE}`, () => tools.writeArtifact(JUNIT_FILE, junitReport(report.gate)));
      await step(outcome, `writing ${DOTENV_FILE}`, () => tools.writeArtifact(DOTENV_FILE, dotenvReport(report)));
      // The MR diff's line coverage: the proven lines, frozen tests left out (an empty report without line data).
      await step(outcome, `writing ${PROVEN_COBERTURA_FILE}`, () =>
        tools.writeArtifact(
          PROVEN_COBERTURA_FILE,
          provenCobertura(report.gate, {
            sourceRoot: tools.env.CI_PROJECT_DIR
              ? `${tools.env.CI_PROJECT_DIR}${report.gate.root ? `/${report.gate.root}` : ""}`
              : report.gate.root,
          }),
        ),
      );
      // To stderr, which GitLab's job log holds too: stdout carries the report in --format json or markdown.
      tools.log(coverageLine(report));

      const pipeline = gitlabPipeline(tools.env);
      const token = apiToken(tools.env);
      if (token === undefined) {
        const why = tools.env.CI_JOB_TOKEN
          ? "CI_JOB_TOKEN can post neither commit statuses nor MR notes"
          : "no API token";
        outcome.failures.push(
          `${why}: set PROOFGATE_GITLAB_TOKEN (a project access token with the api scope) as a masked CI/CD variable; the report artifacts were written`,
        );
        return outcome;
      }
      const missing = [
        pipeline.apiUrl === undefined ? "CI_API_V4_URL" : "",
        pipeline.projectId === undefined ? "CI_PROJECT_ID" : "",
        context.head === undefined ? "the head commit (CI_COMMIT_SHA or --head)" : "",
      ].filter(Boolean);
      if (missing.length > 0) {
        outcome.failures.push(
          `cannot reach the GitLab API without ${missing.join(", ")}: run proofgate check inside a GitLab CI job`,
        );
        return outcome;
      }
      const projectId = pipeline.projectId!;
      let api: GitlabApi;
      try {
        api = makeApi({
          apiUrl: pipeline.apiUrl!,
          token,
          fetch: options.fetch,
          retry: options.retry,
          timeoutMs: options.timeoutMs,
          signal: tools.signal,
        });
      } catch (error) {
        outcome.failures.push(`GitLab API: ${error instanceof Error ? error.message : String(error)}`);
        return outcome;
      }

      const head = context.head!;
      const statusName = tools.name ?? STATUS_NAME;
      // The out dir that holds report.json holds these too: when they could not be written, the job
      // does not end as a clean MERGE, so neither does the status.
      const unwritten = outcome.failures.length > 0;
      await step(outcome, `commit status ${statusName} on ${head.slice(0, 12)}`, async () => {
        const merge = publishedDecision(report) === "MERGE" && !unwritten;
        const coverage = report.gate.provenCoveragePercent;
        await api.setStatus({
          projectId,
          sha: head,
          state: merge ? "success" : "failed",
          name: statusName,
          description: unwritten
            ? `${statusDescription(report)}; the report could not be written`.slice(0, 255)
            : statusDescription(report),
          targetUrl: pipeline.jobUrl !== undefined && pipeline.jobUrl.length <= 255 ? pipeline.jobUrl : undefined,
          coverage: coverage === null || !Number.isFinite(coverage) ? undefined : Number(coverage.toFixed(2)),
          // Only a pipeline that runs on the head itself can hold its status (not a merged-results one).
          pipelineId: pipeline.pipelineSha === head ? pipeline.pipelineId : undefined,
        });
        return `commit status ${statusName}: ${merge ? "success" : "failed"} on ${head.slice(0, 12)}`;
      });

      const iid = context.change;
      if (!tools.comment) tools.log("--no-comment: the MR note is left as it is");
      else if (iid === undefined) tools.log("no merge request (a branch pipeline): no MR note");
      else {
        await step(outcome, `MR !${iid} note`, async () => {
          const body = noteBody(report, pipeline.jobUrl, tools.name);
          const marker = noteMarker(tools.name);
          const me = await api.currentUserId();
          // Only our own note, and this gate's: anyone may write the marker into a note of theirs, and a
          // marker is compared as the whole first line, so no gate's name takes another's note.
          const mine = (await api.listNotes(projectId, iid)).find(
            (n) => !n.system && n.authorId === me && n.body.split("\n", 1)[0] === marker,
          );
          if (mine) {
            await api.editNote(projectId, iid, mine.id, body);
            return `MR !${iid} note ${mine.id} updated`;
          }
          const id = await api.createNote(projectId, iid, body);
          return `MR !${iid} note ${id} created`;
        });
      }
      return outcome;
    },
  };
}

/** proofgate's GitLab platform with the default client and retry policy. */
export const gitlabPlatform: Platform = createGitlabPlatform();

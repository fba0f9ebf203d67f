// The checks API: https://docs.github.com/en/rest/checks/runs
import { fitText, publishedDecision, type PublishableReport } from "@proofgate/core";
import type { GateAnnotation } from "./annotations.js";
import type { GithubClient } from "./client.js";

/** The check run's name on the commit, for the default gate name (a named gate's check run is its name). */
export const CHECK_RUN_NAME = "proofgate";
/** The checks API takes at most 50 annotations per request; later ones go in updates, which append. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** `output.summary` and `output.text` hold at most 65535 characters; trimmed in UTF-8 bytes, which is never more. */
export const CHECK_OUTPUT_LIMIT = 65535;

/** One annotation as the checks API takes it. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  title: string;
  message: string;
}

/** A check run's output. */
export interface CheckOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckAnnotation[];
}

/** The request bodies of one check run: `checks.create`, then one `checks.update` per further batch. */
export interface CheckRunPlan {
  create: {
    name: string;
    head_sha: string;
    status: "completed";
    conclusion: "success" | "failure";
    completed_at: string;
    details_url?: string;
    external_id?: string;
    output: CheckOutput;
  };
  updates: { output: CheckOutput }[];
}

/** A fence that no run of backticks in `body` can close. */
function fenced(body: string, lang: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${body}${body.endsWith("\n") ? "" : "\n"}${fence}\n`;
}

/** The check run's title: the decision and its reason codes (proofgate's words only). */
export function checkRunTitle(report: PublishableReport): string {
  if (report.exitCode === 2) return "REJECT: the gate could not evaluate";
  if (report.gate.decision === "MERGE") return "MERGE";
  return `REJECT: ${report.gate.reasons.join(", ") || "see the summary"}`.slice(0, 1000);
}

/**
 * The check run for `report` on `headSha`: success on MERGE, failure otherwise (REJECT or could not
 * evaluate). The summary is the Markdown report, the text the JSON report; both trimmed with a note.
 * Annotations with a path go out 50 per request, in the order given (the reasons before any notice).
 */
export function renderCheckRun(
  report: PublishableReport,
  annotations: readonly GateAnnotation[],
  at: {
    headSha: string;
    detailsUrl?: string | undefined;
    now: Date;
    name?: string | undefined;
    /** A line of proofgate's own after the summary (annotations left out); kept whole when the summary is trimmed. */
    note?: string | undefined;
  },
): CheckRunPlan {
  const title = checkRunTitle(report);
  const tail = at.note ? `\n> **proofgate:** ${at.note}\n` : "";
  const summary =
    fitText(report.markdown, {
      limit: CHECK_OUTPUT_LIMIT - Buffer.byteLength(tail, "utf8"),
      unit: "bytes",
      note: "\n\n> **proofgate:** the summary was trimmed to fit the check run; the job summary and report.md hold the whole report.\n",
    }).text + tail;
  const jsonNote = "\n(trimmed: the whole report is report.json in the out dir)\n";
  // The JSON is cut before it is fenced, so the closing fence always survives.
  const json = fitText(report.json, { limit: CHECK_OUTPUT_LIMIT - 64, unit: "bytes", note: jsonNote }).text;
  const text = fenced(json, "json");
  const pinned = annotations
    .filter((a): a is GateAnnotation & { path: string } => a.path !== undefined)
    .map((a): CheckAnnotation => ({
      path: a.path,
      start_line: a.line ?? 1,
      end_line: a.endLine ?? a.line ?? 1,
      annotation_level: a.level,
      title: a.title,
      message: fitText(a.message, { limit: 60_000, unit: "bytes", note: " ..." }).text,
    }));
  const batches: CheckAnnotation[][] = [];
  for (let i = 0; i < pinned.length; i += ANNOTATIONS_PER_REQUEST)
    batches.push(pinned.slice(i, i + ANNOTATIONS_PER_REQUEST));
  const output = (batch: CheckAnnotation[] | undefined): CheckOutput => ({
    title,
    summary,
    ...(batch ? { annotations: batch } : {}),
  });
  const create: CheckRunPlan["create"] = {
    name: at.name ?? CHECK_RUN_NAME,
    head_sha: at.headSha,
    status: "completed",
    conclusion: publishedDecision(report) === "MERGE" ? "success" : "failure",
    completed_at: at.now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    output: { ...output(batches[0]), text },
  };
  if (at.detailsUrl) create.details_url = at.detailsUrl;
  return { create, updates: batches.slice(1).map((batch) => ({ output: output(batch) })) };
}

/** Creates the check run and sends the later annotation batches; returns its page. */
export async function publishCheckRun(
  client: GithubClient,
  repo: { owner: string; repo: string },
  plan: CheckRunPlan,
): Promise<{ id: number; url: string; requests: number }> {
  const created = await client.rest.checks.create({ ...repo, ...plan.create });
  for (const update of plan.updates)
    await client.rest.checks.update({ ...repo, check_run_id: created.data.id, ...update });
  return { id: created.data.id, url: created.data.html_url ?? created.data.url, requests: 1 + plan.updates.length };
}

// The report on Buildkite: one annotation (context `proofgate`, so a re-run replaces it; style by
// decision) and two meta-data keys for later steps. Through `buildkite-agent`; where the job has no
// agent, the annotation goes through the REST API when a token is given, else a one-line note.
// Every step's failure is reported and none changes the decision or the exit code (docs/contract.md §9).
import {
  DEFAULT_GATE_NAME,
  fitText,
  publishedDecision,
  type PublishOutcome,
  type PublishTools,
  type PublishableReport,
} from "@proofgate/core";
import { agentRunner, describeAgentFailure, type AgentRunner } from "./agent.js";
import { createAnnotation, restSettings } from "./rest.js";

/** The annotation's context for the default gate name: one per build, replaced on every run. A named gate's context is its name. */
export const ANNOTATION_CONTEXT = "proofgate";

/** Buildkite's limit on an annotation body, in bytes. */
export const MAX_ANNOTATION_BYTES = 1024 * 1024;

/** The meta-data keys the gate named `name` sets: `<name>:decision` and `<name>:proven_coverage`. */
export function metaDataKeys(name: string = DEFAULT_GATE_NAME): { decision: string; provenCoverage: string } {
  return { decision: `${name}:decision`, provenCoverage: `${name}:proven_coverage` };
}

/** The meta-data keys proofgate sets under the default gate name. */
export const META_DATA_KEYS = { decision: "proofgate:decision", provenCoverage: "proofgate:proven_coverage" } as const;

/** Injected for tests: the agent runner and fetch. Default: the real binary on the job's PATH, global fetch. */
export interface BuildkitePublishOptions {
  runAgent?: AgentRunner | undefined;
  fetch?: typeof fetch | undefined;
}

/** The meta-data value of proven coverage: two decimals, or `none` when it was not measured (a value cannot be empty). */
export function provenCoverageValue(provenCoverage: number | null): string {
  return provenCoverage === null || !Number.isFinite(provenCoverage) ? "none" : provenCoverage.toFixed(2);
}

const TRIM_NOTE =
  "\n\n> **This annotation was trimmed** to fit Buildkite's 1 MiB limit. The whole report is `report.md` (and `report.json`) in proofgate's out dir.\n";

/** The Markdown within Buildkite's limit (core's `fitText`, in bytes), with a note when it was cut. */
export function fitAnnotation(markdown: string, maxBytes = MAX_ANNOTATION_BYTES): { body: string; trimmed: boolean } {
  const { text, trimmed } = fitText(markdown, { limit: maxBytes, unit: "bytes", note: TRIM_NOTE });
  return { body: text, trimmed };
}

/** The annotation body: the report's Markdown, with a first line when its MERGE is not the run's answer. */
function annotationBody(report: PublishableReport): string {
  if (report.gate.decision === "MERGE" && report.exitCode !== 0) {
    return `> **proofgate exited ${report.exitCode}: this run is not a MERGE.** The job log says why.\n\n${report.markdown}`;
  }
  return report.markdown;
}

/** Publishes the report to the Buildkite build this job belongs to. Never throws for a publishing failure. */
export async function publishToBuildkite(
  report: PublishableReport,
  tools: PublishTools,
  options: BuildkitePublishOptions = {},
): Promise<PublishOutcome> {
  const run = options.runAgent ?? agentRunner(tools.env, undefined, tools.signal);
  const outcome: PublishOutcome = { published: [], failures: [] };
  const decision = publishedDecision(report);
  const style = decision === "MERGE" ? "success" : "error";
  const { body, trimmed } = fitAnnotation(annotationBody(report));
  if (trimmed) tools.log(`the annotation was trimmed to Buildkite's 1 MiB limit; the whole report is report.md`);

  const context = tools.name ?? ANNOTATION_CONTEXT;
  const keys = metaDataKeys(context);
  const annotated = await run(["annotate", "--style", style, "--context", context], body);
  if (annotated.missing) {
    await publishWithoutAgent(body, style, tools, options, outcome);
    return outcome;
  }
  if (annotated.code === 0 && annotated.signal === null && annotated.error === undefined)
    outcome.published.push(`annotation ${context} (${style})`);
  else outcome.failures.push(`buildkite-agent annotate ${describeAgentFailure(annotated)}`);

  const values: [string, string][] = [
    [keys.decision, decision],
    [keys.provenCoverage, provenCoverageValue(report.gate.provenCoveragePercent)],
  ];
  for (const [key, value] of values) {
    const set = await run(["meta-data", "set", key, value]);
    if (set.missing)
      outcome.failures.push(`buildkite-agent meta-data set ${key}: buildkite-agent is no longer on PATH`);
    else if (set.code === 0 && set.signal === null && set.error === undefined)
      outcome.published.push(`meta-data ${key}=${value}`);
    else outcome.failures.push(`buildkite-agent meta-data set ${key} ${describeAgentFailure(set)}`);
  }
  return outcome;
}

/** No agent in this job: the annotation through the REST API when a token is given, else a note. Meta-data needs the agent. */
async function publishWithoutAgent(
  body: string,
  style: "success" | "error",
  tools: PublishTools,
  options: BuildkitePublishOptions,
  outcome: PublishOutcome,
): Promise<void> {
  const settings = restSettings(tools.env);
  if (!settings.ok && !settings.tokenGiven) {
    tools.log(
      `buildkite-agent is not on PATH and ${settings.why}: no annotation or meta-data was published (the report is report.md in the out dir)`,
    );
    return;
  }
  if (!settings.ok) {
    outcome.failures.push(`buildkite-agent is not on PATH, and the REST fallback cannot run: ${settings.why}`);
    return;
  }
  const context = tools.name ?? ANNOTATION_CONTEXT;
  const keys = metaDataKeys(context);
  try {
    const url = await createAnnotation(settings, { body, style, context }, options.fetch ?? fetch, tools.signal);
    outcome.published.push(`annotation ${context} (${style}) via ${url}`);
  } catch (error) {
    outcome.failures.push(`the REST annotation failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  tools.log(
    `buildkite-agent is not on PATH: meta-data ${keys.decision} and ${keys.provenCoverage} were not set (only the agent can set meta-data)`,
  );
}

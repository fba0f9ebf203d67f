// The job summary: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#adding-a-job-summary
import { fitText } from "@proofgate/core";

/** GitHub takes at most 1 MiB of summary per step; a larger file is dropped whole, with an error. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;

/**
 * The Markdown to append to `GITHUB_STEP_SUMMARY`, which already holds `existingBytes` (an earlier write
 * in the same step): trimmed, with a note that says where the whole report is, when it would not fit.
 */
export function renderJobSummary(markdown: string, existingBytes = 0, fullReport = "report.md in the out dir"): string {
  const note = `\n\n> **proofgate:** the report was trimmed to fit GitHub's 1 MiB job summary; the whole report is ${fullReport}.\n`;
  return fitText(markdown, { limit: Math.max(0, STEP_SUMMARY_LIMIT - existingBytes), unit: "bytes", note }).text;
}

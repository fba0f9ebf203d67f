// GitLab's dotenv report (artifacts:reports:dotenv): https://docs.gitlab.com/ci/variables/dotenv_variables/
// GitLab reads each line as KEY=VALUE (Ci::ParseDotenvArtifactService: /^(.*?)=(.*)$/ per line, so an
// empty line fails the whole file), keys of ASCII letters, digits and `_`, no comments, no quotes or
// spaces, the file under 5 KB and a bounded number of variables.
import { isFullSha, publishedDecision, type PublishableReport } from "@proofgate/core";

/** The file name, in the out dir, that `artifacts:reports:dotenv` reads. */
export const DOTENV_FILE = "proofgate.env";

/** GitLab's default limit is 5 KB, strictly less. */
export const DOTENV_MAX_BYTES = 5 * 1024;

const KEY = /^[A-Z][A-Z0-9_]*$/;
const VALUE = /^[A-Za-z0-9_.,:/-]+$/;

/** The variables later jobs get: values are words, numbers and SHAs only, never text from the patch. */
export function dotenvVariables(report: PublishableReport): [string, string][] {
  const view = report.gate;
  const pct = (n: number | null): string => (n === null || !Number.isFinite(n) ? "not_measured" : n.toFixed(2));
  const vars: [string, string][] = [
    ["PROOFGATE_DECISION", publishedDecision(report)],
    ["PROOFGATE_EXIT_CODE", String(report.exitCode)],
    ["PROOFGATE_PROVEN_COVERAGE", pct(view.provenCoveragePercent)],
    ["PROOFGATE_MIN_PROVEN_COVERAGE", pct(view.minProvenCoveragePercent)],
    ["PROOFGATE_REASONS", view.reasons.length > 0 ? view.reasons.join(",") : "none"],
  ];
  if (isFullSha(view.head)) vars.push(["PROOFGATE_HEAD", view.head]);
  if (isFullSha(view.base)) vars.push(["PROOFGATE_BASE", view.base]);
  return vars;
}

/** The dotenv text; throws when a line would break GitLab's rules (then no file beats a wrong one). */
export function dotenvReport(report: PublishableReport): string {
  const lines = dotenvVariables(report).map(([key, value]) => {
    if (!KEY.test(key) || !VALUE.test(value))
      throw new Error(
        `dotenv variable ${key} has a value GitLab would not read: ${JSON.stringify(value.slice(0, 80))}`,
      );
    return `${key}=${value}`;
  });
  const text = `${lines.join("\n")}\n`;
  if (Buffer.byteLength(text) >= DOTENV_MAX_BYTES)
    throw new Error(
      `the dotenv report is ${Buffer.byteLength(text)} bytes, GitLab reads less than ${DOTENV_MAX_BYTES}`,
    );
  return text;
}

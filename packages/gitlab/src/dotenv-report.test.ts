import { describe, expect, it } from "vitest";
import { DOTENV_MAX_BYTES, dotenvReport } from "./dotenv-report.js";
import { BASE, errorReportFixture, HEAD, mergeReport, rejectReport } from "./__fixtures__/reports.js";

/**
 * GitLab's reading of a dotenv artifact (Ci::ParseDotenvArtifactService and the documented limits):
 * under 5 KB, each line `^(.*?)=(.*)$` (an empty line fails the file), keys of ASCII letters, digits
 * and `_`; proofgate also holds itself to no spaces, quotes, `#` or `$`, and 20 variables at most.
 */
function readLikeGitlab(text: string): Record<string, string> {
  if (Buffer.byteLength(text) >= 5 * 1024) throw new Error("too big");
  const vars: Record<string, string> = {};
  // Ruby's each_line: lines keep their "\n"; a final newline makes no extra line.
  for (const raw of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const line = raw.replace(/\n$/, "");
    const m = /^(.*?)=(.*)$/.exec(line);
    if (!m) throw new Error(`Invalid Format: ${JSON.stringify(line)}`);
    const [, key, value] = m as unknown as [string, string, string];
    if (!/^[A-Za-z0-9_]+$/.test(key)) throw new Error(`bad key ${key}`);
    if (/[\s"'#$`\\]/.test(value) || value === "") throw new Error(`value GitLab reads differently: ${key}=${value}`);
    vars[key] = value;
  }
  if (Object.keys(vars).length > 20) throw new Error("too many variables");
  return vars;
}

describe("dotenvReport, read back under GitLab's rules", () => {
  it("a REJECT: decision, exit code, proven coverage to two decimals, the reasons, head and base", () => {
    expect(readLikeGitlab(dotenvReport(rejectReport()))).toEqual({
      PROOFGATE_DECISION: "REJECT",
      PROOFGATE_EXIT_CODE: "1",
      PROOFGATE_PROVEN_COVERAGE: "65.20",
      PROOFGATE_MIN_PROVEN_COVERAGE: "70.00",
      PROOFGATE_REASONS: "agent_added_lease,proven_coverage",
      PROOFGATE_HEAD: HEAD,
      PROOFGATE_BASE: BASE,
    });
  });

  it("a MERGE says none for reasons; a run that could not evaluate says not_measured, never an empty value", () => {
    expect(readLikeGitlab(dotenvReport(mergeReport()))).toMatchObject({
      PROOFGATE_DECISION: "MERGE",
      PROOFGATE_EXIT_CODE: "0",
      PROOFGATE_PROVEN_COVERAGE: "82.35",
      PROOFGATE_REASONS: "none",
    });
    const error = readLikeGitlab(dotenvReport(errorReportFixture()));
    expect(error).toMatchObject({
      PROOFGATE_DECISION: "REJECT",
      PROOFGATE_EXIT_CODE: "2",
      PROOFGATE_PROVEN_COVERAGE: "not_measured",
      PROOFGATE_REASONS: "input_error",
    });
    expect(error.PROOFGATE_BASE).toBeUndefined();
  });

  it("has no empty line, no comment, and ends with one newline", () => {
    const text = dotenvReport(rejectReport());
    expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true);
    for (const line of text.slice(0, -1).split("\n")) expect(line).toMatch(/^[A-Z_]+=\S+$/);
    expect(Buffer.byteLength(text)).toBeLessThan(DOTENV_MAX_BYTES);
  });

  it("refuses to write a head that is not a SHA, and throws rather than write a value GitLab would misread", () => {
    const report = rejectReport();
    const odd = { ...report, gate: { ...report.gate, head: "main; echo pwned" } };
    expect(readLikeGitlab(dotenvReport(odd)).PROOFGATE_HEAD).toBeUndefined();
    const spaced = { ...report, gate: { ...report.gate, reasons: ["proven coverage" as never] } };
    expect(() => dotenvReport(spaced)).toThrow(/GitLab would not read/);
  });
});

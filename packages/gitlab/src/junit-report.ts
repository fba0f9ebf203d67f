// GitLab's JUnit report (artifacts:reports:junit): https://docs.gitlab.com/ci/testing/unit_test_reports/
// One test case per signal of the decision table, so the MR's test summary lists them.
import { formatIssue, type GateReport } from "@proofgate/core";

/** The file name, in the out dir, that `artifacts:reports:junit` reads. */
export const JUNIT_FILE = "junit.xml";

/** The classname of every test case: the MR widget groups them under it. */
export const JUNIT_CLASSNAME = "proofgate";

/** Text for XML: the five special characters escaped, characters XML cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** Newlines and tabs in an attribute survive as character references, not as normalised spaces. */
function attr(text: string): string {
  return xml(text).replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

/**
 * The JUnit XML: a test case per signal (failed: a reason fired; skipped: off or not measured; passed
 * otherwise), and, when the gate could not evaluate, a test case `evaluation` with the errors.
 */
export function junitReport(view: GateReport): string {
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  for (const s of view.signals) {
    const head = `    <testcase classname="${JUNIT_CLASSNAME}" name="${attr(s.label)}" time="0">`;
    if (s.result === "fail") {
      failures += 1;
      const findings = view.findings.filter((f) => (s.reasons as readonly string[]).includes(f.reason));
      const details = findings
        .map(
          (f) => `${f.reason}${f.file ? ` ${f.file}${f.line ? `:${f.line}` : ""}` : ""}: ${f.message}\nfix: ${f.fix}`,
        )
        .join("\n\n");
      const message = `${s.reasons.join(", ")}: ${s.value} (policy ${s.policy})`;
      cases.push(
        `${head}\n      <failure message="${attr(message)}" type="${attr(s.reasons[0] ?? "fail")}">${xml(details || message)}</failure>\n    </testcase>`,
      );
    } else if (s.result === "off" || s.result === "not_measured") {
      skipped += 1;
      const why = s.result === "off" ? "turned off in proofgate.toml" : "not measured: its input was not given";
      cases.push(`${head}\n      <skipped message="${attr(`${why} (${s.value})`)}"/>\n    </testcase>`);
    } else {
      cases.push(`${head}</testcase>`);
    }
  }
  if (view.errors.length > 0 || view.signals.length === 0) {
    errors += 1;
    const lines = view.errors.length > 0 ? view.errors.map(formatIssue) : ["the report has no decision table"];
    cases.push(
      `    <testcase classname="${JUNIT_CLASSNAME}" name="evaluation" time="0">\n      <error message="${attr(`the gate could not evaluate (${lines.length} error${lines.length === 1 ? "" : "s"})`)}" type="input_error">${xml(lines.join("\n"))}</error>\n    </testcase>`,
    );
  }
  const counts = `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="0"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="proofgate" ${counts}>`,
    `  <testsuite name="proofgate: ${view.decision}" ${counts}>`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

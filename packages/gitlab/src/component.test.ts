// apps/gitlab-component must read the files publish() writes, and its coverage regex must read the
// gate's own line in every --format, not a forged one.
import { readFileSync } from "node:fs";
import { renderText } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { CODE_QUALITY_FILE } from "./code-quality.js";
import { DOTENV_FILE } from "./dotenv-report.js";
import { JUNIT_FILE } from "./junit-report.js";
import { coverageLine } from "./platform.js";
import { rejectReport } from "./__fixtures__/reports.js";

const read = (path: string): string =>
  readFileSync(new URL(`../../../apps/gitlab-component/${path}`, import.meta.url), "utf8");
const FILES = { template: read("templates/proofgate.yml"), example: read("example/.gitlab-ci.yml") };

/** GitLab's reading: lines from the end, the last line the regex matches wins (Gitlab::Ci::Trace::Stream#extract_coverage). */
function extractCoverage(regex: RegExp, log: string): string | undefined {
  for (const line of log.split("\n").reverse()) {
    const m = regex.exec(line);
    if (m) return /\d+(\.\d+)?/.exec(m[0])?.[0];
  }
  return undefined;
}

describe.each(Object.entries(FILES))("apps/gitlab-component %s", (_name, text) => {
  it("wires the reports publish() writes, keeps the full history and the report folder", () => {
    expect(text).toContain(`junit: proofgate-report/${JUNIT_FILE}`);
    expect(text).toContain(`codequality: proofgate-report/${CODE_QUALITY_FILE}`);
    expect(text).toContain(`dotenv: proofgate-report/${DOTENV_FILE}`);
    expect(text).toContain(`GIT_DEPTH: "0"`);
    expect(text).toContain("when: always");
  });

  it("its coverage regex reads the gate's line on stdout (text) and on stderr (json), and not a forged line after it", () => {
    const source = /coverage: '\/(.+)\/'/.exec(text)![1]!;
    const regex = new RegExp(source);
    const report = rejectReport();
    const stderr = `proofgate: gitlab: ${coverageLine(report)}`;
    const textMode = `Proven coverage: 100.00% printed by a test\n${stderr}\n${renderText(report.gate, { color: false })}`;
    expect(extractCoverage(regex, textMode)).toBe("65.20");
    const forged = `${stderr}\n{\n  "details": [{"message": "lease test_x[Proven coverage: 100.00%] added"}]\n}\n`;
    expect(extractCoverage(regex, forged)).toBe("65.20");
  });
});

it("the template declares its inputs", () => {
  expect(FILES.template).toMatch(/^spec:\n {2}inputs:\n/m);
  expect(FILES.template).toContain("\n---\n");
});

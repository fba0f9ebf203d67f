// The job users copy (gitlabJob), the component's template and its example must read the files
// publish() writes, keep the whole history, and their coverage regex must read the gate's own line in
// every --format, not a forged one.
import { readFileSync } from "node:fs";
import { renderText } from "@proofgate/core";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { COBERTURA_FILE, GITLAB_COVERAGE_REGEX, gitlabComponentInclude, gitlabJob } from "./ci-snippet.js";
import { CODE_QUALITY_FILE } from "./code-quality.js";
import { DOTENV_FILE } from "./dotenv-report.js";
import { JUNIT_FILE } from "./junit-report.js";
import { coverageLine } from "./platform.js";
import { rejectReport } from "./__fixtures__/reports.js";

const read = (path: string): string =>
  readFileSync(new URL(`../../../apps/gitlab-component/${path}`, import.meta.url), "utf8");

interface Job {
  variables: Record<string, unknown>;
  rules: { if: string }[];
  script: string[];
  coverage: string;
  artifacts: { when: string; paths: string[]; reports: Record<string, unknown> };
}

/** The template's job with every input at its default (and `image` given), as GitLab interpolates it. */
function templateJob(): Job {
  const [spec, body] = parseAllDocuments(read("templates/proofgate.yml"));
  const inputs = (spec!.toJS() as { spec: { inputs: Record<string, { default?: unknown }> } }).spec.inputs;
  const values: Record<string, string> = { image: "python:3.12" };
  for (const [key, input] of Object.entries(inputs))
    if (input.default !== undefined) values[key] = String(input.default);
  const text = body!.toString().replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_m, key: string) => values[key]!);
  return Object.values(parse(text) as Record<string, Job>)[0]!;
}

const JOBS: Record<string, Job> = {
  snippet: (parse(gitlabJob("1.2.3").text) as { proofgate: Job }).proofgate,
  template: templateJob(),
  example: (parse(read("example/.gitlab-ci.yml")) as { proofgate: Job }).proofgate,
};

/** GitLab's reading: lines from the end, the last line the regex matches wins (Gitlab::Ci::Trace::Stream#extract_coverage). */
function extractCoverage(regex: RegExp, log: string): string | undefined {
  for (const line of log.split("\n").reverse()) {
    const m = regex.exec(line);
    if (m) return /\d+(\.\d+)?/.exec(m[0])?.[0];
  }
  return undefined;
}

describe.each(Object.entries(JOBS))("the %s job", (_name, job) => {
  it("keeps the whole history and runs in merge request pipelines", () => {
    expect(job.variables.GIT_DEPTH).toBe("0");
    expect(job.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
  });

  it("wires the reports publish() writes (the proven lines' Cobertura XML among them) and the report folder, whatever the decision", () => {
    expect(job.artifacts.when).toBe("always");
    expect(job.artifacts.paths).toEqual(["proofgate-report/"]);
    expect(job.artifacts.reports).toEqual({
      junit: `proofgate-report/${JUNIT_FILE}`,
      codequality: `proofgate-report/${CODE_QUALITY_FILE}`,
      dotenv: `proofgate-report/${DOTENV_FILE}`,
      coverage_report: { coverage_format: "cobertura", path: COBERTURA_FILE },
    });
  });

  it("its coverage regex reads the gate's line on stdout (text) and on stderr (json), and not a forged line after it", () => {
    expect(`/${job.coverage.slice(1, -1)}/`).toBe(GITLAB_COVERAGE_REGEX);
    const regex = new RegExp(job.coverage.slice(1, -1));
    const report = rejectReport();
    const stderr = `proofgate: gitlab: ${coverageLine(report)}`;
    const textMode = `Proven coverage: 100.00% printed by a test\n${stderr}\n${renderText(report.gate, { color: false })}`;
    expect(extractCoverage(regex, textMode)).toBe("65.20");
    const forged = `${stderr}\n{\n  "details": [{"message": "lease test_x[Proven coverage: 100.00%] added"}]\n}\n`;
    expect(extractCoverage(regex, forged)).toBe("65.20");
  });
});

describe("the snippets", () => {
  it("run the CLI pinned to the release, and say which token posts the status and the note", () => {
    const job = gitlabJob("1.2.3");
    expect(JOBS.snippet!.script).toContain("npx --yes --package=@proofgate/cli@1.2.3 proofgate check --run");
    for (const snippet of [job, gitlabComponentInclude("1.2.3")])
      expect(snippet.text).toContain("PROOFGATE_GITLAB_TOKEN");
    // A package of a monorepo: check --root from the checkout's root, the report where the artifacts read it.
    const scoped = (parse(gitlabJob("1.2.3", { root: "pkgs/api" }).text) as { proofgate: Job }).proofgate;
    expect(scoped.script).toContain(
      "npx --yes --package=@proofgate/cli@1.2.3 proofgate check --run --root pkgs/api --out-dir proofgate-report",
    );
    expect(JSON.stringify(scoped.artifacts)).toBe(JSON.stringify(JOBS.snippet!.artifacts));
    // A vitest project: a Node.js image and its own install, no Python.
    const vitest = (
      parse(gitlabJob("1.2.3", { runner: "vitest", install: "npm ci" }).text) as { proofgate: Job & { image: string } }
    ).proofgate;
    expect(vitest.image).toBe("node:24");
    expect(vitest.script[0]).toBe("npm ci");
    expect(JSON.stringify(vitest)).not.toMatch(/python|pip/);
  });

  it("include the component at the release's tag", () => {
    const include = parse(gitlabComponentInclude("1.2.3").text) as { include: { component: string; inputs: object }[] };
    expect(include.include[0]!.component).toBe("$CI_SERVER_FQDN/proofgate/proofgate/proofgate@1.2.3");
    expect(Object.keys(include.include[0]!.inputs)).toEqual(["image"]);
  });
});

// Publishing against a stand-in `buildkite-agent` on PATH (a real process: argv and stdin as the
// real agent would get them) and, without an agent, against a REST server on 127.0.0.1.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env, PublishableReport, PublishTools, GateReport } from "@proofgate/core";
import { renderMarkdown } from "@proofgate/core";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ANNOTATION_BYTES, fitAnnotation, publishToBuildkite } from "./index.js";

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A folder with the stand-in agent as `buildkite-agent`, and the file it records into. */
function stubAgent(): { bin: string; log: string; calls: () => { argv: string[]; stdin: string | null }[] } {
  const bin = mkdtempSync(join(tmpdir(), "proofgate-bk-agent-"));
  dirs.push(bin);
  const source = readFileSync(new URL("./__fixtures__/buildkite-agent.mjs", import.meta.url), "utf8");
  writeFileSync(join(bin, "agent.mjs"), source);
  writeFileSync(
    join(bin, "buildkite-agent"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(bin, "agent.mjs"))} "$@"\n`,
  );
  chmodSync(join(bin, "buildkite-agent"), 0o755);
  const log = join(bin, "calls.jsonl");
  return {
    bin,
    log,
    calls: () => {
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {
        return [];
      }
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { argv: string[]; stdin: string | null });
    },
  };
}

function view(overrides: Partial<GateReport> = {}): GateReport {
  return {
    decision: "REJECT",
    reasons: ["proven_coverage"],
    todayUtc: "2026-12-02",
    base: "a".repeat(40),
    head: "b".repeat(40),
    provenCoveragePercent: 61.234,
    minProvenCoveragePercent: 70,
    collectedTests: null,
    activeLeases: null,
    expiredLeases: null,
    fixtureDigestDelta: null,
    propertyFailures: null,
    agentAddedLeases: null,
    schemaVersion: 2,
    inputs: [],
    signals: [],
    findings: [],
    errors: [],
    warnings: [],
    ...overrides,
  };
}

function report(v: GateReport, exitCode: 0 | 1 | 2 = v.decision === "MERGE" ? 0 : 1): PublishableReport {
  return { gate: v, json: "{}\n", markdown: renderMarkdown(v), exitCode };
}

function tools(env: Env): PublishTools & { logged: string[] } {
  const logged: string[] = [];
  return { env, writeArtifact: () => "", log: (l) => logged.push(l), stdout: () => undefined, comment: true, logged };
}

const AGENT_ENV = { BUILDKITE: "true", BUILDKITE_AGENT_ACCESS_TOKEN: "agent-token", BUILDKITE_JOB_ID: "0190-job" };

// Real processes (the stand-in agent is a Node script): slow on a loaded machine.
describe("publish through buildkite-agent", { timeout: 30_000 }, () => {
  it("REJECT: annotate --style error --context proofgate with the Markdown on stdin, then the two meta-data keys", async () => {
    const agent = stubAgent();
    const r = report(view());
    const outcome = await publishToBuildkite(r, tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log }));
    expect(outcome.failures).toEqual([]);
    expect(agent.calls()).toEqual([
      { argv: ["annotate", "--style", "error", "--context", "proofgate"], stdin: r.markdown },
      { argv: ["meta-data", "set", "proofgate:decision", "REJECT"], stdin: null },
      { argv: ["meta-data", "set", "proofgate:proven_coverage", "61.23"], stdin: null },
    ]);
    expect(outcome.published).toEqual([
      "annotation proofgate (error)",
      "meta-data proofgate:decision=REJECT",
      "meta-data proofgate:proven_coverage=61.23",
    ]);
  });

  it("the hidden debt: raw, proven and the points under the heading, the frozen-only ranges collapsed, capped and inert", async () => {
    const agent = stubAgent();
    const hostile = "`x` <img src=x onerror=alert(1)> @admin [l](http://evil)\n::error::pwned \u202eevil";
    const ranges = Array.from({ length: 60 }, (_, i) => ({
      start: 3 * i + 1,
      end: 3 * i + 1 + (i % 3),
      lines: (i % 3) + 1,
      tests: [`tests/test_${hostile}.py::t`, "tests/test_a.py::test_slow"],
    }));
    const lines = ranges.reduce((n, r) => n + r.lines, 0);
    const v = view({
      coverage: {
        source: "contexts",
        files: [".coverage"],
        format: "coveragepy-contexts",
        shardsExpected: null,
        provenCoveragePercent: 61.234,
        numStatements: 1000,
        coveredLines: 612,
        numBranches: 0,
        coveredBranches: 0,
        lineRate: 0.612,
        branchRate: 1,
        raw: { percent: 73.5, numStatements: 1000, coveredLines: 735, numBranches: 0, coveredBranches: 0 },
        rawNotMeasured: null,
        hiddenPoints: 73.5 - 61.234,
        frozenOnly: {
          lines,
          branches: 0,
          attributed: true,
          files: [{ path: `src/${hostile}.py`, lines, branches: 0, ranges, branchList: [] }],
        },
        patch: null,
        patchNotMeasured: "decide reads no git diff",
        maxDropPoints: null,
        baseProvenCoveragePercent: null,
      },
      ledger: {
        file: "freeze.toml",
        maxActiveLeases: 1,
        budgetOmitted: false,
        rejectIfExpired: true,
        rejectIfAgentAddsLease: true,
        active: [{ nodeid: "tests/test_a.py::test_slow", owner: "dana", expires: "2027-01-31", line: 2 }],
        expired: [],
        unknown: [],
        costPool: null,
        costNotMeasured: "the rerun does not record which test ran which line",
      },
    });
    const outcome = await publishToBuildkite(
      report(v),
      tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log }),
    );
    expect(outcome.failures).toEqual([]);
    const body = agent.calls()[0]!.stdin!;
    expect(body).toContain(
      `**Raw coverage** 73.50% · **proven** 61.23% · **hidden debt** 12.27 points · ${lines} lines and 0 branches only frozen tests run`,
    );
    expect(body).toContain(
      `<details><summary>Lines only frozen tests run (${lines} lines and 0 branches in 1 file)</summary>`,
    );
    expect(body.match(/^ {2}- lines? \d+/gm)).toHaveLength(50);
    expect(body).toContain("10 more ranges in report.json");
    expect(body).toContain("tests/test\\_a.py::test\\_slow (lease: dana, expires 2027-01-31)");
    // Inert: no HTML, link, mention, line of its own or bidi override from the patch's names.
    expect(body).not.toMatch(/<img|@admin|\]\(http|^\s*::|\u202e/m);
    expect(body).toContain("\\x202eevil");
  });

  it("a named gate (check --name api) annotates under its own context and sets its own meta-data keys", async () => {
    const agent = stubAgent();
    const t = { ...tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log }), name: "api" };
    const outcome = await publishToBuildkite(report(view()), t);
    expect(outcome.failures).toEqual([]);
    expect(agent.calls().map((c) => c.argv)).toEqual([
      ["annotate", "--style", "error", "--context", "api"],
      ["meta-data", "set", "api:decision", "REJECT"],
      ["meta-data", "set", "api:proven_coverage", "61.23"],
    ]);
  });

  it("MERGE is style success; coverage not measured is the value `none` (a meta-data value cannot be empty)", async () => {
    const agent = stubAgent();
    await publishToBuildkite(
      report(view({ decision: "MERGE", reasons: [], provenCoveragePercent: null })),
      tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log }),
    );
    expect(agent.calls().map((c) => c.argv)).toEqual([
      ["annotate", "--style", "success", "--context", "proofgate"],
      ["meta-data", "set", "proofgate:decision", "MERGE"],
      ["meta-data", "set", "proofgate:proven_coverage", "none"],
    ]);
  });

  it("a MERGE report whose run exits 2 (the report could not be written) is published as REJECT, style error, and says why", async () => {
    const agent = stubAgent();
    await publishToBuildkite(
      report(view({ decision: "MERGE", reasons: [] }), 2),
      tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log }),
    );
    const [annotate, decision] = agent.calls();
    expect(annotate!.argv).toContain("error");
    expect(annotate!.stdin).toMatch(/^> \*\*proofgate exited 2: this run is not a MERGE\.\*\*/);
    expect(decision!.argv).toEqual(["meta-data", "set", "proofgate:decision", "REJECT"]);
  });

  it("each failing step is reported with the agent's message; the others still run", async () => {
    const agent = stubAgent();
    const outcome = await publishToBuildkite(
      report(view()),
      tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log, STUB_AGENT_FAIL: "annotate" }),
    );
    expect(outcome.failures).toEqual([
      "buildkite-agent annotate exited 1: buildkite-agent: fatal: annotate: POST https://agent.buildkite.com/v3/...: 503 Service Unavailable",
    ]);
    expect(outcome.published).toEqual([
      "meta-data proofgate:decision=REJECT",
      "meta-data proofgate:proven_coverage=61.23",
    ]);
  });

  it("the agent refuses a call without its access token: reported as a failure, not thrown", async () => {
    const agent = stubAgent();
    const outcome = await publishToBuildkite(
      report(view()),
      tools({ BUILDKITE: "true", BUILDKITE_JOB_ID: "j", PATH: agent.bin, STUB_AGENT_LOG: agent.log }),
    );
    expect(outcome.failures).toHaveLength(3);
    expect(outcome.failures[0]).toBe(
      "buildkite-agent annotate exited 1: buildkite-agent: fatal: missing agent access token (BUILDKITE_AGENT_ACCESS_TOKEN)",
    );
    expect(agent.calls()).toEqual([]);
  });

  it("a body over 1 MiB is trimmed at a line end with a note; the agent gets at most 1 MiB and the decision on top", async () => {
    const agent = stubAgent();
    const warnings = Array.from({ length: 12_000 }, (_, i) => ({
      code: "usage" as const,
      message: `warning ${i}: ${"é".repeat(40)}`,
    }));
    const r = report(view({ warnings }));
    expect(Buffer.byteLength(r.markdown)).toBeGreaterThan(MAX_ANNOTATION_BYTES);
    const t = tools({ ...AGENT_ENV, PATH: agent.bin, STUB_AGENT_LOG: agent.log });
    const outcome = await publishToBuildkite(r, t);
    expect(outcome.failures).toEqual([]);
    const body = agent.calls()[0]!.stdin!;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_ANNOTATION_BYTES);
    expect(body.startsWith("### proofgate: ❌ REJECT")).toBe(true);
    expect(body).toMatch(/\n<\/details>\n\n> \*\*This annotation was trimmed\*\* to fit Buildkite's 1 MiB limit\./);
    expect(body).not.toContain("\uFFFD");
    expect(t.logged).toContain("the annotation was trimmed to Buildkite's 1 MiB limit; the whole report is report.md");
  });
});

describe("fitAnnotation", () => {
  it("leaves a body within the limit alone, and never splits a UTF-8 character in a line longer than the limit", () => {
    expect(fitAnnotation("### ok\n", 100)).toEqual({ body: "### ok\n", trimmed: false });
    const { body, trimmed } = fitAnnotation("€".repeat(1000), 400);
    expect(trimmed).toBe(true);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(400);
    expect(body).not.toContain("\uFFFD");
  });
});

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

async function restServer(status: number, reply: string): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(reply);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const REST_ENV = {
  BUILDKITE: "true",
  BUILDKITE_ORGANIZATION_SLUG: "acme",
  BUILDKITE_PIPELINE_SLUG: "widgets ci",
  BUILDKITE_BUILD_NUMBER: "42",
};

describe("publish without an agent", { timeout: 30_000 }, () => {
  it("a token: POST the annotation to the REST API (replaced by context); meta-data is noted as not set", async () => {
    const api = await restServer(201, '{"id":"x"}');
    const empty = mkdtempSync(join(tmpdir(), "proofgate-bk-noagent-"));
    dirs.push(empty);
    const r = report(view({ decision: "MERGE", reasons: [] }));
    const t = tools({ ...REST_ENV, PATH: empty, BUILDKITE_API_TOKEN: "s3cret", PROOFGATE_BUILDKITE_API_URL: api.url });
    const outcome = await publishToBuildkite(r, t);
    expect(outcome.failures).toEqual([]);
    expect(api.received).toHaveLength(1);
    const got = api.received[0]!;
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/v2/organizations/acme/pipelines/widgets%20ci/builds/42/annotations");
    expect(got.headers.authorization).toBe("Bearer s3cret");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(got.body)).toEqual({ body: r.markdown, style: "success", context: "proofgate" });
    expect(outcome.published).toEqual([
      `annotation proofgate (success) via ${api.url}/v2/organizations/acme/pipelines/widgets%20ci/builds/42/annotations`,
    ]);
    expect(t.logged).toEqual([
      "buildkite-agent is not on PATH: meta-data proofgate:decision and proofgate:proven_coverage were not set (only the agent can set meta-data)",
    ]);
  });

  it("PROOFGATE_BUILDKITE_TOKEN works too; a refusal (403) is a failure naming the status and the scope", async () => {
    const api = await restServer(403, '{"message":"Forbidden"}');
    const outcome = await publishToBuildkite(
      report(view()),
      tools({
        ...REST_ENV,
        PATH: "/nonexistent",
        PROOFGATE_BUILDKITE_TOKEN: "t",
        PROOFGATE_BUILDKITE_API_URL: api.url,
      }),
    );
    expect(api.received[0]!.headers.authorization).toBe("Bearer t");
    expect(outcome.failures).toEqual([
      `the REST annotation failed: POST ${api.url}/v2/organizations/acme/pipelines/widgets%20ci/builds/42/annotations returned 403 (the token needs the write_builds scope and access to this pipeline): {"message":"Forbidden"}`,
    ]);
  });

  it("no token: one line in the log, nothing sent, no failure", async () => {
    const t = tools({ ...REST_ENV, PATH: "/nonexistent" });
    const outcome = await publishToBuildkite(report(view()), t);
    expect(outcome).toEqual({ published: [], failures: [] });
    expect(t.logged).toEqual([
      "buildkite-agent is not on PATH and no BUILDKITE_API_TOKEN (or PROOFGATE_BUILDKITE_TOKEN) is set: no annotation or meta-data was published (the report is report.md in the out dir)",
    ]);
  });

  it("the token is never sent in clear text to a host that is not loopback, nor without the build's address", async () => {
    let outcome = await publishToBuildkite(
      report(view()),
      tools({
        ...REST_ENV,
        PATH: "/nonexistent",
        BUILDKITE_API_TOKEN: "t",
        PROOFGATE_BUILDKITE_API_URL: "http://api.example.com",
      }),
    );
    expect(outcome.failures).toEqual([
      'buildkite-agent is not on PATH, and the REST fallback cannot run: PROOFGATE_BUILDKITE_API_URL "http://api.example.com" is not https (plain http only to 127.0.0.1): the token is not sent there',
    ]);
    outcome = await publishToBuildkite(
      report(view()),
      tools({ BUILDKITE: "true", PATH: "/nonexistent", BUILDKITE_API_TOKEN: "t", BUILDKITE_BUILD_NUMBER: "x" }),
    );
    expect(outcome.failures).toEqual([
      "buildkite-agent is not on PATH, and the REST fallback cannot run: BUILDKITE_ORGANIZATION_SLUG, BUILDKITE_PIPELINE_SLUG, BUILDKITE_BUILD_NUMBER are not set (or not valid), so the build to annotate is unknown",
    ]);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Env, PublishableReport, PublishTools } from "@proofgate/core";
import { COMMENT_MARKER } from "./pr-comment.js";
import { createGithubPlatform } from "./platform.js";
import { STEP_SUMMARY_LIMIT } from "./job-summary.js";
import {
  FORBIDDEN,
  SECONDARY_LIMIT,
  SERVER_ERROR,
  TOKENS,
  startFakeGithub,
  type FakeGithub,
} from "./__fixtures__/openapi-server.js";
import { expiredLease, frozenOnlyReport, reportWith } from "./__fixtures__/reports.js";
import { CHECK_RUN_ANNOTATIONS, FROZEN_ONLY_NOTICES } from "./annotations.js";

const HEAD = "2".repeat(40);
const payload = readFileSync(new URL("./__fixtures__/events/pull_request.json", import.meta.url), "utf8");
const forkPayload = readFileSync(new URL("./__fixtures__/events/pull_request-fork.json", import.meta.url), "utf8");

let fake: FakeGithub;
let dir: string;

beforeEach(async () => {
  fake = await startFakeGithub();
  fake.commits.add(HEAD).add("3".repeat(40));
  dir = mkdtempSync(join(tmpdir(), "proofgate-github-"));
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const platform = createGithubPlatform({
  readFile: (path) => (path === "/event.json" ? payload : path === "/fork.json" ? forkPayload : undefined),
  timing: { retryAfterBaseMs: 1, spaceWrites: false },
  now: () => new Date("2026-03-01T12:00:00Z"),
});

function env(more: Env = {}): Env {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: "/event.json",
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_API_URL: fake.url,
    GITHUB_RUN_ID: "99",
    GITHUB_SHA: "9".repeat(40),
    GITHUB_STEP_SUMMARY: join(dir, "step_summary.md"),
    GITHUB_TOKEN: TOKENS.write,
    ...more,
  };
}

async function publish(
  report: PublishableReport,
  e: Env = env(),
  options: { comment?: boolean; name?: string | undefined } = {},
) {
  const logs: string[] = [];
  const out: string[] = [];
  const tools: PublishTools = {
    env: e,
    writeArtifact: () => "unused",
    log: (l) => logs.push(l),
    stdout: (t) => out.push(t),
    comment: options.comment ?? true,
    name: options.name,
  };
  const context = platform.context(e, (p) =>
    p === "/event.json" ? payload : p === "/fork.json" ? forkPayload : undefined,
  );
  const outcome = await platform.publish(report, context, tools);
  return { outcome, logs, stdout: out.join("") };
}

const ops = () => fake.requests.map((r) => `${r.method} ${r.operationId} ${r.status}`);
const rejected = reportWith([expiredLease("tests/test_api.py::test_login", "alice", 7)]);

describe("publishing to GitHub, against GitHub's OpenAPI description", () => {
  it("writes the summary and annotations, then a check run on the PR head and one comment", async () => {
    const { outcome, logs, stdout } = await publish(rejected);
    expect(fake.violations).toEqual([]);
    expect(ops()).toEqual(["POST checks/create 201", "GET issues/list-comments 200", "POST issues/create-comment 201"]);
    expect(outcome.failures).toEqual([]);
    expect(outcome.published).toEqual([
      expect.stringMatching(/^job summary \(\d+ bytes\)$/),
      "1 workflow annotation",
      expect.stringMatching(/^check run https:/),
      expect.stringMatching(/^PR comment .* \(created\)$/),
    ]);
    expect(readFileSync(join(dir, "step_summary.md"), "utf8")).toBe(rejected.markdown);
    expect(stdout).toBe(
      "::error file=freeze.toml,line=7,title=proofgate%3A expired_leases::lease on tests/test_api.py::test_login (owner alice) expired 2026-01-01; today is 2026-03-01%0Afix: fix the test and delete the lease, or have its owner renew it in a human commit\n",
    );
    const create = fake.requests[0]!.body as Record<string, unknown>;
    expect({ ...create, output: undefined }).toEqual({
      name: "proofgate",
      head_sha: HEAD,
      status: "completed",
      conclusion: "failure",
      completed_at: "2026-03-01T12:00:00Z",
      details_url: "https://github.example/acme/widgets/actions/runs/99",
      output: undefined,
    });
    expect((create.output as Record<string, unknown>).annotations).toEqual([
      {
        path: "freeze.toml",
        start_line: 7,
        end_line: 7,
        annotation_level: "failure",
        title: "proofgate: expired_leases",
        message: expect.stringContaining("lease on tests/test_api.py::test_login"),
      },
    ]);
    expect(logs).toEqual([]);
  });

  it("concludes success on MERGE", async () => {
    await publish(reportWith([]));
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body).toMatchObject({ conclusion: "success", output: { title: "MERGE" } });
  });

  it("sends 120 annotations as 3 requests of at most 50", async () => {
    const findings = Array.from({ length: 120 }, (_, i) => expiredLease(`tests/test_${i}.py::test_x`, "bob", i + 1));
    const { outcome } = await publish(reportWith(findings), env(), { comment: false });
    expect(fake.violations).toEqual([]);
    expect(ops()).toEqual(["POST checks/create 201", "PATCH checks/update 200", "PATCH checks/update 200"]);
    const sizes = fake.requests.map(
      (r) => ((r.body as { output: { annotations: unknown[] } }).output.annotations ?? []).length,
    );
    expect(sizes).toEqual([50, 50, 20]);
    const [run] = [...fake.checkRuns.values()];
    expect(run!.annotations).toHaveLength(120);
    expect(outcome.published).toContain("120 workflow annotations");
  });

  it("frozen-only ranges: one notice each after the failures, at most 50 per request, capped with the summary saying how many were left out", async () => {
    const failures = [1, 2, 3].map((i) => expiredLease(`tests/test_${i}.py::test_x`, "bob", i));
    const report = frozenOnlyReport(260, failures);
    const { outcome, logs, stdout } = await publish(report, env(), { comment: false });
    expect(fake.violations).toEqual([]);
    expect(outcome.failures).toEqual([]);
    const bodies = fake.requests.map(
      (r) => r.body as { output: { summary: string; annotations?: Record<string, unknown>[] } },
    );
    const sizes = bodies.map((b) => (b.output.annotations ?? []).length);
    expect(sizes).toEqual([50, 50, 50, 50, 3]);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(50);
    const [run] = [...fake.checkRuns.values()];
    const sent = run!.annotations as {
      path: string;
      start_line: number;
      end_line: number;
      annotation_level: string;
      title: string;
      message: string;
    }[];
    expect(sent).toHaveLength(3 + FROZEN_ONLY_NOTICES);
    expect(sent.slice(0, 3).map((a) => a.annotation_level)).toEqual(["failure", "failure", "failure"]);
    const notices = sent.slice(3);
    expect(new Set(notices.map((a) => a.annotation_level))).toEqual(new Set(["notice"]));
    // The most lines first: every 7-line range (37 of them) before any shorter one.
    const spans = notices.map((a) => a.end_line - a.start_line + 1);
    expect(spans).toEqual([...spans].sort((a, b) => b - a));
    expect(spans.filter((n) => n === 7)).toHaveLength(37);
    expect(notices[0]).toMatchObject({
      title: expect.stringMatching(/^proofgate: only frozen tests run lines \d+-\d+$/),
    });
    expect(notices[0]!.message).toContain("7 lines (lines ");
    expect(notices[0]!.message).toContain("- tests/test_api.py::test_login (lease: alice ");
    // Patch text stays inert: one line per test, no escape or workflow command of its own.
    for (const a of notices) {
      expect(a.message).not.toMatch(/\n\s*::|##\[/);
      expect(a.message.split("\n")).toHaveLength(4);
    }
    const note = `60 of 260 frozen-only ranges are not annotated (at most ${FROZEN_ONLY_NOTICES} notices per check run`;
    for (const b of bodies) expect(b.output.summary).toContain(note);
    // The workflow commands carry the reasons only: the runner shows 10 per level.
    expect(stdout.match(/^::/gm)).toHaveLength(3);
    expect(logs).toContain(
      `note: ${FROZEN_ONLY_NOTICES} of 260 frozen-only ranges annotated on the check run (at most ${FROZEN_ONLY_NOTICES})`,
    );
  });

  it("frozen-only notices never push a failure out of the run's total", async () => {
    const failures = Array.from({ length: CHECK_RUN_ANNOTATIONS - 20 }, (_, i) =>
      expiredLease(`tests/test_${i}.py::test_x`, "bob", i + 1),
    );
    await publish(frozenOnlyReport(40, failures), env(), { comment: false });
    expect(fake.violations).toEqual([]);
    const [run] = [...fake.checkRuns.values()];
    const levels = (run!.annotations as { annotation_level: string }[]).map((a) => a.annotation_level);
    expect(levels.filter((l) => l === "failure")).toHaveLength(CHECK_RUN_ANNOTATIONS - 20);
    expect(levels.filter((l) => l === "notice")).toHaveLength(20);
    expect(levels).toHaveLength(CHECK_RUN_ANNOTATIONS);
    expect(
      fake.requests.every(
        (r) => ((r.body as { output: { annotations?: unknown[] } }).output.annotations ?? []).length <= 50,
      ),
    ).toBe(true);
    expect((fake.requests[0]!.body as { output: { summary: string } }).output.summary).toContain(
      "20 of 40 frozen-only ranges are not annotated",
    );
  });

  it("trims a 200 kB report to the check run's 65535 characters and the comment's 65536", async () => {
    const big = reportWith(
      Array.from({ length: 700 }, (_, i) =>
        expiredLease(`tests/test_${i}.py::test_${"x".repeat(200)}`, "carol", i + 1),
      ),
    );
    expect(Buffer.byteLength(big.markdown)).toBeGreaterThan(200_000);
    const { outcome } = await publish(big);
    expect(fake.violations).toEqual([]);
    expect(outcome.failures).toEqual([]);
    const output = (fake.requests[0]!.body as { output: { summary: string; text: string } }).output;
    expect(output.summary.length).toBeLessThanOrEqual(65535);
    expect(output.summary).toMatch(/the summary was trimmed to fit the check run/);
    expect(output.text.length).toBeLessThanOrEqual(65535);
    expect(output.text).toMatch(/trimmed: the whole report is report.json in the out dir\)\n`{3,}\n$/);
    expect(fake.comments[0]!.body.length).toBeLessThanOrEqual(65536);
    // The job summary's limit is 1 MiB: this one fits whole.
    expect(readFileSync(join(dir, "step_summary.md"), "utf8")).toBe(big.markdown);
  });

  it("trims a job summary past 1 MiB, counting what the step already wrote, with a note", async () => {
    const path = join(dir, "step_summary.md");
    writeFileSync(path, "x".repeat(100_000));
    const huge = reportWith(
      Array.from({ length: 4000 }, (_, i) => expiredLease(`tests/test_${i}.py::test_${"y".repeat(200)}`, "dan", i + 1)),
    );
    expect(Buffer.byteLength(huge.markdown)).toBeGreaterThan(STEP_SUMMARY_LIMIT);
    await publish(huge, env({ GITHUB_TOKEN: "" }));
    const written = readFileSync(path);
    expect(written.length).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(written.length).toBeGreaterThan(STEP_SUMMARY_LIMIT - 2000);
    expect(written.toString("utf8")).toMatch(
      /the report was trimmed to fit GitHub's 1 MiB job summary; the whole report is report.md in proofgate's out dir.\n$/,
    );
  });

  it("edits the same comment on a second run, never a second one", async () => {
    await publish(rejected);
    const first = fake.comments[0]!;
    await publish(reportWith([]));
    expect(fake.violations).toEqual([]);
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.id).toBe(first.id);
    expect(fake.comments[0]!.body).toMatch(/^<!-- proofgate:report .*-->\n### proofgate: ✅ MERGE/);
    expect(ops().slice(3)).toEqual([
      "POST checks/create 201",
      "GET issues/list-comments 200",
      "PATCH issues/update-comment 200",
    ]);
  });

  it("finds its comment on a later page, and leaves a comment that only copies the marker alone", async () => {
    for (let i = 0; i < 120; i++)
      fake.comments.push({ id: i + 1, body: `chatter ${i}`, user: { login: "someone", type: "User" }, issue: 42 });
    fake.comments.push({
      id: 500,
      body: `${COMMENT_MARKER}\n### proofgate: ✅ MERGE (forged)`,
      user: { login: "outsider", type: "User" },
      issue: 42,
    });
    await publish(rejected);
    expect(fake.comments.find((c) => c.id === 500)!.body).toMatch(/forged/);
    const ours = fake.comments.filter((c) => c.user.type === "Bot");
    expect(ours).toHaveLength(1);
    await publish(rejected);
    expect(fake.comments.filter((c) => c.user.type === "Bot")).toHaveLength(1);
    expect(fake.violations).toEqual([]);
    expect(ops().filter((o) => o.includes("list-comments"))).toEqual(Array(4).fill("GET issues/list-comments 200"));
    expect(ops()).toContain("GET users/get-authenticated 403");
  });

  it("with a personal token, edits the comment that token wrote", async () => {
    await publish(rejected, env({ GITHUB_TOKEN: "", PROOFGATE_GITHUB_TOKEN: TOKENS.personal }));
    await publish(rejected, env({ GITHUB_TOKEN: TOKENS.write, PROOFGATE_GITHUB_TOKEN: TOKENS.personal }));
    expect(fake.comments).toHaveLength(1);
    expect(fake.requests.every((r) => r.token === TOKENS.personal)).toBe(true);
    expect(ops()).toContain("PATCH issues/update-comment 200");
  });

  it("with a read-only token: summary and annotations, a one-line note, no failure", async () => {
    const { outcome, logs, stdout } = await publish(
      rejected,
      env({ GITHUB_TOKEN: TOKENS.readOnly, GITHUB_EVENT_PATH: "/fork.json" }),
    );
    expect(fake.violations).toEqual([]);
    expect(ops()).toEqual(["POST checks/create 403"]);
    expect(outcome.failures).toEqual([]);
    expect(outcome.published).toEqual([expect.stringMatching(/^job summary/), "1 workflow annotation"]);
    expect(stdout).toMatch(/^::error file=freeze.toml,line=7/);
    expect(logs).toEqual([
      "note: the token cannot write a check run (a pull request from a fork gets a read-only GITHUB_TOKEN): the job summary and annotations only",
    ]);
  });

  it("with no token: summary and annotations, a one-line note, no request", async () => {
    const { outcome, logs } = await publish(rejected, env({ GITHUB_TOKEN: undefined }));
    expect(fake.requests).toEqual([]);
    expect(outcome).toEqual({
      published: [expect.stringMatching(/^job summary/), "1 workflow annotation"],
      failures: [],
    });
    expect(logs).toEqual([
      expect.stringMatching(/^note: no GITHUB_TOKEN or PROOFGATE_GITHUB_TOKEN: the job summary and annotations only/),
    ]);
  });

  it("under proofgate's action with an empty token input: the note names the action's `token` input", async () => {
    const { logs } = await publish(rejected, env({ GITHUB_TOKEN: undefined, PROOFGATE_GITHUB_ACTION: "1" }));
    expect(fake.requests).toEqual([]);
    expect(logs).toEqual([
      "note: no token: the action's `token` input is empty: the job summary and annotations only, no check run or comment (give the action `with: token: ${{ github.token }}` (its default) or a token of your own to publish them)",
    ]);
  });

  it("reports a 422 as a failure and still comments", async () => {
    fake.commits.delete(HEAD);
    const { outcome } = await publish(rejected);
    expect(ops()).toEqual(["POST checks/create 422", "GET issues/list-comments 200", "POST issues/create-comment 201"]);
    expect(outcome.failures).toEqual([
      `the check run on ${HEAD.slice(0, 12)} failed: HTTP 422: No commit found for SHA: ${HEAD} - https://docs.github.com/rest/checks/runs#create-a-check-run`,
    ]);
  });

  it("retries a 500 and waits out a secondary rate limit with retry-after", async () => {
    fake.script("checks/create", SERVER_ERROR);
    fake.script("issues/create-comment", SECONDARY_LIMIT);
    const t0 = Date.now();
    const { outcome, logs } = await publish(rejected);
    expect(fake.violations).toEqual([]);
    expect(ops()).toEqual([
      "POST checks/create 500",
      "POST checks/create 201",
      "GET issues/list-comments 200",
      "POST issues/create-comment 403",
      "POST issues/create-comment 201",
    ]);
    expect(outcome.failures).toEqual([]);
    expect(fake.comments).toHaveLength(1);
    // retry-after: 1 is waited as 1 ms in this test (retryAfterBaseMs: 1).
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(logs).toEqual([
      expect.stringMatching(
        /^GitHub's secondary rate limit on POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments: retrying in 1 s$/,
      ),
    ]);
  });

  it("gives up on a server that keeps failing, with the failure reported", async () => {
    fake.script("checks/create", SERVER_ERROR, SERVER_ERROR, SERVER_ERROR, SERVER_ERROR);
    const { outcome } = await publish(rejected, env(), { comment: false });
    expect(ops()).toEqual(Array(4).fill("POST checks/create 500"));
    expect(outcome.failures).toEqual([`the check run on ${HEAD.slice(0, 12)} failed: HTTP 500: Server Error`]);
  });

  it("reports a comment that may not be written as a note (the check run went out)", async () => {
    fake.script("issues/create-comment", FORBIDDEN);
    const { outcome, logs } = await publish(rejected);
    expect(outcome.failures).toEqual([]);
    expect(outcome.published).toContainEqual(expect.stringMatching(/^check run /));
    expect(logs).toEqual([
      expect.stringMatching(/^note: the token cannot comment on pull request #42 \(the token lacks the permission/),
    ]);
  });

  it("--no-comment: no comment requests", async () => {
    const { logs } = await publish(rejected, env(), { comment: false });
    expect(ops()).toEqual(["POST checks/create 201"]);
    expect(logs).toEqual(["note: --no-comment: no PR comment"]);
  });

  it("pushes get a check run on the pushed commit and no comment", async () => {
    const pushPayload = JSON.stringify({ before: "1".repeat(40), after: HEAD, repository: { default_branch: "main" } });
    const e = env({ GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: "/push.json", GITHUB_SHA: HEAD });
    const pushPlatform = createGithubPlatform({
      readFile: () => pushPayload,
      timing: { retryAfterBaseMs: 1, spaceWrites: false },
    });
    const outcome = await pushPlatform.publish(rejected, pushPlatform.context(e), {
      env: e,
      writeArtifact: () => "",
      log: () => {},
      stdout: () => {},
      comment: true,
    });
    expect(outcome.failures).toEqual([]);
    expect(ops()).toEqual(["POST checks/create 201"]);
    expect(fake.requests[0]!.body).toMatchObject({ head_sha: HEAD });
  });

  it("never publishes a check run on the test merge when the head is unknown", async () => {
    const e = env({ GITHUB_EVENT_PATH: "/nowhere.json" });
    const { outcome } = await publish(rejected, e, { comment: false });
    expect(ops()).toEqual([]);
    expect(outcome.failures).toEqual([
      "no check run: the head commit is unknown (a pull request's GITHUB_SHA is a test merge, not the head); pass --head",
    ]);
  });
});

describe("two gates on one pull request (check --name)", () => {
  it("keep a check run and a comment each, and each run edits only its own comment", async () => {
    await publish(rejected, env(), { name: "api" });
    await publish(reportWith([]), env(), { name: "web" });
    // The default gate on the same PR is a third, with the marker it always had.
    await publish(rejected);
    expect(fake.violations).toEqual([]);
    expect([...fake.checkRuns.values()].map((r) => [r.body.name, r.body.conclusion])).toEqual([
      ["api", "failure"],
      ["web", "success"],
      ["proofgate", "failure"],
    ]);
    expect(fake.comments.map((c) => c.body.split("\n")[0])).toEqual([
      "<!-- proofgate:report:api (edited in place by every run; do not copy this line) -->",
      "<!-- proofgate:report:web (edited in place by every run; do not copy this line) -->",
      COMMENT_MARKER,
    ]);
    expect(fake.comments[0]!.body).toMatch(
      /<sub>gate `api` · \[proofgate run\]\(https:\/\/github\.example\/acme\/widgets\/actions\/runs\/99\)<\/sub>\n$/,
    );
    const [api, web, plain] = fake.comments.map((c) => ({ id: c.id, body: c.body }));

    // A second run of the api gate, now MERGE: its comment changes, the others stay as they were.
    await publish(reportWith([]), env(), { name: "api" });
    expect(fake.violations).toEqual([]);
    expect(fake.comments).toHaveLength(3);
    expect(fake.comments[0]!.id).toBe(api!.id);
    expect(fake.comments[0]!.body).not.toBe(api!.body);
    expect(fake.comments[0]!.body).toMatch(/### proofgate: ✅ MERGE/);
    expect(fake.comments.slice(1).map((c) => ({ id: c.id, body: c.body }))).toEqual([web, plain]);
    expect(ops().slice(-3)).toEqual([
      "POST checks/create 201",
      "GET issues/list-comments 200",
      "PATCH issues/update-comment 200",
    ]);
  });

  it("a gate named like the start of another's never takes its comment", async () => {
    await publish(rejected, env(), { name: "api-2" });
    await publish(rejected, env(), { name: "api" });
    expect(fake.comments.map((c) => c.body.split("\n")[0])).toEqual([
      "<!-- proofgate:report:api-2 (edited in place by every run; do not copy this line) -->",
      "<!-- proofgate:report:api (edited in place by every run; do not copy this line) -->",
    ]);
  });
});

describe("GitHub Enterprise Server", () => {
  it("publishes under GITHUB_API_URL's /api/v3, checked against the GHES description", async () => {
    const ghes = await startFakeGithub({ spec: "ghes-3.19" });
    try {
      ghes.commits.add(HEAD);
      const { outcome } = await publish(rejected, env({ GITHUB_API_URL: ghes.url }));
      expect(ghes.url).toMatch(/\/api\/v3$/);
      expect(ghes.violations).toEqual([]);
      expect(outcome.failures).toEqual([]);
      expect(ghes.requests.map((r) => r.operationId)).toEqual([
        "checks/create",
        "issues/list-comments",
        "issues/create-comment",
      ]);
    } finally {
      await ghes.close();
    }
  });
});

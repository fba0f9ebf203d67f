// publish() end to end: the real @gitbeaker/rest client against a GitLab stand-in on 127.0.0.1, the
// artifacts captured as the CLI's writeArtifact would write them.
import { readFileSync } from "node:fs";
import type { Env, PublishTools } from "@proofgate/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  coverageLine,
  createGitlabPlatform,
  NOTE_MARKER,
  noteBody,
  noteMarker,
  statusDescription,
} from "./platform.js";
import { FROZEN_ONLY_ENTRIES } from "./code-quality.js";
import { frozenOnlyReport } from "./__fixtures__/frozen-only.js";
import { startGitlabServer, type GitlabServer, type Handler } from "./__fixtures__/gitlab-server.js";
import { errorReportFixture, HEAD, HOSTILE, MERGE_COMMIT, mergeReport, rejectReport } from "./__fixtures__/reports.js";

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;
const ME = 77;

let server: GitlabServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function mrEnv(apiUrl: string, over: Env = {}): Env {
  return {
    GITLAB_CI: "true",
    CI_API_V4_URL: apiUrl,
    CI_PROJECT_ID: "42",
    CI_PROJECT_PATH: "g/p",
    CI_PIPELINE_ID: "8",
    CI_JOB_URL: "https://gitlab.example.com/g/p/-/jobs/9",
    CI_MERGE_REQUEST_IID: "7",
    CI_MERGE_REQUEST_DIFF_BASE_SHA: "b".repeat(40),
    CI_COMMIT_SHA: HEAD,
    PROOFGATE_GITLAB_TOKEN: "glpat-x",
    CI_JOB_TOKEN: "job-token",
    ...over,
  };
}

function tools(env: Env, comment = true, name?: string) {
  const artifacts: Record<string, string> = {};
  const log: string[] = [];
  const stdout: string[] = [];
  const t: PublishTools = {
    env,
    writeArtifact: (name, text) => {
      artifacts[name] = text;
      return `proofgate-report/${name}`;
    },
    log: (line) => void log.push(line),
    stdout: (text) => void stdout.push(text),
    comment,
    name,
  };
  return { t, artifacts, log, stdout };
}

const platform = createGitlabPlatform({ retry: { baseDelayMs: 1, retries: 2 } });
const ok =
  (body: unknown, status = 200): Handler =>
  () => ({ status, body });

describe("gitlabPlatform.publish", () => {
  it("a REJECT: the three reports, the coverage line on stderr only, a failed status on the head, a new MR note", async () => {
    server = await startGitlabServer([
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([{ ...fixture("mr-note.json"), body: `${NOTE_MARKER}\nforged by someone else` }]),
      ok({ ...fixture("mr-note.json"), id: 900 }, 201),
    ]);
    const env = mrEnv(server.apiUrl);
    const report = rejectReport();
    const { t, artifacts, log, stdout } = tools(env);
    const outcome = await platform.publish(report, platform.context(env), t);
    expect(outcome.failures).toEqual([]);
    expect(Object.keys(artifacts).sort()).toEqual([
      "codequality.json",
      "junit.xml",
      "proofgate.env",
      "proven-coverage.xml",
    ]);
    expect(log).toContain("Proven coverage: 65.20%");
    expect(stdout).toEqual([]);
    const [status, user, list, create] = server.seen;
    expect([status!.method, status!.path]).toEqual(["POST", `/gitlab/api/v4/projects/42/statuses/${HEAD}`]);
    expect(status!.body).toEqual({
      state: "failed",
      name: "proofgate",
      description: "REJECT: proven 65.20% (floor 70.00%), 2 reasons",
      target_url: "https://gitlab.example.com/g/p/-/jobs/9",
      coverage: 65.2,
      pipeline_id: 8,
    });
    expect([user!.method, user!.path]).toEqual(["GET", "/gitlab/api/v4/user"]);
    expect([list!.method, list!.path]).toEqual(["GET", "/gitlab/api/v4/projects/42/merge_requests/7/notes"]);
    // The marker note there is someone else's (author 1, not the token's user 77): a new note, not an edit of theirs.
    expect([create!.method, create!.path]).toEqual(["POST", "/gitlab/api/v4/projects/42/merge_requests/7/notes"]);
    const body = (create!.body as { body: string }).body;
    expect(body.startsWith(`${NOTE_MARKER}\n### proofgate: ❌ REJECT`)).toBe(true);
    // The patch's text is inert in the note: no raw HTML, no live mention, no line break out of the list item.
    expect(body).not.toContain("<img");
    expect(body).not.toContain("@all");
    expect(body).toContain("&lt;img src=x onerror=alert\\(1\\)&gt; @\u200ball");
    expect(outcome.published).toEqual([
      "proofgate-report/codequality.json",
      "proofgate-report/junit.xml",
      "proofgate-report/proofgate.env",
      "proofgate-report/proven-coverage.xml",
      `commit status proofgate: failed on ${HEAD.slice(0, 12)}`,
      "MR !7 note 900 created",
    ]);
  });

  it("a later run edits its own note in place (PUT), found by the marker among other notes", async () => {
    const mine = { ...fixture("mr-note.json"), id: 555, author: { id: ME }, body: `${NOTE_MARKER}\nold report` };
    server = await startGitlabServer([
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([fixture("mr-note.json"), { ...mine, id: 554, system: true }, mine]),
      ok(mine),
    ]);
    const env = mrEnv(server.apiUrl);
    const outcome = await platform.publish(mergeReport(), platform.context(env), tools(env).t);
    expect(outcome.failures).toEqual([]);
    expect(server.seen[0]!.body).toMatchObject({
      state: "success",
      coverage: 82.35,
      description: "MERGE: proven 82.35% (floor 70.00%), 0 reasons",
    });
    const edit = server.seen[3]!;
    expect([edit.method, edit.path]).toEqual(["PUT", "/gitlab/api/v4/projects/42/merge_requests/7/notes/555"]);
    expect((edit.body as { body: string }).body).toContain("### proofgate: ✅ MERGE");
    expect(outcome.published).toContain("MR !7 note 555 updated");
  });

  it("a named gate (check --name api): its own status name and note; the default gate's note is left alone", async () => {
    const theirs = {
      ...fixture("mr-note.json"),
      id: 555,
      author: { id: ME },
      body: `${NOTE_MARKER}\nthe default gate`,
    };
    const otherName = { ...theirs, id: 556, body: `${noteMarker("api-2")}\nthe api-2 gate` };
    const mine = { ...theirs, id: 557, body: `${noteMarker("api")}\nold api report` };
    server = await startGitlabServer([
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([theirs, otherName]),
      ok({ ...fixture("mr-note.json"), id: 901 }, 201),
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([theirs, otherName, mine]),
      ok(mine),
    ]);
    const env = mrEnv(server.apiUrl);
    const first = await platform.publish(rejectReport(), platform.context(env), tools(env, true, "api").t);
    expect(first.failures).toEqual([]);
    expect(server.seen[0]!.body).toMatchObject({ name: "api", state: "failed" });
    const created = server.seen[3]!;
    expect([created.method, created.path]).toEqual(["POST", "/gitlab/api/v4/projects/42/merge_requests/7/notes"]);
    expect((created.body as { body: string }).body).toMatch(
      /^<!-- proofgate:gitlab:mr-note:api -->\n### proofgate: ❌ REJECT/,
    );
    expect((created.body as { body: string }).body).toContain("Gate `api`.");
    const second = await platform.publish(mergeReport(), platform.context(env), tools(env, true, "api").t);
    expect(second.failures).toEqual([]);
    const edit = server.seen[7]!;
    expect([edit.method, edit.path]).toEqual(["PUT", "/gitlab/api/v4/projects/42/merge_requests/7/notes/557"]);
    expect(server.pending()).toBe(0);
  });

  it("merged results: the status goes on the source branch's SHA, without the merge pipeline's id", async () => {
    server = await startGitlabServer([
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([]),
      ok(fixture("mr-note.json"), 201),
    ]);
    const env = mrEnv(server.apiUrl, {
      CI_COMMIT_SHA: MERGE_COMMIT,
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: HEAD,
      CI_MERGE_REQUEST_EVENT_TYPE: "merged_result",
    });
    await platform.publish(mergeReport(), platform.context(env), tools(env).t);
    expect(server.seen[0]!.path).toBe(`/gitlab/api/v4/projects/42/statuses/${HEAD}`);
    expect(server.seen[0]!.body).not.toHaveProperty("pipeline_id");
  });

  it("--no-comment and branch pipelines post the status and no note", async () => {
    server = await startGitlabServer([ok(fixture("commit-status.json"), 201), ok(fixture("commit-status.json"), 201)]);
    const noComment = tools(mrEnv(server.apiUrl), false);
    expect((await platform.publish(mergeReport(), platform.context(noComment.t.env), noComment.t)).failures).toEqual(
      [],
    );
    const branchEnv = mrEnv(server.apiUrl, { CI_MERGE_REQUEST_IID: undefined });
    const branch = tools(branchEnv);
    expect((await platform.publish(mergeReport(), platform.context(branchEnv), branch.t)).failures).toEqual([]);
    expect(server.seen.map((r) => r.method)).toEqual(["POST", "POST"]);
    expect(noComment.log).toContain("--no-comment: the MR note is left as it is");
    expect(branch.log).toContain("no merge request (a branch pipeline): no MR note");
  });

  it("CI_JOB_TOKEN only: one line says why, the artifacts are still written, no request is made", async () => {
    server = await startGitlabServer([]);
    const env = mrEnv(server.apiUrl, { PROOFGATE_GITLAB_TOKEN: undefined });
    const { t, artifacts } = tools(env);
    const outcome = await platform.publish(rejectReport(), platform.context(env), t);
    expect(outcome.failures).toHaveLength(1);
    expect(outcome.failures[0]).toMatch(
      /^CI_JOB_TOKEN can post neither commit statuses nor MR notes: set PROOFGATE_GITLAB_TOKEN/,
    );
    expect(Object.keys(artifacts)).toHaveLength(4);
    expect(server.seen).toEqual([]);
  });

  it("GITLAB_TOKEN is the fallback token", async () => {
    server = await startGitlabServer([ok(fixture("commit-status.json"), 201)]);
    const env = mrEnv(server.apiUrl, {
      PROOFGATE_GITLAB_TOKEN: undefined,
      GITLAB_TOKEN: "glpat-fallback",
      CI_MERGE_REQUEST_IID: undefined,
    });
    await platform.publish(mergeReport(), platform.context(env), tools(env).t);
    expect(server.seen[0]!.headers["private-token"]).toBe("glpat-fallback");
  });

  it("API failures are lines in failures, never a throw: 401 on the status, 500s past the retries on the note", async () => {
    const err =
      (status: number): Handler =>
      () => ({ status, body: { message: `${status} nope` } });
    server = await startGitlabServer([err(401), err(500), err(500), err(500)]);
    const env = mrEnv(server.apiUrl);
    const { t, artifacts } = tools(env);
    const outcome = await platform.publish(rejectReport(), platform.context(env), t);
    expect(outcome.failures).toEqual([
      `commit status proofgate on ${HEAD.slice(0, 12)}: POST /gitlab/api/v4/projects/42/statuses/${HEAD}: HTTP 401 (401 nope)`,
      "MR !7 note: GET /gitlab/api/v4/user: HTTP 500 (500 nope)",
    ]);
    expect(Object.keys(artifacts)).toHaveLength(4);
  });

  it("an artifact that cannot be written is a failure; the rest still happens", async () => {
    server = await startGitlabServer([ok(fixture("commit-status.json"), 201)]);
    const env = mrEnv(server.apiUrl, { CI_MERGE_REQUEST_IID: undefined });
    const { t } = tools(env);
    const outcome = await platform.publish(mergeReport(), platform.context(env), {
      ...t,
      writeArtifact: () => {
        throw new Error("EACCES");
      },
    });
    expect(outcome.failures).toEqual([
      "writing codequality.json: EACCES",
      "writing junit.xml: EACCES",
      "writing proofgate.env: EACCES",
      "writing proven-coverage.xml: EACCES",
    ]);
    expect(server.seen).toHaveLength(1);
    // A MERGE whose reports did not reach the out dir is not posted as success (the job cannot end clean).
    expect(server.seen[0]!.body).toMatchObject({
      state: "failed",
      description: "MERGE: proven 82.35% (floor 70.00%), 0 reasons; the report could not be written",
    });
  });

  it("outside a GitLab job (no CI_API_V4_URL): a failure line, no request", async () => {
    const env: Env = { PROOFGATE_GITLAB_TOKEN: "glpat-x", CI_COMMIT_SHA: HEAD };
    const outcome = await platform.publish(mergeReport(), platform.context(env), tools(env).t);
    expect(outcome.failures).toEqual([
      "cannot reach the GitLab API without CI_API_V4_URL, CI_PROJECT_ID: run proofgate check inside a GitLab CI job",
    ]);
  });
});

describe("the hidden debt on GitLab", () => {
  it("260 frozen-only ranges: 200 info entries in Code Quality, the proven Cobertura, the collapsed list in the MR note", async () => {
    server = await startGitlabServer([
      ok(fixture("commit-status.json"), 201),
      ok(fixture("current-user.json")),
      ok([]),
      ok({ ...fixture("mr-note.json"), id: 901 }, 201),
    ]);
    const env = mrEnv(server.apiUrl, { CI_PROJECT_DIR: "/builds/g/p" });
    // 260 one-line ranges (every other line) in one file whose name is hostile, run by a hostile test.
    const statements = Array.from({ length: 520 }, (_, i) => i + 1);
    const path = `src/${HOSTILE.replace(/[\n\u001b\u202e]/g, "")}.py`;
    const report = frozenOnlyReport([
      {
        path,
        statements,
        proven: statements.filter((l) => l % 2 === 0),
        raw: statements,
        tests: Object.fromEntries(statements.map((l) => [String(l), [HOSTILE, "tests/test_a.py::test_slow"]])),
      },
    ]);
    const { t, artifacts } = tools(env);
    const outcome = await platform.publish(report, platform.context(env), t);
    expect(outcome.failures).toEqual([]);
    const issues = JSON.parse(artifacts["codequality.json"]!) as { severity: string; check_name: string }[];
    expect(issues).toHaveLength(FROZEN_ONLY_ENTRIES);
    expect(new Set(issues.map((i) => `${i.severity} ${i.check_name}`))).toEqual(
      new Set(["info proofgate/frozen_only"]),
    );
    const xml = artifacts["proven-coverage.xml"]!;
    expect(xml).toContain("<source>/builds/g/p</source>");
    expect(xml).toContain('lines-valid="520" lines-covered="260" line-rate="0.5000"');
    // The note: the facts, then the ranges collapsed, capped, inert.
    const body = (server.seen[3]!.body as { body: string }).body;
    expect(body).toContain("· **hidden debt** ");
    expect(body).toContain(
      "<details><summary>Lines only frozen tests run (260 lines and 0 branches in 1 file)</summary>",
    );
    expect(body.match(/^ {2}- line \d+: /gm)).toHaveLength(50);
    expect(body).toContain("210 more ranges in report.json");
    expect(body).toContain("tests/test\\_a.py::test\\_slow (lease: carol, expires 2026-04-01)");
    expect(body).not.toMatch(/<img|@all|\u001b|\u202e/);
  });
});

describe("coverageLine and statusDescription", () => {
  it("prints proven coverage in the regex's form; a run without it prints 0.00%, so no other line of the log can stand in", () => {
    expect(coverageLine(rejectReport())).toBe("Proven coverage: 65.20%");
    expect(coverageLine(errorReportFixture())).toBe(
      "Proven coverage: 0.00% (not measured: the gate could not compute it)",
    );
    expect(coverageLine(rejectReport())).toMatch(/Proven coverage: \d+\.\d+%/);
  });

  it("a run that could not evaluate is a failed status that says so", async () => {
    expect(statusDescription(errorReportFixture())).toBe(
      "REJECT (could not evaluate): proven coverage not measured, 1 reason",
    );
  });
});

describe("noteBody", () => {
  it("starts with the marker, and a report too long for a note is cut at a line with its details closed", () => {
    const report = rejectReport();
    const long = {
      ...report,
      markdown: `${report.markdown}<details><summary>Warnings</summary>\n\n${`- ${HOSTILE.replace(/\n/g, " ")}\n`.repeat(20_000)}`,
    };
    const body = noteBody(long, "https://gitlab.example.com/g/p/-/jobs/9");
    expect(body.startsWith(`${NOTE_MARKER}\n`)).toBe(true);
    expect(body.length).toBeLessThanOrEqual(1_000_000);
    expect(body).toContain("</details>\n\n*(cut: too long for a GitLab note)*");
    expect(body.endsWith("the full report is the job's `report.md` artifact.\n")).toBe(true);
  });
});

// The component as GitLab takes it from a release: the catalog project's tree that
// `pnpm release:gitlab-component` builds, its template's typed inputs, and its job, interpolated as
// GitLab does and its script run by bash in a merge request pipeline's environment (a real git
// checkout, a stand-in GitLab API on 127.0.0.1, the CLI through a stand-in `npx`).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { writeNpxStandIn } from "../../../packages/cli/src/__fixtures__/npx-stand-in.js";
import { ISOLATED_GIT_ENV, scratchRepo, stampEvidence, type ScratchRepo } from "@proofgate/gate/testing";
import { startGitlabServer, type GitlabServer } from "../../../packages/gitlab/src/__fixtures__/gitlab-server.js";

const HERE = new URL("..", import.meta.url).pathname;
const ROOT = join(HERE, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
  .version;

let temp: string;
let release: string;
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), "proofgate-component-"));
  release = join(temp, "catalog-project");
  const built = spawnSync(process.execPath, [join(HERE, "release.mjs"), "--out", release], { encoding: "utf8" });
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Input {
  type?: string;
  default?: unknown;
  description?: string;
  regex?: string;
}
interface Job {
  stage: string;
  image: string;
  variables: Record<string, string>;
  rules: { if: string }[];
  script: string[];
  coverage: string;
  artifacts: {
    when: string;
    paths: string[];
    reports: {
      junit: string;
      codequality: string;
      dotenv: string;
      coverage_report: { coverage_format: string; path: string };
    };
  };
}

function template(): { inputs: Record<string, Input>; body: string } {
  const text = readFileSync(join(release, "templates", "proofgate.yml"), "utf8");
  const docs = parseAllDocuments(text);
  expect(docs).toHaveLength(2);
  expect(docs.flatMap((d) => d.errors)).toEqual([]);
  const spec = docs[0]!.toJS() as { spec: { inputs: Record<string, Input> } };
  // GitLab interpolates the job's text as written, after the header's `---`.
  return { inputs: spec.spec.inputs, body: text.slice(text.indexOf("\n---\n") + 5) };
}

/** GitLab's interpolation: each `$[[ inputs.x ]]` becomes the given value or the default; a missing required input is an error. */
function interpolate(given: Record<string, string | boolean>): { name: string; job: Job } {
  const { inputs, body } = template();
  for (const key of Object.keys(given)) expect(inputs, `input ${key}`).toHaveProperty(key);
  const text = body.replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_m, key: string) => {
    const value = given[key] ?? inputs[key]?.default;
    if (value === undefined) throw new Error(`input ${key} is required`);
    return String(value);
  });
  const [name, job] = Object.entries(parse(text) as Record<string, Job>)[0]!;
  return { name, job };
}

describe("the catalog project's tree", () => {
  it("has templates/ at its root, a README, a LICENSE, the example, and the pipeline that releases a version tag", () => {
    const files = readdirSync(release, { recursive: true }).map(String).sort();
    expect(files).toEqual([
      ".gitlab-ci.yml",
      "LICENSE",
      "README.md",
      "example",
      "example/.gitlab-ci.yml",
      "templates",
      "templates/proofgate.yml",
    ]);
    const ci = parse(readFileSync(join(release, ".gitlab-ci.yml"), "utf8")) as Record<
      string,
      { rules: { if: string }[]; release: { tag_name: string } }
    >;
    const job = ci["create-release"]!;
    expect(job.release.tag_name).toBe("$CI_COMMIT_TAG");
    expect(job.rules).toEqual([{ if: "$CI_COMMIT_TAG =~ /^\\d+\\.\\d+\\.\\d+$/" }]);
  });

  it("declares every input with a type, a description, and a default of that type (image is required)", () => {
    const { inputs } = template();
    for (const [key, input] of Object.entries(inputs)) {
      expect(["string", "boolean", "number"], key).toContain(input.type);
      expect(input.description, key).toMatch(/\w/);
      if (key === "image") expect(input.default).toBeUndefined();
      else expect(typeof input.default, key).toBe(input.type);
    }
    expect(inputs.version!.default).toBe(VERSION);
    expect(
      Object.entries(inputs)
        .filter(([, i]) => i.type === "boolean")
        .map(([k]) => k),
    ).toEqual(["run", "comment"]);
    // GitLab checks a given name and version against these before it runs anything.
    expect(new RegExp(inputs.name!.regex!).test("api/unit")).toBe(true);
    expect(new RegExp(inputs.name!.regex!).test("a b")).toBe(false);
    expect(new RegExp(inputs.version!.regex!).test("latest")).toBe(false);
    // No name: the CLI's (proofgate, or proofgate/<folder> for a package); a package's folder is plain.
    expect(new RegExp(inputs.name!.regex!).test("")).toBe(true);
    expect(inputs["working-directory"]!.default).toBe(".");
    const folder = new RegExp(inputs["working-directory"]!.regex!);
    expect(["pkgs/api", "."].map((f) => folder.test(f))).toEqual([true, true]);
    expect(["-x", "a b", '"; rm -rf /', "$(id)"].map((f) => folder.test(f))).toEqual([false, false, false, false]);
  });

  it("passes working-directory as --root, the report folder the artifacts read, and --name only when one is given", () => {
    const run = (given: Record<string, string>) =>
      spawnSync(
        "bash",
        [
          "-c",
          `${interpolate({ image: "i", install: "true", ...given })
            .job.script.slice(1, -1)
            .join("\n")}\nprintf '%s\\n' "$@"`,
        ],
        {
          encoding: "utf8",
        },
      ).stdout;
    expect(run({})).toBe("--root\n.\n--out-dir\nproofgate-report\n");
    expect(run({ "working-directory": "pkgs/api", name: "api" })).toBe(
      "--root\npkgs/api\n--out-dir\nproofgate-report\n--name\napi\n",
    );
  });

  it("interpolates to a job that keeps the whole history, runs on merge requests and wires every report", () => {
    const { name, job } = interpolate({ image: "python:3.12", "job-name": "gate" });
    expect(name).toBe("gate");
    expect(job.image).toBe("python:3.12");
    expect(job.variables).toEqual({ GIT_DEPTH: "0" });
    expect(job.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(job.artifacts.when).toBe("always");
    expect(job.artifacts.reports.coverage_report).toEqual({
      coverage_format: "cobertura",
      path: "proofgate-report/proven-coverage.xml",
    });
    expect(() => interpolate({})).toThrow("input image is required");
  });
});

const COBERTURA = readFileSync(
  join(ROOT, "packages/core/src/coverage/__fixtures__/cobertura-coveragepy-6.5-lines.xml"),
  "utf8",
);
const CONFIG = `[coverage]\nreports = ["coverage.xml"]\nmin_proven = 70\n\n[fixtures]\nenabled = false\n\n[properties]\nenabled = false\n`;

describe("the job's script, in a merge request pipeline", () => {
  let repo: ScratchRepo;
  let server: GitlabServer;
  afterEach(async () => {
    repo.cleanup();
    await server.close();
  });

  it("runs the pinned CLI under the gate's name: status and note posted, every report the job declares written", async () => {
    repo = scratchRepo("proofgate-component-checkout-");
    const base = repo.commit("base", {
      "proofgate.toml": CONFIG,
      "freeze.toml": "version = 1\n",
      "collected.txt": "tests/test_a.py::test_one\n\n1 test collected in 0.01s\n",
      ".gitignore": "proofgate-report/\n",
    });
    const head = repo.commit("a human change", { "notes.txt": "x = 1\n" });
    // What the proof run left behind: its Cobertura XML, which the gate reads and the MR diff shows.
    cpSync(
      join(ROOT, "packages/core/src/coverage/__fixtures__/cobertura-coveragepy-6.5-lines.xml"),
      join(repo.dir, "coverage.xml"),
    );
    // The test job bound its evidence to the head (proofgate record), as docs/config.md#evidence asks.
    stampEvidence(repo.dir, ["collected.txt", "coverage.xml"]);

    server = await startGitlabServer([
      (req) => ({
        status: 201,
        body: { id: 1, sha: head, name: (req.body as { name: string }).name, status: "success" },
      }),
      () => ({ status: 200, body: { id: 77, username: "proofgate-bot" } }),
      () => ({ status: 200, body: [] }),
      () => ({ status: 201, body: { id: 900, body: "x", author: { id: 77 }, system: false } }),
    ]);
    const bin = mkdtempSync(join(temp, "bin-"));
    writeNpxStandIn(bin, VERSION);
    // run: false, so no [commands] run; the install step stands in for pip.
    const { job } = interpolate({
      image: "python:3.12",
      name: "api",
      run: false,
      install: "echo installing test dependencies",
    });
    const env: Record<string, string> = {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      HOME: temp,
      ...ISOLATED_GIT_ENV,
      CI: "true",
      GITLAB_CI: "true",
      CI_PIPELINE_SOURCE: "merge_request_event",
      CI_API_V4_URL: server.apiUrl,
      CI_PROJECT_ID: "42",
      CI_PROJECT_PATH: "g/p",
      CI_PROJECT_DIR: repo.dir,
      CI_PIPELINE_ID: "8",
      CI_JOB_URL: "https://gitlab.example.com/g/p/-/jobs/9",
      CI_MERGE_REQUEST_IID: "7",
      CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main",
      CI_COMMIT_SHA: head,
      CI_DEFAULT_BRANCH: "main",
      PROOFGATE_GITLAB_TOKEN: "glpat-test",
      CI_JOB_TOKEN: "job-token",
    };
    // The rule GitLab evaluates: this is a merge request pipeline.
    expect(job.rules[0]!.if).toBe(`$CI_PIPELINE_SOURCE == "${env.CI_PIPELINE_SOURCE}"`);
    // GitLab's shell runs the script's lines in one session and stops at the first that fails.
    const child = spawn("bash", ["-eo", "pipefail", "-c", job.script.join("\n")], { cwd: repo.dir, env });
    let log = "";
    child.stdout.on("data", (c: Buffer) => (log += c.toString()));
    child.stderr.on("data", (c: Buffer) => (log += c.toString()));
    const code = await new Promise<number | null>((ok) => child.on("close", ok));
    expect(log).toContain("installing test dependencies");
    expect(code, log).toBe(0);

    // The coverage regex, read as GitLab does (the last matching line of the log).
    const regex = new RegExp(job.coverage.slice(1, -1));
    const matched = log.split("\n").filter((l) => regex.test(l));
    expect(matched.at(-1)).toMatch(/Proven coverage: 73\.33%/);
    // The commit status and the note carry the gate's name.
    expect(server.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /gitlab/api/v4/projects/42/statuses/${head}`,
      "GET /gitlab/api/v4/user",
      "GET /gitlab/api/v4/projects/42/merge_requests/7/notes",
      "POST /gitlab/api/v4/projects/42/merge_requests/7/notes",
    ]);
    expect(server.seen[0]!.body).toMatchObject({ name: "api", state: "success", coverage: 73.33 });
    expect((server.seen[3]!.body as { body: string }).body).toMatch(/^<!-- proofgate:gitlab:mr-note:api -->\n/);
    // Every file the job's artifacts name exists, so GitLab uploads each report.
    const reports = job.artifacts.reports;
    for (const path of [
      reports.junit,
      reports.codequality,
      reports.dotenv,
      reports.coverage_report.path,
      ...job.artifacts.paths,
    ])
      expect(existsSync(join(repo.dir, path)), path).toBe(true);
    // The MR diff's line coverage is the gate's proven lines, with the proof run's numbers.
    const proven = readFileSync(join(repo.dir, reports.coverage_report.path), "utf8");
    expect(proven).toContain(`<source>${repo.dir}</source>`);
    // No test is frozen here, so the proven lines are the proof run's, file by file.
    const counts = (xml: string) => /lines-valid="\d+" lines-covered="\d+" line-rate="[\d.]+"/.exec(xml)?.[0];
    expect(counts(proven)).toBe(counts(COBERTURA));
    const filenames = (xml: string) => [...xml.matchAll(/filename="([^"]+)"/g)].map((m) => m[1]).sort();
    expect(filenames(proven)).toEqual(filenames(COBERTURA));
    expect(readFileSync(join(repo.dir, reports.dotenv), "utf8")).toMatch(/^PROOFGATE_DECISION=MERGE$/m);
  });
});

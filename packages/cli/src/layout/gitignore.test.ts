import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_AGENT_PATTERNS, defaultConfig } from "@proofgate/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendGitignore, ignoreEntries, missingIgnoreEntries } from "./gitignore.js";

let repo: string;

function git(...args: string[]): string {
  const r = spawnSync("git", args, {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

const config = () => {
  const c = defaultConfig(DEFAULT_AGENT_PATTERNS);
  c.results.junit = ["results.xml"];
  c.properties.results = ["properties.xml"];
  return c;
};
const lines = (entries: { line: string }[]) => entries.map((e) => e.line);

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "proofgate-gitignore-"));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("ignoreEntries", () => {
  it("names every file the config's commands write, coverage.py's data, the report folder and Python's caches", () => {
    const c = config();
    c.coverage.contexts = [".coverage"];
    expect(lines(ignoreEntries(c, "proofgate-report", true))).toEqual([
      "collected.txt",
      "proven_coverage.json",
      ".coverage",
      "results.xml",
      "properties.xml",
      "proofgate-evidence.json",
      ".coverage.*",
      "proofgate-report/",
      "__pycache__/",
      ".hypothesis/",
    ]);
  });

  it("leaves out the property results when the suite is off, and .hypothesis without hypothesis", () => {
    const c = config();
    c.properties.enabled = false;
    c.properties.judgeTests = false;
    expect(lines(ignoreEntries(c, "out", false))).toEqual([
      "collected.txt",
      "proven_coverage.json",
      "results.xml",
      "proofgate-evidence.json",
      ".coverage",
      ".coverage.*",
      "out/",
      "__pycache__/",
    ]);
    // The seeds off, the property tests judged: the property step still runs and writes its results.
    c.properties.judgeTests = true;
    expect(lines(ignoreEntries(c, "out", false))).toEqual(expect.arrayContaining(c.properties.results));
  });
});

describe("missingIgnoreEntries", () => {
  it("asks git: a broader pattern, or a line of .git/info/exclude, counts", () => {
    git("init", "-q");
    writeFileSync(join(repo, ".gitignore"), "*.pyc\n.coverage*\n*.xml\n");
    writeFileSync(join(repo, ".git/info/exclude"), "collected.txt\n");
    expect(lines(missingIgnoreEntries(repo, ignoreEntries(config(), "proofgate-report", false), process.env))).toEqual([
      "proven_coverage.json",
      "proofgate-evidence.json",
      "proofgate-report/",
    ]);
  });

  it("outside a git work tree: the lines of .gitignore, with or without a leading or trailing slash", () => {
    writeFileSync(join(repo, ".gitignore"), "/collected.txt\nproofgate-report\n__pycache__/\n");
    expect(lines(missingIgnoreEntries(repo, ignoreEntries(config(), "proofgate-report", false), process.env))).toEqual([
      "proven_coverage.json",
      "results.xml",
      "properties.xml",
      "proofgate-evidence.json",
      ".coverage",
      ".coverage.*",
    ]);
  });

  it("once appended, nothing is missing: git reads the lines as meant", () => {
    git("init", "-q");
    const entries = ignoreEntries(config(), "proofgate-report", true);
    appendGitignore(repo, missingIgnoreEntries(repo, entries, process.env));
    expect(missingIgnoreEntries(repo, entries, process.env)).toEqual([]);
    // And git ignores what a run leaves, in a subfolder too.
    mkdirSync(join(repo, "pkg/__pycache__"), { recursive: true });
    writeFileSync(join(repo, "pkg/__pycache__/m.cpython-311.pyc"), "");
    writeFileSync(join(repo, ".coverage"), "");
    writeFileSync(join(repo, "results.xml"), "");
    expect(git("status", "--porcelain", "--untracked-files=all")).toBe("?? .gitignore\n");
  });
});

describe("appendGitignore", () => {
  it("creates .gitignore when there is none", () => {
    appendGitignore(repo, [{ line: "collected.txt", probe: "collected.txt" }]);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe(
      "# proofgate check --run writes these\ncollected.txt\n",
    );
  });

  it("appends below the team's lines, byte for byte kept, even without a last newline", () => {
    writeFileSync(join(repo, ".gitignore"), "build/\r\n*.egg-info");
    appendGitignore(repo, [{ line: ".coverage", probe: ".coverage" }]);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe(
      "build/\r\n*.egg-info\n\n# proofgate check --run writes these\n.coverage\n",
    );
  });

  it("refuses a .gitignore that is a symlink, and leaves its target alone", () => {
    writeFileSync(join(repo, "elsewhere"), "mine\n");
    symlinkSync("elsewhere", join(repo, ".gitignore"));
    expect(() => appendGitignore(repo, [{ line: ".coverage", probe: ".coverage" }])).toThrow(/not a regular file/);
    expect(readFileSync(join(repo, "elsewhere"), "utf8")).toBe("mine\n");
  });

  it("a vitest project's: its evidence and the report folder, not coverage.py's data or Python's caches", () => {
    const c = config();
    c.commands.runner = "vitest";
    c.universe.collected = ["collected.json"];
    c.coverage.reports = ["coverage/coverage-final.json"];
    expect(lines(ignoreEntries(c, "proofgate-report", false))).toEqual([
      "collected.json",
      "coverage/coverage-final.json",
      "results.xml",
      "properties.xml",
      "proofgate-evidence.json",
      "proofgate-report/",
    ]);
  });
});

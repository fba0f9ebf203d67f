// bin.ts runs a plain `lock` command line without yargs (plain-args.ts, lock-entry.ts). Against the same
// command through yargs (main.ts): the plain command lines it takes must get the same exit code, output and
// files; every other command line must be left to yargs. (bundle.test.ts checks what the path loads.)
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { plainLockArgs } from "./plain-args.js";
import { runLockCommand } from "./lock-entry.js";
import { run, type CliIo } from "./main.js";

describe("plainLockArgs", () => {
  it.each([
    [["lock"], { check: false }],
    [["lock", "--check"], { check: true }],
    [["lock", "--lock", "other.lock"], { check: false, lock: "other.lock" }],
    [["lock", "--lock=other.lock", "--check"], { check: true, lock: "other.lock" }],
    [["lock", "--paths", "a", "b c", "--lock", "x.lock"], { check: false, paths: ["a", "b c"], lock: "x.lock" }],
    [["lock", "--check", "--paths", "tests/fixtures"], { check: true, paths: ["tests/fixtures"] }],
    [["lock", "--lock", "a=b"], { check: false, lock: "a=b" }],
  ])("takes %j", (argv, expected) => {
    expect(plainLockArgs(argv)).toEqual(expected);
  });

  it.each([
    [[]],
    [["--check", "lock"]],
    [["ledger", "lint"]],
    [["lock", "--help"]],
    [["lock", "-h"]],
    [["lock", "--version"]],
    [["lock", "extra"]],
    [["lock", "--unknown"]],
    [["lock", "--no-check"]],
    [["lock", "--check=false"]],
    [["lock", "--check", "--check"]],
    [["lock", "--lock"]],
    [["lock", "--lock", ""]],
    [["lock", "--lock="]],
    [["lock", "--lock", "--check"]],
    [["lock", "--lock", "-x.lock"]],
    [["lock", "--lock", "a", "--lock", "b"]],
    [["lock", "--paths"]],
    [["lock", "--paths=a"]],
    [["lock", "--paths", "a", "--paths", "b"]],
    [["lock", "--", "x"]],
    [["lock", "-c"]],
  ])("leaves %j to yargs", (argv) => {
    expect(plainLockArgs(argv)).toBeUndefined();
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-lock-entry-"));
  dirs.push(dir);
  return dir;
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** Every file under `root`, relative path to content. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = join(entry.parentPath, entry.name);
    out[abs.slice(root.length + 1)] = readFileSync(abs, "utf8");
  }
  return out;
}

interface Answer {
  code: number | undefined;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

async function answer(repo: string, argv: string[], via: "plain" | "yargs"): Promise<Answer> {
  const cwd = tempDir();
  cpSync(repo, cwd, { recursive: true });
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    now: () => new Date("2026-12-02T12:00:00Z"),
    cwd,
    env: {},
    isTTY: false,
  };
  const plain = plainLockArgs(argv);
  expect(plain, "a plain command line").toBeDefined();
  const code = via === "plain" ? await runLockCommand(plain!, io) : await run(argv, io);
  // The temp folder's name differs between the two runs: compare the messages without it.
  return {
    code,
    stdout: stdout.replaceAll(cwd, "<repo>"),
    stderr: stderr.replaceAll(cwd, "<repo>"),
    files: snapshot(cwd),
  };
}

/** Gives `repo` the fixtures.lock that `proofgate lock` writes for it. */
async function lockIn(repo: string): Promise<void> {
  const locked = await answer(repo, ["lock"], "plain");
  expect(locked.code).toBe(0);
  writeFileSync(join(repo, "fixtures.lock"), locked.files["fixtures.lock"]!);
}

const TREE = {
  "tests/fixtures/a.json": '{"a": 1}\n',
  "tests/fixtures/b/c.txt": "c\n",
  "tests/fixtures/b/d.txt": "d\n",
  "tests/other/e.txt": "e\n",
};

describe("runLockCommand answers as yargs does", () => {
  /** `locked`: the repo has the lock `proofgate lock` writes for its files. */
  const cases: { name: string; files: Record<string, string>; argv: string[]; locked?: boolean }[] = [
    { name: "a new lock", files: TREE, argv: ["lock"] },
    { name: "a lock that is up to date", files: TREE, argv: ["lock"], locked: true },
    { name: "--check with a lock that matches", files: TREE, argv: ["lock", "--check"], locked: true },
    { name: "--check without a lock (exit 2)", files: TREE, argv: ["lock", "--check"] },
    {
      name: "--lock and --paths",
      files: TREE,
      argv: ["lock", "--paths", "tests/fixtures/b", "tests/other", "--lock", "my.lock"],
    },
    { name: "--lock=FILE", files: TREE, argv: ["lock", "--lock=sub/dir.lock"] },
    { name: "a fixture path that does not exist (exit 2)", files: TREE, argv: ["lock", "--paths", "tests/missing"] },
    {
      name: "the paths and lock of proofgate.toml",
      files: { ...TREE, "proofgate.toml": '[fixtures]\npaths = ["tests/other"]\nlock = "other.lock"\n' },
      argv: ["lock"],
    },
    {
      name: "a proofgate.toml that does not parse (exit 2)",
      files: { ...TREE, "proofgate.toml": "[fixtures\n" },
      argv: ["lock"],
    },
    {
      name: "a lock inside the fixture path (left out of itself)",
      files: TREE,
      argv: ["lock", "--lock", "tests/fixtures/fixtures.lock"],
    },
    { name: "a fixture path that is a file", files: TREE, argv: ["lock", "--paths", "tests/fixtures/a.json"] },
    {
      name: "a name with a backslash (exit 2)",
      files: { ...TREE, "tests/fixtures/a\\b.txt": "x\n" },
      argv: ["lock"],
    },
    {
      name: "a [fixtures] section with a wrong type (exit 2)",
      files: { ...TREE, "proofgate.toml": "[fixtures]\npaths = 3\n" },
      argv: ["lock", "--check"],
    },
    {
      name: "a malformed old lock, rewritten with warnings",
      files: { ...TREE, "fixtures.lock": "not a lock line\n" },
      argv: ["lock"],
    },
  ];

  it.each(cases)("$name", async ({ files, argv, locked }) => {
    const repo = tempDir();
    write(repo, files);
    if (locked) await lockIn(repo);
    const plain = await answer(repo, argv, "plain");
    const yargs = await answer(repo, argv, "yargs");
    expect(plain.code).toBeDefined();
    expect(plain).toEqual(yargs);
  });

  it("--check after a fixture changed (exit 1, the same listing)", async () => {
    const repo = tempDir();
    write(repo, TREE);
    await lockIn(repo);
    write(repo, { "tests/fixtures/a.json": '{"a": 2}\n', "tests/fixtures/new.txt": "new\n" });
    const plain = await answer(repo, ["lock", "--check"], "plain");
    const yargs = await answer(repo, ["lock", "--check"], "yargs");
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain("changed  tests/fixtures/a.json");
    expect(plain).toEqual(yargs);
  });

  it("a symlink among the fixtures (exit 2, named)", async () => {
    const repo = tempDir();
    write(repo, TREE);
    symlinkSync("a.json", join(repo, "tests/fixtures/link.json"));
    const plain = await answer(repo, ["lock"], "plain");
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("tests/fixtures/link.json");
    expect(plain).toEqual(await answer(repo, ["lock"], "yargs"));
  });

  it("the cases above cover exit 0 and exit 2", async () => {
    const repo = tempDir();
    write(repo, TREE);
    expect((await answer(repo, ["lock"], "plain")).code).toBe(0);
    expect((await answer(repo, ["lock", "--check"], "plain")).code).toBe(2);
  });
});

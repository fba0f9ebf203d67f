// `proofgate lock` without yargs (lock-entry.ts) against the same command through yargs (main.ts): the
// plain command lines it takes must get the same exit code, output and files; every other command line
// must be left to yargs. And the bundle's lock path must stay light (the reason it exists).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { plainLockArgs } from "./lock-args.js";
import { runLockCommand } from "./lock-entry.js";
import { run, type CliIo } from "./main.js";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

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
});

// The static imports of a bundle file, followed to every chunk, with the source paths esbuild notes in them.
function staticGraph(entry: string): { files: string[]; sources: string[]; bytes: number } {
  const files = new Set<string>();
  const sources: string[] = [];
  let bytes = 0;
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(DIST, file), "utf8");
    bytes += text.length;
    for (const m of text.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)) sources.push(m[1]!);
    for (const m of text.matchAll(/^import(?:[^"';]*?from)?\s*"\.\/([^"]+\.js)";?$/gm)) visit(m[1]!);
  };
  visit(entry);
  return { files: [...files], sources, bytes };
}

describe("the bundle's lock path", () => {
  it("loads neither yargs nor the rest of core", () => {
    const bin = readFileSync(join(DIST, "proofgate.js"), "utf8");
    const entry = /import\("\.\/(lock-entry-[^"]+\.js)"\)/.exec(bin)?.[1];
    expect(entry, "bin.ts imports lock-entry.js for `lock`").toBeDefined();
    const graph = staticGraph(entry!);
    // What it needs is there (so the scan reads the chunks)...
    expect(graph.sources.some((s) => s.endsWith("core/dist/fixtures-lock.js"))).toBe(true);
    expect(graph.sources.some((s) => s.endsWith("core/dist/config.js"))).toBe(true);
    expect(graph.sources.some((s) => s.endsWith("gate/dist/node/fixture-hashing/hash-files.js"))).toBe(true);
    // ...and what it does not need is not: yargs, the XML and glob libraries, the policy modules.
    const heavy = graph.sources.filter(
      (s) =>
        /\/(yargs|fast-xml-parser|picomatch)@|core\/dist\/(decide|ledger|junit|universe|patch|signals|platform|coverage)|gate\/dist\/(evaluate|run-gate|sources\/(coverage|inputs|patch|run-commands))/.test(
          s,
        ) || s.endsWith("src/main.ts"),
    );
    expect(heavy).toEqual([]);
    expect(graph.bytes).toBeLessThan(150_000);
  });
});

describe("the bundle's deselect path", () => {
  // `deselect` runs before every proof run; the gate's policy (patch history, coverage models, platforms)
  // is not its business, and loading it cost 12% of its time (BENCHMARKS.md, issue 14).
  it("loads yargs and what deselect needs, not the rest of the gate", () => {
    const bin = readFileSync(join(DIST, "proofgate.js"), "utf8");
    const main = /import\("\.\/(main-[^"]+\.js)"\)/.exec(bin)?.[1];
    expect(main, "bin.ts imports main.js").toBeDefined();
    const mainText = readFileSync(join(DIST, main!), "utf8");
    const yargsChunk = readdirSync(DIST).find((f) =>
      /import\("\.\/deselect-[^"]+\.js"\)/.test(readFileSync(join(DIST, f), "utf8")),
    );
    expect(yargsChunk, "a chunk imports deselect.js").toBeDefined();
    const deselect = /import\("\.\/(deselect-[^"]+\.js)"\)/.exec(readFileSync(join(DIST, yargsChunk!), "utf8"))![1]!;
    const graphs = [staticGraph(main!), staticGraph(yargsChunk!), staticGraph(deselect)];
    const sources = graphs.flatMap((g) => g.sources);
    expect(mainText.length).toBeGreaterThan(0);
    expect(sources.some((s) => /\/yargs@/.test(s))).toBe(true);
    expect(sources.some((s) => s.endsWith("core/dist/deselect.js"))).toBe(true);
    expect(sources.some((s) => s.endsWith("core/dist/ledger.js"))).toBe(true);
    const heavy = sources.filter((s) =>
      /\/picomatch@|core\/dist\/(decide|build-report|patch|signals|platform|coverage-model|coverage-config|runner-config|proof-run)|gate\/dist\/(evaluate|run-gate|sources\/(coverage|patch|run-commands|signatures))/.test(
        s,
      ),
    );
    expect(heavy).toEqual([]);
  });
});

describe("the bundle's decide path", () => {
  it("does not load the platforms' API clients (only `decide --base` asks for its CI's history fix)", () => {
    const chunk = readdirSync(DIST).find((f) =>
      /import\("\.\/decide-[^"]+\.js"\)/.test(readFileSync(join(DIST, f), "utf8")),
    );
    const decide = /import\("\.\/(decide-[^"]+\.js)"\)/.exec(readFileSync(join(DIST, chunk!), "utf8"))![1]!;
    const graph = staticGraph(decide);
    expect(graph.sources.some((s) => s.endsWith("gate/dist/evaluate.js"))).toBe(true);
    expect(
      graph.sources.filter((s) =>
        /\/(@octokit|@gitbeaker|bottleneck)[/@+]|\/(github|gitlab|buildkite)\/dist\//.test(s),
      ),
    ).toEqual([]);
  });
});

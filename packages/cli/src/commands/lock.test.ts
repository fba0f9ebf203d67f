import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../io.js";
import { startHashWorkers } from "@proofgate/gate/hash-workers";
import { checkFixtureLock } from "@proofgate/gate/fixture-lock";
import { lockFixtures } from "./lock.js";

// `proofgate lock` as users run it: the built bundle (dist/proofgate.js, with dist/hash-worker.cjs beside
// it), spawned in a temp repo. The real coreutils `sha256sum -c` must accept every lock it writes.

const BUNDLE = fileURLToPath(new URL("../../dist/proofgate.js", import.meta.url));
const WORKER = new URL("../../dist/hash-worker.cjs", import.meta.url);

let repo: string;

function write(rel: string, content: string | Buffer): void {
  const path = join(repo, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function proofgate(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { cwd: repo, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function sha256sumCheck(lock = "fixtures.lock"): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync("sha256sum", ["--strict", "-c", lock], { cwd: repo, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The article's pipeline, in the C locale so `sort -z` gives byte order. */
function articlePipeline(): string {
  const r = spawnSync("bash", ["-c", "find tests/fixtures -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(r.status).toBe(0);
  return r.stdout;
}

function memoryIo(): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    now: () => new Date("2026-12-02T00:00:00Z"),
    cwd: repo,
    env: process.env,
  };
  return io;
}

/** The names the Show bullet asks for, plus byte-order traps: U+FF5E sorts before U+1F600 in UTF-8, after it in UTF-16. */
function writeTree(): void {
  write("tests/fixtures/with space.json", '{"a": 1}\n');
  write("tests/fixtures/  two leading spaces", "x");
  write("tests/fixtures/trailing space ", "y");
  write("tests/fixtures/ünïcödé.txt", "é\n");
  write("tests/fixtures/日本語/ファイル.csv", "a,b\n1,2\n");
  write("tests/fixtures/emoji/\u{1F600}.bin", Buffer.from([0, 1, 2, 255]));
  write("tests/fixtures/emoji/\uFF5E.bin", Buffer.from([3]));
  write("tests/fixtures/nested/a/b/c/deep.txt", "deep\n");
  write("tests/fixtures/Zebra", "upper case sorts first\n");
  write("tests/fixtures/empty-file", "");
  write("tests/fixtures/-dash", "a name that looks like a flag\n");
  mkdirSync(join(repo, "tests/fixtures/empty-folder/inner"), { recursive: true });
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "proofgate-lock-"));
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
});

// Each test spawns the bundle a few times; on a loaded machine one spawn can take seconds.
describe("proofgate lock (the bundle)", { timeout: 60_000 }, () => {
  it("has its worker beside it in dist/", () => {
    expect(existsSync(BUNDLE)).toBe(true);
    expect(existsSync(fileURLToPath(WORKER))).toBe(true);
  });

  it("writes a lock that the real `sha256sum -c` accepts, byte for byte the article's pipeline in the C locale", () => {
    writeTree();
    const r = proofgate("lock");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("wrote fixtures.lock: 11 file(s), a new lock\n");
    const lock = readFileSync(join(repo, "fixtures.lock"), "utf8");
    expect(lock).toBe(articlePipeline());
    const paths = lock
      .trimEnd()
      .split("\n")
      .map((l) => l.slice(66));
    expect(paths).toEqual([...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(paths.indexOf("tests/fixtures/emoji/\uFF5E.bin")).toBeLessThan(
      paths.indexOf("tests/fixtures/emoji/\u{1F600}.bin"),
    );
    const check = sha256sumCheck();
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    expect(check.stdout.trimEnd().split("\n")).toHaveLength(11);
    expect(check.stdout).toContain("tests/fixtures/  two leading spaces: OK");
    expect(check.stdout).toContain("tests/fixtures/日本語/ファイル.csv: OK");
  });

  it("walks in the lock's byte order where a folder's name sorts against its neighbours' (a-, a.txt, a/, a0)", () => {
    // '-' (0x2D) and '.' (0x2E) sort before the '/' (0x2F) of a folder, '0' (0x30) after it.
    for (const name of [
      "a-",
      "a.txt",
      "a/x",
      "a/y/z",
      "a/y.txt",
      "a0/b",
      "b",
      "\uFF5E/x",
      "\u{1F600}/x",
      "\u{1F600}.x",
    ])
      write(`tests/fixtures/${name}`, `${name}\n`);
    // Enough files for several batches, in folders that sort between the others.
    for (let i = 0; i < 600; i++) write(`tests/fixtures/a/many/f${i}`, `${i}\n`);
    const r = proofgate("lock");
    expect(r.code).toBe(0);
    const lock = readFileSync(join(repo, "fixtures.lock"), "utf8");
    expect(lock).toBe(articlePipeline());
    // Several fixture paths, given out of order and overlapping, give the same lock.
    unlinkSync(join(repo, "fixtures.lock"));
    expect(proofgate("lock", "--paths", "tests/fixtures/a0", "tests/fixtures/a/many", "tests/fixtures").code).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(lock);
  });

  it("--help and a usage error of `lock` are as before (yargs answers them; no hash worker starts)", () => {
    const help = proofgate("lock", "--help");
    expect(help.code).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toContain("proofgate lock");
    expect(help.stdout).toContain("--check");
    const bad = proofgate("lock", "--bogus");
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr: "proofgate: error: Unknown argument: bogus. Fix: see proofgate --help\n",
    });
    expect(proofgate("lock", "--lock").code).toBe(2);
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
  });

  it("leaves an up-to-date lock alone, and --check passes", () => {
    writeTree();
    expect(proofgate("lock").code).toBe(0);
    const before = statSync(join(repo, "fixtures.lock")).mtimeMs;
    const again = proofgate("lock");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("fixtures.lock is up to date (11 file(s))\n");
    expect(statSync(join(repo, "fixtures.lock")).mtimeMs).toBe(before);
    const check = proofgate("lock", "--check");
    expect(check).toEqual({ code: 0, stdout: "fixtures.lock matches the 11 fixture file(s)\n", stderr: "" });
  });

  it("--check lists exactly the files changed, added and removed, exits 1 and writes nothing", () => {
    writeTree();
    expect(proofgate("lock").code).toBe(0);
    const lock = readFileSync(join(repo, "fixtures.lock"), "utf8");
    write("tests/fixtures/with space.json", '{"a": 2}\n');
    write("tests/fixtures/nested/new \u{1F600}.txt", "new\n");
    unlinkSync(join(repo, "tests/fixtures/ünïcödé.txt"));
    const r = proofgate("lock", "--check");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      "fixtures_unlocked: fixtures.lock differs from the fixture files (1 changed, 1 added, 1 removed):\n" +
        "  changed  tests/fixtures/with space.json\n" +
        "  added    tests/fixtures/nested/new \u{1F600}.txt\n" +
        "  removed  tests/fixtures/ünïcödé.txt\n" +
        "Fix: review the change, then run `proofgate lock` and commit fixtures.lock (a fixture change needs Fixture-Lock: human)\n",
    );
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(lock);
    // `lock` then rewrites it and prints the same list; the new lock verifies.
    const w = proofgate("lock");
    expect(w.code).toBe(0);
    expect(w.stdout).toContain(
      "wrote fixtures.lock: 11 file(s) (1 changed, 1 added, 1 removed)\n  changed  tests/fixtures/with space.json\n",
    );
    expect(sha256sumCheck().code).toBe(0);
    expect(proofgate("lock", "--check").code).toBe(0);
  });

  it("a symlink is exit 2 naming it, and no lock is written", () => {
    writeTree();
    symlinkSync("/etc/passwd", join(repo, "tests/fixtures/nested/passwd"));
    const r = proofgate("lock");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^proofgate: error: tests\/fixtures\/nested\/passwd: is a symlink: .*Fix: .*allow_symlinks/,
    );
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(existsSync(join(repo, "fixtures.lock"))).toBe(false);
  });

  it("a symlink to a folder is not followed", () => {
    writeTree();
    symlinkSync(join(repo, "tests/fixtures/nested"), join(repo, "tests/fixtures/loop"));
    const r = proofgate("lock", "--check");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("proofgate: error: tests/fixtures/loop: is a symlink");
  });

  it("a name with a newline, a backslash or a carriage return is exit 2 naming it, one line each", () => {
    writeTree();
    write("tests/fixtures/bad\nname.txt", "x");
    write("tests/fixtures/back\\slash", "x");
    write("tests/fixtures/cr\rname", "x");
    symlinkSync("with space.json", join(repo, "tests/fixtures/link"));
    const r = proofgate("lock");
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(r.stderr).toContain("proofgate: error: tests/fixtures/bad\\nname.txt: the name has a newline");
    expect(r.stderr).toContain("proofgate: error: tests/fixtures/back\\slash: the name has a backslash");
    expect(r.stderr).toContain("proofgate: error: tests/fixtures/cr\\rname: the name has a carriage return");
    expect(r.stderr).toContain("proofgate: error: tests/fixtures/link: is a symlink");
  });

  it("lock lines with ../ or an absolute path: --check exits 2 naming the lock's lines", () => {
    writeTree();
    expect(proofgate("lock").code).toBe(0);
    const digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const lock = readFileSync(join(repo, "fixtures.lock"), "utf8");
    writeFileSync(join(repo, "fixtures.lock"), `${digest}  ../x\n${digest}  /etc/passwd\n${lock}`);
    const r = proofgate("lock", "--check");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^proofgate: error: fixtures\.lock:1: the path has a `\.\.` segment .*"\.\.\/x"\. Fix: /);
    expect(lines[1]).toMatch(/^proofgate: error: fixtures\.lock:2: the path is absolute: "\/etc\/passwd"\. Fix: /);
    expect(lines).toHaveLength(2);
  });

  it("`lock` replaces a malformed lock, with a warning per problem", () => {
    writeTree();
    writeFileSync(join(repo, "fixtures.lock"), `${"0".repeat(64)}  ../x\r\n`);
    const r = proofgate("lock");
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^proofgate: warning: fixtures\.lock:1: .*\(rewriting the lock\)/);
    expect(sha256sumCheck().code).toBe(0);
  });

  it("a lock with the same digests in another spelling (sha256sum's binary mode) is rewritten, with its warning", () => {
    writeTree();
    expect(proofgate("lock").code).toBe(0);
    const canonical = readFileSync(join(repo, "fixtures.lock"), "utf8");
    // Only a lock byte for byte the canonical one is "up to date" without being read line by line.
    writeFileSync(join(repo, "fixtures.lock"), canonical.replace(/^([0-9a-f]{64})  /, "$1 *"));
    const r = proofgate("lock");
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^proofgate: warning: fixtures\.lock:1: a binary-mode line/);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(canonical);
    expect(proofgate("lock")).toEqual({ code: 0, stdout: "fixtures.lock is up to date (11 file(s))\n", stderr: "" });
  });

  it("--check without a lock, a missing fixture path, and a tree with no file are exit 2", () => {
    writeTree();
    const noLock = proofgate("lock", "--check");
    expect(noLock.code).toBe(2);
    expect(noLock.stderr).toMatch(
      /^proofgate: error: fixtures\.lock: the fixture lock does not exist\. Fix: write it with `proofgate lock`/,
    );
    const noPath = proofgate("lock", "--paths", "tests/golden");
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toMatch(/^proofgate: error: tests\/golden: the fixture path does not exist/);
    const empty = proofgate("lock", "--paths", "tests/fixtures/empty-folder");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("hold no file");
    const outside = proofgate("lock", "--paths", "../elsewhere");
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("../elsewhere: the fixture path is not a path inside the repo");
  });

  it("--paths takes several files and folders, --lock another file; the lock never hashes itself", () => {
    writeTree();
    write("golden/one.txt", "1\n");
    write("data/two.txt", "2\n");
    const r = proofgate(
      "lock",
      "--paths",
      "golden/",
      "./data/two.txt",
      "tests/fixtures/nested",
      "--lock",
      "golden/golden.lock",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lock = readFileSync(join(repo, "golden/golden.lock"), "utf8");
    expect(
      lock
        .trimEnd()
        .split("\n")
        .map((l) => l.slice(66)),
    ).toEqual(["data/two.txt", "golden/one.txt", "tests/fixtures/nested/a/b/c/deep.txt"]);
    expect(sha256sumCheck("golden/golden.lock").code).toBe(0);
    expect(
      proofgate(
        "lock",
        "--paths",
        "golden",
        "data/two.txt",
        "tests/fixtures/nested",
        "--lock",
        "golden/golden.lock",
        "--check",
      ).code,
    ).toBe(0);
    // A single fixture path that is the lock itself, in a folder or at the root: still never hashed.
    for (const lockPath of ["golden/golden.lock", "root.lock"]) {
      write(lockPath, "seed\n");
      const self = proofgate("lock", "--paths", lockPath, "--lock", lockPath);
      expect(self.code).toBe(2);
      expect(self.stderr).toContain("the fixture paths hold no file");
    }
  });

  it("takes [fixtures] paths and lock from proofgate.toml; flags still win; a bad config is exit 2 at its line", () => {
    writeTree();
    write("golden/one.txt", "1\n");
    write("proofgate.toml", '[fixtures]\npaths = ["golden"]\nlock = "golden.lock"\n');
    const r = proofgate("lock");
    expect(r.code, r.stderr).toBe(0);
    expect(
      readFileSync(join(repo, "golden.lock"), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => l.slice(66)),
    ).toEqual(["golden/one.txt"]);
    expect(proofgate("lock", "--check", "--lock", "golden.lock", "--paths", "golden").code).toBe(0);
    write("proofgate.toml", "[fixtures]\npaths = 3\n");
    const bad = proofgate("lock");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^proofgate: error: proofgate\.toml:2: \[fixtures\] paths must be a list/);
    rmSync(join(repo, "proofgate.toml"));
  });

  it("overlapping paths list each file once; `.` locks the whole repo but not the lock itself or .git", () => {
    writeTree();
    write(".git/HEAD", "ref: refs/heads/main\n");
    write("README.md", "readme\n");
    const r = proofgate("lock", "--paths", "tests/fixtures", "tests/fixtures/nested", "tests/fixtures/Zebra");
    expect(r.code).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(articlePipeline());
    const all = proofgate("lock", "--paths", ".");
    expect(all.code).toBe(0);
    const paths = readFileSync(join(repo, "fixtures.lock"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => l.slice(66));
    expect(paths).toContain("README.md");
    expect(paths).not.toContain("fixtures.lock");
    expect(paths.some((p) => p.startsWith(".git/"))).toBe(false);
    expect(paths).toHaveLength(12);
    expect(sha256sumCheck().code).toBe(0);
    expect(proofgate("lock", "--paths", ".", "--check").code).toBe(0);
  });

  it("hashes many files across batches and big files in streams, as sha256sum does", () => {
    // Folders of ~430 files, one flat folder bigger than the walk's lead over the workers (2,048 files),
    // and 600 folders of one file each (a batch then carries many folders).
    for (let i = 0; i < 3000; i++) write(`tests/fixtures/many/${i % 7}/f${i}.txt`, `file ${i}\n`.repeat(i % 50));
    for (let i = 0; i < 2500; i++) write(`tests/fixtures/flat/f${i}`, `${i}`);
    for (let i = 0; i < 600; i++) write(`tests/fixtures/tiny/${i}/x.txt`, `tiny ${i}\n`);
    const big = Buffer.alloc(24 * 1024 * 1024 + 12345);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) & 0xff;
    write("tests/fixtures/big.bin", big);
    expect(proofgate("lock").code).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(articlePipeline());
  });

  it("a FIFO is exit 2, not a hang", () => {
    writeTree();
    const r = spawnSync("mkfifo", [join(repo, "tests/fixtures/pipe")]);
    if (r.status !== 0) return;
    const out = proofgate("lock");
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("tests/fixtures/pipe: is not a regular file");
  });

  it("a name that is not UTF-8 is exit 2", () => {
    writeTree();
    const name = Buffer.concat([
      Buffer.from(join(repo, "tests/fixtures/latin1-")),
      Buffer.from([0xe9]),
      Buffer.from(".txt"),
    ]);
    writeFileSync(name, "x");
    const out = proofgate("lock");
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("the name is not UTF-8");
  });
});

describe("lockFixtures / checkFixtureLock (in-process, the built worker)", { timeout: 60_000 }, () => {
  it("with allowSpecialNames, writes sha256sum's escaped lines, which the real sha256sum -c accepts", async () => {
    write("tests/fixtures/bad\nname.txt", "newline\n");
    write("tests/fixtures/back\\slash", "backslash\n");
    write("tests/fixtures/plain", "plain\n");
    const settings = {
      paths: ["tests/fixtures"],
      lock: "fixtures.lock",
      allowSpecialNames: true,
      hash: { workerUrl: WORKER },
    };
    const io = memoryIo();
    expect(await lockFixtures(settings, false, io)).toBe(0);
    const lock = readFileSync(join(repo, "fixtures.lock"), "utf8");
    const lines = lock.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\\[0-9a-f]{64} {2}tests\/fixtures\/back\\\\slash$/);
    expect(lines[1]).toMatch(/^\\[0-9a-f]{64} {2}tests\/fixtures\/bad\\nname\.txt$/);
    expect(lines[2]).toMatch(/^[0-9a-f]{64} {2}tests\/fixtures\/plain$/);
    expect(sha256sumCheck().code).toBe(0);
    const check = await checkFixtureLock(repo, settings);
    expect(check.comparison.equal).toBe(true);
    expect(check.files).toBe(3);
    // The same lock read strictly: exit 2 naming both escaped lines.
    await expect(checkFixtureLock(repo, { ...settings, allowSpecialNames: false })).rejects.toMatchObject({
      issues: expect.arrayContaining([expect.objectContaining({ file: "fixtures.lock", line: 1 })]),
    });
  });

  it("with allowSymlinks, hashes a symlinked file as its target (what sha256sum -c reads); a symlinked folder stays an error", async () => {
    write("outside.txt", "outside\n");
    write("tests/fixtures/real.txt", "real\n");
    symlinkSync("../../outside.txt", join(repo, "tests/fixtures/link.txt"));
    const settings = {
      paths: ["tests/fixtures"],
      lock: "fixtures.lock",
      allowSymlinks: true,
      hash: { workerUrl: WORKER },
    };
    expect(await lockFixtures(settings, false, memoryIo())).toBe(0);
    expect(sha256sumCheck().code).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toContain("  tests/fixtures/link.txt\n");
    symlinkSync("..", join(repo, "tests/fixtures/up"));
    await expect(lockFixtures(settings, true, memoryIo())).rejects.toMatchObject({
      issues: [expect.objectContaining({ file: "tests/fixtures/up" })],
    });
  });

  it("takes over workers started early (startHashWorkers); one that cannot start is an error, not a hang", async () => {
    writeTree();
    // Two hashing threads: the main thread and one worker.
    const settings = { paths: ["tests/fixtures"], lock: "fixtures.lock", hash: { workerUrl: WORKER, threads: 2 } };
    // Two started, one taken: the other is stopped. Started for another script: not used.
    startHashWorkers(WORKER, 2);
    startHashWorkers(new URL("./no-such-worker.js", WORKER), 1);
    expect(await lockFixtures(settings, false, memoryIo())).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(articlePipeline());
    const missing = new URL("./no-such-worker.js", WORKER);
    // Failed before the pool takes it (then a fresh one fails too) or after: the failure is reported.
    startHashWorkers(missing, 1);
    await expect(lockFixtures({ ...settings, hash: { workerUrl: missing } }, true, memoryIo())).rejects.toThrow(
      /hash worker/,
    );
  });

  it("with one thread the main thread hashes alone: no worker starts, and the lock is the same", async () => {
    for (let i = 0; i < 700; i++) write(`tests/fixtures/many/${i % 3}/f${i}.txt`, `file ${i}\n`);
    writeTree();
    const noWorker = new URL("./no-such-worker.js", WORKER);
    expect(
      await lockFixtures(
        { paths: ["tests/fixtures"], lock: "fixtures.lock", hash: { workerUrl: noWorker, threads: 1 } },
        false,
        memoryIo(),
      ),
    ).toBe(0);
    expect(readFileSync(join(repo, "fixtures.lock"), "utf8")).toBe(articlePipeline());
  });

  it("a worker script that cannot start is an error, not a hang", async () => {
    writeTree();
    const settings = {
      paths: ["tests/fixtures"],
      lock: "fixtures.lock",
      hash: { workerUrl: new URL("./no-such-worker.js", WORKER) },
    };
    await expect(lockFixtures(settings, false, memoryIo())).rejects.toThrow(/hash worker/);
  });

  it("checkFixtureLock returns the comparison for the gate (fixtures_unlocked)", async () => {
    writeTree();
    const settings = { paths: ["tests/fixtures"], lock: "fixtures.lock", hash: { workerUrl: WORKER, threads: 1 } };
    expect(await lockFixtures(settings, false, memoryIo())).toBe(0);
    write("tests/fixtures/Zebra", "changed\n");
    const { comparison } = await checkFixtureLock(repo, settings);
    expect(comparison).toEqual({ equal: false, changed: ["tests/fixtures/Zebra"], added: [], removed: [] });
  });
});

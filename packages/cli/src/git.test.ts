import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_AGENT_PATTERNS, GateError, classifyCommit, hasHumanTrailer } from "@proofgate/core";
import {
  changedPaths,
  listCommits,
  listFilesAt,
  readFileAt,
  resolveRange,
  runGit,
  shallowHistoryFix,
  type GitRange,
  type RangeResolution,
} from "./git.js";
import {
  ADA,
  DEPENDABOT,
  ISOLATED_GIT_ENV,
  scratchGit,
  scratchRepo,
  wrapRepo,
  type ScratchRepo,
} from "./git-scratch.js";

const repos: ScratchRepo[] = [];
const temps: string[] = [];
function track(repo: ScratchRepo): ScratchRepo {
  repos.push(repo);
  return repo;
}

beforeAll(() => {
  for (const [k, v] of Object.entries(ISOLATED_GIT_ENV)) vi.stubEnv(k, v);
  for (const k of ["GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"]) vi.stubEnv(k, "");
});
afterAll(() => {
  vi.unstubAllEnvs();
  for (const r of repos) r.cleanup();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function expectRange(result: RangeResolution): GitRange {
  if (!result.ok) throw new Error(`expected a range, got ${result.issue.message}`);
  return result.range;
}

function expectShallow(result: RangeResolution): { message: string; fix: string } {
  if (result.ok) throw new Error(`expected shallow_history, got ${result.range.base}..${result.range.head}`);
  expect(result.issue.code).toBe("shallow_history");
  return result.issue;
}

function gateError(fn: () => unknown): GateError {
  try {
    fn();
  } catch (error) {
    if (GateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a GateError");
}

/**
 * main: m1 - m2 - m3 (main advanced after the branch point m2)
 * feature (checked out): m2 - f1 - f2 - merge(main's m3) - f3
 */
function branchyRepo(): {
  repo: ScratchRepo;
  m1: string;
  m2: string;
  m3: string;
  f1: string;
  f2: string;
  merge: string;
  f3: string;
} {
  const repo = track(scratchRepo());
  const m1 = repo.commit("m1\n", { "README.md": "hello\n", "freeze.toml": "version = 1\n" });
  const m2 = repo.commit("m2\n", { "src/a.py": "a = 1\n" });
  repo.git(["checkout", "-q", "-b", "feature"]);
  const f1 = repo.commit(
    "f1: agent adds a lease\n",
    { "freeze.toml": "version = 1\n[[leases]]\n" },
    { author: DEPENDABOT },
  );
  const f2 = repo.commit("f2\n\nFreeze-Lease: human\n", { "src/b.py": "b = 2\n" });
  repo.git(["checkout", "-q", "main"]);
  const m3 = repo.commit("m3\n", { "src/c.py": "c = 3\n" });
  repo.git(["checkout", "-q", "feature"]);
  repo.git(["merge", "-q", "--no-ff", "--no-edit", "main"]);
  const merge = repo.git(["rev-parse", "HEAD"]).trim();
  const f3 = repo.commit("f3\n\nCo-authored-by: Claude <noreply@anthropic.com>\n", { "src/a.py": "a = 2\n" });
  return { repo, m1, m2, m3, f1, f2, merge, f3 };
}

let sharedRepo: ReturnType<typeof branchyRepo> | undefined;
/** One branchy history for the tests that only read it. */
function shared(): ReturnType<typeof branchyRepo> {
  sharedRepo ??= branchyRepo();
  return sharedRepo;
}

describe("runGit", () => {
  it("returns stdout and runs without a shell", () => {
    const repo = track(scratchRepo());
    const sha = repo.commit("one\n", { "a;echo pwned": "x\n" });
    expect(runGit(["rev-parse", "HEAD"], repo.dir).trim()).toBe(sha);
    expect(runGit(["ls-files", "a;echo pwned"], repo.dir)).toBe("a;echo pwned\n");
  });

  it("a failure is a GateError naming the command and git's first stderr line", () => {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-nogit-"));
    temps.push(dir);
    const error = gateError(() => runGit(["rev-parse", "--is-shallow-repository"], dir));
    expect(error.code).toBe("git_failed");
    expect(error.issues[0]!.message).toMatch(
      /^git rev-parse --is-shallow-repository exited 128: fatal: not a git repository/,
    );
    expect(error.issues[0]!.fix).toMatch(/inside the repository/);
  });
});

describe("resolveRange", () => {
  it("takes --base and --head as given, resolved to full object names", () => {
    const { repo, m2, f2 } = shared();
    const range = expectRange(resolveRange({ base: m2, head: f2, cwd: repo.dir }));
    expect(range).toEqual({ base: m2, head: f2, baseRef: m2, headRef: f2, baseSource: "flag", shallow: false });
    expect(expectRange(resolveRange({ base: "main~1", cwd: repo.dir })).base).toBe(m2);
  });

  it("without --base: the merge-base of HEAD with the default branch", () => {
    const { repo, m3, f3 } = shared();
    // feature merged main in, so the merge-base is main's tip m3.
    const range = expectRange(resolveRange({ cwd: repo.dir }));
    expect(range).toMatchObject({ base: m3, head: f3, baseRef: "main", headRef: "HEAD", baseSource: "merge-base" });
  });

  it("the merge-base with the default branch, before the branch merged it: the branch point", () => {
    const { repo, m2, f2 } = shared();
    expect(expectRange(resolveRange({ head: f2, cwd: repo.dir })).base).toBe(m2);
  });

  it("prefers origin/HEAD in a clone, and takes a named default branch as origin/<name>", () => {
    const { repo, m2, f2 } = branchyRepo();
    repo.git(["branch", "-q", "develop", m2]);
    const cloneDir = mkdtempSync(join(tmpdir(), "proofgate-clone-"));
    temps.push(cloneDir);
    scratchGit(tmpdir(), ["clone", "-q", "--branch", "feature", `file://${repo.dir}`, cloneDir]);
    // The clone's local main is absent; origin/HEAD points at the source's HEAD (feature).
    const clone = wrapRepo(cloneDir);
    clone.git(["remote", "set-head", "origin", "main"]);
    const viaOrigin = expectRange(resolveRange({ head: f2, cwd: cloneDir }));
    expect(viaOrigin).toMatchObject({ base: m2, baseRef: "origin/HEAD" });
    const viaName = expectRange(resolveRange({ head: f2, defaultBranch: "develop", cwd: cloneDir }));
    expect(viaName).toMatchObject({ base: m2, baseRef: "origin/develop" });
  });

  it("no default branch and no --base in a full clone: a usage error that says how to pass --base", () => {
    const repo = track(scratchRepo());
    repo.git(["checkout", "-q", "-b", "topic"]);
    repo.commit("only\n", { a: "1\n" });
    const error = gateError(() => resolveRange({ cwd: repo.dir }));
    expect(error.code).toBe("usage");
    expect(error.issues[0]!.message).toContain("tried origin/HEAD, origin/main, origin/master, main, master");
    expect(error.issues[0]!.fix).toContain("--base");
  });

  it("a named target branch that the clone lacks (a CI's PR base): the fix says how to fetch it", () => {
    const repo = track(scratchRepo());
    repo.git(["checkout", "-q", "-b", "topic"]);
    repo.commit("only\n", { a: "1\n" });
    const error = gateError(() => resolveRange({ cwd: repo.dir, defaultBranch: "release/2.x" }));
    expect(error.code).toBe("usage");
    expect(error.issues[0]!.message).toBe(
      "no base: --base was not given and no default branch exists (tried origin/release/2.x, release/2.x)",
    );
    expect(error.issues[0]!.fix).toBe(
      "fetch the target branch first: git fetch origin release/2.x, or pass the base with --base <commit or branch>",
    );
  });

  it("a head that does not exist is a usage error; an option-like ref is refused", () => {
    const { repo } = shared();
    expect(gateError(() => resolveRange({ head: "no-such-branch", cwd: repo.dir })).code).toBe("usage");
    expect(gateError(() => resolveRange({ base: "--output=/tmp/x", cwd: repo.dir })).code).toBe("usage");
  });

  it("a base that is not an ancestor of head: shallow_history, naming their merge-base", () => {
    const { repo, m2, m3, f2 } = shared();
    const issue = expectShallow(resolveRange({ base: m3, head: f2, cwd: repo.dir }));
    expect(issue.message).toContain("is not an ancestor of head");
    expect(issue.message).toContain(`pass --base ${m2}`);
    expect(issue.fix).toBe(shallowHistoryFix());
  });

  it("a base missing from the clone: shallow_history", () => {
    const { repo } = shared();
    const issue = expectShallow(resolveRange({ base: "1".repeat(40), cwd: repo.dir }));
    expect(issue.message).toContain("is not in this clone");
  });

  describe("a clone made with --depth", () => {
    let src: ReturnType<typeof branchyRepo>;
    const clone = (...args: string[]): string => {
      const dir = mkdtempSync(join(tmpdir(), "proofgate-shallow-"));
      temps.push(dir);
      scratchGit(tmpdir(), ["clone", "-q", ...args, `file://${src.repo.dir}`, dir]);
      return dir;
    };
    beforeAll(() => {
      src = branchyRepo();
      src.repo.git(["checkout", "-q", "main"]); // the remote's HEAD: origin/HEAD in each clone
    });

    it("--depth 1, base given by sha: shallow_history with each CI's fix", () => {
      const dir = clone("--depth", "1", "--branch", "feature");
      const result = resolveRange({ base: src.m2, cwd: dir, provider: "github" });
      expect(result.ok === false && result.shallow).toBe(true);
      const issue = expectShallow(result);
      expect(issue.message).toContain("this clone is shallow");
      expect(issue.fix).toContain("fetch-depth: 0");
      expect(expectShallow(resolveRange({ base: src.m2, cwd: dir, provider: "gitlab" })).fix).toContain("GIT_DEPTH: 0");
      expect(expectShallow(resolveRange({ base: src.m2, cwd: dir, provider: "buildkite" })).fix).toContain(
        "git fetch --unshallow",
      );
      expect(shallowHistoryFix()).toMatch(/fetch-depth: 0.*GIT_DEPTH: 0.*git fetch --unshallow/);
    });

    it("--depth 1, no --base and no default branch fetched: shallow_history, not a usage error", () => {
      const dir = clone("--depth", "1", "--branch", "feature");
      expect(expectShallow(resolveRange({ cwd: dir })).message).toContain("no default branch");
      const named = expectShallow(resolveRange({ cwd: dir, defaultBranch: "develop", provider: "buildkite" }));
      expect(named.fix).toBe(
        `fetch the target branch first: git fetch origin develop; ${shallowHistoryFix("buildkite")}`,
      );
    });

    it("--depth 1 of every branch: no merge-base reachable, shallow_history", () => {
      const dir = clone("--depth", "1", "--no-single-branch", "--branch", "feature");
      expect(expectShallow(resolveRange({ cwd: dir })).message).toContain("no common commit");
      expect(expectShallow(resolveRange({ base: "origin/main", cwd: dir })).message).toContain("not an ancestor");
    });

    it("--depth 3 whose cut lies inside base..head: shallow_history (commits of the patch are missing)", () => {
      // Depth 3 from feature's tip f3: f3, the merge, f2 and m3 are present; f2 and m3 are the cut.
      // base m3 (main's tip) is an ancestor of head, but f2's parent f1 is missing from m3..f3.
      const dir = clone("--depth", "3", "--no-single-branch", "--branch", "feature");
      const issue = expectShallow(resolveRange({ base: "origin/main", cwd: dir }));
      expect(issue.message).toMatch(/history is cut at [0-9a-f]{12}, inside origin\/main\.\.HEAD/);
    });

    it("a shallow clone whose history reaches the base: a range, marked shallow", () => {
      const dir = clone("--depth", "2", "--no-single-branch", "--branch", "feature");
      const range = expectRange(resolveRange({ base: src.merge, cwd: dir }));
      expect(range).toMatchObject({ base: src.merge, head: src.f3, shallow: true });
      expect(listCommits(range, dir).map((c) => c.sha)).toEqual([src.f3]);
    });
  });
});

describe("listCommits", () => {
  it("every commit of base..head, oldest first, merges included, with trailers read by git", () => {
    const { repo, m2, f1, f2, m3, merge, f3 } = shared();
    const range = expectRange(resolveRange({ base: m2, cwd: repo.dir }));
    const commits = listCommits(range, repo.dir);
    expect(new Set(commits.map((c) => c.sha))).toEqual(new Set([f1, f2, m3, merge, f3]));
    // Parents before children: the merge comes after both its parents, f3 last.
    const at = (sha: string): number => commits.findIndex((c) => c.sha === sha);
    expect(at(f1)).toBeLessThan(at(f2));
    expect(at(f2)).toBeLessThan(at(merge));
    expect(at(m3)).toBeLessThan(at(merge));
    expect(at(f3)).toBe(4);
    const mergeCommit = commits[at(merge)]!;
    expect(mergeCommit.parents).toEqual([f2, m3]);
    expect(mergeCommit.subject).toBe("Merge branch 'main' into feature");
    expect(commits[at(f1)]).toEqual({
      sha: f1,
      parents: [m2],
      author: DEPENDABOT,
      committer: DEPENDABOT,
      subject: "f1: agent adds a lease",
      trailers: [],
    });
    expect(commits[at(f2)]!.trailers).toEqual([{ key: "Freeze-Lease", value: "human" }]);
    expect(commits[at(f3)]!.trailers).toEqual([{ key: "Co-authored-by", value: "Claude <noreply@anthropic.com>" }]);
  });

  it("an empty range is no commits", () => {
    const { repo, f3 } = shared();
    expect(listCommits({ base: f3, head: f3 }, repo.dir)).toEqual([]);
  });

  it("names, emails and subjects verbatim; folded trailers unfolded; lookalike lines and a mailmap ignored", () => {
    const repo = track(scratchRepo());
    const base = repo.commit("base\n");
    const author = { name: "Zoë Ünïcode 漢字", email: "zoe@example.org" };
    const message = [
      "Subject: looks like a trailer",
      "and a second subject line",
      "",
      "Body: with a colon",
      "Not-a-trailer: in the body",
      "",
      "Signed-off-by: Zoë <zoe@example.org>",
      "Freeze-Lease: human",
      "Long-Trailer: first part",
      "  continued here",
      "\tand here",
      "",
    ].join("\n");
    // A .mailmap that would turn the bot into a human must not change what the gate sees.
    repo.commit("mailmap\n", {
      ".mailmap":
        "Ada Lovelace <ada@example.org> dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>\n",
    });
    const sha = repo.commit(message, { "x.txt": "x\n" }, { author, committer: DEPENDABOT });
    const [, c] = listCommits({ base, head: sha }, repo.dir);
    expect(c).toEqual({
      sha,
      parents: [expect.any(String)],
      author,
      committer: DEPENDABOT,
      subject: "Subject: looks like a trailer and a second subject line",
      trailers: [
        { key: "Signed-off-by", value: "Zoë <zoe@example.org>" },
        { key: "Freeze-Lease", value: "human" },
        { key: "Long-Trailer", value: "first part continued here and here" },
      ],
    });
  });
});

describe("agent or human, from real commits (GATE.md 6)", () => {
  function commitsOf(build: (repo: ScratchRepo) => void) {
    const repo = track(scratchRepo());
    const base = repo.commit("base\n");
    build(repo);
    return listCommits({ base, head: "HEAD" }, repo.dir);
  }

  it("a bot-authored commit is an agent's, and its `Freeze-Lease: human` does not count", () => {
    const [c] = commitsOf((r) =>
      r.commit("add lease\n\nFreeze-Lease: human\n", { "freeze.toml": "x\n" }, { author: DEPENDABOT, committer: ADA }),
    );
    expect(classifyCommit(c!, DEFAULT_AGENT_PATTERNS)).toEqual({
      agent: true,
      reasons: [`author "${DEPENDABOT.name} <${DEPENDABOT.email}>" matches "*[bot]*"`],
    });
    expect(c!.trailers).toEqual([{ key: "Freeze-Lease", value: "human" }]);
    expect(hasHumanTrailer(c!, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("a human author with a human committer is a human's, and its trailer counts", () => {
    const [c] = commitsOf((r) =>
      r.commit(
        "add lease\n\nfreeze-lease:  Human \n",
        { "freeze.toml": "x\n" },
        { author: ADA, committer: { name: "Grace Hopper", email: "grace@example.org" } },
      ),
    );
    expect(classifyCommit(c!, DEFAULT_AGENT_PATTERNS)).toEqual({ agent: false, reasons: [] });
    expect(hasHumanTrailer(c!, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(true);
  });

  it("a human-authored commit with an agent Co-authored-by trailer is an agent's", () => {
    const [c] = commitsOf((r) =>
      r.commit("add lease\n\nFreeze-Lease: human\nCo-authored-by: Cursor Agent <cursoragent@cursor.com>\n", {
        "freeze.toml": "x\n",
      }),
    );
    const cls = classifyCommit(c!, DEFAULT_AGENT_PATTERNS);
    expect(cls.agent).toBe(true);
    expect(cls.reasons).toEqual([
      'Co-authored-by trailer "Cursor Agent <cursoragent@cursor.com>" matches "*<cursoragent@cursor.com>"',
    ]);
    expect(hasHumanTrailer(c!, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(false);
  });

  it("a co-author line in the body, not in the trailer block, is not a trailer", () => {
    const [c] = commitsOf((r) =>
      r.commit(
        "subject\n\nCo-authored-by: Claude <noreply@anthropic.com>\nthis paragraph is prose\n\nFreeze-Lease: human\n",
      ),
    );
    expect(c!.trailers).toEqual([{ key: "Freeze-Lease", value: "human" }]);
    expect(hasHumanTrailer(c!, "Freeze-Lease", DEFAULT_AGENT_PATTERNS)).toBe(true);
  });
});

describe("changedPaths", () => {
  it("add, modify, delete, rename; names with spaces, non-ASCII and newlines; root and merge commits", () => {
    const repo = track(scratchRepo());
    const body = "a long enough body so that rename detection sees the same file\n".repeat(5);
    const root = repo.commit("root\n", {
      "keep.txt": "1\n",
      "old name.txt": body,
      "gone.txt": "bye\n",
      "dir/ünï 漢.txt": "u\n",
    });
    expect(changedPaths(root, repo.dir)).toEqual([
      { status: "A", path: "dir/ünï 漢.txt" },
      { status: "A", path: "gone.txt" },
      { status: "A", path: "keep.txt" },
      { status: "A", path: "old name.txt" },
    ]);
    const c2 = repo.commit("all kinds\n", {
      "keep.txt": "2\n",
      "gone.txt": null,
      "old name.txt": null,
      "new\nname.txt": body,
      "tab\there.txt": "t\n",
    });
    expect(changedPaths(c2, repo.dir)).toEqual([
      { status: "D", path: "gone.txt" },
      { status: "M", path: "keep.txt" },
      { status: "R", score: 100, path: "new\nname.txt", oldPath: "old name.txt" },
      { status: "A", path: "tab\there.txt" },
    ]);
    // A merge: the paths it brings in against its first parent.
    repo.git(["checkout", "-q", "-b", "side"]);
    repo.commit("side\n", { "side.txt": "s\n" });
    repo.git(["checkout", "-q", "main"]);
    repo.commit("main\n", { "main.txt": "m\n" });
    repo.git(["merge", "-q", "--no-ff", "--no-edit", "side"]);
    const merge = repo.git(["rev-parse", "HEAD"]).trim();
    expect(changedPaths(merge, repo.dir)).toEqual([{ status: "A", path: "side.txt" }]);
    expect(changedPaths(repo.commit("empty\n"), repo.dir)).toEqual([]);
  });

  it("a type change and a symlink", () => {
    const repo = track(scratchRepo());
    repo.commit("one\n", { link: "plain\n" });
    const c = repo.commit("two\n", { link: { symlink: "../../etc/passwd" } });
    expect(changedPaths(c, repo.dir)).toEqual([{ status: "T", path: "link" }]);
  });
});

describe("readFileAt and listFilesAt", () => {
  it("reads a file at several revisions; undefined where it is absent", () => {
    const repo = track(scratchRepo());
    const c1 = repo.commit("1\n", { "other.txt": "o\n" });
    const c2 = repo.commit("2\n", { "freeze.toml": "version = 1\n", "dir/x y\n.txt": "nl\n" });
    const c3 = repo.commit("3\n", { "freeze.toml": "version = 1\nmax_active_leases = 2\n" });
    const c4 = repo.commit("4\n", { "freeze.toml": null });
    expect(readFileAt(c1, "freeze.toml", repo.dir)).toBeUndefined();
    expect(readFileAt(c2, "freeze.toml", repo.dir)).toBe("version = 1\n");
    expect(readFileAt(c3, "freeze.toml", repo.dir)).toBe("version = 1\nmax_active_leases = 2\n");
    expect(readFileAt("HEAD~1", "./freeze.toml", repo.dir)).toBe("version = 1\nmax_active_leases = 2\n");
    expect(readFileAt(c4, "freeze.toml", repo.dir)).toBeUndefined();
    expect(readFileAt(c4, "dir/x y\n.txt", repo.dir)).toBe("nl\n");
    expect(readFileAt(c4, "dir", repo.dir)).toBeUndefined();
    expect(gateError(() => readFileAt("no-such-rev", "freeze.toml", repo.dir)).code).toBe("git_failed");
    expect(gateError(() => readFileAt("--help", "freeze.toml", repo.dir)).code).toBe("usage");
    const bin = repo.commit("5\n", { "bin.dat": new Uint8Array([0xff, 0xfe, 0x00]) });
    expect(gateError(() => readFileAt(bin, "bin.dat", repo.dir)).code).toBe("file_unreadable");
  });

  it("lists the files under a folder at a revision, with modes and object names", () => {
    const repo = track(scratchRepo());
    const c = repo.commit("seeds\n", {
      "tests/properties/seeds/a seed.bin": "a\n",
      "tests/properties/seeds/sub/ü.bin": "b\n",
      "tests/properties/seeds-other/x": "x\n",
      "tests/properties/seeds/link": { symlink: "a seed.bin" },
      "top.txt": "t\n",
    });
    const blobA = repo.git(["rev-parse", `${c}:tests/properties/seeds/a seed.bin`]).trim();
    const files = listFilesAt(c, "tests/properties/seeds", repo.dir);
    expect(files.map((f) => [f.path, f.mode, f.type])).toEqual([
      ["tests/properties/seeds/a seed.bin", "100644", "blob"],
      ["tests/properties/seeds/link", "120000", "blob"],
      ["tests/properties/seeds/sub/ü.bin", "100644", "blob"],
    ]);
    expect(files[0]!.objectSha).toBe(blobA);
    expect(listFilesAt(c, "tests/properties/seeds/", repo.dir)).toEqual(files);
    expect(listFilesAt(c, "tests/prop", repo.dir)).toEqual([]);
    expect(listFilesAt(c, "tests/properties/seeds*", repo.dir)).toEqual([]);
    expect(listFilesAt(c, "", repo.dir)).toHaveLength(5);
    expect(listFilesAt(c, ".", repo.dir)).toHaveLength(5);
    // From a subfolder, paths stay repository-relative.
    expect(listFilesAt(c, "tests/properties/seeds/sub", join(repo.dir, "tests"))).toEqual([files[2]]);
  });
});

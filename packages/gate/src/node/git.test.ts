import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_AGENT_PATTERNS, GateError, classifyCommit, hasHumanTrailer, parseGitDiff } from "@proofgate/core";
import { scanRunnerTampering } from "@proofgate/core/proof-run";
import type { GitPort } from "../ports.js";
import {
  addedLines,
  addedLinesOfCommits,
  blameRange,
  changedPaths,
  changedPathsOfCommits,
  listCommits,
  listFilesAt,
  nodeGit,
  rangeDiff,
  readBlobsAt,
  readFileAt,
  resolveRange,
  runGit,
  type GitRange,
  type GitRepo,
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
} from "../testing/git-scratch.js";

/** A repository as git runs in it, with the environment the tests set up. */
const at = (cwd: string): GitRepo => ({ cwd, env: process.env });
/** The fix a truncated history reports: the one given, verbatim. */
const fixFor = (ci = "any CI"): string => `fetch the whole history (${ci})`;

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
    expect(runGit(["rev-parse", "HEAD"], at(repo.dir)).trim()).toBe(sha);
    expect(runGit(["ls-files", "a;echo pwned"], at(repo.dir))).toBe("a;echo pwned\n");
  });

  it("a failure is a GateError naming the command and git's first stderr line", () => {
    const dir = mkdtempSync(join(tmpdir(), "proofgate-nogit-"));
    temps.push(dir);
    const error = gateError(() => runGit(["rev-parse", "--is-shallow-repository"], at(dir)));
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
    const range = expectRange(resolveRange({ base: m2, head: f2, repo: at(repo.dir), shallowFix: fixFor() }));
    expect(range).toEqual({ base: m2, head: f2, baseRef: m2, headRef: f2, baseSource: "flag", shallow: false });
    expect(expectRange(resolveRange({ base: "main~1", repo: at(repo.dir), shallowFix: fixFor() })).base).toBe(m2);
  });

  it("without --base: the merge-base of HEAD with the default branch", () => {
    const { repo, m3, f3 } = shared();
    // feature merged main in, so the merge-base is main's tip m3.
    const range = expectRange(resolveRange({ repo: at(repo.dir), shallowFix: fixFor() }));
    expect(range).toMatchObject({ base: m3, head: f3, baseRef: "main", headRef: "HEAD", baseSource: "merge-base" });
  });

  it("the merge-base with the default branch, before the branch merged it: the branch point", () => {
    const { repo, m2, f2 } = shared();
    expect(expectRange(resolveRange({ head: f2, repo: at(repo.dir), shallowFix: fixFor() })).base).toBe(m2);
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
    const viaOrigin = expectRange(resolveRange({ head: f2, repo: at(cloneDir), shallowFix: fixFor() }));
    expect(viaOrigin).toMatchObject({ base: m2, baseRef: "origin/HEAD" });
    const viaName = expectRange(
      resolveRange({ head: f2, defaultBranch: "develop", repo: at(cloneDir), shallowFix: fixFor() }),
    );
    expect(viaName).toMatchObject({ base: m2, baseRef: "origin/develop" });
  });

  it("no default branch and no --base in a full clone: a usage error that says how to pass --base", () => {
    const repo = track(scratchRepo());
    repo.git(["checkout", "-q", "-b", "topic"]);
    repo.commit("only\n", { a: "1\n" });
    const error = gateError(() => resolveRange({ repo: at(repo.dir), shallowFix: fixFor() }));
    expect(error.code).toBe("usage");
    expect(error.issues[0]!.message).toContain("tried origin/HEAD, origin/main, origin/master, main, master");
    expect(error.issues[0]!.fix).toContain("--base");
  });

  it("a named target branch that the clone lacks (a CI's PR base): the fix says how to fetch it", () => {
    const repo = track(scratchRepo());
    repo.git(["checkout", "-q", "-b", "topic"]);
    repo.commit("only\n", { a: "1\n" });
    const error = gateError(() =>
      resolveRange({ repo: at(repo.dir), defaultBranch: "release/2.x", shallowFix: fixFor() }),
    );
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
    expect(
      gateError(() => resolveRange({ head: "no-such-branch", repo: at(repo.dir), shallowFix: fixFor() })).code,
    ).toBe("usage");
    expect(
      gateError(() => resolveRange({ base: "--output=/tmp/x", repo: at(repo.dir), shallowFix: fixFor() })).code,
    ).toBe("usage");
  });

  it("a base that is not an ancestor of head: shallow_history, naming their merge-base", () => {
    const { repo, m2, m3, f2 } = shared();
    const issue = expectShallow(resolveRange({ base: m3, head: f2, repo: at(repo.dir), shallowFix: fixFor() }));
    expect(issue.message).toContain("is not an ancestor of head");
    expect(issue.message).toContain(`pass --base ${m2}`);
    expect(issue.fix).toBe(fixFor());
  });

  it("a base missing from the clone: shallow_history", () => {
    const { repo } = shared();
    const issue = expectShallow(resolveRange({ base: "1".repeat(40), repo: at(repo.dir), shallowFix: fixFor() }));
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

    it("--depth 1, base given by sha: shallow_history with the CI's fix", () => {
      const dir = clone("--depth", "1", "--branch", "feature");
      const result = resolveRange({ base: src.m2, repo: at(dir), shallowFix: fixFor("github") });
      expect(result.ok === false && result.shallow).toBe(true);
      const issue = expectShallow(result);
      expect(issue.message).toContain("this clone is shallow");
      expect(issue.fix).toBe(fixFor("github"));
    });

    it("--depth 1, no --base and no default branch fetched: shallow_history, not a usage error", () => {
      const dir = clone("--depth", "1", "--branch", "feature");
      expect(expectShallow(resolveRange({ repo: at(dir), shallowFix: fixFor() })).message).toContain(
        "no default branch",
      );
      const named = expectShallow(
        resolveRange({ repo: at(dir), defaultBranch: "develop", shallowFix: fixFor("buildkite") }),
      );
      expect(named.fix).toBe(`fetch the target branch first: git fetch origin develop; ${fixFor("buildkite")}`);
    });

    it("--depth 1 of every branch: no merge-base reachable, shallow_history", () => {
      const dir = clone("--depth", "1", "--no-single-branch", "--branch", "feature");
      expect(expectShallow(resolveRange({ repo: at(dir), shallowFix: fixFor() })).message).toContain(
        "no common commit",
      );
      expect(
        expectShallow(resolveRange({ base: "origin/main", repo: at(dir), shallowFix: fixFor() })).message,
      ).toContain("not an ancestor");
    });

    it("--depth 3 whose cut lies inside base..head: shallow_history (commits of the patch are missing)", () => {
      // Depth 3 from feature's tip f3: f3, the merge, f2 and m3 are present; f2 and m3 are the cut.
      // base m3 (main's tip) is an ancestor of head, but f2's parent f1 is missing from m3..f3.
      const dir = clone("--depth", "3", "--no-single-branch", "--branch", "feature");
      const issue = expectShallow(resolveRange({ base: "origin/main", repo: at(dir), shallowFix: fixFor() }));
      expect(issue.message).toMatch(/history is cut at [0-9a-f]{12}, inside origin\/main\.\.HEAD/);
    });

    it("a shallow clone whose history reaches the base: a range, marked shallow", () => {
      const dir = clone("--depth", "2", "--no-single-branch", "--branch", "feature");
      const range = expectRange(resolveRange({ base: src.merge, repo: at(dir), shallowFix: fixFor() }));
      expect(range).toMatchObject({ base: src.merge, head: src.f3, shallow: true });
      expect(listCommits(range, at(dir)).map((c) => c.sha)).toEqual([src.f3]);
    });
  });
});

describe("listCommits", () => {
  it("every commit of base..head, oldest first, merges included, with trailers read by git", () => {
    const { repo, m2, f1, f2, m3, merge, f3 } = shared();
    const range = expectRange(resolveRange({ base: m2, repo: at(repo.dir), shallowFix: fixFor() }));
    const commits = listCommits(range, at(repo.dir));
    expect(new Set(commits.map((c) => c.sha))).toEqual(new Set([f1, f2, m3, merge, f3]));
    // Parents before children: the merge comes after both its parents, f3 last.
    const indexOf = (sha: string): number => commits.findIndex((c) => c.sha === sha);
    expect(indexOf(f1)).toBeLessThan(indexOf(f2));
    expect(indexOf(f2)).toBeLessThan(indexOf(merge));
    expect(indexOf(m3)).toBeLessThan(indexOf(merge));
    expect(indexOf(f3)).toBe(4);
    const mergeCommit = commits[indexOf(merge)]!;
    expect(mergeCommit.parents).toEqual([f2, m3]);
    expect(mergeCommit.subject).toBe("Merge branch 'main' into feature");
    expect(commits[indexOf(f1)]).toEqual({
      sha: f1,
      parents: [m2],
      author: DEPENDABOT,
      committer: DEPENDABOT,
      subject: "f1: agent adds a lease",
      trailers: [],
    });
    expect(commits[indexOf(f2)]!.trailers).toEqual([{ key: "Freeze-Lease", value: "human" }]);
    expect(commits[indexOf(f3)]!.trailers).toEqual([
      { key: "Co-authored-by", value: "Claude <noreply@anthropic.com>" },
    ]);
  });

  it("an empty range is no commits", () => {
    const { repo, f3 } = shared();
    expect(listCommits({ base: f3, head: f3 }, at(repo.dir))).toEqual([]);
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
    const [, c] = listCommits({ base, head: sha }, at(repo.dir));
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

describe("agent or human, from real commits (docs/contract.md §6)", () => {
  function commitsOf(build: (repo: ScratchRepo) => void) {
    const repo = track(scratchRepo());
    const base = repo.commit("base\n");
    build(repo);
    return listCommits({ base, head: "HEAD" }, at(repo.dir));
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
    expect(changedPaths(root, at(repo.dir))).toEqual([
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
    expect(changedPaths(c2, at(repo.dir))).toEqual([
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
    expect(changedPaths(merge, at(repo.dir))).toEqual([{ status: "A", path: "side.txt" }]);
    expect(changedPaths(repo.commit("empty\n"), at(repo.dir))).toEqual([]);
  });

  it("a type change and a symlink", () => {
    const repo = track(scratchRepo());
    repo.commit("one\n", { link: "plain\n" });
    const c = repo.commit("two\n", { link: { symlink: "../../etc/passwd" } });
    expect(changedPaths(c, at(repo.dir))).toEqual([{ status: "T", path: "link" }]);
  });
});

describe("readFileAt and listFilesAt", () => {
  it("reads a file at several revisions; undefined where it is absent", () => {
    const repo = track(scratchRepo());
    const c1 = repo.commit("1\n", { "other.txt": "o\n" });
    const c2 = repo.commit("2\n", { "freeze.toml": "version = 1\n", "dir/x y\n.txt": "nl\n" });
    const c3 = repo.commit("3\n", { "freeze.toml": "version = 1\nmax_active_leases = 2\n" });
    const c4 = repo.commit("4\n", { "freeze.toml": null });
    expect(readFileAt(c1, "freeze.toml", at(repo.dir))).toBeUndefined();
    expect(readFileAt(c2, "freeze.toml", at(repo.dir))).toBe("version = 1\n");
    expect(readFileAt(c3, "freeze.toml", at(repo.dir))).toBe("version = 1\nmax_active_leases = 2\n");
    expect(readFileAt("HEAD~1", "./freeze.toml", at(repo.dir))).toBe("version = 1\nmax_active_leases = 2\n");
    expect(readFileAt(c4, "freeze.toml", at(repo.dir))).toBeUndefined();
    expect(readFileAt(c4, "dir/x y\n.txt", at(repo.dir))).toBe("nl\n");
    expect(readFileAt(c4, "dir", at(repo.dir))).toBeUndefined();
    expect(gateError(() => readFileAt("no-such-rev", "freeze.toml", at(repo.dir))).code).toBe("git_failed");
    expect(gateError(() => readFileAt("--help", "freeze.toml", at(repo.dir))).code).toBe("usage");
    const bin = repo.commit("5\n", { "bin.dat": new Uint8Array([0xff, 0xfe, 0x00]) });
    expect(gateError(() => readFileAt(bin, "bin.dat", at(repo.dir))).code).toBe("file_unreadable");
  });

  it("nodeGit's reads at a full object name give what the plain readers give (its root listing and caches)", () => {
    const repo = track(scratchRepo());
    const c1 = repo.commit("1\n", {
      "setup.cfg": "[tool:pytest]\n",
      "dir/tox.ini": "x\n",
      link: { symlink: "setup.cfg" },
    });
    const c2 = repo.commit("2\n", { "setup.cfg": null, "tox.ini": "[pytest]\n", "\uFEFFbom.ini": "b\n" });
    const port = nodeGit(at(repo.dir));
    const plain = (rev: string, path: string) => readFileAt(rev, path, at(repo.dir));
    for (const rev of [c1, c2])
      for (const path of [
        "setup.cfg",
        "./setup.cfg",
        "tox.ini",
        "pytest.ini",
        "dir",
        "dir/tox.ini",
        "dir/none",
        "link",
        "\uFEFFbom.ini",
        "bom.ini",
      ])
        expect(port.readFileAt(rev, path), `${rev}:${path}`).toBe(plain(rev, path));
    // An object name this repository lacks is still an error that names the revision.
    const missing = "0123456789abcdef0123456789abcdef01234567";
    expect(gateError(() => port.readFileAt(missing, "setup.cfg")).message).toMatch(/is not a revision/);
    expect(port.resolveCommit(c1)).toBe(c1);
    expect(port.resolveCommit(c1)).toBe(c1);
    expect(port.resolveCommit(missing)).toBeUndefined();
    expect(port.treeOf(c2)).toBe(repo.git(["rev-parse", `${c2}^{tree}`]).trim());
    // Each caller gets its own set of differing paths.
    const first = port.differingPaths(c1, c2);
    expect([...first].sort()).toEqual(["setup.cfg", "tox.ini", "\uFEFFbom.ini"]);
    first.clear();
    expect(port.differingPaths(c1, c2).size).toBe(3);
    // A root name that starts with a byte-order mark is that name (the listing keeps the mark).
    expect(port.readFileAt(c2, "\uFEFFbom.ini")).toBe("b\n");
    expect(port.readFileAt(c2, "bom.ini")).toBeUndefined();
  });

  it("a path that starts with a byte-order mark keeps it in every listing (tree, commit, work tree)", () => {
    const repo = track(scratchRepo());
    repo.commit("1\n", { "a.py": "a\n" });
    const c2 = repo.commit("2\n", { "\uFEFFbom.py": "b\n", "sub/\uFEFFx.py": "x\n" });
    const port = nodeGit(at(repo.dir));
    expect(port.listFilesAt(c2, "").map((e) => e.path)).toEqual(["a.py", "sub/\uFEFFx.py", "\uFEFFbom.py"].sort());
    expect(
      port
        .changedPaths(c2)
        .map((p) => p.path)
        .sort(),
    ).toEqual(["sub/\uFEFFx.py", "\uFEFFbom.py"].sort());
    writeFileSync(join(repo.dir, "\uFEFFnew.py"), "n\n");
    expect(port.workTreeChanges({ untracked: true })).toEqual(["\uFEFFnew.py"]);
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
    const files = listFilesAt(c, "tests/properties/seeds", at(repo.dir));
    expect(files.map((f) => [f.path, f.mode, f.type])).toEqual([
      ["tests/properties/seeds/a seed.bin", "100644", "blob"],
      ["tests/properties/seeds/link", "120000", "blob"],
      ["tests/properties/seeds/sub/ü.bin", "100644", "blob"],
    ]);
    expect(files[0]!.objectSha).toBe(blobA);
    expect(listFilesAt(c, "tests/properties/seeds/", at(repo.dir))).toEqual(files);
    expect(listFilesAt(c, "tests/prop", at(repo.dir))).toEqual([]);
    expect(listFilesAt(c, "tests/properties/seeds*", at(repo.dir))).toEqual([]);
    expect(listFilesAt(c, "", at(repo.dir))).toHaveLength(5);
    expect(listFilesAt(c, ".", at(repo.dir))).toHaveLength(5);
    // From a subfolder, paths stay repository-relative.
    expect(listFilesAt(c, "tests/properties/seeds/sub", at(join(repo.dir, "tests")))).toEqual([files[2]]);
  });
});

describe("blameRange", () => {
  it("names the range's commit for each line it wrote, none for a line older than the base; follows a rename", () => {
    const repo = track(scratchRepo());
    const base = repo.commit("base", { "a.py": "one\ntwo\n" });
    const first = repo.commit("first", { "a.py": "one\ntwo\nthree\n" });
    const second = repo.commit("move and edit", { "a.py": null, "b.py": "zero\none\ntwo\nthree\n" });
    expect(blameRange({ base, head: second }, "b.py", at(repo.dir))).toEqual([
      { line: 1, text: "zero", sha: second },
      { line: 2, text: "one" },
      { line: 3, text: "two" },
      { line: 4, text: "three", sha: first },
    ]);
  });

  it("a line that starts with a tab, or looks like a porcelain header, is text", () => {
    const repo = track(scratchRepo());
    const base = repo.commit("base", { "a.py": "x\n" });
    const head = repo.commit("add", { "a.py": `x\n\tboundary\n${"f".repeat(40)} 1 1 1\n` });
    expect(blameRange({ base, head }, "a.py", at(repo.dir)).map((l) => [l.text, l.sha])).toEqual([
      ["x", undefined],
      ["\tboundary", head],
      [`${"f".repeat(40)} 1 1 1`, head],
    ]);
  });
});

describe("nodeGit remembers what a commit holds, never what a ref points at", () => {
  it("reads a file and a commit's added lines by SHA once; by HEAD afresh after a new commit", () => {
    const repo = track(scratchRepo());
    const first = repo.commit("one\n", { "a.txt": "1\n" });
    const git = nodeGit(at(repo.dir));
    expect(git.readFileAt("HEAD", "a.txt")).toBe("1\n");
    expect(git.readFileAt(first, "a.txt")).toBe("1\n");
    expect(git.addedLines(first)).toEqual([{ path: "a.txt", lines: [{ line: 1, text: "1" }] }]);
    const second = repo.commit("two\n", { "a.txt": "2\n" });
    expect(git.readFileAt("HEAD", "a.txt")).toBe("2\n");
    expect(git.readFileAt(first, "a.txt")).toBe("1\n");
    expect(git.readFileAt(second, "a.txt")).toBe("2\n");
    // A SHA's answer comes from memory: the same object, not a second `git show`.
    expect(git.addedLines(first)).toBe(git.addedLines(first));
    expect(git.readFileAt(first, "missing.txt")).toBeUndefined();
  });

  it("a commit's added lines by the hunks' counts: an added `++ x` (`+++ x` in the diff) is a line, not a file header", () => {
    // Before, the line was read as a header naming a file `x`, and what followed it was filed under that
    // name: out of sight of the runner-tampering scan, which reads .py files only.
    const repo = track(scratchRepo());
    repo.commit("base\n", { "tests/test_a.py": "def test_a():\n    assert True\n" });
    const sha = repo.commit("agent\n", {
      "tests/test_a.py": "x = 1\n++ x\nimport _pytest.runner\ndef test_a():\n    assert True\n+++ x\n--- y\n",
      "notes.txt": "+++ b/elsewhere.py\n",
    });
    const git = nodeGit(at(repo.dir));
    expect(git.addedLines(sha)).toEqual([
      { path: "notes.txt", lines: [{ line: 1, text: "+++ b/elsewhere.py" }] },
      {
        path: "tests/test_a.py",
        lines: [
          { line: 1, text: "x = 1" },
          { line: 2, text: "++ x" },
          { line: 3, text: "import _pytest.runner" },
          { line: 6, text: "+++ x" },
          { line: 7, text: "--- y" },
        ],
      },
    ]);
    expect(scanRunnerTampering(git.addedLines(sha)).map((f) => f.paths)).toEqual([["tests/test_a.py"]]);
  });

  it("lists a commit's files and blames a range of SHAs once; by ref afresh", () => {
    const repo = track(scratchRepo());
    const base = repo.commit("one\n", { "a.txt": "1\n" });
    const head = repo.commit("two\n", { "a.txt": "1\n2\n", "b.txt": "b\n" });
    const git = nodeGit(at(repo.dir));
    expect(git.listFilesAt(head, "").map((e) => e.path)).toEqual(["a.txt", "b.txt"]);
    expect(git.listFilesAt(head, "")).toBe(git.listFilesAt(head, ""));
    const blame = git.blame({ base, head }, "a.txt");
    expect(blame.map((l) => [l.line, l.sha])).toEqual([
      [1, undefined],
      [2, head],
    ]);
    expect(git.blame({ base, head }, "a.txt")).toBe(blame);
    // By ref: what HEAD is now, not what it was.
    expect(git.listFilesAt("HEAD", "").map((e) => e.path)).toEqual(["a.txt", "b.txt"]);
    repo.commit("three\n", { "c.txt": "c\n" });
    expect(git.listFilesAt("HEAD", "").map((e) => e.path)).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(git.blame({ base, head: "HEAD" }, "a.txt")).not.toBe(git.blame({ base, head: "HEAD" }, "a.txt"));
  });
});

describe("a range's commits read at once give what one read per commit gives", () => {
  /** root, renames, deletions, odd names, a binary file, a merge, an empty commit. */
  function rangeRepo(): { repo: ScratchRepo; commits: string[] } {
    const repo = track(scratchRepo());
    const body = "a long enough body so that rename detection sees the same file\n".repeat(5);
    const commits = [
      repo.commit("root\n", {
        "keep.txt": "1\n",
        "old name.txt": body,
        "dir/ünï 漢.txt": "u\n",
        "freeze.toml": "v = 1\n",
      }),
      repo.commit("kinds\n", {
        "keep.txt": "2\nthree\n",
        "old name.txt": null,
        "new\nname.txt": body,
        "tab\there.txt": "t\n",
        "bin.dat": new Uint8Array([0xff, 0xfe, 0x00]),
        ["f".repeat(40)]: "looks like a commit\n",
        "top.py": "import os\n",
        "lib/deep/m.py": "x = 1\n",
        "lib/not-py.pyc": "binary-ish\n",
        "freeze.toml": "v = 2\n",
      }),
    ];
    repo.git(["checkout", "-q", "-b", "side"]);
    commits.push(repo.commit("side\n", { "side.txt": "s\n+not a diff line\n" }));
    repo.git(["checkout", "-q", "main"]);
    commits.push(repo.commit("main\n", { "main.txt": "m\n", "freeze.toml": null }));
    repo.git(["merge", "-q", "--no-ff", "--no-edit", "side"]);
    commits.push(repo.git(["rev-parse", "HEAD"]).trim());
    commits.push(repo.commit("empty\n"));
    commits.push(repo.commit("back\n", { "freeze.toml": "v = 3\n", "dir/ünï 漢.txt": null }));
    return { repo, commits };
  }

  it("changedPathsOfCommits and addedLinesOfCommits agree with changedPaths and addedLines", () => {
    const { repo, commits } = rangeRepo();
    const git = at(repo.dir);
    const paths = changedPathsOfCommits(commits, git);
    const added = addedLinesOfCommits(commits, git);
    for (const sha of commits) {
      expect(paths.get(sha)).toEqual(changedPaths(sha, git));
      expect(added.get(sha)).toEqual(addedLines(sha, git));
    }
    expect(paths.get(commits[1]!)!.map((p) => p.path)).toContain("f".repeat(40));
    // A filter: just the files it names, as the whole answer filtered.
    const python = addedLinesOfCommits(commits, git, { suffixes: [".py"] });
    const named = addedLinesOfCommits(commits, git, { paths: ["keep.txt", "tab\there.txt"] });
    for (const sha of commits) {
      const all = addedLines(sha, git);
      expect(python.get(sha)).toEqual(all.filter((f) => f.path.endsWith(".py")));
      expect(addedLines(sha, git, { suffixes: [".py"] })).toEqual(python.get(sha));
      expect(named.get(sha), `${commits.indexOf(sha)}`).toEqual(
        all.filter((f) => f.path === "keep.txt" || f.path === "tab\there.txt"),
      );
      expect(addedLines(sha, git, { paths: [] })).toEqual([]);
    }
    expect(python.get(commits[1]!)!.map((f) => f.path)).toEqual(["lib/deep/m.py", "top.py"]);
    expect(paths.get(commits[5]!)).toEqual([]);
  });

  it("readBlobsAt agrees with readFileAt; gives up over its byte budget or on a name git's lines cannot carry", () => {
    const { repo, commits } = rangeRepo();
    const git = at(repo.dir);
    for (const path of ["freeze.toml", "keep.txt", "dir", "bin.dat", "missing.txt"]) {
      const read = readBlobsAt(commits, path, git, 1 << 20)!;
      for (const sha of commits) {
        const one = (() => {
          try {
            return readFileAt(sha, path, git);
          } catch {
            return "not UTF-8";
          }
        })();
        const bytes = read.get(sha);
        const text = bytes === null ? undefined : new TextDecoder().decode(bytes) === one ? one : "not UTF-8";
        expect(text, `${path} at ${sha}`).toEqual(one);
      }
    }
    expect(readBlobsAt(commits, "freeze.toml", git, 5)).toBeUndefined();
    expect(readBlobsAt(commits, "new\nname.txt", git, 1 << 20)).toBeUndefined();
    expect(readBlobsAt(["HEAD"], "freeze.toml", git, 1 << 20)).toBeUndefined();
  });

  it("nodeGit reads the range's commits at once, with the same answers and errors as one at a time", () => {
    const { repo, commits } = rangeRepo();
    const one = nodeGit(at(repo.dir));
    const all = nodeGit(at(repo.dir));
    const listed = all.listCommits({ base: commits[0]!, head: commits.at(-1)! });
    expect(listed.map((c) => c.sha).sort()).toEqual(commits.slice(1).sort());
    for (const sha of commits) {
      expect(all.changedPaths(sha)).toEqual(one.changedPaths(sha));
      expect(all.addedLines(sha)).toEqual(one.addedLines(sha));
      expect(all.readFileAt(sha, "freeze.toml")).toEqual(one.readFileAt(sha, "freeze.toml"));
      expect(all.readFileAt(sha, "keep.txt")).toEqual(one.readFileAt(sha, "keep.txt"));
    }
    expect(gateError(() => all.readFileAt(commits[1]!, "bin.dat")).code).toBe("file_unreadable");
    expect(all.readFileAt("HEAD", "freeze.toml")).toBe("v = 3\n");
  });

  it("nodeGit's files read ahead at a commit of the range answer as read one at a time, errors included", () => {
    const { repo, commits } = rangeRepo();
    const one = nodeGit(at(repo.dir));
    const ahead = nodeGit(at(repo.dir));
    ahead.listCommits({ base: commits[0]!, head: commits.at(-1)! });
    const paths = ["freeze.toml", "keep.txt", "dir", "bin.dat", "missing.txt", "./keep.txt", "new\nname.txt"];
    const answer = (git: GitPort, sha: string, path: string): unknown => {
      try {
        return git.readFileAt(sha, path);
      } catch (error) {
        return gateError(() => {
          throw error;
        });
      }
    };
    for (const sha of commits) {
      ahead.prefetchFilesAt?.(sha, paths);
      for (const path of paths) expect(answer(ahead, sha, path), `${path} at ${sha}`).toEqual(answer(one, sha, path));
    }
    // A name outside the range is never read ahead: a revision git does not know stays readFileAt's error.
    const unknown = "0".repeat(40);
    ahead.prefetchFilesAt?.(unknown, ["keep.txt"]);
    expect(answer(ahead, unknown, "keep.txt")).toEqual(answer(one, unknown, "keep.txt"));
  });
});

describe("rangeDiff: the patch's lines as git diffs the two trees", () => {
  it("reads renames, quoted and non-ASCII names, binary files and mode changes, whatever the user's diff settings", () => {
    const repo = track(scratchRepo());
    const body = Array.from({ length: 12 }, (_, i) => `x${i} = ${i}`).join("\n") + "\n";
    const base = repo.commit("base", {
      "src/pkg/old mod.py": body,
      'src/pkg/q"uote.py': "a = 1\n",
      "src/pkg/ünï.py": "a = 1\n",
      "src/pkg/gone.py": "a = 1\n",
      "data.bin": new Uint8Array([0, 1, 2]),
      "run.sh": "echo\n",
    });
    chmodSync(join(repo.dir, "run.sh"), 0o755);
    const head = repo.commit("head", {
      "src/pkg/old mod.py": null,
      "src/pkg/new mod.py": body.replace("x3 = 3", "x3 = 33") + "x12 = 12\n",
      'src/pkg/q"uote.py': "a = 1\nb = 2\n",
      "src/pkg/ünï.py": "a = 2\n",
      "src/pkg/gone.py": null,
      "data.bin": new Uint8Array([0, 1, 3]),
    });
    // Settings that would change the text: no prefixes, other prefixes, a relative root, no renames.
    for (const [key, value] of [
      ["diff.noprefix", "true"],
      ["diff.mnemonicPrefix", "true"],
      ["diff.relative", "true"],
      ["diff.renames", "false"],
      ["core.quotePath", "false"],
      ["color.diff", "always"],
    ])
      repo.git(["config", key!, value!]);
    const { files, errors } = parseGitDiff(rangeDiff(base, head, at(join(repo.dir, "src"))));
    expect(errors).toEqual([]);
    expect(files.map((f) => [f.path, f.oldPath, f.status, f.binary, f.modeChanged, f.added])).toEqual([
      ["data.bin", undefined, "modified", true, false, []],
      ["run.sh", undefined, "modified", false, true, []],
      ["src/pkg/gone.py", undefined, "deleted", false, false, []],
      ["src/pkg/new mod.py", "src/pkg/old mod.py", "renamed", false, false, [4, 13]],
      ['src/pkg/q"uote.py', undefined, "modified", false, false, [2]],
      ["src/pkg/ünï.py", undefined, "modified", false, false, [1]],
    ]);
    expect(nodeGit(at(repo.dir)).rangeDiff(base, head)).toBe(rangeDiff(base, head, at(repo.dir)));
  });

  it("refuses a revision that reads as an option", () => {
    const repo = track(scratchRepo());
    const base = repo.commit("base", { "a.py": "a\n" });
    expect(() => rangeDiff("--output=/tmp/x", base, at(repo.dir))).toThrow(GateError);
  });
});

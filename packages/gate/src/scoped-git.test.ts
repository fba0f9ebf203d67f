// scopeGit and pathScope against a real git repository: a package's view of a monorepo.
import { afterEach, describe, expect, it } from "vitest";
import { repoPathOf } from "@proofgate/core";
import { nodeGit } from "./node/git.js";
import { pathScope, repositoryTopOf, scopeGit, SHARED_CI_PATHS } from "./scoped-git.js";
import { ISOLATED_GIT_ENV, scratchRepo, type ScratchRepo } from "./testing/index.js";

describe("pathScope", () => {
  const scope = pathScope("pkgs/a");

  it("maps the package's paths both ways, and the shared CI files as ../../ paths", () => {
    expect(scope.toPackage("pkgs/a/src/x.py")).toBe("src/x.py");
    expect(scope.toPackage("pkgs/a")).toBe(".");
    expect(scope.toPackage("pkgs/ab/x.py")).toBeUndefined();
    expect(scope.toPackage("pkgs/b/freeze.toml")).toBeUndefined();
    expect(scope.toPackage("README.md")).toBeUndefined();
    expect(scope.toPackage(".github/workflows/ci.yml")).toBe("../../.github/workflows/ci.yml");
    expect(scope.toPackage(".gitlab-ci.yml")).toBe("../../.gitlab-ci.yml");
    expect(scope.toPackage(".buildkite/pipeline.yml")).toBe("../../.buildkite/pipeline.yml");
    expect(scope.toRepo("src/x.py")).toBe("pkgs/a/src/x.py");
    expect(scope.toRepo("./freeze.toml")).toBe("pkgs/a/freeze.toml");
    expect(scope.toRepo("../../.github/workflows/ci.yml")).toBe(".github/workflows/ci.yml");
    expect(scope.sharedPatterns).toEqual([
      ...SHARED_CI_PATHS.map((p) => `../../${p}`),
      ...["", "pkgs/"].flatMap((dir) =>
        ["conftest.py", "pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"].map((f) => `../../${dir}${f}`),
      ),
    ]);
  });

  it("pytest's files above the package are shared: conftest.py and ini files whole, the rest by pytest's section", () => {
    expect(scope.toPackage("conftest.py")).toBe("../../conftest.py");
    expect(scope.toPackage("pkgs/pyproject.toml")).toBe("../../pkgs/pyproject.toml");
    expect(scope.toPackage("pkgs/b/conftest.py")).toBeUndefined();
    expect(scope.toPackage("other/conftest.py")).toBeUndefined();
    expect(scope.toRepo("../../tox.ini")).toBe("tox.ini");
    expect(scope.sharedSections).toEqual([
      {
        spec: "../../pyproject.toml [tool.pytest]",
        file: "../../pyproject.toml",
        section: "tool.pytest",
      },
      { spec: "../../tox.ini [pytest]", file: "../../tox.ini", section: "pytest" },
      { spec: "../../setup.cfg [tool:pytest]", file: "../../setup.cfg", section: "tool:pytest" },
      {
        spec: "../../pkgs/pyproject.toml [tool.pytest]",
        file: "../../pkgs/pyproject.toml",
        section: "tool.pytest",
      },
      { spec: "../../pkgs/tox.ini [pytest]", file: "../../pkgs/tox.ini", section: "pytest" },
      { spec: "../../pkgs/setup.cfg [tool:pytest]", file: "../../pkgs/setup.cfg", section: "tool:pytest" },
    ]);
  });

  it("a path that leaves the package is none of its (but the shared CI files)", () => {
    for (const path of ["../b/freeze.toml", "../../README.md", "../../../etc/passwd", "/etc/passwd", "src/../../b/x"])
      expect(scope.toRepo(path), path).toBeUndefined();
  });

  it("the repository root is no scope at all", () => {
    const root = pathScope("");
    expect(root.toPackage("a/b.py")).toBe("a/b.py");
    expect(root.toRepo("a/b.py")).toBe("a/b.py");
    expect(root.sharedPatterns).toEqual([]);
  });

  it("repoPathOf joins a package's report path to its folder (what the platforms annotate)", () => {
    expect(repoPathOf("pkgs/a", "freeze.toml")).toBe("pkgs/a/freeze.toml");
    expect(repoPathOf("pkgs/a", "../../.github/workflows/ci.yml")).toBe(".github/workflows/ci.yml");
    expect(repoPathOf("pkgs/a", "../../../x")).toBeUndefined();
    expect(repoPathOf("pkgs/a", "/abs")).toBeUndefined();
    expect(repoPathOf(undefined, "./a/b")).toBe("a/b");
  });
});

describe("scopeGit on a real repository", () => {
  let repo: ScratchRepo;
  afterEach(() => repo.cleanup());

  it("lists the package's commits and the shared CI ones, and maps every path", () => {
    repo = scratchRepo("proofgate-scoped-");
    const base = repo.commit("base", {
      "pkgs/a/freeze.toml": "version = 1\n",
      "pkgs/a/src/x.py": "x = 1\n",
      "pkgs/b/freeze.toml": "version = 1\n",
      "pkgs/b/y.py": "moved = True\n",
      "README.md": "hi\n",
    });
    const inA = repo.commit("a", { "pkgs/a/src/x.py": "x = 2\ny = 3\n" });
    const inB = repo.commit("b", { "pkgs/b/freeze.toml": "version = 1\nmax_active_leases = 9\n" });
    const ci = repo.commit("ci", { ".github/workflows/ci.yml": "on: push\n" });
    const moved = repo.commit("move b into a", { "pkgs/b/y.py": null, "pkgs/a/y.py": "moved = True\n" });
    const git = scopeGit(nodeGit({ cwd: repo.dir, env: { ...process.env, ...ISOLATED_GIT_ENV } }), "pkgs/a");
    const head = moved;

    expect(git.listCommits({ base, head }).map((c) => c.sha)).toEqual([inA, ci, moved]);
    expect(inB).not.toBe(head);
    expect(git.changedPaths(inA)).toEqual([{ status: "M", path: "src/x.py" }]);
    expect(git.changedPaths(inB)).toEqual([]);
    // A rename across the package's edge is an addition, as the package sees it.
    expect(git.changedPaths(moved)).toEqual([{ status: "A", path: "y.py" }]);
    expect(git.changedPaths(ci)).toEqual([{ status: "A", path: "../../.github/workflows/ci.yml" }]);
    expect(git.readFileAt(head, "freeze.toml")).toBe("version = 1\n");
    // b's ledger is not there for a, whatever path names it.
    expect(git.readFileAt(head, "../b/freeze.toml")).toBeUndefined();
    expect(git.readBlobAt(head, "../../pkgs/b/freeze.toml")).toBeUndefined();
    expect(git.readFileAt(head, "../../.github/workflows/ci.yml")).toBe("on: push\n");
    expect(git.listFilesAt(head, "").map((e) => e.path)).toEqual(["freeze.toml", "src/x.py", "y.py"]);
    expect(git.listFilesAt(head, "src").map((e) => e.path)).toEqual(["src/x.py"]);
    expect(git.addedLines(inA)).toEqual([
      {
        path: "src/x.py",
        lines: [
          { line: 1, text: "x = 2" },
          { line: 2, text: "y = 3" },
        ],
      },
    ]);
    expect(git.addedLines(inB)).toEqual([]);
    // A filter names the package's paths: git is asked for the repository's.
    expect(git.addedLines(inA, { paths: ["src/x.py"] }).map((f) => f.path)).toEqual(["src/x.py"]);
    expect(git.addedLines(inA, { paths: ["y.py"] })).toEqual([]);
    expect(git.addedLines(inA, { suffixes: [".py"] }).map((f) => f.path)).toEqual(["src/x.py"]);
    expect(git.blame({ base, head }, "src/x.py").map((l) => l.sha)).toEqual([inA, inA]);
    expect([...git.differingPaths(base, head)].sort()).toEqual(["../../.github/workflows/ci.yml", "src/x.py", "y.py"]);
    // The package's part of the diff, named as the package names its files.
    const diff = git.rangeDiff(base, head);
    expect(diff).toMatch(/^diff --git a\/src\/x\.py b\/src\/x\.py$/m);
    expect(diff).toMatch(/^\+\+\+ b\/y\.py$/m);
    expect(diff).not.toMatch(/pkgs\/|freeze\.toml|ci\.yml/);
  });

  it("names the files elsewhere in the repository that changed in the range, with the commits that changed them", () => {
    repo = scratchRepo("proofgate-scoped-");
    const base = repo.commit("base", {
      "pkgs/a/x.py": "1\n",
      "pkgs/b/data.json": "{}\n",
      "testdata/expected.txt": "6\n",
      "testdata/same.txt": "same\n",
      "top.txt": "top\n",
    });
    const first = repo.commit("expected", { "testdata/expected.txt": "7\n", "pkgs/a/x.py": "2\n" });
    const second = repo.commit("drop top.txt, rename b's data", {
      "top.txt": null,
      "pkgs/b/data.json": null,
      "pkgs/b/schema.json": "{}\n",
    });
    const third = repo.commit("expected again", { "testdata/expected.txt": "8\n" });
    const git = scopeGit(nodeGit({ cwd: repo.dir, env: { ...process.env, ...ISOLATED_GIT_ENV } }), "pkgs/a");
    const asked = [
      "../../testdata/expected.txt",
      "../../testdata/same.txt",
      "../../testdata/untracked.txt",
      "../b/schema.json",
      "../../top.txt",
      // The package's own files, and paths that leave the repository, are not outside files.
      "../a/x.py",
      "x.py",
      "../../../etc/passwd",
    ];
    const changes = git.outsideChanges!({ base, head: third }, asked);
    expect(changes.map((c) => [c.path, c.commits.map((x) => x.sha)])).toEqual([
      ["../../testdata/expected.txt", [first, third]],
      ["../b/schema.json", [second]],
      ["../../top.txt", [second]],
    ]);
    // Nothing changed between the two: no git log at all.
    expect(git.outsideChanges!({ base: third, head: third }, asked)).toEqual([]);
    expect(repositoryTopOf("/w/repo/pkgs/a", "pkgs/a")).toBe("/w/repo");
    expect(repositoryTopOf("/w/repo/pkgs/a/", "./pkgs/a/")).toBe("/w/repo");
    expect(repositoryTopOf("/w/repo/pkgs/a", "pkgs/b/../a")).toBe("/w/repo");
    expect(() => repositoryTopOf("/w/repo", "../x")).toThrow(/not a folder inside the repository/);
  });

  it("keeps a merge only for its own resolution in the package", () => {
    repo = scratchRepo("proofgate-scoped-merge-");
    const base = repo.commit("base", { "pkgs/a/x.py": "1\n", "pkgs/b/y.py": "1\n" });
    repo.git(["checkout", "-q", "-b", "side"]);
    const side = repo.commit("side: b", { "pkgs/b/y.py": "2\n" });
    repo.git(["checkout", "-q", "-"]);
    const own = repo.commit("main: a", { "pkgs/a/x.py": "2\n" });
    repo.git(["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    const merge = repo.git(["rev-parse", "HEAD"]).trim();
    const git = scopeGit(nodeGit({ cwd: repo.dir, env: { ...process.env, ...ISOLATED_GIT_ENV } }), "pkgs/a");
    const shas = git.listCommits({ base, head: merge }).map((c) => c.sha);
    expect(shas).toEqual([own]);
    expect(shas).not.toContain(side);
  });
});

// A package in a subfolder of the repository (`check --root pkgs/a`): the git port as the package sees it.
// Every path it hands out or takes is relative to the package folder, as the package's config, ledger,
// lock, coverage reports and test ids are; a path elsewhere in the repository is not there, except the CI
// files every package shares (SHARED_CI_PATHS), which come as `../../.github/workflows/ci.yml`. A commit
// that touched nothing of the package and no shared CI file is not one of the package's commits.
import { posix } from "node:path";
import { PYTEST_SETTINGS_FILES, pathMatcher, repoPathOf, type Commit, type SectionSpec } from "@proofgate/core";
import type { ChangedPath, TreeEntry } from "./git-types.js";
import type { GitPort } from "./ports.js";

/**
 * The CI files at the repository root that every package's gate answers for: a commit that touches one
 * is a commit of each package (its author and trailers count), and each gate protects them.
 */
export const SHARED_CI_PATHS: readonly string[] = Object.freeze([
  ".github/workflows/**",
  ".gitlab-ci.yml",
  ".buildkite/**",
]);

/**
 * pytest reads these from the folders above the package when the package has no settings file of its own
 * (its rootdir and ini file are found upwards, and every `conftest.py` up to the ini file's folder is
 * loaded): a root `conftest.py` can pass every test, a root `filterwarnings` can silence the warning a
 * regression raises. Each, at the repository root and in every folder between it and the package, is shared
 * as the CI files are: a commit that touches one is a commit of the package. `conftest.py` is protected
 * whole; the settings files by their pytest section (pyproject.toml's `[tool.pytest.ini_options]`, ...),
 * compared by meaning, as the package's own are.
 */
const PYTEST_SECTION: Readonly<Record<string, string>> = {
  "pyproject.toml": "tool.pytest",
  "tox.ini": "pytest",
  "setup.cfg": "tool:pytest",
};
const ANCESTOR_PYTEST_FILES: readonly { name: string; section?: string | undefined }[] = Object.freeze([
  { name: "conftest.py" },
  ...PYTEST_SETTINGS_FILES.map((name) => ({ name, section: PYTEST_SECTION[name] })),
]);

/** The folders above a package, repository-relative, from the root down ("" and "python" for "python/ct"). */
function ancestorsOf(root: string): string[] {
  const parts = root.split("/");
  return parts.map((_, i) => parts.slice(0, i).join("/"));
}

/** The repository files every gate of the package `root` answers for: the CI files, and pytest's files above it. */
export function sharedPathsOf(root: string): string[] {
  const clean = root.replace(/^\.\/+/, "").replace(/\/+$/, "");
  if (clean === "") return [...SHARED_CI_PATHS];
  return [
    ...SHARED_CI_PATHS,
    ...ancestorsOf(clean).flatMap((dir) =>
      ANCESTOR_PYTEST_FILES.map((f) => (dir === "" ? f.name : `${dir}/${f.name}`)),
    ),
  ];
}

/** The repository's top folder (absolute) from a package's absolute folder and its repository-relative path. */
export function repositoryTopOf(packageDir: string, root: string): string {
  const clean = posix.normalize(root.replace(/\/+$/, ""));
  if (clean === ".." || clean.startsWith("../") || clean.startsWith("/"))
    throw new TypeError(`repositoryTopOf: ${JSON.stringify(root)} is not a folder inside the repository`);
  const up = clean.split("/").filter((part) => part !== "" && part !== ".");
  return posix.join(packageDir, ...up.map(() => ".."));
}

/** Maps paths between the repository and a package folder in it (`root`: repository-relative, no slashes at the ends). */
export interface PathScope {
  /** The package folder, repository-relative ("pkgs/a"); "" for the repository root. */
  root: string;
  /** A repository path as the package names it; undefined for one that is not the package's. */
  toPackage(repoPath: string): string | undefined;
  /** A package path as the repository names it; undefined for one that leaves the package (but the shared CI files). */
  toRepo(packagePath: string): string | undefined;
  /**
   * The shared files protected whole, as the package names them (`../../.github/workflows/**`,
   * `../../conftest.py`).
   */
  sharedPatterns: readonly string[];
  /** The shared settings files protected by section (`../../pyproject.toml [tool.pytest.ini_options]`). */
  sharedSections: readonly SectionSpec[];
}

/** The pytest section a shared settings file is protected by; undefined for a file protected whole. */
function sectioned(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return ANCESTOR_PYTEST_FILES.find((f) => f.name === name)?.section;
}

/** The scope of the package folder `root` (repository-relative). */
export function pathScope(root: string, shared: readonly string[] = sharedPathsOf(root)): PathScope {
  const clean = root.replace(/^\.\/+/, "").replace(/\/+$/, "");
  const isShared = pathMatcher(shared);
  const up =
    clean === ""
      ? ""
      : clean
          .split("/")
          .map(() => "..")
          .join("/");
  const toPackage = (repoPath: string): string | undefined => {
    if (clean === "") return repoPath;
    if (repoPath === clean) return ".";
    if (repoPath.startsWith(`${clean}/`)) return repoPath.slice(clean.length + 1);
    return isShared(repoPath) ? `${up}/${repoPath}` : undefined;
  };
  const toRepo = (packagePath: string): string | undefined => {
    if (clean === "") return packagePath;
    const bare = packagePath.replace(/^\.\/+/, "");
    if (bare === "" || bare === ".") return clean;
    if (bare.startsWith("/")) return undefined;
    const joined = posix.normalize(`${clean}/${bare}`);
    if (joined === clean || joined.startsWith(`${clean}/`)) return joined;
    return !joined.startsWith("..") && isShared(joined) ? joined : undefined;
  };
  // As the package names them: a settings file by its pytest section, every other file whole.
  const sharedPatterns: string[] = [];
  const sharedSections: SectionSpec[] = [];
  for (const p of clean === "" ? [] : shared) {
    const file = `${up}/${p}`;
    const section = sectioned(p);
    if (section === undefined) sharedPatterns.push(file);
    else sharedSections.push({ spec: `${file} [${section}]`, file, section });
  }
  return { root: clean, toPackage, toRepo, sharedPatterns, sharedSections };
}

/**
 * The git port of the repository, seen from the package folder `root` (repository-relative): paths in and
 * out are the package's (see pathScope), `listCommits` keeps the commits that changed the package or a
 * shared CI file (a merge: by its own resolution), `rangeDiff` is the package's part of the diff, and a
 * base worktree is the package folder in the checkout.
 */
export function scopeGit(git: GitPort, root: string, shared: readonly string[] = sharedPathsOf(root)): GitPort {
  const scope = pathScope(root, shared);
  if (scope.root === "") return git;
  const prefix = scope.root;
  const mapPaths = (paths: Iterable<string>): string[] =>
    [...paths].flatMap((p) => {
      const mapped = scope.toPackage(p);
      return mapped === undefined ? [] : [mapped];
    });
  const changed = new Map<string, ChangedPath[]>();
  const changedPaths = (sha: string): ChangedPath[] => {
    const known = changed.get(sha);
    if (known) return known;
    const out = git.changedPaths(sha).flatMap((c): ChangedPath[] => {
      const path = scope.toPackage(c.path);
      const oldPath = c.oldPath === undefined ? undefined : scope.toPackage(c.oldPath);
      if (c.oldPath === undefined) return path === undefined ? [] : [{ ...c, path }];
      // A rename or copy across the package's edge is an addition (in) or a removal (out), as the package sees it.
      if (path !== undefined && oldPath !== undefined) return [{ ...c, path, oldPath }];
      if (path !== undefined) return [{ status: "A", path }];
      if (oldPath !== undefined && c.status === "R") return [{ status: "D", path: oldPath }];
      return [];
    });
    changed.set(sha, out);
    return out;
  };
  const differingPaths = (from: string, to: string): Set<string> => new Set(mapPaths(git.differingPaths(from, to)));
  const repoPath = (path: string): string | undefined => scope.toRepo(path);
  const inWorktree = (dir: string): string => `${dir.replace(/\/+$/, "")}/${prefix}`;
  const worktreeOf = (dir: string): string =>
    dir.endsWith(`/${prefix}`) ? dir.slice(0, dir.length - prefix.length - 1) : dir;
  return {
    ...git,
    listCommits: (range) =>
      git.listCommits(range).filter((commit) => {
        const own = changedPaths(commit.sha).flatMap((p) => (p.oldPath ? [p.path, p.oldPath] : [p.path]));
        if (own.length === 0) return false;
        if (commit.parents.length < 2) return true;
        // A merge answers for what differs from every parent: what it brought in from one side is that side's.
        const sides = commit.parents.slice(1).map((parent) => differingPaths(parent, commit.sha));
        return own.some((p) => sides.every((side) => side.has(p)));
      }),
    changedPaths,
    differingPaths,
    readBlobAt: (rev, path) => {
      const at = repoPath(path);
      return at === undefined ? undefined : git.readBlobAt(rev, at);
    },
    readFileAt: (rev, path) => {
      const at = repoPath(path);
      return at === undefined ? undefined : git.readFileAt(rev, at);
    },
    prefetchFilesAt: (rev, paths) =>
      git.prefetchFilesAt?.(
        rev,
        paths.flatMap((path) => repoPath(path) ?? []),
      ),
    listFilesAt: (rev, dir) => {
      const at = repoPath(dir.replace(/\/+$/, ""));
      if (at === undefined) return [];
      return git.listFilesAt(rev, at).flatMap((entry): TreeEntry[] => {
        const path = scope.toPackage(entry.path);
        return path === undefined || path === "." ? [] : [{ ...entry, path }];
      });
    },
    workTreeChanges: (options) => mapPaths(git.workTreeChanges(options)).filter((p) => !p.startsWith("../")),
    workTreeStatus: () =>
      git.workTreeStatus().flatMap((entry) => {
        const path = scope.toPackage(entry.path);
        return path === undefined || path === "." || path.startsWith("../") ? [] : [{ ...entry, path }];
      }),
    restoreTracked: (paths, keepIn) =>
      git.restoreTracked(
        paths.flatMap((p) => (repoPath(p) === undefined ? [] : [repoPath(p)!])),
        keepIn,
      ),
    rangeDiff: (base, head) => git.rangeDiff(base, head, prefix),
    addedLines: (sha, only) =>
      git
        .addedLines(
          sha,
          only && {
            ...only,
            ...(only.paths && { paths: only.paths.flatMap((p) => (repoPath(p) === undefined ? [] : [repoPath(p)!])) }),
          },
        )
        .flatMap((f) => {
          const path = scope.toPackage(f.path);
          return path === undefined || path.startsWith("../") ? [] : [{ ...f, path }];
        }),
    blame: (range, path) => {
      const at = repoPath(path);
      return at === undefined ? [] : git.blame(range, at);
    },
    outsideChanges: (range, paths) => {
      // Each path as the repository names it, if it resolves inside the repository but outside the package.
      const wanted = new Map<string, string>();
      for (const path of paths) {
        if (!path.startsWith("../")) continue;
        const at = repoPathOf(prefix, path);
        if (at !== undefined && at !== prefix && !at.startsWith(`${prefix}/`)) wanted.set(at, path);
      }
      if (wanted.size === 0) return [];
      // One diff of the two trees; the range's commits only when one of the files changed.
      const differ = git.differingPaths(range.base, range.head);
      const changed = [...wanted.keys()].filter((p) => differ.has(p));
      if (changed.length === 0) return [];
      const byPath = new Map(changed.map((p) => [p, [] as Commit[]]));
      for (const commit of git.listCommits(range))
        for (const c of git.changedPaths(commit.sha))
          for (const p of c.oldPath === undefined ? [c.path] : [c.path, c.oldPath]) {
            const list = byPath.get(p);
            if (list && list.at(-1) !== commit) list.push(commit);
          }
      return changed.map((p) => ({ path: wanted.get(p)!, commits: byPath.get(p)! }));
    },
    addWorktree: (rev, options) => inWorktree(git.addWorktree(rev, options)),
    removeWorktree: (dir) => git.removeWorktree(worktreeOf(dir)),
    listWorktrees: () => git.listWorktrees().map(inWorktree),
  };
}

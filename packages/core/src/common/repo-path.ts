// Paths as git writes them, relative to the repository root.

/**
 * A path relative to the repository root as git writes it: `./a//b/` is `a/b`. Undefined for an
 * absolute path, one that leaves the repository (`..`), or the root itself.
 */
export function normalizeRepoPath(path: string): string | undefined {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.includes("\\")) return undefined;
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.length === 0 || parts.includes("..")) return undefined;
  return parts.join("/");
}

/**
 * A path of a package's report (`check --root`) as the repository names it: `root` and `path` joined,
 * `..` resolved (`../../.github/workflows/ci.yml` from `pkgs/a` is `.github/workflows/ci.yml`). Without a
 * root, the path as normalizeRepoPath writes it. Undefined for an absolute path or one that leaves the repository.
 */
export function repoPathOf(root: string | undefined, path: string): string | undefined {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.includes("\\")) return undefined;
  const parts: string[] = [];
  for (const part of `${root ?? ""}/${path}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.pop() === undefined) return undefined;
  }
  return parts.length === 0 ? undefined : parts.join("/");
}

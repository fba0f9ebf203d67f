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

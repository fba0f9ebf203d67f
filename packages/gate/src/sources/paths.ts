// Paths as the gate's sources write them: always `/`-separated (the ports take POSIX paths), relative ones
// under the repository root.

/** Joins path parts with `/`, collapsing repeated separators. */
export const join = (...parts: string[]): string => parts.join("/").replace(/\/+/g, "/");

/** A path made absolute under `root`; an absolute one unchanged. */
export const underRoot =
  (root: string) =>
  (path: string): string =>
    path.startsWith("/") ? path : join(root, path);

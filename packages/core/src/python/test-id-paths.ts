// Where the file of a test id lies, as the gate's paths name it. pytest writes an id's file relative to its
// rootdir (the folder of the settings file it found, or the common folder of its arguments), and the gate's
// paths (git's, the ledger's protected paths, a finding's file) are relative to the gate's root. They differ
// when a package's gate (`check --root packages/x`) runs pytest under the repository's settings: the rootdir is
// the repository's top and the ids read `packages/x/tests/test_a.py::test_x` for the package's `tests/test_a.py`.

/** The file part of a test id: `tests/test_a.py` of `tests/test_a.py::TestA::test_x[1]`. */
export const testIdFile = (id: string): string => id.split("::", 1)[0]!;

/** Translates between an id's file (rootdir-relative) and the gate's path (root-relative, `../` outside the root). */
export interface TestIdPaths {
  /** The gate's path of an id's file. */
  toRoot(file: string): string;
  /** The id's file for a gate's path. */
  fromRoot(path: string): string;
  /** pytest's rootdir from the gate's root (`.` when they are one folder). */
  readonly rootdir: string;
}

/** The rootdir is the gate's root: an id's file is the gate's path. */
export const ROOTDIR_IS_ROOT: TestIdPaths = Object.freeze({
  toRoot: (file: string) => file,
  fromRoot: (path: string) => path,
  rootdir: ".",
});

/** What a run record says of the two folders (`RunRecord`'s fields). */
export interface RootdirFacts {
  /** The absolute root and rootdir, as the run wrote them. */
  root: string;
  rootdir: string;
  /** The rootdir from the root and the root from the rootdir, symlinks resolved (records since the plugin wrote them). */
  rootdirFromRoot?: string | undefined;
  rootFromRootdir?: string | undefined;
}

/** A path's segments, `.` and empty ones dropped, `..` taken back where it can be (kept at the start). */
const segments = (path: string): string[] => {
  const out: string[] = [];
  for (const part of path.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out;
};
const clean = (path: string): string => segments(path).join("/") || ".";
/** The path from folder `from` to `to`, both segment lists from one folder. */
const relative = (from: readonly string[], to: readonly string[]): string => {
  let k = 0;
  while (k < from.length && k < to.length && from[k] === to[k]) k++;
  return [...Array<string>(from.length - k).fill(".."), ...to.slice(k)].join("/") || ".";
};
// Deep enough that no id's file climbs out of it: the names above the two folders' common folder cancel out.
const ABOVE: readonly string[] = [...Array<string>(64).fill("v"), "c"];
const under = (folder: readonly string[], path: string): string[] => segments([...folder, path].join("/"));
const names = (path: string): string[] => segments(path).filter((s) => s !== "..");

/**
 * The translation a run's record gives (`ROOTDIR_IS_ROOT` without a record, or when the two are one folder). A
 * record of another kind (vitest's, whose ids are its root's) says `.` for both.
 */
export function testIdPaths(facts: RootdirFacts | undefined): TestIdPaths {
  if (!facts) return ROOTDIR_IS_ROOT;
  const absolute = facts.root.startsWith("/") && facts.rootdir.startsWith("/");
  const [r, d] = [segments(facts.root), segments(facts.rootdir)];
  const rootdir = clean(facts.rootdirFromRoot ?? (absolute ? relative(r, d) : "."));
  const root = clean(facts.rootFromRootdir ?? (absolute ? relative(d, r) : "."));
  if (rootdir === "." || root === ".") return ROOTDIR_IS_ROOT;
  // Both folders under their common folder, by the names each path from the other ends with.
  const rootAt = [...ABOVE, ...names(root)];
  const rootdirAt = [...ABOVE, ...names(rootdir)];
  return Object.freeze({
    toRoot: (file: string) => relative(rootAt, under(rootdirAt, file)),
    fromRoot: (path: string) => relative(rootdirAt, under(rootAt, path)),
    rootdir,
  });
}

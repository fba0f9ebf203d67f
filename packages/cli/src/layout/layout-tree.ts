import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What the layout detector may ask of a repository, by paths relative to its root ("/"-separated). */
export interface LayoutTree {
  /** A file, a folder, or nothing (a symlink is neither: init never follows one). */
  kind(path: string): "file" | "dir" | undefined;
  /** The names in a folder, folders ending in "/"; empty when it is not a folder. */
  list(path: string): string[];
  /** A small text file's content; undefined when it is missing, not a file or too large. */
  read(path: string): string | undefined;
}

/** Config files are small: a larger one is not a config file init should read. */
const MAX_READ = 1024 * 1024;

/** The repository at `root` on disk. */
export function diskTree(root: string): LayoutTree {
  const at = (path: string): string => (path === "" || path === "." ? root : join(root, path));
  const stat = (path: string) => {
    try {
      return lstatSync(at(path));
    } catch {
      return undefined;
    }
  };
  return {
    kind(path) {
      const s = stat(path);
      return s?.isFile() ? "file" : s?.isDirectory() ? "dir" : undefined;
    },
    list(path) {
      try {
        return readdirSync(at(path), { withFileTypes: true }).map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
      } catch {
        return [];
      }
    },
    read(path) {
      const s = stat(path);
      if (!s?.isFile() || s.size > MAX_READ) return undefined;
      try {
        return readFileSync(at(path), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * A tree held in memory (relative path -> text; a path ending in "/" is an empty folder), for tests and
 * for describing a layout in a table.
 */
export function memoryTree(entries: Readonly<Record<string, string>>): LayoutTree {
  const files: Record<string, string> = {};
  const dirs = new Set<string>([""]);
  for (const [p, text] of Object.entries(entries)) {
    if (p.endsWith("/")) dirs.add(p.slice(0, -1));
    else files[p] = text;
    const parts = p.replace(/\/$/, "").split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  const paths = Object.keys(files);
  return {
    kind: (path) => (Object.hasOwn(files, path) ? "file" : dirs.has(path) ? "dir" : undefined),
    list(path) {
      if (!dirs.has(path)) return [];
      const prefix = path === "" ? "" : `${path}/`;
      const names = new Set<string>();
      for (const p of [...paths, ...dirs]) {
        if (p === path || !p.startsWith(prefix)) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf("/");
        names.add(slash === -1 ? (dirs.has(p) ? `${rest}/` : rest) : `${rest.slice(0, slash)}/`);
      }
      return [...names].sort();
    },
    read: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
  };
}

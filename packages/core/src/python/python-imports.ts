// Which repository files a Python file names in its import statements, read from its text. The scan is
// conservative: it errs on the side of finding an import (a commented or quoted `import x` counts), since
// the measurement rules use it only to tell that a non-test module uses a file (that file is then source).

/**
 * The absolute dotted module names `text` (the file at `path`) imports: `import a.b` (and `a`),
 * `from a import b` (`a`, `a.b`), `from . import b` and `from ..m import b` resolved against the file's
 * package (its folder, as dotted path from the repository root). Every parent package is included.
 */
export function importedModules(text: string, path: string): Set<string> {
  const out = new Set<string>();
  const add = (name: string): void => {
    const parts = name.split(".");
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("."));
  };
  const isName = (s: string): boolean => /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(s);
  const names = (list: string): string[] =>
    list
      .replace(/[()\\]/g, " ")
      .split(",")
      .map((n) => (/^[A-Za-z_][\w.]*/.exec(n.trim())?.[0] ?? "").replace(/\.+$/, ""))
      .filter(isName);
  const pkg = path.split("/").slice(0, -1);
  // Line continuations join the statement; a from-import is blanked out once read, so that its
  // `import y` part is not read again as a top-level `import y`.
  let rest = text.replace(/\\\r?\n/g, " ");
  rest = rest.replace(
    /\bfrom(?:[ \t]+|(?=\.))(\.*)[ \t]*([A-Za-z_][\w.]*)?[ \t]+import[ \t]*(\([^)]*\)?|[^\n;#]*)/g,
    (all, dots: string, mod: string | undefined, list: string) => {
      let base: string[] | undefined;
      if (dots.length === 0) base = mod && isName(mod) ? mod.split(".") : undefined;
      else if (dots.length - 1 <= pkg.length) {
        base = [...pkg.slice(0, pkg.length - (dots.length - 1)), ...(mod && isName(mod) ? mod.split(".") : [])];
      }
      if (base !== undefined) {
        if (base.length > 0) add(base.join("."));
        for (const n of names(list)) add([...base, n].join("."));
      }
      return " ".repeat(all.length);
    },
  );
  for (const m of rest.matchAll(/\bimport[ \t]+([^\n;#]*)/g)) for (const n of names(m[1] ?? "")) add(n);
  // A module named by a literal: `importlib.import_module("x.y")`, `__import__("x")`, `sys.modules["x"]`,
  // `sys.modules.get("x")`. A computed name is out of reach (docs/reasons.md#unmeasured_source).
  const literal =
    /(?:\bimport_module|\b__import__|\bsys\.modules\s*\[|\bsys\.modules\.(?:get|pop|setdefault))\s*\(?\s*[rbuRBU]?(["'])([A-Za-z_][\w.]*)\1/g;
  for (const m of text.matchAll(literal)) if (isName(m[2] ?? "")) add(m[2]!);
  return out;
}

/**
 * The modules a packaging file names as entry points (`cli = "tools.cli:main"` in pyproject.toml,
 * `cli = tools.cli:main` in setup.cfg, `"cli=tools.cli:main"` in setup.py): code that ships, run by a
 * console script rather than imported.
 */
export function entryPointModules(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/=\s*["']?\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*:\s*[A-Za-z_]/g)) {
    const parts = m[1]!.split(".");
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("."));
  }
  return out;
}

/**
 * The dotted names a repository file can be imported under, whatever folder is on `sys.path`: every
 * tail of its path (`src/pkg/calc.py`: `calc`, `pkg.calc`, `src.pkg.calc`; a package's `__init__.py`
 * by its folder).
 */
export function moduleNames(path: string): string[] {
  if (!path.endsWith(".py")) return [];
  const parts = path.slice(0, -3).split("/");
  if (parts.at(-1) === "__init__") parts.pop();
  const out: string[] = [];
  for (let i = parts.length - 1; i >= 0; i--) out.push(parts.slice(i).join("."));
  return out;
}

/**
 * For each file of `files` (repository path to text), the other Python files of `files` it names, sorted:
 * a Python file by its import statements (`importedModules`), another (a packaging file) by its entry
 * points (`entryPointModules`), matched against `moduleNames`.
 */
export function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const path of files.keys())
    for (const name of moduleNames(path)) byName.set(name, [...(byName.get(name) ?? []), path]);
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) {
    const targets = new Set<string>();
    for (const name of path.endsWith(".py") ? importedModules(text, path) : entryPointModules(text))
      for (const target of byName.get(name) ?? []) if (target !== path) targets.add(target);
    graph.set(path, [...targets].sort());
  }
  return graph;
}

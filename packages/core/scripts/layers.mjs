#!/usr/bin/env node
// Keeps core's folders layered (docs/architecture.md): each folder's index.ts says, in its head comment,
// `// May import: a, b.` (or `nothing.`), and a module in that folder imports only its own folder and those.
// The modules at the top of src (decide, rules, build-report, index) may import any folder; no folder
// imports them. The declared folders must form no cycle. Tests, fixtures and fuzz harnesses are not layered.
//   node packages/core/scripts/layers.mjs [src folder]   exits 1, naming each upward import, when one breaks
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const NOT_LAYERED = new Set(["__fixtures__", "__properties__", "__snapshots__", "fuzz"]);
const MAY_IMPORT = /^\/\/ May import: ([a-z, -]+)\.$/m;
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.\.?\/[^"]+)"|\bimport\(\s*"(\.\.?\/[^"]+)"\s*\)/g;

/** The problems with `src`'s layering: upward imports, undeclared folders, cycles among the folders. */
export function checkLayers(src) {
  const problems = [];
  const folders = readdirSync(src).filter((n) => statSync(join(src, n)).isDirectory() && !NOT_LAYERED.has(n));
  const allowed = new Map();
  for (const folder of folders) {
    const index = join(src, folder, "index.ts");
    const match = existsSync(index) ? MAY_IMPORT.exec(readFileSync(index, "utf8")) : null;
    if (!match) {
      problems.push(`${folder}/index.ts: no "// May import: <folders>." line in its head comment`);
      continue;
    }
    const named = match[1] === "nothing" ? [] : match[1].split(",").map((s) => s.trim());
    for (const n of named)
      if (!folders.includes(n)) problems.push(`${folder}/index.ts: may import "${n}", no such folder`);
    allowed.set(folder, named);
  }
  problems.push(...cycles(allowed));
  for (const folder of folders) {
    for (const file of modules(join(src, folder), folder)) {
      const text = readFileSync(join(src, file), "utf8");
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2];
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        const to = target.includes("/") ? target.split("/")[0] : "(top of src)";
        if (to === folder || target.startsWith("../")) continue;
        if (!(allowed.get(folder) ?? []).includes(to))
          problems.push(
            `${file}: imports ${spec} (${to}), and ${folder}/ may import only: ${(allowed.get(folder) ?? []).join(", ") || "nothing"}`,
          );
      }
    }
  }
  return problems;
}

/** The folder's modules, relative to src, tests left out. */
function modules(dir, rel) {
  return readdirSync(dir).flatMap((n) => {
    const path = join(dir, n);
    if (statSync(path).isDirectory()) return NOT_LAYERED.has(n) ? [] : modules(path, `${rel}/${n}`);
    return n.endsWith(".ts") && !n.endsWith(".test.ts") ? [`${rel}/${n}`] : [];
  });
}

/** A cycle among the declared folders, as problems. */
function cycles(allowed) {
  const problems = [];
  const state = new Map();
  const visit = (folder, path) => {
    if (state.get(folder) === "done") return;
    if (state.get(folder) === "open") {
      problems.push(`the folders import each other: ${[...path.slice(path.indexOf(folder)), folder].join(" -> ")}`);
      return;
    }
    state.set(folder, "open");
    for (const next of allowed.get(folder) ?? []) visit(next, [...path, folder]);
    state.set(folder, "done");
  };
  for (const folder of allowed.keys()) visit(folder, []);
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const src = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "src");
  const problems = checkLayers(src);
  for (const p of problems) console.error(p);
  process.exit(problems.length > 0 ? 1 : 0);
}

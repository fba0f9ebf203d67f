// The files `proofgate check --run` leaves in the work tree, as .gitignore lines: the evidence files
// the config names, coverage.py's data, the report folder and Python's caches. `check --run` refuses
// an untracked file it did not expect, so a second run needs them ignored.
import { spawnSync } from "node:child_process";
import { appendFileSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GateError, type Env, type GateConfig } from "@proofgate/core";
import { writeNew } from "@proofgate/gate/node";

/** A .gitignore line, and a path it must ignore (asked of git, so a broader pattern counts too). */
export interface IgnoreEntry {
  line: string;
  probe: string;
}

/** What `check --run` writes for `config`, with the report in `reportDir`. */
export function ignoreEntries(config: GateConfig, reportDir: string, hypothesis: boolean): IgnoreEntry[] {
  const file = (path: string): IgnoreEntry => ({ line: path, probe: path });
  const files = [
    ...config.universe.collected,
    ...config.coverage.reports,
    ...(config.coverage.contexts ?? []),
    ...config.results.junit,
    // The property step runs for the seeds or for the property-test rule (its record), and writes its results.
    ...(config.properties.enabled || config.properties.judgeTests ? config.properties.results : []),
    ...config.evidence.stamps,
  ].map((p) => p.replace(/^\.\//, ""));
  // coverage.py's data and Python's caches only where the steps run Python.
  const python = config.commands.runner !== "vitest";
  const entries = [
    ...files.map(file),
    ...(python ? [file(".coverage"), { line: ".coverage.*", probe: ".coverage.proofgate-probe.1" }] : []),
    { line: `${reportDir}/`, probe: `${reportDir}/report.json` },
    ...(python ? [{ line: "__pycache__/", probe: "__pycache__/proofgate_probe.cpython-312.pyc" }] : []),
    ...(hypothesis ? [{ line: ".hypothesis/", probe: ".hypothesis/examples/proofgate-probe" }] : []),
  ];
  return entries.filter((e, i) => entries.findIndex((f) => f.line === e.line) === i);
}

/**
 * The entries the repository at `root` does not ignore yet. Git answers where `root` is a work tree
 * (every .gitignore and .git/info/exclude count, the user's global excludes file not: a teammate's
 * clone and CI lack it); elsewhere, a line of `root`'s .gitignore that is the entry itself.
 */
export function missingIgnoreEntries(root: string, entries: readonly IgnoreEntry[], env: Env): IgnoreEntry[] {
  // Not the gate's git runner: it sets GIT_LITERAL_PATHSPECS, which check-ignore refuses. The answer
  // only decides what init suggests, so any failure falls back to reading .gitignore.
  const r = spawnSync("git", ["-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin", "-z"], {
    cwd: root,
    env: { ...Object.fromEntries(Object.entries(env).filter(([k]) => k !== "GIT_LITERAL_PATHSPECS")), LC_ALL: "C" },
    input: entries.map((e) => `${e.probe}\0`).join(""),
    encoding: "utf8",
    timeout: 30_000,
  });
  if (r.error === undefined && (r.status === 0 || r.status === 1)) {
    const ignored = new Set(r.stdout.split("\0").filter(Boolean));
    return entries.filter((e) => !ignored.has(e.probe));
  }
  const lines = new Set(readGitignore(root).split(/\r?\n/).map(normalize));
  return entries.filter((e) => !lines.has(normalize(e.line)));
}

const normalize = (line: string): string => line.trim().replace(/^\//, "").replace(/\/$/, "");

function readGitignore(root: string): string {
  try {
    return readFileSync(join(root, ".gitignore"), "utf8");
  } catch {
    return "";
  }
}

/**
 * Adds `entries` to `root`'s .gitignore: appended under a comment line when the file exists (never
 * rewritten), created when it does not. A .gitignore that is not a regular file is a GateError.
 */
export function appendGitignore(root: string, entries: readonly IgnoreEntry[]): void {
  const path = join(root, ".gitignore");
  const block = `# proofgate check --run writes these\n${entries.map((e) => `${e.line}\n`).join("")}`;
  if (writeNew(path, block)) return;
  if (!lstatSync(path).isFile()) {
    throw new GateError({
      code: "usage",
      file: ".gitignore",
      message: "is not a regular file (a symlink or a folder): proofgate init adds to a file, it follows no link",
      fix: "add the lines above to the ignore file yourself",
    });
  }
  const text = readGitignore(root);
  appendFileSync(path, `${text === "" || text.endsWith("\n") ? "" : "\n"}${text === "" ? "" : "\n"}${block}`);
}

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Debian's Python: the one with pytest 7.2, pytest-cov 4.0 and coverage 6.5 (not the `python3` on PATH). */
export const PYTHON = "/usr/bin/python3";

/** The bundled CLI, through the workspace link to @proofgate/cli (run `pnpm build` first). */
export const PROOFGATE = createRequire(import.meta.url).resolve("@proofgate/cli/bin");

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** A fresh temp folder holding `files` (relative path -> text). */
export function makeProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "proofgate-e2e-"));
  for (const [path, text] of Object.entries(files)) writeText(join(dir, path), text);
  return dir;
}

export function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function run(cmd: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Run {
  // Nothing from the caller's shell may steer Python, pytest or coverage.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PYTHON|PYTEST_|COVERAGE_)/.test(k)));
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...base, PYTHONDONTWRITEBYTECODE: "1", ...env } });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `/usr/bin/python3 ...args` in `cwd`. */
export function python(args: readonly string[], cwd: string, env?: Record<string, string>): Run {
  return run(PYTHON, args, cwd, env);
}

/** Real pytest, without the cache plugin so runs don't leave state behind. */
export function pytest(args: readonly string[], cwd: string, env?: Record<string, string>): Run {
  return python(["-m", "pytest", "-p", "no:cacheprovider", ...args], cwd, env);
}

/** The proofgate bundle. */
export function proofgate(args: readonly string[], cwd: string): Run {
  return run(process.execPath, [PROOFGATE, ...args], cwd);
}

/** The ids that passed, from pytest's `-rA` short summary (`PASSED tests/test_a.py::test_x`), sorted. */
export function passed(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("PASSED "))
    .map((line) => line.slice("PASSED ".length).trimEnd())
    .sort();
}

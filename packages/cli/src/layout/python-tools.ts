import { spawnSync } from "node:child_process";
import type { Env } from "@proofgate/core";

/** The Python the commands will run, and the versions of the test tools installed in it. */
export interface PythonTools {
  /** The command as the config writes it: `python`, `python3`, `.venv/bin/python`. */
  command: string;
  /** Python's version; undefined when the command did not run. */
  python?: string | undefined;
  pytest?: string | undefined;
  pytestCov?: string | undefined;
  coverage?: string | undefined;
  hypothesis?: string | undefined;
}

// One small script prints every version as JSON: the distribution's version (importlib.metadata),
// else the module's __version__; null when it is not installed.
const PROBE = `
import json, sys
def version(dist, module):
    try:
        from importlib.metadata import version as v
        return v(dist)
    except Exception:
        pass
    try:
        return getattr(__import__(module), "__version__", "unknown")
    except Exception:
        return None
print(json.dumps({"python": sys.version.split()[0], "pytest": version("pytest", "pytest"),
    "pytestCov": version("pytest-cov", "pytest_cov"), "coverage": version("coverage", "coverage"),
    "hypothesis": version("hypothesis", "hypothesis")}))
`;

/**
 * Runs `command` (a shell word or command prefix, as the config will) with the probe script, in `cwd`
 * and `env` as `check --run` will. A command that does not run gives only `command`.
 */
export function probePython(command: string, cwd: string, env: Env): PythonTools {
  const r = spawnSync("sh", ["-c", `${command} -c "$PROOFGATE_PROBE"`], {
    cwd,
    env: { ...env, PROOFGATE_PROBE: PROBE },
    encoding: "utf8",
    timeout: 30_000,
  });
  if (r.status !== 0) return { command };
  try {
    const line = r.stdout.trim().split("\n").pop() ?? "";
    const found = JSON.parse(line) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === "string" ? v : undefined);
    return {
      command,
      python: text(found.python),
      pytest: text(found.pytest),
      pytestCov: text(found.pytestCov),
      coverage: text(found.coverage),
      hypothesis: text(found.hypothesis),
    };
  } catch {
    return { command };
  }
}

/** The interpreters tried, in order, when `--python` is not given. */
export const PYTHON_CANDIDATES: readonly string[] = Object.freeze(["python", "python3"]);

/**
 * The Python for the commands: `chosen` when given; else the first candidate that has pytest and pytest-cov
 * (the proof run needs both), else the first with pytest, else the first that runs at all, else `python`
 * (the config still says what to install).
 */
export function choosePython(chosen: string | undefined, cwd: string, env: Env): PythonTools {
  if (chosen !== undefined) return probePython(chosen, cwd, env);
  const probes: PythonTools[] = [];
  for (const candidate of PYTHON_CANDIDATES) {
    const probe = probePython(candidate, cwd, env);
    if (probe.pytest && probe.pytestCov) return probe;
    probes.push(probe);
  }
  return probes.find((p) => p.pytest) ?? probes.find((p) => p.python) ?? { command: PYTHON_CANDIDATES[0]! };
}

/** Whether `version` (e.g. "4.0.0") is at least `min` (e.g. [4, 1]); an unreadable version is not. */
export function atLeast(version: string | undefined, min: readonly number[]): boolean {
  if (version === undefined) return false;
  const parts = version.split(".").map((p) => Number.parseInt(p, 10));
  if (parts.some((p, i) => i < min.length && Number.isNaN(p))) return false;
  for (let i = 0; i < min.length; i++) {
    const have = parts[i] ?? 0;
    if (have !== min[i]) return have > min[i]!;
  }
  return true;
}

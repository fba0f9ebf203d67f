// Issue 21, item 2: the base's steps run the base's code. A src layout installed editable (the `.pth`
// line or the finder hook `pip install -e .` leaves, or PYTHONPATH naming the checkout) made the base's
// steps in their worktree import the head's package: a test the head drops from a parametrisation driven
// by the package, or skips through a flag in the package, compared equal. Real pytest 7.2, coverage.py
// 6.5 and git, in a venv (`--system-site-packages`, Debian's test tools) whose site-packages holds what
// pip leaves for an editable install; it is written here, as pip would, so no index is needed.
// Item 11: the base's worktree is gone after SIGTERM and SIGINT, and a dead gate's is pruned at start.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT,
  CALC,
  COLLECT,
  HUMAN,
  PY,
  check,
  cleanEnv,
  config,
  git,
  makeCheckProject,
  proofCommand,
  PROPERTIES,
  type CheckRun,
  type FileChange,
  type Identity,
  type Project,
} from "./check-project.js";
import { PROOFGATE } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The package, in src/: what the tests parametrise and skip by lives in the code under test. */
const SRC_CALC = `${CALC}

FORMATS = ("csv", "json", "xml")
FAST_PATH = True


def render(fmt, rows):
    if fmt not in FORMATS:
        raise ValueError(fmt)
    return f"{fmt}:{len(rows)}"
`;

const TEST_CALC = `import pytest

from pkg import calc


@pytest.mark.parametrize("fmt", calc.FORMATS)
def test_render(fmt):
    assert calc.render(fmt, [1, 2]) == f"{fmt}:2"


@pytest.mark.skipif(not calc.FAST_PATH, reason="no fast path")
def test_fast_total():
    assert calc.total([1, 2, 3]) == 6


def test_total():
    assert calc.total([]) == 0
`;

// `python` is the venv's (PATH), as in an activated virtualenv.
const inVenv = (command: string): string => command.replaceAll(PY, "python");
const PROJECT_CONFIG = config({
  collect: inVenv(COLLECT),
  proof: inVenv(proofCommand()),
  properties: inVenv(PROPERTIES),
});

/** How the editable install reaches the checkout. */
type Install = "pth" | "finder" | "pythonpath";

/**
 * A venv that sees Debian's pytest, with what `pip install -e .` leaves for this checkout: a `.pth` line
 * naming `src` (setuptools' default for a src layout), or the finder hook setuptools writes when the
 * package folder is mapped (`__editable___*_finder.py`, a meta path finder with MAPPING to the checkout).
 */
function venv(dir: string, install: Install, preload = false, inside = false): { env: Record<string, string> } {
  // Inside: the checkout's own `.venv`, ignored (as most projects keep it), not tracked.
  const root = inside ? join(dir, ".venv") : mkdtempSync(join(tmpdir(), "proofgate-venv-"));
  if (inside) writeFileSync(join(dir, ".git", "info", "exclude"), ".venv/\n");
  else made.push(root);
  const made_ = spawnSync(PY, ["-m", "venv", "--system-site-packages", "--without-pip", root], { encoding: "utf8" });
  expect(made_.status, made_.stderr).toBe(0);
  const site = spawnSync(
    join(root, "bin", "python"),
    ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
    {
      encoding: "utf8",
    },
  ).stdout.trim();
  if (install === "pth") writeFileSync(join(site, "__editable__.pkg-1.0.pth"), `${join(dir, "src")}\n`);
  if (install === "finder") {
    writeFileSync(
      join(site, "__editable__.pkg-1.0.pth"),
      "import __editable___pkg_1_0_finder; __editable___pkg_1_0_finder.install()\n",
    );
    writeFileSync(join(site, "__editable___pkg_1_0_finder.py"), finderModule({ pkg: join(dir, "src", "pkg") }));
  }
  // What setuptools' venv holds (distutils-precedence.pth imports _distutils_hack at start): a module of
  // the environment, loaded from the checkout's folder when the venv lies inside it.
  if (inside) {
    mkdirSync(join(site, "_distutils_hack"));
    writeFileSync(join(site, "_distutils_hack", "__init__.py"), "LOADED = True\n");
    writeFileSync(join(site, "distutils-precedence.pth"), "import _distutils_hack\n");
  }
  // A line that imports the package at interpreter start: nothing after it can redirect that import.
  if (preload) writeFileSync(join(site, "zz_preload.pth"), "import pkg.calc\n");
  const env: Record<string, string> = { PATH: `${join(root, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  if (install === "pythonpath") env.PYTHONPATH = join(dir, "src");
  return { env };
}

/** setuptools' editable finder (66.1, `_finder_template`), its meta path part. */
function finderModule(mapping: Record<string, string>): string {
  return `import sys
from importlib.machinery import all_suffixes as module_suffixes
from importlib.util import spec_from_file_location
from itertools import chain
from pathlib import Path

MAPPING = ${JSON.stringify(mapping)}


class _EditableFinder:  # MetaPathFinder
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        for pkg, pkg_path in reversed(list(MAPPING.items())):
            if fullname == pkg or fullname.startswith(f"{pkg}."):
                rest = fullname.replace(pkg, "", 1).strip(".").split(".")
                return cls._find_spec(fullname, Path(pkg_path, *rest))
        return None

    @classmethod
    def _find_spec(cls, fullname, candidate_path):
        init = candidate_path / "__init__.py"
        candidates = (candidate_path.with_suffix(x) for x in module_suffixes())
        for candidate in chain([init], candidates):
            if candidate.exists():
                return spec_from_file_location(fullname, candidate)


def install():
    if not any(finder == _EditableFinder for finder in sys.meta_path):
        sys.meta_path.append(_EditableFinder)
`;
}

/** A src-layout project: the base (a human's), then the patch's commits. */
function project(
  patch: Record<string, FileChange>,
  o: { who?: Identity; message?: string; config?: string } = {},
): Project {
  const p = makeCheckProject({
    mergePatch: false,
    base: {
      "pkg/__init__.py": null,
      "pkg/calc.py": null,
      "src/pkg/__init__.py": "",
      "src/pkg/calc.py": SRC_CALC,
      "tests/test_calc.py": TEST_CALC,
      "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n',
      "proofgate.toml": o.config ?? PROJECT_CONFIG,
    },
    patch: [{ message: o.message ?? "Tidy the formats\n", files: patch, who: o.who ?? AGENT }],
  });
  made.push(p.dir);
  return p;
}

function explain(r: CheckRun): string {
  return `exit ${r.status}\nreasons ${JSON.stringify(r.report.reasons)}\n${JSON.stringify(r.report.details, null, 1)}\n${JSON.stringify(r.report.errors, null, 1)}\n${r.stderr.slice(-4000)}`;
}

const DROP_XML = { "src/pkg/calc.py": SRC_CALC.replace('("csv", "json", "xml")', '("csv", "json")') };
const NO_FAST_PATH = { "src/pkg/calc.py": SRC_CALC.replace("FAST_PATH = True", "FAST_PATH = False") };

describe("check --run on an editable src layout: the base's steps import the base's code", () => {
  it.each<Install>(["finder", "pth", "pythonpath"])(
    "%s: an agent drops a parametrised case through the package: tests_removed names it",
    async (install) => {
      const p = project(DROP_XML);
      const { env } = venv(p.dir, install);
      // The head's own collection, in this venv, imports the checkout: the case is gone there.
      const r = await check(p.dir, ["--run", "--base", p.base], env);
      expect(r.status, explain(r)).toBe(1);
      expect(r.report.reasons).toContain("tests_removed");
      const removed = r.report.details.filter((d) => d.reason === "tests_removed");
      expect(removed.map((d) => d.message).join("\n")).toContain("tests/test_calc.py::test_render[xml]");
      expect(r.report.errors).toEqual([]);
    },
  );

  it("an agent turns the package's fast path off, skipping its test: tests_skipped_unledgered", async () => {
    const p = project(NO_FAST_PATH);
    const { env } = venv(p.dir, "pth");
    const r = await check(p.dir, ["--run", "--base", p.base], env);
    expect(r.status, explain(r)).toBe(1);
    expect(r.report.reasons).toContain("tests_skipped_unledgered");
    const skipped = r.report.details.filter((d) => d.reason === "tests_skipped_unledgered");
    expect(skipped.map((d) => d.message).join("\n")).toContain("tests/test_calc.py::test_fast_total");
  });

  it.each<Install>(["finder", "pth"])("%s: a harmless change MERGEs", async (install) => {
    const p = project(
      {
        "src/pkg/calc.py": `${SRC_CALC}\n\ndef mean(prices):\n    return total(prices) / len(prices)\n`,
        "tests/test_mean.py": "from pkg.calc import mean\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n",
      },
      { who: HUMAN, message: "Add mean()\n" },
    );
    const { env } = venv(p.dir, install);
    const r = await check(p.dir, ["--run", "--base", p.base], env);
    expect(r.status, explain(r)).toBe(0);
    expect(r.report.decision).toBe("MERGE");
  });

  it("the package imported at interpreter start (a .pth line): exit 2 naming the module, never a verdict", async () => {
    const p = project(DROP_XML);
    const { env } = venv(p.dir, "pth", true);
    const r = await check(p.dir, ["--run", "--base", p.base], env);
    expect(r.status, explain(r)).toBe(2);
    expect(r.report.decision).toBe("REJECT");
    const message = r.report.errors.map((e) => e.message).join("\n");
    expect(message).toContain("the base collect step");
    expect(message).toMatch(/imported pkg(\.calc)? from .*\/src\/pkg\//);
    expect(r.report.errors[0]?.file).toMatch(/^proofgate\.toml/);
  });
});

// The venv inside the checkout (an ignored `.venv/`, the usual place): its installed packages are the
// environment, not the project's code (setuptools' _distutils_hack, loaded at start, is no work-tree module
// shadowing Debian's), and a command naming `.venv/bin/python` must run at the base too. Found on real
// projects (cachetools): exit 2 on every check, then REJECT runner_tampering on a harmless change.
describe("check --run with the checkout's own ignored .venv", () => {
  const HARMLESS = {
    "src/pkg/calc.py": `${SRC_CALC}\n\ndef mean(prices):\n    return total(prices) / len(prices)\n`,
    "tests/test_mean.py": "from pkg.calc import mean\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n",
  };
  const VENV_PYTHON = config({
    collect: COLLECT.replaceAll(PY, ".venv/bin/python"),
    proof: proofCommand().replaceAll(PY, ".venv/bin/python"),
    properties: PROPERTIES.replaceAll(PY, ".venv/bin/python"),
  });

  it.each([
    ["activated (python on PATH)", undefined],
    ["named in the commands (.venv/bin/python)", VENV_PYTHON],
  ])("%s, editable install: a harmless change MERGEs", async (_, text) => {
    const p = project(HARMLESS, { who: HUMAN, message: "Add mean()\n", ...(text ? { config: text } : {}) });
    const { env } = venv(p.dir, "pth", false, true);
    const r = await check(p.dir, ["--run", "--base", p.base], text ? {} : env);
    expect(r.status, explain(r)).toBe(0);
    expect(r.report.decision).toBe("MERGE");
  });

  it("named in the commands: the base still runs the base's code (a dropped case is tests_removed)", async () => {
    const p = project(DROP_XML, { config: VENV_PYTHON });
    venv(p.dir, "pth", false, true);
    const r = await check(p.dir, ["--run", "--base", p.base], {});
    expect(r.status, explain(r)).toBe(1);
    expect(r.report.reasons).toContain("tests_removed");
    const removed = r.report.details.filter((d) => d.reason === "tests_removed");
    expect(removed.map((d) => d.message).join("\n")).toContain("tests/test_calc.py::test_render[xml]");
  });
});

/** Waits until `text` holds a match of `re`, or the child ends. */
function waitFor(child: ReturnType<typeof spawn>, re: RegExp, buffer: () => string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}\n${buffer()}`)), 60_000);
    const look = (): void => {
      const m = re.exec(buffer());
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stderr?.on("data", look);
    child.on("close", () => {
      clearTimeout(timer);
      reject(new Error(`ended before ${re}\n${buffer()}`));
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

describe("nothing left behind", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)("%s during a slow base step: the worktree and the step's processes are gone", async (signal, code) => {
    const p = project(DROP_XML);
    const pidFile = join(p.dir, ".git", "collect.pid");
    // The base's collect: a slow step (its shell's pid noted), so the signal lands while it runs.
    const slow = PROJECT_CONFIG.replace(
      /^collect = .*$/m,
      `collect = ${JSON.stringify(`echo $$ > ${pidFile}; sleep 60; ${inVenv(COLLECT)}`)}`,
    );
    git(p.dir, ["checkout", "-q", "main"]);
    writeFileSync(join(p.dir, "proofgate.toml"), slow);
    git(p.dir, ["commit", "-q", "-am", "Slow collection"], HUMAN);
    const base = git(p.dir, ["rev-parse", "HEAD"]).trim();
    git(p.dir, ["checkout", "-q", "patch"]);
    git(p.dir, ["rebase", "-q", "main"]);
    const { env } = venv(p.dir, "pth");

    const child = spawn(process.execPath, [PROOFGATE, "check", "--platform", "local", "--run", "--base", base], {
      cwd: p.dir,
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString("utf8")));
    const ended = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    const worktree = (await waitFor(child, /in a git worktree at (\S+), with the base's/, () => stderr))[1]!;
    while (!existsSync(pidFile)) await new Promise((r) => setTimeout(r, 50));
    const shell = Number(readFileSync(pidFile, "utf8").trim());
    expect(existsSync(worktree)).toBe(true);
    child.kill(signal);
    expect(await ended, stderr).toBe(code);
    expect(existsSync(worktree)).toBe(false);
    expect(git(p.dir, ["worktree", "list", "--porcelain"])).not.toContain(worktree);
    expect(alive(shell)).toBe(false);
  });

  it("a worktree a killed gate left is pruned at the next start; the user's own and a live gate's stay", async () => {
    const p = project({ "tests/test_more.py": "def test_more():\n    assert True\n" }, { who: HUMAN });
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    }).stdout;
    const stale = join(tmpdir(), `proofgate-base-${dead}-Stale1`);
    const live = join(tmpdir(), `proofgate-base-${process.pid}-Live01`);
    const mine = mkdtempSync(join(tmpdir(), "my-worktree-"));
    rmSync(mine, { recursive: true });
    for (const dir of [stale, live, mine]) {
      made.push(dir);
      git(p.dir, ["worktree", "add", "--detach", "--quiet", dir, p.base]);
    }
    const { env } = venv(p.dir, "pth");
    const r = await check(p.dir, ["--run", "--base", p.base], env);
    expect(r.status, explain(r)).toBe(0);
    const listed = git(p.dir, ["worktree", "list", "--porcelain"]);
    expect(listed).not.toContain(stale);
    expect(existsSync(stale)).toBe(false);
    expect(listed).toContain(live);
    expect(listed).toContain(mine);
    expect(listed.match(/proofgate-base-/g)).toHaveLength(1);
  });
});

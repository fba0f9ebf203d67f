// `check --root DIR`: the package folder a gate judges in a monorepo, checked before anything is read. The
// root is the CI's input (a flag in the workflow, a protected file), never a file of the patch: so it must be
// a real folder of this repository, reached through no symlink, in no nested repository.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GateError, type Env } from "@proofgate/core";

/** Where the gate works: the project folder, and the repository root when the folder is a package inside it. */
export interface ProjectRoot {
  /** The project's folder, absolute (symlinks resolved). */
  dir: string;
  /** The repository root when `dir` is a subfolder of it; undefined when the project is the repository. */
  gitRoot?: string | undefined;
  /** `dir` relative to the repository root, with `/`; "" for the root itself. */
  root: string;
}

const FIX = "pass the package's folder inside this repository, relative to where proofgate runs (e.g. --root pkgs/api)";

function usage(message: string, fix = FIX): GateError {
  return new GateError({ code: "usage", message, fix });
}

/** The root of the work tree `cwd` is in (symlinks resolved); undefined outside a repository. */
export function repositoryTop(cwd: string, env: Env): string | undefined {
  const out = spawnSync("git", ["rev-parse", "--show-toplevel"], {
    cwd,
    env: { ...env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    encoding: "utf8",
    windowsHide: true,
  });
  const top = out.status === 0 ? out.stdout.replace(/\n$/, "") : "";
  return top === "" ? undefined : realpathSync(top);
}

/**
 * The project folder `--root` names (relative to `cwd`, or absolute); without it, `cwd`: the repository
 * when `cwd` is its root (or in no repository), and otherwise the package in `cwd`, as `--root .` names it.
 * git reads every path from the repository's root, so a gate run in a subfolder as if it were the root
 * would judge the patch by the root's `proofgate.toml` (none: an adoption, on the defaults) and read the
 * package's paths at the root. A folder that does not exist, is not a folder, is outside the repository
 * `cwd` is in, is reached through a symlink, is inside `.git` or is in another repository (a submodule) is a
 * GateError (`usage`, exit 2).
 */
export function resolveProjectRoot(cwd: string, given: string | undefined, env: Env): ProjectRoot {
  if (given !== undefined) return resolveFolder(cwd, given, env, `--root ${JSON.stringify(given)}`);
  const top = repositoryTop(cwd, env);
  if (top === undefined || realpathSync(cwd) === top) return { dir: cwd, root: "" };
  return resolveFolder(cwd, ".", env, "run in a subfolder of the repository, without --root:", top);
}

/** The folder `given` names from `cwd` (`flag`: how, for messages), checked; `top` when already known. */
function resolveFolder(cwd: string, given: string, env: Env, flag: string, known?: string): ProjectRoot {
  if (given.trim() === "" || given.includes("\0")) throw usage(`${flag} names no folder`);
  const abs = resolve(cwd, given);
  if (!existsSync(abs)) throw usage(`${flag} does not exist (${abs})`);
  if (!statSync(abs).isDirectory()) throw usage(`${flag} is not a folder (${abs})`);
  const top = known ?? repositoryTop(cwd, env);
  if (top === undefined)
    throw usage(
      `${flag}: ${cwd} is not in a git repository`,
      "run proofgate inside the repository's work tree, and pass the package's folder with --root",
    );
  const real = realpathSync(abs);
  const root = relative(top, real);
  if (root.startsWith("..") || isAbsolute(root))
    throw usage(`${flag} is outside the git repository at ${top} (it is ${real})`);
  // No folder between the repository's root and the package may be a symlink: a link in the checkout is the
  // patch's to point elsewhere. (A link above the repository, such as a temp folder's, is the machine's.)
  for (let dir = abs; realpathSync(dir) !== top && dirname(dir) !== dir; dir = dirname(dir))
    if (lstatSync(dir).isSymbolicLink())
      throw usage(
        `${flag} passes through a symlink (${dir} is a link; the folder is ${real})`,
        "pass the package's real folder: a symlink in the checkout is the patch's to point elsewhere",
      );
  const parts = root === "" ? [] : root.split(sep);
  if (parts.includes(".git")) throw usage(`${flag} is inside the repository's .git folder`);
  // (With `known`, the folder is `cwd` itself, whose repository `known` already is.)
  if (known === undefined && repositoryTop(real, env) !== top)
    throw usage(
      `${flag} is in another git repository than ${top} (a submodule or a nested repository)`,
      "gate that repository from its own checkout, or pass a folder of this one",
    );
  return root === "" ? { dir: real, root: "" } : { dir: real, gitRoot: top, root: parts.join("/") };
}

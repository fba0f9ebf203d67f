// Test helper: throwaway git repositories with scripted histories. Never reads or writes the user's
// git config (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1); identities come from the env.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A git identity for scripted commits. */
export interface ScratchIdentity {
  name: string;
  email: string;
}

/** A human developer. */
export const ADA: ScratchIdentity = { name: "Ada Lovelace", email: "ada@example.org" };
/** A GitHub App bot. */
export const DEPENDABOT: ScratchIdentity = {
  name: "dependabot[bot]",
  email: "49699333+dependabot[bot]@users.noreply.github.com",
};

/** Environment that keeps git away from the machine's config, for the helper and for the code under test. */
export const ISOLATED_GIT_ENV = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
} as const;

/** A file's new content (text, bytes or a symlink target), or null to delete it. */
export type ScratchFile = string | Uint8Array | { symlink: string } | null;

/** A scratch repository in a temp folder. */
export interface ScratchRepo {
  dir: string;
  /** Runs git in the repo (or `cwd`), returns stdout; throws with git's stderr on failure. */
  git(
    args: readonly string[],
    options?: {
      input?: string | Uint8Array;
      cwd?: string;
      who?: { author?: ScratchIdentity; committer?: ScratchIdentity };
    },
  ): string;
  /**
   * Writes the files, stages everything and commits; returns the new commit's sha. With `sign`, the commit
   * is SSH-signed with that private key file (`git commit -S`, `gpg.format=ssh`).
   */
  commit(
    message: string,
    files?: Record<string, ScratchFile>,
    who?: { author?: ScratchIdentity; committer?: ScratchIdentity },
    options?: { sign?: string },
  ): string;
  /** Removes the folder. */
  cleanup(): void;
}

let clock = 1_700_000_000;

/** Runs git with an isolated config and the given identities; throws with stderr on failure. */
export function scratchGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string | Uint8Array; who?: { author?: ScratchIdentity; committer?: ScratchIdentity } } = {},
): string {
  const author = options.who?.author ?? ADA;
  const committer = options.who?.committer ?? options.who?.author ?? ADA;
  const date = `${clock++} +0000`;
  const result = spawnSync("git", args, {
    cwd,
    input: options.input,
    maxBuffer: 256 * 1024 * 1024,
    // A git that loops (2.39's interpret-trailers does on some messages) fails the test instead of hanging the run.
    timeout: 60_000,
    env: {
      ...process.env,
      ...ISOLATED_GIT_ENV,
      LC_ALL: "C",
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: date,
    },
  });
  if (result.status !== 0)
    throw new Error(
      `git ${args.slice(0, 4).join(" ")} failed in ${cwd}: ${result.error ?? result.signal ?? result.stderr?.toString()}`,
    );
  return result.stdout.toString("utf8");
}

/** Creates an empty repository (branch `main`) in a new temp folder. */
export function scratchRepo(prefix = "proofgate-git-"): ScratchRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchGit(dir, ["init", "-q", "-b", "main", "."]);
  return wrapRepo(dir);
}

/** Wraps an existing folder (e.g. a clone) as a ScratchRepo. */
export function wrapRepo(dir: string): ScratchRepo {
  const repo: ScratchRepo = {
    dir,
    git: (args, options = {}) => scratchGit(options.cwd ?? dir, args, options),
    commit(message, files = {}, who, options = {}) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(dir, path);
        if (content === null) {
          rmSync(full, { force: true });
          continue;
        }
        mkdirSync(dirname(full), { recursive: true });
        rmSync(full, { force: true });
        if (typeof content === "object" && "symlink" in content) symlinkSync(content.symlink, full);
        else writeFileSync(full, content);
      }
      scratchGit(dir, ["add", "-A"]);
      const sign = options.sign ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${options.sign}`] : [];
      scratchGit(
        dir,
        [...sign, "commit", "-q", "--allow-empty", "--cleanup=verbatim", ...(options.sign ? ["-S"] : []), "-F", "-"],
        { input: message, ...(who ? { who } : {}) },
      );
      return scratchGit(dir, ["rev-parse", "HEAD"]).trim();
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  return repo;
}

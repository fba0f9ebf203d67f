// `[agents] human_signatures = "required"`: each human commit of the range that carries a human trailer is
// verified, against the BASE revision's allowed-signers file (git, ssh-keygen) and, for what that does not
// vouch for, by the platform (its API). The verdict goes on the commit itself, so every trailer rule's
// `hasHumanTrailer` sees it. Nothing the patch wrote (its own allowed signers, its messages) is the judge.
import {
  GateError,
  allowedSignersFor,
  commitsNeedingSignatures,
  judgeSignatureCheck,
  shortRevision,
  withPlatformVerdict,
  type Commit,
  type CommitSignature,
  type CommitVerification,
  type GateConfig,
  type GateIssue,
  type SignaturePolicy,
} from "@proofgate/core";
import { createHash } from "node:crypto";
import type { GitPort } from "../ports.js";

/** The platform's verification of commits, as the gate asks for it (runGate builds it from the Platform). */
export interface PlatformVerifier {
  /** The platform's name in messages: `GitHub`, `GitLab`. */
  name: string;
  verify: (shas: readonly string[]) => Promise<CommitVerification[]>;
}

/** The commits with their verdicts, what vouched, and the allowed-signers file read. */
export interface VerifiedCommits {
  commits: Commit[];
  /** Undefined when signatures are not required. */
  policy?: SignaturePolicy | undefined;
  /** The allowed-signers file at the base and its digest, for the report's inputs. */
  signers?: { path: string; sha256: string } | undefined;
  warnings: GateIssue[];
}

const NOT_CHECKED: CommitSignature = {
  verified: false,
  why: "not checked: it carries no human trailer, or it is an agent's",
};

/** The entries of an allowed-signers file: its lines that are neither blank nor comments. */
function signerLines(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
}

/**
 * Verifies the signatures of the range's human-trailer commits when the base's config requires it, and
 * returns the commits with `signature` set on every one. Fails closed (a GateError, exit 2) when nothing
 * can verify: no allowed-signers file and no platform, a file named but missing or empty at the base,
 * or a platform that cannot answer when it is the only verifier.
 */
export async function verifyHumanSignatures(options: {
  git: GitPort;
  config: GateConfig;
  /** The base's config as the report names it (`proofgate.toml at 1a2b3c4d5e6f`). */
  configPath: string;
  base: string;
  commits: Commit[];
  platform?: PlatformVerifier | undefined;
}): Promise<VerifiedCommits> {
  const { git, config, base, commits, platform } = options;
  if (config.agents.humanSignatures !== "required") return { commits, warnings: [] };
  const warnings: GateIssue[] = [];
  const signersPath = config.agents.allowedSigners;
  if (signersPath === undefined && platform === undefined) {
    throw new GateError({
      code: "config_invalid",
      file: options.configPath,
      message:
        '[agents] human_signatures = "required", but nothing here can verify a signature: [agents] allowed_signers is not set, and no platform that verifies commits (GitHub, GitLab) runs this check',
      fix: 'set [agents] allowed_signers = ".github/allowed_signers" (an SSH allowed-signers file: one `email key-type key` line per human), in a human\'s commit',
    });
  }
  let signers: { path: string; sha256: string; label: string; text: string } | undefined;
  if (signersPath !== undefined) {
    const label = `${signersPath} at ${shortRevision(base)}`;
    const text = git.readFileAt(base, signersPath);
    if (text === undefined)
      throw new GateError({
        code: "file_missing",
        file: label,
        message: `[agents] allowed_signers names ${signersPath}, and the base revision has no such file: no signature can be checked`,
        fix: `commit the allowed-signers file (one \`email key-type key\` line per human) in a human's change first; the file a patch brings never judges that patch`,
      });
    if (signerLines(text).length === 0)
      throw new GateError({
        code: "file_empty",
        file: label,
        message: "the allowed-signers file lists no signer: no human commit could verify",
        fix: "add a line `alice@example.com ssh-ed25519 AAAA...` per human (the public key of `ssh-keygen -t ed25519`), in a human's change",
      });
    signers = { path: label, label, text, sha256: createHash("sha256").update(text).digest("hex") };
  }

  const patterns = config.agents.patterns;
  const candidates = commitsNeedingSignatures(commits, patterns);
  const local = new Map<string, CommitSignature>();
  if (signers) {
    // A key counts only for the people its line names: each commit is verified against the lines that list
    // its committer or its author, one git run per pair of emails.
    const groups = new Map<string, Commit[]>();
    for (const commit of candidates) {
      const emails = `${commit.committer.email}\n${commit.author.email}`.toLowerCase();
      groups.set(emails, [...(groups.get(emails) ?? []), commit]);
    }
    for (const group of groups.values()) {
      const first = group[0]!;
      const listed = allowedSignersFor(signers.text, [first.committer.email, first.author.email]);
      const checks = new Map(
        git
          .signatureChecks(
            group.map((c) => c.sha),
            listed.text,
          )
          .map((c) => [c.sha, c]),
      );
      for (const commit of group)
        local.set(
          commit.sha,
          judgeSignatureCheck(commit, checks.get(commit.sha), { file: signers.label, listed: listed.lines > 0 }),
        );
    }
  }

  const remaining = candidates.filter((c) => local.get(c.sha)?.verified !== true);
  let platformVerdicts: Map<string, CommitVerification> | undefined;
  let platformFailure: string | undefined;
  if (platform && remaining.length > 0) {
    try {
      platformVerdicts = new Map((await platform.verify(remaining.map((c) => c.sha))).map((v) => [v.sha, v]));
    } catch (error) {
      platformFailure = error instanceof Error ? error.message : String(error);
      if (!signers)
        throw new GateError({
          code: "platform_failed",
          message: `${platform.name} could not say whether ${remaining.length} human-trailer commit(s) are verified, and no allowed-signers file is set: ${platformFailure}`,
          fix: `give the job an API token that can read the ${platform.name === "GitLab" ? "repository (read_api)" : "pull request's commits"}, or set [agents] allowed_signers in a human's change`,
        });
      warnings.push({
        code: "platform_failed",
        message: `${platform.name} could not be asked about ${remaining.length} commit(s) the allowed signers did not verify: ${platformFailure}`,
      });
    }
  }

  const verdictOf = (commit: Commit): CommitSignature => {
    const own = local.get(commit.sha);
    if (!platform) return withPlatformVerdict(own, undefined);
    const verdict: CommitVerification | undefined =
      platformFailure !== undefined
        ? { sha: commit.sha, verified: false, detail: `could not be asked (${platformFailure})` }
        : platformVerdicts?.get(commit.sha);
    return withPlatformVerdict(own, { name: platform.name, verdict });
  };
  const needing = new Set(candidates.map((c) => c.sha));
  return {
    commits: commits.map((commit) => ({
      ...commit,
      signature: needing.has(commit.sha) ? verdictOf(commit) : NOT_CHECKED,
    })),
    policy: { required: true, allowedSigners: signers?.label, platform: platform?.name },
    signers: signers ? { path: signers.path, sha256: signers.sha256 } : undefined,
    warnings,
  };
}

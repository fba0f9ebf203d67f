// Who is human, verified (`[agents] human_signatures = "required"`): anyone who can push can write
// `Alice <alice@example.com>` as a commit's author, so a human trailer counts only on a commit whose
// signature verifies against the BASE revision's allowed signers, or that the platform verified. Pure: the
// gate asks git and the platform, and this judges what they said.
import { carriesAnyHumanTrailer, classifyCommit, type Commit, type CommitSignature } from "../model/authorship.js";

/** The signature kinds a commit object's `gpgsig` header can hold. */
export type SignatureFormat = "none" | "ssh" | "openpgp" | "x509" | "unknown";

/** What git says of one commit's signature, checked against the base's allowed-signers file. */
export interface SignatureCheck {
  sha: string;
  /** The kind of signature, from the commit object itself (`-----BEGIN SSH SIGNATURE-----`, ...). */
  format: SignatureFormat;
  /** SSH only: git's `%G?` (G good, U key not listed, B bad, X/Y expired, R revoked, E cannot check, N none). */
  status?: string | undefined;
  /** SSH only: git's `%GS`, the first principal of the line that lists the key, as written there (`a@x`, `*@x`). */
  principals?: string | undefined;
  /** SSH only: git's `%GK`, the key's fingerprint (`SHA256:…`). */
  key?: string | undefined;
}

/** A platform's word on one commit (GitHub's `verification.verified`, GitLab's signature endpoint). */
export interface CommitVerification {
  sha: string;
  verified: boolean;
  /** Why, in the platform's terms: `valid`, `unsigned`, `verification_status unverified`, ... */
  detail: string;
}

/** How human trailers are vouched for, from the base's `[agents]` (shown in the decision table). */
export interface SignaturePolicy {
  /** `[agents] human_signatures = "required"`. */
  required: boolean;
  /** The allowed-signers file as read: `.github/allowed_signers at 1a2b3c4d5e6f`; undefined when not set. */
  allowedSigners?: string | undefined;
  /** The platform whose verification counts too (`github`, `gitlab`); undefined where none vouches. */
  platform?: string | undefined;
}

/**
 * The commits whose signatures matter: a human's commits (no identity matches an agent pattern) that carry
 * any trailer valued `human`, whatever its key, so a trailer a later rule adds is covered too.
 */
export function commitsNeedingSignatures(commits: readonly Commit[], patterns: readonly string[]): Commit[] {
  return commits.filter((c) => carriesAnyHumanTrailer(c) && !classifyCommit(c, patterns).agent);
}

function patternRegExp(pattern: string): RegExp {
  let source = "";
  for (const ch of pattern)
    source += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : ch.replace(/[\\^$.+()[\]{}|/]/, "\\$&");
  return new RegExp(`^${source}$`, "iu");
}

/**
 * True when `email` is one of an allowed-signers line's principals: a comma-separated list of OpenSSH
 * patterns (`*` any text, `?` one character, a leading `!` negates and then wins), compared without case.
 */
export function principalMatches(principals: string, email: string): boolean {
  const text = email.trim();
  if (text === "") return false;
  let matched = false;
  for (const raw of principals.split(",")) {
    const pattern = raw.trim();
    if (pattern === "") continue;
    const negated = pattern.startsWith("!");
    if (patternRegExp(negated ? pattern.slice(1) : pattern).test(text)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** The allowed-signers lines that name one of `emails` among their principals, and how many there are. */
export interface SignersFor {
  /** Those lines, as the file writes them (comments and blank lines dropped). */
  text: string;
  lines: number;
}

/** The principals field of an allowed-signers line: its first word, or a double-quoted list. */
function principalsOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('"')) {
    const end = trimmed.indexOf('"', 1);
    return end < 0 ? trimmed.slice(1) : trimmed.slice(1, end);
  }
  return trimmed.split(/\s+/)[0] ?? "";
}

/**
 * The lines of an allowed-signers file (`principals [options] key-type key`) that list any of `emails`. git
 * verifies a commit against these alone, so a key counts only for the people its line names: the key
 * listed for alice@example.com vouches for Alice's commits, not for a commit that claims to be Bob's.
 */
export function allowedSignersFor(text: string, emails: readonly string[]): SignersFor {
  const lines = text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"))
    .filter((line) => emails.some((email) => principalMatches(principalsOf(line), email)));
  return { text: lines.map((line) => `${line}\n`).join(""), lines: lines.length };
}

/**
 * Judges git's answer for one commit, verified against the allowed-signers lines that list its committer
 * or its author (`allowedSignersFor`). Verified only for an SSH signature git calls good (`G`). `signers`
 * names the file as the report does; `listed` says whether any line listed the commit's emails.
 */
export function judgeSignatureCheck(
  commit: Pick<Commit, "author" | "committer">,
  check: SignatureCheck | undefined,
  signers: { file: string; listed: boolean },
): CommitSignature {
  const file = signers.file;
  if (!check || check.format === "none") return { verified: false, why: "it is not signed" };
  if (check.format !== "ssh") {
    const kind = check.format === "openpgp" ? "OpenPGP (GPG)" : check.format === "x509" ? "X.509" : "an unknown format";
    return {
      verified: false,
      why: `it is signed with ${kind}; the gate verifies SSH signatures only, against ${file}`,
    };
  }
  const key = check.key ? ` ${check.key}` : "";
  const emails =
    commit.committer.email.toLowerCase() === commit.author.email.toLowerCase()
      ? `<${commit.committer.email}>`
      : `its committer <${commit.committer.email}> or its author <${commit.author.email}>`;
  switch (check.status) {
    case "G":
      return { verified: true, why: `signed by the key${key} that ${file} lists for ${emails}` };
    case "U":
      return {
        verified: false,
        why: signers.listed
          ? `it is signed by the key${key}, which ${file} does not list for ${emails}`
          : `it is signed by the key${key}, and ${file} lists no key for ${emails}`,
      };
    case "B":
      return {
        verified: false,
        why: `its SSH signature does not verify against ${file} (a bad signature, or a key not allowed for git there)`,
      };
    case "X":
      return { verified: false, why: `its signature${key} has expired` };
    case "Y":
      return { verified: false, why: `it is signed by an expired key${key}` };
    case "R":
      return { verified: false, why: `it is signed by a revoked key${key}` };
    case "N":
      return { verified: false, why: "it is not signed" };
    default:
      return { verified: false, why: `git could not check its signature (status ${check.status ?? "none"})` };
  }
}

/**
 * The verdict when the allowed signers did not vouch: the platform's, when it verified the commit; else
 * why neither did. `local` is undefined when no allowed-signers file is set.
 */
export function withPlatformVerdict(
  local: CommitSignature | undefined,
  platform: { name: string; verdict: CommitVerification | undefined } | undefined,
): CommitSignature {
  if (local?.verified) return local;
  const localWhy = local ? local.why : "no allowed-signers file is set ([agents] allowed_signers)";
  if (!platform) return { verified: false, why: localWhy };
  const v = platform.verdict;
  if (v?.verified) return { verified: true, why: `${platform.name} verified its signature (${v.detail})` };
  return {
    verified: false,
    why: `${localWhy}; ${platform.name}: ${v ? v.detail : "did not list the commit"}`,
  };
}

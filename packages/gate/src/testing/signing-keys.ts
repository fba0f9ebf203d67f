// Test helper: real SSH signing keys (`ssh-keygen -t ed25519`, no passphrase) in a temp folder, and the
// allowed-signers lines git verifies commits against (`gpg.ssh.allowedSignersFile`).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** An SSH key pair made for a test. */
export interface SigningKey {
  /** The private key file: `sign` for ScratchRepo.commit, `user.signingkey` for git. */
  privateKey: string;
  /** The public key line (`ssh-ed25519 AAAA... comment`). */
  publicKey: string;
  /** The allowed-signers line that lists this key for `principals` (e.g. `ada@example.org`). */
  signerLine: (principals: string) => string;
}

/** A folder of keys; `cleanup` removes it. */
export interface SigningKeys {
  dir: string;
  make: (name: string) => SigningKey;
  cleanup: () => void;
}

/** Makes ed25519 keys with ssh-keygen in a new temp folder; throws when ssh-keygen is missing or fails. */
export function signingKeys(prefix = "proofgate-keys-"): SigningKeys {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    make(name) {
      const privateKey = join(dir, name);
      const made = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", privateKey], {
        timeout: 30_000,
      });
      if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.error ?? made.stderr?.toString()}`);
      const publicKey = readFileSync(`${privateKey}.pub`, "utf8").trim();
      return { privateKey, publicKey, signerLine: (principals) => `${principals} ${publicKey}\n` };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

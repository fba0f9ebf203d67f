// signatureChecks on real commits signed with real SSH keys (ssh-keygen, git 2.39's gpg.format=ssh): what
// git says of each, against an allowed-signers text the caller hands in, and that nothing of the
// machine's (its keyrings, a user.signingKey, the repo's own allowed-signers setting) takes part.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GateError } from "@proofgate/core";
import { signatureChecks, type GitRepo } from "./git.js";
import { ADA, ISOLATED_GIT_ENV, scratchRepo, type ScratchRepo } from "../testing/git-scratch.js";
import { signingKeys, type SigningKey, type SigningKeys } from "../testing/signing-keys.js";

const at = (cwd: string): GitRepo => ({ cwd, env: process.env });

let keys: SigningKeys;
let ada: SigningKey;
let mallory: SigningKey;
let repo: ScratchRepo;

beforeAll(() => {
  for (const [k, v] of Object.entries(ISOLATED_GIT_ENV)) vi.stubEnv(k, v);
  keys = signingKeys();
  ada = keys.make("ada");
  mallory = keys.make("mallory");
  repo = scratchRepo();
});
afterAll(() => {
  repo.cleanup();
  keys.cleanup();
  vi.unstubAllEnvs();
});

describe("signatureChecks", () => {
  it("reads each commit's signature kind, and git's verdict on SSH ones against the allowed signers given", () => {
    const unsigned = repo.commit("unsigned", { "a.txt": "1\n" });
    const good = repo.commit("signed by ada", { "a.txt": "2\n" }, undefined, { sign: ada.privateKey });
    const unlisted = repo.commit("signed by mallory", { "a.txt": "3\n" }, undefined, { sign: mallory.privateKey });
    // A commit object with an OpenPGP signature header: its kind is read from the object, and no gpg runs.
    const tree = repo.git(["rev-parse", `${unlisted}^{tree}`]).trim();
    const pgpObject = `tree ${tree}\nparent ${unlisted}\nauthor ${ADA.name} <${ADA.email}> 1700000000 +0000\ncommitter ${ADA.name} <${ADA.email}> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nPGP-signed\n`;
    const pgp = repo.git(["hash-object", "-t", "commit", "-w", "--stdin"], { input: pgpObject }).trim();

    const checks = signatureChecks([unsigned, good, unlisted, pgp], ada.signerLine(ADA.email), at(repo.dir));
    expect(checks[0]).toEqual({ sha: unsigned, format: "none" });
    expect(checks[1]).toMatchObject({ sha: good, format: "ssh", status: "G", principals: ADA.email });
    expect(checks[1]!.key).toMatch(/^SHA256:/);
    expect(checks[2]).toMatchObject({ sha: unlisted, format: "ssh", status: "U", principals: undefined });
    expect(checks[3]).toEqual({ sha: pgp, format: "openpgp" });
  });

  it("the machine's git config does not judge: the repo's own allowedSignersFile listing mallory is ignored", () => {
    const signed = repo.commit("signed by mallory again", { "a.txt": "4\n" }, undefined, { sign: mallory.privateKey });
    const local = join(keys.dir, "repo-signers");
    writeFileSync(local, mallory.signerLine(ADA.email));
    repo.git(["config", "gpg.ssh.allowedSignersFile", local]);
    try {
      expect(signatureChecks([signed], ada.signerLine(ADA.email), at(repo.dir))[0]).toMatchObject({ status: "U" });
    } finally {
      repo.git(["config", "--unset", "gpg.ssh.allowedSignersFile"]);
    }
  });

  it("%GS is the first principal of the line that lists the key; an empty allowed-signers text lists none", () => {
    const signed = repo.commit("signed, patterns", { "a.txt": "5\n" }, undefined, { sign: ada.privateKey });
    const [listed] = signatureChecks([signed], ada.signerLine("carol@example.org,*@example.org"), at(repo.dir));
    expect(listed).toMatchObject({ status: "G", principals: "carol@example.org" });
    expect(signatureChecks([signed], "", at(repo.dir))[0]).toMatchObject({ format: "ssh", status: "U" });
    expect(signatureChecks([], "", at(repo.dir))).toEqual([]);
  });

  it('a line that allows the key for other namespaces only (namespaces="file") is a bad signature for git', () => {
    const signed = repo.commit("signed, wrong namespace", { "a.txt": "6\n" }, undefined, { sign: ada.privateKey });
    const line = `${ADA.email} namespaces="file" ${ada.publicKey}\n`;
    expect(signatureChecks([signed], line, at(repo.dir))[0]).toMatchObject({ format: "ssh", status: "B" });
  });

  it("ssh-keygen missing from PATH: a GateError saying so, never a bad signature read as a verdict", () => {
    const signed = repo.commit("signed, no ssh-keygen", { "a.txt": "7\n" }, undefined, { sign: ada.privateKey });
    const bin = mkdtempSync(join(tmpdir(), "proofgate-only-git-"));
    try {
      const gitPath = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
      symlinkSync(gitPath, join(bin, "git"));
      const repoWithoutSsh: GitRepo = { cwd: repo.dir, env: { ...process.env, PATH: bin } };
      let thrown: unknown;
      try {
        signatureChecks([signed], ada.signerLine(ADA.email), repoWithoutSsh);
      } catch (error) {
        thrown = error;
      }
      expect(GateError.isInstance(thrown)).toBe(true);
      expect((thrown as GateError).issues[0]).toMatchObject({ code: "git_failed" });
      expect((thrown as GateError).message).toContain("ssh-keygen is not on PATH");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

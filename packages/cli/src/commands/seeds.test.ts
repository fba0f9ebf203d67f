import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../main.js";
import { DEPENDABOT, ISOLATED_GIT_ENV, scratchRepo, type ScratchRepo } from "@proofgate/gate/testing";

const outs: string[] = [];
let repo: ScratchRepo;
let base: string;

function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    now: () => new Date("2026-12-02T12:00:00Z"),
    cwd: repo.dir,
    env: process.env,
  };
  return run(args, io).then((code) => ({ code, stdout, stderr }));
}

const freshOut = (): string => {
  const dir = join(mkdtempSync(join(tmpdir(), "proofgate-seeds-")), "out");
  outs.push(dir);
  return dir;
};

beforeAll(() => {
  Object.assign(process.env, ISOLATED_GIT_ENV);
  repo = scratchRepo();
  base = repo.commit("base", {
    "tests/properties/seeds/a.json": '{"net": 1}\n',
    "tests/properties/seeds/nested/b.bin": new Uint8Array([0, 255, 10, 13]),
    "src/app.py": "x = 1\n",
  });
  // The agent's patch shrinks and rewrites the corpus; materialize must not see it.
  repo.commit(
    "agent rewrites seeds",
    { "tests/properties/seeds/a.json": '{"net": -5}\n', "tests/properties/seeds/nested/b.bin": null },
    { author: DEPENDABOT },
  );
  writeFileSync(join(repo.dir, "tests/properties/seeds/a.json"), "work tree edit\n");
});

afterAll(() => {
  for (const dir of outs) {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
  repo.cleanup();
});

describe("proofgate seeds materialize", () => {
  it("writes the corpus as it was at the base, from git objects, byte for byte, read-only", async () => {
    const out = freshOut();
    const r = await cli(["seeds", "materialize", "--ref", base, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const root = join(out, "tests/properties/seeds");
    expect(readFileSync(join(root, "a.json"), "utf8")).toBe('{"net": 1}\n');
    expect([...readFileSync(join(root, "nested/b.bin"))]).toEqual([0, 255, 10, 13]);
    expect(readdirSync(join(out, "tests"))).toEqual(["properties"]); // only the seeds, not src/
    expect(statSync(join(root, "a.json")).mode & 0o777).toBe(0o444);
    expect(statSync(join(root, "nested")).mode & 0o777).toBe(0o555);
    expect(statSync(root).mode & 0o777).toBe(0o555);
    expect(r.stderr).toContain("wrote 2 seed file(s)");
  });

  it("honours [properties] seeds and --seeds", async () => {
    const out = freshOut();
    const r = await cli([
      "seeds",
      "materialize",
      "--ref",
      base,
      "--out",
      out,
      "--seeds",
      "tests/properties/seeds/nested",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(out, "tests/properties/seeds"))).toEqual(["nested"]);
  });

  it("exits 1 with a warning when the corpus is empty at that revision", async () => {
    const r = await cli(["seeds", "materialize", "--ref", base, "--out", freshOut(), "--seeds", "tests/none"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("seeds_empty");
  });

  it("refuses a folder that is not empty, and an unknown revision, with exit 2", async () => {
    const out = freshOut();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "keep.txt"), "mine");
    const full = await cli(["seeds", "materialize", "--ref", base, "--out", out]);
    expect(full.code).toBe(2);
    expect(full.stderr).toMatch(/^proofgate: error: .*out: the output folder is not empty/);
    expect(readFileSync(join(out, "keep.txt"), "utf8")).toBe("mine");
    const unknown = await cli(["seeds", "materialize", "--ref", "no-such-ref", "--out", freshOut()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--ref no-such-ref is not a commit");
  });
});

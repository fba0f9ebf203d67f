// bin.ts runs a plain `deselect` command line without yargs (deselect-entry.ts). Both paths must answer
// alike: the same stdout, stderr, exit code and written file, on good input and bad.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainDeselectArgs, runDeselectCommand } from "./deselect-entry.js";
import { run, type CliIo } from "./main.js";

const NOW = new Date("2026-12-02T12:00:00Z");

// Made at once: the command lines below name files in it.
const dir = mkdtempSync(join(tmpdir(), "proofgate-deselect-entry-"));
beforeAll(() => {
  const ids = ["tests/test_a.py::test_one", "tests/test_a.py::test_one_more", "tests/test_b.py::test_two[x]"];
  const lease = (nodeid: string, expires: string): string =>
    `\n[[leases]]\nnodeid = "${nodeid}"\nowner = "alice"\nreason = "flaky"\nexpires = "${expires}"\n`;
  const top = (budget: number): string => `version = 1\nmax_active_leases = ${budget}\n`;
  const files: Record<string, string | Buffer> = {
    "freeze.toml": top(5) + lease(ids[0]!, "2027-01-01") + lease(ids[2]!, "2027-01-01"),
    "collected.txt": `${ids.join("\n")}\n\n3 tests collected in 0.01s\n`,
    "expired.toml": top(5) + lease(ids[0]!, "2026-11-30"),
    "unknown.toml": top(5) + lease("tests/test_a.py::test_onw", "2027-01-01"),
    "budget.toml": top(1) + lease(ids[0]!, "2027-01-01") + lease(ids[2]!, "2027-01-01"),
    "no-budget.toml": "version = 1\n" + lease(ids[2]!, "2027-01-01"),
    "syntax.toml": "version = 1\n[[leases]\n",
    "bad-date.toml": top(5) + lease(ids[0]!, "2027-02-30"),
    "empty.toml": "",
    "dupes.txt": `${ids.join("\n")}\n${ids[2]}\n\n4 tests collected in 0.01s\n`,
    "errors.txt": `${ids.join("\n")}\n\n3 tests collected, 1 error in 0.01s\n`,
    "truncated.txt": `${ids.join("\n")}\n`,
    "latin1.txt": Buffer.from(`tests/test_\xe9.py::test_x\n\n1 test collected in 0.01s\n`, "latin1"),
    "tree.txt": "============ test session starts ============\n<Module tests/test_a.py>\n",
    "crlf.txt": `${ids.join("\r\n")}\r\n\r\n3 tests collected in 0.01s\r\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  mkdirSync(join(dir, "folder.txt"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  written: string | null;
}

function captureIo(): { io: CliIo; out: { stdout: string; stderr: string } } {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    now: () => NOW,
    cwd: dir,
    env: {},
  };
  return { io, out };
}

/** The flag's value in argv (`--out X` or `--out=X`). */
function flagValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1];
    if (argv[i]!.startsWith(`--${name}=`)) return argv[i]!.slice(name.length + 3);
  }
  return undefined;
}

async function viaYargs(argv: string[]): Promise<Outcome> {
  return outcome(argv, async (io) => run(argv, io));
}

async function viaFastPath(argv: string[]): Promise<Outcome> {
  const args = plainDeselectArgs(argv);
  expect(args, `not a plain command line: ${argv.join(" ")}`).toBeDefined();
  return outcome(argv, async (io) => runDeselectCommand(args!, io));
}

async function outcome(argv: string[], go: (io: CliIo) => Promise<number>): Promise<Outcome> {
  const out = flagValue(argv, "out");
  if (out !== undefined) rmSync(out, { force: true, recursive: false });
  const { io, out: text } = captureIo();
  const code = await go(io);
  const written = out !== undefined && existsSync(out) ? readFileSync(out, "utf8") : null;
  return { code, ...text, written };
}

const abs = (name: string): string => join(dir, name);

describe("plainDeselectArgs", () => {
  it("reads the plain forms as yargs hands them to the command, defaults included", () => {
    expect(plainDeselectArgs(["deselect"])).toEqual({
      freeze: "freeze.toml",
      collected: "collected.txt",
      format: "args",
    });
    expect(
      plainDeselectArgs([
        "emit-deselect",
        "--format=plugin",
        "--out",
        "x.py",
        "--collected=c.txt",
        "--freeze",
        "f.toml",
        "--today",
        "2026-01-02",
      ]),
    ).toEqual({ freeze: "f.toml", collected: "c.txt", format: "plugin", out: "x.py", today: "2026-01-02" });
  });

  it("leaves every other command line to yargs", () => {
    for (const argv of [
      [],
      ["decide"],
      ["deselect", "--help"],
      ["deselect", "-h"],
      ["deselect", "--version"],
      ["deselect", "extra"],
      ["deselect", "--freeze"],
      ["deselect", "--freeze="],
      ["deselect", "--freeze", ""],
      ["deselect", "--freeze", "-"],
      ["deselect", "--freeze", "--collected", "c.txt"],
      ["deselect", "--freeze", "a", "--freeze", "b"],
      ["deselect", "--freeze=a", "--freeze=a"],
      ["deselect", "--format", "xml"],
      ["deselect", "--format=ARGS"],
      ["deselect", "--unknown", "x"],
      ["deselect", "--no-freeze"],
      ["deselect", "--Freeze", "f"],
      ["deselect", "--", "--freeze", "f"],
      ["deselect", "--freeze.x", "f"],
    ]) {
      expect(plainDeselectArgs(argv), argv.join(" ")).toBeUndefined();
    }
  });
});

describe("the fast path answers as yargs does", () => {
  const lines: string[][] = [
    ["deselect"],
    ["emit-deselect"],
    ["deselect", "--freeze", abs("freeze.toml"), "--collected", abs("collected.txt")],
    ["deselect", "--freeze=freeze.toml", "--collected=collected.txt", "--format=json"],
    ["deselect", "--format", "contexts-regex"],
    ["deselect", "--format", "args", "--out", abs("out/deselect.args")],
    ["deselect", "--format", "plugin", "--out", abs("out/proofgate_frozen.py")],
    ["deselect", "--format", "json", "--out", abs("out/plan.json")],
    ["deselect", "--today", "2026-12-02"],
    ["deselect", "--today", "2028-01-01"],
    ["deselect", "--today", "2026-13-01"],
    ["deselect", "--today", "yesterday"],
    ["deselect", "--format", "plugin"],
    ["deselect", "--format", "plugin", "--out", abs("out/not-a-module.py")],
    ["deselect", "--freeze", " "],
    ["deselect", "--freeze", "missing.toml"],
    ["deselect", "--collected", "missing.txt"],
    ["deselect", "--collected", "folder.txt"],
    ["deselect", "--freeze", "expired.toml"],
    ["deselect", "--freeze", "unknown.toml"],
    ["deselect", "--freeze", "budget.toml"],
    ["deselect", "--freeze", "no-budget.toml"],
    ["deselect", "--freeze", "syntax.toml"],
    ["deselect", "--freeze", "bad-date.toml"],
    ["deselect", "--freeze", "empty.toml"],
    ["deselect", "--collected", "dupes.txt"],
    ["deselect", "--collected", "errors.txt"],
    ["deselect", "--collected", "truncated.txt"],
    ["deselect", "--collected", "latin1.txt"],
    ["deselect", "--collected", "tree.txt"],
    ["deselect", "--collected", "crlf.txt"],
    ["deselect", "--out", abs("missing-folder-file/x"), "--freeze", "syntax.toml"],
  ];

  // The name shows <tmp> for the temp folder: a test's name must be the same in every collection (the
  // gate's universe compares the base's with the head's).
  it.each(lines.map((argv) => [JSON.stringify(argv).split(dir).join("<tmp>"), argv]))("%s", async (_name, argv) => {
    const slow = await viaYargs(argv);
    const fast = await viaFastPath(argv);
    expect(fast).toEqual(slow);
  });

  it("covers good input and bad (exit 0 and exit 2, warnings on stderr)", async () => {
    const codes = await Promise.all(lines.map(async (argv) => (await viaYargs(argv)).code));
    expect(new Set(codes)).toEqual(new Set([0, 2]));
    expect((await viaYargs(["deselect", "--collected", "dupes.txt"])).stderr).toMatch(/warning/);
  });

  it("on generated command lines: whenever the line is plain, the same answer", async () => {
    const value = fc.constantFrom(
      "freeze.toml",
      "expired.toml",
      "unknown.toml",
      "budget.toml",
      "collected.txt",
      "dupes.txt",
      "missing.txt",
      "args",
      "json",
      "plugin",
      "contexts-regex",
      "2026-12-02",
      "2031-02-29",
      abs("out/gen.py"),
      abs("out/gen.txt"),
      " ",
      "",
      "-x",
    );
    // --out only in the temp folder: a relative one is written where the test process runs.
    const outValue = fc.constantFrom(abs("out/gen.py"), abs("out/gen.txt"), abs("out/a b.py"), " ", "", "-x");
    const flagAndValue = fc.oneof(
      fc.tuple(fc.constantFrom("freeze", "collected", "format", "today"), value),
      fc.tuple(fc.constant("out"), outValue),
    );
    const token = fc.oneof(
      flagAndValue.map(([f, v]) => [`--${f}`, v]),
      flagAndValue.map(([f, v]) => [`--${f}=${v}`]),
      fc.constantFrom(["--help"], ["positional"], ["--check"]),
    );
    let plain = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("deselect", "emit-deselect"),
        fc.array(token, { maxLength: 4 }),
        async (cmd, tokens) => {
          const argv = [cmd, ...tokens.flat()];
          if (plainDeselectArgs(argv) === undefined) return;
          plain++;
          expect(await viaFastPath(argv)).toEqual(await viaYargs(argv));
        },
      ),
      { numRuns: 120, seed: 25 },
    );
    expect(plain).toBeGreaterThan(20);
  });
});

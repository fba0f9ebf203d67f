import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atLeast, choosePython, probePython } from "./python-tools.js";

// Interpreters stood in by shell scripts that answer the probe as a Python would (one JSON line),
// on a PATH of their own.
let dir: string;
let bin: string;

function fakePython(name: string, answer: Record<string, string | null> | "fail"): void {
  const script =
    answer === "fail"
      ? "#!/bin/sh\necho 'Traceback: no such module' >&2\nexit 1\n"
      : `#!/bin/sh\n# the probe script comes as: -c "<script>"\n[ "$1" = "-c" ] || exit 3\necho 'a line a sitecustomize printed'\necho '${JSON.stringify(answer)}'\n`;
  writeFileSync(join(bin, name), script);
  chmodSync(join(bin, name), 0o755);
}

const env = () => ({ PATH: `${bin}:/usr/bin:/bin` });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "proofgate-python-"));
  bin = join(dir, "bin");
  mkdirSync(bin);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("probePython", () => {
  it("reads the versions the interpreter prints (its last line), a missing tool as undefined", () => {
    fakePython("py", { python: "3.11.2", pytest: "7.2.1", pytestCov: "4.0.0", coverage: "6.5.0", hypothesis: null });
    expect(probePython("py", dir, env())).toEqual({
      command: "py",
      python: "3.11.2",
      pytest: "7.2.1",
      pytestCov: "4.0.0",
      coverage: "6.5.0",
      hypothesis: undefined,
    });
  });

  it("a command that fails or does not exist gives the command alone", () => {
    fakePython("broken", "fail");
    expect(probePython("broken", dir, env())).toEqual({ command: "broken" });
    expect(probePython("no-such-python", dir, env())).toEqual({ command: "no-such-python" });
  });

  it("runs a command with its arguments, as the config's commands will (a venv path, `uv run python`)", () => {
    fakePython("runner", {
      python: "3.12.0",
      pytest: "8.0.0",
      pytestCov: "5.0.0",
      coverage: "7.4.0",
      hypothesis: null,
    });
    expect(probePython(`${join(bin, "runner")}`, dir, env()).pytestCov).toBe("5.0.0");
  });
});

describe("choosePython", () => {
  it("takes the first of python, python3 that has pytest", () => {
    fakePython("python", { python: "3.12.0", pytest: null, pytestCov: null, coverage: null, hypothesis: null });
    fakePython("python3", {
      python: "3.11.2",
      pytest: "7.2.1",
      pytestCov: "4.0.0",
      coverage: "6.5.0",
      hypothesis: "6.67.1",
    });
    expect(choosePython(undefined, dir, env())).toMatchObject({ command: "python3", pytestCov: "4.0.0" });
  });

  it("prefers one that also has pytest-cov (the proof run needs it); else the first with pytest", () => {
    const tools = (pytestCov: string | null) => ({
      python: "3.11.7",
      pytest: "9.0.3",
      pytestCov,
      coverage: pytestCov && "7.6.1",
      hypothesis: null,
    });
    fakePython("python", tools(null));
    fakePython("python3", tools("6.0.0"));
    expect(choosePython(undefined, dir, env())).toMatchObject({ command: "python3", pytestCov: "6.0.0" });
    fakePython("python3", tools(null));
    expect(choosePython(undefined, dir, env())).toMatchObject({ command: "python", pytest: "9.0.3" });
  });

  it("without pytest anywhere, the first that runs; with nothing that runs, `python`", () => {
    fakePython("python", "fail");
    fakePython("python3", { python: "3.12.0", pytest: null, pytestCov: null, coverage: null, hypothesis: null });
    expect(choosePython(undefined, dir, env())).toEqual({
      command: "python3",
      python: "3.12.0",
      pytest: undefined,
      pytestCov: undefined,
      coverage: undefined,
      hypothesis: undefined,
    });
    rmSync(join(bin, "python3"));
    expect(choosePython(undefined, dir, { PATH: bin })).toEqual({ command: "python" });
  });

  it("--python wins, even when it has no pytest", () => {
    fakePython("python", {
      python: "3.11.2",
      pytest: "7.2.1",
      pytestCov: "4.0.0",
      coverage: "6.5.0",
      hypothesis: null,
    });
    fakePython("mine", { python: "3.13.0", pytest: null, pytestCov: null, coverage: null, hypothesis: null });
    expect(choosePython("mine", dir, env())).toMatchObject({ command: "mine", python: "3.13.0", pytest: undefined });
  });
});

describe("atLeast", () => {
  it.each([
    ["4.1.0", [4, 1], true],
    ["4.0.0", [4, 1], false],
    ["4.10", [4, 1], true],
    ["5", [4, 1], true],
    ["3.9.9", [4, 1], false],
    ["4.1.0rc1", [4, 1], true],
    ["4.0.0", [5], false],
    ["unknown", [4, 1], false],
    [undefined, [4, 1], false],
  ] as const)("%s >= %j: %s", (version, min, expected) => {
    expect(atLeast(version, min)).toBe(expected);
  });
});

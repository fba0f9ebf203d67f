import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GateConfig } from "@proofgate/core";
import {
  collectTryIssues,
  coverageFlags,
  pytestErrorLines,
  settingLine,
  shellTry,
  tail,
  tryCollectOnce,
  unknownCoverageOptions,
  type CommandTryRunner,
} from "./try-collect.js";

describe("init's try of the collect command: reading what it says", () => {
  it("the proof command's --cov words, with branches and no report", () => {
    expect(coverageFlags("python -m pytest tests --cov=pkg --cov=src/other --cov-branch --junitxml=r.xml")).toBe(
      "--cov=pkg --cov=src/other --cov-branch --cov-report=",
    );
    expect(coverageFlags("python -m pytest tests")).toBeUndefined();
    expect(coverageFlags(undefined)).toBeUndefined();
    // The include-ignored filter init writes goes along (PYTEST_ADDOPTS is split as sh splits words).
    expect(
      coverageFlags("python -m pytest -W 'ignore:--include is ignored because --source is set' --cov=pkg --cov-branch"),
    ).toBe("-W 'ignore:--include is ignored because --source is set' --cov=pkg --cov-branch --cov-report=");
  });

  it("coverage.py's unknown settings, once each, as coverage 6.5 words them (warning and error forms)", () => {
    const output = [
      "/usr/lib/python3/dist-packages/coverage/config.py:304: CoverageWarning: Unrecognized option '[tool.coverage.report] exclude_also=' in config file pyproject.toml",
      "coverage.exceptions.CoverageWarning: Unrecognized option '[tool.coverage.report] exclude_also=' in config file pyproject.toml",
      "Coverage.py warning: Unrecognized option '[run] core=' in config file .coveragerc",
    ].join("\n");
    expect(unknownCoverageOptions(output)).toEqual([
      { section: "tool.coverage.report", key: "exclude_also", file: "pyproject.toml" },
      { section: "run", key: "core", file: ".coveragerc" },
    ]);
  });

  it("the line of a setting: TOML, INI, quoted keys; none when absent", () => {
    expect(settingLine('[tool.coverage.report]\n"exclude_also" = []\n', "exclude_also")).toBe(2);
    expect(settingLine("[report]\nexclude_lines = x\nexclude_also:\n  y\n", "exclude_also")).toBe(3);
    expect(settingLine("[report]\n", "exclude_also")).toBeUndefined();
    expect(settingLine(undefined, "exclude_also")).toBeUndefined();
  });

  it("shellTry stops a command at its limit (exit 124, saying so) and waits without one when the limit is 0", () => {
    const stopped = shellTry("sleep 5", { cwd: process.cwd(), env: process.env, timeoutSeconds: 1 });
    expect(stopped.exitCode).toBe(124);
    expect(stopped.stderr).toContain("timed out after 1 s");
    const unlimited = shellTry("sleep 1; echo done", { cwd: process.cwd(), env: process.env, timeoutSeconds: 0 });
    expect(unlimited).toEqual({ exitCode: 0, stdout: "done\n", stderr: "" });
  });

  it("quotes a failure's last lines without terminal colour codes (vitest colours its output into a pipe)", () => {
    const vitest =
      '\u001b[90m 13|\u001b[39m import { x } from \u001b[32m"@acme/core"\u001b[39m;\n\n\u001b[31mError: no such package\u001b[39m\n';
    expect(tail(vitest)).toBe(' 13| import { x } from "@acme/core"; | Error: no such package');
  });

  it("a collect that fails: the fix speaks of what fails in that runner (pnpm's pin for vitest, warnings for pytest)", () => {
    const failed = { exitCode: 1, stdout: "", stderr: "ERR_PNPM_BAD_CONFIG_DEP\n" };
    const ctx = { configFile: "proofgate.toml", python: "python", read: () => undefined };
    const vitest = collectTryIssues("pnpm exec vitest list --json=collected.json", undefined, failed, {
      ...ctx,
      runner: "vitest",
    });
    expect(vitest[0]!.message).toContain("ERR_PNPM_BAD_CONFIG_DEP");
    expect(vitest[0]!.fix).toMatch(/packageManager/);
    expect(vitest[0]!.fix).not.toMatch(/filterwarnings/);
    const pytest = collectTryIssues("python -m pytest --collect-only -q", undefined, failed, ctx);
    expect(pytest[0]!.fix).toMatch(/filterwarnings/);
  });

  it("a src layout pytest cannot import: the error pytest wrote to collected.txt is quoted, and the fix says install it", () => {
    // tomli, not installed: stdout (with pytest's errors) went to collected.txt, stderr holds coverage.py's warnings.
    const collected = `
==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_data.py ______________________
ImportError while importing test module '/tmp/tomli/tests/test_data.py'.
tests/test_data.py:5: in <module>
    import tomli
E   ModuleNotFoundError: No module named 'tomli'
_____________________ ERROR collecting tests/test_misc.py ______________________
E   ModuleNotFoundError: No module named 'tomli'
ERROR tests/test_data.py
!!!!!!!!!!!!!!!!!!! Interrupted: 2 errors during collection !!!!!!!!!!!!!!!!!!!!
`;
    expect(pytestErrorLines(collected)).toEqual([
      "ERROR collecting tests/test_data.py",
      "E   ModuleNotFoundError: No module named 'tomli'",
      "ERROR collecting tests/test_misc.py",
      "ERROR tests/test_data.py",
    ]);
    const failed = { exitCode: 2, stdout: "", stderr: "CoverageWarning: No data was collected. (no-data-collected)\n" };
    const ctx = { configFile: "proofgate.toml", python: "python", read: () => undefined };
    const [issue] = collectTryIssues("python -m pytest --collect-only -q tests > collected.txt", undefined, failed, {
      ...ctx,
      written: { file: "collected.txt", text: collected },
    });
    expect(issue!.message).toContain(
      "exited with 2; pytest wrote to collected.txt: ERROR collecting tests/test_data.py | E   ModuleNotFoundError: No module named 'tomli'",
    );
    expect(issue!.message).toContain("its output ended: CoverageWarning: No data was collected.");
    expect(issue!.fix).toMatch(/^pytest cannot import tomli: install the project into `python` \(pip install -e \.\)/);
    // Without the file's text, as before.
    const [bare] = collectTryIssues("python -m pytest --collect-only -q tests > collected.txt", undefined, failed, ctx);
    expect(bare!.message).not.toContain("pytest wrote to");
    expect(bare!.fix).toMatch(/^make it run/);
  });

  it("tryCollectOnce reads what the command wrote to the universe file before removing it", () => {
    const root = mkdtempSync(join(tmpdir(), "proofgate-try-"));
    try {
      const config = {
        file: "proofgate.toml",
        universe: { collected: ["collected.txt"] },
        commands: { collect: "python -m pytest --collect-only -q tests > collected.txt", proof: undefined },
      } as unknown as GateConfig;
      const run: CommandTryRunner = (_command, { cwd }) => {
        writeFileSync(join(cwd, "collected.txt"), "E   ModuleNotFoundError: No module named 'pkg'\n");
        return { exitCode: 2, stdout: "", stderr: "no data\n" };
      };
      const out: string[] = [];
      const [issue] = tryCollectOnce(root, config, { command: "python" }, {}, { stdout: (t) => out.push(t) }, run);
      expect(issue!.message).toContain("pytest wrote to collected.txt: E   ModuleNotFoundError: No module named 'pkg'");
      expect(existsSync(join(root, "collected.txt"))).toBe(false);
      expect(out.join("")).toContain("exited with 2");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

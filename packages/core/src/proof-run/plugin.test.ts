import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { renderDeselectPlugin } from "../evidence/deselect.js";
import { PROOF_RUN_ENV, proofPluginModuleName, proofRunEnvironment, renderProofPlugin } from "./plugin.js";

// Debian's Python compiles the rendered source; real pytest runs of it are in apps/e2e/src/proof-run.e2e.test.ts.
const PYTHON = "/usr/bin/python3";
const lease = (nodeid: string) => ({ index: 0, nodeid, owner: "o", reason: "r", expires: "2026-12-31" });

describe("renderProofPlugin", () => {
  const ids = ['tests/a.py::test_q["x"]', "tests/a.py::test_café[\\n]", "tests/a.py::test_😀"];
  const source = renderProofPlugin(
    { today: "2026-09-20", active: ids.map(lease) },
    {
      ledgerFile: "freeze.toml",
      mounts: [{ dir: "/r/proofgate-report/seeds", prefix: "", label: "base-seeds" }],
      exclude: ["/r/proofgate-report"],
      outer: "/w/repo",
    },
  );

  it("fills every slot and compiles", () => {
    expect(source).not.toMatch(/__PROOFGATE_[A-Z_]+__/);
    execFileSync(PYTHON, ["-c", "import sys; compile(sys.stdin.read(), 'proofgate_run.py', 'exec')"], {
      input: source,
    });
  });

  it("holds the leased ids, mounts and exclusions exactly, as Python reads them", () => {
    const read = execFileSync(
      PYTHON,
      [
        "-c",
        "import ast, sys, json\ntree = ast.parse(sys.stdin.read())\nout = {}\nfor node in tree.body:\n    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith('PROOFGATE_'):\n        v = node.value\n        if isinstance(v, ast.Call): v = v.args[0]\n        out[node.targets[0].id] = ast.literal_eval(v)\nprint(json.dumps(out))",
      ],
      { input: source, encoding: "utf8" },
    );
    expect(JSON.parse(read)).toEqual({
      PROOFGATE_PLUGIN: "1",
      PROOFGATE_LEDGER: "freeze.toml",
      PROOFGATE_FROZEN: ids,
      PROOFGATE_MOUNTS: [["/r/proofgate-report/seeds", "", "base-seeds"]],
      PROOFGATE_EXCLUDE: ["/r/proofgate-report"],
      PROOFGATE_STOP_ON_MISSING: true,
      PROOFGATE_OUTER: "/w/repo",
    });
    const tolerant = renderProofPlugin(
      { today: "2026-09-20", active: [] },
      { ledgerFile: "f", stopOnUncollected: false },
    );
    expect(tolerant).toContain("\nPROOFGATE_STOP_ON_MISSING = False\n");
    // The repository's own run: no top above the root, so nothing outside it is recorded.
    expect(tolerant).toContain('\nPROOFGATE_OUTER = ""\n');
  });

  it("leaves renderDeselectPlugin (proofgate deselect --format plugin) as it was", () => {
    expect(
      renderDeselectPlugin({ today: "2026-09-20", active: [lease("t.py::x")] } as never, "freeze.toml"),
    ).not.toContain("PROOFGATE_RUN");
  });
});

describe("proofPluginModuleName and proofRunEnvironment", () => {
  it("names the module after the nonce, which must be hex", () => {
    expect(proofPluginModuleName("0123456789abcdef99")).toBe("proofgate_run_0123456789abcdef");
    expect(() => proofPluginModuleName("short")).toThrow(/16\+/);
    expect(() => proofPluginModuleName("0123456789ABCDEF")).toThrow();
  });

  it("puts the plugin first on PYTHONPATH and PYTEST_ADDOPTS, keeping what was there", () => {
    const env = proofRunEnvironment({
      nonce: "n",
      key: "k",
      record: "/r/out/run-record.json",
      root: "/r",
      pluginDir: "/r/out/pytest",
      moduleName: "proofgate_run_x",
      inherited: { PYTHONPATH: "/lib", PYTEST_ADDOPTS: "-q" },
      delimiter: ":",
      safePath: true,
    });
    expect(env).toEqual({
      [PROOF_RUN_ENV.nonce]: "n",
      [PROOF_RUN_ENV.key]: "k",
      [PROOF_RUN_ENV.record]: "/r/out/run-record.json",
      [PROOF_RUN_ENV.root]: "/r",
      PYTHONPATH: "/r/out/pytest:/lib",
      PYTEST_ADDOPTS: "-p proofgate_run_x -q",
      PYTHONSAFEPATH: "1",
    });
  });
});

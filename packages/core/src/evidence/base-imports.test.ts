import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BASE_IMPORTS_PLUGIN_MODULE,
  baseImportIssues,
  basePythonPath,
  parseBaseImports,
  renderBaseImportsPlugin,
  type BaseImportsSetup,
} from "./base-imports.js";

const SETUP: BaseImportsSetup = {
  worktree: "/tmp/proofgate-base-1-abcdef",
  checkouts: ["/home/u/proj", "/home/u/proj-wt2"],
  keep: ["/home/u/proj/proofgate-report"],
  report: "/home/u/proj/proofgate-report/base-imports/base-collect.jsonl",
};

describe("basePythonPath", () => {
  it("moves each entry in a checkout to the worktree's copy, and leaves the rest", () => {
    expect(
      basePythonPath(
        "/home/u/proj/src:/opt/lib:/home/u/proj-wt2/lib/x:/home/u/project:/home/u/proj:src:/home/u/proj/proofgate-report/base-skips:/tmp/proofgate-base-1-abcdef/src",
        SETUP,
      ),
    ).toBe(
      "/tmp/proofgate-base-1-abcdef/src:/opt/lib:/tmp/proofgate-base-1-abcdef/lib/x:/home/u/project:/tmp/proofgate-base-1-abcdef:src:/home/u/proj/proofgate-report/base-skips:/tmp/proofgate-base-1-abcdef/src",
    );
  });

  it("keeps an unset or empty PYTHONPATH as it is", () => {
    expect(basePythonPath(undefined, SETUP)).toBeUndefined();
    expect(basePythonPath("", SETUP)).toBe("");
  });
});

describe("parseBaseImports and baseImportIssues", () => {
  const at = {
    step: "base collect",
    command: "python -m pytest --collect-only -q",
    configFile: "proofgate.toml",
    base: "a".repeat(40),
  };

  it("no process loaded the plugin: exit 2 that says so and how to fix it", () => {
    const parsed = parseBaseImports("", "r.jsonl");
    expect(parsed.lines).toEqual([]);
    const issues = baseImportIssues(parsed.lines, at);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "universe_invalid", file: "proofgate.toml" });
    expect(issues[0]!.message).toContain("did not load proofgate's plugin (-p proofgate_base_imports");
    expect(issues[0]!.fix).toContain("python -m pytest");
  });

  it("a module loaded from a checkout, in any process: one issue, naming it and its file", () => {
    const text = [
      JSON.stringify({ pid: 1, local: 3, foreign: [] }),
      JSON.stringify({ pid: 2, local: 1, foreign: [{ module: "pkg", file: "/home/u/proj/src/pkg/__init__.py" }] }),
      JSON.stringify({ pid: 3, local: 1, foreign: [{ module: "pkg", file: "/home/u/proj/src/pkg/__init__.py" }] }),
    ].join("\n");
    const issues = baseImportIssues(parseBaseImports(text, "r.jsonl").lines, at);
    expect(issues.map((i) => i.message)).toEqual([
      "the base collect step (`python -m pytest --collect-only -q`) imported pkg from /home/u/proj/src/pkg/__init__.py, the work tree's copy, not the base aaaaaaaaaaaa's worktree: the base would be judged with the head's code",
    ]);
  });

  it("a package and its submodules (attrs, imported by hypothesis's plugin before the gate's): one issue per top-level package", () => {
    const src = "/home/u/attrs/src";
    const foreign = ["attr._cmp", "attr", "attr._make", "attr.setters", "attr.exceptions", "attrs"].map((module) => ({
      module,
      file: `${src}/${module.replace(/\./g, "/")}.py`,
    }));
    const text = JSON.stringify({ pid: 1, local: 0, foreign });
    const issues = baseImportIssues(parseBaseImports(text, "r.jsonl").lines, at);
    expect(issues.map((i) => i.message.split(", the work tree's copy")[0])).toEqual([
      `the base collect step (\`python -m pytest --collect-only -q\`) imported attr from ${src}/attr.py (and 4 more of its modules: attr._cmp, attr._make, attr.setters, ...)`,
      `the base collect step (\`python -m pytest --collect-only -q\`) imported attrs from ${src}/attrs.py`,
    ]);
    expect(issues[0]!.fix).toMatch(/^make attr importable from the worktree/);
  });

  it("every process imported the worktree's: no issue", () => {
    expect(baseImportIssues(parseBaseImports('{"pid":1,"local":2,"foreign":[]}\n', "r").lines, at)).toEqual([]);
  });

  it("a line the plugin would not write is an error naming the file and line", () => {
    expect(parseBaseImports('{"pid":1,"local":2,"foreign":[]}\n{"pid":"x"}\n', "r.jsonl").errors).toEqual([
      expect.objectContaining({ code: "universe_invalid", file: "r.jsonl", line: 2 }),
    ]);
  });
});

describe("the plugin, in Python", () => {
  const root = mkdtempSync(join(tmpdir(), "proofgate-base-imports-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  // The checkout (the head) and the base's worktree: the same layout, different code.
  for (const [tree, version] of [
    ["checkout", "head"],
    ["worktree", "base"],
  ] as const) {
    write(`${tree}/src/pkg/__init__.py`, `VERSION = "${version}"\n`);
    write(`${tree}/src/pkg/sub.py`, `VERSION = "${version}"\n`);
    write(`${tree}/ns/part/mod.py`, `VERSION = "${version}"\n`);
  }
  write("checkout/src/pkg/new.py", 'VERSION = "head"\n'); // only the head has it
  // An editable install's finder hook (setuptools' shape: MAPPING to the checkout, submodules by path).
  write(
    "site/editable_finder.py",
    `import sys
from importlib.util import spec_from_file_location
from pathlib import Path

MAPPING = {"pkg": ${JSON.stringify(join(root, "checkout/src/pkg"))}}


class Finder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        for pkg, pkg_path in MAPPING.items():
            if fullname == pkg or fullname.startswith(pkg + "."):
                rest = fullname.replace(pkg, "", 1).strip(".").split(".")
                base = Path(pkg_path, *[r for r in rest if r])
                for candidate in (base / "__init__.py", base.with_suffix(".py")):
                    if candidate.exists():
                        return spec_from_file_location(fullname, candidate)
        return None


sys.meta_path.append(Finder)
`,
  );
  const report = join(root, "report.jsonl");
  const setup: BaseImportsSetup = {
    worktree: join(root, "worktree"),
    checkouts: [join(root, "checkout")],
    keep: [join(root, "plugin")],
    report,
  };
  write(`plugin/${BASE_IMPORTS_PLUGIN_MODULE}.py`, renderBaseImportsPlugin(setup, "b".repeat(40)));

  it("moves the finder's answers, sys.path and namespace packages to the worktree; reports a module loaded before it", () => {
    const script = `import sys
sys.path.insert(0, ${JSON.stringify(join(root, "site"))})
import editable_finder
import ${BASE_IMPORTS_PLUGIN_MODULE} as plugin
sys.path.append(${JSON.stringify(join(root, "checkout/ns"))})
import pkg, pkg.sub, part.mod
try:
    import pkg.new
    print("new: imported")
except ModuleNotFoundError as e:
    print("new: missing")
print(pkg.VERSION, pkg.sub.VERSION, part.mod.VERSION)
plugin._write_report()
`;
    const out = execFileSync("/usr/bin/python3", ["-S", "-c", script], {
      cwd: join(root, "worktree"),
      env: { PATH: "/usr/bin:/bin", PYTHONPATH: join(root, "plugin"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(out).toBe("new: missing\nbase base base\n");
    const lines = parseBaseImports(readFileSync(report, "utf8"), report).lines!;
    expect(lines).toHaveLength(1);
    expect(lines[0]!.foreign).toEqual([]);
    expect(lines[0]!.local).toBeGreaterThanOrEqual(4);
  });

  it("a module imported from the checkout before the plugin loaded is reported with its file", () => {
    rmSync(report, { force: true });
    const script = `import sys
sys.path.insert(0, ${JSON.stringify(join(root, "checkout/src"))})
import pkg
import ${BASE_IMPORTS_PLUGIN_MODULE} as plugin
plugin._write_report()
`;
    execFileSync("/usr/bin/python3", ["-S", "-c", script], {
      cwd: join(root, "worktree"),
      env: { PATH: "/usr/bin:/bin", PYTHONPATH: join(root, "plugin"), PYTHONDONTWRITEBYTECODE: "1" },
    });
    const lines = parseBaseImports(readFileSync(report, "utf8"), report).lines!;
    expect(lines[0]!.foreign).toEqual([{ module: "pkg", file: join(root, "checkout/src/pkg/__init__.py") }]);
  });
});

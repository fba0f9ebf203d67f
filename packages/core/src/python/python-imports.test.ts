// The static side of "only tests use it": which modules a file's import statements name, read
// conservatively from its text, and which repository files those names can be.
import { describe, expect, it } from "vitest";
import { entryPointModules, importGraph, importedModules, moduleNames } from "./python-imports.js";

const names = (text: string, path = "pkg/sub/mod.py"): string[] => [...importedModules(text, path)].sort();

describe("importedModules", () => {
  it("import statements, with every parent package and aliases dropped", () => {
    expect(names("import os\nimport a.b.c as d, e\n")).toEqual(["a", "a.b", "a.b.c", "e", "os"]);
  });

  it("from-imports name the module and each imported name; `*` names only the module", () => {
    expect(names("from x.y import z as w, v\nfrom q import *\n")).toEqual(["q", "x", "x.y", "x.y.v", "x.y.z"]);
  });

  it("a from-import's names are not read again as top-level imports", () => {
    expect(names("from hypothesis import strategies\n")).not.toContain("strategies");
  });

  it("relative imports resolve against the file's package; beyond the top they name nothing", () => {
    expect(names("from . import helpers\n")).toEqual(["pkg", "pkg.sub", "pkg.sub.helpers"]);
    expect(names("from ..impl import fast\n")).toEqual(["pkg", "pkg.impl", "pkg.impl.fast"]);
    expect(names("from.m import x\n")).toEqual(["pkg", "pkg.sub", "pkg.sub.m", "pkg.sub.m.x"]);
    expect(names("from .... import x\n")).toEqual([]);
  });

  it("parenthesised and continued lists, statements after `;` and `:`, indented imports", () => {
    const text =
      "from a import (\n    b,\n    c as d,\n)\nimport e, \\\n    f\nx = 1; import g\nif x: import h\ndef f():\n    import i\n";
    expect(names(text)).toEqual(expect.arrayContaining(["a.b", "a.c", "e", "f", "g", "h", "i"]));
  });

  it("errs on the side of an import: a commented or quoted one counts", () => {
    expect(names("# import tests.helpers\ns = 'import other'\n")).toEqual(["other", "tests", "tests.helpers"]);
  });

  it("a module named by a literal to importlib, __import__ or sys.modules counts", () => {
    const text =
      'import importlib, sys\nimportlib.import_module("tests.impl_a")\n__import__(\'tests.impl_b\')\nsys.modules["tests.impl_c"]\nsys.modules.get("tests.impl_d")\n';
    expect(names(text)).toEqual(
      expect.arrayContaining(["tests.impl_a", "tests.impl_b", "tests.impl_c", "tests.impl_d"]),
    );
  });

  it("no import: `raise X from e`, importlib, __import__ with a computed name", () => {
    expect(
      names("raise ValueError('x') from err\nimport_thing = 1\nimportlib.import_module(n)\n__import__(n)\n"),
    ).toEqual([]);
  });
});

describe("entryPointModules", () => {
  it("console scripts in pyproject.toml, setup.cfg and setup.py; not `key: value` lines", () => {
    const names = (text: string): string[] => [...entryPointModules(text)].sort();
    expect(names('[project.scripts]\ncli = "tools.cli:main"\n')).toEqual(["tools", "tools.cli"]);
    expect(names("[options.entry_points]\nconsole_scripts =\n    run = runner:main\n")).toEqual(["runner"]);
    expect(names('entry_points={"console_scripts": ["cli=tools.cli:main"]}\n')).toEqual(["tools", "tools.cli"]);
    expect(names('markers = ["slow: marks slow tests"]\nname: pkg\n')).toEqual([]);
  });
});

describe("moduleNames", () => {
  it("every tail of the path, a package by its folder", () => {
    expect(moduleNames("src/pkg/calc.py")).toEqual(["calc", "pkg.calc", "src.pkg.calc"]);
    expect(moduleNames("tests/__init__.py")).toEqual(["tests"]);
    expect(moduleNames("README.md")).toEqual([]);
  });
});

describe("importGraph", () => {
  it("maps each file to the repository files it names, whatever folder is on sys.path", () => {
    const graph = importGraph(
      new Map([
        ["pkg/__init__.py", ""],
        ["pkg/calc.py", "from tests.helpers_impl import fast\nfrom . import util\n"],
        ["pkg/util.py", "import os\n"],
        ["tests/__init__.py", ""],
        ["tests/helpers_impl.py", "def fast(): pass\n"],
        ["tests/test_calc.py", "from helpers_impl import fast\nfrom pkg.calc import total\n"],
      ]),
    );
    expect(graph.get("pkg/calc.py")).toEqual([
      "pkg/__init__.py",
      "pkg/util.py",
      "tests/__init__.py",
      "tests/helpers_impl.py",
    ]);
    expect(graph.get("pkg/util.py")).toEqual([]);
    expect(
      importGraph(
        new Map([
          ["pyproject.toml", 'cli = "tests.helpers_impl:main"\n'],
          ["tests/helpers_impl.py", ""],
        ]),
      ).get("pyproject.toml"),
    ).toEqual(["tests/helpers_impl.py"]);
    expect(graph.get("tests/test_calc.py")).toEqual(["pkg/__init__.py", "pkg/calc.py", "tests/helpers_impl.py"]);
  });
});

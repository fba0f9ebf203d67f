import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { posix } from "node:path";
import { ROOTDIR_IS_ROOT, testIdFile, testIdPaths } from "./test-id-paths.js";

describe("testIdFile", () => {
  it("is the part of an id before its first ::", () => {
    expect(testIdFile("tests/test_a.py::TestA::test_x[a::b]")).toBe("tests/test_a.py");
    expect(testIdFile("tests/test_a.py")).toBe("tests/test_a.py");
  });
});

describe("testIdPaths", () => {
  it("is the identity without a record, and when the rootdir is the root", () => {
    expect(testIdPaths(undefined)).toBe(ROOTDIR_IS_ROOT);
    expect(testIdPaths({ root: "/r/pkg", rootdir: "/r/pkg" })).toBe(ROOTDIR_IS_ROOT);
    expect(testIdPaths({ root: "/r", rootdir: "/elsewhere", rootdirFromRoot: ".", rootFromRootdir: "." })).toBe(
      ROOTDIR_IS_ROOT,
    );
  });

  it("a rootdir above the root (a package under the repository's pytest settings)", () => {
    const p = testIdPaths({ root: "/r/packages/x", rootdir: "/r" });
    expect(p.rootdir).toBe("../..");
    expect(p.toRoot("packages/x/tests/test_a.py")).toBe("tests/test_a.py");
    expect(p.toRoot("testdata/helper_test.py")).toBe("../../testdata/helper_test.py");
    expect(p.toRoot("packages/xy/tests/test_a.py")).toBe("../xy/tests/test_a.py");
    expect(p.fromRoot("tests/test_a.py")).toBe("packages/x/tests/test_a.py");
    expect(p.fromRoot("../../testdata/helper_test.py")).toBe("testdata/helper_test.py");
  });

  it("a rootdir below the root, and beside it", () => {
    const below = testIdPaths({ root: "/r", rootdir: "/r/sub" });
    expect(below.toRoot("t/check.py")).toBe("sub/t/check.py");
    expect(below.fromRoot("sub/t/check.py")).toBe("t/check.py");
    expect(below.fromRoot("other.py")).toBe("../other.py");
    const beside = testIdPaths({ root: "/r/a", rootdir: "/r/b" });
    expect(beside.toRoot("tests/t.py")).toBe("../b/tests/t.py");
    expect(beside.toRoot("../a/tests/t.py")).toBe("tests/t.py");
    expect(beside.fromRoot("tests/t.py")).toBe("../a/tests/t.py");
  });

  it("takes the record's resolved folders over its absolute paths (a root reached through a symlink)", () => {
    // The gate passed /link/pkg, pytest resolved its rootdir to /real: the strings alone would say ../../real.
    const p = testIdPaths({
      root: "/link/pkg",
      rootdir: "/real",
      rootdirFromRoot: "..",
      rootFromRootdir: "pkg",
    });
    expect(p.toRoot("pkg/tests/test_a.py")).toBe("tests/test_a.py");
    expect(p.fromRoot("tests/test_a.py")).toBe("pkg/tests/test_a.py");
  });

  it("fromRoot undoes toRoot for any layout", () => {
    const segment = fc.constantFrom("a", "b", "pkg", "tests", "x.py");
    const folder = fc.array(segment, { maxLength: 3 });
    fc.assert(
      fc.property(folder, folder, folder, fc.array(segment, { minLength: 1, maxLength: 4 }), (top, r, d, f) => {
        const root = posix.join("/", ...top, ...r);
        const rootdir = posix.join("/", ...top, ...d);
        const p = testIdPaths({ root, rootdir });
        const file = f.join("/");
        const path = p.toRoot(file);
        expect(posix.normalize(posix.join(root, path))).toBe(posix.normalize(posix.join(rootdir, file)));
        expect(p.fromRoot(path)).toBe(file);
      }),
      { seed: 25, numRuns: 1000 },
    );
  });
});

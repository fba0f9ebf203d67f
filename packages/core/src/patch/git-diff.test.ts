import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseGitDiff, unquoteGitPath } from "./git-diff.js";

// Recorded with `git -c core.quotepath=on diff --no-color --unified=0 -M <base> <head> --` in a scratch
// repository: edits.diff edits, adds, deletes, renames with an edit, changes a mode and a binary file;
// renames.diff renames without an edit (a binary file too) and replaces a line at the end of a file
// without a final newline.
const fixture = (name: string): string =>
  readFileSync(new URL(`../__fixtures__/git-diff/${name}`, import.meta.url), "utf8");

describe("parseGitDiff on git's own output", () => {
  it("reads every kind of change, with the lines added at head", () => {
    const { files, errors } = parseGitDiff(fixture("edits.diff"));
    expect(errors).toEqual([]);
    const byPath = new Map(files.map((f) => [f.path, f]));
    expect([...byPath.keys()]).toEqual([
      "added.py",
      "bin.dat",
      "gone.py",
      "mode.sh",
      "new.py",
      "plus.py",
      'q"uote.py',
      "sp ace.py",
      "ünï.py",
    ]);
    expect(byPath.get("added.py")).toMatchObject({ status: "added", added: [1], binary: false });
    expect(byPath.get("bin.dat")).toMatchObject({ status: "modified", binary: true, added: [] });
    expect(byPath.get("gone.py")).toMatchObject({ status: "deleted", added: [] });
    expect(byPath.get("mode.sh")).toMatchObject({ status: "modified", modeChanged: true, added: [] });
    expect(byPath.get("new.py")).toMatchObject({ status: "renamed", oldPath: "old.py", added: [11] });
    // `+++ x` inside a counted hunk is the added line `++ x`, not a file header.
    expect(byPath.get("plus.py")).toMatchObject({ status: "added", added: [1] });
    expect(byPath.get('q"uote.py')).toMatchObject({ status: "modified", added: [2] });
    // A name with a space: git ends its ---/+++ lines with a tab.
    expect(byPath.get("sp ace.py")).toMatchObject({ status: "modified", added: [2, 4] });
    // core.quotePath: octal UTF-8 bytes.
    expect(byPath.get("ünï.py")).toMatchObject({ status: "modified", added: [2] });
  });

  it("a rename with no edit adds no line; the new name is the path, the old one is kept", () => {
    const { files, errors } = parseGitDiff(fixture("renames.diff"));
    expect(errors).toEqual([]);
    expect(files.map((f) => [f.path, f.oldPath, f.status, f.added])).toEqual([
      ["added.py", undefined, "modified", [1, 2]],
      ["bin2.dat", "bin.dat", "renamed", []],
      ['moved "q".py', "new.py", "renamed", []],
      ["sp ace2.py", "sp ace.py", "renamed", []],
      // `\ No newline at end of file` is no line.
      ["ünï.py", undefined, "modified", [2]],
    ]);
  });

  it("an empty diff has no file", () => {
    expect(parseGitDiff("")).toEqual({ files: [], errors: [] });
  });

  it("context lines advance the numbering (a diff with -U1)", () => {
    const text = [
      "diff --git a/m.py b/m.py",
      "index 1..2 100644",
      "--- a/m.py",
      "+++ b/m.py",
      "@@ -1,3 +1,4 @@",
      " a",
      "-b",
      "+B",
      "+C",
      " c",
    ].join("\n");
    expect(parseGitDiff(text).files[0]!.added).toEqual([2, 3]);
  });

  it("a truncated hunk, a stray line or an unknown header is an error naming the line, never a figure", () => {
    const truncated = parseGitDiff(
      ["diff --git a/m.py b/m.py", "--- a/m.py", "+++ b/m.py", "@@ -0,0 +1,2 @@", "+a"].join("\n"),
      "range.diff",
    );
    expect(truncated.errors).toEqual([
      expect.objectContaining({
        code: "git_failed",
        file: "range.diff",
        line: 5,
        message: expect.stringContaining("ends inside a hunk"),
      }),
    ]);
    const stray = parseGitDiff(
      ["diff --git a/m.py b/m.py", "--- a/m.py", "+++ b/m.py", "@@ -0,0 +1 @@", "+a", "+b"].join("\n"),
    );
    expect(stray.errors.map((e) => e.line)).toEqual([6]);
    expect(parseGitDiff("hello\n").errors[0]).toMatchObject({
      line: 1,
      message: expect.stringContaining("before the first"),
    });
    expect(parseGitDiff("diff --git a/x b/x\nsomething else\n").errors[0]).toMatchObject({ line: 2 });
  });

  it("a header whose two names differ, with nothing else to name the file, is an error", () => {
    const { errors } = parseGitDiff("diff --git a/x b/y\nold mode 100644\nnew mode 100755\n");
    expect(errors).toEqual([
      expect.objectContaining({ line: 1, message: expect.stringContaining("cannot tell the file") }),
    ]);
  });

  it("a mode change of a file whose name holds ' b/' is still read from the header", () => {
    const { files, errors } = parseGitDiff("diff --git a/x b/y b/x b/y\nold mode 100644\nnew mode 100755\n");
    expect(errors).toEqual([]);
    expect(files).toEqual([
      { path: "x b/y", oldPath: undefined, status: "modified", binary: false, modeChanged: true, added: [] },
    ]);
  });
});

describe("unquoteGitPath", () => {
  it("takes git's C quoting apart", () => {
    expect(unquoteGitPath("plain name.py")).toBe("plain name.py");
    expect(unquoteGitPath('"a\\tb\\"c\\\\d"')).toBe('a\tb"c\\d');
    expect(unquoteGitPath('"\\303\\274.py"')).toBe("ü.py");
  });

  it("broken quoting and bytes that are not UTF-8 are undefined", () => {
    expect(unquoteGitPath('"open')).toBeUndefined();
    expect(unquoteGitPath('"\\q"')).toBeUndefined();
    expect(unquoteGitPath('"\\377.py"')).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  compareLockToTree,
  compareUtf8,
  diffFixturesLocks,
  fixtureDeltaCount,
  fixturePathProblem,
  formatFixturesLock,
  fixtureLockLine,
  parseFixturesLock,
  type FixtureDigest,
} from "./fixtures-lock.js";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);
const D = "0123456789abcdef".repeat(4);

const byteOrder = (x: string, y: string): number => Buffer.compare(Buffer.from(x, "utf8"), Buffer.from(y, "utf8"));

describe("compareUtf8", () => {
  it("orders by UTF-8 bytes, not UTF-16 code units", () => {
    // U+FF5E (3 UTF-8 bytes, EF BD 9E) < U+1F600 (F0 9F 98 80) in bytes; UTF-16 says the opposite.
    expect("\uFF5E" < "\u{1F600}").toBe(false);
    expect(compareUtf8("\uFF5E", "\u{1F600}")).toBeLessThan(0);
    expect(compareUtf8("a", "a/b")).toBeLessThan(0);
    expect(compareUtf8("a b", "a/b")).toBeLessThan(0); // space 0x20 < slash 0x2f
    expect(compareUtf8("Z", "a")).toBeLessThan(0);
    expect(compareUtf8("z", "é")).toBeLessThan(0);
    expect(compareUtf8("x", "x")).toBe(0);
  });

  it("agrees with Buffer.compare on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (x, y) => {
        expect(Math.sign(compareUtf8(x, y))).toBe(Math.sign(byteOrder(x, y)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("formatFixturesLock / parseFixturesLock", () => {
  const entries: FixtureDigest[] = [
    { sha256: A, path: "tests/fixtures/\u{1F600}.txt" },
    { sha256: B, path: "tests/fixtures/\uFF5E.txt" },
    { sha256: C, path: "tests/fixtures/with space.json" },
    { sha256: D, path: "tests/fixtures/Zebra" },
    { sha256: A, path: "tests/fixtures/nested/deep/ünïcode.bin" },
    { sha256: B, path: "tests/fixtures/a" },
  ];

  it("writes sha256sum lines sorted by UTF-8 byte order", () => {
    const text = formatFixturesLock(entries);
    const paths = text
      .trimEnd()
      .split("\n")
      .map((l) => l.slice(66));
    expect(paths).toEqual(entries.map((e) => e.path).sort(byteOrder));
    expect(paths.at(-1)).toBe("tests/fixtures/\u{1F600}.txt");
    expect(text).toMatch(/^[0-9a-f]{64} {2}tests\/fixtures\/Zebra\n/);
    expect(text.endsWith("\n")).toBe(true);
    expect(text).not.toContain("\r");
  });

  it("round-trips", () => {
    const text = formatFixturesLock(entries);
    const parsed = parseFixturesLock(text, "fixtures.lock");
    expect(parsed.errors).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.entries.map(({ sha256, path }) => ({ sha256, path }))).toEqual(
      [...entries].sort((x, y) => byteOrder(x.path, y.path)),
    );
    expect(parsed.entries.map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(formatFixturesLock(parsed.entries)).toBe(text);
  });

  it("round-trips arbitrary valid names", () => {
    const segment = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 8 })
      .filter((s) => fixturePathProblem(s) === undefined && !s.includes("/"));
    const entry = fc.record({
      sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
      path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/")),
    });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { minLength: 1, maxLength: 20, selector: (e) => e.path }), (list) => {
        const text = formatFixturesLock(list);
        const parsed = parseFixturesLock(text, "fixtures.lock");
        expect(parsed.errors).toEqual([]);
        expect(parsed.entries.map(({ sha256, path }) => ({ sha256, path }))).toEqual(
          [...list].sort((x, y) => byteOrder(x.path, y.path)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("is its entries' fixtureLockLine, one after the other (the hash workers write the lock a batch at a time)", () => {
    const sorted = [...entries, { sha256: C, path: "f/a\\b" }, { sha256: D, path: "f/n\nl" }].sort((x, y) =>
      byteOrder(x.path, y.path),
    );
    expect(formatFixturesLock(sorted)).toBe(sorted.map((e) => fixtureLockLine(e.sha256, e.path)).join(""));
    expect(fixtureLockLine(A, "tests/fixtures/Zebra")).toBe(`${A}  tests/fixtures/Zebra\n`);
    expect(fixtureLockLine(D, "f/n\nl")).toBe(`\\${D}  f/n\\nl\n`);
  });

  it("escapes a backslash, newline or carriage return as sha256sum does, and reads it back only when allowed", () => {
    const special = [
      { sha256: A, path: "f/a\\b" },
      { sha256: B, path: "f/n\nl" },
      { sha256: C, path: "f/c\rr" },
    ];
    const text = formatFixturesLock(special);
    // The bytes coreutils 9.1 writes for these names.
    expect(text).toBe(`\\${A}  f/a\\\\b\n\\${C}  f/c\\rr\n\\${B}  f/n\\nl\n`);
    const allowed = parseFixturesLock(text, "fixtures.lock", { allowSpecialNames: true });
    expect(allowed.errors).toEqual([]);
    expect(allowed.entries.map((e) => e.path)).toEqual(["f/a\\b", "f/c\rr", "f/n\nl"]);
    const strict = parseFixturesLock(text, "fixtures.lock");
    expect(strict.errors.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(strict.errors[0]?.message).toContain("escaped name");
    expect(strict.errors[0]?.fix).toContain("allow_special_names");
  });

  it("accepts the binary marker with a warning", () => {
    const parsed = parseFixturesLock(`${A} *tests/fixtures/x.bin\n`, "fixtures.lock");
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries).toEqual([{ sha256: A, path: "tests/fixtures/x.bin", line: 1 }]);
    expect(parsed.warnings).toHaveLength(1);
    expect(parsed.warnings[0]).toMatchObject({ file: "fixtures.lock", line: 1 });
  });

  it("keeps spaces in names, leading and trailing included", () => {
    const parsed = parseFixturesLock(`${A}   leading\n${B}  trailing \n`, "fixtures.lock");
    expect(parsed.errors).toEqual([]);
    expect(parsed.entries.map((e) => e.path)).toEqual([" leading", "trailing "]);
  });

  it("formatFixturesLock throws on a caller's bug", () => {
    expect(() =>
      formatFixturesLock([
        { sha256: A, path: "x" },
        { sha256: B, path: "x" },
      ]),
    ).toThrow(/duplicate/);
    expect(() => formatFixturesLock([{ sha256: "ABC", path: "x" }])).toThrow(/not a sha256/);
  });
});

describe("parseFixturesLock: bad lines name the line and the fix", () => {
  const cases: { name: string; text: string; line: number | undefined; says: RegExp }[] = [
    { name: "a ../ path", text: `${A}  ../x\n`, line: 1, says: /`\.\.` segment/ },
    { name: "a ../ segment inside", text: `${A}  tests/../../etc/passwd\n`, line: 1, says: /`\.\.` segment/ },
    { name: "an absolute path", text: `${A}  a\n${B}  /etc/passwd\n`, line: 2, says: /absolute/ },
    { name: "a Windows absolute path", text: `${A}  C:/x\n`, line: 1, says: /Windows/ },
    { name: "a ./ segment", text: `${A}  ./tests/x\n`, line: 1, says: /`\.` segment/ },
    { name: "a double slash", text: `${A}  tests//x\n`, line: 1, says: /empty segment/ },
    { name: "a trailing slash", text: `${A}  tests/\n`, line: 1, says: /empty segment/ },
    { name: "a backslash", text: `${A}  tests\\x\n`, line: 1, says: /backslash/ },
    { name: "an escaped name", text: `\\${A}  tests/a\\nb\n`, line: 1, says: /escaped name/ },
    { name: "uppercase hex", text: `${A.toUpperCase()}  x\n`, line: 1, says: /uppercase/ },
    { name: "a short digest", text: `${"a".repeat(40)}  x\n`, line: 1, says: /40 hex digits, not 64/ },
    { name: "one space", text: `${A} x\n`, line: 1, says: /not a `<sha256> {2}<path>` line/ },
    { name: "no path", text: `${A}  \n`, line: 1, says: /empty/ },
    { name: "a tab", text: `${A}\tx\n`, line: 1, says: /not a `<sha256>/ },
    { name: "BSD tag format", text: `SHA256 (x) = ${A}\n`, line: 1, says: /BSD-style/ },
    { name: "a comment", text: `# fixtures\n${A}  x\n`, line: 1, says: /comment/ },
    { name: "a blank line", text: `${A}  x\n\n${B}  y\n`, line: 2, says: /blank line/ },
    { name: "CRLF", text: `${A}  x\r\n${B}  y\r\n`, line: 1, says: /CRLF/ },
    { name: "no final newline", text: `${A}  x\n${B}  y`, line: 2, says: /no newline at its end/ },
    { name: "unsorted", text: `${A}  b\n${B}  a\n`, line: 2, says: /not sorted.*"a" comes before "b" \(line 1\)/ },
    { name: "unsorted by bytes (UTF-16 order)", text: `${A}  \u{1F600}\n${B}  \uFF5E\n`, line: 2, says: /not sorted/ },
    { name: "a duplicate", text: `${A}  x\n${B}  x\n`, line: 2, says: /listed twice \(also on line 1\)/ },
    { name: "empty", text: "", line: undefined, says: /lists no files/ },
    { name: "a BOM", text: `\uFEFF${A}  x\n`, line: 1, says: /byte order mark/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { errors } = parseFixturesLock(c.text, "fixtures.lock");
      expect(errors.length).toBeGreaterThan(0);
      const first = errors[0]!;
      expect(first.code).toBe("lock_invalid");
      expect(first.file).toBe("fixtures.lock");
      expect(first.line).toBe(c.line);
      expect(first.message).toMatch(c.says);
      expect(first.fix).toBeTruthy();
    });
  }

  it("reports every bad line, and keeps the good ones", () => {
    const { errors, entries } = parseFixturesLock(`${A}  ../x\n${B}  ok\n${C}  /abs\n`, "fixtures.lock");
    expect(errors.map((e) => e.line)).toEqual([1, 3]);
    expect(entries.map((e) => e.path)).toEqual(["ok"]);
  });

  it("reports CRLF once", () => {
    const { errors } = parseFixturesLock(`${A}  x\r\n${B}  y\r\n${C}  z\r\n`, "fixtures.lock");
    expect(errors).toHaveLength(1);
  });
});

describe("fixturePathProblem", () => {
  it("accepts canonical relative paths", () => {
    for (const p of ["a", "tests/fixtures/x.json", "a b/c d", "ünï/😀", "..a/b..", ".hidden/x"])
      expect(fixturePathProblem(p)).toBeUndefined();
  });
  it("refuses the rest", () => {
    for (const p of ["", "/a", "../a", "a/..", "a/./b", "a//b", "a/", "a\\b", "a\nb", "a\rb", "a\0b", "C:\\x"])
      expect(fixturePathProblem(p)).toBeTruthy();
  });
  it("allows backslash, newline and CR only when asked", () => {
    for (const p of ["a\\b", "a\nb", "a\rb"])
      expect(fixturePathProblem(p, { allowSpecialNames: true })).toBeUndefined();
    expect(fixturePathProblem("../a", { allowSpecialNames: true })).toBeTruthy();
  });
});

describe("diffFixturesLocks / compareLockToTree", () => {
  const before: FixtureDigest[] = [
    { sha256: A, path: "f/same" },
    { sha256: A, path: "f/changed" },
    { sha256: A, path: "f/removed" },
    { sha256: A, path: "f/removed 2" },
  ];
  const after: FixtureDigest[] = [
    { sha256: A, path: "f/same" },
    { sha256: B, path: "f/changed" },
    { sha256: C, path: "f/\u{1F600}" },
    { sha256: C, path: "f/\uFF5E" },
  ];

  it("counts entries changed, added and removed, in byte order", () => {
    const diff = diffFixturesLocks(before, after);
    expect(diff).toEqual({
      changed: ["f/changed"],
      added: ["f/\uFF5E", "f/\u{1F600}"],
      removed: ["f/removed", "f/removed 2"],
    });
    expect(fixtureDeltaCount(diff)).toBe(5);
  });

  it("is empty for the same entries in another order", () => {
    const diff = diffFixturesLocks(before, [...before].reverse());
    expect(fixtureDeltaCount(diff)).toBe(0);
  });

  it("a rename is one removed and one added", () => {
    expect(diffFixturesLocks([{ sha256: A, path: "x" }], [{ sha256: A, path: "y" }])).toEqual({
      changed: [],
      added: ["y"],
      removed: ["x"],
    });
  });

  it("compareLockToTree: added is on disk only, removed in the lock only", () => {
    const result = compareLockToTree(before, after);
    expect(result.equal).toBe(false);
    expect(result.added).toEqual(["f/\uFF5E", "f/\u{1F600}"]);
    expect(result.removed).toEqual(["f/removed", "f/removed 2"]);
    expect(compareLockToTree(before, before).equal).toBe(true);
  });
});

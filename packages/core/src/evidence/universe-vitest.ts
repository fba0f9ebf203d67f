// Vitest's universe: `vitest list --json` output, a JSON array of `{ name, file, projectName? }`, where
// `name` is the test's full name path (`describe > describe > test`) and `file` the absolute path of its
// test file. The ids are `<file> > <name>` with the file relative to the repository root, as vitest's own
// `vitest list` prints them and as the ledger's leases name them.
import type { GateIssue } from "../common/errors.js";
import type { Lease } from "../ledger/ledger.js";
import type { Universe, UniverseParseResult } from "./universe.js";

/** The runners whose test ids the gate knows. */
export type TestRunner = "pytest" | "vitest";

/** The separator vitest puts between a file and its describes and between the describes and the test. */
export const VITEST_ID_SEPARATOR = " > ";

/**
 * The whitespace a test name may hold that JUnit XML cannot keep: vitest's JUnit reporter writes a tab or a
 * line break literally inside the `name` attribute, where an XML reader sees a space (attribute value
 * normalisation, after `\r\n` becomes one line end). The source of a RegExp, global.
 */
export const VITEST_NAME_BLANKS = "\\r\\n|[\\r\\n\\t]";

/**
 * The characters vitest's JUnit reporter drops from a name (those XML 1.0 forbids or discourages: C0 and C1
 * controls but tab and line ends, U+FFFD to U+FFFF, U+FDD0 to U+FDEF, each plane's last two code points, and
 * lone surrogates), as vitest 4.1.12 writes it. The source of a RegExp, flags "gu".
 */
export const VITEST_NAME_DROPPED =
  "[\\0-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x84\\x86-\\x9F\\uFDD0-\\uFDEF\\uFFFD-\\uFFFF]|\\p{Cs}|[\\u{1FFFE}\\u{1FFFF}\\u{2FFFE}\\u{2FFFF}\\u{3FFFE}\\u{3FFFF}\\u{4FFFE}\\u{4FFFF}\\u{5FFFE}\\u{5FFFF}\\u{6FFFE}\\u{6FFFF}\\u{7FFFE}\\u{7FFFF}\\u{8FFFE}\\u{8FFFF}\\u{9FFFE}\\u{9FFFF}\\u{AFFFE}\\u{AFFFF}\\u{BFFFE}\\u{BFFFF}\\u{CFFFE}\\u{CFFFF}\\u{DFFFE}\\u{DFFFF}\\u{EFFFE}\\u{EFFFF}\\u{FFFFE}\\u{FFFFF}\\u{10FFFE}\\u{10FFFF}]";

/**
 * A vitest test's name path as the gate's ids hold it, as JUnit XML can carry it: the characters vitest's
 * JUnit reporter drops, dropped, and every tab and line break a space (as an XML reader reads them in an
 * attribute), so the list, the JUnit results, the run record and the leases name a test alike.
 */
export function vitestName(name: string): string {
  // Trimmed: the JUnit reader trims an attribute's value, so a name's outer blanks never reach a result.
  return name
    .replace(new RegExp(VITEST_NAME_DROPPED, "gu"), "")
    .replace(new RegExp(VITEST_NAME_BLANKS, "g"), " ")
    .trim();
}

const COLLECT_FIX =
  "write it with `npx vitest list --json=collected.json` in the repository root (`--json=FILE`: a redirect of stdout takes in whatever a test file prints at import)";

/** True when a universe file's text is `vitest list --json` output (a JSON array), not pytest's id list. */
export function looksLikeVitestList(text: string): boolean {
  return /^\uFEFF?\s*\[\s*(\{|\])/.test(text);
}

/** `file` relative to `root` (both absolute, `/`-separated), or undefined when it is not under it. */
function relativeTo(file: string, root: string | undefined): string | undefined {
  const path = file.replace(/\\/g, "/");
  if (!path.startsWith("/") && !/^[A-Za-z]:\//.test(path)) {
    const clean = path.replace(/^(\.\/)+/, "");
    return clean.split("/").includes("..") ? undefined : clean;
  }
  if (root === undefined) return undefined;
  const base = root.replace(/\\/g, "/").replace(/\/+$/, "");
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
}

/**
 * Parses `vitest list --json` output. `root` is the folder vitest ran in (the repository root, or the
 * base's worktree): absolute file paths under it become relative; relative ones are taken as written.
 */
export function parseVitestList(text: string, file: string, root?: string): UniverseParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const fail = (message: string, fix = COLLECT_FIX): UniverseParseResult => {
    errors.push({ code: "universe_invalid", file, message, fix });
    return { errors, warnings };
  };
  if (text.trim() === "") {
    errors.push({ code: "file_empty", file, message: "the test universe is empty", fix: COLLECT_FIX });
    return { errors, warnings };
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const first = text
      .replace(/^\uFEFF/, "")
      .trimStart()
      .split(/\r?\n/, 1)[0]!;
    // Something printed before the list: a test file that writes to stdout at import, under a redirect.
    if (!first.startsWith("[") && /^\[\s*$/m.test(text))
      return fail(
        `not valid JSON: the list is preceded by other output, starting ${JSON.stringify(first.slice(0, 80))} (a test file that prints to stdout when vitest imports it, with stdout redirected to this file)`,
      );
    return fail(`not valid JSON (vitest list --json output is one JSON array): ${(error as Error).message}`);
  }
  if (!Array.isArray(data)) return fail("not a JSON array: vitest list --json writes an array of tests");
  const ids: string[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (let i = 0; i < data.length; i++) {
    const entry = data[i] as Record<string, unknown> | null;
    if (
      entry === null ||
      typeof entry !== "object" ||
      typeof entry.name !== "string" ||
      typeof entry.file !== "string" ||
      entry.name === "" ||
      entry.file === ""
    )
      return fail(`entry ${i + 1} is not a test (an object with a non-empty "name" and "file")`);
    if (/[\r\n]/.test(entry.file))
      return fail(`entry ${i + 1} (${JSON.stringify(entry.file.slice(0, 80))}) has a line break in its file name`);
    const rel = relativeTo(entry.file, root);
    if (rel === undefined)
      return fail(
        `entry ${i + 1} names the file ${JSON.stringify(entry.file.slice(0, 200))}, which is not inside the repository${root === undefined ? "" : ` (${root})`}`,
        "run `npx vitest list --json` in the repository root; a list made in another checkout needs its paths made relative to that checkout's root",
      );
    // A name with a tab or a line break (it.each of a multi-line string) is read as JUnit XML reads it.
    const id = `${rel}${VITEST_ID_SEPARATOR}${vitestName(entry.name)}`;
    if (seen.has(id)) duplicates.push(id);
    else {
      seen.add(id);
      ids.push(id);
    }
  }
  if (duplicates.length > 0) {
    warnings.push({
      code: "universe_invalid",
      file,
      message: `${duplicates.length} test id(s) listed more than once (two tests with the same name path in one file), counted once: ${duplicates.slice(0, 3).join(", ")}${duplicates.length > 3 ? ", ..." : ""}`,
      fix: "give each test in a file a distinct name: a lease cannot tell two tests of the same name apart",
    });
  }
  if (ids.length === 0) {
    errors.push({
      code: "universe_empty",
      file,
      message: "vitest listed no tests",
      fix: "run the collection from the project root so vitest finds the tests (its include globs)",
    });
    return { errors, warnings };
  }
  const universe: Universe = {
    file,
    ids,
    duplicates,
    collectionErrors: [],
    summaryCount: ids.length + duplicates.length,
    index: seen,
    runner: "vitest",
  };
  return { universe, errors, warnings };
}

/** The runner a test id's shape belongs to: pytest's `file::name`, vitest's `file > name`, or neither. */
export function idShape(id: string): TestRunner | undefined {
  const pytest = /^[^\s:][^:]*::/.test(id) && !id.slice(0, id.indexOf("::")).includes(VITEST_ID_SEPARATOR);
  if (pytest) return "pytest";
  const cut = id.indexOf(VITEST_ID_SEPARATOR);
  if (cut > 0 && /\.[cm]?[jt]sx?$/.test(id.slice(0, cut))) return "vitest";
  return undefined;
}

/**
 * Leases whose id has the other runner's shape (a pytest node id in a vitest project, or a vitest name
 * path in a pytest one): each an error naming the ledger's line, since it can never match a test.
 */
export function leaseShapeIssues(leases: readonly Lease[], runner: TestRunner, ledgerFile: string): GateIssue[] {
  const issues: GateIssue[] = [];
  for (const lease of leases) {
    const shape = idShape(lease.nodeid);
    if (shape === undefined || shape === runner) continue;
    issues.push({
      code: "ledger_invalid",
      file: ledgerFile,
      line: lease.line,
      message: `lease #${lease.index + 1} (${lease.nodeid}) is a ${shape} test id, but this project's tests run under ${runner}`,
      fix:
        runner === "vitest"
          ? "write the id as `npx vitest list` prints it: `<file> > <describe> > <test>`, the file relative to the repository root"
          : "write the id as `python -m pytest --collect-only -q` prints it: `<file>::<test>`",
    });
  }
  return issues;
}

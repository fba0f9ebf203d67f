import type { GateIssue } from "../common/errors.js";

/** A collection error that pytest reported while building the universe. */
export interface CollectionError {
  line: number;
  text: string;
}

/** Every collected test id, read from `pytest --collect-only -q` output. */
export interface Universe {
  file: string;
  /** Unique ids in the order pytest printed them. */
  ids: string[];
  /** Ids that pytest printed more than once (pytest 7 can). Kept once in `ids`. */
  duplicates: string[];
  /** When non-empty the universe is incomplete: the gate must not MERGE. */
  collectionErrors: CollectionError[];
  /** The count from pytest's summary line (deselected tests included). */
  summaryCount: number;
  /** `ids` as a set, when the parser already built one (lookups need not build it again). */
  index?: ReadonlySet<string> | undefined;
  /** Tests pytest collected and then left out: the runner's settings or a hook narrowed the collection. */
  narrowed?: NarrowedCollection | undefined;
  /** The runner whose ids these are: vitest for `vitest list --json` output; unset is pytest's. */
  runner?: "pytest" | "vitest" | undefined;
}

/**
 * What narrowed a collection: `deselected` by `-k`, `-m`, `--deselect` or a hook that says so, and
 * `unlisted`, collected but dropped without a word (a `pytest_collection_modifyitems` hook that removes
 * items). Such tests left the proof: `tests_removed` judges them (their commit needs `Test-Removal: human`).
 */
export interface NarrowedCollection {
  deselected: number;
  unlisted: number;
  /** The file and line of pytest's summary that says so. */
  file: string;
  line: number;
  summary: string;
}

/** A universe, or everything wrong with the file. */
export interface UniverseParseResult {
  universe?: Universe | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
}

// pytest 7-9: "9 tests collected in 0.01s", "3/8 tests collected (5 deselected) in 0.01s",
// "9 tests collected, 1 error in 0.06s", "no tests collected in 0.00s", "1 error in 0.05s".
const SUMMARY =
  /^=*\s*(?:(?:(\d+)\/)?(\d+) tests? collected|no tests collected|no tests ran)(?: \((\d+) deselected\))?((?:, \d+ \w+)*)(?: in [\d.]+s(?: \([\d:]+\))?)?\s*=*$/;
const ERRORS_ONLY = /^=*\s*(\d+) errors?(?:, \d+ \w+)* in [\d.]+s(?: \([\d:]+\))?\s*=*$/;
// "=", "!", "_", "<", space, tab: how section headers, tree lines and indented text start; an id never does.
const NOT_AN_ID_START = new Set([0x3d, 0x21, 0x5f, 0x3c, 0x20, 0x09]);
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * What a line is when it is pytest's plain summary (`100 tests collected in 1.00s`, trimmed as
 * parseCollectOnly trims it): its count, with nothing deselected, no error and no `N/M` form; else undefined.
 */
export function plainSummaryCount(line: string): number | undefined {
  const m = SUMMARY.exec(line);
  if (!m || m[1] !== undefined || m[2] === undefined || m[3] !== undefined) return undefined;
  if (/, (\d+) errors?\b/.test(m[4] ?? "") || ERRORS_ONLY.test(line)) return undefined;
  return Number(m[2]);
}

/** The first characters (char codes) that rule out a test id at a glance: parseCollectOnly's common case. */
export const NOT_AN_ID_START_CODES: ReadonlySet<number> = NOT_AN_ID_START;

/**
 * Parses `pytest --collect-only -q` output (pytest 7, 8 and 9). Every line before the first blank line
 * or section header is a test id, spaces and escapes included. The summary line must agree with the
 * number of ids; collection errors are reported, not dropped.
 */
export function parseCollectOnly(text: string, file: string): UniverseParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const fail = (message: string, line?: number, fix?: string): UniverseParseResult => {
    errors.push({ code: "universe_invalid", file, line, message, fix });
    return { errors, warnings };
  };
  const collectFix = "write it with `python -m pytest --collect-only -q > collected.txt`";
  let clean = text.replace(/^\uFEFF/, "");
  if (clean.includes("\u001b")) clean = clean.replace(ANSI, "");
  const lines = clean.includes("\r")
    ? clean.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
    : clean.split("\n");
  if (lines.every((l) => l.trim() === "")) {
    errors.push({ code: "file_empty", file, message: "the test universe is empty", fix: collectFix });
    return { errors, warnings };
  }

  const printed: string[] = [];
  let n = 0;
  for (; n < lines.length; n++) {
    const line = lines[n]!;
    // The common case, checked cheaply: an id has "::" and starts with a path, never with "=", "!", "_",
    // "<" or blanks, so no section header, tree line or summary can pass here.
    if (line.includes("::") && !NOT_AN_ID_START.has(line.charCodeAt(0))) {
      printed.push(line);
      continue;
    }
    if (/^=+ test session starts =+$/.test(line))
      return fail(
        "this is pytest's tree output, not the id list",
        n + 1,
        "add -q: `python -m pytest --collect-only -q`",
      );
    if (line.trim() === "" || /^={3,}|^!{3,}|^_{3,}/.test(line)) break;
    if (/^\s*<\w+ .*>\s*$/.test(line))
      return fail(
        "this is pytest's tree output, not the id list",
        n + 1,
        "add -q: `python -m pytest --collect-only -q`",
      );
    if (/^\S.*: \d+$/.test(line) && !line.includes("::"))
      return fail("this is `-qq` output (counts per file), not the id list", n + 1, "use a single -q");
    if (SUMMARY.test(line) || ERRORS_ONLY.test(line)) break;
    if (!line.includes("::"))
      return fail(`line ${n + 1} is not a test id: ${JSON.stringify(line.slice(0, 120))}`, n + 1, collectFix);
    printed.push(line);
  }

  const collectionErrors: CollectionError[] = [];
  let summary: { count: number; deselected: number; line: number; text: string } | undefined;
  let trailing: number | undefined;
  for (let i = n; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (/^ERROR\b/.test(line) || /^_+ ERROR collecting /.test(line) || /^!+ Interrupted: /.test(line)) {
      collectionErrors.push({ line: i + 1, text: line.replace(/^[_!\s]+|[_!\s]+$/g, "") });
    }
    const m = SUMMARY.exec(line);
    if (m) {
      const errorCount = /, (\d+) errors?\b/.exec(m[4] ?? "");
      if (errorCount && collectionErrors.length === 0)
        collectionErrors.push({ line: i + 1, text: `${errorCount[1]} error(s) during collection` });
      summary = {
        // What pytest collected, deselected tests included (`no tests collected (5 deselected)`: 5).
        count: line.includes("no tests") ? Number(m[3] ?? 0) : Number(m[2]),
        deselected: Number(m[3] ?? 0),
        line: i + 1,
        text: line,
      };
    } else if (ERRORS_ONLY.test(line)) {
      if (collectionErrors.length === 0) collectionErrors.push({ line: i + 1, text: line });
      summary = { count: 0, deselected: 0, line: i + 1, text: line };
    } else if (line !== "" && summary) {
      trailing ??= i + 1; // only the last line may be the summary: anything after it means a concatenated or edited file
      summary = undefined;
    }
  }

  if (!summary) {
    let last = lines.length;
    while (last > 1 && lines[last - 1]!.trim() === "") last--;
    return fail(
      "no pytest summary line (`N tests collected in ...`) at the end: the output looks truncated",
      last,
      collectFix,
    );
  }
  if (trailing !== undefined)
    return fail(
      `line ${trailing} follows pytest's summary line: two outputs concatenated, or an edited file`,
      trailing,
      collectFix,
    );
  // Fewer ids than pytest collected: deselected, or dropped by a hook. The universe is what would run;
  // the tests left out are the rules' to judge (tests_removed), not a broken file.
  const unlisted = summary.count - summary.deselected - printed.length;
  const narrowed =
    summary.deselected > 0 || unlisted > 0
      ? { deselected: summary.deselected, unlisted, file, line: summary.line, summary: summary.text }
      : undefined;
  if (unlisted < 0) {
    return fail(
      `the summary says ${summary.count} tests but the file lists ${printed.length} ids: it is truncated or edited (or pytest was given the same test twice)`,
      summary.line,
      collectFix,
    );
  }

  const seen = new Set<string>();
  const ids: string[] = [];
  const duplicates: string[] = [];
  for (const id of printed) {
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
      message: `${duplicates.length} test id(s) printed more than once, counted once: ${duplicates.slice(0, 3).join(", ")}${duplicates.length > 3 ? ", ..." : ""}`,
    });
  }
  if (ids.length === 0 && collectionErrors.length === 0) {
    errors.push({
      code: "universe_empty",
      file,
      line: summary.line,
      message: narrowed
        ? `pytest collected ${summary.count} tests and left out every one (\`${summary.text}\`): -k, -m or --deselect in the runner's settings, or a conftest.py hook, leaves nothing to prove`
        : "no tests were collected",
      fix: narrowed
        ? "remove the deselection from addopts (pytest.ini, pyproject.toml, setup.cfg, tox.ini) or the hook that drops the tests; a frozen test gets a lease in freeze.toml"
        : "run the collection from the project root so pytest finds the tests; if it found them before (at the base), a change made pytest collect none: a skip at import in a conftest.py, a package's __init__.py or every test module (`raise unittest.SkipTest`, `pytest.skip(allow_module_level=True)`), or the collection's settings",
    });
    return { errors, warnings };
  }
  return {
    universe: {
      file,
      ids,
      duplicates,
      collectionErrors,
      summaryCount: summary.count,
      index: seen,
      ...(narrowed ? { narrowed } : {}),
    },
    errors,
    warnings,
  };
}

/**
 * Several universes (collection shards) as one: their ids in order, once; an id in two shards is a
 * duplicate, and each shard's collection errors are named with its file.
 */
export function mergeUniverses(universes: readonly Universe[]): Universe {
  if (universes.length === 1) return universes[0]!;
  const ids: string[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const universe of universes) {
    duplicates.push(...universe.duplicates);
    for (const id of universe.ids) {
      if (seen.has(id)) duplicates.push(id);
      else {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  return {
    file: universes.map((u) => u.file).join(", "),
    ids,
    duplicates,
    collectionErrors: universes.flatMap((u) => u.collectionErrors.map((e) => ({ ...e, text: `${u.file}: ${e.text}` }))),
    summaryCount: ids.length,
    index: seen,
    ...narrowedOf(universes),
    ...(universes.some((u) => u.runner === "vitest") ? { runner: "vitest" as const } : {}),
  };
}

/** The shards' narrowing, summed; the first shard that was narrowed names the file and line. */
function narrowedOf(universes: readonly Universe[]): { narrowed?: NarrowedCollection } {
  const all = universes.flatMap((u) => (u.narrowed ? [u.narrowed] : []));
  if (all.length === 0) return {};
  return {
    narrowed: {
      ...all[0]!,
      deselected: all.reduce((n, x) => n + x.deselected, 0),
      unlisted: all.reduce((n, x) => n + x.unlisted, 0),
    },
  };
}

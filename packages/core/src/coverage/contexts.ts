// Single-run proven coverage: coverage.py's `.coverage` data file (per-test contexts) with the JSON
// report of the same run, minus the contexts of frozen tests. Pure: the CLI reads the SQLite file and
// hands the rows over.
//
// It mirrors coverage.py 6.5 (results.py, sqldata.py, parser.py):
// - executed lines come from the arcs when the data measured arcs (every endpoint > 0), otherwise from
//   `line_bits` numbits; both are then mapped to the first line of their statement (`translate_lines`);
// - covered lines = statements - missing, so executed lines that are not statements (docstrings,
//   excluded lines) never count;
// - covered branches = branches - missing branch arcs, where a missing arc is a possible arc from a
//   branch line that no kept context executed. Executed arcs that the code analysis did not predict
//   (a line to itself, ...) never count.
//
// coverage.py's own analysis (the statements, the first line of each multi-line statement, the
// possible arcs) is not in the data file; it is read back from the JSON report of the full run, which
// lists the executed and missing lines and branch arcs of every file. See docs/proven-coverage.md.
import type { GateIssue } from "../common/errors.js";
import {
  coveragePercent,
  normalizeCoveragePath,
  summarizeCoverage,
  type CoverageData,
  type CoverageReadResult,
  type CoverageSummary,
  type FileCoverage,
} from "./coverage-model.js";

/** The rows of a coverage.py 5-7 SQLite data file that proven coverage needs. */
export interface CoverageDbRows {
  /** The data file's path, for messages. */
  file: string;
  /** `meta.has_arcs`: the run measured branches (`--cov-branch`). */
  hasArcs: boolean;
  contexts: readonly { id: number; name: string }[];
  files: readonly { id: number; path: string }[];
  /** `line_bits` rows: the lines one context ran in one file, as numbits. */
  lineBits: readonly { fileId: number; contextId: number; numbits: Uint8Array }[];
  /** `arc` rows, column by column (one entry per row in each array). */
  arcs: { fileId: ArrayLike<number>; contextId: ArrayLike<number>; fromno: ArrayLike<number>; tono: ArrayLike<number> };
}

/** Proven coverage from contexts, or everything wrong with the inputs. */
export interface ContextsCoverageResult extends CoverageReadResult {
  /** The contexts dropped: `<frozen nodeid>|setup`, `|run`, `|teardown` that the data file holds. */
  droppedContexts: string[];
  /** Frozen nodeids with no context at all in the data file (the test did not run in this run). */
  frozenNotRun: string[];
  /** `summarizeCoverage(data)`, when there is data: where the data allows two counts, the lower one. */
  summary?: CoverageSummary | undefined;
  /**
   * Where the data allows two counts (an executed line that may be a docstring, an executed arc that may
   * not be a possible one), the higher percentage coverage.py might print, and why, file by file.
   */
  upper?: { percent: number; why: string[] } | undefined;
  /** The same statements and branches with every context kept (frozen included): the raw figure. */
  raw?: CoverageData | undefined;
  /**
   * Per file (by its normalised path), the frozen tests (nodeids) that ran each statement or branch
   * only frozen tests ran: the keys are those of the files' sets (`"12"`, `"12>14"`).
   */
  frozenTests?: Map<string, Map<string, string[]>> | undefined;
}

/**
 * coverage.py's numbits (coverage/numbits.py): byte `i`, bit `b` (little end first) stands for the
 * number `8 * i + b`. Returns the numbers in increasing order.
 */
export function numbitsToNums(numbits: Uint8Array): number[] {
  const nums: number[] = [];
  for (let i = 0; i < numbits.length; i++) {
    const byte = numbits[i]!;
    if (byte === 0) continue;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) nums.push(i * 8 + bit);
  }
  return nums;
}

/** The context names a frozen test leaves in a `--cov-context=test` run. */
export function frozenContextNames(nodeid: string): string[] {
  return [`${nodeid}|setup`, `${nodeid}|run`, `${nodeid}|teardown`];
}

interface ReportFile {
  key: string;
  executedLines: number[];
  missingLines: number[];
  excludedLines: number[];
  executedBranches: [number, number][];
  missingBranches: [number, number][];
  numStatements: number;
  coveredLines: number;
  numBranches: number;
  coveredBranches: number;
}

/** A source line that starts with a string literal: a docstring, which coverage.py does not count as a statement. */
const DOCSTRING_START = /^\s*(?:[rRuUbBfF]{0,2})(?:"|')/;
/** coverage.py 6.5's default `partial_branches` and `partial_branches_always`. */
const NO_BRANCH =
  /#\s*(?:pragma|PRAGMA)[:\s]?\s*(?:no|NO)\s*(?:branch|BRANCH)|^\s*(?:while|if)\s+(?:True|1|False|0)\s*:/;

/** Rows of one frozen test's context in one file: arc keys, or line numbers without arcs. */
interface DroppedRows {
  nodeid: string;
  values: number[];
}

const OFFSET = 2 ** 23;
/** One number per arc; line numbers are below 2^23 in any real source file. */
const arcKey = (from: number, to: number): number => (from + OFFSET) * 2 ** 24 + (to + OFFSET);
const arcFrom = (key: number): number => Math.floor(key / 2 ** 24) - OFFSET;
const arcTo = (key: number): number => (key % 2 ** 24) - OFFSET;

/**
 * Proven coverage of a `--cov-context=test` run: every context is kept except the frozen tests'
 * `<nodeid>|setup`, `|run` and `|teardown` (exact nodeids; the empty context, code run at import and
 * collection, is kept). The totals equal `coverage json --contexts=<renderContextsRegex>` on the same
 * data file. `reportText` is `coverage json` of the same data file (all contexts): it gives each file's
 * statements and branches.
 */
export function provenCoverageFromContexts(
  db: CoverageDbRows,
  reportText: string,
  reportFile: string,
  frozen: Iterable<string>,
  /** The source text of a measured file (by its path in the data file), when the caller can read it. */
  sourceOf?: (dataPath: string) => string | undefined,
): ContextsCoverageResult {
  return provenCoverageFromContextShards([{ db, reportText, reportFile }], frozen, sourceOf);
}

/** One shard of a `--cov-context=test` run: its data file's rows and its own `coverage json`. */
export interface ContextShard {
  db: CoverageDbRows;
  reportText: string;
  reportFile: string;
}

/**
 * Proven coverage of a `--cov-context=test` run split into shards (one CI job each), each with its data
 * file and its own `coverage json`: the same numbers as `coverage combine` of the data files, then
 * {@link provenCoverageFromContexts} on the one file. Per measured file (matched to its report's path,
 * so shards checked out at different paths meet, as `coverage combine` with `[paths]` makes them), the
 * shards' lines and arcs are unioned per context; the reports' statements and branches must agree, and
 * a line (or arc) is missing when every shard that measured the file missed it.
 */
export function provenCoverageFromContextShards(
  shards: readonly ContextShard[],
  frozen: Iterable<string>,
  /** The source text of a measured file (by its path in a data file), when the caller can read it. */
  sourceOf?: (dataPath: string) => string | undefined,
): ContextsCoverageResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const reportFile = shards.map((s) => s.reportFile).join(", ");
  const regenerate = (file: string): string =>
    `write both from the same run: pytest --cov-context=test ..., then \`coverage json -o ${file}\``;
  const fail = (file: string, message: string, fix: string): ContextsCoverageResult => {
    errors.push({ code: "coverage_invalid", file, message, fix });
    return { errors, warnings, droppedContexts: [], frozenNotRun: [] };
  };
  if (shards.length === 0) return fail("", "no data file was given", "pass the .coverage data file(s)");

  const read: ReadShard[] = [];
  for (const shard of shards) {
    const { db } = shard;
    if (!db.contexts.some((c) => c.name !== "")) {
      return fail(
        db.file,
        "the data file records no test contexts (only the empty one)",
        "run pytest with --cov-context=test (pytest-cov), so every test's lines are recorded apart",
      );
    }
    const report = parseReport(shard.reportText);
    if (typeof report === "string") return fail(shard.reportFile, report, regenerate(shard.reportFile));
    if (db.hasArcs !== report.hasBranches) {
      return fail(
        shard.reportFile,
        db.hasArcs
          ? `has no branch data but ${db.file} measured branches: it was not written from that data file`
          : `has branch data but ${db.file} measured no branches: it was not written from that data file`,
        regenerate(shard.reportFile),
      );
    }
    // Match the data file's paths (absolute, as measured) to the report's (relative to where it ran).
    const matched = matchFiles(db.files, report.files);
    if (typeof matched === "string") return fail(shard.reportFile, matched, regenerate(shard.reportFile));
    read.push({ shard, report, matched });
  }
  const mixed = read.find((r) => r.shard.db.hasArcs !== read[0]!.shard.db.hasArcs);
  if (mixed) {
    return fail(
      mixed.shard.db.file,
      `${mixed.shard.db.hasArcs ? "measured branches" : "measured no branches"} but ${read[0]!.shard.db.file} ${read[0]!.shard.db.hasArcs ? "did" : "did not"}: shards of one run measure alike (coverage combine refuses to mix them)`,
      "run every shard with the same --cov-branch setting",
    );
  }
  // Several shards: each report against its own data file (one shard is checked file by file below).
  for (const one of shards.length > 1 ? read : []) {
    const differs = shardMismatch(one);
    if (differs !== undefined)
      return fail(
        one.shard.reportFile,
        `${differs}: its executed lines differ from what ${one.shard.db.file} records: the report was not written from that data file (each shard's report follows its own data file, in the same order)`,
        regenerate(one.shard.reportFile),
      );
  }
  const combined = combineShards(read);
  if (typeof combined === "string")
    return fail(reportFile, combined, "run every shard on the same commit with the same coverage settings");
  const { db, matched } = combined;

  // Which contexts go, and whose they are.
  const byName = new Map(db.contexts.map((c) => [c.name, c.id]));
  const dropped = new Map<number, string>();
  const droppedContexts: string[] = [];
  const frozenNotRun: string[] = [];
  for (const nodeid of new Set(frozen)) {
    let any = false;
    for (const name of frozenContextNames(nodeid)) {
      const id = byName.get(name);
      if (id !== undefined) {
        dropped.set(id, nodeid);
        droppedContexts.push(name);
        any = true;
      }
    }
    if (!any) frozenNotRun.push(nodeid);
  }

  // Executed lines (or arcs) per data-file id over the kept contexts; over all of them, the kept ones and the
  // dropped contexts' rows together: the same set as the kept one where no dropped context ran the file
  // (most files), built apart only where one did. Each row is added to one set, not two.
  const keptRaw = new Map<number, Set<number>>();
  // The dropped contexts' own rows, per data-file id, in runs of one frozen nodeid: who ran what only
  // they ran. Plain arrays (a value may repeat): only the files with frozen-only lines read them again.
  const droppedRaw = new Map<number, DroppedRows[]>();
  // Rows come grouped by context and file: the last run is kept at hand.
  let droppedFile = Number.NaN;
  let droppedRun: DroppedRows = { nodeid: "", values: [] };
  const addDropped = (fileId: number, nodeid: string, value: number): void => {
    if (fileId !== droppedFile || nodeid !== droppedRun.nodeid) {
      const runs = droppedRaw.get(fileId) ?? droppedRaw.set(fileId, []).get(fileId)!;
      droppedRun = { nodeid, values: [] };
      runs.push(droppedRun);
      droppedFile = fileId;
    }
    droppedRun.values.push(value);
  };
  const keptOf = (fileId: number): Set<number> => keptRaw.get(fileId) ?? keptRaw.set(fileId, new Set()).get(fileId)!;
  if (db.hasArcs) {
    const { fileId, contextId, fromno, tono } = db.arcs;
    // Rows come grouped by context and file (coverage.py inserts them so): keep the last file's set at
    // hand instead of looking it up for every row.
    let lastFile = Number.NaN;
    let keptSet = new Set<number>();
    for (let i = 0; i < fileId.length; i++) {
      const file = fileId[i]!;
      if (file !== lastFile) {
        lastFile = file;
        keptSet = keptOf(file);
      }
      const key = arcKey(fromno[i]!, tono[i]!);
      const frozenId = dropped.get(contextId[i]!);
      if (frozenId === undefined) keptSet.add(key);
      else addDropped(file, frozenId, key);
    }
  } else {
    for (const row of db.lineBits) {
      const frozenId = dropped.get(row.contextId);
      const keptSet = keptOf(row.fileId);
      for (const line of numbitsToNums(row.numbits)) {
        if (frozenId === undefined) keptSet.add(line);
        else addDropped(row.fileId, frozenId, line);
      }
    }
  }
  const allRaw = new Map<number, Set<number>>(keptRaw);
  for (const [fileId, runs] of droppedRaw) {
    const all = new Set(keptRaw.get(fileId));
    for (const run of runs) for (const value of run.values) all.add(value);
    allRaw.set(fileId, all);
  }

  const files = new Map<string, FileCoverage>();
  const rawFiles = new Map<string, FileCoverage>();
  const frozenTests = new Map<string, Map<string, string[]>>();
  const uncertainty = { files: [] as string[], lines: 0, arcs: 0 };
  const pathOf = new Map(db.files.map((f) => [f.id, f.path]));
  for (const [fileId, entry] of matched) {
    const source = () => sourceOf?.(pathOf.get(fileId)!)?.split(/\r\n|\r|\n/);
    const built = buildFile(
      entry,
      allRaw.get(fileId) ?? new Set(),
      keptRaw.get(fileId) ?? new Set(),
      db.hasArcs,
      source,
      droppedRaw.get(fileId),
    );
    if (typeof built === "string") return fail(reportFile, `${entry.key}: ${built}`, regenerate(reportFile));
    files.set(built.coverage.path, built.coverage);
    rawFiles.set(built.coverage.path, built.raw);
    if (built.frozenTests.size > 0) frozenTests.set(built.coverage.path, built.frozenTests);
    if (built.ambiguity && built.spread) {
      uncertainty.files.push(`${entry.key}: ${built.ambiguity}`);
      uncertainty.lines += built.spread.lines;
      uncertainty.arcs += built.spread.arcs;
    }
  }
  const data: CoverageData = {
    format: "coveragepy-contexts",
    sources: [...shards.map((s) => s.db.file), ...shards.map((s) => s.reportFile)],
    files,
    hasBranches: db.hasArcs,
  };
  const summary = summarizeCoverage(data);
  const upper =
    uncertainty.files.length === 0
      ? undefined
      : {
          percent: coveragePercent(
            summary.statements,
            summary.coveredLines + uncertainty.lines,
            summary.branches,
            summary.coveredBranches + uncertainty.arcs,
          ),
          why: uncertainty.files,
        };
  const raw: CoverageData = { ...data, files: rawFiles };
  return { data, errors, warnings, droppedContexts, frozenNotRun, summary, upper, raw, frozenTests };
}

function buildFile(
  entry: ReportFile,
  allRaw: Set<number>,
  keptRaw: Set<number>,
  hasArcs: boolean,
  source: () => string[] | undefined,
  droppedRaw: DroppedRows[] | undefined,
):
  | {
      coverage: FileCoverage;
      raw: FileCoverage;
      frozenTests: Map<string, string[]>;
      ambiguity?: string;
      spread?: { lines: number; arcs: number };
    }
  | string {
  let lines: string[] | undefined | null = null;
  const sourceLine = (n: number): string | undefined => {
    if (lines === null) lines = source();
    return lines?.[n - 1];
  };
  const firstLine = firstLineOf(entry);
  const executedLines = (raw: Set<number>): Set<number> => executedFirstLines(raw, hasArcs, firstLine);
  const executedArcs = (raw: Set<number>): Set<string> => {
    const out = new Set<string>();
    if (hasArcs) for (const key of raw) out.add(`${firstLine(arcFrom(key))}>${firstLine(arcTo(key))}`);
    return out;
  };

  const allLines = executedLines(allRaw);
  if (!sameExecuted(entry, allLines)) {
    return "its executed lines differ from what the data file records: the report was not written from this data file";
  }
  // No dropped context ran the file: the kept rows are all of them (the same set).
  const keptLines = keptRaw === allRaw ? allLines : executedLines(keptRaw);

  // Statements: the missing lines and the executed lines that are statements. Executed lines that are
  // not (a docstring runs as code, but coverage.py does not count it) cannot be told apart here; their
  // number is known, and when some must be dropped, those still executed are taken first: the lower figure.
  const excluded = new Set(entry.excludedLines);
  const candidates = entry.executedLines.filter((l) => !excluded.has(l));
  const missing = new Set(entry.missingLines);
  if (candidates.some((l) => missing.has(l))) return "a line is both executed and missing";
  const extraLines = candidates.length - entry.coveredLines;
  if (extraLines < 0 || entry.missingLines.length + entry.coveredLines !== entry.numStatements) {
    return `its summary (${entry.coveredLines} of ${entry.numStatements} statements) does not match its line lists`;
  }
  // A docstring is the usual such line: one that starts with a string literal goes first.
  const docstring = (l: number): boolean => DOCSTRING_START.test(sourceLine(l) ?? "");
  const notStatements = pickExtra(
    candidates,
    extraLines,
    (l) => keptLines.has(l),
    extraLines > 0 ? docstring : undefined,
  );
  const statements = new Set<string>();
  const coveredStatements = new Set<string>();
  // Raw covered: every executed statement. Usually the proven set itself (no frozen-only line): then it
  // is that set, not a copy, and nothing downstream compares them element by element.
  let rawCount = 0;
  for (const l of entry.missingLines) statements.add(String(l));
  for (const l of candidates) {
    if (notStatements.has(l)) continue;
    statements.add(String(l));
    rawCount++;
    if (keptLines.has(l)) coveredStatements.add(String(l));
  }
  const rawStatements =
    rawCount === coveredStatements.size
      ? coveredStatements
      : new Set(candidates.filter((l) => !notStatements.has(l)).map(String));
  let ambiguity: string | undefined;
  let arcSpread = 0;
  const lineSpread = spread(candidates, extraLines, (l) => keptLines.has(l), extraLines > 0 ? docstring : undefined);
  if (lineSpread > 0) ambiguity = `${lineSpread} executed line(s) may not be statements`;

  const branches = new Set<string>();
  const coveredBranches = new Set<string>();
  let rawBranches = coveredBranches;
  if (hasArcs) {
    const allArcs = executedArcs(allRaw);
    const keptArcs = keptRaw === allRaw ? allArcs : executedArcs(keptRaw);
    const arcName = ([a, b]: [number, number]): string => `${a}>${b}`;
    if (entry.executedBranches.some((arc) => !allArcs.has(arcName(arc)))) {
      return "it lists an executed branch the data file does not record: the report was not written from this data file";
    }
    const missingArcs = entry.missingBranches.map(arcName);
    if (missingArcs.some((arc) => allArcs.has(arc))) {
      return "it lists a missing branch the data file records as executed: the report was not written from this data file";
    }
    if (entry.missingBranches.length + entry.coveredBranches !== entry.numBranches) {
      return `its summary (${entry.coveredBranches} of ${entry.numBranches} branches) does not match its branch lists`;
    }
    // An arc from a line to itself is never a possible arc (coverage.py drops it as unpredicted).
    // Nor is an arc from a `# pragma: no branch` line: coverage.py counts its exits as branches but never
    // reports them missing. Such a line shows as one executed arc and no missing one (or, with the
    // source at hand, by its pragma).
    const bySource = new Map<number, Set<number>>();
    for (const [a, b] of entry.executedBranches)
      if (a !== b) (bySource.get(a) ?? bySource.set(a, new Set()).get(a)!).add(b);
    const withMissing = new Set(entry.missingBranches.map(([a]) => a));
    const noBranch = (line: number): boolean =>
      !withMissing.has(line) && (bySource.get(line)!.size < 2 || NO_BRANCH.test(sourceLine(line) ?? ""));
    const candidateArcs = [...new Set(entry.executedBranches.filter(([a, b]) => a !== b && !noBranch(a)).map(arcName))];
    const extraArcs = Math.max(0, candidateArcs.length - entry.coveredBranches);
    const notPossible = pickExtra(candidateArcs, extraArcs, (arc) => keptArcs.has(arc));
    for (const arc of missingArcs) branches.add(arc);
    let counted = 0;
    for (const arc of candidateArcs) {
      if (notPossible.has(arc)) continue;
      branches.add(arc);
      counted++;
      if (keptArcs.has(arc)) coveredBranches.add(arc);
    }
    // Possible arcs coverage.py never reports missing (`# pragma: no branch`): always covered.
    for (let i = counted; i < entry.coveredBranches; i++) {
      branches.add(`always:${i}`);
      coveredBranches.add(`always:${i}`);
    }
    // Raw covered: every possible arc executed (and the always-covered ones); a copy only when it differs.
    if (Math.max(counted, entry.coveredBranches) !== coveredBranches.size) {
      rawBranches = new Set(candidateArcs.filter((arc) => !notPossible.has(arc)));
      for (let i = counted; i < entry.coveredBranches; i++) rawBranches.add(`always:${i}`);
    }
    arcSpread = spread(candidateArcs, extraArcs, (arc) => keptArcs.has(arc));
    if (arcSpread > 0)
      ambiguity = `${ambiguity ? `${ambiguity}, and ` : ""}${arcSpread} executed branch arc(s) may not be possible arcs`;
  }
  const coverage: FileCoverage = {
    path: normalizeCoveragePath(entry.key),
    statements,
    coveredStatements,
    branches,
    coveredBranches,
  };
  // Every context kept: the same statements and branches, covered as `coverage json` counts them.
  const raw: FileCoverage =
    rawStatements === coveredStatements && rawBranches === coveredBranches
      ? coverage
      : { ...coverage, coveredStatements: rawStatements, coveredBranches: rawBranches };
  // Who ran what only frozen tests ran: the frozen-only keys first (most files have none), then each
  // frozen test's own rows, mapped to first lines, against them.
  const frozenTests = new Map<string, string[]>();
  if (droppedRaw && (rawStatements.size > coveredStatements.size || rawBranches.size > coveredBranches.size)) {
    const onlyLines = new Set<number>();
    for (const key of rawStatements) if (!coveredStatements.has(key)) onlyLines.add(Number(key));
    // Frozen-only arcs by their number (arcKey of the first lines), so a row is looked up without a string.
    const onlyArcs = new Map<number, string>();
    for (const key of rawBranches) {
      if (coveredBranches.has(key)) continue;
      const gt = key.indexOf(">");
      if (gt > 0) onlyArcs.set(arcKey(Number(key.slice(0, gt)), Number(key.slice(gt + 1))), key);
    }
    // Run by run: a test already named for a key is usually its list's last entry (the rest go below).
    const attribute = (key: string, nodeid: string): void => {
      const ids = frozenTests.get(key);
      if (!ids) frozenTests.set(key, [nodeid]);
      else if (ids[ids.length - 1] !== nodeid) ids.push(nodeid);
    };
    for (const { nodeid, values } of droppedRaw) {
      if (hasArcs) {
        for (const key of values) {
          const a = firstLine(arcFrom(key));
          const b = firstLine(arcTo(key));
          if (a > 0 && onlyLines.has(a)) attribute(String(a), nodeid);
          if (b > 0 && onlyLines.has(b)) attribute(String(b), nodeid);
          if (onlyArcs.size > 0) {
            const arc = onlyArcs.get(arcKey(a, b));
            if (arc !== undefined) attribute(arc, nodeid);
          }
        }
      } else {
        for (const line of values) {
          const l = firstLine(line);
          if (onlyLines.has(l)) attribute(String(l), nodeid);
        }
      }
    }
    // A test's setup, call and teardown are runs of their own, and another test's may come between.
    for (const [key, ids] of frozenTests) if (ids.length > 1) frozenTests.set(key, [...new Set(ids)].sort());
  }
  const built = { coverage, raw, frozenTests };
  return ambiguity ? { ...built, ambiguity, spread: { lines: lineSpread, arcs: arcSpread } } : built;
}

/**
 * coverage.py maps each line to the first line of its statement. The first lines known from the report:
 * statements (missing or executed), excluded lines, branch ends; a line it does not list lies inside a
 * multi-line statement, whose first line is the nearest listed line above it.
 */
function firstLineOf(entry: ReportFile): (line: number) => number {
  const known = new Set<number>([...entry.executedLines, ...entry.missingLines, ...entry.excludedLines]);
  for (const [a, b] of [...entry.executedBranches, ...entry.missingBranches]) {
    if (a > 0) known.add(a);
    if (b > 0) known.add(b);
  }
  const sorted = [...known].sort((a, b) => a - b);
  const firstLine = (line: number): number => {
    if (line <= 0) return line < 0 ? -firstLine(-line) : line;
    if (known.has(line)) return line;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < line) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? sorted[lo - 1]! : line;
  };
  return firstLine;
}

/** The first lines of the statements that ran, from a data file's lines (or arcs). */
function executedFirstLines(raw: Set<number>, hasArcs: boolean, firstLine: (line: number) => number): Set<number> {
  const out = new Set<number>();
  if (hasArcs) {
    for (const key of raw) {
      const a = arcFrom(key);
      const b = arcTo(key);
      if (a > 0) out.add(firstLine(a));
      if (b > 0) out.add(firstLine(b));
    }
  } else {
    for (const line of raw) out.add(firstLine(line));
  }
  return out;
}

/** Whether a report entry's executed lines are exactly `lines`. */
function sameExecuted(entry: ReportFile, lines: Set<number>): boolean {
  const reported = new Set(entry.executedLines);
  return lines.size === reported.size && [...lines].every((l) => reported.has(l));
}

/**
 * A shard's report against its own data file: per file, the lines every context ran must be the report's
 * executed lines (the combined check alone would let two shards' reports be swapped). The file that
 * differs, or undefined.
 */
function shardMismatch(r: ReadShard): string | undefined {
  const { db } = r.shard;
  const raw = new Map<number, Set<number>>();
  const add = (fileId: number, value: number): void => {
    let set = raw.get(fileId);
    if (!set) raw.set(fileId, (set = new Set()));
    set.add(value);
  };
  if (db.hasArcs) {
    const { fileId, fromno, tono } = db.arcs;
    for (let i = 0; i < fileId.length; i++) add(fileId[i]!, arcKey(fromno[i]!, tono[i]!));
  } else {
    for (const row of db.lineBits) for (const line of numbitsToNums(row.numbits)) add(row.fileId, line);
  }
  for (const [fileId, entry] of r.matched) {
    const lines = executedFirstLines(raw.get(fileId) ?? new Set(), db.hasArcs, firstLineOf(entry));
    if (!sameExecuted(entry, lines)) return entry.key;
  }
  return undefined;
}

/**
 * `count` of `items` are not real statements (or arcs) but cannot be told apart. Pick the ones still
 * covered first: that gives the lower covered count, and the right one when the extras are all covered
 * (a docstring runs at import, which is kept).
 */
function pickExtra<T>(
  items: readonly T[],
  count: number,
  covered: (item: T) => boolean,
  likely?: (item: T) => boolean,
): Set<T> {
  const out = new Set<T>();
  if (count <= 0) return out;
  if (likely) {
    const named = items.filter(likely);
    if (named.length === count) return new Set(named);
  }
  for (const item of items) if (out.size < count && covered(item)) out.add(item);
  for (const item of items) if (out.size < count && !covered(item)) out.add(item);
  return out;
}

/** How far the covered count could be off: the uncovered items that might be the extras. */
function spread<T>(
  items: readonly T[],
  extra: number,
  covered: (item: T) => boolean,
  likely?: (item: T) => boolean,
): number {
  if (extra <= 0) return 0;
  if (likely && items.filter(likely).length === extra) return 0;
  const coveredCount = items.filter(covered).length;
  const uncovered = items.length - coveredCount;
  // Covered extras range from max(0, extra - uncovered) to min(extra, coveredCount).
  return Math.min(extra, coveredCount) - Math.max(0, extra - uncovered);
}

/** A shard once read: its report parsed, and its data file's ids matched to the report's entries. */
interface ReadShard {
  shard: ContextShard;
  report: { files: ReportFile[]; hasBranches: boolean };
  matched: Map<number, ReportFile>;
}

/**
 * The shards as one data file and one report, as `coverage combine` then `coverage json` would give them:
 * files by their report path (ids 0..n-1, each matched to its merged entry), contexts by name, and every
 * row of every shard renumbered. One shard is returned as it was read.
 */
function combineShards(read: readonly ReadShard[]): { db: CoverageDbRows; matched: Map<number, ReportFile> } | string {
  if (read.length === 1) return { db: read[0]!.shard.db, matched: read[0]!.matched };
  const byKey = new Map<string, { id: number; path: string; entries: ReportFile[] }>();
  const fileIds = read.map(() => new Map<number, number>());
  read.forEach((r, i) => {
    const pathOf = new Map(r.shard.db.files.map((f) => [f.id, f.path]));
    for (const [dataId, entry] of r.matched) {
      const key = normalizeCoveragePath(entry.key);
      let file = byKey.get(key);
      if (!file) byKey.set(key, (file = { id: byKey.size, path: pathOf.get(dataId)!, entries: [] }));
      file.entries.push(entry);
      fileIds[i]!.set(dataId, file.id);
    }
  });
  const matched = new Map<number, ReportFile>();
  for (const [key, file] of byKey) {
    const merged = mergeEntries(file.entries);
    if (typeof merged === "string") return `${key}: ${merged}`;
    matched.set(file.id, merged);
  }
  const contextIds = new Map<string, number>();
  const contextMaps = read.map(
    (r) =>
      new Map(
        r.shard.db.contexts.map((c) => {
          let id = contextIds.get(c.name);
          if (id === undefined) contextIds.set(c.name, (id = contextIds.size));
          return [c.id, id] as const;
        }),
      ),
  );
  const lineBits: CoverageDbRows["lineBits"][number][] = [];
  read.forEach((r, i) => {
    for (const row of r.shard.db.lineBits) {
      const fileId = fileIds[i]!.get(row.fileId);
      const contextId = contextMaps[i]!.get(row.contextId);
      if (fileId !== undefined && contextId !== undefined) lineBits.push({ fileId, contextId, numbits: row.numbits });
    }
  });
  const total = read.reduce((n, r) => n + r.shard.db.arcs.fileId.length, 0);
  const arcs = {
    fileId: new Int32Array(total),
    contextId: new Int32Array(total),
    fromno: new Int32Array(total),
    tono: new Int32Array(total),
  };
  let at = 0;
  read.forEach((r, i) => {
    const a = r.shard.db.arcs;
    for (let row = 0; row < a.fileId.length; row++) {
      const fileId = fileIds[i]!.get(a.fileId[row]!);
      const contextId = contextMaps[i]!.get(a.contextId[row]!);
      if (fileId === undefined || contextId === undefined) continue;
      arcs.fileId[at] = fileId;
      arcs.contextId[at] = contextId;
      arcs.fromno[at] = a.fromno[row]!;
      arcs.tono[at] = a.tono[row]!;
      at++;
    }
  });
  const sub = (array: Int32Array): Int32Array => array.subarray(0, at);
  return {
    db: {
      file: read.map((r) => r.shard.db.file).join(", "),
      hasArcs: read[0]!.shard.db.hasArcs,
      contexts: [...contextIds].map(([name, id]) => ({ id, name })),
      files: [...byKey.values()].map((f) => ({ id: f.id, path: f.path })),
      lineBits,
      arcs: {
        fileId: sub(arcs.fileId),
        contextId: sub(arcs.contextId),
        fromno: sub(arcs.fromno),
        tono: sub(arcs.tono),
      },
    },
    matched,
  };
}

/**
 * One file's report entries from several shards, as the report of the combined data would read: the
 * statements and branches are the code's (they must agree), executed lines and arcs the union, missing
 * ones those every shard missed.
 */
function mergeEntries(entries: readonly ReportFile[]): ReportFile | string {
  const first = entries[0]!;
  if (entries.length === 1) return first;
  const excluded = new Set(first.excludedLines);
  const same = (lines: readonly number[]): boolean =>
    new Set(lines).size === excluded.size && lines.every((l) => excluded.has(l));
  for (const e of entries.slice(1)) {
    if (e.numStatements !== first.numStatements || e.numBranches !== first.numBranches)
      return `the shards' reports count different code (${first.numStatements} statements and ${first.numBranches} branches, then ${e.numStatements} and ${e.numBranches}): the shards ran different commits or coverage settings`;
    if (!same(e.excludedLines))
      return "the shards' reports exclude different lines: the shards ran different commits or coverage settings";
  }
  const arcName = ([a, b]: [number, number]): string => `${a}>${b}`;
  const byLine = (a: number, b: number): number => a - b;
  const byArc = (x: [number, number], y: [number, number]): number => x[0] - y[0] || x[1] - y[1];
  const executedLines = [...new Set(entries.flatMap((e) => e.executedLines))].sort(byLine);
  const executed = new Set(executedLines);
  // Every shard's statements are the same (their counts agree): missing everywhere is executed nowhere.
  const missingLines = first.missingLines.filter((l) => !executed.has(l));
  const arcs = new Map<string, [number, number]>();
  for (const e of entries) for (const arc of e.executedBranches) arcs.set(arcName(arc), arc);
  const executedBranches = [...arcs.values()].sort(byArc);
  const missingSets = entries.map((e) => new Set(e.missingBranches.map(arcName)));
  const missingBranches = first.missingBranches.filter((arc) => missingSets.every((set) => set.has(arcName(arc))));
  return {
    key: first.key,
    executedLines,
    missingLines,
    excludedLines: first.excludedLines,
    executedBranches,
    missingBranches,
    numStatements: first.numStatements,
    coveredLines: first.numStatements - missingLines.length,
    numBranches: first.numBranches,
    coveredBranches: first.numBranches - missingBranches.length,
  };
}

function matchFiles(
  dataFiles: readonly { id: number; path: string }[],
  reportFiles: ReportFile[],
): Map<number, ReportFile> | string {
  const norm = (p: string): string => p.replace(/\\/g, "/");
  const byPath = new Map(dataFiles.map((f) => [norm(f.path), f.id]));
  // The data file's paths (absolute) by every `/`-led tail, built on the first report key that is not
  // one of them: the report's relative keys then match in one lookup each, not a scan of every path.
  let byTail: Map<string, [string, number][]> | undefined;
  const tailHits = (suffix: string): [string, number][] => {
    if (!byTail) {
      byTail = new Map();
      for (const entry of byPath) {
        const [p] = entry;
        for (let at = p.indexOf("/"); at !== -1; at = p.indexOf("/", at + 1)) {
          const tail = p.slice(at);
          const list = byTail.get(tail);
          if (list) list.push(entry);
          else byTail.set(tail, [entry]);
        }
      }
    }
    return byTail.get(suffix) ?? [];
  };
  const out = new Map<number, ReportFile>();
  for (const entry of reportFiles) {
    const key = norm(entry.key);
    let id = byPath.get(key);
    if (id === undefined) {
      const suffix = `/${key.replace(/^(\.\/)+/, "")}`;
      const hits = tailHits(suffix);
      if (hits.length > 1)
        return `"${entry.key}" matches ${hits.length} files of the data file (${hits.map(([p]) => p).join(", ")})`;
      id = hits[0]?.[1];
    }
    if (id === undefined)
      return `lists "${entry.key}", which the data file does not measure: the report and the data file come from different runs`;
    if (out.has(id)) return `two entries ("${out.get(id)!.key}", "${entry.key}") match the same measured file`;
    out.set(id, entry);
  }
  if (out.size !== dataFiles.length) {
    const unreported = dataFiles.filter((f) => !out.has(f.id)).map((f) => f.path);
    return `does not list ${unreported.length} file(s) the data file measures (${unreported.slice(0, 3).join(", ")}${unreported.length > 3 ? ", ..." : ""}): the report and the data file come from different runs, or the report was filtered (--include/--omit)`;
  }
  return out;
}

function parseReport(text: string): { files: ReportFile[]; hasBranches: boolean } | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${String((error as Error).message).split("\n")[0]}): not a coverage.py JSON report`;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return "not a coverage.py JSON report: the top level is not an object";
  const filesValue = (data as Record<string, unknown>).files;
  if (typeof filesValue !== "object" || filesValue === null || Array.isArray(filesValue))
    return "not a coverage.py JSON report: no `files` object";
  const meta = (data as Record<string, unknown>).meta;
  const metaBranches =
    typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).branch_coverage : undefined;
  const files: ReportFile[] = [];
  let hasBranches = metaBranches === true;
  for (const [key, value] of Object.entries(filesValue as Record<string, unknown>)) {
    if (typeof value !== "object" || value === null) return `\`files["${key}"]\` is not an object`;
    const f = value as Record<string, unknown>;
    const summary = f.summary as Record<string, unknown> | undefined;
    const lines = (name: string): number[] | string => {
      const v = f[name];
      if (!Array.isArray(v) || v.some((n) => !Number.isSafeInteger(n) || (n as number) < 0))
        return `\`files["${key}"].${name}\` is not a list of line numbers`;
      return v as number[];
    };
    const arcs = (name: string): [number, number][] | string => {
      const v = f[name];
      if (
        !Array.isArray(v) ||
        v.some((a) => !Array.isArray(a) || a.length !== 2 || !a.every((n) => Number.isSafeInteger(n)))
      )
        return `\`files["${key}"].${name}\` is not a list of [from, to] arcs`;
      return v as [number, number][];
    };
    const count = (name: string): number | string => {
      const v = summary?.[name];
      return typeof v === "number" && Number.isSafeInteger(v) && v >= 0
        ? v
        : `\`files["${key}"].summary.${name}\` is not a whole number >= 0`;
    };
    const executedLines = lines("executed_lines");
    const missingLines = lines("missing_lines");
    const excludedLines = f.excluded_lines === undefined ? [] : lines("excluded_lines");
    const fileBranches = f.executed_branches !== undefined || f.missing_branches !== undefined;
    hasBranches ||= fileBranches;
    const executedBranches = fileBranches ? arcs("executed_branches") : [];
    const missingBranches = fileBranches ? arcs("missing_branches") : [];
    const numStatements = count("num_statements");
    const coveredLines = count("covered_lines");
    const numBranches = fileBranches ? count("num_branches") : 0;
    const coveredBranches = fileBranches ? count("covered_branches") : 0;
    for (const v of [
      executedLines,
      missingLines,
      excludedLines,
      executedBranches,
      missingBranches,
      numStatements,
      coveredLines,
      numBranches,
      coveredBranches,
    ]) {
      if (typeof v === "string") return v;
    }
    files.push({
      key,
      executedLines: executedLines as number[],
      missingLines: missingLines as number[],
      excludedLines: excludedLines as number[],
      executedBranches: executedBranches as [number, number][],
      missingBranches: missingBranches as [number, number][],
      numStatements: numStatements as number,
      coveredLines: coveredLines as number,
      numBranches: numBranches as number,
      coveredBranches: coveredBranches as number,
    });
  }
  return { files, hasBranches };
}

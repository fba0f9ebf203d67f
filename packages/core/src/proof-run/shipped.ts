// `shipped_code_replaced` (issue 21): the code the tests run is the code that ships. A function, class,
// method or attribute of the source that the patch changed, replaced while the tests ran by test code the
// patch added or changed (the old function put back by an autouse fixture, `__code__` restored in a
// tests/__init__.py), is judged from the run record; without a run, from the added lines.
import { hasHumanTrailer, type Commit } from "../model/authorship.js";
import { needsTrailer, who, type PatchPolicy } from "../patch/patch.js";
import type { Finding } from "../model/report.js";
import { isTestFile, type PytestSettings } from "../python/runner-config.js";
import type { RunReplacement } from "./record.js";
import { codeOf, type ScannedFile } from "./scan.js";

/** A source file (not test code) the range changed: its text at the head, and the range's commit of each line it wrote. */
export interface ChangedSourceFile {
  path: string;
  text: string;
  /** Head line numbers written by a commit of the range, with that commit's sha (git blame). */
  written: ReadonlyArray<{ line: number; sha: string }>;
}

/** What judging replaced source code needs, read from git by the caller. */
export interface ShippedEvidence {
  /** The range's commits, oldest first. */
  commits: readonly Commit[];
  /** The paths each commit answers for, by sha. */
  touched: ReadonlyMap<string, readonly string[]>;
  /** pytest's settings (the base's): which files are test code. */
  pytest: PytestSettings;
  /** Python source files the range added or changed, test code left out. */
  sources: readonly ChangedSourceFile[];
  /** Lines each commit added (a merge: its own resolution's), for the static scan. */
  added: ReadonlyArray<{ commit: Commit; files: readonly ScannedFile[] }>;
}

/** A definition in a source file: a top-level function, class or assignment, or a method of a top-level class. */
export interface SourceDefinition {
  path: string;
  /** `add`, `Calc.add`. */
  qualname: string;
  kind: "def" | "class";
  first: number;
  last: number;
}

const HEADER = /^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/;

/**
 * The functions and classes of a Python file and the methods of its top-level classes, with their lines
 * (decorators included), found by indentation. A line of a multi-line string that starts further left
 * than its block ends the block early: this is a reading for a static scan, not a parser.
 */
export function sourceDefinitions(path: string, text: string): SourceDefinition[] {
  const lines = text.split(/\r?\n/);
  const out: SourceDefinition[] = [];
  const open: Array<SourceDefinition & { indent: number; depth: number }> = [];
  let decorated: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const indent = raw.length - raw.trimStart().length;
    while (open.length > 0 && open.at(-1)!.indent >= indent) out.push(strip(open.pop()!));
    for (const block of open) block.last = i + 1;
    if (trimmed.startsWith("@")) {
      decorated ??= i + 1;
      continue;
    }
    const m = HEADER.exec(raw);
    const parent = open.at(-1);
    // Top level, or a method of a top-level class; deeper definitions belong to the one around them.
    if (m && (parent === undefined || (parent.kind === "class" && parent.depth === 0))) {
      open.push({
        path,
        qualname: parent ? `${parent.qualname}.${m[3]}` : m[3]!,
        kind: m[2] === "class" ? "class" : "def",
        first: decorated ?? i + 1,
        last: i + 1,
        indent,
        depth: open.length,
      });
    } else if (m) {
      open.push({ ...parent!, indent, depth: open.length, qualname: "", first: i + 1, last: i + 1 });
    }
    decorated = undefined;
  }
  while (open.length > 0) out.push(strip(open.pop()!));
  return out.filter((d) => d.qualname !== "").sort((a, b) => a.first - b.first);
}

const strip = (d: SourceDefinition & { indent: number; depth: number }): SourceDefinition => ({
  path: d.path,
  qualname: d.qualname,
  kind: d.kind,
  first: d.first,
  last: d.last,
});

const approvedBy = (policy: PatchPolicy) => (commit: Commit) =>
  hasHumanTrailer(commit, policy.trailers.gateChange, policy.agentPatterns);

const FIX =
  "fix the shipped code itself and remove the test code that replaces it: tests must run the code that ships; a test double for code the patch changed is a human's decision, in a commit with `Gate-Change: human`";

function span(r: RunReplacement): string {
  if (r.first === undefined) return r.path ?? "?";
  return `${r.path}:${r.first}${r.last !== undefined && r.last !== r.first ? `-${r.last}` : ""}`;
}

function what(r: RunReplacement): string {
  const name = r.name === "" ? r.module : `${r.module}.${r.name}`;
  switch (r.kind) {
    case "code":
      return `the code of ${name}`;
    case "module":
      return `the module ${name} (in sys.modules)`;
    default:
      return name;
  }
}

/**
 * Test code, for who replaced shipped code: a test file by pytest's rules (collected tests aside), or any
 * file under a folder named tests, test or testing (a tests/__init__.py, a fixtures module). Wider than
 * the measurement rules' test files on purpose: here it widens what is judged, not what is exempt.
 */
function isTestCode(path: string, pytest: PytestSettings): boolean {
  if (isTestFile(path, pytest)) return true;
  return path
    .split("/")
    .slice(0, -1)
    .some((segment) => segment === "tests" || segment === "test" || segment === "testing");
}

/**
 * `shipped_code_replaced` from a run record: each source function, class, method or attribute (or a
 * function's code) the run found replaced, when the patch wrote lines of its definition and the code that
 * replaced it is test code the patch added or changed. The writer is the frame the plugin saw, else the
 * test (or test module) running then; a data attribute with no frame seen is not judged. A replacement
 * made by source code ships too, and is not judged. Every commit that wrote the definition or touched the
 * writer's file needs `Gate-Change: human` on a human commit.
 */
export function judgeShippedReplacements(
  replaced: readonly RunReplacement[],
  e: ShippedEvidence,
  policy: PatchPolicy,
): Finding[] {
  const out: Finding[] = [];
  const approved = approvedBy(policy);
  const isTest = (path: string): boolean => isTestCode(path, e.pytest);
  const bySha = new Map(e.commits.map((c) => [c.sha, c]));
  const sources = new Map(e.sources.map((s) => [s.path, s]));
  const testCodeTouched = [...new Set(e.commits.flatMap((c) => e.touched.get(c.sha) ?? []))].filter(
    (p) => p.endsWith(".py") && isTest(p),
  );
  const key = policy.trailers.gateChange;
  const seen = new Set<string>();
  for (const r of replaced) {
    if (r.kind === "error") {
      out.push({
        reason: "shipped_code_replaced",
        message: `the proof run could not compare the source with what the tests ran: ${r.error ?? "unknown error"}`,
        fix: "run the proof step again; if it persists, report it with the run record",
      });
      continue;
    }
    if (r.path === undefined || isTest(r.path)) continue;
    const source = sources.get(r.path);
    if (source === undefined) continue;
    // A definition the head's file does not show (made by exec, or at run time) stands for the whole file.
    const first = r.first ?? 1;
    const last = r.last ?? Number.MAX_SAFE_INTEGER;
    const writers = [
      ...new Set(source.written.filter((w) => w.line >= first && w.line <= last).map((w) => w.sha)),
    ].flatMap((sha) => bySha.get(sha) ?? []);
    if (writers.length === 0) continue;
    if (r.kind === "value" && r.by === undefined) continue;
    // Who replaced it: the frame the plugin saw; else the running test's file and its fixtures' files;
    // else (at collection, with no frame) any test code the range touched. Source code ships as it ran.
    const candidates =
      r.by !== undefined
        ? [r.by.path]
        : r.test
          ? [...new Set([...(r.near ? [r.near] : []), ...(r.fixtures ?? [])])]
          : testCodeTouched;
    const testCode = candidates.filter(isTest);
    if (testCode.length === 0) continue;
    const writerCommits = e.commits.filter((c) => testCode.some((p) => (e.touched.get(c.sha) ?? []).includes(p)));
    if (writerCommits.length === 0) continue;
    // Named: the candidate the latest of those commits touched.
    const latest = e.touched.get(writerCommits.at(-1)!.sha) ?? [];
    const writer = testCode.find((p) => latest.includes(p))!;
    const responsible = e.commits.filter((c) => writers.includes(c) || writerCommits.includes(c));
    const unapproved = responsible.filter((c) => !approved(c));
    const blamed = unapproved.at(-1);
    if (blamed === undefined) continue;
    const id = `${r.path}\0${r.qualname ?? r.name}\0${writer ?? ""}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const by =
      r.by !== undefined
        ? `by ${r.by.path}:${r.by.line}`
        : `by test code the patch touched (no frame showed the writer; ${r.test ? `${writer}, of the running test or its fixtures,` : `${writer}, test code the range changed,`} stands for it)`;
    const when = r.test
      ? ` while ${r.test} ran (${r.phase ?? "?"})`
      : r.phase === "collection"
        ? " while the tests were collected"
        : "";
    out.push({
      reason: "shipped_code_replaced",
      message: `${what(r)}, defined at ${span(r)} and changed by the patch, was replaced ${by}${when}: the tests ran other code than the code that ships; ${needsTrailer(blamed, key, policy)}`,
      file: r.by?.path ?? writer,
      line: r.by?.line,
      commit: blamed.sha,
      author: who(blamed),
      fix: FIX,
    });
  }
  return out;
}

const CODE_SET = /\.__code__\s*=(?!=)|\bsetattr\s*\([^,]+,\s*["']__code__["']/;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `shipped_code_replaced` without a run, from the lines each commit added to test code: a function's
 * `__code__` set, or a source function, class or method the patch changed (by its name) replaced with
 * `setattr`, `monkeypatch.setattr`, `mock.patch`/`patch.object` or an attribute assignment (`mod.add = ...`,
 * not on `self`/`cls`). Commits with `Gate-Change: human` on a human commit are not judged.
 */
export function scanShippedReplacement(e: ShippedEvidence, policy: PatchPolicy): Finding[] {
  const approved = approvedBy(policy);
  const isTest = (path: string): boolean => isTestCode(path, e.pytest);
  const changed = new Map<string, SourceDefinition>();
  for (const source of e.sources) {
    const lines = source.written.map((w) => w.line);
    for (const d of sourceDefinitions(source.path, source.text)) {
      if (!lines.some((l) => l >= d.first && l <= d.last)) continue;
      const name = d.qualname.split(".").at(-1)!;
      if (!changed.has(name)) changed.set(name, d);
    }
  }
  const patterns = [...changed].map(([name, d]) => ({
    d,
    re: new RegExp(
      String.raw`\b(?:setattr|patch\.object)\s*\([^)]*["']${escape(name)}["']|\b(?:setattr|patch)\s*\(\s*["'][\w.]+\.${escape(name)}["']|(?<!\b(?:self|cls))\.${escape(name)}\s*=(?!=)`,
    ),
  }));
  const out: Finding[] = [];
  const key = policy.trailers.gateChange;
  for (const { commit, files } of e.added) {
    if (approved(commit)) continue;
    for (const file of files) {
      if (!file.path.endsWith(".py") || !isTest(file.path)) continue;
      for (const { line, text } of file.lines) {
        const body = codeOf(text);
        const hit = CODE_SET.test(body)
          ? "sets a function's __code__"
          : patterns
              .filter((p) => p.re.test(body))
              .map(
                (p) => `replaces ${p.d.qualname} (${p.d.path}:${p.d.first}-${p.d.last}), which the patch changed`,
              )[0];
        if (hit === undefined) continue;
        out.push({
          reason: "shipped_code_replaced",
          message: `${file.path}:${line} \`${text.trim().slice(0, 120)}\` ${hit}: the tests would run other code than the code that ships; ${needsTrailer(commit, key, policy)}`,
          file: file.path,
          line,
          commit: commit.sha,
          author: who(commit),
          fix: FIX,
        });
      }
    }
  }
  return out;
}

import { classifyLeases, type Lease, type Ledger } from "../ledger/ledger.js";
import { CloseIdIndex, type CloseId } from "../ledger/close-ids.js";
import { NOT_AN_ID_START_CODES, plainSummaryCount, type Universe } from "./universe.js";
import type { IsoDate } from "../common/dates.js";
import { DESELECT_PLUGIN_PY } from "../pytest-plugins/generated.js";
import { fillPythonSlots } from "../pytest-plugins/slots.js";

/** A lease whose nodeid no collected test has, with the ids it probably meant. */
export interface UnknownLease {
  lease: Lease;
  close: CloseId[];
}

/** The leases judged for a day against a universe: active, expired, and active ones that name no test. */
export interface JudgedLeases {
  active: Lease[];
  expired: Lease[];
  unknown: UnknownLease[];
}

/** Collected tests that pytest's prefix-matching `--deselect=<leased id>` would also drop. */
export interface PrefixCollateral {
  lease: Lease;
  alsoDropped: string[];
}

/** What deselection means for a ledger and a universe on a given day. */
export interface DeselectionPlan {
  today: IsoDate;
  active: Lease[];
  expired: Lease[];
  unknown: UnknownLease[];
  /** Active leases over budget (0 when within). */
  overBudget: number;
  /** Why the plan must not be used, in the reference script's order: expired, unknown, budget. */
  refusal?: "expired_leases" | "unknown_leases" | "freeze_budget" | undefined;
  collateral: PrefixCollateral[];
}

/** Leases that name no collected test, with suggestions. Builds the suggestion index only when needed. */
export function findUnknownLeases(active: readonly Lease[], universe: Universe): UnknownLease[] {
  const collected = universeIndex(universe);
  const missing = active.filter((lease) => !collected.has(lease.nodeid));
  if (missing.length === 0) return [];
  const index = new CloseIdIndex(universe.ids);
  return missing.map((lease) => ({ lease, close: index.suggest(lease.nodeid) }));
}

const indexes = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The universe's ids as a set, built once per ids array (a universe is never mutated after parsing). */
function universeIndex(universe: Universe): ReadonlySet<string> {
  if (universe.index) return universe.index;
  let set = indexes.get(universe.ids);
  if (!set) {
    set = new Set(universe.ids);
    indexes.set(universe.ids, set);
  }
  return set;
}

/**
 * Collected ids that start with a leased id but are not leased: pytest's `--deselect` is a prefix
 * match, so these would silently leave the proof set.
 */
export function findPrefixCollateral(active: readonly Lease[], ids: readonly string[]): PrefixCollateral[] {
  // A collected id can only start with a lease that names the same file, so group the leases by the
  // part before the first "::" and test each id against its file's leases alone.
  const leased = new Set(active.map((l) => l.nodeid));
  const byFile = new Map<string, Lease[]>();
  for (const lease of active) {
    const cut = lease.nodeid.indexOf("::");
    const file = cut === -1 ? lease.nodeid : lease.nodeid.slice(0, cut);
    const list = byFile.get(file);
    if (list) list.push(lease);
    else byFile.set(file, [lease]);
  }
  const dropped = new Map<Lease, string[]>();
  // pytest prints a file's ids together, so the previous id's file usually answers without a lookup.
  let file = "";
  let candidates: Lease[] | undefined;
  for (const id of ids) {
    if (!(id.startsWith(file) && id.startsWith("::", file.length))) {
      const cut = id.indexOf("::");
      file = cut === -1 ? id : id.slice(0, cut);
      candidates = byFile.get(file);
    }
    if (!candidates) continue;
    for (const lease of candidates) {
      if (id.length <= lease.nodeid.length || !id.startsWith(lease.nodeid) || leased.has(id)) continue;
      const list = dropped.get(lease);
      if (list) list.push(id);
      else dropped.set(lease, [id]);
    }
  }
  return active
    .filter((lease) => dropped.has(lease))
    .map((lease) => ({ lease, alsoDropped: dropped.get(lease)!.sort() }));
}

/** Classifies the ledger for `today` and checks it against the universe, as `deselect` needs. */
export function planDeselection(ledger: Ledger, universe: Universe, today: IsoDate): DeselectionPlan {
  const { active, expired } = classifyLeases(ledger.leases, today);
  const unknown = findUnknownLeases(active, universe);
  const overBudget = Math.max(0, active.length - ledger.maxActiveLeases);
  const refusal =
    ledger.rejectIfExpired && expired.length > 0
      ? "expired_leases"
      : unknown.length > 0
        ? "unknown_leases"
        : overBudget > 0
          ? "freeze_budget"
          : undefined;
  const collateral = refusal ? [] : findPrefixCollateral(active, universe.ids);
  return { today, active, expired, unknown, overBudget, refusal, collateral };
}

/**
 * planDeselection on the bytes of `pytest --collect-only -q` output, without building the universe: for
 * 100,000 ids, decoding the file, their strings and their set cost more than the rest of `deselect`
 * (BENCHMARKS.md, issue 25 item 3). Each line is hashed where it lies in the bytes; only the ids a lease
 * drops by prefix become strings.
 *
 * Only for bytes in the plain shape, where parseCollectOnly would give a universe without warnings: ASCII
 * text (so UTF-8, and one byte per UTF-16 code unit) without carriage returns or terminal escapes, ids
 * that parseCollectOnly takes at a glance, one blank line, pytest's plain summary with their count (blank
 * lines around it), no id twice, and every active lease naming a collected id. Otherwise undefined: the
 * caller decodes and parses the file in full, and gets the same answer as before, warnings, errors and
 * suggestions included. When it answers, the plan is the one planDeselection gives.
 */
export function planDeselectionOnBytes(ledger: Ledger, bytes: Uint8Array, today: IsoDate): DeselectionPlan | undefined {
  const lines = plainIdLines(bytes);
  if (!lines) return undefined;
  const { active, expired } = classifyLeases(ledger.leases, today);
  // Every active lease names a collected id (an unknown one: the full parse finds what it probably meant).
  const leasedLines = new Set<number>();
  for (const lease of active) {
    const line = lines.find(lease.nodeid);
    if (line < 0) return undefined;
    leasedLines.add(line);
  }
  const overBudget = Math.max(0, active.length - ledger.maxActiveLeases);
  const refusal =
    ledger.rejectIfExpired && expired.length > 0 ? "expired_leases" : overBudget > 0 ? "freeze_budget" : undefined;
  const collateral = refusal ? [] : lines.prefixCollateral(active, leasedLines);
  return { today, active, expired, unknown: [], overBudget, refusal, collateral };
}

const FNV_START = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over a string's UTF-16 code units, from 0 to `to`, 32 bits (over ASCII bytes: the same hash). */
function hashString(text: string, to: number): number {
  let h = FNV_START;
  for (let i = 0; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** Whether `bytes` from `a` and from `b` hold the same `length` bytes. */
function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/** Whether `bytes` from `at` start with `text`'s code units. */
function startsWithText(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** The id lines of plain `--collect-only -q` output, located in its bytes (no string per line). */
interface IdLines {
  /** The line that is exactly `id`, or -1. */
  find(id: string): number;
  /** findPrefixCollateral's answer, with `leased` the lines of the active leases. */
  prefixCollateral(active: readonly Lease[], leased: ReadonlySet<number>): PrefixCollateral[];
}

const NEWLINE = 0x0a;
const COLON = 0x3a;

function plainIdLines(bytes: Uint8Array): IdLines | undefined {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  const starts = new Int32Array(count + 1);
  const ends = new Int32Array(count + 1);
  const hashes = new Int32Array(count + 1);
  const fileHashes = new Int32Array(count + 1);
  const fileLengths = new Int32Array(count + 1);
  let size = 1024;
  while (size < 2 * (count + 1)) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size); // line + 1; 0 is a free slot
  let n = 0;
  let start = 0;
  // The id lines, up to the first blank line: each hashed whole and up to its first "::" (its file).
  for (;;) {
    if (start >= bytes.length) return undefined; // no blank line, no summary
    if (bytes[start] === NEWLINE) break;
    if (NOT_AN_ID_START_CODES.has(bytes[start]!)) return undefined;
    let h = FNV_START;
    let fileHash = 0;
    let cut = -1;
    let end = start;
    for (; end < bytes.length; end++) {
      const c = bytes[end]!;
      if (c === NEWLINE) break;
      // Not ASCII (or not UTF-8), a carriage return, a terminal escape: the full parser's business.
      if (c >= 0x80 || c === 0x0d || c === 0x1b) return undefined;
      if (c === COLON && cut === -1 && bytes[end + 1] === COLON) {
        cut = end;
        fileHash = h;
      }
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    if (cut === -1 || end === bytes.length) return undefined;
    const length = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const other = table[slot]! - 1;
      if (other === -1) {
        table[slot] = n + 1;
        break;
      }
      if (
        hashes[other] === h &&
        ends[other]! - starts[other]! === length &&
        sameBytes(bytes, starts[other]!, start, length)
      )
        return undefined; // printed twice: parseCollectOnly warns
    }
    starts[n] = start;
    ends[n] = end;
    hashes[n] = h;
    fileHashes[n] = fileHash;
    fileLengths[n] = cut - start;
    n++;
    start = end + 1;
  }
  // Then blank lines and pytest's plain summary, with their count, as the last line that is not blank.
  const ascii = new TextDecoder();
  const tail = bytes.subarray(start);
  if (tail.some((c) => c >= 0x80 || c === 0x0d || c === 0x1b)) return undefined;
  let summary: number | undefined;
  for (const raw of ascii.decode(tail).split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (summary !== undefined) return undefined;
    summary = plainSummaryCount(line);
    if (summary === undefined) return undefined;
  }
  if (summary !== n || n === 0) return undefined;

  const find = (id: string): number => {
    const h = hashString(id, id.length);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const line = table[slot]! - 1;
      if (line === -1) return -1;
      if (hashes[line] === h && ends[line]! - starts[line]! === id.length && startsWithText(bytes, starts[line]!, id))
        return line;
    }
  };
  const prefixCollateral = (active: readonly Lease[], leased: ReadonlySet<number>): PrefixCollateral[] => {
    // As findPrefixCollateral: a lease can only be a prefix of the ids of its own file.
    const byFile = new Map<number, Lease[]>();
    const fileLength = new Map<Lease, number>();
    for (const lease of active) {
      const cut = lease.nodeid.indexOf("::");
      const length = cut === -1 ? lease.nodeid.length : cut;
      fileLength.set(lease, length);
      const fileHash = hashString(lease.nodeid, length);
      const list = byFile.get(fileHash);
      if (list) list.push(lease);
      else byFile.set(fileHash, [lease]);
    }
    const dropped = new Map<Lease, string[]>();
    for (let line = 0; line < n; line++) {
      const candidates = byFile.get(fileHashes[line]!);
      if (!candidates || leased.has(line)) continue;
      const start = starts[line]!;
      const length = ends[line]! - start;
      for (const lease of candidates) {
        // Its file part as long as the lease's and the id starting with the lease: the same file.
        if (length <= lease.nodeid.length || fileLength.get(lease) !== fileLengths[line]) continue;
        if (!startsWithText(bytes, start, lease.nodeid)) continue;
        const id = ascii.decode(bytes.subarray(start, start + length));
        const list = dropped.get(lease);
        if (list) list.push(id);
        else dropped.set(lease, [id]);
      }
    }
    return active
      .filter((lease) => dropped.has(lease))
      .map((lease) => ({ lease, alsoDropped: dropped.get(lease)!.sort() }));
  };
  return { find, prefixCollateral };
}

/** pytest arguments, one per line: `--deselect=<nodeid>` for each active lease, in ledger order. */
export function renderDeselectArgs(plan: DeselectionPlan): string {
  return plan.active.map((lease) => `--deselect=${lease.nodeid}\n`).join("");
}

/** A Python string literal that holds `text` exactly, in ASCII. */
export function pythonString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\" || ch === '"') out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/**
 * A pytest plugin (Python source, src/pytest-plugins/proofgate_deselect_plugin.py) that deselects exactly
 * the leased ids, reports them through pytest's own deselection hook, and stops the run when a leased id
 * was not collected although its file was (a shard that runs other files is fine).
 * Its split of the items is the proof plugin's too: the generator of src/pytest-plugins checks both agree.
 * Works on pytest 7.2 through 9: it uses only `pytest_collection_modifyitems`, `pytest_deselected`
 * and `pytest.UsageError`.
 */
export function renderDeselectPlugin(plan: Pick<DeselectionPlan, "today" | "active">, ledgerFile: string): string {
  return fillPythonSlots(
    DESELECT_PLUGIN_PY,
    {
      text: { TODAY: plan.today },
      values: { LEDGER: pythonString(ledgerFile) },
      lists: { FROZEN: plan.active.map((lease) => pythonString(lease.nodeid)) },
    },
    "renderDeselectPlugin",
  );
}

/** Escapes text for a Python `re` pattern, with commas as `\\x2c` since coverage.py splits `--contexts` on commas. */
export function pythonRegexEscape(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "," || ch === " " || code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (/[\\.^$*+?{}[\]|()#&~-]/.test(ch)) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/**
 * One regular expression for `coverage json --contexts=...` that keeps every context except the
 * frozen tests' `<nodeid>|setup`, `|run` and `|teardown`. The empty context (import and collection)
 * is kept: it runs in a rerun too.
 */
export function renderContextsRegex(plan: DeselectionPlan): string {
  if (plan.active.length === 0) return ".*";
  const alternatives = plan.active.map((lease) => pythonRegexEscape(lease.nodeid)).join("|");
  return `^(?!(?:${alternatives})\\|(?:setup|run|teardown)$)`;
}

/** The plan as JSON data: the active leases and the ids each deselects. */
export function deselectionJson(plan: DeselectionPlan, ledgerFile: string, universeFile: string): unknown {
  return {
    today_utc: plan.today,
    ledger: ledgerFile,
    universe: universeFile,
    active_leases: plan.active.map((lease) => ({
      nodeid: lease.nodeid,
      owner: lease.owner,
      reason: lease.reason,
      expires: lease.expires,
      ...(lease.ticket ? { ticket: lease.ticket } : {}),
      line: lease.line ?? null,
    })),
    deselected: plan.active.map((lease) => lease.nodeid),
    prefix_collateral: plan.collateral.map((c) => ({
      lease: c.lease.nodeid,
      also_dropped_by_plain_deselect: c.alsoDropped,
    })),
  };
}

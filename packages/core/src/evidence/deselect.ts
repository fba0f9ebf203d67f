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
 * planDeselection on the text of `pytest --collect-only -q` output, without building the universe: for
 * 100,000 ids, their strings and their set cost more than the rest of `deselect` (BENCHMARKS.md, issue 25
 * item 3). Each line is hashed where it lies in the text; only the ids a lease drops by prefix become strings.
 *
 * Only for text in the plain shape, where parseCollectOnly would give a universe without warnings: ids
 * that parseCollectOnly takes at a glance, one blank line, pytest's plain summary with their count (blank
 * lines around it), no id twice, no BOM, carriage return or terminal escape, and every active lease naming
 * a collected id. Otherwise undefined: the caller parses the text in full, and gets the same answer as
 * before, warnings, errors and suggestions included. The plan is then the one planDeselection gives.
 */
export function planDeselectionOnText(ledger: Ledger, text: string, today: IsoDate): DeselectionPlan | undefined {
  if (text.charCodeAt(0) === 0xfeff || text.includes("\r") || text.includes("\u001b")) return undefined;
  const lines = plainIdLines(text);
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

/** FNV-1a over a string's UTF-16 code units, from `from` to `to`, 32 bits. */
function hashRange(text: string, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** Whether `text` from `a` and from `b` holds the same `length` code units. */
function sameRange(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/** The id lines of plain `--collect-only -q` text, located in it (no string per line), or undefined. */
interface IdLines {
  /** The line that is exactly `id`, or -1. */
  find(id: string): number;
  /** findPrefixCollateral's answer, with `leased` the lines of the active leases. */
  prefixCollateral(active: readonly Lease[], leased: ReadonlySet<number>): PrefixCollateral[];
}

function plainIdLines(text: string): IdLines | undefined {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
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
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end === start) break;
    if (NOT_AN_ID_START_CODES.has(text.charCodeAt(start))) return undefined;
    let h = 0x811c9dc5 | 0;
    let fileHash = 0;
    let cut = -1;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x3a && cut === -1 && text.charCodeAt(i + 1) === 0x3a) {
        cut = i;
        fileHash = h;
      }
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (cut === -1) return undefined;
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
        sameRange(text, starts[other]!, start, length)
      )
        return undefined; // printed twice: parseCollectOnly warns
    }
    starts[n] = start;
    ends[n] = end;
    hashes[n] = h;
    fileHashes[n] = fileHash;
    fileLengths[n] = cut - start;
    n++;
    if (end === text.length) return undefined; // no blank line, no summary
    start = end + 1;
  }
  // Then blank lines and pytest's plain summary, with their count, as the last line that is not blank.
  let summary: number | undefined;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    if (line !== "") {
      if (summary !== undefined) return undefined;
      summary = plainSummaryCount(line);
      if (summary === undefined) return undefined;
    }
    start = end + 1;
  }
  if (summary !== n || n === 0) return undefined;

  const find = (id: string): number => {
    const h = hashRange(id, 0, id.length);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const line = table[slot]! - 1;
      if (line === -1) return -1;
      if (hashes[line] === h && ends[line]! - starts[line]! === id.length && text.startsWith(id, starts[line]))
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
      const fileHash = hashRange(lease.nodeid, 0, length);
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
        if (!text.startsWith(lease.nodeid, start)) continue;
        const id = text.slice(start, start + length);
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

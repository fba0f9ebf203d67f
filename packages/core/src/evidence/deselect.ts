import { classifyLeases, type Lease, type Ledger } from "../ledger/ledger.js";
import { CloseIdIndex, type CloseId } from "../ledger/close-ids.js";
import type { Universe } from "./universe.js";
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

import { parse as parseToml, TomlDate } from "smol-toml";
import { parseIsoDate, type IsoDate } from "../common/dates.js";
import type { GateIssue } from "../common/errors.js";

/** One lease on a frozen test: who owns the flake, why, and until when it may stay frozen. */
export interface Lease {
  /** 0-based position in the file. */
  index: number;
  nodeid: string;
  owner: string;
  reason: string;
  /** Active through this UTC date, expired from the next day. */
  expires: IsoDate;
  created?: IsoDate | undefined;
  ticket?: string | undefined;
  /** 1-based line of the lease's `[[leases]]` header, when the file uses headers. */
  line?: number | undefined;
}

/** A validated `freeze.toml`. */
export interface Ledger {
  file: string;
  version: 1;
  /** The freeze budget; an omitted key is 0 (fail-closed) and `budgetOmitted` says so. */
  maxActiveLeases: number;
  budgetOmitted: boolean;
  rejectIfExpired: boolean;
  rejectIfAgentAddsLease: boolean;
  leases: Lease[];
}

/** The outcome of parsing: a ledger, or the list of everything wrong with the file. */
export interface LedgerParseResult {
  ledger?: Ledger | undefined;
  errors: GateIssue[];
  warnings: GateIssue[];
}

/** After this many errors the remaining leases are counted, not checked. */
const MAX_LEDGER_ERRORS = 100;

const TOP_KEYS = ["version", "max_active_leases", "reject_if_expired", "reject_if_agent_adds_lease", "leases"] as const;
const LEASE_KEYS = ["nodeid", "owner", "reason", "expires", "created", "ticket"] as const;
const REQUIRED_STRINGS = ["nodeid", "owner", "reason"] as const;

/**
 * Parses and validates `freeze.toml` text. Pure: reading the file is the caller's line. Unknown keys,
 * duplicate nodeids, impossible dates and wrong types are errors naming the line, the lease and the fix.
 */
export function parseLedger(text: string, file: string): LedgerParseResult {
  const errors: GateIssue[] = [];
  const warnings: GateIssue[] = [];
  const issue = (message: string, line?: number, fix?: string): GateIssue => ({
    code: "ledger_invalid",
    file,
    line,
    message,
    fix,
  });

  if (text.trim() === "") {
    return {
      errors: [
        {
          code: "file_empty",
          file,
          message: "the ledger is empty",
          fix: "write `version = 1` and `max_active_leases = 0` (a ledger with no leases is valid)",
        },
      ],
      warnings,
    };
  }
  let data: Record<string, unknown>;
  try {
    data = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch (error) {
    const line = typeof (error as { line?: unknown }).line === "number" ? (error as { line: number }).line : undefined;
    const first =
      String((error as Error).message)
        .split("\n")[0]
        ?.replace(/^Invalid TOML document: /, "") ?? "invalid TOML";
    return {
      errors: [
        {
          code: "ledger_syntax",
          file,
          line,
          message: `not valid TOML: ${first}`,
          fix: "see https://toml.io; each lease is a `[[leases]]` table",
        },
      ],
      warnings,
    };
  }

  const lines = new LineIndex(text);

  // smol-toml rolls an impossible TOML local date over (2026-02-30 becomes 2026-03-02), so check
  // every unquoted date as written, in [[leases]] tables and inline tables alike.
  const impossible = lines.impossibleDates();
  if (impossible.length > 0) {
    return {
      errors: impossible.map(({ line, key, date }) =>
        issue(
          `\`${key}\` is ${date}, a day that does not exist`,
          line,
          `write \`${key} = "2026-09-26"\` (a calendar date, YYYY-MM-DD)`,
        ),
      ),
      warnings,
    };
  }

  for (const key of Object.keys(data)) {
    if (!(TOP_KEYS as readonly string[]).includes(key)) {
      errors.push(
        issue(
          `unknown top-level key \`${key}\``,
          lines.keyLine(key),
          `${suggest(key, TOP_KEYS)}the known keys are ${TOP_KEYS.join(", ")}`,
        ),
      );
    }
  }

  if (data.version === undefined) {
    errors.push(issue("`version` is missing", 1, "add `version = 1` at the top"));
  } else if (data.version !== 1) {
    errors.push(
      issue(
        `\`version\` is ${JSON.stringify(data.version)}; this proofgate reads version 1`,
        lines.keyLine("version"),
        "write `version = 1`",
      ),
    );
  }

  let maxActiveLeases = 0;
  const budgetOmitted = data.max_active_leases === undefined;
  if (budgetOmitted) {
    warnings.push(
      issue(
        "`max_active_leases` is omitted: the budget is 0, so any active lease fails the gate",
        undefined,
        "set `max_active_leases` to the number of frozen tests the team accepts",
      ),
    );
  } else if (
    typeof data.max_active_leases !== "number" ||
    !Number.isSafeInteger(data.max_active_leases) ||
    data.max_active_leases < 0
  ) {
    errors.push(
      issue(
        `\`max_active_leases\` must be a whole number >= 0, not ${describe(data.max_active_leases)}`,
        lines.keyLine("max_active_leases"),
        "write e.g. `max_active_leases = 8`",
      ),
    );
  } else {
    maxActiveLeases = data.max_active_leases;
  }

  const flag = (key: "reject_if_expired" | "reject_if_agent_adds_lease"): boolean => {
    const value = data[key];
    if (value === undefined) return true;
    if (typeof value !== "boolean") {
      errors.push(
        issue(
          `\`${key}\` must be true or false, not ${describe(value)}`,
          lines.keyLine(key),
          `write \`${key} = true\``,
        ),
      );
      return true;
    }
    return value;
  };
  const rejectIfExpired = flag("reject_if_expired");
  const rejectIfAgentAddsLease = flag("reject_if_agent_adds_lease");

  const leases: Lease[] = [];
  const rawLeases = data.leases ?? [];
  if (!Array.isArray(rawLeases)) {
    errors.push(
      issue(
        `\`leases\` must be an array of tables, not ${describe(rawLeases)}`,
        lines.keyLine("leases"),
        "write each lease as a `[[leases]]` table",
      ),
    );
  } else {
    const seen = new Map<string, Lease>();
    let unchecked = 0;
    rawLeases.forEach((raw: unknown, index) => {
      // A ledger of thousands of broken leases is summed up: the first errors, then a count.
      if (errors.length >= MAX_LEDGER_ERRORS) {
        unchecked++;
        return;
      }
      const line = lines.leaseLine(index);
      const lease = validateLease(raw, index, line, file, lines, errors);
      if (!lease) return;
      const earlier = seen.get(lease.nodeid);
      if (earlier) {
        errors.push(
          issue(
            `lease #${index + 1} (${lease.nodeid}) repeats lease #${earlier.index + 1}${earlier.line ? ` at line ${earlier.line}` : ""}`,
            line,
            "keep one lease per nodeid: delete one of them",
          ),
        );
        return;
      }
      seen.set(lease.nodeid, lease);
      leases.push(lease);
    });
    if (unchecked > 0)
      errors.push(
        issue(
          `... and ${unchecked} more lease${unchecked === 1 ? "" : "s"} not checked after ${MAX_LEDGER_ERRORS} errors`,
          undefined,
          "fix the errors above, then run proofgate ledger lint again",
        ),
      );
  }

  if (errors.length > 0) return { errors, warnings };
  return {
    ledger: { file, version: 1, maxActiveLeases, budgetOmitted, rejectIfExpired, rejectIfAgentAddsLease, leases },
    errors,
    warnings,
  };
}

function validateLease(
  raw: unknown,
  index: number,
  line: number | undefined,
  file: string,
  lines: LineIndex,
  errors: GateIssue[],
): Lease | undefined {
  const label = (nodeid?: string): string => `lease #${index + 1}${nodeid ? ` (${nodeid})` : ""}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || raw instanceof Date) {
    errors.push({
      code: "ledger_invalid",
      file,
      line,
      message: `${label()} is ${describe(raw)}, not a table`,
      fix: "write each lease as a `[[leases]]` table with nodeid, owner, reason and expires",
    });
    return undefined;
  }
  const record = raw as Record<string, unknown>;
  const nodeidValue = typeof record.nodeid === "string" ? record.nodeid : undefined;
  const before = errors.length;
  const keyLine = (key: string): number | undefined => lines.leaseKeyLine(index, key) ?? line;
  const fail = (key: string, message: string, fix: string): void => {
    errors.push({
      code: "ledger_invalid",
      file,
      line: keyLine(key),
      message: `${label(nodeidValue)}: ${message}`,
      fix,
    });
  };

  for (const key of Object.keys(record)) {
    if (!(LEASE_KEYS as readonly string[]).includes(key)) {
      fail(
        key,
        `unknown key \`${key}\``,
        `${suggest(key, LEASE_KEYS)}a lease has nodeid, owner, reason, expires, and optionally created and ticket`,
      );
    }
  }
  for (const key of REQUIRED_STRINGS) {
    const value = record[key];
    if (value === undefined) fail(key, `\`${key}\` is missing`, `add \`${key} = "..."\` to the lease`);
    else if (typeof value !== "string")
      fail(key, `\`${key}\` must be a string, not ${describe(value)}`, `write \`${key} = "..."\``);
    else if (value.trim() === "") fail(key, `\`${key}\` is empty`, `write a non-empty \`${key}\``);
  }
  if (typeof record.nodeid === "string" && record.nodeid.trim() !== "") {
    if (record.nodeid !== record.nodeid.trim())
      fail(
        "nodeid",
        "`nodeid` has leading or trailing whitespace, so it can never match a collected test",
        "copy the id exactly as `pytest --collect-only -q` prints it",
      );
    else if (/[\r\n]/.test(record.nodeid))
      fail("nodeid", "`nodeid` contains a line break", "copy the id exactly as `pytest --collect-only -q` prints it");
  }
  const expires = readDate(record.expires, "expires", fail, true);
  const created = readDate(record.created, "created", fail, false);
  if (record.ticket !== undefined && typeof record.ticket !== "string")
    fail("ticket", `\`ticket\` must be a string, not ${describe(record.ticket)}`, 'write `ticket = "PROJ-123"`');
  if (expires && created && created > expires)
    fail(
      "created",
      `\`created\` (${created}) is after \`expires\` (${expires})`,
      "a lease cannot expire before it was created: fix one of the dates",
    );

  if (errors.length > before || !expires || nodeidValue === undefined) return undefined;
  return {
    index,
    nodeid: nodeidValue,
    owner: record.owner as string,
    reason: record.reason as string,
    expires,
    created,
    ticket: record.ticket as string | undefined,
    line,
  };
}

function readDate(
  value: unknown,
  key: string,
  fail: (key: string, message: string, fix: string) => void,
  required: boolean,
): IsoDate | undefined {
  const fix = `write \`${key} = "2026-09-26"\` (a calendar date, YYYY-MM-DD)`;
  if (value === undefined) {
    if (required) fail(key, `\`${key}\` is missing`, fix);
    return undefined;
  }
  if (value instanceof TomlDate) {
    if (value.isDate()) return value.toISOString();
    fail(key, `\`${key}\` must be a calendar date, not the date-time ${value.toISOString()}`, fix);
    return undefined;
  }
  if (typeof value !== "string") {
    fail(key, `\`${key}\` must be a date, not ${describe(value)}`, fix);
    return undefined;
  }
  const date = parseIsoDate(value);
  if (!date) {
    const shaped = /^\d{4}-\d{2}-\d{2}$/.test(value);
    fail(
      key,
      shaped
        ? `\`${key}\` is ${JSON.stringify(value)}, a day that does not exist`
        : `\`${key}\` is ${JSON.stringify(value)}, not a YYYY-MM-DD date`,
      fix,
    );
  }
  return date;
}

function describe(value: unknown): string {
  if (value instanceof Date) return `the date-time ${value.toISOString()}`;
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "a table";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function suggest(key: string, known: readonly string[]): string {
  const close = known.find((k) => editDistance(k, key.toLowerCase()) <= 2 || k.startsWith(key) || key.startsWith(k));
  return close ? `did you mean \`${close}\`? ` : "";
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

const UNQUOTED_DATE_HINT = /=\s*\d{4}-\d{2}-\d{2}/;

/** Finds lines of keys and `[[leases]]` headers, so errors can point at them. TOML parsers keep no positions. */
class LineIndex {
  private readonly lines: string[];
  private readonly headers: number[] = [];

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    this.lines.forEach((l, i) => {
      if (/^\s*\[\[\s*"?leases"?\s*\]\]/.test(l)) this.headers.push(i + 1);
    });
  }

  /** Unquoted TOML dates whose day does not exist, with the key they are assigned to. */
  impossibleDates(): { line: number; key: string; date: string }[] {
    const found: { line: number; key: string; date: string }[] = [];
    this.lines.forEach((raw, i) => {
      // Most lines have no unquoted date: none has one unless `= YYYY-MM-DD` is in the line as written
      // (blanking strings and comments only takes characters out between quotes, or cuts the end).
      if (!UNQUOTED_DATE_HINT.test(raw)) return;
      const code = raw.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""').replace(/#.*/, "");
      for (const m of code.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(\d{4}-\d{2}-\d{2})(?![\d:T])/g)) {
        if (!parseIsoDate(m[2]!)) found.push({ line: i + 1, key: m[1]!, date: m[2]! });
      }
    });
    return found;
  }

  /** Line of the `index`-th `[[leases]]` header. */
  leaseLine(index: number): number | undefined {
    return this.headers[index];
  }

  /** Line of `key = ...` inside the `index`-th lease table. */
  leaseKeyLine(index: number, key: string): number | undefined {
    const start = this.headers[index];
    if (start === undefined) return undefined;
    const end = this.headers[index + 1] ?? this.lines.length + 1;
    return this.findKey(key, start + 1, end, true);
  }

  /** Line of a top-level `key = ...` (before the first table header). */
  keyLine(key: string): number | undefined {
    return this.findKey(key, 1, this.lines.length + 1, false);
  }

  private findKey(key: string, from: number, to: number, insideTable: boolean): number | undefined {
    const pattern = new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*=`);
    for (let n = from; n < to; n++) {
      const l = this.lines[n - 1] ?? "";
      if (!insideTable && /^\s*\[/.test(l)) return undefined;
      if (pattern.test(l)) return n;
    }
    return undefined;
  }
}

/** Leases split by the date: active through `expires`, expired from the next UTC day. */
export interface LeaseClasses {
  active: Lease[];
  expired: Lease[];
}

/** Splits leases into active and expired for `today` (UTC, handed in by the caller). */
export function classifyLeases(leases: readonly Lease[], today: IsoDate): LeaseClasses {
  const active: Lease[] = [];
  const expired: Lease[] = [];
  for (const lease of leases) (lease.expires < today ? expired : active).push(lease);
  return { active, expired };
}

// The model's keys, shared: a report of 20,000 files in 50 shards names the same few thousand line numbers
// and arcs millions of times, and each `String(12)` or `"12>14"` built afresh is a new string to allocate,
// hash when it joins a set, and collect. A key built once is found again by its number; its hash is kept
// in the string, so every set it joins reuses it. The tables are bounded: past them, keys are built as before.

/** Whether `set` holds exactly `size` keys, each of `keys` among them (with `size` their count: the same keys). */
export function holdsExactly(set: ReadonlySet<string>, size: number, keys: Iterable<string>): boolean {
  if (set.size !== size) return false;
  for (const key of keys) if (!set.has(key)) return false;
  return true;
}

const LINE_LIMIT = 1 << 16;
const lineKeys: string[] = [];

/** The key of a line number (`"12"`), the same string each time for lines below 65,536. */
export function lineKey(line: number): string {
  if (line >= 0 && line < LINE_LIMIT && Number.isInteger(line)) return (lineKeys[line] ??= String(line));
  return String(line);
}

/** Arcs whose ends fit in 15 bits (lines below 16,384, exits above -16,384) get one small-integer number. */
const ARC_SPAN = 1 << 15;
const ARC_HALF = 1 << 14;
const ARC_LIMIT = 1 << 21;
const arcKeys = new Map<number, string>();

/** The key of a coverage.py arc (`"12>14"`, `"12>-1"` for an exit), the same string each time for most arcs. */
export function arcKey(from: number, to: number): string {
  if (
    Number.isInteger(from) &&
    Number.isInteger(to) &&
    from >= 0 &&
    from < ARC_HALF &&
    to > -ARC_HALF &&
    to < ARC_HALF
  ) {
    const n = from * ARC_SPAN + (to + ARC_HALF);
    const known = arcKeys.get(n);
    if (known !== undefined) return known;
    const key = `${from}>${to}`;
    if (arcKeys.size < ARC_LIMIT) arcKeys.set(n, key);
    return key;
  }
  return `${from}>${to}`;
}

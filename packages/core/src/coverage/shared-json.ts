// One JSON.parse per report: while readCoverage reads a report, the format check, the totals check and the
// reader parse the same text, and the second and third ask get the first's value. Outside a read, each
// call parses afresh, and nothing is kept after it. The value is shared: its readers never change it.

/** undefined: no read under way; null: a read under way, nothing parsed yet. */
let current: { text: string; value: unknown } | null | undefined;

/** JSON.parse(text), or the value already parsed from the same text during this read. Throws as JSON.parse does. */
export function parseJsonOnce(text: string): unknown {
  if (current === undefined) return JSON.parse(text);
  if (current !== null && current.text === text) return current.value;
  const value: unknown = JSON.parse(text);
  current = { text, value };
  return value;
}

/** Runs `read` with the texts it parses remembered (see parseJsonOnce), and forgets them after it. */
export function withJsonOnce<T>(read: () => T): T {
  if (current !== undefined) return read();
  current = null;
  try {
    return read();
  } finally {
    current = undefined;
  }
}

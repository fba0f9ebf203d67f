/** One non-blank line of a JSON-lines file the gate's plugins write: its 1-based number and its value. */
export interface JsonLine {
  line: number;
  /** The parsed value; undefined when the line is not JSON (each reader says what it expected). */
  value: unknown;
}

/** The non-blank lines of a JSON-lines text, each parsed; a line that is not JSON has no value. */
export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    out.push({ line: i + 1, value });
  }
  return out;
}

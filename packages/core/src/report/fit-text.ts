// One way to fit a rendering into a platform's size limit (a check run, a PR comment, an MR note, an
// annotation): each platform gives its limit, the unit it counts in, and the note that says so.

/** What a platform counts its limit in: UTF-8 bytes, or UTF-16 characters (JavaScript's `length`). */
export type SizeUnit = "bytes" | "chars";

/** A limit and how to say that the text was cut. */
export interface FitOptions {
  limit: number;
  unit: SizeUnit;
  /** Appended when the text was cut; counts against the limit. */
  note: string;
}

const encoder = new TextEncoder();

/** The size of `text` in `unit`. */
export function sizeOf(text: string, unit: SizeUnit): number {
  return unit === "chars" ? text.length : encoder.encode(text).length;
}

/** The longest prefix of `text` of at most `room` units, never splitting a character or a surrogate pair. */
function prefixOf(text: string, room: number, unit: SizeUnit): string {
  if (room <= 0) return "";
  if (unit === "bytes") {
    const bytes = encoder.encode(text);
    if (bytes.length <= room) return text;
    let end = room;
    // Back to the first byte of a UTF-8 sequence (continuation bytes are 10xxxxxx).
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    return new TextDecoder().decode(bytes.subarray(0, end));
  }
  let end = Math.min(text.length, room);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

const CLOSE_DETAILS = "\n</details>";

/**
 * `text` within `limit`: unchanged when it fits; otherwise cut at a line end (when one keeps at least
 * 90% of the room) or at a character boundary, a `<details>` block the cut left open closed, and `note`
 * appended. The head of a report (the decision and the table) comes first, so it survives a cut.
 */
export function fitText(text: string, options: FitOptions): { text: string; trimmed: boolean } {
  const { limit, unit, note } = options;
  if (sizeOf(text, unit) <= limit) return { text, trimmed: false };
  const room = limit - sizeOf(note, unit) - sizeOf(CLOSE_DETAILS, unit);
  if (room <= 0) return { text: prefixOf(note, limit, unit), trimmed: true };
  let kept = prefixOf(text, room, unit);
  const lineEnd = kept.lastIndexOf("\n");
  if (lineEnd >= 0 && lineEnd >= kept.length * 0.9) kept = kept.slice(0, lineEnd + 1);
  if (kept.split("<details>").length > kept.split("</details>").length) kept += CLOSE_DETAILS;
  return { text: `${kept}${note}`, trimmed: true };
}

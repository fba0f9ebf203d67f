/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, `note` included: at a line end where one is close, never
 * inside a character. Returns `text` itself when it fits.
 */
export function trimToBytes(text: string, maxBytes: number, note: string): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const room = maxBytes - Buffer.byteLength(note, "utf8");
  if (room <= 0)
    return Buffer.from(note, "utf8")
      .subarray(0, Math.max(0, maxBytes))
      .toString("utf8")
      .replace(/\uFFFD+$/, "");
  // Decoding a cut buffer may end in a replacement character for a split sequence: drop it.
  let head = Buffer.from(text, "utf8")
    .subarray(0, room)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  while (Buffer.byteLength(head, "utf8") > room) head = head.slice(0, -1);
  const lineEnd = head.lastIndexOf("\n");
  if (lineEnd >= head.length * 0.9) head = head.slice(0, lineEnd + 1);
  return `${head}${note}`;
}

// A direct reader of one SQLite table whose every value is a small integer, beside sql.js: coverage.py's
// `arc` table holds a row per file, context and arc (824,000 rows on the single-run benchmark), and
// stepping them through sql.js costs nine WebAssembly calls and an array per row. This walks the
// table's B-tree in the database's bytes instead (https://www.sqlite.org/fileformat2.html, sections
// 1.3, 1.6, 2.1 and 2.5): the interior pages in key order, each leaf cell's record.
//
// It answers only for what it fully understands and otherwise declines (undefined), and the caller
// then reads the table through sql.js as before, so every error message stays SQLite's. It declines on:
// a page size or reserved space SQLite would not write; a page outside the file, visited twice, or not
// a table B-tree page; a cell pointer or a record outside its page; a payload that spills to overflow
// pages; a record with another number of columns; a value that is not an integer of at most 48 bits
// (NULL, real, text, blob, 64-bit); more or fewer rows than SQLite's own `count(*)`.

/** Where the field after the last varint read starts (varint() sets it; no tuple per call). */
let next = 0;

/** SQLite's varint at `at` (exact below 2^53), or -1 when it runs past `end`; sets `next`. */
function varint(b: Uint8Array, at: number, end: number): number {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    if (at + i >= end) return -1;
    const byte = b[at + i]!;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) {
      next = at + i + 1;
      return value;
    }
  }
  if (at + 8 >= end) return -1;
  next = at + 9;
  return value * 256 + b[at + 8]!;
}

/** The byte length of an integer value of serial type 1 to 5 (8 and 9 take none); -1 for any other type. */
const INT_BYTES = [-1, 1, 2, 3, 4, 6, -1, -1, 0, 0] as const;

/**
 * The rows of the table whose B-tree starts at `rootPage`, column by column, in rowid order (the order of
 * SQLite's own full scan), when every record has `columns` integer values and there are `rows` of them;
 * otherwise undefined.
 */
export function readIntegerTable(
  bytes: Uint8Array,
  rootPage: number,
  columns: number,
  rows: number,
): Float64Array[] | undefined {
  if (bytes.length < 100 || !Number.isSafeInteger(rootPage) || rootPage < 1) return undefined;
  const rawSize = (bytes[16]! << 8) | bytes[17]!;
  const pageSize = rawSize === 1 ? 65536 : rawSize;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const usable = pageSize - bytes[20]!;
  if (usable < 480) return undefined;
  const pageCount = Math.floor(bytes.length / pageSize);
  if (rootPage > pageCount) return undefined;
  // A table leaf keeps a payload of at most usable - 35 bytes on its page; more spills to overflow pages.
  const maxLocal = usable - 35;

  const out = Array.from({ length: columns }, () => new Float64Array(rows));
  const types = new Int32Array(columns);
  const visited = new Uint8Array(pageCount + 1);
  const stack = [rootPage];
  let n = 0;
  while (stack.length > 0) {
    const page = stack.pop()!;
    if (page < 1 || page > pageCount || visited[page] === 1) return undefined;
    visited[page] = 1;
    const start = (page - 1) * pageSize;
    const end = start + usable;
    const header = start + (page === 1 ? 100 : 0);
    const kind = bytes[header]!;
    const leaf = kind === 0x0d;
    if (!leaf && kind !== 0x05) return undefined;
    const cells = (bytes[header + 3]! << 8) | bytes[header + 4]!;
    const pointers = header + (leaf ? 8 : 12);
    if (pointers + 2 * cells > end) return undefined;
    if (!leaf) {
      // Children in key order: each cell's left child, then the right-most pointer; pushed in reverse.
      const right =
        bytes[header + 8]! * 2 ** 24 + ((bytes[header + 9]! << 16) | (bytes[header + 10]! << 8) | bytes[header + 11]!);
      stack.push(right);
      for (let c = cells - 1; c >= 0; c--) {
        const cell = start + ((bytes[pointers + 2 * c]! << 8) | bytes[pointers + 2 * c + 1]!);
        if (cell < pointers + 2 * cells || cell + 4 > end) return undefined;
        stack.push(bytes[cell]! * 2 ** 24 + ((bytes[cell + 1]! << 16) | (bytes[cell + 2]! << 8) | bytes[cell + 3]!));
      }
      continue;
    }
    for (let c = 0; c < cells; c++) {
      if (n === rows) return undefined;
      const cell = start + ((bytes[pointers + 2 * c]! << 8) | bytes[pointers + 2 * c + 1]!);
      if (cell < pointers + 2 * cells || cell >= end) return undefined;
      const size = varint(bytes, cell, end);
      if (size < 0 || size > maxLocal) return undefined;
      if (varint(bytes, next, end) < 0) return undefined; // the rowid
      const record = next;
      const recordEnd = record + size;
      if (recordEnd > end) return undefined;
      // The record: its header's length, a serial type per column, then the values.
      const headerLength = varint(bytes, record, recordEnd);
      if (headerLength < 0) return undefined;
      const headerEnd = record + headerLength;
      if (headerEnd > recordEnd) return undefined;
      let at = next;
      let valueBytes = 0;
      for (let k = 0; k < columns; k++) {
        if (at >= headerEnd) return undefined;
        const type = bytes[at++]!;
        // Every integer serial type fits in one byte; a larger varint is another type.
        const length = type < INT_BYTES.length ? INT_BYTES[type]! : -1;
        if (length < 0) return undefined;
        types[k] = type;
        valueBytes += length;
      }
      if (at !== headerEnd || headerEnd + valueBytes !== recordEnd) return undefined;
      at = headerEnd;
      for (let k = 0; k < columns; k++) {
        const type = types[k]!;
        let value: number;
        if (type === 8) value = 0;
        else if (type === 9) value = 1;
        else {
          const length = INT_BYTES[type]!;
          // Big-endian two's complement: the first byte signed, the rest unsigned.
          value = (bytes[at]! << 24) >> 24;
          for (let i = 1; i < length; i++) value = value * 256 + bytes[at + i]!;
          at += length;
        }
        out[k]![n] = value;
      }
      n++;
    }
  }
  return n === rows ? out : undefined;
}

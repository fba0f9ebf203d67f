// The run record is signed over Python's
//   json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
// and checked here by writing the parsed value the same way, byte for byte. The record holds no floats,
// so numbers are whole and print the same in both languages.

/** Python's `json.dumps` escape of one UTF-16 code unit under `ensure_ascii=True`. */
function escapeUnit(code: number): string {
  switch (code) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return "\\\\";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    default:
      return `\\u${code.toString(16).padStart(4, "0")}`;
  }
}

/** A JSON string literal as Python writes it with `ensure_ascii=True`: every code unit outside ' '..'~' escaped. */
export function pythonJsonString(text: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c) continue;
    out += text.slice(start, i) + escapeUnit(code);
    start = i + 1;
  }
  return `${out}${text.slice(start)}"`;
}

/** Compares two strings by code point, as Python sorts `str` keys (JavaScript's default sorts by UTF-16 unit). */
function byCodePoint(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * The canonical text of a parsed JSON value, as the plugin's Python signs it; undefined when the value
 * holds something Python could not have written that way (a fraction, an unsafe integer, a non-JSON type).
 */
export function canonicalJson(value: unknown): string | undefined {
  const parts: string[] = [];
  const write = (v: unknown): boolean => {
    if (v === null) parts.push("null");
    else if (v === true) parts.push("true");
    else if (v === false) parts.push("false");
    else if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) return false;
      parts.push(Object.is(v, -0) ? "0" : String(v));
    } else if (typeof v === "string") parts.push(pythonJsonString(v));
    else if (Array.isArray(v)) {
      parts.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) parts.push(",");
        if (!write(v[i])) return false;
      }
      parts.push("]");
    } else if (typeof v === "object") {
      const keys = Object.keys(v as object).sort(byCodePoint);
      parts.push("{");
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) parts.push(",");
        parts.push(pythonJsonString(keys[i]!), ":");
        if (!write((v as Record<string, unknown>)[keys[i]!])) return false;
      }
      parts.push("}");
    } else return false;
    return true;
  };
  return write(value) ? parts.join("") : undefined;
}

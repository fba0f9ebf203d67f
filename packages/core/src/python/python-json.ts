/** A number that Python would print as a float (`70.0`, not `70`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

function pyFloatRepr(v: number): string {
  if (!Number.isFinite(v)) throw new RangeError(`${v} has no JSON form`);
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    // Python: 5e-05, 1e+16; JavaScript: 5e-5, 1e+16.
    return v
      .toExponential()
      .replace(/e([+-])(\d)$/, "e$10$2")
      .replace(/\.0e/, "e");
  }
  return String(v);
}

function pyString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Serialises like Python's `json.dumps(value, indent=2)`: ASCII only, floats with a decimal point.
 * The merge queue parses either; byte-level likeness keeps diffs against the reference script quiet.
 */
export function toPythonJson(value: unknown, indent = 2, depth = 0): string {
  const pad = " ".repeat(indent * (depth + 1));
  const end = " ".repeat(indent * depth);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`${value} has no JSON form`);
    return String(value);
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => pad + toPythonJson(v, indent, depth + 1)).join(",\n")}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${pyString(k)}: ${toPythonJson(v, indent, depth + 1)}`).join(",\n")}\n${end}}`;
}

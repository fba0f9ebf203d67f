// Escaping for the HTML view: every string from the project (paths, source code, test ids, owners)
// goes through one of these, and the data the page's script reads is JSON that no text can close.
import { sha256 } from "../proof-run/hmac.js";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML, for element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * A value as JSON for a `<script type="application/json">` element: `<`, `>` and `&` become `\u003c`
 * (and so on), so `</script>` or `<!--` in a string cannot end the element; the JSON parses the same.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : "=";
    out += i + 2 < bytes.length ? B64[n & 63]! : "=";
  }
  return out;
}

/** The CSP source that allows exactly this inline script: `'sha256-<base64>'`. */
export function scriptHashSource(script: string): string {
  return `'sha256-${base64(sha256(new TextEncoder().encode(script)))}'`;
}

/**
 * Escaping for the HTML report: text and attribute values, and JSON embedded
 * in a `<script type="application/json">` element (where `</script>` or
 * `<!--` inside a model's answer must not end the element).
 *
 * @module
 */

const HTML_ESCAPES = new Map([
  ["&", "&amp;"],
  ["<", "&lt;"],
  [">", "&gt;"],
  ['"', "&quot;"],
  ["'", "&#39;"],
]);

/** Text safe in HTML content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES.get(c)!);
}

/**
 * JSON text made safe for a `<script type="application/json">` element:
 * `<`, `>` and `&` are written as `\u003c` etc. (still valid JSON, since JSON
 * text has them only inside strings), and so are U+2028/U+2029.
 */
export function scriptSafe(json: string): string {
  return json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

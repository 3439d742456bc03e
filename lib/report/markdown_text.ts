/**
 * Text put into Markdown (`summary.md`, the `compare --format md` comment):
 * one line, table pipes escaped, and no HTML tag, so a system name, a model
 * id or an error message can neither break a table nor inject markup into a
 * rendered comment.
 *
 * @module
 */

/** Text safe inside a Markdown table cell or list item. */
export function markdownText(text: string): string {
  // "<" only opens a tag before a letter, "/" or "!": "p < 0.001" stays readable.
  return text.replace(/[\r\n]+/g, " ").replaceAll("|", "\\|").replace(/<(?=[A-Za-z/!?])/g, "&lt;");
}

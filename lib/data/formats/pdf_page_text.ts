/**
 * The text of one PDF page from PDF.js's text items, with its lines kept:
 * an item that ends a line (`hasEOL`) ends one here, each line loses its
 * trailing spaces, and blank lines in a row collapse to one.
 *
 * @module
 */

/** The part of a PDF.js text item read here (marked-content items have no `str`). */
export interface PdfTextItem {
  str?: unknown;
  hasEOL?: unknown;
}

/** A page's text from its items, by the rule in the module doc; trimmed. */
export function pageText(items: readonly PdfTextItem[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (typeof item.str !== "string") continue;
    parts.push(item.str);
    if (item.hasEOL === true) parts.push("\n");
  }
  const kept: string[] = [];
  let blank = 0;
  for (const line of parts.join("").split("\n")) {
    const trimmed = line.trimEnd();
    if (trimmed === "") {
      if (++blank > 1) continue;
    } else blank = 0;
    kept.push(trimmed);
  }
  return kept.join("\n").trim();
}

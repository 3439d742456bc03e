/**
 * `read_document`: a window of one document's text, so a long document is
 * read in several calls by moving `start`. Positions are UTF-16 code units
 * (JavaScript string indices), the same unit `list_documents` reports.
 *
 * Decisions a caller may rely on:
 * - `doc_id` is matched exactly, then ignoring surrounding spaces, then
 *   ignoring case when that picks out a single document; otherwise the call
 *   is a `not_found` error with a did-you-mean.
 * - `start` at or past the end of a non-empty document is an `invalid_args`
 *   error naming the document's length (an empty document reads as an empty
 *   window at start 0).
 * - A window never ends between the two halves of a surrogate pair, so it may
 *   be one unit shorter than asked; the "next start" hint accounts for it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import type { Document } from "../lib/types.ts";

/** Largest window one call may read. */
const MAX_LENGTH = 8000;
/** Ids listed in a not-found message when none is close. */
const MAX_IDS_LISTED = 10;

const parameters = z.strictObject({
  doc_id: z.string().min(1).max(1000).describe(
    "Document id, as listed by list_documents or cited in search results.",
  ),
  start: z.int().min(0).default(0).describe(
    "Character offset to start reading at (0 = the beginning).",
  ),
  length: z.int().min(1).max(MAX_LENGTH).default(2000).describe(
    `Characters to read (1-${MAX_LENGTH}).`,
  ),
});

/** The built-in `read_document` tool: a window of a document's text by id. */
export const readDocument = defineTool({
  name: "read_document",
  description: "Read a window of a document's text by id. A long document is read in several " +
    "calls by moving `start`; the reply says where the next window begins.",
  parameters,
  sideEffects: "none",
  run(args, ctx) {
    const documents = ctx.corpus.documents;
    const doc = findDocument(documents, args.doc_id);
    if (doc === undefined) return notFound(documents, args.doc_id);
    const text = doc.text;
    const total = text.length;
    if (total === 0) {
      return toolResult({
        output: `Document "${doc.id}" (${doc.title}) is empty (0 characters).`,
        data: { results: [{ doc_id: doc.id, start: 0, end: 0, length: 0 }] },
      });
    }
    if (args.start >= total) {
      return toolError(
        "invalid_args",
        `start ${args.start} is past the end of document "${doc.id}", which has ${total} ` +
          `characters: use a start from 0 to ${total - 1}.`,
      );
    }
    const start = args.start;
    let end = Math.min(start + args.length, total);
    // Do not split a surrogate pair across two windows.
    if (end < total && end - 1 > start && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const header = `Document "${doc.id}" (${doc.title}), characters ${start}-${end} of ${total}:`;
    const footer = end < total
      ? `[${total - end} more characters: call read_document with start=${end} to continue.]`
      : "[End of document.]";
    return toolResult({
      output: `${header}\n${text.slice(start, end)}\n${footer}`,
      data: { results: [{ doc_id: doc.id, start, end, length: total }] },
    });
  },
});

/** Index of documents by id, built once per documents array (the corpus is immutable in a run). */
const indexes = new WeakMap<readonly Document[], Map<string, Document>>();

function indexOf(documents: readonly Document[]): Map<string, Document> {
  let index = indexes.get(documents);
  if (index === undefined) {
    index = new Map();
    // First document wins on a duplicate id, as a linear search would.
    for (const doc of documents) if (!index.has(doc.id)) index.set(doc.id, doc);
    indexes.set(documents, index);
  }
  return index;
}

function findDocument(documents: readonly Document[], id: string): Document | undefined {
  const index = indexOf(documents);
  const exact = index.get(id) ?? index.get(id.trim());
  if (exact !== undefined) return exact;
  const lower = id.trim().toLowerCase();
  const folded = documents.filter((d) => d.id.toLowerCase() === lower);
  return folded.length === 1 ? folded[0] : undefined;
}

function notFound(documents: readonly Document[], id: string) {
  const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
  if (documents.length === 0) {
    return toolError("not_found", `No document "${shown}": the collection has no documents.`);
  }
  const hint = suggestId(documents, id.trim());
  const tail = hint !== undefined
    ? ` — did you mean "${hint}"?`
    : documents.length <= MAX_IDS_LISTED
    ? `. Known ids: ${documents.map((d) => `"${d.id}"`).join(", ")}.`
    : ". Use list_documents (its contains argument filters by id or title) to find the id.";
  return toolError("not_found", `No document has the id "${shown}"${tail}`);
}

/**
 * The id the model probably meant: a document whose title is the text given,
 * else the closest id by edit distance, with the same rule as `closestMatch`
 * (case-insensitive; within a third of the longer name; ties to the earlier
 * id). Each comparison stops once it cannot beat the best so far, so a miss on
 * a 100k-document corpus costs milliseconds, not a full matrix per id.
 */
function suggestId(documents: readonly Document[], id: string): string | undefined {
  const lower = id.toLowerCase();
  const byTitle = documents.find((d) => d.title.trim().toLowerCase() === lower);
  if (byTitle !== undefined) return byTitle.id;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const { id: candidate } of documents) {
    const limit = Math.max(1, Math.floor(Math.max(id.length, candidate.length) / 3));
    const bound = Math.min(limit, bestDistance - 1);
    if (bound < 0) break;
    const distance = boundedDistance(lower, candidate.toLowerCase(), bound);
    if (distance <= bound) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edit distance (insert, delete, substitute, swap adjacent) of `a` and `b`
 * when it is at most `bound`, else `bound + 1` (found as soon as a whole row
 * of the matrix exceeds `bound`).
 */
function boundedDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  if (bound === 0) return a === b ? 0 : 1;
  const width = b.length + 1;
  let before = new Int32Array(width);
  let previous = new Int32Array(width);
  let current = new Int32Array(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2] + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    // When every cell of this row exceeds bound so does every cell below it: a swap reaches
    // two rows back, but through a cell whose diagonal neighbour here is at most one more.
    if (rowMin > bound) return bound + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length], bound + 1);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

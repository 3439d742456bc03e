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
 * - In a document of pages (a PDF), the header names the pages the window
 *   covers and where each page after the first begins, so an answer can
 *   cite the page.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import type { Document } from "../lib/types.ts";
import { closestMatch } from "../lib/util/did_you_mean.ts";

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
    const header = `Document "${doc.id}" (${doc.title}), characters ${start}-${end} of ${total}` +
      `${pagesOf(doc, start, end)}:`;
    const footer = end < total
      ? `[${total - end} more characters: call read_document with start=${end} to continue.]`
      : "[End of document.]";
    return toolResult({
      output: `${header}\n${text.slice(start, end)}\n${footer}`,
      data: { results: [{ doc_id: doc.id, start, end, length: total }] },
    });
  },
});

/** Lookups of a documents array, built once per array (the corpus is immutable in a run). */
interface DocumentIndex {
  byId: Map<string, Document>;
  /** Lower-cased id → the documents with it (made at the first id that misses). */
  byLowerId?: Map<string, Document[]>;
  /** Lower-cased, trimmed title → the first document with it. */
  byLowerTitle?: Map<string, Document>;
}

const indexes = new WeakMap<readonly Document[], DocumentIndex>();

function indexOf(documents: readonly Document[]): DocumentIndex {
  let index = indexes.get(documents);
  if (index === undefined) {
    const byId = new Map<string, Document>();
    // First document wins on a duplicate id, as a linear search would.
    for (const doc of documents) if (!byId.has(doc.id)) byId.set(doc.id, doc);
    index = { byId };
    indexes.set(documents, index);
  }
  return index;
}

/** The index with its case-folded maps, made once: a miss must not scan the corpus each time. */
function foldedIndex(documents: readonly Document[]): Required<DocumentIndex> {
  const index = indexOf(documents);
  if (index.byLowerId === undefined || index.byLowerTitle === undefined) {
    const byLowerId = new Map<string, Document[]>();
    const byLowerTitle = new Map<string, Document>();
    for (const doc of documents) {
      const id = doc.id.toLowerCase();
      const same = byLowerId.get(id);
      if (same === undefined) byLowerId.set(id, [doc]);
      else same.push(doc);
      const title = doc.title.trim().toLowerCase();
      if (!byLowerTitle.has(title)) byLowerTitle.set(title, doc);
    }
    index.byLowerId = byLowerId;
    index.byLowerTitle = byLowerTitle;
  }
  return index as Required<DocumentIndex>;
}

function findDocument(documents: readonly Document[], id: string): Document | undefined {
  const { byId } = indexOf(documents);
  const exact = byId.get(id) ?? byId.get(id.trim());
  if (exact !== undefined) return exact;
  const folded = foldedIndex(documents).byLowerId.get(id.trim().toLowerCase());
  return folded?.length === 1 ? folded[0] : undefined;
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
 * Corpora up to this many documents get an edit-distance did-you-mean for a
 * missing id (~0.5 µs an id); a larger one only a title match, and the model
 * is pointed to list_documents: a model may miss on every call.
 */
const MAX_SUGGESTED_FROM = 100_000;

/**
 * The id the model probably meant: a document whose title is the text given,
 * else (in a corpus of at most {@link MAX_SUGGESTED_FROM} documents) the
 * closest id by `closestMatch`'s rule: case-insensitive, within a third of
 * the longer name, ties to the earlier id.
 */
function suggestId(documents: readonly Document[], id: string): string | undefined {
  const byTitle = foldedIndex(documents).byLowerTitle.get(id.toLowerCase());
  if (byTitle !== undefined) return byTitle.id;
  if (documents.length > MAX_SUGGESTED_FROM) return undefined;
  return closestMatch(id, idsOf(documents));
}

function* idsOf(documents: readonly Document[]): Generator<string> {
  for (const doc of documents) yield doc.id;
}

/** Page starts named in a header, at most. */
const MAX_PAGE_STARTS = 5;

/** `, page N` or `, pages N-M (page N+1 starts at character C, ...)`; empty without pages. */
function pagesOf(doc: Document, start: number, end: number): string {
  const pages = doc.pages;
  if (pages === undefined || pages.length === 0) return "";
  // The page holding `start`: the last whose start is at or before it.
  let lo = 0;
  let hi = pages.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pages[mid] <= start) lo = mid;
    else hi = mid - 1;
  }
  const first = lo;
  let last = first;
  while (last + 1 < pages.length && pages[last + 1] < end) last++;
  if (last === first) return `, page ${first + 1}`;
  const starts: string[] = [];
  for (let p = first + 1; p <= last && starts.length < MAX_PAGE_STARTS; p++) {
    starts.push(
      `${starts.length === 0 ? "page " : ""}${p + 1} ${
        starts.length === 0 ? "starts at character " : "at "
      }${pages[p]}`,
    );
  }
  const more = last - first > MAX_PAGE_STARTS ? ", …" : "";
  return `, pages ${first + 1}-${last + 1} (${starts.join(", ")}${more})`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

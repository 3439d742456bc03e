/**
 * `list_documents`: what the collection holds (id, title, length), in corpus
 * order, a page at a time. Lengths are in the same characters (UTF-16 code
 * units) that `read_document` counts `start` and `length` in.
 *
 * An `offset` at or past the end of a non-empty listing is an `invalid_args`
 * error naming how many documents there are; an empty collection or a
 * `contains` that matches nothing is a normal (empty) result.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import type { Document } from "../lib/types.ts";

const MAX_LIMIT = 1000;
const MAX_TITLE_CHARS = 200;

const parameters = z.strictObject({
  contains: z.string().max(500).optional().describe(
    "Only documents whose id or title contains this text (case-insensitive).",
  ),
  limit: z.int().min(1).max(MAX_LIMIT).default(50).describe(
    `Most documents to list (1-${MAX_LIMIT}).`,
  ),
  offset: z.int().min(0).default(0).describe(
    "Documents to skip, to page through a long list (use the offset the previous page suggests).",
  ),
});

/** The built-in `list_documents` tool: a page of document ids, titles and lengths. */
export const listDocuments = defineTool({
  name: "list_documents",
  description: "List the documents in the collection: id, title and length in characters, in " +
    "order. Use it to see what exists before reading a document with read_document.",
  parameters,
  sideEffects: "none",
  run(args, ctx) {
    const all = ctx.corpus.documents;
    const needle = args.contains?.trim().toLowerCase();
    const matching = needle ? all.filter((d) => matches(d, needle)) : all;
    const total = matching.length;
    const filter = needle ? ` whose id or title contains "${args.contains?.trim()}"` : "";
    if (total === 0) {
      const output = needle
        ? `No document${filter} (the collection has ${plural(all.length, "document")}).`
        : "The collection has no documents.";
      return toolResult({ output, data: { results: [], total } });
    }
    if (args.offset >= total) {
      return toolError(
        "invalid_args",
        `offset ${args.offset} is past the end: there ${total === 1 ? "is" : "are"} ` +
          `${plural(total, "document")}${filter}. Use an offset from 0 to ${total - 1}.`,
      );
    }
    const page = matching.slice(args.offset, args.offset + args.limit);
    const end = args.offset + page.length;
    const lines = [
      `Documents ${args.offset + 1}-${end} of ${total}${filter}:`,
      ...page.map((d) => `${d.id} | ${titleOf(d)} | ${plural(d.text.length, "char")}`),
    ];
    if (end < total) {
      lines.push(`${total - end} more: call list_documents with offset ${end} to see them.`);
    }
    return toolResult({
      output: lines.join("\n"),
      data: {
        results: page.map((d) => ({ doc_id: d.id, title: d.title, chars: d.text.length })),
        total,
      },
    });
  },
});

function matches(doc: Document, needle: string): boolean {
  return doc.id.toLowerCase().includes(needle) || doc.title.toLowerCase().includes(needle);
}

/** A title on one line, bounded, so each document stays one output line. */
function titleOf(doc: Document): string {
  const title = doc.title.replace(/\s+/g, " ").trim();
  return title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS)}…` : title;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

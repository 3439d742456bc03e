/**
 * Builds tool contexts and small corpora for tool tests.
 *
 * @module
 */

import type { ToolContext } from "../../tools/define_tool.ts";
import type { Corpus, Document, Table } from "../../lib/types.ts";

/** A corpus from documents given as `{id, text}` (title defaults to the id). */
export function corpusOf(
  docs: Array<Partial<Document> & { id: string; text: string }>,
  tables: Table[] = [],
): Corpus {
  return {
    documents: docs.map((d) => ({
      id: d.id,
      title: d.title ?? d.id,
      text: d.text,
      source: d.source ?? `${d.id}.txt`,
    })),
    tables,
  };
}

/** A tool context over `corpus` with "today" = 2026-01-01 unless given. */
export function contextFor(
  corpus: Corpus,
  init: { now?: string; options?: Record<string, unknown>; signal?: AbortSignal } = {},
): ToolContext {
  return {
    corpus,
    now: Temporal.PlainDate.from(init.now ?? "2026-01-01"),
    state: new Map(),
    signal: init.signal ?? new AbortController().signal,
    options: init.options ?? {},
  };
}

/**
 * Builds tool contexts and small corpora for tool tests.
 *
 * @module
 */

import type { ToolContext } from "../../tools/define_tool.ts";
import type { ToolHost } from "../../tools/host.ts";
import { createToolbox, type Toolbox } from "../../tools/toolbox.ts";
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

/**
 * A toolbox offering the tools `names` served by `host` (no parameters; corpus_grep with 50
 * results), each call bounded by `timeoutMs`: a bound, not a claim — a loaded machine can take
 * seconds to start a worker, so the default is long and the tests of timeouts give their own.
 */
export function toolboxOver(host: ToolHost, names: string[], timeoutMs = 30_000): Toolbox {
  return createToolbox(
    names.map((name) => ({
      name,
      description: name,
      sideEffects: "none" as const,
      parameters: {},
      options: name === "corpus_grep" ? { max_results: 50 } : {},
      timeoutMs,
      host,
    })),
    { max_output_chars: 4000 },
  );
}

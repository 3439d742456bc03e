/**
 * The built-in `search` tool: BM25 over the corpus's passages (see
 * `lib/retrieval/`), the same deterministic retriever for every system.
 *
 * Output, one block per passage, best first, separated by a blank line:
 *
 *     [1] doc_id: eiffel_tower | passage: eiffel_tower#0 | score: 7.412
 *     The Eiffel Tower is ...
 *
 * Scores are rounded to three decimals (the ranking uses the exact values).
 * Whitespace runs in the passage text are shown as single spaces, so line
 * breaks do not spend the output budget. `data.results` holds the same
 * passages with their unaltered text, in rank order.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import { retrieverFor } from "../lib/retrieval/retriever.ts";
import { tokenize } from "../lib/retrieval/tokenizer.ts";

/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 1000;
/** Most passages one call returns. */
export const MAX_TOP_K = 50;

/** A score as shown and recorded: three decimals, exact ranking kept elsewhere. */
export function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** The `search` tool. */
export const search = defineTool({
  name: "search",
  description:
    "Search the document collection and return the best matching passages with their document ids. Cite those ids in the answer.",
  parameters: z.strictObject({
    query: z.string()
      .min(1, "must not be empty")
      .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
      .describe("What to search for: a short natural-language query or the key terms."),
    top_k: z.int()
      .min(1)
      .max(MAX_TOP_K)
      .default(5)
      .describe(`How many passages to return (1-${MAX_TOP_K}, default 5).`),
  }),
  sideEffects: "none",
  prepare(corpus) {
    retrieverFor(corpus);
  },
  run(args, ctx) {
    if (tokenize(args.query).length === 0) {
      return toolError(
        "invalid_args",
        `The query "${args.query}" has no searchable words: it is only common words ` +
          `(such as "the", "of", "what") or punctuation. Search again with content words: ` +
          `names, places, things, numbers.`,
      );
    }
    const hits = retrieverFor(ctx.corpus).search(args.query, args.top_k);
    const results = hits.map((hit) => ({
      doc_id: hit.passage.doc_id,
      passage_id: hit.passage.id,
      score: roundScore(hit.score),
      text: hit.passage.text,
    }));
    if (results.length === 0) {
      return toolResult({
        output: `No passage matched "${args.query}". Try other words, synonyms or fewer terms.`,
        data: { results: [] },
      });
    }
    const output = results.map((r, i) =>
      `[${i + 1}] doc_id: ${r.doc_id} | passage: ${r.passage_id} | score: ${r.score}\n` +
      r.text.replace(/\s+/g, " ").trim()
    ).join("\n\n");
    return toolResult({ output, data: { results } });
  },
});

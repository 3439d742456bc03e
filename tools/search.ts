/**
 * The built-in `search` tool: the passages a retriever ranks best for the
 * model's query. In a run, each system's `search` is bound to that system's
 * retriever (its `retriever:` option, by default BM25) and served in the
 * main process by `retrieval_host.ts`, where the run's retrievers were built
 * once; {@link search} itself, run outside a run (`ragbench tool search`,
 * tests), searches the corpus's default BM25 retriever.
 *
 * Output, one block per passage, best first, separated by a blank line:
 *
 *     [1] doc_id: eiffel_tower | passage: eiffel_tower#0 | score: 7.412
 *     The Eiffel Tower is ...
 *
 * A passage of a document of pages (a PDF) names its page after the
 * passage id: `| passage: manual#4 | page: 3 | score: ...`.
 *
 * Scores are rounded to three decimals (the ranking uses the exact values).
 * The passage text keeps its lines (a Markdown table or code block is not
 * run into one line) and drops only trailing and repeated blank space
 * (`lib/util/shown_text.ts`). `data.results` holds the same passages with
 * their unaltered text, in rank order. The call's cost is the
 * retriever's (embedding the query, for a vector retriever).
 *
 * An output over the run's `tools.max_output_chars` is cut between two
 * passages, never inside one (the result says where each passage ends): the
 * passages the model was not shown move to `data.not_shown`, and only those
 * it was shown count for the retrieval metrics (`tools/output_cut.ts`).
 *
 * @module
 */

import { z } from "zod";
import {
  defineTool,
  type ToolDef,
  toolError,
  toolResult,
  type ToolReturnValue,
} from "./define_tool.ts";
import { retrieverFor } from "../lib/retrieval/retriever.ts";
import type { Passage } from "../lib/lexical/passages.ts";
import type { Retriever } from "../lib/retrieval/types.ts";
import { shownText } from "../lib/util/shown_text.ts";

/** Longest query a model may send, in characters (systems that retrieve themselves have no limit). */
export const MAX_QUERY_CHARS = 1000;
/** Most passages one call returns. */
export const MAX_TOP_K = 50;

/** A score as shown and recorded: three decimals, exact ranking kept elsewhere. */
export function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

const NAME = "search";
const DESCRIPTION =
  "Search the document collection and return the best matching passages with their document ids. Cite those ids in the answer.";
const PARAMETERS = z.strictObject({
  query: z.string()
    .min(1, "must not be empty")
    .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
    .describe("What to search for: a short natural-language query or the key terms."),
  top_k: z.int()
    .min(1)
    .max(MAX_TOP_K)
    .default(5)
    .describe(`How many passages to return (1-${MAX_TOP_K}, default 5).`),
});

/** The arguments of a search call, after validation. */
export type SearchArgs = z.output<typeof PARAMETERS>;

/** The `search` tool over the corpus's default BM25 retriever (used outside runs). */
export const search = defineTool({
  name: NAME,
  description: DESCRIPTION,
  parameters: PARAMETERS,
  sideEffects: "none",
  run(args, ctx) {
    return runSearch(retrieverFor(ctx.corpus), args, ctx.signal);
  },
});

/** The `search` tool bound to `retriever`: same name, description and schema as {@link search}. */
export function searchOver(retriever: Retriever): ToolDef {
  return defineTool({
    name: NAME,
    description: DESCRIPTION,
    parameters: PARAMETERS,
    sideEffects: "none",
    run(args, ctx) {
      return runSearch(retriever, args, ctx.signal);
    },
  }) as unknown as ToolDef;
}

/**
 * Each passage's text as the model reads it. A retriever's passages are
 * built once and come back in search after search, so each is prepared once.
 */
const shownTexts = new WeakMap<Passage, string>();

function shown(passage: Passage): string {
  let text = shownTexts.get(passage);
  if (text === undefined) {
    text = shownText(passage.text);
    shownTexts.set(passage, text);
  }
  return text;
}

/**
 * One search call over `retriever`, as the model sees it. A query with no
 * searchable words (for a lexical retriever) and a failing retriever become
 * error results; an aborted call rejects (the caller reports the timeout).
 */
export async function runSearch(
  retriever: Retriever,
  args: SearchArgs,
  signal: AbortSignal,
): Promise<ToolReturnValue> {
  if (retriever.queryTerms && retriever.queryTerms(args.query).length === 0) {
    return toolError(
      "invalid_args",
      `The query "${args.query}" has no searchable words: it is only common words ` +
        `(such as "the", "of", "what"), single letters or punctuation. Search again with content ` +
        `words: names, places, things, numbers.`,
    );
  }
  let outcome;
  try {
    outcome = await retriever.search(args.query, args.top_k, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    return toolError(
      "unavailable",
      "Search is unavailable right now (the retriever failed). Try again, or answer with what you have.",
      { detail: `retriever "${retriever.name}": ${(error as Error)?.message ?? String(error)}` },
    );
  }
  const results = outcome.hits.map((hit) => ({
    doc_id: hit.passage.doc_id,
    passage_id: hit.passage.id,
    ...(hit.passage.page === undefined ? {} : { page: hit.passage.page }),
    score: roundScore(hit.score),
    text: hit.passage.text,
  }));
  if (results.length === 0) {
    return toolResult({
      output: `No passage matched "${args.query}". Try other words, synonyms or fewer terms.`,
      data: { results: [] },
      cost_usd: outcome.cost_usd,
    });
  }
  const blocks = results.map((r, i) =>
    `[${i + 1}] doc_id: ${r.doc_id} | passage: ${r.passage_id}${
      r.page === undefined ? "" : ` | page: ${r.page}`
    } | score: ${r.score}\n` + shown(outcome.hits[i].passage)
  );
  const ends: number[] = [];
  let end = -2;
  for (const block of blocks) ends.push(end += block.length + 2);
  return toolResult({
    output: blocks.join("\n\n"),
    data: { results },
    cost_usd: outcome.cost_usd,
    result_ends: ends,
  });
}

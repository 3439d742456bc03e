/**
 * The `bm25:` section of a retriever: the BM25 parameters and the text
 * analysis of `bm25.ts` and `tokenizer.ts` (read by the `bm25` and `hybrid`
 * retriever kinds, `lib/retrieval/kinds/`).
 *
 * @module
 */

import { z } from "zod";

/** BM25 parameters and text analysis. */
export const bm25Schema = z.strictObject({
  /** Term-frequency saturation (the default of rank_bm25 and bm25s; see lib/lexical/bm25.ts). */
  k1: z.number().min(0).max(10).default(1.5),
  /** Length normalisation, 0 (none) to 1 (full). */
  b: z.number().min(0).max(1).default(0.75),
  /** `snowball` (English Porter2), `plural` (plural endings only) or `none`. */
  stemmer: z.enum(["snowball", "plural", "none"]).default("snowball"),
  /** `english` drops the built-in English stopword list; `none` keeps every word. */
  stopwords: z.enum(["english", "none"]).default("english"),
  /** `keep`: "e.g.", "U.S." are one token each (`e.g`, `u.s`); `split`: the dots separate letters. */
  abbreviations: z.enum(["keep", "split"]).default("keep"),
  /** `drop`: words of one letter ("I", the "x" of "x-ray") are not indexed; `keep`: they are. */
  single_letters: z.enum(["drop", "keep"]).default("drop"),
  /** `once`: a word the query repeats counts once (SQLite FTS5); `count`: each time (Lucene). */
  query_repeats: z.enum(["once", "count"]).default("once"),
  /**
   * How `retrieval_only` ranks documents: `whole` by BM25 over each whole document (title and
   * text as one unit, its own N, df and avgdl); `best_passage` by the score of its best passage.
   * Passages are still what `search` and `rag` rank.
   */
  document_ranking: z.enum(["whole", "best_passage"]).default("whole"),
});

/** `bm25:` after defaults. */
export type Bm25Config = z.output<typeof bm25Schema>;

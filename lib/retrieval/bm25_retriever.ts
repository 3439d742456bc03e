/**
 * The `kind: bm25` retriever: an Okapi BM25 index (`bm25.ts`) over the
 * passages that the retriever's `chunk:` settings cut, with its `bm25:`
 * settings (`k1`, `b`, stemmer, stopwords).
 *
 * @module
 */

import type { Bm25Config } from "../config/retriever_schema.ts";
import { Bm25Index } from "./bm25.ts";
import type { Passage } from "./passages.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";

/** What a BM25 retriever is built from. */
export interface Bm25RetrieverSpec {
  name: string;
  /** Passages returned when the caller does not ask for a number. */
  topK: number;
  bm25: Readonly<Bm25Config>;
  passages: readonly Passage[];
}

/** Builds the index at once (synchronously: bounded by the corpus size) and wraps it. */
export function createBm25Retriever(spec: Bm25RetrieverSpec): Retriever & {
  readonly index: Bm25Index;
} {
  const index = new Bm25Index(spec.passages, {
    k1: spec.bm25.k1,
    b: spec.bm25.b,
    analysis: { stemmer: spec.bm25.stemmer, stopwords: spec.bm25.stopwords },
  });
  return {
    name: spec.name,
    kind: "bm25",
    topK: spec.topK,
    passages: spec.passages,
    index,
    // deno-lint-ignore require-await
    async search(query: string, k: number, signal: AbortSignal): Promise<RetrievalOutcome> {
      signal.throwIfAborted();
      return { hits: index.search(query, k), embedding_tokens: 0, cost_usd: 0 };
    },
    queryTerms(query: string): readonly string[] {
      return index.queryTerms(query);
    },
  };
}

/**
 * The seam of the retrieval stack: what a retriever looks like to the systems
 * and tools that use it. The retriever kinds live beside this file (BM25,
 * vector, hybrid); what an embedder looks like is `lib/dense/embedder.ts`.
 *
 * @module
 */

import type { Passage } from "../lexical/passages.ts";
import type { RetryReport } from "../llm/retry_policy.ts";

/** One ranked passage. */
export interface RetrievalHit {
  passage: Passage;
  /** Higher is better; the scale depends on the retriever kind. */
  score: number;
}

/** What one retrieval returned and cost. */
export interface RetrievalOutcome {
  /** Best first; ties broken by passage order (corpus order, then position in the document). */
  hits: RetrievalHit[];
  /** Embedding tokens spent on the query (0 for BM25 or a cache hit). */
  embedding_tokens: number;
  /** US dollars; null when the embedding model's (or the reranker's) price is unknown. */
  cost_usd: number | null;
  /** Retries of the service calls of a retriever that calls one over HTTP (rerank, http). */
  attempts?: RetryReport;
}

/** A named retriever, built once per run and shared by every system that names it. */
export interface Retriever {
  readonly name: string;
  /** Its kind (`lib/retrieval/kinds/`): `bm25`, `vector`, `hybrid`, ... */
  readonly kind: string;
  /** Passages returned when the caller does not ask for a number. */
  readonly topK: number;
  /**
   * Every passage, in the order that breaks ties. Empty for a retriever over
   * an engine's own index (an existing table or index, the user's service):
   * ragbench does not know its passages, only those it returns.
   */
  readonly passages: readonly Passage[];
  /**
   * The `k` best passages for `query` (any length), best first. Rejects when
   * `signal` aborts or a dependency fails (an embedding endpoint, say); a
   * query with nothing to match resolves with no hits.
   *
   * @throws {RangeError} when `k` is not a whole number >= 1.
   */
  search(query: string, k: number, signal: AbortSignal): Promise<RetrievalOutcome>;
  /**
   * BM25 with `document_ranking: whole` only: the `k` best whole documents
   * for `query`, best first, each hit's `passage` being the whole document
   * (its id is the document id). Retrievers without it rank documents by
   * their best passage (from {@link search}). Rejects like `search`.
   */
  searchDocuments?(query: string, k: number, signal: AbortSignal): Promise<RetrievalOutcome>;
  /**
   * Builds what {@link searchDocuments} needs now instead of at its first
   * call, so that no question's latency includes it (the plan calls it for
   * systems that rank documents). Synchronous, bounded by the corpus size.
   */
  prepareDocuments?(): void;
  /**
   * Lexical retrievers only: the terms `query` is searched with, after
   * stopwords and stemming (empty: the query has nothing searchable, which
   * the `search` tool reports to the model instead of an empty result).
   */
  queryTerms?(query: string): readonly string[];
  /** Closes what it holds open (an engine's connections); the run calls it at its end. */
  close?(): Promise<void>;
}

/**
 * The lexical retriever of a corpus, built once per corpus object and shared
 * by every tool call, question and system that searches that corpus.
 *
 * The cache is a `WeakMap` keyed by the `Corpus` object itself: the index
 * lives exactly as long as the corpus, and a different corpus object (even
 * with equal content, such as a copy posted to a worker) gets its own index.
 * A corpus is treated as immutable once searched: changing its documents
 * afterwards is not noticed.
 *
 * @module
 */

import type { Corpus } from "../types.ts";
import { Bm25Index, type SearchHit } from "./bm25.ts";
import { type Passage, passagesOf } from "./passages.ts";

/** Ranks a corpus's passages for a query. */
export interface Retriever {
  /** Every passage of the corpus, in corpus order (the order that breaks ties). */
  readonly passages: readonly Passage[];
  /** The `k` best passages for `query`, best first; empty when nothing matches. */
  search(query: string, k: number): SearchHit[];
}

const cache = new WeakMap<Corpus, Retriever>();

/**
 * The BM25 retriever over `corpus`'s passages (default passage sizes and
 * BM25 parameters), built on first use and cached for the corpus object.
 */
export function retrieverFor(corpus: Corpus): Retriever {
  let retriever = cache.get(corpus);
  if (retriever === undefined) {
    retriever = new Bm25Index(passagesOf(corpus));
    cache.set(corpus, retriever);
  }
  return retriever;
}

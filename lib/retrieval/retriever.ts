/**
 * The default retriever of a corpus outside a run: BM25 with every default
 * of `retrieverSchema` (Snowball stemming, English stopwords, 200-word
 * passages), built once per corpus object. Runs build their retrievers in
 * `registry.ts` instead; this serves callers that have a corpus and no
 * config: the `search` tool run on its own (`ragbench tools`, in-process
 * tests) and the benchmarks.
 *
 * The cache is a `WeakMap` keyed by the `Corpus` object itself: the index
 * lives exactly as long as the corpus. A corpus is treated as immutable once
 * searched.
 *
 * @module
 */

import { DEFAULT_TOP_K, type RetrieverOf, retrieverSchema } from "../config/retriever_schema.ts";
import type { Corpus } from "../types.ts";
import { createBm25Retriever } from "./bm25_retriever.ts";
import { chunkCorpus } from "../lexical/chunking.ts";
import type { Retriever } from "./types.ts";

const cache = new WeakMap<Corpus, Retriever>();

/** The default BM25 retriever over `corpus` (named `default`), built on first use. */
export function retrieverFor(corpus: Corpus): Retriever {
  let retriever = cache.get(corpus);
  if (retriever === undefined) {
    const config = retrieverSchema.parse({}) as RetrieverOf<"bm25">;
    retriever = createBm25Retriever({
      name: "default",
      topK: config.top_k ?? DEFAULT_TOP_K,
      bm25: config.bm25,
      passages: chunkCorpus(corpus, config.chunk),
      documents: corpus.documents,
    });
    cache.set(corpus, retriever);
  }
  return retriever;
}

/**
 * The default retriever of a corpus outside a run: BM25 with every default
 * of a `retrievers:` entry (Snowball stemming, English stopwords, 200-word
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

import { bm25Schema } from "../lexical/bm25_config.ts";
import { chunkSchema } from "../lexical/chunk_config.ts";
import { DEFAULT_TOP_K } from "./kinds/kind.ts";
import type { Corpus } from "../types.ts";
import { createBm25Retriever } from "./bm25_retriever.ts";
import { chunkCorpus } from "../lexical/chunking.ts";
import type { Retriever } from "./types.ts";

const cache = new WeakMap<Corpus, Retriever>();

/** The default BM25 retriever over `corpus` (named `default`), built on first use. */
export function retrieverFor(corpus: Corpus): Retriever {
  let retriever = cache.get(corpus);
  if (retriever === undefined) {
    retriever = createBm25Retriever({
      name: "default",
      topK: DEFAULT_TOP_K,
      bm25: bm25Schema.parse({}),
      passages: chunkCorpus(corpus, chunkSchema.parse({})),
      documents: corpus.documents,
    });
    cache.set(corpus, retriever);
  }
  return retriever;
}

/**
 * `kind: bm25`: Okapi BM25 over the passages `chunk:` cuts, with the `bm25:`
 * settings (`lib/retrieval/bm25_retriever.ts`). Needs nothing outside this
 * process; a build depends on `chunk` and `bm25` alone.
 *
 * @module
 */

import { bm25Schema } from "../../lexical/bm25_config.ts";
import type { Retriever } from "../types.ts";
import {
  DEFAULT_TOP_K,
  defineRetrieverKind,
  type KindConfig,
  type RetrieverBuildRequest,
} from "./kind.ts";

const sections = { bm25: bm25Schema.prefault({}) };

/**
 * Builds a `kind: bm25` retriever (the index is built at once, bounded by the
 * corpus). Takes any retriever config: the config's schema gives every entry
 * every kind's sections (a test may build a hybrid's config as BM25).
 */
export async function buildBm25Retriever(request: RetrieverBuildRequest): Promise<Retriever> {
  request.signal.throwIfAborted();
  const config = request.config as KindConfig<typeof sections>;
  // Loaded with the first build, not with the config: `validate` needs no BM25 engine.
  const { createBm25Retriever } = await import("../bm25_retriever.ts");
  return createBm25Retriever({
    name: request.name,
    topK: config.top_k ?? DEFAULT_TOP_K,
    bm25: config.bm25,
    passages: request.passages,
    documents: request.corpus.documents,
    ...(request.saved ? { saved: request.saved } : {}),
  });
}

/** The BM25 retriever kind. */
export const bm25Kind = defineRetrieverKind({
  kind: "bm25",
  keys: {},
  chunked: () => true,
  wraps: false,
  persisted: (config) => config,
  sections,
  settings: ({ kind, chunk, bm25 }) => ({ kind, chunk, bm25 }),
  embeddings: () => [],
  needs: () => [],
  build: buildBm25Retriever,
  indexing: () => null,
});

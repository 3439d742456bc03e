/**
 * `kind: hybrid`: the BM25 and the vector ranking of the same passages,
 * merged by Reciprocal Rank Fusion with the `fusion:` settings
 * (`lib/retrieval/hybrid_retriever.ts`). Its parts are the run's builds of
 * the same settings as `bm25` and `vector` (`RetrieverBuildRequest.part`),
 * shared with any BM25 or vector retriever of those settings; what embedding
 * cost is reported by the vector part. A build depends on `chunk`, `bm25`,
 * the effective embedding and `fusion`.
 *
 * @module
 */

import { fusionSchema } from "../../dense/fusion_config.ts";
import { bm25Kind } from "./bm25.ts";
import { defineRetrieverKind } from "./kind.ts";
import { vectorKind } from "./vector.ts";

/** The hybrid retriever kind. */
export const hybridKind = defineRetrieverKind({
  kind: "hybrid",
  keys: {},
  chunked: () => true,
  wraps: false,
  persisted: (config) => config,
  // Its parts' sections (the same schemas: one section, one schema) and its own.
  sections: { ...bm25Kind.sections, ...vectorKind.sections, fusion: fusionSchema.prefault({}) },
  settings: ({ kind, chunk, bm25, embedding, fusion }, ctx) => ({
    kind,
    chunk,
    bm25,
    embedding: ctx.effective(embedding),
    fusion,
  }),
  embeddings: (config) => [config.embedding],
  needs: () => [],
  async build(request) {
    const [lexical, dense] = await Promise.all([
      request.part(bm25Kind),
      request.part(vectorKind),
    ]);
    const { buildHybridRetriever } = await import("../hybrid_retriever.ts");
    return await buildHybridRetriever(request.name, request.config, request.passages, {
      embedderFor: request.embedders.embedderFor,
      signal: request.signal,
      bm25: lexical,
      vector: dense,
    });
  },
  indexing: () => null,
});

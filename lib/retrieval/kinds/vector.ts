/**
 * `kind: vector`: every passage embedded once with the `embedding:`
 * settings, exact cosine top-k (`lib/retrieval/vector_retriever.ts`, loaded
 * only by a run that builds one). A build depends on `chunk` and the
 * embedding the run really uses (after the `--mock` substitution); it calls
 * that embedding's endpoint (its permissions and price are the
 * embedding's), and reports what embedding the passages cost.
 *
 * @module
 */

import { embeddingSchema } from "../../dense/embedding_config.ts";
import type { VectorRetriever } from "../vector_retriever.ts";
import { defineRetrieverKind } from "./kind.ts";

/** The vector retriever kind. */
export const vectorKind = defineRetrieverKind({
  kind: "vector",
  keys: {},
  chunked: () => true,
  wraps: false,
  persisted: (config) => config,
  sections: { embedding: embeddingSchema.prefault({}) },
  settings: ({ kind, chunk, embedding }, ctx) => ({
    kind,
    chunk,
    embedding: ctx.effective(embedding),
  }),
  embeddings: (config) => [config.embedding],
  needs: () => [],
  async build(request): Promise<VectorRetriever> {
    // The dense retrievers' modules load only in a run that builds one.
    const { buildVectorRetriever } = await import("../vector_retriever.ts");
    return await buildVectorRetriever(request.name, request.config, request.passages, {
      embedderFor: request.embedders.embedderFor,
      signal: request.signal,
      ...(request.progress ? { onProgress: request.progress } : {}),
      ...(request.saved ? { saved: request.saved } : {}),
    });
  },
  indexing: (built) => ({ embedder: built.embedder.id, ...built.indexing }),
});

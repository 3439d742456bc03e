/**
 * The `hybrid` retriever: the BM25 and the vector ranking of the same
 * passages, merged by Reciprocal Rank Fusion (fusion.ts) with the config's
 * `fusion: {k, weights}`. Each ranking is retrieved to a depth of
 * max(k asked, {@link HYBRID_DEPTH}) so a passage ranked well by one
 * retriever and moderately by the other can still rise; the fused list is
 * cut to k. Scores are fused RRF scores (at most Σ weights / (k_rrf + 1)).
 *
 * @module
 */

import type { FusionConfig } from "../dense/fusion_config.ts";
import { DEFAULT_TOP_K } from "./kinds/kind.ts";
import { addCost } from "../llm/model.ts";
import { reciprocalRankFusion } from "../dense/fusion.ts";
import type { Passage } from "../lexical/passages.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";
import {
  buildVectorRetriever,
  type VectorRetriever,
  type VectorRetrieverDeps,
  type VectorSettings,
} from "./vector_retriever.ts";

/** Depth to which each ranking is retrieved before fusion (when k asked is smaller). */
export const HYBRID_DEPTH = 100;

/**
 * Builds the hybrid retriever `name` from `bm25` (built by the caller over
 * the same `passages`, in the same order) and a vector index it builds.
 *
 * @throws {TypeError} when `bm25` does not rank the same passages, or `vector`
 *   is over other passages or uses another embedder.
 * @throws {RagbenchError} ("model") when the passages cannot be embedded.
 */
export async function buildHybridRetriever(
  name: string,
  config: VectorSettings & { fusion: FusionConfig },
  passages: readonly Passage[],
  deps: VectorRetrieverDeps & {
    bm25: Retriever;
    /**
     * A vector retriever already built over the same passages with the same
     * embedder, to share instead of embedding and indexing the passages again.
     */
    vector?: VectorRetriever;
  },
): Promise<Retriever> {
  const { bm25 } = deps;
  if (
    bm25.passages.length !== passages.length ||
    bm25.passages.some((p, i) => p.id !== passages[i].id)
  ) {
    throw new TypeError(`hybrid retriever ${name}: the BM25 retriever ranks other passages`);
  }
  const shared = deps.vector;
  if (
    shared !== undefined &&
    (shared.passages !== passages || shared.embedder !== deps.embedderFor(config.embedding))
  ) {
    throw new TypeError(`hybrid retriever ${name}: the shared vector retriever differs`);
  }
  const vector: VectorRetriever = shared ??
    await buildVectorRetriever(name, config, passages, deps);
  const order = new Map(passages.map((p, i) => [p.id, i]));
  const { k: rrfK, weights } = config.fusion;
  return {
    name,
    kind: "hybrid",
    topK: config.top_k ?? DEFAULT_TOP_K,
    passages,
    async search(query, k, signal): Promise<RetrievalOutcome> {
      const depth = Math.max(k, HYBRID_DEPTH);
      // The vector search first: a remote query embedding is then in flight while BM25 runs.
      const denseSearch = vector.search(query, depth, signal);
      const lexicalSearch = bm25.search(query, depth, signal);
      const [lexical, dense] = await Promise.all([lexicalSearch, denseSearch]);
      const numbers = (outcome: RetrievalOutcome) =>
        outcome.hits.map((hit) => order.get(hit.passage.id) ?? -1).filter((i) => i >= 0);
      const fused = reciprocalRankFusion(
        [
          { items: numbers(lexical), weight: weights.bm25 },
          { items: numbers(dense), weight: weights.vector },
        ],
        rrfK,
        k,
      );
      return {
        hits: fused.map((item) => ({ passage: passages[item.index], score: item.score })),
        embedding_tokens: lexical.embedding_tokens + dense.embedding_tokens,
        cost_usd: addCost(lexical.cost_usd, dense.cost_usd),
      };
    },
  };
}

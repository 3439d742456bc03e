/**
 * What an embedder looks like to the vector and hybrid retrievers (the seam
 * of dense retrieval). The embedders are beside this file: the
 * OpenAI-compatible one, the offline hashing one and the replaying one, picked
 * by `embedders.ts`.
 *
 * @module
 */

/** Whether a text is a query or a passage (prefixes and caching differ). */
export type EmbedKind = "query" | "passage";

/** Vectors for a list of texts, packed row-major. */
export interface Embeddings {
  /** `texts.length × dimensions` floats, row i is text i. */
  vectors: Float32Array;
  dimensions: number;
  /** Tokens billed for the texts actually sent (cache hits cost 0). */
  tokens: number;
  /** US dollars; null when tokens were billed at an unknown price. */
  cost_usd: number | null;
  /** Texts answered from the cache rather than the endpoint. */
  cached: number;
}

/** Turns texts into vectors. Rejects with a RagbenchError-derived error naming the endpoint (never the key). */
export interface Embedder {
  /** Identity for cache keys and reports, e.g. `openai:text-embedding-3-small@512` or `hashing:384`. */
  readonly id: string;
  embed(
    texts: readonly string[],
    options: { kind: EmbedKind; signal: AbortSignal },
  ): Promise<Embeddings>;
}

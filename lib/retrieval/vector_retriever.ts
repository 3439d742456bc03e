/**
 * The `vector` retriever: every passage embedded once when the retriever is
 * built (title and text, `"<title>\n<text>"`, or the text alone when the
 * title is empty), the query embedded at each search, exact cosine top-k
 * over them (vector_index.ts). Scores are cosine similarities in [-1, 1].
 *
 * Failures: an embedding failure while indexing stops the run before any
 * question, naming the retriever, the server and what to do; one while
 * embedding a query is that question's `model` error (EmbeddingError is a
 * ModelCallError) and the run goes on.
 *
 * @module
 */

import type { EmbeddingConfig } from "../dense/embedding_config.ts";
import { RagbenchError } from "../errors.ts";
import { addCost, ModelCallError } from "../llm/model.ts";
import { EmbeddingError } from "../dense/embedding_error.ts";
import { EMBEDDING_REPLAY_MISS_PREFIX } from "../dense/replay_embedder.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Embedder } from "../dense/embedder.ts";
import { DEFAULT_TOP_K } from "./kinds/kind.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";
import { VectorIndex } from "../dense/vector_index.ts";
import { plural } from "../util/plural.ts";

/** Passages sent to the embedder per call while indexing (progress is reported between calls). */
export const INDEX_CHUNK = 1024;
/** At most one indexing progress line per this many ms. */
const PROGRESS_EVERY_MS = 5_000;

/** What a vector (or hybrid) retriever needs from the run. */
export interface VectorRetrieverDeps {
  /** The run's embedder for an `embedding:` config (embedders.ts `EmbedderPool.embedderFor`). */
  embedderFor(config: EmbeddingConfig): Embedder;
  /** Cancels the indexing. */
  signal: AbortSignal;
  /** Progress lines while indexing. */
  onProgress?: (line: string) => void;
}

/** What a vector index is built from: the embedding, and for messages and `topK` the kind and `top_k`. */
export interface VectorSettings {
  kind: string;
  top_k: number | null;
  embedding: EmbeddingConfig;
}

/** A vector retriever, with what the hybrid one reuses. */
export interface VectorRetriever extends Retriever {
  readonly embedder: Embedder;
  readonly index: VectorIndex;
  /** Tokens and cost of embedding the passages (0 when they all came from the cache). */
  readonly indexing: { tokens: number; cost_usd: number | null; cached: number };
}

/** The text embedded for a passage. */
export function passageText(passage: Passage): string {
  return passage.title === "" ? passage.text : `${passage.title}\n${passage.text}`;
}

/**
 * Embeds `passages` and builds the retriever `name` of `config`.
 *
 * @throws {RagbenchError} ("model") naming the retriever and server when the
 *   passages cannot be embedded.
 */
export async function buildVectorRetriever(
  name: string,
  config: VectorSettings,
  passages: readonly Passage[],
  deps: VectorRetrieverDeps,
): Promise<VectorRetriever> {
  const embedder = deps.embedderFor(config.embedding);
  const started = performance.now();
  let last = started;
  // Filled chunk by chunk once the first reply gives the size, so no chunk outlives its copy.
  let packed: Float32Array | null = null;
  let dimensions = 0;
  let tokens = 0;
  let cost: number | null = 0;
  let cached = 0;
  try {
    for (let start = 0; start < passages.length; start += INDEX_CHUNK) {
      const texts = passages.slice(start, start + INDEX_CHUNK).map(passageText);
      const got = await embedder.embed(texts, { kind: "passage", signal: deps.signal });
      if (packed === null && got.dimensions > 0) {
        dimensions = got.dimensions;
        packed = new Float32Array(passages.length * dimensions);
      }
      if (got.dimensions !== dimensions && got.vectors.length > 0) {
        throw new EmbeddingError(
          `${embedder.id} returned ${got.dimensions}-dimension vectors after ${dimensions}-dimension ones.`,
        );
      }
      packed?.set(got.vectors, start * dimensions);
      tokens += got.tokens;
      cost = addCost(cost, got.cost_usd);
      cached += got.cached;
      const now = performance.now();
      if (deps.onProgress && now - last > PROGRESS_EVERY_MS) {
        last = now;
        deps.onProgress(
          `retriever ${name}: embedded ${
            Math.min(start + INDEX_CHUNK, passages.length)
          }/${passages.length} passages`,
        );
      }
    }
  } catch (error) {
    if (!(error instanceof ModelCallError) || deps.signal.aborted) throw error;
    const kept = error.message.startsWith(EMBEDDING_REPLAY_MISS_PREFIX)
      ? ""
      : " Batches embedded before the failure are kept in the embedding cache, " +
        "so a re-run continues where this one stopped.";
    throw new RagbenchError(
      "model",
      `Cannot build retriever "${name}" (kind ${config.kind}): embedding its ${
        plural(passages.length, "passage")
      } failed. ` +
        `${error.message}${kept}`,
      { cause: error },
    );
  }
  if (packed === null) {
    throw new RagbenchError(
      "model",
      `Cannot build retriever "${name}": every passage is empty, so there is nothing to embed.`,
    );
  }
  const index = new VectorIndex(packed, dimensions);
  deps.onProgress?.(
    `retriever ${name}: ${plural(passages.length, "passage")} embedded with ${embedder.id} ` +
      `(${cached} from the cache, ${plural(tokens, "token")}, ${
        cost === null ? "cost unknown: no price for the embedding model" : `$${cost.toFixed(4)}`
      }) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    name,
    kind: "vector",
    topK: config.top_k ?? DEFAULT_TOP_K,
    passages,
    embedder,
    index,
    indexing: { tokens, cost_usd: cost, cached },
    search: (query, k, signal) => searchVector(embedder, index, passages, query, k, signal),
  };
}

/** One vector search: embed the query, exact top-k. */
export async function searchVector(
  embedder: Embedder,
  index: VectorIndex,
  passages: readonly Passage[],
  query: string,
  k: number,
  signal: AbortSignal,
): Promise<RetrievalOutcome> {
  const got = await embedder.embed([query], { kind: "query", signal });
  if (got.dimensions !== index.dimensions) {
    throw new EmbeddingError(
      `${embedder.id} returned a ${got.dimensions}-dimension query vector for an index of ` +
        `${index.dimensions} dimensions; the server's model changed since the passages were embedded.`,
    );
  }
  const hits = index.search(got.vectors, k).map((hit) => ({
    passage: passages[hit.index],
    score: hit.score,
  }));
  return { hits, embedding_tokens: got.tokens, cost_usd: got.cost_usd };
}

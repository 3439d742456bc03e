/**
 * The `openai` embedder of a `--cache replay` run: every vector comes from
 * the embedding cache (embedding_cache.ts), under the same identity and
 * prefixes as the live embedder wrote it; nothing is sent, no API key is
 * read and `npm:openai` is not loaded, so a replay needs no network
 * permission for its embedding host. A text with no stored vector is an
 * {@link EmbeddingError} whose message starts with
 * {@link EMBEDDING_REPLAY_MISS_PREFIX}: while the passages are indexed it
 * stops the run (naming the retriever), while a question's query is embedded
 * it is that question's error and the run exits 1 (run_cache.ts).
 *
 * @module
 */

import type { EmbeddingCache } from "./embedding_cache.ts";
import { EmbeddingError } from "./embedding_error.ts";
import type { Embedder, Embeddings, EmbedKind } from "./embedder.ts";
import { plural } from "../util/plural.ts";

/** Start of the message of a text that `--cache replay` found no stored vector for. */
export const EMBEDDING_REPLAY_MISS_PREFIX = "--cache replay: no recorded embedding";

/** Options of {@link createReplayEmbedder}. */
export interface ReplayEmbedderOptions {
  /** The live embedder's identity (openai_embedder_id.ts): the cache key. */
  id: string;
  /** The model name, for messages. */
  model: string;
  /** Vector size configured; null: the size of the first vector found. */
  dimensions: number | null;
  queryPrefix: string;
  passagePrefix: string;
  cache: EmbeddingCache;
}

/** Creates the embedder (see the module docs). */
export function createReplayEmbedder(options: ReplayEmbedderOptions): Embedder {
  let dimensions = options.dimensions;
  return {
    id: options.id,
    embed(
      texts: readonly string[],
      { kind, signal }: { kind: EmbedKind; signal: AbortSignal },
    ): Promise<Embeddings> {
      try {
        signal.throwIfAborted();
        return Promise.resolve(lookUp(texts, kind));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };

  function lookUp(texts: readonly string[], kind: EmbedKind): Embeddings {
    const prefix = kind === "query" ? options.queryPrefix : options.passagePrefix;
    const found = options.cache.get(options.id, prefix, texts);
    let missing = 0;
    let cached = 0;
    for (let i = 0; i < texts.length; i++) {
      const vector = found[i];
      if (texts[i] === "") continue;
      if (vector === null || (dimensions !== null && vector.length !== dimensions)) {
        missing++;
        continue;
      }
      dimensions ??= vector.length;
      cached++;
    }
    if (missing > 0) {
      const what = kind === "query"
        ? "for this query"
        : `for ${missing} of ${plural(texts.length, "passage")}`;
      throw new EmbeddingError(
        `${EMBEDDING_REPLAY_MISS_PREFIX} ${what} (embedding model "${options.model}", ` +
          `${options.id}). Record the embeddings first with a live run (without --cache replay), ` +
          "with the same --cache-dir, retriever settings, corpus and questions.",
      );
    }
    const size = dimensions ?? 0;
    const vectors = new Float32Array(texts.length * size);
    for (let i = 0; i < texts.length; i++) {
      const vector = found[i];
      if (texts[i] !== "" && vector !== null) vectors.set(vector, i * size);
    }
    return { vectors, dimensions: size, tokens: 0, cost_usd: 0, cached };
  }
}

/**
 * Turns `embedding:` configs into {@link Embedder}s for a run: one embedder
 * per distinct config (two retrievers with the same embedding share it), the
 * `--mock` substitution, and the embedding cache, opened only when an
 * embedder that needs it is first asked for.
 *
 * In `--mock` every `openai` embedder is replaced by the offline `hashing`
 * one with the same dimensions (or 384), and a progress line says so: a mock
 * run makes no network request and needs no cache. With `--cache replay` an
 * `openai` embedder reads the embedding cache only (replay_embedder.ts): no
 * request, no API key.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import type { EmbeddingConfig } from "./embedding_config.ts";
import { EMBEDDING_CACHE_FILE } from "../cache/cache_dir.ts";
import { EmbeddingCache } from "./embedding_cache.ts";
import { createHashingEmbedder, HASHING_DEFAULT_DIMENSIONS } from "./hashing_embedder.ts";
import { openAIEmbedderId } from "./openai_embedder_id.ts";
import type { OpenAIEmbedderOptions } from "./openai_embedder.ts";
import { createReplayEmbedder } from "./replay_embedder.ts";
import type { Embedder } from "./embedder.ts";

/**
 * The embedding config a run really uses: in `--mock`, an `openai` one
 * becomes `hashing` with the same dimensions (384 when unset); otherwise it
 * is returned as is.
 */
export function effectiveEmbedding(config: EmbeddingConfig, mock: boolean): EmbeddingConfig {
  if (!mock || config.provider === "hashing") return config;
  return {
    ...config,
    provider: "hashing",
    dimensions: config.dimensions ?? HASHING_DEFAULT_DIMENSIONS,
  };
}

/** Whether a run with this embedding (after {@link effectiveEmbedding}) uses the cache and network. */
export function usesEndpoint(config: EmbeddingConfig, mock: boolean): boolean {
  return effectiveEmbedding(config, mock).provider === "openai";
}

/** Options of {@link createEmbedderPool}. */
export interface EmbedderPoolOptions {
  mock: boolean;
  /** `--cache replay`: `openai` embedders read the embedding cache and send nothing. */
  replay?: boolean;
  /** The cache folder (lib/cache/cache_dir.ts); resolved lazily, only if an endpoint embedder is used. */
  cacheDir: () => string;
  /** Reads the API key variable; default `Deno.env.get`. */
  env?: (name: string) => string | undefined;
  /**
   * US dollars per million tokens of an `openai` embedding (the run's prices,
   * lib/llm/pricing.ts); default: its `price_per_mtok`, null (unknown) when unset.
   */
  price?: (config: EmbeddingConfig) => number | null;
  /** Progress lines (the `--mock` substitution, the cache opened). */
  onProgress?: (line: string) => void;
}

/** The embedders of one run; close it when the run ends. */
export interface EmbedderPool extends Disposable {
  /** The embedder for `config` (the same object for equal configs). */
  embedderFor(config: EmbeddingConfig): Embedder;
  /** The config this run really uses for `config` ({@link effectiveEmbedding} with the pool's mock flag). */
  effective(config: EmbeddingConfig): EmbeddingConfig;
  close(): void;
}

/** Creates the run's embedder pool. */
export function createEmbedderPool(options: EmbedderPoolOptions): EmbedderPool {
  const byConfig = new Map<string, Embedder>();
  let cache: EmbeddingCache | null = null;
  let announced = false;
  const env = options.env ?? ((name: string) => Deno.env.get(name));

  function openCache(): EmbeddingCache {
    if (cache === null) {
      cache = EmbeddingCache.open(join(options.cacheDir(), EMBEDDING_CACHE_FILE));
      options.onProgress?.(`embedding cache: ${cache.path}`);
    }
    return cache;
  }

  function embedderFor(config: EmbeddingConfig): Embedder {
    const used = effectiveEmbedding(config, options.mock);
    if (used !== config && !announced) {
      announced = true;
      options.onProgress?.(
        "--mock: openai embedders are replaced by the offline hashing embedder " +
          "(same dimensions, or 384); no embedding requests are made",
      );
    }
    const key = JSON.stringify(used);
    const known = byConfig.get(key);
    if (known) return known;
    const embedder = used.provider === "hashing"
      ? createHashingEmbedder(used.dimensions ?? HASHING_DEFAULT_DIMENSIONS)
      : options.replay
      ? createReplayEmbedder({
        id: openAIEmbedderId(used.model, used.base_url, used.dimensions),
        model: used.model,
        dimensions: used.dimensions,
        queryPrefix: used.query_prefix,
        passagePrefix: used.passage_prefix,
        cache: openCache(),
      })
      : lazyOpenAIEmbedder({
        model: used.model,
        baseUrl: used.base_url,
        apiKey: used.api_key_env === null ? null : env(used.api_key_env) ?? null,
        dimensions: used.dimensions,
        batchSize: used.batch_size,
        maxRetries: used.max_retries,
        timeoutMs: used.timeout_s * 1000,
        queryPrefix: used.query_prefix,
        passagePrefix: used.passage_prefix,
        pricePerMtok: options.price ? options.price(used) : used.price_per_mtok,
        cache: openCache(),
      });
    byConfig.set(key, embedder);
    return embedder;
  }

  function close(): void {
    cache?.close();
    cache = null;
  }
  return {
    embedderFor,
    effective: (config) => effectiveEmbedding(config, options.mock),
    close,
    [Symbol.dispose]: close,
  };
}

/**
 * An `openai` embedder whose module (and `npm:openai`) is loaded on the
 * first `embed`, so a run that never embeds through an endpoint does not
 * pay for loading the SDK. Its identity is computed at once, as the eager
 * embedder's is (an invalid base URL still fails here).
 */
function lazyOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const id = openAIEmbedderId(options.model, options.baseUrl, options.dimensions);
  let loading: Promise<Embedder> | null = null;
  return {
    id,
    embed(texts, embedOptions) {
      loading ??= import("./openai_embedder.ts").then((m) => m.createOpenAIEmbedder(options));
      return loading.then((embedder) => embedder.embed(texts, embedOptions));
    },
  };
}

/**
 * The `embedding:` section of a retriever: which embedder turns texts into
 * vectors and how it is called (`embedders.ts`; read by the `vector` and
 * `hybrid` retriever kinds, `lib/retrieval/kinds/`).
 *
 * @module
 */

import { z } from "zod";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How texts are turned into vectors. */
export const embeddingSchema = z.strictObject({
  /**
   * `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama,
   * vLLM, llama.cpp server, TEI, LiteLLM). `hashing`: the offline
   * deterministic feature-hashing embedder (a lexical stand-in, no network).
   */
  provider: z.enum(["openai", "hashing"]).default("openai"),
  model: z.string().min(1).default("text-embedding-3-small"),
  /** Endpoint root, e.g. `http://127.0.0.1:11434/v1`; null for the provider's default. */
  base_url: z.url({ protocol: /^https?$/ }).nullable().default(null),
  /** Variable holding the API key; null when the endpoint needs none. */
  api_key_env: z.string().regex(ENV_NAME, "must be an environment variable name").nullable()
    .default("OPENAI_API_KEY"),
  /** Vector size to request (or, for `hashing`, to produce); null: the model's own. */
  dimensions: z.int().min(1).max(16384).nullable().default(null),
  /** Texts per request. */
  batch_size: z.int().min(1).max(4096).default(64),
  /** Retries after 429, 5xx and connection errors, with exponential backoff. */
  max_retries: z.int().min(0).max(10).default(3),
  /** Time one request may take, in seconds. */
  timeout_s: z.number().positive().max(3600).default(60),
  /** Text put before each query (e5-style models want `"query: "`). */
  query_prefix: z.string().max(200).default(""),
  /** Text put before each passage (e5-style models want `"passage: "`). */
  passage_prefix: z.string().max(200).default(""),
  /**
   * US dollars per million input tokens; null: the price catalog's
   * (lib/llm/pricing.ts), else unknown (costs null, never 0).
   */
  price_per_mtok: z.number().nonnegative().nullable().default(null),
});

/** `embedding:` after defaults. */
export type EmbeddingConfig = z.output<typeof embeddingSchema>;

/**
 * The `retrievers:` section of a config and a system's inline `retriever:`:
 * strict zod schemas with documented defaults, one a kind (a union on
 * `kind`, `bm25` when absent). The kinds ragbench computes itself (bm25,
 * vector, hybrid) share `{kind, top_k, chunk, bm25, embedding, fusion}`;
 * the keys such a kind does not use are accepted and ignored (so switching
 * between them is a one-word change). The kinds that call an engine or a
 * service (rerank, http, postgres, opensearch, elasticsearch) take their own
 * keys (engine_schemas.ts) and refuse the others.
 *
 * @module
 */

import { z } from "zod";
import { httpKeys, postgresKeys, rerankKeys, searchEngineKeys } from "./engine_schemas.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How documents are cut into passages. */
export const chunkSchema = z.strictObject({
  /** Longest passage, in `unit`s. */
  size: z.int().min(16).max(8192).default(200),
  /** Units shared by consecutive passages of a document (0: none). */
  overlap: z.int().min(0).max(4096).default(0),
  /** `words` (runs of non-space characters) or `tokens` (estimated as 4 characters each). */
  unit: z.enum(["words", "tokens"]).default("words"),
}).refine((c) => c.overlap < c.size, { message: "overlap must be smaller than size" });

/** BM25 parameters and text analysis. */
export const bm25Schema = z.strictObject({
  /** Term-frequency saturation (the default of rank_bm25 and bm25s; see lib/lexical/bm25.ts). */
  k1: z.number().min(0).max(10).default(1.5),
  /** Length normalisation, 0 (none) to 1 (full). */
  b: z.number().min(0).max(1).default(0.75),
  /** `snowball` (English Porter2), `plural` (plural endings only) or `none`. */
  stemmer: z.enum(["snowball", "plural", "none"]).default("snowball"),
  /** `english` drops the built-in English stopword list; `none` keeps every word. */
  stopwords: z.enum(["english", "none"]).default("english"),
  /** `keep`: "e.g.", "U.S." are one token each (`e.g`, `u.s`); `split`: the dots separate letters. */
  abbreviations: z.enum(["keep", "split"]).default("keep"),
  /** `drop`: words of one letter ("I", the "x" of "x-ray") are not indexed; `keep`: they are. */
  single_letters: z.enum(["drop", "keep"]).default("drop"),
  /** `once`: a word the query repeats counts once (SQLite FTS5); `count`: each time (Lucene). */
  query_repeats: z.enum(["once", "count"]).default("once"),
  /**
   * How `retrieval_only` ranks documents: `whole` by BM25 over each whole document (title and
   * text as one unit, its own N, df and avgdl); `best_passage` by the score of its best passage.
   * Passages are still what `search` and `rag` rank.
   */
  document_ranking: z.enum(["whole", "best_passage"]).default("whole"),
});

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

/** How a hybrid retriever merges its BM25 and vector rankings. */
export const fusionSchema = z.strictObject({
  method: z.enum(["rrf"]).default("rrf"),
  /** Reciprocal Rank Fusion constant: score = sum of weight / (k + rank). */
  k: z.number().positive().max(10_000).default(60),
  /** Weight of each ranking (default 1 each). */
  weights: z.strictObject({
    bm25: z.number().nonnegative().default(1),
    vector: z.number().nonnegative().default(1),
  }).prefault({}),
});

/** Passages per query of a retriever whose `top_k` is not set (`rag`, and `Retriever.topK`). */
export const DEFAULT_TOP_K = 5;

/**
 * Passages a system that retrieves itself asks for; null: the system's default ({@link
 * DEFAULT_TOP_K} passages for `rag`; for `retrieval_only`, as many as it takes to rank the
 * largest cut-off of `evaluation.retrieval_k` in documents).
 */
const topK = z.int().min(1).max(10_000).nullable().default(null);

/** The keys of the kinds ragbench computes itself. */
const ownKeys = {
  top_k: topK,
  chunk: chunkSchema.prefault({}),
  bm25: bm25Schema.prefault({}),
  embedding: embeddingSchema.prefault({}),
  fusion: fusionSchema.prefault({}),
};

/** The kinds of retriever, in the order messages list them. */
export const RETRIEVER_KINDS = [
  "bm25",
  "vector",
  "hybrid",
  "rerank",
  "http",
  "postgres",
  "opensearch",
  "elasticsearch",
] as const;

/** One retriever. */
export const retrieverSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("bm25").default("bm25"), ...ownKeys }),
  z.strictObject({ kind: z.literal("vector"), ...ownKeys }),
  z.strictObject({ kind: z.literal("hybrid"), ...ownKeys }),
  z.strictObject({ kind: z.literal("rerank"), top_k: topK, ...rerankKeys }),
  z.strictObject({ kind: z.literal("http"), top_k: topK, ...httpKeys }),
  z.strictObject({
    kind: z.literal("postgres"),
    top_k: topK,
    chunk: chunkSchema.prefault({}),
    ...postgresKeys,
  }),
  z.strictObject({
    kind: z.literal("opensearch"),
    top_k: topK,
    chunk: chunkSchema.prefault({}),
    embedding: embeddingSchema.prefault({}),
    ...searchEngineKeys,
  }),
  z.strictObject({
    kind: z.literal("elasticsearch"),
    top_k: topK,
    chunk: chunkSchema.prefault({}),
    embedding: embeddingSchema.prefault({}),
    ...searchEngineKeys,
  }),
]);

/** A retriever after defaults. */
export type RetrieverConfig = z.output<typeof retrieverSchema>;
/** A retriever of one kind, after defaults. */
export type RetrieverOf<K extends RetrieverConfig["kind"]> = Extract<RetrieverConfig, { kind: K }>;

/** The kinds ragbench computes itself (bm25, vector, hybrid). */
export type OwnRetrieverConfig = RetrieverOf<"bm25" | "vector" | "hybrid">;

/**
 * `config` as one of the kinds ragbench computes itself.
 *
 * @throws {TypeError} for another kind (a caller's mistake: it chose the kind).
 */
export function ownRetriever(config: RetrieverConfig): OwnRetrieverConfig {
  if (config.kind === "bm25" || config.kind === "vector" || config.kind === "hybrid") return config;
  throw new TypeError(`retriever kind "${config.kind}" is not bm25, vector or hybrid`);
}

/** The chunking of a retriever that cuts the corpus into passages; null for one that does not. */
export function chunkOf(config: RetrieverConfig): ChunkConfig | null {
  return "chunk" in config ? config.chunk : null;
}

/**
 * The embedding a retriever uses: a vector or hybrid retriever's, a search
 * engine's with `search: knn`; null for the others (a reranker's base is a
 * retriever of its own, see `retrieverParts`).
 */
export function embeddingOf(config: RetrieverConfig): EmbeddingConfig | null {
  if (config.kind === "vector" || config.kind === "hybrid") return config.embedding;
  if (
    (config.kind === "opensearch" || config.kind === "elasticsearch") && config.search === "knn"
  ) {
    return config.embedding;
  }
  return null;
}

/** Every embedding `config` uses, its reranker bases' included. */
export function retrieverEmbeddings(config: RetrieverConfig): EmbeddingConfig[] {
  return retrieverParts(config).map(embeddingOf).filter((e) => e !== null);
}

/**
 * `config` and every retriever it is built over (a reranker's base, and its
 * base's base, ...), once the config check has resolved each `base` (a name
 * or an inline entry) into a retriever.
 */
export function retrieverParts(config: RetrieverConfig): RetrieverConfig[] {
  const parts: RetrieverConfig[] = [];
  let at: RetrieverConfig | null = config;
  while (at !== null && parts.length <= 100) {
    parts.push(at);
    at = at.kind === "rerank" && typeof at.base === "object"
      ? at.base as unknown as RetrieverConfig
      : null;
  }
  return parts;
}
/** `embedding:` after defaults. */
export type EmbeddingConfig = z.output<typeof embeddingSchema>;
/** `bm25:` after defaults. */
export type Bm25Config = z.output<typeof bm25Schema>;
/** `chunk:` after defaults. */
export type ChunkConfig = z.output<typeof chunkSchema>;
/** `fusion:` after defaults. */
export type FusionConfig = z.output<typeof fusionSchema>;

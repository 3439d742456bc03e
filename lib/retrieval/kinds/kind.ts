/**
 * The seam of retriever kinds (`kind: bm25 | vector | hybrid`, and next
 * `rerank`, `http`, `postgres`, `opensearch`, `elasticsearch`): each kind is
 * one object of this folder, listed once in `registry.ts`, and is the one
 * place that knows it: the sections of a `retrievers:` entry it reads (the
 * config composes every kind's into one strict schema,
 * `lib/config/retriever_schema.ts`), the settings one build depends on (two
 * retrievers with equal settings share one build), the embedding endpoints
 * and other permissions it needs, how it is built, and what building it
 * cost. Every facet is required: a kind that forgets one does not compile,
 * and no kind can fall back on another's settings.
 *
 * Two kinds of keys: `sections` (`bm25`, `embedding`, `fusion`) are shared,
 * accepted on every entry whatever its kind; `keys` are a kind's own (an
 * engine's address, credentials and limits: `url`, `connection`, `model`,
 * `timeout_s`, ...), accepted only on entries of that kind, so a key meant
 * for one engine on another is an error, not silently ignored.
 *
 * @module
 */

import { z } from "zod";
import type { EmbeddingConfig } from "../../dense/embedding_config.ts";
import type { EmbedderPool } from "../../dense/embedders.ts";
import { type ChunkConfig, chunkSchema } from "../../lexical/chunk_config.ts";
import type { Passage } from "../../lexical/passages.ts";
import type { Corpus } from "../../types.ts";
import type { Retriever } from "../types.ts";
import type { SavedIndexes } from "../saved_indexes.ts";
import type { RetrievalCacheSetup } from "../remote/cached_call.ts";

/** Passages per query of a retriever whose `top_k` is not set (`rag`, and `Retriever.topK`). */
export const DEFAULT_TOP_K = 5;

/** The keys of every retriever entry besides `kind`, whatever the kind. */
export const commonRetrieverFields = {
  /**
   * Passages a system that retrieves itself asks for; null: the system's default ({@link
   * DEFAULT_TOP_K} passages for `rag`; for `retrieval_only`, as many as it takes to rank the
   * largest cut-off of `evaluation.retrieval_k` in documents).
   */
  top_k: z.int().min(1).max(10_000).nullable().default(null),
  chunk: chunkSchema.prefault({}),
};

/** What every retriever config holds, whatever its kind (its sections come beside). */
export type RetrieverBase = {
  kind: string;
  top_k: number | null;
  chunk: ChunkConfig;
};

/** The config a kind reads: the common keys, its sections and its own keys, after defaults. */
export type KindConfig<S extends z.ZodRawShape, O extends z.ZodRawShape = Record<never, never>> =
  & RetrieverBase
  & OutputOf<S>
  & OutputOf<O>;

/** The values of a shape after defaults (nothing for an empty shape). */
type OutputOf<S extends z.ZodRawShape> = keyof S extends never ? unknown : z.output<z.ZodObject<S>>;

/** One permission a kind needs (in the shape of `lib/plan/need.ts` `Need`). */
export interface RetrieverNeed {
  name: "read" | "write" | "env" | "net" | "sys";
  value: string;
  why: string;
}

/** What building one retriever's index cost (a kind that embeds its passages reports it). */
export interface IndexingCost {
  /** The embedder's id (model, dimensions, prefixes). */
  embedder: string;
  /** Tokens embedded in this run (0 when every passage came from the cache). */
  tokens: number;
  /** US dollars; null when tokens were billed at an unknown price. */
  cost_usd: number | null;
  /** Passages whose vectors came from the embedding cache. */
  cached: number;
}

/** Everything a kind gets to build one retriever. */
export interface RetrieverBuildRequest<C extends RetrieverBase = RetrieverBase> {
  /** The retriever's name (a `retrievers:` key, or the system's name for an inline one). */
  name: string;
  config: C;
  corpus: Corpus;
  /** The corpus cut by `config.chunk`, in corpus order (shared by equal chunk settings). */
  passages: readonly Passage[];
  /** Aborted when the run is cancelled while indexes are built. */
  signal: AbortSignal;
  /** The run's embedders. */
  embedders: EmbedderPool;
  /**
   * The run's build of this config as `kind` (same corpus, same signal),
   * shared with every retriever of those settings: how a hybrid gets its
   * BM25 and vector parts, and how a reranker would get its first stage.
   */
  part<R extends Retriever>(
    kind: { readonly kind: string; build(request: never): Promise<R> },
  ): Promise<R>;
  /**
   * The run's build of another retriever's config (a reranker's base), shared
   * with every retriever of its settings.
   */
  retriever(config: RetrieverBase): Promise<Retriever>;
  /** A `--mock` run (a reranker then sends nothing). */
  mock: boolean;
  /** The run's response cache for service answers (rerank, http); null: none. */
  responses: RetrievalCacheSetup | null;
  /** Reads a variable a `${VAR}` template names (default: `Deno.env`, if permitted). */
  env: (name: string) => string | undefined;
  /** Progress lines while indexing. */
  progress?: (line: string) => void;
  /** Where built indexes are saved and loaded from (`--index-cache`; none: always built). */
  saved?: SavedIndexes;
}

/** What {@link RetrieverKind.needs} is told. */
export interface NeedsContext {
  /** A `--mock` run (a reranker then sends nothing). */
  mock: boolean;
  /** The retriever's name (for the need's `why`); default the kind. */
  name?: string;
  /** Reads a variable to find a host a `${VAR}` hides (default `Deno.env`, where permitted). */
  env?: (name: string) => string | undefined;
}

/** Builds one retriever of a kind. Rejects with a RagbenchError a user can act on. */
export type RetrieverBuilder = (request: RetrieverBuildRequest) => Promise<Retriever>;

/** One retriever kind: every facet of it (see the module comment). */
export interface RetrieverKind<
  S extends z.ZodRawShape = z.ZodRawShape,
  R extends Retriever = Retriever,
  O extends z.ZodRawShape = z.ZodRawShape,
> {
  /** The `kind:` a config writes. */
  readonly kind: string;
  /**
   * The sections of an entry it reads besides `kind`, `top_k` and `chunk`,
   * each with its default. Every kind's sections are accepted on every entry
   * (switching `kind` is a one-word change); two kinds reading one section
   * name it with the same schema object.
   */
  readonly sections: S;
  /**
   * Its own keys, accepted only on entries of this kind (`{}` for a kind
   * that has none); none may share a name with a section.
   */
  readonly keys: O;
  /**
   * Whether a build cuts the corpus into passages (`chunk:`); false for a
   * kind whose engine holds its own (the build then gets none).
   */
  chunked(config: KindConfig<S, O>): boolean;
  /**
   * Whether it is a second stage over another retriever named by its `base:`
   * key (a reranker): the config's check resolves that name, or the entry
   * written there, into the base's settings (`lib/config/retriever_bases.ts`).
   */
  readonly wraps: boolean;
  /**
   * The settings one build depends on, as plain data: retrievers whose
   * settings are equal share one build (one index, one set of embeddings),
   * each under its own name and `top_k`. Only what changes the ranking
   * belongs here; `embedding` is the one the run really uses (`effective`,
   * after the `--mock` substitution).
   */
  settings(
    config: KindConfig<S, O>,
    ctx: { effective(embedding: EmbeddingConfig): unknown },
  ): unknown;
  /** The embedding endpoints it calls: their permissions, prices and cache. */
  embeddings(config: KindConfig<S, O>): EmbeddingConfig[];
  /** Permissions it needs besides its embeddings' (a search server's host, a key). */
  needs(config: KindConfig<S, O>, ctx: NeedsContext): RetrieverNeed[];
  /** Builds one retriever. */
  build(request: RetrieverBuildRequest<KindConfig<S, O>>): Promise<R>;
  /**
   * `config` as the run folder may hold it (`config.resolved.yaml`, the
   * hashes of `run.json`): the literal secrets of its keys masked
   * (lib/retrieval/remote/secret_mask.ts), in a new object; itself when it
   * has none.
   */
  persisted(config: KindConfig<S, O>): KindConfig<S, O>;
  /** What building `built` cost (run.json, summary.md); null when it embedded nothing. */
  indexing(built: R): IndexingCost | null;
}

/** The values of `config` under the keys of `shape` (a kind's own keys, for its settings). */
export function ownValues(
  config: Readonly<Record<string, unknown>>,
  shape: z.ZodRawShape,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (Object.hasOwn(config, key)) out[key] = config[key];
  }
  return out;
}

/** Declares a retriever kind (identity, for type inference: a missing facet is a type error). */
export function defineRetrieverKind<
  const K extends string,
  S extends z.ZodRawShape,
  R extends Retriever,
  O extends z.ZodRawShape = Record<never, never>,
>(
  kind: RetrieverKind<S, R, O> & { readonly kind: K },
): RetrieverKind<S, R, O> & { readonly kind: K } {
  return kind;
}

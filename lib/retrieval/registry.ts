/**
 * The retrievers of a run: each distinct retriever a config uses is built
 * once, in the main process, and shared by every system (and every `search`
 * tool) that names it. Builders are looked up by `kind` with `Map.get`;
 * adding a kind is one builder function and one line in
 * {@link RETRIEVER_BUILDERS}.
 *
 * Builds are shared by settings, not only by name: two retrievers with
 * equal build settings (a named one and an inline copy of it, say) share one
 * index, each keeping its own name and `top_k`. Build settings are the keys
 * the kind uses (`chunk` and `bm25` for BM25; `chunk` and the embedding the
 * run really uses for vector, after the `--mock` substitution; all of them
 * for hybrid), so a `top_k` or an unused key never causes a second build.
 * A hybrid asks the run for its BM25 and vector parts like any retriever
 * ({@link RetrieverBuildRequest.part}), so it shares them with BM25 and
 * vector retrievers of the same settings. Passages are shared too:
 * retrievers with equal `chunk:` settings get the same passage array.
 *
 * @module
 */

import {
  chunkOf,
  DEFAULT_TOP_K,
  type RetrieverConfig,
  type RetrieverOf,
} from "../config/retriever_schema.ts";
import type { RetrieverBuilder, RetrieverBuildRequest } from "./build_request.ts";
import type { RetrievalCacheSetup } from "./remote/cached_call.ts";
import { readEnv } from "../util/secrets.ts";
import { resolveCacheDir } from "../cache/cache_dir.ts";
import type { Corpus } from "../types.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { createBm25Retriever } from "./bm25_retriever.ts";
import { chunkCorpus } from "../lexical/chunking.ts";
import { createEmbedderPool, type EmbedderPool } from "../dense/embedders.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Retriever } from "./types.ts";
import type { VectorRetriever } from "./vector_retriever.ts";

export type { RetrieverBuilder, RetrieverBuildRequest };

/** A retriever a system uses: which build (`key`), its name and its settings. */
export interface RetrieverRequest {
  /** Systems with the same key share one build. */
  key: string;
  name: string;
  config: RetrieverConfig;
}

/** Builds a `kind: bm25` retriever. */
// deno-lint-ignore require-await
export async function buildBm25Retriever(request: RetrieverBuildRequest): Promise<Retriever> {
  request.signal.throwIfAborted();
  const config = request.config as RetrieverOf<"bm25">;
  return createBm25Retriever({
    name: request.name,
    topK: config.top_k ?? DEFAULT_TOP_K,
    bm25: config.bm25,
    passages: request.passages,
    documents: request.corpus.documents,
  });
}

/** Builds a `kind: vector` retriever: embeds every passage (through the embedding cache). */
export async function buildVector(request: RetrieverBuildRequest): Promise<Retriever> {
  // The dense retrievers' modules load only in a run that builds one.
  const { buildVectorRetriever } = await import("./vector_retriever.ts");
  const config = request.config as RetrieverOf<"vector">;
  return await buildVectorRetriever(request.name, config, request.passages, {
    embedderFor: request.embedders.embedderFor,
    signal: request.signal,
    ...(request.progress ? { onProgress: request.progress } : {}),
  });
}

/** Builds a `kind: hybrid` retriever over the run's BM25 and vector builds of its settings. */
export async function buildHybrid(request: RetrieverBuildRequest): Promise<Retriever> {
  const config = request.config as RetrieverOf<"hybrid">;
  const [lexical, dense] = await Promise.all([
    request.part({ ...config, kind: "bm25" }),
    request.part({ ...config, kind: "vector" }),
  ]);
  if (!isVectorRetriever(dense)) {
    throw new TypeError(`hybrid retriever ${request.name}: the vector part has no index`);
  }
  const { buildHybridRetriever } = await import("./hybrid_retriever.ts");
  return await buildHybridRetriever(request.name, config, request.passages, {
    embedderFor: request.embedders.embedderFor,
    signal: request.signal,
    bm25: lexical,
    vector: dense,
  });
}

function isVectorRetriever(retriever: Retriever): retriever is VectorRetriever {
  return "index" in retriever && "embedder" in retriever;
}

/** The builder of each retriever kind. */
export const RETRIEVER_BUILDERS: ReadonlyMap<string, RetrieverBuilder> = new Map<
  string,
  RetrieverBuilder
>([
  ["bm25", buildBm25Retriever],
  ["vector", buildVector],
  ["hybrid", buildHybrid],
  // The kinds that call an engine or a service load their module (and its client) when used.
  ["rerank", async (r) => (await import("./rerank_retriever.ts")).buildRerank(r)],
  ["http", async (r) => (await import("./http_retriever.ts")).buildHttp(r)],
  ["postgres", async (r) => (await import("./postgres_retriever.ts")).buildPostgres(r)],
  ["opensearch", async (r) => (await import("./opensearch_retriever.ts")).buildOpenSearch(r)],
  [
    "elasticsearch",
    async (r) => (await import("./elasticsearch_retriever.ts")).buildElasticsearch(r),
  ],
]);

/** Options of {@link RunRetrievers}. */
export interface RunRetrieversOptions {
  /** Default {@link RETRIEVER_BUILDERS}. */
  builders?: ReadonlyMap<string, RetrieverBuilder>;
  /**
   * The run's embedders (the caller closes them). Default: a pool of this
   * object's own, with `mock` and the default cache folder, closed by
   * {@link RunRetrievers.close}.
   */
  embedders?: EmbedderPool;
  /** A `--mock` run (the default pool's, and a reranker's: it then sends nothing). */
  mock?: boolean;
  /** The run's response cache for service answers (rerank, http); default none. */
  responses?: RetrievalCacheSetup | null;
  /** Where `${VAR}` templates are read from (default `Deno.env`, where permitted). */
  env?: (name: string) => string | undefined;
  /** Progress lines while indexing. */
  progress?: (line: string) => void;
}

/** The settings a build of `config` depends on (see the module comment). */
export function buildSettings(config: RetrieverConfig, embedders: EmbedderPool): unknown {
  switch (config.kind) {
    case "bm25":
      return { kind: config.kind, chunk: config.chunk, bm25: config.bm25 };
    case "vector":
      return {
        kind: config.kind,
        chunk: config.chunk,
        embedding: embedders.effective(config.embedding),
      };
    case "hybrid": {
      const { kind, chunk, bm25, fusion } = config;
      return { kind, chunk, bm25, embedding: embedders.effective(config.embedding), fusion };
    }
    case "rerank": {
      const { top_k: _, base, ...rest } = config;
      return { ...rest, base: buildSettings(base as unknown as RetrieverConfig, embedders) };
    }
    case "http": {
      const { top_k: _, ...rest } = config;
      return rest;
    }
    case "postgres": {
      const { top_k: _, chunk, ...rest } = config;
      return rest.table === null ? { ...rest, chunk } : rest;
    }
    case "opensearch":
    case "elasticsearch": {
      const { top_k: _, chunk, embedding, ...rest } = config;
      return {
        ...rest,
        ...(rest.index === null ? { chunk } : {}),
        ...(rest.search === "knn" ? { embedding: embedders.effective(embedding) } : {}),
      };
    }
  }
}

/**
 * What building one retriever's passage embeddings cost (one record per
 * embedding build: a hybrid's vector part and a vector retriever with the
 * same settings share one). Written to run.json and summary.md, because
 * `$/question` does not include it.
 */
export interface IndexingRecord {
  /** The retriever that asked for the build first. */
  retriever: string;
  passages: number;
  /** The embedder's id (model, dimensions, prefixes). */
  embedder: string;
  /** Tokens embedded in this run (0 when every passage came from the cache). */
  tokens: number;
  /** US dollars; null when tokens were billed at an unknown price. */
  cost_usd: number | null;
  /** Passages whose vectors came from the embedding cache. */
  cached: number;
}

/** The retrievers of one run over one corpus, each built on first request and kept. */
export class RunRetrievers {
  readonly #corpus: Corpus;
  readonly #builders: ReadonlyMap<string, RetrieverBuilder>;
  readonly #embedders: EmbedderPool;
  /** The pool this object made (and closes), when none was given. */
  readonly #ownPool: EmbedderPool | null;
  readonly #progress: ((line: string) => void) | undefined;
  readonly #mock: boolean;
  readonly #responses: RetrievalCacheSetup | null;
  readonly #env: (name: string) => string | undefined;
  /** Builds by canonical settings. */
  readonly #built = new Map<string, Promise<Retriever>>();
  /** Retrievers by request key (a build under the request's name). */
  readonly #named = new Map<string, Promise<Retriever>>();
  readonly #passages = new Map<string, Passage[]>();
  #builds = 0;
  #closing: Promise<void> | null = null;

  /** Retrievers over `corpus`. */
  constructor(corpus: Corpus, options: RunRetrieversOptions = {}) {
    this.#corpus = corpus;
    this.#builders = options.builders ?? RETRIEVER_BUILDERS;
    this.#ownPool = options.embedders ? null : createEmbedderPool({
      mock: options.mock ?? false,
      cacheDir: () => resolveCacheDir(undefined).dir,
      ...(options.progress ? { onProgress: options.progress } : {}),
    });
    this.#embedders = options.embedders ?? this.#ownPool!;
    this.#progress = options.progress;
    this.#mock = options.mock ?? false;
    this.#responses = options.responses ?? null;
    this.#env = options.env ?? readEnv;
  }

  /**
   * Closes what the built retrievers hold open (an engine's connections) and
   * the embedder pool this object made (not one it was given).
   */
  close(): Promise<void> {
    return this.#closing ??= (async () => {
      const settled = await Promise.allSettled(this.#built.values());
      await Promise.allSettled(
        settled.map((o) => o.status === "fulfilled" ? o.value.close?.() : undefined),
      );
      this.#ownPool?.close();
    })();
  }

  /**
   * The run's embedding builds, in the order they were started (after waiting for any still
   * running; a build that failed is left out).
   */
  async indexing(): Promise<IndexingRecord[]> {
    const settled = await Promise.allSettled(this.#built.values());
    const records: IndexingRecord[] = [];
    for (const outcome of settled) {
      if (outcome.status !== "fulfilled") continue;
      const built = outcome.value as Partial<VectorRetriever>;
      if (built.indexing === undefined || built.embedder === undefined || built.kind !== "vector") {
        continue;
      }
      records.push({
        retriever: outcome.value.name,
        passages: outcome.value.passages.length,
        embedder: built.embedder.id,
        ...built.indexing,
      });
    }
    return records;
  }

  /** How many retrievers were built (each distinct setting once). */
  get builds(): number {
    return this.#builds;
  }

  /**
   * The retriever for `request`, built on the first request for its build
   * settings; later requests for the key get the same object (even while it
   * builds), and requests with other keys but equal build settings share the
   * build under their own name and `top_k`.
   *
   * @throws {RagbenchError} when the build fails.
   */
  get(request: RetrieverRequest, signal: AbortSignal): Promise<Retriever> {
    let named = this.#named.get(request.key);
    if (named === undefined) {
      named = this.#builtFor(request.name, request.config, signal).then((retriever) =>
        renamed(retriever, request.name, request.config.top_k ?? DEFAULT_TOP_K)
      );
      this.#named.set(request.key, named);
    }
    return named;
  }

  /** The shared build of `config`'s build settings, started by the first asker (`name`). */
  #builtFor(name: string, config: RetrieverConfig, signal: AbortSignal): Promise<Retriever> {
    const settings = canonicalJson(buildSettings(config, this.#embedders));
    let built = this.#built.get(settings);
    if (built === undefined) {
      built = this.#build(name, config, signal);
      this.#built.set(settings, built);
    }
    return built;
  }

  async #build(name: string, config: RetrieverConfig, signal: AbortSignal): Promise<Retriever> {
    const builder = this.#builders.get(config.kind);
    if (builder === undefined) {
      throw new TypeError(`retriever kind "${config.kind}" passed validation but has no builder`);
    }
    this.#builds++;
    return await builder({
      name,
      config,
      corpus: this.#corpus,
      passages: this.#passagesFor(config),
      signal,
      embedders: this.#embedders,
      part: (partConfig) => this.#builtFor(name, partConfig, signal),
      mock: this.#mock,
      responses: this.#responses,
      env: this.#env,
      ...(this.#progress ? { progress: this.#progress } : {}),
    });
  }

  #passagesFor(config: RetrieverConfig): Passage[] {
    const chunk = chunkOf(config);
    if (chunk === null) return [];
    const { size, overlap, unit } = chunk;
    const key = `${size}/${overlap}/${unit}`;
    let passages = this.#passages.get(key);
    if (passages === undefined) {
      passages = chunkCorpus(this.#corpus, chunk);
      this.#passages.set(key, passages);
    }
    return passages;
  }
}

/** `retriever` under `name` with `topK` (itself when both already match). */
function renamed(retriever: Retriever, name: string, topK: number): Retriever {
  if (retriever.name === name && retriever.topK === topK) return retriever;
  const view: Retriever = {
    name,
    kind: retriever.kind,
    topK,
    passages: retriever.passages,
    search: (query, k, signal) => retriever.search(query, k, signal),
  };
  if (retriever.queryTerms) view.queryTerms = (query) => retriever.queryTerms!(query);
  if (retriever.searchDocuments) {
    view.searchDocuments = (query, k, signal) => retriever.searchDocuments!(query, k, signal);
  }
  if (retriever.prepareDocuments) view.prepareDocuments = () => retriever.prepareDocuments!();
  return view;
}

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

import { DEFAULT_TOP_K, type RetrieverConfig } from "../config/retriever_schema.ts";
import { resolveCacheDir } from "../cache/cache_dir.ts";
import type { Corpus } from "../types.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { createBm25Retriever } from "./bm25_retriever.ts";
import { chunkCorpus } from "../lexical/chunking.ts";
import { createEmbedderPool, type EmbedderPool } from "../dense/embedders.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Retriever } from "./types.ts";
import type { VectorRetriever } from "./vector_retriever.ts";
import type { SavedIndexes } from "./saved_indexes.ts";

/** Everything a builder gets to build one retriever. */
export interface RetrieverBuildRequest {
  /** The retriever's name (a `retrievers:` key, or the system's name for an inline one). */
  name: string;
  config: RetrieverConfig;
  corpus: Corpus;
  /** The corpus cut by `config.chunk`, in corpus order (shared by equal chunk settings). */
  passages: readonly Passage[];
  /** Aborted when the run is cancelled while indexes are built. */
  signal: AbortSignal;
  /** The run's embedders (vector and hybrid). */
  embedders: EmbedderPool;
  /**
   * The run's build for `config` (same corpus, same signal), shared with
   * every retriever of the same build settings: how a hybrid gets its parts.
   */
  part(config: RetrieverConfig): Promise<Retriever>;
  /** Progress lines while indexing. */
  progress?: (line: string) => void;
  /** Where built indexes are saved and loaded from (none: always built). */
  saved?: SavedIndexes;
}

/** Builds one retriever of a kind. Rejects with a RagbenchError a user can act on. */
export type RetrieverBuilder = (request: RetrieverBuildRequest) => Promise<Retriever>;

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
  return createBm25Retriever({
    name: request.name,
    topK: request.config.top_k ?? DEFAULT_TOP_K,
    bm25: request.config.bm25,
    passages: request.passages,
    documents: request.corpus.documents,
    ...(request.saved ? { saved: request.saved } : {}),
  });
}

/** Builds a `kind: vector` retriever: embeds every passage (through the embedding cache). */
export async function buildVector(request: RetrieverBuildRequest): Promise<Retriever> {
  // The dense retrievers' modules load only in a run that builds one.
  const { buildVectorRetriever } = await import("./vector_retriever.ts");
  return await buildVectorRetriever(request.name, request.config, request.passages, {
    embedderFor: request.embedders.embedderFor,
    signal: request.signal,
    ...(request.progress ? { onProgress: request.progress } : {}),
    ...(request.saved ? { saved: request.saved } : {}),
  });
}

/** Builds a `kind: hybrid` retriever over the run's BM25 and vector builds of its settings. */
export async function buildHybrid(request: RetrieverBuildRequest): Promise<Retriever> {
  const [lexical, dense] = await Promise.all([
    request.part({ ...request.config, kind: "bm25" }),
    request.part({ ...request.config, kind: "vector" }),
  ]);
  if (!isVectorRetriever(dense)) {
    throw new TypeError(`hybrid retriever ${request.name}: the vector part has no index`);
  }
  const { buildHybridRetriever } = await import("./hybrid_retriever.ts");
  return await buildHybridRetriever(request.name, request.config, request.passages, {
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
  /** A `--mock` run (only used for the default pool). */
  mock?: boolean;
  /** Progress lines while indexing. */
  progress?: (line: string) => void;
  /** Where built indexes are saved and loaded from (none: every index is built). */
  saved?: SavedIndexes;
}

/** The settings a build of `config` depends on (see the module comment). */
export function buildSettings(config: RetrieverConfig, embedders: EmbedderPool): unknown {
  const { kind, chunk, bm25, fusion } = config;
  if (kind === "bm25") return { kind, chunk, bm25 };
  const embedding = embedders.effective(config.embedding);
  if (kind === "vector") return { kind, chunk, embedding };
  return { kind, chunk, bm25, embedding, fusion };
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
  readonly #saved: SavedIndexes | undefined;
  /** Builds by canonical settings. */
  readonly #built = new Map<string, Promise<Retriever>>();
  /** Retrievers by request key (a build under the request's name). */
  readonly #named = new Map<string, Promise<Retriever>>();
  readonly #passages = new Map<string, Passage[]>();
  #builds = 0;

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
    this.#saved = options.saved;
  }

  /** Closes the embedder pool this object made (not one it was given). */
  close(): void {
    this.#ownPool?.close();
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
      ...(this.#progress ? { progress: this.#progress } : {}),
      ...(this.#saved ? { saved: this.#saved } : {}),
    });
  }

  #passagesFor(config: RetrieverConfig): Passage[] {
    const { size, overlap, unit } = config.chunk;
    const key = `${size}/${overlap}/${unit}`;
    let passages = this.#passages.get(key);
    if (passages === undefined) {
      passages = chunkCorpus(this.#corpus, config.chunk);
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

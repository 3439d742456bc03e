/**
 * The retrievers of a run: each distinct retriever a config uses is built
 * once, in the main process, and shared by every system (and every `search`
 * tool) that names it. Each kind (`kinds/`, looked up by `kind` with
 * `Map.get`) says what a build depends on and how it is built; this file
 * knows no kind.
 *
 * Builds are shared by settings, not only by name: two retrievers with
 * equal build settings (a named one and an inline copy of it, say) share one
 * index, each keeping its own name and `top_k`. Build settings are the keys
 * the kind uses (its `settings`: `chunk` and `bm25` for BM25; `chunk` and the
 * embedding the run really uses for vector, after the `--mock` substitution;
 * all of them for hybrid), so a `top_k` or an unused key never causes a
 * second build, and a kind's settings are never another kind's.
 * A hybrid asks the run for its BM25 and vector parts like any retriever
 * ({@link RetrieverBuildRequest.part}), so it shares them with BM25 and
 * vector retrievers of the same settings. Passages are shared too:
 * retrievers with equal `chunk:` settings get the same passage array.
 *
 * @module
 */

import { resolveCacheDir } from "../cache/cache_dir.ts";
import type { Corpus } from "../types.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { chunkCorpus } from "../lexical/chunking.ts";
import { createEmbedderPool, type EmbedderPool } from "../dense/embedders.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Retriever } from "./types.ts";
import {
  DEFAULT_TOP_K,
  type IndexingCost,
  type RetrieverBase,
  type RetrieverBuilder,
  type RetrieverKind,
} from "./kinds/kind.ts";
import { kindOf, RETRIEVER_KINDS } from "./kinds/registry.ts";
import type { RetrievalCacheSetup } from "./remote/cached_call.ts";
import { readEnv } from "../util/secrets.ts";

export type { RetrieverBuilder, RetrieverBuildRequest } from "./kinds/kind.ts";
export { buildBm25Retriever } from "./kinds/bm25.ts";

/** A retriever a system uses: which build (`key`), its name and its settings. */
export interface RetrieverRequest {
  /** Systems with the same key share one build. */
  key: string;
  name: string;
  /** The retriever's config (`lib/config/retriever_schema.ts`: the common keys and every kind's sections). */
  config: RetrieverBase;
}

/** The build of each retriever kind (its kind's `build`); a test may hand `RunRetrievers` others. */
export const RETRIEVER_BUILDERS: ReadonlyMap<string, RetrieverBuilder> = builderMap(
  RETRIEVER_KINDS,
);

function builderMap(
  kinds: ReadonlyMap<string, RetrieverKind>,
): ReadonlyMap<string, RetrieverBuilder> {
  return new Map([...kinds].map(([name, kind]) => [name, (request) => kind.build(request)]));
}

/** Options of {@link RunRetrievers}. */
export interface RunRetrieversOptions {
  /** The retriever kinds (default {@link RETRIEVER_KINDS}, every kind this version has). */
  kinds?: ReadonlyMap<string, RetrieverKind>;
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

/**
 * What building one retriever's passage embeddings cost (one record per
 * embedding build: a hybrid's vector part and a vector retriever with the
 * same settings share one). Written to run.json and summary.md, because
 * `$/question` does not include it.
 */
export interface IndexingRecord extends IndexingCost {
  /** The retriever that asked for the build first. */
  retriever: string;
  passages: number;
}

/** The retrievers of one run over one corpus, each built on first request and kept. */
export class RunRetrievers {
  readonly #corpus: Corpus;
  readonly #kinds: ReadonlyMap<string, RetrieverKind>;
  readonly #builders: ReadonlyMap<string, RetrieverBuilder>;
  readonly #embedders: EmbedderPool;
  /** The pool this object made (and closes), when none was given. */
  readonly #ownPool: EmbedderPool | null;
  readonly #progress: ((line: string) => void) | undefined;
  readonly #mock: boolean;
  readonly #responses: RetrievalCacheSetup | null;
  readonly #env: (name: string) => string | undefined;
  /** Builds by canonical settings, with their kind. */
  readonly #built = new Map<string, { kind: RetrieverKind; retriever: Promise<Retriever> }>();
  /** Retrievers by request key (a build under the request's name). */
  readonly #named = new Map<string, Promise<Retriever>>();
  readonly #passages = new Map<string, Passage[]>();
  #builds = 0;
  #closing: Promise<void> | null = null;

  /** Retrievers over `corpus`. */
  constructor(corpus: Corpus, options: RunRetrieversOptions = {}) {
    this.#corpus = corpus;
    this.#kinds = options.kinds ?? RETRIEVER_KINDS;
    this.#builders = options.builders ?? builderMap(this.#kinds);
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
      const settled = await Promise.allSettled([...this.#built.values()].map((b) => b.retriever));
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
    const builds = [...this.#built.values()];
    const settled = await Promise.allSettled(builds.map((b) => b.retriever));
    const records: IndexingRecord[] = [];
    settled.forEach((outcome, i) => {
      if (outcome.status !== "fulfilled") return;
      const cost = builds[i].kind.indexing(outcome.value);
      if (cost === null) return;
      records.push({
        retriever: outcome.value.name,
        passages: outcome.value.passages.length,
        ...cost,
      });
    });
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
  #builtFor(name: string, config: RetrieverBase, signal: AbortSignal): Promise<Retriever> {
    const kind = kindOf(config, this.#kinds);
    const settings = canonicalJson(
      kind.settings(config, { effective: (e) => this.#embedders.effective(e) }),
    );
    let built = this.#built.get(settings);
    if (built === undefined) {
      built = { kind, retriever: this.#build(name, config, signal) };
      this.#built.set(settings, built);
    }
    return built.retriever;
  }

  async #build(name: string, config: RetrieverBase, signal: AbortSignal): Promise<Retriever> {
    const builder = this.#builders.get(config.kind);
    if (builder === undefined) {
      throw new TypeError(`retriever kind "${config.kind}" passed validation but has no builder`);
    }
    this.#builds++;
    return await builder({
      name,
      config,
      corpus: this.#corpus,
      passages: kindOf(config, this.#kinds).chunked(config) ? this.#passagesFor(config) : [],
      signal,
      embedders: this.#embedders,
      // The run's build of the same settings as another kind: shared like any other.
      part: <R extends Retriever>(other: { readonly kind: string }) =>
        this.#builtFor(name, { ...config, kind: other.kind }, signal) as Promise<R>,
      // The run's build of another retriever (a reranker's base): shared like any other.
      retriever: (other: RetrieverBase) => this.#builtFor(name, other, signal),
      mock: this.#mock,
      responses: this.#responses,
      env: this.#env,
      ...(this.#progress ? { progress: this.#progress } : {}),
    });
  }

  #passagesFor(config: RetrieverBase): Passage[] {
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

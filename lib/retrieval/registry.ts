/**
 * The retrievers of a run: each distinct retriever a config uses is built
 * once, in the main process, and shared by every system (and every `search`
 * tool) that names it. Builders are looked up by `kind` with `Map.get`;
 * adding a kind is one builder function and one line in
 * {@link RETRIEVER_BUILDERS}.
 *
 * Builds are shared by settings, not only by name: two retrievers with
 * equal settings (a named one and an inline copy of it, say) share one
 * index, each keeping its own name. Passages are shared too: retrievers with
 * equal `chunk:` settings get the same passage array (so a hybrid and a BM25
 * retriever over the same chunks rank the same passage objects).
 *
 * @module
 */

import type { RetrieverConfig } from "../config/retriever_schema.ts";
import { RagbenchError } from "../errors.ts";
import type { Corpus } from "../types.ts";
import { createBm25Retriever } from "./bm25_retriever.ts";
import { chunkCorpus } from "./chunking.ts";
import type { Passage } from "./passages.ts";
import type { Retriever } from "./types.ts";

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
    topK: request.config.top_k,
    bm25: request.config.bm25,
    passages: request.passages,
  });
}

/** The builder of each retriever kind. */
export const RETRIEVER_BUILDERS: ReadonlyMap<string, RetrieverBuilder> = new Map<
  string,
  RetrieverBuilder
>([
  ["bm25", buildBm25Retriever],
]);

/** The retrievers of one run over one corpus, each built on first request and kept. */
export class RunRetrievers {
  readonly #corpus: Corpus;
  readonly #builders: ReadonlyMap<string, RetrieverBuilder>;
  /** Builds by canonical settings. */
  readonly #built = new Map<string, Promise<Retriever>>();
  /** Retrievers by request key (a build under the request's name). */
  readonly #named = new Map<string, Promise<Retriever>>();
  readonly #passages = new Map<string, Passage[]>();
  #builds = 0;

  /** Retrievers over `corpus`, built with `builders` (default {@link RETRIEVER_BUILDERS}). */
  constructor(
    corpus: Corpus,
    builders: ReadonlyMap<string, RetrieverBuilder> = RETRIEVER_BUILDERS,
  ) {
    this.#corpus = corpus;
    this.#builders = builders;
  }

  /** How many retrievers were built (each distinct setting once). */
  get builds(): number {
    return this.#builds;
  }

  /**
   * The retriever for `request`, built on the first request for its
   * settings; later requests for the key get the same object (even while it
   * builds), and requests with other keys but equal settings share the build
   * under their own name.
   *
   * @throws {RagbenchError} when the kind has no builder, or the build fails.
   */
  get(request: RetrieverRequest, signal: AbortSignal): Promise<Retriever> {
    let named = this.#named.get(request.key);
    if (named === undefined) {
      const settings = canonicalJson(request.config);
      let built = this.#built.get(settings);
      if (built === undefined) {
        built = this.#build(request, signal);
        this.#built.set(settings, built);
      }
      named = built.then((retriever) => renamed(retriever, request.name));
      this.#named.set(request.key, named);
    }
    return named;
  }

  async #build(request: RetrieverRequest, signal: AbortSignal): Promise<Retriever> {
    const builder = this.#builders.get(request.config.kind);
    if (builder === undefined) {
      throw new RagbenchError(
        "config",
        `Cannot build retriever "${request.name}": kind "${request.config.kind}" is not ` +
          `available in this version of ragbench — use one of ${
            [...this.#builders.keys()].map((k) => `"${k}"`).join(", ")
          }.`,
      );
    }
    this.#builds++;
    return await builder({
      name: request.name,
      config: request.config,
      corpus: this.#corpus,
      passages: this.#passagesFor(request.config),
      signal,
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

/** `retriever` under `name` (itself when the name already matches). */
function renamed(retriever: Retriever, name: string): Retriever {
  if (retriever.name === name) return retriever;
  const view: Retriever = {
    name,
    kind: retriever.kind,
    topK: retriever.topK,
    passages: retriever.passages,
    search: (query, k, signal) => retriever.search(query, k, signal),
  };
  if (retriever.queryTerms) view.queryTerms = (query) => retriever.queryTerms!(query);
  return view;
}

/** JSON with object keys sorted, so equal settings give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

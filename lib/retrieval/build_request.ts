/**
 * What a retriever kind's builder gets (the run's side of the seam between
 * `registry.ts` and each kind's file), kept apart from the registry so that
 * the kinds' files, which the registry loads with `import()`, do not import
 * it back.
 *
 * @module
 */

import type { RetrieverConfig } from "../config/retriever_schema.ts";
import type { EmbedderPool } from "../dense/embedders.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Corpus } from "../types.ts";
import type { RetrievalCacheSetup } from "./remote/cached_call.ts";
import type { Retriever } from "./types.ts";

/** Everything a builder gets to build one retriever. */
export interface RetrieverBuildRequest {
  /** The retriever's name (a `retrievers:` key, or the system's name for an inline one). */
  name: string;
  config: RetrieverConfig;
  corpus: Corpus;
  /** The corpus cut by `config.chunk`, in corpus order (shared by equal chunk settings; empty for a kind that cuts none). */
  passages: readonly Passage[];
  /** Aborted when the run is cancelled while indexes are built. */
  signal: AbortSignal;
  /** The run's embedders (vector, hybrid, a search engine's kNN). */
  embedders: EmbedderPool;
  /**
   * The run's build for `config` (same corpus, same signal), shared with
   * every retriever of the same build settings: how a hybrid gets its parts
   * and a reranker its base.
   */
  part(config: RetrieverConfig): Promise<Retriever>;
  /** A `--mock` run (a reranker then sends nothing). */
  mock: boolean;
  /** The run's response cache for service answers (rerank, http); null: none. */
  responses: RetrievalCacheSetup | null;
  /** Reads a variable a `${VAR}` template names (default: `Deno.env`, if permitted). */
  env: (name: string) => string | undefined;
  /** Progress lines while indexing. */
  progress?: (line: string) => void;
}

/** Builds one retriever of a kind. Rejects with a RagbenchError a user can act on. */
export type RetrieverBuilder = (request: RetrieverBuildRequest) => Promise<Retriever>;

/**
 * The `opensearch` retriever: BM25 `match` queries, or kNN over a
 * `knn_vector` field, against an OpenSearch index (ragbench's own, loaded
 * with the run's passages, or an existing one, read-only), through the
 * official client `@opensearch-project/opensearch` (remote/os_client.ts;
 * the shared logic is remote/search_engine.ts, the config's reading
 * search_engine_build.ts).
 *
 * @module
 */

import type { RetrieverBuildRequest } from "./build_request.ts";
import { openOpenSearch } from "./remote/os_client.ts";
import type { SearchEngineRetriever } from "./remote/search_engine.ts";
import { buildSearchEngine } from "./search_engine_build.ts";

/** Builds a `kind: opensearch` retriever of a run. */
export function buildOpenSearch(request: RetrieverBuildRequest): Promise<SearchEngineRetriever> {
  return buildSearchEngine(request, openOpenSearch);
}

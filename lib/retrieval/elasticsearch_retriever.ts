/**
 * The `elasticsearch` retriever: BM25 `match` queries, or kNN over a vector
 * field, against an Elasticsearch index (ragbench's own, loaded with the
 * run's passages, or an existing one, read-only), through the official
 * client `@elastic/elasticsearch` (remote/es_client.ts; the shared logic is
 * remote/search_engine.ts, the config's reading search_engine_build.ts).
 *
 * @module
 */

import type { RetrieverBuildRequest } from "./build_request.ts";
import { openElasticsearch } from "./remote/es_client.ts";
import type { SearchEngineRetriever } from "./remote/search_engine.ts";
import { buildSearchEngine } from "./search_engine_build.ts";

/** Builds a `kind: elasticsearch` retriever of a run. */
export function buildElasticsearch(request: RetrieverBuildRequest): Promise<SearchEngineRetriever> {
  return buildSearchEngine(request, openElasticsearch);
}

/**
 * `kind: opensearch` and `kind: elasticsearch`: an index of either engine
 * searched through its official client (`lib/retrieval/search_engine_build.ts`
 * and the clients, loaded only by a run that builds one). The two kinds are
 * two objects made by one function: they read the same keys, and differ in
 * the client their build opens. With ragbench's own index a kind cuts the
 * corpus into passages and a build depends on `chunk` too; with `search:
 * knn` it calls its `embedding:` endpoint, and a build depends on the
 * embedding the run really uses. It needs net for the engine's host, sys
 * `osRelease` (the clients send the OS release in their User-Agent) and env
 * for each `${VAR}`; literal passwords, API keys and header values are
 * masked in the run folder.
 *
 * @module
 */

import type { SearchEngineRetriever } from "../remote/search_engine.ts";
import { searchEngineKeys, searchEngineSections as sections } from "../remote/engine_keys.ts";
import { needWho, urlNeed, variableNeeds } from "../remote/engine_needs.ts";
import { maskHeaders, maskUrl, maskValue } from "../remote/secret_mask.ts";
import { readEnv } from "../../util/secrets.ts";
import { defineRetrieverKind, ownValues } from "./kind.ts";

function searchEngineKind<const K extends "opensearch" | "elasticsearch">(kind: K) {
  return defineRetrieverKind({
    kind,
    sections,
    keys: searchEngineKeys,
    chunked: (config) => config.index === null,
    wraps: false,
    settings: (config, ctx) => ({
      kind: config.kind,
      ...ownValues(config, searchEngineKeys),
      ...(config.index === null ? { chunk: config.chunk } : {}),
      ...(config.search === "knn" ? { embedding: ctx.effective(config.embedding) } : {}),
    }),
    embeddings: (config) => config.search === "knn" ? [config.embedding] : [],
    needs(config, ctx) {
      const who = needWho(ctx.name, config.kind);
      return [
        urlNeed(config.url, who, ctx.env ?? readEnv),
        {
          name: "sys",
          value: "osRelease",
          why: `the official client of ${who} (it sends the OS release in its User-Agent)`,
        },
        ...variableNeeds([config.url], "url", who),
        ...variableNeeds(
          [config.username, config.password, config.api_key].filter((v) => v !== null),
          "credentials",
          who,
        ),
        ...variableNeeds(Object.values(config.headers), "headers", who),
      ];
    },
    persisted: (config) => ({
      ...config,
      url: maskUrl(config.url),
      headers: maskHeaders(config.headers),
      password: maskValue(config.password),
      api_key: maskValue(config.api_key),
    }),
    async build(request): Promise<SearchEngineRetriever> {
      const { buildSearchEngine } = await import("../search_engine_build.ts");
      const open = kind === "opensearch"
        ? (await import("../remote/os_client.ts")).openOpenSearch
        : (await import("../remote/es_client.ts")).openElasticsearch;
      return await buildSearchEngine(request, open);
    },
    indexing: () => null,
  });
}

/** The OpenSearch retriever kind. */
export const opensearchKind = searchEngineKind("opensearch");
/** The Elasticsearch retriever kind. */
export const elasticsearchKind = searchEngineKind("elasticsearch");

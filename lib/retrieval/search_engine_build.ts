/**
 * The part of building an `opensearch` or `elasticsearch` retriever that
 * does not depend on the engine: its config read into the client's
 * connection and the shared retriever's settings (remote/search_engine.ts).
 * Each kind's file passes its client opener.
 *
 * @module
 */

import { DEFAULT_TOP_K, type RetrieverBuildRequest } from "./kinds/kind.ts";
import type { SearchEngineConfig } from "./remote/engine_keys.ts";
import { Secrets } from "../util/secrets.ts";
import { documentsById } from "./remote/corpus_hits.ts";
import { buildFailure, filled, filledHeaders, filledUrl } from "./remote/engine_config.ts";
import type { EngineConnection } from "./remote/es_client.ts";
import { printableUrl } from "./remote/remote_error.ts";
import {
  buildSearchEngineRetriever,
  type EngineClient,
  type SearchEngineRetriever,
} from "./remote/search_engine.ts";

/**
 * Builds the retriever of `request` with the client `open` makes.
 *
 * @throws {RagbenchError} for an unset variable, or naming the retriever and
 *   the engine when it cannot be reached or refuses.
 */
export async function buildSearchEngine(
  request: RetrieverBuildRequest<SearchEngineConfig>,
  open: (connection: EngineConnection) => Promise<EngineClient>,
): Promise<SearchEngineRetriever> {
  const config = request.config;
  const secrets = new Secrets();
  const url = filledUrl(config.url, "url", request, secrets);
  const optional = (value: string | null, key: string) =>
    value === null ? null : filled(value, key, request, secrets);
  const password = optional(config.password, "password");
  if (password !== null) secrets.add(password);
  const apiKey = optional(config.api_key, "api_key");
  if (apiKey !== null) secrets.add(apiKey);
  const site = { retriever: request.name, kind: config.kind, host: printableUrl(url) };
  const connection: EngineConnection = {
    url,
    username: optional(config.username, "username"),
    password,
    apiKey,
    headers: filledHeaders(config.headers, request, secrets),
    timeoutMs: config.timeout_s * 1000,
    maxRetries: config.max_retries,
    maxBytes: Math.round(config.max_response_mb * 1_048_576),
    site,
    secrets,
  };
  const client = await open(connection);
  try {
    return await buildSearchEngineRetriever({
      name: request.name,
      kind: config.kind as "opensearch" | "elasticsearch",
      topK: config.top_k ?? DEFAULT_TOP_K,
      site,
      client,
      search: config.search,
      analyzer: config.analyzer,
      index: config.index === null ? null : {
        name: config.index,
        fields: {
          id: config.fields.id,
          text: config.fields.text,
          match: config.fields.match ?? [config.fields.text],
          passage_id: config.fields.passage_id,
        },
      },
      vectorField: config.vector_field,
      numCandidates: config.num_candidates,
      embedder: config.search === "knn" ? request.embedders.embedderFor(config.embedding) : null,
      passages: request.passages,
      documents: documentsById(request.corpus.documents),
      maxTextChars: config.max_text_chars,
      signal: request.signal,
      ...(request.progress ? { progress: request.progress } : {}),
    });
  } catch (error) {
    await client.close().catch(() => {});
    throw buildFailure(error);
  }
}

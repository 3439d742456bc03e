/**
 * The scenarios of the search-engine transcripts (engine_transcripts.ts):
 * what the `opensearch` and `elasticsearch` retrievers do in each, over a
 * small corpus, shared by the script that records the transcripts and the
 * tests that replay them.
 *
 * @module
 */

import {
  buildSearchEngineRetriever,
  type EngineFields,
  type SearchEngineRetriever,
} from "../../lib/retrieval/remote/search_engine.ts";
import { openElasticsearch } from "../../lib/retrieval/remote/es_client.ts";
import type { EngineConnection } from "../../lib/retrieval/remote/es_client.ts";
import { openOpenSearch } from "../../lib/retrieval/remote/os_client.ts";
import { documentsById } from "../../lib/retrieval/remote/corpus_hits.ts";
import { createHashingEmbedder } from "../../lib/dense/hashing_embedder.ts";
import { Secrets } from "../../lib/util/secrets.ts";
import type { Passage } from "../../lib/lexical/passages.ts";
import type { Document } from "../../lib/types.ts";

/** The two engines. */
export type EngineKind = "elasticsearch" | "opensearch";

/** The corpus of every scenario (in id order, as a corpus file loads). */
export const ENGINE_DOCS: Document[] = [
  {
    id: "heat",
    title: "Heat",
    text: "Heat transfer in a boundary layer at high speed.",
    source: "t",
  },
  {
    id: "wing",
    title: "Wings",
    text: "Lift on a swept wing rises with the angle of attack.",
    source: "t",
  },
  { id: "wing2", title: "More wings", text: "Swept wings stall at the tip first.", source: "t" },
];

/** One passage per document. */
export const ENGINE_PASSAGES: Passage[] = ENGINE_DOCS.map((d) => ({
  id: `${d.id}#0`,
  doc_id: d.id,
  index: 0,
  title: d.title,
  text: d.text,
}));

/** The fields of the existing index of `existing_index`. */
export const EXISTING_FIELDS: EngineFields = {
  id: "doc_id",
  text: "body",
  match: ["title", "body"],
  passage_id: null,
};

/** Each scenario: its index (null: ragbench's own), its search mode and the query it runs. */
export const SCENARIOS = {
  own_index_bm25: { index: null, search: "bm25", query: "swept wings stall", k: 3 },
  own_index_reuse: { index: null, search: "bm25", query: "heat transfer", k: 2 },
  existing_index: { index: "papers", search: "bm25", query: "swept wings", k: 3 },
  knn: { index: null, search: "knn", query: "swept wings", k: 2 },
} as const;

/** A scenario's name. */
export type ScenarioName = keyof typeof SCENARIOS;

/** The connection of a test retriever to `url`. */
export function testConnection(
  kind: EngineKind,
  url: string,
  over: Partial<EngineConnection> = {},
): EngineConnection {
  return {
    url,
    username: "elastic",
    password: "engine-password-271828",
    apiKey: null,
    headers: {},
    timeoutMs: 5000,
    maxRetries: 0,
    maxBytes: 8 * 1_048_576,
    site: { retriever: "engine", kind, host: url },
    secrets: secretsWith("engine-password-271828"),
    ...over,
  };
}

function secretsWith(value: string): Secrets {
  const secrets = new Secrets();
  secrets.add(value);
  return secrets;
}

/** Builds the scenario's retriever against `url` (which makes the build's requests). */
export async function scenarioRetriever(
  kind: EngineKind,
  scenario: ScenarioName,
  url: string,
  options: { progress?: (line: string) => void; connection?: Partial<EngineConnection> } = {},
): Promise<SearchEngineRetriever> {
  const s = SCENARIOS[scenario];
  const connection = testConnection(kind, url, options.connection);
  const client = kind === "elasticsearch"
    ? await openElasticsearch(connection)
    : await openOpenSearch(connection);
  try {
    return await buildSearchEngineRetriever({
      name: "engine",
      kind,
      topK: 5,
      site: connection.site,
      client,
      search: s.search,
      analyzer: "english",
      index: s.index === null ? null : { name: s.index, fields: EXISTING_FIELDS },
      vectorField: "vector",
      numCandidates: 50,
      embedder: s.search === "knn" ? createHashingEmbedder(8) : null,
      passages: ENGINE_PASSAGES,
      documents: documentsById(ENGINE_DOCS),
      maxTextChars: 1000,
      signal: new AbortController().signal,
      ...(options.progress ? { progress: options.progress } : {}),
    });
  } catch (error) {
    await client.close();
    throw error;
  }
}

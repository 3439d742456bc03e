/**
 * What the `opensearch` and `elasticsearch` retrievers share: the two engines
 * speak nearly the same API, so the logic is here and each kind supplies an
 * {@link EngineClient} over its official client (es_client.ts,
 * os_client.ts), which also says how a vector field is mapped and a kNN
 * query written, the two places where they differ.
 *
 * - **ragbench's own index** (`index` unset): the run's passages are indexed
 *   into `ragbench_<hash>` (a hash of the passages, the analyzer and the
 *   vectors' embedder), one document a passage (`_id` the passage id, its
 *   `ord`, `doc_id`, and `text` = title, a newline and the passage text,
 *   analysed by `analyzer`, `english` by default; plus its vector with
 *   `search: knn`), in bulk requests of {@link BULK_DOCS}, then refreshed.
 *   A later run over the same passages finds the index complete (its count
 *   equals the passages) and indexes nothing; an index left incomplete by an
 *   interrupted load is deleted and loaded again (ragbench owns that name).
 * - **an existing index** (`index: NAME`): only searched, never written;
 *   each hit is a document of the corpus, its id read from `_id` or a
 *   source field, its text (what `rag` and `search` show) from a source
 *   field, cut to `max_text_chars`.
 *
 * `search: bm25` sends a `match` query (any word, the engine's BM25) over the
 * text (or `multi_match` over the configured fields); `search: knn` embeds
 * the query with the retriever's `embedding:` and sends the engine's kNN
 * query on the vector field. Equal BM25 scores keep the passage order in
 * ragbench's own index (a `sort` on `_score`, then `ord`).
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Embedder } from "../../dense/embedder.ts";
import type { Passage } from "../../lexical/passages.ts";
import type { Document } from "../../types.ts";
import { documentHits, type ExternalHit, passageHits, passagesById } from "./corpus_hits.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";
import type { RetrievalOutcome, Retriever } from "../types.ts";
import type { RetryReport } from "../../llm/retry_policy.ts";

/** What an engine's official client does for the retriever (see the module docs). */
export interface EngineClient {
  exists(index: string, signal: AbortSignal): Promise<boolean>;
  create(index: string, body: Record<string, unknown>, signal: AbortSignal): Promise<void>;
  /** Sends bulk lines (action, document, ...); rejects when any item failed. */
  bulk(lines: readonly unknown[], signal: AbortSignal): Promise<void>;
  refresh(index: string, signal: AbortSignal): Promise<void>;
  count(index: string, signal: AbortSignal): Promise<number>;
  remove(index: string, signal: AbortSignal): Promise<void>;
  /**
   * Runs a search and returns the parsed response body (read under the byte
   * cap) and the retries it took.
   */
  search(
    index: string,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ value: unknown; attempts: RetryReport }>;
  /** The mapping of a vector field of `dimensions`. */
  vectorMapping(dimensions: number): Record<string, unknown>;
  /** Index settings needed for vectors (OpenSearch's `index.knn`), merged into `settings`. */
  vectorSettings(): Record<string, unknown>;
  /** The body parts of a kNN search for the `k` nearest to `vector` in `field`. */
  knnQuery(field: string, vector: number[], k: number, candidates: number): Record<string, unknown>;
  close(): Promise<void>;
}

/** The source fields of an existing index. */
export interface EngineFields {
  /** `_id`, or a source field holding the document id. */
  id: string;
  text: string;
  /** Fields a `bm25` search matches (default: the text field). */
  match: readonly string[];
  passage_id: string | null;
}

/** What a search-engine retriever is built from. */
export interface SearchEngineSpec {
  name: string;
  kind: "opensearch" | "elasticsearch";
  topK: number;
  site: EngineSite;
  client: EngineClient;
  search: "bm25" | "knn";
  analyzer: string;
  /** An existing index to search (null: ragbench's own, loaded with `passages`). */
  index: { name: string; fields: EngineFields } | null;
  /** The vector field (knn). */
  vectorField: string;
  /** Candidates per shard of a kNN search, at least k. */
  numCandidates: number;
  /** The embedder of queries and (in ragbench's own index) passages; null for bm25. */
  embedder: Embedder | null;
  passages: readonly Passage[];
  documents: ReadonlyMap<string, Document>;
  maxTextChars: number;
  signal: AbortSignal;
  progress?: (line: string) => void;
}

/** A search-engine retriever, with the client to close when the run ends. */
export interface SearchEngineRetriever extends Retriever {
  readonly index: string;
  close(): Promise<void>;
}

/** Passages a bulk request carries. */
export const BULK_DOCS = 500;
/** Passages embedded at a time while indexing vectors. */
const EMBED_BATCH = 256;

/** The name of ragbench's own index for these passages and settings (lower case, as required). */
export function ownIndexName(
  passages: readonly Passage[],
  settings: { analyzer: string; embedder: string | null },
): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ v: 1, ...settings, passages: passages.length }));
  for (const p of passages) hash.update(JSON.stringify([p.id, p.title, p.text]));
  return `ragbench_${hash.digest("hex").slice(0, 24)}`;
}

/**
 * Loads (or finds) the index and returns the retriever.
 *
 * @throws {EngineError} when the engine cannot be reached or refuses.
 */
export async function buildSearchEngineRetriever(
  spec: SearchEngineSpec,
): Promise<SearchEngineRetriever> {
  if (spec.index !== null) return existingIndex(spec, spec.index);
  const name = ownIndexName(spec.passages, {
    analyzer: spec.analyzer,
    embedder: spec.search === "knn" ? spec.embedder?.id ?? null : null,
  });
  await loadOwnIndex(spec, name);
  const byId = passagesById(spec.passages);
  return retriever(spec, name, spec.passages, async (query, k, signal) => {
    const { body, tokens, cost } = await queryBody(spec, query, k, signal, "text");
    if (spec.search === "bm25") {
      // Equal scores in passage order (a kNN search keeps the engine's order).
      body.sort = [{ _score: "desc" }, { ord: "asc" }];
      body.track_scores = true;
    }
    body._source = false;
    const { value, attempts } = await spec.client.search(name, body, signal);
    const hits = withAttempts(attempts, () => readHits(value, spec, null));
    return {
      hits: withAttempts(attempts, () => passageHits(hits, byId, spec.site)),
      tokens,
      cost,
      attempts,
    };
  });
}

async function loadOwnIndex(spec: SearchEngineSpec, name: string): Promise<void> {
  const { client, signal } = spec;
  if (await client.exists(name, signal)) {
    const count = await client.count(name, signal);
    if (count === spec.passages.length) {
      spec.progress?.(`retriever ${spec.name}: reusing index ${name} (${spec.site.host})`);
      return;
    }
    spec.progress?.(
      `retriever ${spec.name}: index ${name} holds ${count} of ${spec.passages.length} ` +
        "passages (an interrupted load): deleting it and loading it again",
    );
    await client.remove(name, signal);
  }
  spec.progress?.(
    `retriever ${spec.name}: indexing ${spec.passages.length} passages into ${name} ` +
      `(${spec.site.host})`,
  );
  const knn = spec.search === "knn";
  let dimensions = 0;
  let vectors: Float32Array | null = null;
  if (knn) {
    const embedded = await embedPassages(spec);
    dimensions = embedded.dimensions;
    vectors = embedded.vectors;
  }
  const properties: Record<string, unknown> = {
    ord: { type: "integer" },
    doc_id: { type: "keyword" },
    text: { type: "text", analyzer: spec.analyzer },
  };
  if (knn) properties[spec.vectorField] = client.vectorMapping(dimensions);
  await client.create(name, {
    settings: { number_of_shards: 1, ...(knn ? client.vectorSettings() : {}) },
    mappings: { properties },
  }, signal);
  for (let start = 0; start < spec.passages.length; start += BULK_DOCS) {
    const lines: unknown[] = [];
    const end = Math.min(spec.passages.length, start + BULK_DOCS);
    for (let i = start; i < end; i++) {
      const p = spec.passages[i];
      const doc: Record<string, unknown> = {
        ord: i,
        doc_id: p.doc_id,
        text: p.title === "" ? p.text : `${p.title}\n${p.text}`,
      };
      if (vectors !== null) {
        doc[spec.vectorField] = Array.from(vectors.subarray(i * dimensions, (i + 1) * dimensions));
      }
      lines.push({ index: { _index: name, _id: p.id } }, doc);
    }
    await client.bulk(lines, signal);
  }
  await client.refresh(name, signal);
}

async function embedPassages(
  spec: SearchEngineSpec,
): Promise<{ vectors: Float32Array; dimensions: number }> {
  if (spec.embedder === null) throw new TypeError("search: knn needs an embedder");
  const parts: Float32Array[] = [];
  let dimensions = 0;
  for (let start = 0; start < spec.passages.length; start += EMBED_BATCH) {
    const texts = spec.passages.slice(start, start + EMBED_BATCH).map((p) =>
      p.title === "" ? p.text : `${p.title}\n${p.text}`
    );
    const out = await spec.embedder.embed(texts, { kind: "passage", signal: spec.signal });
    dimensions = out.dimensions;
    parts.push(out.vectors);
  }
  const vectors = new Float32Array(spec.passages.length * dimensions);
  let at = 0;
  for (const part of parts) {
    vectors.set(part, at);
    at += part.length;
  }
  return { vectors, dimensions };
}

function existingIndex(
  spec: SearchEngineSpec,
  index: { name: string; fields: EngineFields },
): SearchEngineRetriever {
  const { fields } = index;
  const source = [fields.text];
  if (fields.id !== "_id") source.push(fields.id);
  if (fields.passage_id !== null && fields.passage_id !== "_id") source.push(fields.passage_id);
  return retriever(spec, index.name, [], async (query, k, signal) => {
    const { body, tokens, cost } = await queryBody(spec, query, k, signal, fields.match);
    body._source = source;
    const { value, attempts } = await spec.client.search(index.name, body, signal);
    const hits = withAttempts(attempts, () => readHits(value, spec, fields));
    return {
      hits: withAttempts(attempts, () => documentHits(hits, spec.documents, spec.site)),
      tokens,
      cost,
      attempts,
    };
  });
}

/** The search body of `query` (bm25: a match query; knn: the engine's kNN query). */
async function queryBody(
  spec: SearchEngineSpec,
  query: string,
  k: number,
  signal: AbortSignal,
  fields: string | readonly string[],
): Promise<{ body: Record<string, unknown>; tokens: number; cost: number | null }> {
  if (spec.search === "knn") {
    if (spec.embedder === null) throw new TypeError("search: knn needs an embedder");
    const out = await spec.embedder.embed([query], { kind: "query", signal });
    const vector = Array.from(out.vectors.subarray(0, out.dimensions));
    return {
      body: {
        size: k,
        ...spec.client.knnQuery(spec.vectorField, vector, k, Math.max(k, spec.numCandidates)),
      },
      tokens: out.tokens,
      cost: out.cost_usd,
    };
  }
  const match = typeof fields === "string" || fields.length === 1
    ? { match: { [typeof fields === "string" ? fields : fields[0]]: { query } } }
    : { multi_match: { query, fields: [...fields] } };
  return { body: { size: k, query: match }, tokens: 0, cost: 0 };
}

/**
 * The hits of a search response, in its order.
 *
 * @throws {EngineError} when the response is not a search response.
 */
export function readHits(
  response: unknown,
  spec: Pick<SearchEngineSpec, "site" | "maxTextChars">,
  fields: EngineFields | null,
): ExternalHit[] {
  const bad = (what: string) =>
    new EngineError(spec.site, `sent an unusable search response: ${what}.`);
  const outer = record(response)?.hits;
  const list = record(outer)?.hits;
  if (!Array.isArray(list)) throw bad("it has no hits.hits list");
  return list.map((item: unknown, i): ExternalHit => {
    const hit = record(item);
    if (hit === null) throw bad(`hit ${i + 1} is not an object`);
    const score = hit._score;
    if (typeof score !== "number" || !Number.isFinite(score)) {
      throw bad(`hit ${i + 1} has no finite _score`);
    }
    if (fields === null) {
      if (typeof hit._id !== "string") throw bad(`hit ${i + 1} has no _id`);
      return { id: hit._id, score };
    }
    const source = record(hit._source) ?? {};
    const read = (name: string) => name === "_id" ? hit._id : own(source, name);
    const id = idText(read(fields.id));
    if (id === null) throw bad(`hit ${i + 1} has no document id in ${fields.id}`);
    const text = read(fields.text);
    if (typeof text !== "string") throw bad(`hit ${i + 1} has no text in ${fields.text}`);
    const passageId = fields.passage_id === null ? null : idText(read(fields.passage_id));
    return {
      id,
      passage_id: passageId,
      score,
      text: text.length > spec.maxTextChars ? text.slice(0, spec.maxTextChars) : text,
    };
  });
}

function retriever(
  spec: SearchEngineSpec,
  index: string,
  passages: readonly Passage[],
  search: (
    query: string,
    k: number,
    signal: AbortSignal,
  ) => Promise<
    { hits: RetrievalOutcome["hits"]; tokens: number; cost: number | null; attempts: RetryReport }
  >,
): SearchEngineRetriever {
  return {
    name: spec.name,
    kind: spec.kind,
    topK: spec.topK,
    passages,
    index,
    async search(query, k, signal): Promise<RetrievalOutcome> {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be >= 1, got ${k}`);
      const found = await search(query, k, signal);
      return {
        hits: found.hits,
        embedding_tokens: found.tokens,
        cost_usd: found.cost,
        attempts: found.attempts,
      };
    },
    close: once(() => spec.client.close()),
  };
}

/** `read()`, its EngineError carrying the call's retries. */
function withAttempts<T>(attempts: RetryReport, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof EngineError) error.attempts = attempts;
    throw error;
  }
}

/** `close` made safe to call twice (the OpenSearch client's second close never settles). */
export function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => closing ??= close();
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}

function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

function idText(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return null;
}

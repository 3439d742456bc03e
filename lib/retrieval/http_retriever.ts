/**
 * The `http` retriever: the user's own retrieval service, scored with the
 * same metrics as ragbench's retrievers. Each search POSTs
 * `{"query": ..., "top_k": k}` to the configured URL and reads the reply
 * with JSON paths (lib/util/json_path.ts): `results` names the list of
 * hits, and `id`, `score`, `text` and `passage_id` name each hit's fields,
 * read from the hit itself (`$` is the hit).
 *
 * A hit's id must be a document id of the corpus (a string, or a whole
 * number written as JSON number); its score must be a finite number when
 * `score` is set (without it, hits are scored by rank: n, n − 1, ..., 1);
 * its text, when `text` is set, is what `rag` and `search` show, else the
 * document's text. Hits are ranked by score (equal scores keep the
 * service's order) and cut to k. Anything else is an error naming the
 * retriever, the service's address and what was wrong: no list at the
 * path, a hit without an id, an unknown id, a score that is not a number.
 * Calls follow the model calls' rules (remote/http_json.ts: timeout,
 * retries, a byte cap on the reply) and the response cache (remote/cached_call.ts).
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_TOP_K, type RetrieverBuildRequest } from "./kinds/kind.ts";
import type { HttpConfig } from "./remote/engine_keys.ts";
import type { Document } from "../types.ts";
import { type JsonPath, parseJsonPath, readJsonPath } from "../util/json_path.ts";
import { Secrets } from "../util/secrets.ts";
import { documentsById } from "./remote/corpus_hits.ts";
import { filledHeaders, filledUrl } from "./remote/engine_config.ts";
import { printableUrl } from "./remote/remote_error.ts";
import type { RetryClock, RetryReport } from "../llm/retry_policy.ts";
import { cachedCall, type RetrievalCacheSetup } from "./remote/cached_call.ts";
import { documentHits, type ExternalHit } from "./remote/corpus_hits.ts";
import { postJson } from "./remote/http_json.ts";
import { EngineError, type EngineSite } from "./remote/remote_error.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";

/** Where each part of the reply is. */
export interface HttpPaths {
  /** The list of hits, from the reply's root. */
  results: JsonPath;
  /** In a hit: the document id. */
  id: JsonPath;
  /** In a hit: the score (null: scored by rank). */
  score: JsonPath | null;
  /** In a hit: the passage text (null: the document's text). */
  text: JsonPath | null;
  /** In a hit: the service's own passage id (null: the document id). */
  passage_id: JsonPath | null;
}

/** What an http retriever is built from. */
export interface HttpRetrieverSpec {
  name: string;
  topK: number;
  /** The URL called (templates filled in). */
  url: string;
  /** The URL and headers as the config writes them (`${VAR}` unexpanded): the cache key's. */
  endpoint: string;
  /** Request headers (templates filled in). */
  headers: Readonly<Record<string, string>>;
  secrets: Secrets;
  site: EngineSite;
  timeoutMs: number;
  maxRetries: number;
  maxBytes: number;
  paths: HttpPaths;
  /** The corpus's documents, by id. */
  documents: ReadonlyMap<string, Document>;
  /** The run's response cache; null: none. */
  cache: RetrievalCacheSetup | null;
  clock?: RetryClock;
}

const hitsSchema = z.array(z.strictObject({
  id: z.string(),
  passage_id: z.string().nullable(),
  score: z.number(),
  text: z.string().nullable(),
}));

/** Builds a `kind: http` retriever of a run (nothing is sent until the first search). */
// deno-lint-ignore require-await
export async function buildHttp(request: RetrieverBuildRequest<HttpConfig>): Promise<Retriever> {
  const config = request.config;
  const secrets = new Secrets();
  const url = filledUrl(config.url, "url", request, secrets);
  const path = (text: string | null) => text === null ? null : parseJsonPath(text);
  return createHttpRetriever({
    name: request.name,
    topK: config.top_k ?? DEFAULT_TOP_K,
    url,
    endpoint: `${config.url} ${JSON.stringify(config.headers)}`,
    headers: filledHeaders(config.headers, request, secrets),
    secrets,
    site: { retriever: request.name, kind: "http", host: printableUrl(url) },
    timeoutMs: config.timeout_s * 1000,
    maxRetries: config.max_retries,
    maxBytes: Math.round(config.max_response_mb * 1_048_576),
    paths: {
      results: parseJsonPath(config.results),
      id: parseJsonPath(config.id),
      score: path(config.score),
      text: path(config.text),
      passage_id: path(config.passage_id),
    },
    documents: documentsById(request.corpus.documents),
    cache: request.responses,
  });
}

/** Builds the retriever (nothing is sent until the first search). */
export function createHttpRetriever(spec: HttpRetrieverSpec): Retriever {
  return {
    name: spec.name,
    kind: "http",
    topK: spec.topK,
    passages: [],
    async search(query, k, signal): Promise<RetrievalOutcome> {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be >= 1, got ${k}`);
      const body = { query, top_k: k };
      let attempts: RetryReport | undefined;
      const { value } = await cachedCall(
        spec.cache,
        spec.site,
        {
          retriever_kind: "http",
          endpoint: spec.endpoint,
          request: { body, paths: pathTexts(spec.paths) },
        },
        hitsSchema,
        async () => {
          const reply = await postJson(spec.url, body, {
            site: spec.site,
            headers: spec.headers,
            timeoutMs: spec.timeoutMs,
            maxBytes: spec.maxBytes,
            maxRetries: spec.maxRetries,
            signal,
            secrets: spec.secrets,
            ...(spec.clock ? { clock: spec.clock } : {}),
          });
          attempts = reply.attempts;
          try {
            return readHits(reply.value, spec.paths, spec.site);
          } catch (error) {
            if (error instanceof EngineError) error.attempts = attempts;
            throw error;
          }
        },
        signal,
      );
      const ranked = value
        .map((hit, order) => ({ hit, order }))
        .sort((a, b) => b.hit.score - a.hit.score || a.order - b.order)
        .slice(0, k)
        .map((r) => r.hit);
      let hits;
      try {
        hits = documentHits(ranked, spec.documents, spec.site);
      } catch (error) {
        if (error instanceof EngineError && attempts) error.attempts = attempts;
        throw error;
      }
      return {
        hits,
        embedding_tokens: 0,
        cost_usd: 0,
        ...(attempts === undefined ? {} : { attempts }),
      };
    },
  };
}

/**
 * The hits of one reply (in the service's order).
 *
 * @throws {EngineError} naming the first thing that does not fit the paths.
 */
export function readHits(reply: unknown, paths: HttpPaths, site: EngineSite): ExternalHit[] {
  const list = readJsonPath(reply, paths.results);
  if (!Array.isArray(list)) {
    throw new EngineError(
      site,
      `sent a reply with no list of results at ${paths.results.text} (found ${kindOf(list)}). ` +
        "Check the retriever's results path against what the service returns.",
    );
  }
  const hits: ExternalHit[] = [];
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    const field = (path: JsonPath, what: string, want: string) =>
      new EngineError(
        site,
        `result ${i + 1} has no ${what} at ${path.text} (found ${
          kindOf(readJsonPath(item, path))
        }; ` +
          `${want}). Check the retriever's ${what} path.`,
      );
    const id = readId(readJsonPath(item, paths.id));
    if (id === null) throw field(paths.id, "id", "expected a string or a whole number");
    let score = list.length - i;
    if (paths.score !== null) {
      const value = readJsonPath(item, paths.score);
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw field(paths.score, "score", "expected a finite number");
      }
      score = value;
    }
    let text: string | null = null;
    if (paths.text !== null) {
      const value = readJsonPath(item, paths.text);
      if (typeof value !== "string") throw field(paths.text, "text", "expected a string");
      text = value;
    }
    let passageId: string | null = null;
    if (paths.passage_id !== null) {
      passageId = readId(readJsonPath(item, paths.passage_id));
      if (passageId === null) {
        throw field(paths.passage_id, "passage_id", "expected a string or a whole number");
      }
    }
    hits.push({ id, passage_id: passageId, score, text });
  }
  return hits;
}

function readId(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return null;
}

function pathTexts(paths: HttpPaths): Record<string, string | null> {
  return {
    results: paths.results.text,
    id: paths.id.text,
    score: paths.score?.text ?? null,
    text: paths.text?.text ?? null,
    passage_id: paths.passage_id?.text ?? null,
  };
}

function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

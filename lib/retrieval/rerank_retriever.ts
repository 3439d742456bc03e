/**
 * The `rerank` retriever: a second stage over any retriever (its `base`).
 * For a query it takes the base's ranking, sends the passages of its first
 * `top_n` to a rerank service (remote/rerank_client.ts: Cohere, Jina,
 * Voyage, vLLM, TEI), and orders those by the service's scores (equal
 * scores keep the base order). A caller asking for more than `top_n` gets
 * the rest of the base ranking after them, in the base order, each scored
 * one below the one before (the last reranked score minus 1, 2, ...), so
 * the ranking's scores stay in rank order whatever scale the reranker uses.
 *
 * The call is a model call in all but name: a time limit per attempt,
 * retries with the model calls' policy (recorded on the retrieval step),
 * the response cache under `--cache` (a recorded answer costs nothing), and
 * a cost from the config's prices (null, never 0, when none is set). Under
 * `--mock` nothing is sent: the base ranking is returned unchanged, as
 * `--mock` replaces every model; a progress line says so.
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_TOP_K, type RetrieverBuildRequest } from "./kinds/kind.ts";
import { rerankBase, type RerankConfig } from "./remote/engine_keys.ts";
import { addCost } from "../llm/model.ts";
import { Secrets } from "../util/secrets.ts";
import { filledHeaders, filledUrl, requiredVariable } from "./remote/engine_config.ts";
import { printableUrl } from "./remote/remote_error.ts";
import type { Passage } from "../lexical/passages.ts";
import { cachedCall, type RetrievalCacheSetup } from "./remote/cached_call.ts";
import { type RerankCall, type RerankReply, rerankScores } from "./remote/rerank_client.ts";
import type { RetrievalHit, RetrievalOutcome, Retriever } from "./types.ts";

/** What a rerank retriever is built from. */
export interface RerankSpec {
  name: string;
  /** Passages returned when the caller does not ask for a number. */
  topK: number;
  /** The first stage, built by the run. */
  base: Retriever;
  /** Passages of the base ranking sent to the reranker. */
  topN: number;
  /** The endpoint, model, headers, limits and retries of the call. */
  call: RerankCall;
  /** The endpoint as the config writes it (`${VAR}` unexpanded): part of the cache key. */
  endpoint: string;
  /** USD per million tokens (Jina, Voyage); null: not billed by tokens. */
  pricePerMtok: number | null;
  /** USD per search unit (Cohere); null: not billed by searches. */
  pricePerSearchUnit: number | null;
  /** The run's response cache; null: none. */
  cache: RetrievalCacheSetup | null;
  /** A `--mock` run: nothing is sent, the base ranking is kept. */
  mock: boolean;
}

const replySchema = z.strictObject({
  scores: z.array(z.number()),
  tokens: z.number().nonnegative().nullable(),
  search_units: z.number().nonnegative().nullable(),
});

/** The text of a passage as the reranker reads it: its title, a newline, its text. */
export function rerankText(passage: Passage): string {
  return passage.title === "" ? passage.text : `${passage.title}\n${passage.text}`;
}

/** Builds a `kind: rerank` retriever of a run over the run's build of its base. */
export async function buildRerank(
  request: RetrieverBuildRequest<RerankConfig>,
): Promise<Retriever> {
  const config = request.config;
  const baseConfig = rerankBase(config);
  if (baseConfig === null) {
    throw new TypeError(`rerank retriever ${request.name}: its base was not resolved`);
  }
  const base = await request.retriever(baseConfig);
  const secrets = new Secrets();
  // Under --mock nothing is sent, so no template is filled and no key is read.
  const root = request.mock
    ? config.base_url
    : filledUrl(config.base_url, "base_url", request, secrets);
  const url = `${root.replace(/\/+$/, "")}/rerank`;
  const headers = request.mock ? {} : filledHeaders(config.headers, request, secrets);
  if (!request.mock && config.api_key_env !== null) {
    const key = requiredVariable(config.api_key_env, "api_key_env", request, secrets);
    headers.authorization = `Bearer ${key}`;
  }
  const host = printableUrl(url);
  if (request.mock) {
    request.progress?.(
      `retriever ${request.name}: --mock keeps the base ranking (no request to ${host})`,
    );
  }
  return createRerankRetriever({
    name: request.name,
    topK: config.top_k ?? DEFAULT_TOP_K,
    base,
    topN: config.top_n,
    call: {
      url,
      model: config.model,
      site: { retriever: request.name, kind: "rerank", host },
      headers,
      timeoutMs: config.timeout_s * 1000,
      maxRetries: config.max_retries,
      maxBytes: Math.round(config.max_response_mb * 1_048_576),
      secrets,
    },
    endpoint: `${config.base_url} ${JSON.stringify(config.headers)}`,
    pricePerMtok: config.price_per_mtok,
    pricePerSearchUnit: config.price_per_search_unit,
    cache: request.responses,
    mock: request.mock,
  });
}

/** Builds the retriever (no request is made until the first search). */
export function createRerankRetriever(spec: RerankSpec): Retriever {
  const { base, topN } = spec;
  return {
    name: spec.name,
    kind: "rerank",
    topK: spec.topK,
    passages: base.passages,
    async search(query, k, signal): Promise<RetrievalOutcome> {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be >= 1, got ${k}`);
      const first = await base.search(query, Math.max(k, topN), signal);
      const candidates = first.hits.slice(0, topN);
      if (spec.mock || candidates.length === 0) return { ...first, hits: first.hits.slice(0, k) };
      const documents = candidates.map((hit) => rerankText(hit.passage));
      const request = { model: spec.call.model, query, documents };
      let attempts = undefined;
      const { value, cached } = await cachedCall(
        spec.cache,
        spec.call.site,
        { retriever_kind: "rerank", endpoint: spec.endpoint, request },
        replySchema,
        async (): Promise<RerankReply> => {
          const answer = await rerankScores(query, documents, spec.call, signal);
          attempts = answer.attempts;
          return answer.reply;
        },
        signal,
      );
      if (value.scores.length !== candidates.length) {
        // Only a cache entry written for other documents can get here (the key covers them).
        throw new TypeError("a recorded rerank reply has another number of scores");
      }
      const hits = reorder(candidates, value.scores);
      hits.push(...tail(first.hits.slice(topN, k), hits[hits.length - 1].score));
      return {
        hits: hits.slice(0, k),
        embedding_tokens: first.embedding_tokens,
        cost_usd: addCost(first.cost_usd, cached ? 0 : costOf(value, documents, query, spec)),
        ...(attempts === undefined ? {} : { attempts }),
      };
    },
  };
}

/** `candidates` ordered by `scores` (higher first), equal scores in their base order. */
function reorder(candidates: readonly RetrievalHit[], scores: readonly number[]): RetrievalHit[] {
  const order = candidates.map((_, i) => i);
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  return order.map((i) => ({ passage: candidates[i].passage, score: scores[i] }));
}

/** The base hits below the reranked ones, scored 1, 2, ... below `last`. */
function tail(rest: readonly RetrievalHit[], last: number): RetrievalHit[] {
  return rest.map((hit, i) => ({ passage: hit.passage, score: last - (i + 1) }));
}

/** What one rerank request cost: null when no price is set (never 0 for that). */
function costOf(
  reply: RerankReply,
  documents: readonly string[],
  query: string,
  spec: RerankSpec,
): number | null {
  if (spec.pricePerMtok === null && spec.pricePerSearchUnit === null) return null;
  let cost = 0;
  if (spec.pricePerMtok !== null) {
    // Without the server's count, 4 characters a token, as for embeddings.
    let chars = query.length * documents.length;
    for (const text of documents) chars += text.length;
    cost += (reply.tokens ?? Math.ceil(chars / 4)) * spec.pricePerMtok / 1_000_000;
  }
  if (spec.pricePerSearchUnit !== null) cost += (reply.search_units ?? 1) * spec.pricePerSearchUnit;
  return cost;
}

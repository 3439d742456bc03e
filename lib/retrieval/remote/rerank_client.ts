/**
 * The rerank HTTP API that Cohere, Jina, Voyage, vLLM (and Hugging Face
 * TEI) serve: `POST {base_url}/rerank` with `{model, query, documents}`,
 * answered by one relevance score per document, as
 * `{results: [{index, relevance_score}]}` (Cohere, Jina, vLLM),
 * `{data: [...]}` (Voyage) or a bare list of `{index, score}` (TEI).
 *
 * `top_n` is not sent, so every document gets its score; and every reply is
 * checked: exactly one finite score for each document index. A reply with
 * fewer scores than documents (a server that applied its own `top_n`, or cut
 * the list) is an error, never a silent reorder of the ones it scored.
 * Tokens are the reply's `usage.total_tokens` (Jina, Voyage, vLLM) or
 * `meta.billed_units` (Cohere: `search_units`, and tokens when it sends
 * them); null when it sends none.
 *
 * @module
 */

import { postJson } from "./http_json.ts";
import type { PostJsonOptions } from "./http_json.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";
import type { RetryReport } from "../../llm/retry_policy.ts";

/** The scores of one rerank request and what it used. */
export interface RerankReply {
  /** One score a document, in the order the documents were sent. */
  scores: number[];
  /** Tokens the server says it used; null when it says nothing. */
  tokens: number | null;
  /** Cohere's billed search units; null when not sent. */
  search_units: number | null;
}

/** Options of {@link rerankScores}: the call's and the request's. */
export interface RerankCall extends Omit<PostJsonOptions, "signal"> {
  /** The full endpoint, `{base_url}/rerank`. */
  url: string;
  model: string;
}

/**
 * Scores `documents` for `query`.
 *
 * @throws {EngineError} when the call fails or the reply is unusable.
 */
export async function rerankScores(
  query: string,
  documents: readonly string[],
  call: RerankCall,
  signal: AbortSignal,
): Promise<{ reply: RerankReply; attempts: RetryReport }> {
  const { value, attempts } = await postJson(
    call.url,
    { model: call.model, query, documents },
    { ...call, signal },
  );
  try {
    return { reply: parseRerankReply(value, documents.length, call.site), attempts };
  } catch (error) {
    if (error instanceof EngineError) error.attempts = attempts;
    throw error;
  }
}

/**
 * Reads a rerank reply for `count` documents.
 *
 * @throws {EngineError} naming what is wrong (missing list, count, index, score).
 */
export function parseRerankReply(value: unknown, count: number, site: EngineSite): RerankReply {
  const list = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.results)
    ? value.results
    : isRecord(value) && Array.isArray(value.data)
    ? value.data
    : null;
  const bad = (what: string) =>
    new EngineError(
      site,
      `sent an unusable rerank reply: ${what}. Check base_url (the API root, whose /rerank ` +
        "is called) and model.",
    );
  if (list === null) throw bad("it has no results (or data) list");
  if (list.length !== count) {
    throw bad(
      `${list.length} scores for ${count} documents (every document must be scored; ` +
        "the results are not reordered from a partial list)",
    );
  }
  const scores: number[] = new Array(count);
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (!isRecord(item)) throw bad(`result ${i} is not an object`);
    const index = item.index;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count) {
      throw bad(`result ${i} has index ${short(index)}, not one of 0..${count - 1}`);
    }
    if (scores[index] !== undefined) throw bad(`index ${index} is scored twice`);
    const score = typeof item.relevance_score === "number" ? item.relevance_score : item.score;
    if (typeof score !== "number" || !Number.isFinite(score)) {
      throw bad(`result ${i} (index ${index}) has no finite relevance_score`);
    }
    scores[index] = score;
  }
  return { scores, ...usageOf(value) };
}

function usageOf(value: unknown): { tokens: number | null; search_units: number | null } {
  const usage = isRecord(value) && isRecord(value.usage) ? value.usage : null;
  const billed = isRecord(value) && isRecord(value.meta) && isRecord(value.meta.billed_units)
    ? value.meta.billed_units
    : null;
  const tokens = count(usage?.total_tokens) ?? count(usage?.prompt_tokens) ??
    sum(count(billed?.input_tokens), count(billed?.output_tokens));
  return { tokens, search_units: count(billed?.search_units) };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function sum(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

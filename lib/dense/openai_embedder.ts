/**
 * The `openai` embedder: any OpenAI-compatible `POST /embeddings` endpoint
 * (OpenAI, Ollama, vLLM, llama.cpp server, TEI, LiteLLM) through `npm:openai`.
 *
 * Per call: the kind's prefix is put before each text; texts found in the
 * cache (if one is given) are not sent; the rest are sent once each (a text
 * repeated in a call is sent once) in batches of `batchSize`, each batch
 * retried after 429, 408, 409, 5xx, connection errors and timeouts with
 * exponential backoff (0.5 s, 1 s, 2 s, ... capped at 20 s, or the server's
 * `Retry-After` when it sends one, capped at 60 s) and written to the cache
 * as soon as it arrives. `dimensions` is sent only when set, and
 * `encoding_format: "float"` always (the SDK's base64 default is not spoken
 * by every server). Empty texts are not sent (servers refuse them): they get
 * the zero vector.
 *
 * Every reply is checked: one vector per text, all of one size (the
 * configured `dimensions`, else the size of the first reply), finite numbers.
 * Failures are {@link EmbeddingError}s naming the host and model, never the key.
 *
 * Tokens are the reply's `usage.prompt_tokens` (else `total_tokens`, else an
 * estimate of 4 characters a token); cost is tokens × price per million
 * (null when the price is unknown).
 *
 * @module
 */

import { abortableSleep } from "../util/sleep.ts";
import type OpenAI from "openai";
import { openAIClient } from "../llm/openai_client.ts";
import { OPENAI_BASE_URL, safeUrl } from "../llm/endpoint_text.ts";
import { openAIEmbedderId } from "./openai_embedder_id.ts";
import type { EmbeddingCache } from "./embedding_cache.ts";
import {
  afterRetries,
  describeEmbeddingFailure,
  type EmbeddingFailureContext,
  malformedReply,
} from "./embedding_errors.ts";
import type { Embedder, Embeddings, EmbedKind } from "./embedder.ts";

export { openAIEmbedderId };

/** First retry delay, in ms; each further retry doubles it. */
export const RETRY_BASE_MS = 500;
/** Longest computed backoff, in ms. */
export const RETRY_CAP_MS = 20_000;

/** Options of {@link createOpenAIEmbedder}. */
export interface OpenAIEmbedderOptions {
  model: string;
  /** API root; null for OpenAI itself. */
  baseUrl: string | null;
  /** Bearer key; null or empty sends no `Authorization` header. */
  apiKey: string | null;
  /** Vector size to request; null: the model's own (not sent). */
  dimensions: number | null;
  batchSize: number;
  maxRetries: number;
  /** Time one request may take, in ms. */
  timeoutMs: number;
  queryPrefix: string;
  passagePrefix: string;
  /**
   * USD per million tokens (the config's or the price catalog's, see
   * lib/llm/pricing.ts); null: unknown, and a call that sends texts then
   * costs null, never 0 (one served wholly from the cache costs 0).
   */
  pricePerMtok: number | null;
  /** Where vectors are looked up and stored; null: no cache. */
  cache: EmbeddingCache | null;
  /** Waits between retries (tests pass a recorder); default a timer that the signal cancels. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Creates the embedder. The signal given to `embed` cancels the request in
 * flight and any wait between retries.
 *
 * @throws {RangeError} for a non-positive batch size or timeout.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  if (!Number.isInteger(options.batchSize) || options.batchSize < 1) {
    throw new RangeError(`batchSize must be a whole number >= 1, got ${options.batchSize}`);
  }
  if (!(options.timeoutMs > 0)) {
    throw new RangeError(`timeoutMs must be positive, got ${options.timeoutMs}`);
  }
  const baseUrl = options.baseUrl ?? OPENAI_BASE_URL;
  const apiKey = options.apiKey || null;
  const context: EmbeddingFailureContext = {
    site: safeUrl(baseUrl),
    model: options.model,
    apiKey,
    timeoutMs: options.timeoutMs,
  };
  const id = openAIEmbedderId(options.model, options.baseUrl, options.dimensions);
  const price = options.pricePerMtok;
  const sleep = options.sleep ?? abortableSleep;
  const client = openAIClient({ apiKey, baseUrl, timeoutMs: options.timeoutMs });
  let dimensions = options.dimensions;

  async function request(
    inputs: string[],
    signal: AbortSignal,
  ): Promise<{ vectors: Float32Array[]; tokens: number }> {
    let retries = 0;
    while (true) {
      try {
        const body: OpenAI.EmbeddingCreateParams = {
          model: options.model,
          input: inputs,
          encoding_format: "float",
        };
        if (options.dimensions !== null) body.dimensions = options.dimensions;
        const reply: unknown = await client.embeddings.create(body, { signal });
        return parseReply(reply, inputs);
      } catch (caught) {
        const error = describeEmbeddingFailure(caught, signal, context);
        if (!error.retryable || retries >= options.maxRetries || signal.aborted) {
          throw afterRetries(error, retries);
        }
        const backoff = Math.min(RETRY_BASE_MS * 2 ** retries, RETRY_CAP_MS);
        retries++;
        try {
          await sleep(error.retryAfterMs ?? backoff, signal);
        } catch {
          throw describeEmbeddingFailure(signal.reason, signal, context);
        }
      }
    }
  }

  function parseReply(
    reply: unknown,
    inputs: string[],
  ): { vectors: Float32Array[]; tokens: number } {
    const data = isRecord(reply) ? reply.data : undefined;
    if (!Array.isArray(data)) throw malformedReply(context, "the reply has no data list");
    if (data.length !== inputs.length) {
      throw malformedReply(context, `${data.length} vectors for ${inputs.length} texts`);
    }
    const vectors: Float32Array[] = new Array(inputs.length);
    for (let i = 0; i < data.length; i++) {
      const item: unknown = data[i];
      const raw = isRecord(item) ? item.embedding : undefined;
      // Servers order by `index`; trust it when present and valid.
      const at = isRecord(item) && Number.isInteger(item.index) ? item.index as number : i;
      if (!Array.isArray(raw)) throw malformedReply(context, `item ${i} has no embedding list`);
      if (at < 0 || at >= inputs.length || vectors[at] !== undefined) {
        throw malformedReply(context, `item ${i} has a bad or repeated index ${at}`);
      }
      if (dimensions === null) dimensions = raw.length;
      if (raw.length !== dimensions || raw.length === 0) {
        throw malformedReply(
          context,
          `a vector of ${raw.length} numbers where ${dimensions} were expected` +
            (options.dimensions === null
              ? " (the size of earlier vectors)"
              : " (embedding.dimensions)"),
        );
      }
      const vector = new Float32Array(raw.length);
      for (let j = 0; j < raw.length; j++) {
        const v: unknown = raw[j];
        if (typeof v !== "number" || !Number.isFinite(v)) {
          throw malformedReply(context, `item ${i} holds a non-finite value at position ${j}`);
        }
        vector[j] = v;
      }
      vectors[at] = vector;
    }
    return { vectors, tokens: tokensOf(reply, inputs) };
  }

  return {
    id,
    async embed(
      texts: readonly string[],
      { kind, signal }: { kind: EmbedKind; signal: AbortSignal },
    ) {
      signal.throwIfAborted();
      const prefix = kind === "query" ? options.queryPrefix : options.passagePrefix;
      const found: (Float32Array | null)[] = options.cache === null
        ? texts.map(() => null)
        : options.cache.get(id, prefix, texts);
      // Unique texts still to fetch, in first-seen order.
      const missing = new Map<string, number[]>();
      for (let i = 0; i < texts.length; i++) {
        const vector = found[i];
        if (vector !== null && (dimensions === null || vector.length === dimensions)) {
          dimensions ??= vector.length;
          continue;
        }
        found[i] = null;
        if (texts[i] === "") continue;
        const slots = missing.get(texts[i]);
        if (slots) slots.push(i);
        else missing.set(texts[i], [i]);
      }
      const cached = found.filter((v) => v !== null).length;
      const pending = [...missing.keys()];
      let tokens = 0;
      for (let start = 0; start < pending.length; start += options.batchSize) {
        const batch = pending.slice(start, start + options.batchSize);
        const reply = await request(batch.map((t) => prefix + t), signal);
        tokens += reply.tokens;
        options.cache?.put(
          id,
          prefix,
          batch.map((text, i) => ({ text, vector: reply.vectors[i] })),
        );
        for (let i = 0; i < batch.length; i++) {
          for (const slot of missing.get(batch[i]) ?? []) found[slot] = reply.vectors[i];
        }
      }
      const size = dimensions ?? 0;
      const vectors = new Float32Array(texts.length * size);
      for (let i = 0; i < texts.length; i++) {
        const vector = found[i];
        if (vector !== null) vectors.set(vector, i * size);
      }
      const result: Embeddings = {
        vectors,
        dimensions: size,
        tokens,
        cost_usd: tokens === 0 ? 0 : price === null ? null : tokens * price / 1_000_000,
        cached,
      };
      return result;
    },
  };
}

function tokensOf(reply: unknown, inputs: string[]): number {
  const usage = isRecord(reply) && isRecord(reply.usage) ? reply.usage : {};
  for (const key of ["prompt_tokens", "total_tokens"]) {
    const value = usage[key];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  }
  let chars = 0;
  for (const text of inputs) chars += text.length;
  return Math.ceil(chars / 4);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Failure messages of the OpenAI-compatible embedder: what the `npm:openai`
 * SDK throws (refused connections, timeouts, missing network permission,
 * HTTP statuses) and what a server sends that cannot be used (wrong count
 * or size of vectors, non-finite values) become an {@link EmbeddingError}
 * whose message names the host and the model and says what to do. No
 * message ever contains the API key: quoted server text is scrubbed.
 *
 * @module
 */

import OpenAI from "openai";
import { EmbeddingError } from "./embedding_error.ts";
import { causeChain, clip, scrub } from "../llm/openai_errors.ts";
import { requestedWaitMs } from "../llm/retry_policy.ts";

export { EmbeddingError };

/** What messages need to know; holds the key only to scrub it. */
export interface EmbeddingFailureContext {
  /** Base URL safe to print. */
  site: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}

/** Longest Retry-After honoured, in ms (a longer one is cut to this). */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Turns what one embeddings request threw into an {@link EmbeddingError}
 * (the original is its `cause`); `signal` is the caller's: once it fired,
 * the failure is a cancellation whatever the SDK threw.
 */
export function describeEmbeddingFailure(
  error: unknown,
  signal: AbortSignal,
  context: EmbeddingFailureContext,
): EmbeddingError {
  const { site, model } = context;
  const at = `Embedding API at ${site} (model "${model}")`;
  if (error instanceof EmbeddingError) return error;
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted) {
    return new EmbeddingError(`Embedding request to ${site} was cancelled.`, { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new EmbeddingError(
      `${at} did not answer within ${context.timeoutMs / 1000} s. ` +
        "Check that the server is up and not overloaded, or raise embedding.timeout_s.",
      { cause: error, retryable: true },
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new EmbeddingError(unreachable(at, site, error, context.apiKey), {
      cause: error,
      retryable: !isPermissionFailure(error),
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status;
    const said = detail(error.error, context.apiKey);
    return new EmbeddingError(statusMessage(at, status, said, context.apiKey !== null), {
      cause: error,
      retryable: status === 408 || status === 409 || status === 429 || status >= 500,
      retryAfterMs: retryAfter(error.headers),
    });
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new EmbeddingError(
    `${at} sent a reply that could not be read (${clip(scrub(text, context.apiKey))}). ` +
      "Check that embedding.base_url points to an OpenAI-compatible API serving /embeddings.",
    { cause: error },
  );
}

/** A reply that arrived but cannot be used: wrong count, size or values. */
export function malformedReply(context: EmbeddingFailureContext, what: string): EmbeddingError {
  return new EmbeddingError(
    `Embedding API at ${context.site} (model "${context.model}") returned unusable vectors: ${what}. ` +
      "Check embedding.model, embedding.dimensions and that the server is an OpenAI-compatible " +
      "embeddings endpoint.",
  );
}

/** Appends how many retries were made to a final failure's message. */
export function afterRetries(error: EmbeddingError, retries: number): EmbeddingError {
  if (retries === 0) return error;
  return new EmbeddingError(
    `${error.message} (Gave up after ${retries} ${retries === 1 ? "retry" : "retries"}.)`,
    { cause: error.cause, retryable: false },
  );
}

function statusMessage(at: string, status: number, said: string, hasKey: boolean): string {
  const quoted = said === "" ? "" : `: ${said}`;
  if (status === 401) {
    // Never echo the server's text: OpenAI quotes part of the rejected key.
    return hasKey
      ? `${at} rejected the API key (HTTP 401). ` +
        "Check that the variable named by embedding.api_key_env holds a valid key for this server."
      : `${at} requires an API key (HTTP 401) and none was sent. ` +
        "Set the variable named by embedding.api_key_env (and set embedding.api_key_env if it is null).";
  }
  if (status === 403) {
    return `${at} refused access (HTTP 403${quoted}). Check that the API key may use this model.`;
  }
  if (status === 404) {
    return `${at} answered 404 Not Found${quoted}. Check embedding.model and that ` +
      "embedding.base_url is the API root (usually ending in /v1) of a server with /embeddings.";
  }
  if (status === 429) {
    return `${at} rate-limited the request (HTTP 429${quoted}). ` +
      "Lower embedding.batch_size or evaluation.concurrency, wait, or check the account's quota.";
  }
  if (status >= 500) {
    return `${at} failed (HTTP ${status}${quoted}). ` +
      "The server had a problem; try again later or check its logs.";
  }
  return `${at} rejected the request (HTTP ${status}${quoted}). ` +
    "Check embedding.model, embedding.dimensions (not every model accepts it) and embedding.batch_size.";
}

function isPermissionFailure(error: Error): boolean {
  return causeChain(error).some((cause) =>
    cause instanceof Deno.errors.NotCapable ||
    (cause instanceof Error && cause.message.includes("Requires net access"))
  );
}

function unreachable(at: string, site: string, error: Error, apiKey: string | null): string {
  const chain = causeChain(error);
  const text = chain.map((c) => c instanceof Error ? c.message : String(c)).join(" | ");
  const permission = /Requires net access to "([^"]+)"/.exec(text);
  if (permission || chain.some((c) => c instanceof Deno.errors.NotCapable)) {
    const host = permission?.[1] ?? new URL(site).host;
    return `${at} could not be reached: network permission for "${host}" was not granted. ` +
      `Run again with --allow-net=${host}.`;
  }
  if (/connection refused/i.test(text)) {
    return `${at} could not be reached: connection refused. ` +
      "Check embedding.base_url and that the server is running.";
  }
  if (/dns error|failed to lookup|name or service not known|nodename nor servname/i.test(text)) {
    return `${at} could not be reached: host name not found. Check the host in embedding.base_url.`;
  }
  return `${at} could not be reached: ${clip(scrub(text, apiKey))}. ` +
    "Check embedding.base_url and that the server is running.";
}

function detail(body: unknown, apiKey: string | null): string {
  const message = typeof body === "object" && body !== null && "message" in body
    ? (body as { message: unknown }).message
    : body;
  return typeof message === "string" ? clip(scrub(message.trim(), apiKey), 200) : "";
}

/** Wait asked for by `retry-after-ms` or `retry-after` (seconds or an HTTP date), in ms, capped. */
export function retryAfter(headers: Headers | undefined, now = Date.now()): number | null {
  const wait = requestedWaitMs(headers, now);
  return wait === null ? null : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/**
 * One JSON-over-HTTP call of a retriever's service (a reranker, the user's
 * retrieval service), with the same rules as model calls: a time limit per
 * attempt, retries after no response, 408, 409, 429 and 5xx with the
 * policy of `lib/llm/retry_policy.ts` (its `Retry-After` handling, backoff
 * and report), and a reply read as a stream under a byte cap before it is
 * parsed, so a 50 MB answer costs at most the cap and is an error, not an
 * out-of-memory crash.
 *
 * Redirects are not followed (a redirect could carry the request's headers,
 * a token say, to another host): a 3xx is an error naming where it pointed.
 * Every failure is an {@link EngineError} naming the retriever and the
 * service's address; text quoted from the server is clipped and masked.
 *
 * @module
 */

import {
  isRetryableStatus,
  RetriesExhausted,
  type RetryClock,
  type RetryReport,
  SYSTEM_CLOCK,
  withRetries,
} from "../../llm/retry_policy.ts";
import type { Secrets } from "../../util/secrets.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";

/** Options of {@link postJson}. */
export interface PostJsonOptions {
  site: EngineSite;
  /** Extra request headers (already filled in; their secret values are in `secrets`). */
  headers?: Readonly<Record<string, string>>;
  /** Time one attempt may take, ms. */
  timeoutMs: number;
  /** Largest reply body read, bytes. */
  maxBytes: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Cancels the call, an attempt in flight and a wait between attempts. */
  signal: AbortSignal;
  /** Values masked in quoted server text. */
  secrets?: Secrets;
  /** Injected in tests (no sleeping); default the real clock. */
  clock?: RetryClock;
}

/** A parsed reply and what its retries cost. */
export interface PostJsonResult {
  value: unknown;
  attempts: RetryReport;
}

/**
 * POSTs `body` as JSON to `url` and returns the parsed reply.
 *
 * @throws {EngineError} after the last attempt, carrying `attempts`.
 */
export async function postJson(
  url: string,
  body: unknown,
  options: PostJsonOptions,
): Promise<PostJsonResult> {
  const payload = JSON.stringify(body);
  try {
    const { value, report } = await withRetries(
      (signal) => attempt(url, payload, { ...options, signal }),
      {
        maxRetries: options.maxRetries,
        clock: options.clock ?? SYSTEM_CLOCK,
        signal: options.signal,
        classify: (error) =>
          error instanceof EngineError
            ? { status: error.status, headers: error.headers, retryable: error.retryable }
            : { status: null, headers: null, retryable: false },
      },
    );
    return { value, attempts: report };
  } catch (caught) {
    if (!(caught instanceof RetriesExhausted)) throw caught;
    const last = caught.cause;
    const error = last instanceof EngineError
      ? last
      : new EngineError(options.site, `failed: ${String(last)}`, { cause: last });
    const retries = caught.report.retries;
    const final = retries === 0 ? error : new EngineError(
      options.site,
      `${error.what} (Gave up after ${retries} ${retries === 1 ? "retry" : "retries"}.)`,
      { cause: error.cause, status: error.status, headers: error.headers },
    );
    final.attempts = caught.report;
    throw final;
  }
}

async function attempt(url: string, payload: string, options: PostJsonOptions): Promise<unknown> {
  const { site, signal } = options;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...options.headers,
      },
      body: payload,
      signal: both,
      redirect: "manual",
    });
  } catch (error) {
    throw noResponse(error, options, timeout);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const to = response.headers.get("location");
    throw new EngineError(
      site,
      `answered a redirect (HTTP ${response.status}${to ? ` to ${clip(to, 200)}` : ""}). ` +
        "Give the final address in the config: redirects are not followed.",
      { status: response.status },
    );
  }
  if (!response.ok) {
    const text = await readCapped(response, 2_000, both).then(
      (r) => new TextDecoder().decode(r.bytes),
      () => "",
    );
    const said = quote(text, options.secrets);
    throw new EngineError(
      site,
      `answered HTTP ${response.status}${said ? `: ${said}` : ""}. ` +
        statusAdvice(response.status),
      {
        status: response.status,
        headers: response.headers,
        retryable: isRetryableStatus(response.status, response.headers),
      },
    );
  }
  let bytes: Uint8Array;
  try {
    const read = await readCapped(response, options.maxBytes, both);
    if (read.over) {
      throw new EngineError(
        site,
        `sent a reply over ${megabytes(options.maxBytes)} (the limit of one reply). ` +
          "Ask for fewer results, or raise max_response_mb if the reply is genuine.",
      );
    }
    bytes = read.bytes;
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw noResponse(error, options, timeout);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new EngineError(site, "sent a reply that is not valid UTF-8 text.");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EngineError(
      site,
      `sent a reply that is not JSON (${clip((error as Error).message, 120)}; it starts ` +
        `${JSON.stringify(quote(text, options.secrets, 80))}).`,
    );
  }
}

/** Reads at most `limit` bytes of the body; `over` when there were more (the rest is not read). */
async function readCapped(
  response: Response,
  limit: number,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; over: boolean }> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    return { bytes: new Uint8Array(0), over: true };
  }
  if (response.body === null) return { bytes: new Uint8Array(0), over: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      signal.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        return { bytes: new Uint8Array(0), over: true };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, over: false };
}

/** The failure of an attempt that got no (complete) response. */
function noResponse(
  error: unknown,
  options: PostJsonOptions,
  timeout: AbortSignal,
): EngineError {
  const { site, signal } = options;
  if (signal.aborted) return new EngineError(site, "the call was cancelled.", { cause: error });
  if (timeout.aborted) {
    return new EngineError(
      site,
      `did not answer within ${options.timeoutMs / 1000} s. ` +
        "Check that the service is up and not overloaded, or raise timeout_s.",
      { cause: error, retryable: true },
    );
  }
  const text = causeText(error);
  const permission = /Requires net access to "([^"]+)"/.exec(text);
  if (permission || error instanceof Deno.errors.NotCapable) {
    return new EngineError(
      site,
      `could not be reached: network permission${
        permission ? ` for "${permission[1]}"` : ""
      } was not granted. Run again with the flags \`ragbench permissions CONFIG\` prints.`,
      { cause: error },
    );
  }
  const why = /connection refused/i.test(text)
    ? "connection refused"
    : /dns error|failed to lookup|name or service not known/i.test(text)
    ? "host name not found"
    : clip(quote(text, options.secrets), 200);
  return new EngineError(
    site,
    `could not be reached: ${why}. Check the address and that the service is running.`,
    { cause: error, retryable: true },
  );
}

function statusAdvice(status: number): string {
  if (status === 401 || status === 403) {
    return "Check the key or token the config's headers (or api_key_env) send.";
  }
  if (status === 404) return "Check the URL (the path included).";
  if (status === 429) return "Lower evaluation.concurrency, or wait for the rate limit.";
  if (status >= 500) return "The service had a problem; see its logs.";
  return "Check the request the config asks for (model, field names).";
}

function causeText(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (let depth = 0; at !== undefined && at !== null && depth < 5; depth++) {
    parts.push(at instanceof Error ? at.message : String(at));
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(" | ");
}

/** Server text fit for a message: one line, clipped, secrets masked. */
function quote(text: string, secrets?: Secrets, limit = 300): string {
  // Masked before it is cut, so a secret is never shown in part.
  const masked = secrets ? secrets.redact(text) : text;
  return clip(masked.slice(0, limit * 4).replace(/\s+/g, " ").trim(), limit);
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}...`;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1_048_576 * 10) / 10} MB`;
}

/**
 * Reading a search engine's reply (a Node stream from an official client's
 * `asStream` request) under a byte cap, and turning its status and body into
 * a parsed value or an {@link EngineError}: what both search-engine clients
 * (es_client.ts, os_client.ts) do with every search response, so a 50 MB
 * answer costs at most the cap, malformed JSON is an error naming the
 * retriever and the host, and an error status quotes the engine's
 * `error.type` and `error.reason`.
 *
 * The body is read under the attempt's deadline and the caller's signal:
 * the official clients stop watching their own timeout and abort signal as
 * soon as the headers arrive (`asStream`), so an engine that stalls in the
 * middle of a body would otherwise hang the question, past `timeout_s` and
 * past Ctrl-C.
 *
 * @module
 */

import { isRetryableStatus } from "../../llm/retry_policy.ts";
import type { Secrets } from "../../util/secrets.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";

/** A readable body: a Node stream of bytes. */
export interface BodyStream {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): void;
}

/** Options of {@link readEngineReply}. */
export interface EngineReplyOptions {
  site: EngineSite;
  maxBytes: number;
  secrets: Secrets;
  /** The attempt's time limit, ms (what the timeout message says). */
  timeoutMs: number;
  /** Aborts when the attempt's time is up (started with the request). */
  deadline: AbortSignal;
  /** The caller's signal: the question's, aborted on Ctrl-C. */
  signal: AbortSignal;
}

/**
 * The parsed body of a reply with `status` and `headers`.
 *
 * @throws {EngineError} when the status is an error, the body is over
 *   `maxBytes`, it is not JSON, or it did not end before the deadline
 *   (retryable) or the signal.
 */
export async function readEngineReply(
  status: number,
  headers: Record<string, unknown>,
  body: BodyStream | null,
  options: EngineReplyOptions,
): Promise<unknown> {
  const { site } = options;
  const limit = status >= 400 ? 64_000 : options.maxBytes;
  let read: { text: string; over: boolean };
  try {
    read = body === null
      ? { text: "", over: false }
      : await readCapped(body, limit, AbortSignal.any([options.signal, options.deadline]));
  } catch (error) {
    if (options.signal.aborted) {
      throw new EngineError(site, "the request was cancelled.", { cause: error });
    }
    if (options.deadline.aborted) {
      throw new EngineError(
        site,
        `did not answer within ${options.timeoutMs / 1000} s (its reply stopped part-way). ` +
          "Check that the engine is up and not overloaded, or raise timeout_s.",
        { cause: error, retryable: true },
      );
    }
    throw new EngineError(
      site,
      `broke off its reply (${String((error as Error)?.message ?? error).slice(0, 200)}).`,
      { cause: error, retryable: true },
    );
  }
  if (status >= 400) {
    const said = errorText(read.text, options.secrets);
    const web = new Headers();
    const after = headers["retry-after"];
    if (typeof after === "string") web.set("retry-after", after);
    throw new EngineError(site, `answered HTTP ${status}${said ? `: ${said}` : ""}.`, {
      status,
      headers: web,
      retryable: isRetryableStatus(status, web),
    });
  }
  if (read.over) {
    throw new EngineError(
      site,
      `sent a search response over ${Math.round(options.maxBytes / 1_048_576)} MB ` +
        "(the limit of one reply). Ask for fewer results, or raise max_response_mb.",
    );
  }
  try {
    return JSON.parse(read.text);
  } catch (error) {
    throw new EngineError(
      site,
      `sent a search response that is not JSON (${(error as Error).message.slice(0, 120)}).`,
    );
  }
}

/**
 * Reads at most `limit` bytes; `over` when there were more (the stream is
 * then destroyed). Listens to the stream's events: under Deno's Node
 * emulation, `for await` over a response of the official clients never
 * ended inside a run (it did in a bare script), and events do in both.
 * When `signal` aborts first, the stream is destroyed and the promise
 * rejects with the signal's reason.
 */
export function readCapped(
  body: BodyStream,
  limit: number,
  signal: AbortSignal,
): Promise<{ text: string; over: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const encoder = new TextEncoder();
    const done = () => {
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", onError);
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      body.destroy();
      reject(signal.reason);
    };
    if (signal.aborted) {
      body.destroy();
      reject(signal.reason);
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    const onData = (piece: Uint8Array | string) => {
      const chunk = typeof piece === "string" ? encoder.encode(piece) : piece;
      total += chunk.byteLength;
      if (total > limit) {
        done();
        body.destroy();
        resolve({ text: "", over: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      resolve({ text: new TextDecoder().decode(bytes), over: false });
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    body.on("data", onData);
    body.on("end", onEnd);
    body.on("error", onError);
  });
}

/** `error.type: error.reason` of an engine's error body, else its text; masked and clipped. */
export function errorText(text: string, secrets: Secrets): string {
  let said = text;
  try {
    const parsed = JSON.parse(text) as { error?: { type?: unknown; reason?: unknown } | string };
    const error = parsed?.error;
    if (typeof error === "string") said = error;
    else if (error && typeof error.reason === "string") {
      said = typeof error.type === "string" ? `${error.type}: ${error.reason}` : error.reason;
    }
  } catch {
    // not JSON: the text itself
  }
  const one = secrets.redact(said).replace(/\s+/g, " ").trim();
  return one.length > 300 ? `${one.slice(0, 300)}...` : one;
}

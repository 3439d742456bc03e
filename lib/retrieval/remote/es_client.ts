/**
 * The {@link EngineClient} of the `elasticsearch` retriever, over the
 * official client `@elastic/elasticsearch` (pinned in deno.json), loaded
 * with `import()` only by a run that has such a retriever, and loaded and
 * built while `process.env` is empty (its `debug` dependency lists every
 * variable at load, its transport reads `OTEL_*` ones). The client puts the
 * OS release in its User-Agent, which needs `--allow-sys=osRelease`
 * (`ragbench permissions` lists it).
 *
 * Requests go through the client's `HttpConnection` (node:http; its default,
 * undici, reads the environment on its first request). Index, bulk,
 * refresh and count requests use the client's own retries;
 * a search is made once per attempt with `asStream`, read under the byte
 * cap and the attempt's deadline (engine_reply.ts) and retried by
 * ragbench's policy, so its retries are recorded on the retrieval step like
 * a model call's.
 *
 * @module
 */

import { withoutEnvironment, withoutEnvironmentAsync } from "../../util/node_env.ts";
import type { Secrets } from "../../util/secrets.ts";
import {
  RetriesExhausted,
  type RetryReport,
  SYSTEM_CLOCK,
  withRetries,
} from "../../llm/retry_policy.ts";
import { type BodyStream, errorText, readEngineReply } from "./engine_reply.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";
import type { EngineClient } from "./search_engine.ts";

/** How to reach the engine (templates filled in). */
export interface EngineConnection {
  url: string;
  username: string | null;
  password: string | null;
  apiKey: string | null;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxRetries: number;
  maxBytes: number;
  site: EngineSite;
  secrets: Secrets;
}

/** Opens an Elasticsearch client (no request is made). */
export async function openElasticsearch(connection: EngineConnection): Promise<EngineClient> {
  const { Client, HttpConnection } = await withoutEnvironmentAsync(() =>
    import("@elastic/elasticsearch")
  );
  const client = withoutEnvironment(() =>
    new Client({
      node: connection.url,
      // node:http rather than the default undici, which reads JEST_WORKER_ID from the
      // environment on its first request.
      Connection: HttpConnection,
      ...(connection.apiKey !== null
        ? { auth: { apiKey: connection.apiKey } }
        : connection.username !== null
        ? { auth: { username: connection.username, password: connection.password ?? "" } }
        : {}),
      headers: { ...connection.headers },
      maxRetries: connection.maxRetries,
      requestTimeout: connection.timeoutMs,
      maxResponseSize: connection.maxBytes,
    })
  );
  const fail = (error: unknown) => describeClientError(error, connection);
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      throw fail(error);
    }
  };
  return {
    exists: (index, signal) => call(() => client.indices.exists({ index }, { signal })),
    create: async (index, body, signal) => {
      await call(() => client.indices.create({ index, ...body }, { signal }));
    },
    bulk: async (lines, signal) => {
      const reply = await call(() =>
        client.bulk({ operations: lines as never[], refresh: false }, { signal })
      );
      if (reply.errors) throw bulkFailure(reply.items, connection);
    },
    refresh: async (index, signal) => {
      await call(() => client.indices.refresh({ index }, { signal }));
    },
    count: async (index, signal) => (await call(() => client.count({ index }, { signal }))).count,
    remove: async (index, signal) => {
      await call(() => client.indices.delete({ index }, { signal }));
    },
    search: (index, body, signal) =>
      searchWithRetries(connection, signal, async (attemptSignal) => {
        const deadline = AbortSignal.timeout(connection.timeoutMs);
        const result = await call(() =>
          client.search({ index, ...body }, {
            signal: attemptSignal,
            asStream: true,
            meta: true,
            maxRetries: 0,
          })
        );
        return await readEngineReply(
          result.statusCode ?? 0,
          result.headers as Record<string, unknown>,
          result.body as unknown as BodyStream,
          { ...connection, deadline, signal: attemptSignal },
        );
      }),
    vectorMapping: (dimensions) => ({
      type: "dense_vector",
      dims: dimensions,
      index: true,
      similarity: "cosine",
    }),
    vectorSettings: () => ({}),
    knnQuery: (field, vector, k, candidates) => ({
      knn: { field, query_vector: vector, k, num_candidates: candidates },
    }),
    close: () => client.close(),
  };
}

/** One search, retried after no response, 408, 409, 429 and 5xx (ragbench's policy). */
export async function searchWithRetries(
  connection: EngineConnection,
  signal: AbortSignal,
  attempt: (signal: AbortSignal) => Promise<unknown>,
): Promise<{ value: unknown; attempts: RetryReport }> {
  try {
    const { value, report } = await withRetries(attempt, {
      maxRetries: connection.maxRetries,
      clock: SYSTEM_CLOCK,
      signal,
      classify: (error) =>
        error instanceof EngineError
          ? { status: error.status, headers: error.headers, retryable: error.retryable }
          : { status: null, headers: null, retryable: false },
    });
    return { value, attempts: report };
  } catch (caught) {
    if (!(caught instanceof RetriesExhausted)) throw caught;
    const last = caught.cause instanceof EngineError
      ? caught.cause
      : new EngineError(connection.site, String(caught.cause));
    const retries = caught.report.retries;
    const error = retries === 0 ? last : new EngineError(
      connection.site,
      `${last.what} (Gave up after ${retries} ${retries === 1 ? "retry" : "retries"}.)`,
      { status: last.status },
    );
    error.attempts = caught.report;
    throw error;
  }
}

/** What a failure of an official client (either engine's) means, said for the user. */
export function describeClientError(error: unknown, connection: EngineConnection): EngineError {
  if (error instanceof EngineError) return error;
  const { site, secrets } = connection;
  const e = (error ?? {}) as {
    name?: unknown;
    message?: unknown;
    meta?: { statusCode?: unknown; body?: unknown; headers?: Record<string, unknown> };
  };
  const name = typeof e.name === "string" ? e.name : "";
  const message = typeof e.message === "string" ? e.message : String(error);
  if (error instanceof Deno.errors.NotCapable || /Requires (net|sys|env) access/.test(message)) {
    return new EngineError(
      site,
      `could not be reached: a permission was not granted (${secrets.redact(message)}). ` +
        "Run with the flags `ragbench permissions CONFIG` prints.",
      { cause: error },
    );
  }
  if (name === "TimeoutError") {
    return new EngineError(
      site,
      `did not answer within ${connection.timeoutMs / 1000} s. ` +
        "Check that the engine is up and not overloaded, or raise timeout_s.",
      { cause: error, retryable: true },
    );
  }
  if (name === "RequestAbortedError" && /maxResponseSize|bigger than/i.test(message)) {
    return new EngineError(
      site,
      `sent a reply over ${Math.round(connection.maxBytes / 1_048_576)} MB (the limit of ` +
        "one reply). Raise max_response_mb if it is genuine.",
      { cause: error },
    );
  }
  if (name === "RequestAbortedError") {
    return new EngineError(site, "the request was cancelled.", { cause: error });
  }
  if (name === "ConnectionError" || name === "NoLivingConnectionsError") {
    const refused = /ECONNREFUSED|connection refused/i.test(message);
    return new EngineError(
      site,
      `could not be reached: ${
        refused ? "connection refused" : secrets.redact(message).slice(0, 200)
      }. Check the url and that the engine is running.`,
      { cause: error, retryable: true },
    );
  }
  if (name === "DeserializationError") {
    return new EngineError(site, "sent a reply that is not JSON.", { cause: error });
  }
  if (name === "ResponseError" && e.meta) {
    const status = typeof e.meta.statusCode === "number" ? e.meta.statusCode : 0;
    const body = typeof e.meta.body === "string" ? e.meta.body : JSON.stringify(e.meta.body ?? "");
    return new EngineError(site, `answered HTTP ${status}: ${errorText(body, secrets)}.`, {
      cause: error,
      status,
    });
  }
  return new EngineError(site, `failed: ${secrets.redact(message).slice(0, 300)}`, {
    cause: error,
  });
}

/** The first failed item of a bulk reply, as an error. */
export function bulkFailure(items: unknown, connection: EngineConnection): EngineError {
  const list = Array.isArray(items) ? items : [];
  let failed = 0;
  let first = "";
  for (const item of list) {
    const action = item && typeof item === "object" ? Object.values(item)[0] : null;
    const error = action && typeof action === "object"
      ? (action as { error?: unknown }).error
      : null;
    if (!error) continue;
    failed++;
    if (first === "") first = errorText(JSON.stringify({ error }), connection.secrets);
  }
  return new EngineError(
    connection.site,
    `refused ${failed} of ${list.length} passages while indexing (the first: ${first}).`,
  );
}

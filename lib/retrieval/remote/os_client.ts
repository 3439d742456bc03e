/**
 * The {@link EngineClient} of the `opensearch` retriever, over the official
 * client `@opensearch-project/opensearch` (pinned in deno.json), loaded with
 * `import()` only by a run that has such a retriever, and loaded and built
 * while `process.env` is empty. Like Elasticsearch's, the client puts the
 * OS release in its User-Agent (`--allow-sys=osRelease`).
 *
 * The client has no cap on a reply's size, so searches are made with
 * `asStream` and read under the byte cap and the attempt's deadline
 * (engine_reply.ts), once per attempt, with ragbench's retries; the other
 * requests use the client's.
 * A request in flight is stopped with the `abort()` of the client's promise.
 *
 * @module
 */

import { withoutEnvironment, withoutEnvironmentAsync } from "../../util/node_env.ts";
import { type BodyStream, readEngineReply } from "./engine_reply.ts";
import {
  bulkFailure,
  describeClientError,
  type EngineConnection,
  searchWithRetries,
} from "./es_client.ts";
import { EngineError } from "./remote_error.ts";
import type { EngineClient } from "./search_engine.ts";

/** A request of the client: a promise that can also be aborted. */
interface Abortable<T> extends PromiseLike<T> {
  abort(): unknown;
}

/** Opens an OpenSearch client (no request is made). */
export async function openOpenSearch(connection: EngineConnection): Promise<EngineClient> {
  const { Client } = await withoutEnvironmentAsync(() => import("@opensearch-project/opensearch"));
  const client = withoutEnvironment(() =>
    new Client({
      node: connection.url,
      ...(connection.username !== null
        ? { auth: { username: connection.username, password: connection.password ?? "" } }
        : {}),
      headers: {
        ...connection.headers,
        ...(connection.apiKey !== null ? { authorization: `ApiKey ${connection.apiKey}` } : {}),
      },
      maxRetries: connection.maxRetries,
      requestTimeout: connection.timeoutMs,
    })
  );
  /** Runs a client request, aborting it when `signal` aborts; failures become EngineErrors. */
  const call = async <T>(signal: AbortSignal, start: () => Abortable<T>): Promise<T> => {
    signal.throwIfAborted();
    const request = start();
    const abort = () => request.abort();
    signal.addEventListener("abort", abort, { once: true });
    try {
      return await request;
    } catch (error) {
      throw describeClientError(error, connection);
    } finally {
      signal.removeEventListener("abort", abort);
    }
  };
  type Reply = { body: unknown; statusCode?: number | null; headers?: Record<string, unknown> };
  const send = (signal: AbortSignal, start: () => unknown) =>
    call(signal, start as () => Abortable<Reply>);
  return {
    exists: async (index, signal) =>
      (await send(signal, () => client.indices.exists({ index }))).body === true,
    create: async (index, body, signal) => {
      await send(signal, () => client.indices.create({ index, body }));
    },
    bulk: async (lines, signal) => {
      const reply = await send(signal, () => client.bulk({ body: lines as never[] }));
      const body = reply.body as { errors?: unknown; items?: unknown };
      if (body.errors) throw bulkFailure(body.items, connection);
    },
    refresh: async (index, signal) => {
      await send(signal, () => client.indices.refresh({ index }));
    },
    count: async (index, signal) => {
      const reply = await send(signal, () => client.count({ index }));
      const count = (reply.body as { count?: unknown } | null)?.count;
      if (typeof count !== "number") {
        throw new EngineError(connection.site, "sent a count response without a count.");
      }
      return count;
    },
    remove: async (index, signal) => {
      await send(signal, () => client.indices.delete({ index }));
    },
    search: (index, body, signal) =>
      searchWithRetries(connection, signal, async (attemptSignal) => {
        const deadline = AbortSignal.timeout(connection.timeoutMs);
        const reply = await send(
          attemptSignal,
          () => client.search({ index, body }, { asStream: true, maxRetries: 0 }),
        );
        return await readEngineReply(
          reply.statusCode ?? 0,
          reply.headers ?? {},
          reply.body as BodyStream,
          { ...connection, deadline, signal: attemptSignal },
        );
      }),
    vectorMapping: (dimensions) => ({
      type: "knn_vector",
      dimension: dimensions,
      method: { name: "hnsw", space_type: "cosinesimil", engine: "lucene" },
    }),
    vectorSettings: () => ({ "index.knn": true }),
    knnQuery: (field, vector, k) => ({ query: { knn: { [field]: { vector, k } } } }),
    close: () => client.close(),
  };
}

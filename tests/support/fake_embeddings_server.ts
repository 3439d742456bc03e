/**
 * A loopback OpenAI-compatible embeddings server for tests: `POST
 * /v1/embeddings` on 127.0.0.1 at an OS-chosen port. By default it answers
 * every request with deterministic vectors (the offline hashing embedder's,
 * so similar texts get similar vectors) and `usage.prompt_tokens` of one per
 * word; a handler can replace any reply (errors, wrong sizes, delays). It
 * records every request, so tests can count what was sent.
 *
 * @module
 */

import { hashInto } from "../../lib/dense/hashing_embedder.ts";

/** One request received. */
export interface EmbeddingRequest {
  headers: Record<string, string>;
  body: { model?: string; input?: string[]; dimensions?: number; encoding_format?: string };
}

/** A reply: JSON with a status and headers, or the default answer (`"default"`). */
export type EmbeddingReply =
  | "default"
  | { status?: number; json: unknown; headers?: Record<string, string> };

/** Chooses the reply to the `index`-th request (0-based). */
export type EmbeddingHandler = (
  request: EmbeddingRequest,
  index: number,
) => EmbeddingReply | Promise<EmbeddingReply>;

/** A running server; close it (or `await using` it). */
export interface FakeEmbeddingsServer extends AsyncDisposable {
  readonly baseUrl: string;
  readonly requests: EmbeddingRequest[];
  /** Texts received over all requests. */
  textsSent(): number;
  close(): Promise<void>;
}

/** The default answer for `input`: `dimensions` (default 32) hashed features per text. */
export function defaultEmbeddingReply(input: string[], dimensions = 32): Record<string, unknown> {
  return {
    object: "list",
    model: "fake-embed",
    data: input.map((text, index) => {
      const v = new Float32Array(dimensions);
      hashInto(text, v);
      return { object: "embedding", index, embedding: Array.from(v) };
    }),
    usage: {
      prompt_tokens: input.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0),
      total_tokens: 0,
    },
  };
}

/** Starts the server. */
export function startFakeEmbeddingsServer(
  handler: EmbeddingHandler = () => "default",
): FakeEmbeddingsServer {
  const requests: EmbeddingRequest[] = [];
  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/v1/embeddings") {
      return Response.json({ error: { message: `no route ${url.pathname}` } }, { status: 404 });
    }
    const recorded: EmbeddingRequest = {
      headers: Object.fromEntries(request.headers),
      body: await request.json(),
    };
    requests.push(recorded);
    const reply = await handler(recorded, requests.length - 1);
    if (reply === "default") {
      return Response.json(
        defaultEmbeddingReply(recorded.body.input ?? [], recorded.body.dimensions ?? 32),
      );
    }
    return Response.json(reply.json, { status: reply.status ?? 200, headers: reply.headers });
  }
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  let closed: Promise<void> | null = null;
  const close = () => (closed ??= server.shutdown());
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    textsSent: () => requests.reduce((n, r) => n + (r.body.input?.length ?? 0), 0),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * A tiny OpenAI-compatible chat-completions server for tests: listens on
 * 127.0.0.1 at an OS-chosen port, answers each request from a per-test
 * script and records what it received.
 *
 * ```ts
 * await using server = startFakeOpenAIServer([{ json: chatCompletion({ content: "hi" }) }]);
 * // ... point the client at server.baseUrl, then inspect server.requests
 * ```
 *
 * @module
 */

/** One request the server received. `body` is the parsed JSON (or the raw text if not JSON). */
export interface RecordedRequest {
  method: string;
  /** Path after the host, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: unknown;
}

/**
 * What the server answers to one request:
 * - `{json}`: a JSON body (status 200 unless given);
 * - `{text}`: a raw body, for malformed replies;
 * - `headers` on either: extra response headers (e.g. `retry-after`).
 *
 * For a server that never answers, use {@link startBlackHoleServer}.
 */
export type FakeReply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; contentType?: string; headers?: Record<string, string> };

/** Picks the reply to the `index`-th request (0-based) to `/v1/chat/completions` (may wait first). */
export type FakeHandler = (
  request: RecordedRequest,
  index: number,
) => FakeReply | Promise<FakeReply>;

/** A running fake server. Close it (or `await using` it) before the test ends. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** Base URL to hand to the client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  /** Requests to `/v1/chat/completions`, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Stops listening and waits for open requests to finish. */
  close(): Promise<void>;
}

/**
 * Starts the server. `script` is either a list of replies used in order (a
 * request past the end gets HTTP 500 saying so, which makes the test fail
 * loudly) or a function choosing a reply per request.
 */
export function startFakeOpenAIServer(script: FakeReply[] | FakeHandler): FakeOpenAIServer {
  const requests: RecordedRequest[] = [];
  const choose: FakeHandler = typeof script === "function"
    ? script
    : (_request, index) =>
      script[index] ?? {
        status: 500,
        json: errorBody(`fake server: no reply scripted for request ${index + 1}`, "server_error"),
      };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = await request.text();
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body: parseJson(text),
    };
    if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return Response.json(errorBody(`fake server: no route ${request.method} ${url.pathname}`), {
        status: 404,
      });
    }
    requests.push(recorded);
    const reply = await choose(recorded, requests.length - 1);
    if ("json" in reply) {
      return Response.json(reply.json, { status: reply.status ?? 200, headers: reply.headers });
    }
    return new Response(reply.text, {
      status: reply.status ?? 200,
      headers: { "content-type": reply.contentType ?? "application/json", ...reply.headers },
    });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= server.shutdown();
    return closed;
  }
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Options of {@link chatCompletion}. */
export interface ChatCompletionOptions {
  content?: string | null;
  /** `arguments` is sent exactly as given, so tests can send malformed JSON. */
  tool_calls?: { id: string; name: string; arguments: string }[];
  /** Omit to send no `usage` field at all. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  finish_reason?: string;
}

/** A well-formed chat-completions response body with one choice. */
export function chatCompletion(options: ChatCompletionOptions = {}): Record<string, unknown> {
  const toolCalls = options.tool_calls ?? [];
  const message: Record<string, unknown> = { role: "assistant", content: options.content ?? null };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const body: Record<string, unknown> = {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "fake-model",
    choices: [{
      index: 0,
      message,
      finish_reason: options.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    }],
  };
  if (options.usage) {
    body.usage = {
      ...options.usage,
      total_tokens: options.usage.prompt_tokens + options.usage.completion_tokens,
    };
  }
  return body;
}

/** An OpenAI-style error body: `{error: {message, type, code}}`. */
export function errorBody(
  message: string,
  type = "invalid_request_error",
  code: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/** A loopback port nobody listens on (bound by the OS, then released). */
export function unusedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A server that accepts connections, reads whatever comes and never answers. */
export interface BlackHoleServer extends AsyncDisposable {
  /** Base URL to hand to the client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  /** Resolves when the first connection has sent some bytes (a request is in flight). */
  readonly requestArrived: Promise<void>;
  /** Resolves when the client closes the first connection (its request was cancelled). */
  readonly clientHungUp: Promise<void>;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/**
 * Starts a raw TCP server on 127.0.0.1 that never replies, for timeout and
 * cancellation tests. Unlike `Deno.serve`, which does not always notice a
 * half-closed connection while a handler is pending, it sees the client's
 * FIN as end-of-stream, so {@link BlackHoleServer.clientHungUp} reliably
 * shows that aborting the client really cancelled the HTTP request.
 */
export function startBlackHoleServer(): BlackHoleServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const arrived = Promise.withResolvers<void>();
  const hungUp = Promise.withResolvers<void>();
  const connections = new Set<Deno.Conn>();
  const readers: Promise<void>[] = [];
  let first = true;

  async function drain(conn: Deno.Conn, isFirst: boolean): Promise<void> {
    const buffer = new Uint8Array(16 * 1024);
    try {
      while (true) {
        const read = await conn.read(buffer);
        if (read === null) break;
        if (isFirst) arrived.resolve();
      }
      if (isFirst) hungUp.resolve();
    } catch {
      // Closed by close(): nothing more to read.
    } finally {
      if (connections.delete(conn)) conn.close();
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        connections.add(conn);
        readers.push(drain(conn, first));
        first = false;
      }
    } catch {
      // The listener was closed.
    }
  })();

  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= (async () => {
      listener.close();
      for (const conn of connections) conn.close();
      connections.clear();
      await accepting;
      await Promise.all(readers);
    })();
    return closed;
  }
  return {
    baseUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
    requestArrived: arrived.promise,
    clientHungUp: hungUp.promise,
    close,
    [Symbol.asyncDispose]: close,
  };
}

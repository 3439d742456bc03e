/**
 * A throwaway HTTP server on 127.0.0.1 (a free port) for tests of clients:
 * each request is recorded (method, path, headers, body text) and answered
 * by the test's handler. Close it with `await using`.
 *
 * @module
 */

/** One request the server received. */
export interface Received {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A running server. */
export interface Loopback {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a server answering with `handler` (given the request and its 0-based number). */
export function loopback(
  handler: (request: Received, n: number) => Response | Promise<Response>,
): Loopback {
  const received: Received[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen() {} },
    async (req) => {
      const url = new URL(req.url);
      const entry: Received = {
        method: req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      };
      received.push(entry);
      return await handler(entry, received.length - 1);
    },
  );
  const port = server.addr.port;
  const close = async () => {
    controller.abort();
    await server.finished;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A JSON response. */
export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A response streaming `megabytes` of `[{"id": ...}` JSON-looking text, never finished early. */
export function huge(megabytes: number): Response {
  const chunk = new TextEncoder().encode(
    '{"id":"x","score":1,"text":"' + "a".repeat(65_000) + '"},',
  );
  let sent = 0;
  const total = megabytes * 1_048_576;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"results":['));
    },
    pull(controller) {
      if (sent >= total) {
        controller.enqueue(new TextEncoder().encode('{"id":"x","score":1}]}'));
        controller.close();
        return;
      }
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { headers: { "content-type": "application/json" } });
}

/** A port on 127.0.0.1 where nothing listens (just closed). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

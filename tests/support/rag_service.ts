/**
 * A loopback stand-in for a user's deployed RAG service: listens on
 * 127.0.0.1 at an OS-chosen port, answers each POST from a per-test handler
 * and records what it received (path, headers, body).
 *
 * @module
 */

/** One request the service received. */
export interface ServiceRequest {
  /** Path and query, e.g. `/ask?key=...`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: unknown;
}

/** What the handler answers: JSON, raw text, or a response built by hand; may wait first. */
export type ServiceHandler = (
  request: ServiceRequest,
  index: number,
  signal: AbortSignal,
) => Response | Promise<Response>;

/** A running service; close it (or `await using` it) before the test ends. */
export interface LoopbackService extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly requests: ServiceRequest[];
  close(): Promise<void>;
}

/** Starts the service. Handlers that wait are released when it closes. */
export function startRagService(handler: ServiceHandler): LoopbackService {
  const requests: ServiceRequest[] = [];
  const closing = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch { /* kept as text */ }
      const recorded: ServiceRequest = {
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body,
      };
      requests.push(recorded);
      return await handler(recorded, requests.length - 1, closing.signal);
    },
  );
  const close = async () => {
    closing.abort();
    await server.shutdown();
  };
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Waits until `signal` aborts (a service that never answers, until the test closes it). */
export function hang(signal: AbortSignal): Promise<Response> {
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => resolve(new Response("closed", { status: 503 })), {
      once: true,
    });
  });
}

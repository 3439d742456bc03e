/**
 * A TCP server on 127.0.0.1 (a free port) that stalls, for tests of what a
 * client does with a service that hangs: `silent` accepts connections and
 * never writes a byte; `mid_body` answers an HTTP request with a status
 * line, headers (a `content-length` it never reaches) and the first bytes of
 * a JSON body, then writes nothing more; `pg_mid_query` speaks PostgreSQL's
 * protocol up to "ready for query" (no SSL, no password) and then never
 * answers a statement. Connections stay open until `close()`, which closes
 * them all (with `await using`).
 *
 * @module
 */

/** How the server stalls (see the module docs). */
export type StallMode = "silent" | "mid_body" | "pg_mid_query";

/** A running stalling server. */
export interface StallingServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Requests (HTTP) or statements (PostgreSQL) received so far. */
  readonly requests: number;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Extra headers of the `mid_body` answer (Elasticsearch's client wants its product header). */
const MID_BODY_HEADERS = "content-type: application/json\r\n" +
  "x-elastic-product: Elasticsearch\r\ncontent-length: 100000\r\n";

/** Starts a server that stalls as `mode` says. */
export function stallingServer(mode: StallMode): StallingServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const open = new Set<Deno.Conn>();
  let connections = 0;
  let requests = 0;
  const serving = (async () => {
    for await (const conn of listener) {
      connections++;
      open.add(conn);
      serve(conn, mode, () => requests++).catch(() => {}).finally(() => open.delete(conn));
    }
  })().catch(() => {});
  const close = async () => {
    try {
      listener.close();
    } catch {
      // already closed
    }
    for (const conn of open) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    await serving;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return connections;
    },
    get requests() {
      return requests;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function serve(conn: Deno.Conn, mode: StallMode, counted: () => void): Promise<void> {
  const buffer = new Uint8Array(65_536);
  let text = "";
  let pgStarted = false;
  // Bounded by the connection: it ends when the client or close() closes it.
  for (let reads = 0; reads < 100_000; reads++) {
    const n = await conn.read(buffer);
    if (n === null) return;
    const bytes = buffer.slice(0, n);
    if (mode === "silent") {
      counted();
      continue;
    }
    if (mode === "mid_body") {
      text += new TextDecoder().decode(bytes);
      if (!text.includes("\r\n\r\n")) continue;
      counted();
      text = "";
      await conn.write(
        new TextEncoder().encode(`HTTP/1.1 200 OK\r\n${MID_BODY_HEADERS}\r\n{"hits": {"hits": [`),
      );
      continue;
    }
    // PostgreSQL: an SSLRequest is refused ('N'), a startup message is answered by
    // AuthenticationOk, BackendKeyData and ReadyForQuery; anything after is never answered.
    if (!pgStarted && n >= 8 && readInt(bytes, 4) === 80877103) {
      await conn.write(new TextEncoder().encode("N"));
      continue;
    }
    if (!pgStarted) {
      pgStarted = true;
      await conn.write(pgStartupReply());
      continue;
    }
    counted();
  }
}

function readInt(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getInt32(at);
}

/** AuthenticationOk, BackendKeyData, ReadyForQuery (idle). */
function pgStartupReply(): Uint8Array {
  const out = new Uint8Array(9 + 13 + 6);
  const view = new DataView(out.buffer);
  out[0] = "R".charCodeAt(0);
  view.setInt32(1, 8);
  view.setInt32(5, 0);
  out[9] = "K".charCodeAt(0);
  view.setInt32(10, 12);
  view.setInt32(14, 4242);
  view.setInt32(18, 17);
  out[22] = "Z".charCodeAt(0);
  view.setInt32(23, 5);
  out[27] = "I".charCodeAt(0);
  return out;
}

/**
 * The MCP connections of one run: one per server definition, opened when the
 * first system that names the server is planned, shared by every system and
 * question, and closed together when the run ends.
 *
 * @module
 */

import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { type McpConnection, openMcpConnection, type OpenOptions } from "./connection.ts";

/** Connections by server definition. */
export interface McpPool {
  /** The connection to `server`, opened on first use. @throws {RagbenchError} when it cannot start. */
  connect(server: McpServerDef): Promise<McpConnection>;
  /** Closes every connection. Idempotent. */
  close(): Promise<void>;
}

/** A pool; `options` are passed to every connection it opens. */
export function createMcpPool(options: OpenOptions = {}): McpPool {
  const open = new Map<string, Promise<McpConnection>>();
  let closed = false;
  return {
    connect(server) {
      if (closed) return Promise.reject(new TypeError("the MCP pool is closed"));
      const key = serverKey(server);
      let connection = open.get(key);
      if (!connection) {
        connection = openMcpConnection(server, options);
        open.set(key, connection);
      }
      return connection;
    },
    async close() {
      closed = true;
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map((c) => c.then((conn) => conn.close(), () => {})));
    },
  };
}

/** Two entries with the same definition share a connection. */
export function serverKey(server: McpServerDef): string {
  const sorted = (record: Record<string, string>) =>
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return server.kind === "command"
    ? JSON.stringify(["command", server.command, sorted(server.env), server.cwd])
    : JSON.stringify(["url", server.url, sorted(server.headers)]);
}

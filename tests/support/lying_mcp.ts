/**
 * The lying MCP server of tests/fixtures/mcp/lying_server.ts, over stdio
 * (a server definition) or Streamable HTTP (a started process on 127.0.0.1).
 *
 * @module
 */

import { join } from "node:path";
import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { ROOT } from "./cli.ts";
import { type HttpServerProcess, startHttpServer } from "./mcp.ts";

/** The fixture's path. */
export const LYING_SERVER = join(ROOT, "tests/fixtures/mcp/lying_server.ts");

/** The lying server over stdio, with `args` (see the fixture) and `env` (`TOKEN`). */
export function lyingServer(args: string[] = [], env: Record<string, string> = {}): McpServerDef {
  return {
    kind: "command",
    command: [Deno.execPath(), "run", "--quiet", "--allow-env", LYING_SERVER, ...args],
    env,
    cwd: ROOT,
  };
}

/** The lying server over Streamable HTTP on a free port, its `$TOKEN` set to `token`. */
export function startLyingHttpServer(
  token: string,
  args: string[] = [],
): Promise<HttpServerProcess> {
  return startHttpServer(Deno.execPath(), [
    "run",
    "--quiet",
    "--allow-env",
    "--allow-net=127.0.0.1",
    LYING_SERVER,
    "--http",
    ...args,
  ], {
    env: { TOKEN: token },
    urlPattern: /127\.0\.0\.1:(\d+)\/mcp/,
    path: "/mcp",
  });
}

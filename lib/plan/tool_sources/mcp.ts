/**
 * An MCP server's tools as a tool source: `{type: mcp, server: {command |
 * url}, allow, prefix, cost_usd, timeout_s}` (checked by
 * `lib/config/mcp_ref.ts`). The plan opens one connection per server
 * definition, shared by every system (`tools/mcp/pool.ts`); a `--mock` run
 * starts no server and offers stand-ins with the same names and prices. Its
 * results are always recorded by `--cache-tools` (a server runs elsewhere).
 *
 * @module
 */

import {
  checkMcpRef,
  type McpServerDef,
  type McpToolRef,
  offeredNames,
  serverLabel,
} from "../../config/mcp_ref.ts";
import type { OpenOptions } from "../../../tools/mcp/connection.ts";
import { mcpNeeds } from "../../../tools/mcp/needs.ts";
import type { McpPool } from "../../../tools/mcp/pool.ts";
import { CUSTOM_SCHEMA_CHARS, defineToolSource, type Shared } from "./source.ts";

/** The tools of MCP servers: an entry with `type: mcp`. */
export const mcpSource = defineToolSource<McpToolRef>({
  kind: "mcp",
  entryType: "mcp",
  claims: ({ entry }) => entry.type === "mcp",
  check: ({ entry, at }, ctx) =>
    checkMcpRef(entry, at, {
      source: ctx.source,
      configPath: ctx.configPath,
      allowNetwork: ctx.rules.allow_network,
      reserved: new Set([...ctx.builtins.keys(), ...ctx.defined.keys()]),
      seen: ctx.seen,
      problems: ctx.problems,
    }),
  predefine: () => [],
  offeredNames,
  cachesResults: () => true,
  needs: (ref, ctx) => mcpNeeds(ref, ctx),
  compiledNeeds: (ref, ctx) => mcpNeeds(ref, ctx).filter((n) => n.name === "run"),
  files: () => [],
  resolved: (ref) => ({ ...ref, kind: undefined }),
  promptChars: (ref) =>
    ref.allow.reduce((sum, name) => sum + ref.prefix.length + name.length + CUSTOM_SCHEMA_CHARS, 0),
  workerTools: () => [],
  async offer(ref, env) {
    const { offerMcpTools, offerMockMcpTools } = await import("../../../tools/mcp/host.ts");
    if (env.mock) return offerMockMcpTools(ref, env.config.tools);
    const tools = await offerMcpTools(
      ref,
      await pool(env.shared, env.mcp),
      env.config.tools,
      env.system,
    );
    const toolCache = env.toolCache;
    if (toolCache === null) return tools;
    const { withToolCache } = await import("../../../tools/cached_host.ts");
    return tools.map((t) => ({
      ...t,
      host: withToolCache(t.host, toolCache, mcpCacheServer(ref.server)),
    }));
  },
  standalone: false,
  listNeeds: (ref, ctx) => mcpNeeds(ref, ctx),
  async list(ref, env) {
    const { offerMcpTools } = await import("../../../tools/mcp/host.ts");
    // Ctrl-C stops a start in progress at once (the open fails saying so).
    const connections = await pool(
      env.shared,
      { signal: env.signal },
      () => env.progress("Starting the config's MCP servers to read their tools…"),
    );
    const tools = await offerMcpTools(ref, connections, env.config.tools, env.system);
    const label = serverLabel(ref.server);
    return tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      side_effects: tool.sideEffects,
      parameters: tool.parameters,
      origin: { key: "mcp_server", value: label, text: `MCP server "${label}"` },
    }));
  },
});

/** The connections of the plan (or command): one pool, made for the first reference. */
function pool(shared: Shared, options: OpenOptions, starting?: () => void): Promise<McpPool> {
  return shared.get("mcp:pool", async () => {
    starting?.();
    const { createMcpPool } = await import("../../../tools/mcp/pool.ts");
    return createMcpPool(options);
  }, (p) => p.close());
}

/**
 * An MCP server's identity in tool-cache keys: its command line or URL (the
 * config's own text: `${VAR}` placeholders, never the secrets they expand to).
 */
export function mcpCacheServer(server: McpServerDef): string {
  return server.kind === "url"
    ? `mcp:url:${server.url}`
    : `mcp:command:${JSON.stringify(server.command)}`;
}

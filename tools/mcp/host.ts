/**
 * Offers an MCP server's allowed tools to a system. {@link offerMcpTools}
 * reads the server's description and argument schema of each tool under
 * `allow` (failing the run, with a did-you-mean hint, for a name the server
 * does not offer, and naming the tool when its schema is too deep or too
 * large to send to a model, see schema_limits.ts); the host it returns runs calls through the shared
 * connection. In `--mock` runs {@link offerMockMcpTools} offers the same
 * names without starting anything.
 *
 * @module
 */

import type { McpToolRef } from "../../lib/config/mcp_ref.ts";
import { offeredNames, priceOf, serverLabel } from "../../lib/config/mcp_ref.ts";
import { RagbenchError } from "../../lib/errors.ts";
import type { SideEffects } from "../../lib/types.ts";
import { suggestion } from "../../lib/util/did_you_mean.ts";
import type { HostCall, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { OfferedTool } from "../toolbox.ts";
import type { McpConnection } from "./connection.ts";
import type { McpPool } from "./pool.ts";
import { convertCallResult } from "./result.ts";
import { schemaProblem } from "./schema_limits.ts";

/** The argument schema a mock MCP tool offers: any JSON object. */
export const FREE_FORM_SCHEMA: Record<string, unknown> = {
  type: "object",
  additionalProperties: true,
};

/**
 * The tools of `ref`, from its server (connecting through `pool`).
 *
 * @throws {RagbenchError} (code "config") when the server cannot start or
 *   does not offer a tool under `allow`.
 */
export async function offerMcpTools(
  ref: McpToolRef,
  pool: McpPool,
  rules: { timeout_s: number },
  system: string,
): Promise<OfferedTool[]> {
  const connection = await pool.connect(ref.server);
  const byName = new Map(connection.tools.map((t) => [t.name, t]));
  for (const name of ref.allow) {
    const tool = byName.get(name);
    if (!tool) {
      const names = [...byName.keys()];
      throw new RagbenchError(
        "config",
        connection.redact(
          `MCP server "${connection.label}" does not offer a tool "${name}" (under allow in system "${system}") — ${
            suggestion(name, names) || "it offers no tools"
          } It offers: ${names.slice(0, 30).join(", ") || "nothing"}.`,
        ),
      );
    }
    const problem = schemaProblem(tool.inputSchema);
    if (problem !== null) {
      throw new RagbenchError(
        "config",
        `MCP server "${connection.label}" offers the tool "${name}" (under allow in system "${system}") with an input schema no model request can carry: ${problem}. Take "${name}" out of allow, or fix the server.`,
      );
    }
  }
  const host = createMcpHost(ref, connection);
  return ref.allow.map((name) => {
    const tool = byName.get(name)!;
    return {
      name: ref.prefix + name,
      description: tool.description,
      sideEffects: sideEffectsOf(ref),
      parameters: tool.inputSchema,
      options: {},
      timeoutMs: (ref.timeout_s ?? rules.timeout_s) * 1000,
      host,
    };
  });
}

/** The tools of `ref` in a `--mock` run: same names and prices, no server. */
export function offerMockMcpTools(ref: McpToolRef, rules: { timeout_s: number }): OfferedTool[] {
  const host = createMockMcpHost(ref);
  const label = serverLabel(ref.server);
  return ref.allow.map((name) => ({
    name: ref.prefix + name,
    description:
      `The "${name}" tool of the MCP server ${label} (mock run: the server is not started).`,
    sideEffects: sideEffectsOf(ref),
    parameters: FREE_FORM_SCHEMA,
    options: {},
    timeoutMs: (ref.timeout_s ?? rules.timeout_s) * 1000,
    host,
  }));
}

/** A command server runs a process on this machine; a url server is on the network. */
export function sideEffectsOf(ref: McpToolRef): SideEffects {
  return ref.server.kind === "command" ? "filesystem" : "network";
}

/** Runs the calls of one entry's tools through `connection` (shared; closed by the pool). */
export function createMcpHost(ref: McpToolRef, connection: McpConnection): ToolHost {
  const remote = remoteNames(ref);
  return {
    async call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      const name = remote.get(call.tool);
      if (name === undefined) {
        return errorResult("unknown_tool", `No tool named "${call.tool}".`);
      }
      const outcome = await connection.call(name, call.args, { signal, timeoutMs: call.timeoutMs });
      if (!outcome.ok) {
        return errorResult(
          outcome.kind,
          connection.redact(outcome.message),
          outcome.detail === undefined ? undefined : connection.redact(outcome.detail),
        );
      }
      return convertCallResult(outcome.result, priceOf(ref, name), connection.redact);
    },
    endQuestion() {},
    close: () => Promise.resolve(),
  };
}

/** Answers `[mock mcp] tool(args)` at the configured price. */
export function createMockMcpHost(ref: McpToolRef): ToolHost {
  const remote = remoteNames(ref);
  return {
    call(call: HostCall): Promise<RawToolResult> {
      const name = remote.get(call.tool);
      if (name === undefined) {
        return Promise.resolve(errorResult("unknown_tool", `No tool named "${call.tool}".`));
      }
      return Promise.resolve({
        output: `[mock mcp] ${call.tool}(${JSON.stringify(call.args ?? {})})`,
        error: null,
        cost_usd: priceOf(ref, name),
      });
    },
    endQuestion() {},
    close: () => Promise.resolve(),
  };
}

function remoteNames(ref: McpToolRef): Map<string, string> {
  const offered = offeredNames(ref);
  return new Map(ref.allow.map((name, i) => [offered[i], name]));
}

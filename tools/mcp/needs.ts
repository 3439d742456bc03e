/**
 * The Deno permissions the server of an MCP tool reference needs (the MCP
 * tool source, `lib/plan/tool_sources/mcp.ts`, asks): a command server
 * needs `--allow-run` for every program, not only its executable: it runs a
 * process on this machine (a filesystem side effect), and ragbench stops it
 * by killing its whole process group (what a wrapper such as `npx` or
 * `sh -c` started with it), which Deno allows only with `--allow-run`
 * unrestricted. A narrower grant would not protect anything: the
 * executables that start servers (`npx`, `uvx`, `sh`, `python3`, `deno`)
 * run any program themselves. It also needs env access to the SDK's default
 * variables it passes on; a url server needs `--allow-net` for its host only; both need
 * env access to the variables their `${VAR}` templates name. A `--mock` run
 * starts no server and needs none of it.
 *
 * @module
 */

import { type McpToolRef, serverLabel, templateVariables } from "../../lib/config/mcp_ref.ts";
import { DEFAULT_ENV_VARS } from "./default_env.ts";

/** One permission, in the shape of `lib/plan/need.ts` `Need`. */
export interface McpNeed {
  name: "env" | "net" | "run";
  value: string;
  why: string;
}

/** What the server of one MCP reference needs (nothing in a mock run). */
export function mcpNeeds(ref: McpToolRef, options: { mock: boolean }): McpNeed[] {
  if (options.mock) return [];
  const needs: McpNeed[] = [];
  const server = ref.server;
  const label = `MCP server "${serverLabel(server)}"`;
  if (server.kind === "command") {
    needs.push({
      name: "run",
      value: "",
      why: `starting ${label} (runs a process: filesystem side effects) and stopping ` +
        "every process it starts (Deno signals a process group only with --allow-run for every program)",
    });
    for (const variable of DEFAULT_ENV_VARS) {
      needs.push({
        name: "env",
        value: variable,
        why: "the default environment of MCP command servers",
      });
    }
    for (const variable of templateVariables(Object.values(server.env))) {
      needs.push({ name: "env", value: variable, why: `\${${variable}} in the env of ${label}` });
    }
  } else {
    needs.push({ name: "net", value: hostOf(server.url), why: `${label} (network tool)` });
    for (const variable of templateVariables(Object.values(server.headers))) {
      needs.push({
        name: "env",
        value: variable,
        why: `\${${variable}} in the headers of ${label}`,
      });
    }
  }
  return needs;
}

function hostOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
}

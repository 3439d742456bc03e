/**
 * Turns a loaded config into runnable systems: picks each system's
 * definition, resolves the tools it offers (its always-on tools, then its
 * `tools:` list) and starts the hosts those tools run in.
 *
 * @module
 */

import type { Config, ToolRef } from "../config/load.ts";
import type { PlannedSystem } from "../run/runner.ts";
import type { SummarySystem } from "../report/outputs.ts";
import type { Corpus } from "../types.ts";
import type { EmbedderPool } from "../retrieval/embedders.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { createInProcessHost, type ToolHost } from "../../tools/host.ts";
import { startCustomTool } from "../../tools/sandbox/subprocess_host.ts";
import { createWorkerHost } from "../../tools/sandbox/worker_host.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { createToolbox, type OfferedTool } from "../../tools/toolbox.ts";
import type { OpenOptions } from "../../tools/mcp/connection.ts";
import { offerMcpTools, offerMockMcpTools } from "../../tools/mcp/host.ts";
import { createMcpPool } from "../../tools/mcp/pool.ts";

/** Runnable systems and the hosts to close when the run ends. */
export interface Plan {
  systems: PlannedSystem[];
  /** Name, type and offered tools of each system, for the summaries. */
  summary: SummarySystem[];
  close(): Promise<void>;
}

/** How to start the tool hosts. */
export interface PlanOptions {
  /** Questions run at once: the most processes a custom tool may use. */
  concurrency: number;
  /**
   * Run the built-ins on the calling thread instead of the sandbox worker.
   * Only for measuring the sandbox's overhead; runs always use the worker.
   */
  inProcess?: boolean;
  /** A `--mock` run: MCP tools are offered without starting their servers. */
  mock?: boolean;
  /** How MCP connections are opened (tests set where `${VAR}` values come from). */
  mcp?: OpenOptions;
  /** The run's embedders, for vector and hybrid retrievers (lib/retrieval/embedders.ts). */
  embedders?: EmbedderPool;
}

/**
 * Builds the plan: starts the built-ins' worker, one process per custom
 * tool (reading each custom tool's description and schema) and one
 * connection per MCP server (except in `--mock` runs). The caller must
 * `close()` it on every path; if building fails, what was started is closed.
 *
 * @throws {RagbenchError} when a custom tool cannot be loaded.
 */
export async function planSystems(
  config: Config,
  corpus: Corpus,
  options: PlanOptions,
): Promise<Plan> {
  const env = { corpus, now: config.evaluation.tools_now };
  const workerHost = options.inProcess ? null : createWorkerHost({
    ...env,
    prepare: builtinsOffered(config),
  });
  const builtinHost = workerHost ?? createInProcessHost([...BUILTIN_TOOLS.values()], env);
  const hosts: ToolHost[] = [builtinHost];
  const mcp = createMcpPool(options.mcp);
  const close = async () => {
    await Promise.all([...hosts.map((h) => h.close()), mcp.close()]);
  };
  try {
    const custom = new Map<string, OfferedTool>();
    const systems: PlannedSystem[] = [];
    for (const system of config.systems) {
      const def = SYSTEMS.get(system.type);
      if (!def) {
        throw new TypeError(`system type "${system.type}" passed validation but is not registered`);
      }
      const refs: ToolRef[] = def.alwaysTools
        .filter((name) => !system.tools.some((t) => t.name === name))
        .map((name) => ({ kind: "builtin", name, options: defaultOptions(name) }));
      refs.push(...system.tools);
      const offered: OfferedTool[] = [];
      for (const ref of refs) {
        if (ref.kind === "builtin") {
          offered.push(offerBuiltin(ref.name, ref.options, builtinHost, config));
          continue;
        }
        if (ref.kind === "mcp") {
          offered.push(
            ...(options.mock
              ? offerMockMcpTools(ref, config.tools)
              : await offerMcpTools(ref, mcp, config.tools, system.name)),
          );
          continue;
        }
        let tool = custom.get(ref.name);
        if (!tool) {
          tool = await offerCustom(ref, { ...env, maxProcesses: options.concurrency }, config);
          hosts.push(tool.host);
          custom.set(ref.name, tool);
        }
        offered.push(tool);
      }
      systems.push({
        name: system.name,
        def,
        options: system.options,
        toolbox: createToolbox(offered, config.tools),
      });
    }
    // Indexes are built now, before any question, not inside a call's timeout.
    await workerHost?.ready();
    return {
      systems,
      summary: systems.map((s) => ({
        name: s.name,
        type: s.def.type,
        tools: s.toolbox.tools.map((t) => t.name),
        networkTools: s.toolbox.tools.filter((t) => t.sideEffects === "network").map((t) => t.name),
      })),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Names of the built-in tools some system of the config offers. */
function builtinsOffered(config: Config): string[] {
  const names = new Set<string>();
  for (const system of config.systems) {
    for (const name of SYSTEMS.get(system.type)?.alwaysTools ?? []) names.add(name);
    for (const tool of system.tools) if (tool.kind === "builtin") names.add(tool.name);
  }
  return [...names];
}

/** The offered form of a built-in tool. */
export function offerBuiltin(
  name: string,
  options: Record<string, unknown>,
  host: ToolHost,
  config: { tools: { timeout_s: number } },
): OfferedTool {
  const def = BUILTIN_TOOLS.get(name);
  if (!def) throw new TypeError(`built-in tool "${name}" is not registered`);
  return {
    name: def.name,
    description: def.description,
    sideEffects: def.sideEffects,
    parameters: parametersJsonSchema(def),
    options,
    timeoutMs: config.tools.timeout_s * 1000,
    host,
  };
}

/**
 * Starts a custom tool's first process and returns its offered form; the
 * caller owns (and must close) `host`.
 *
 * @throws {RagbenchError} when the module cannot be loaded.
 */
export async function offerCustom(
  ref: ToolRef & { kind: "custom" },
  env: { corpus: Corpus; now: string; maxProcesses: number },
  config: { tools: { timeout_s: number } },
): Promise<OfferedTool> {
  const host = await startCustomTool({
    name: ref.name,
    module: ref.module,
    exportName: ref.exportName,
    sideEffects: ref.side_effects,
    ...(ref.description === undefined ? {} : { description: ref.description }),
  }, env);
  return {
    name: ref.name,
    description: host.info.description,
    sideEffects: ref.side_effects,
    parameters: host.info.parameters,
    options: {},
    timeoutMs: (ref.timeout_s ?? config.tools.timeout_s) * 1000,
    host,
  };
}

/** A built-in's options with every default applied. */
export function defaultOptions(name: string): Record<string, unknown> {
  const def = BUILTIN_TOOLS.get(name);
  return (def?.options?.parse({}) ?? {}) as Record<string, unknown>;
}

/**
 * Turns a loaded config into runnable systems: picks each system's
 * definition, builds the retrievers the systems use (each distinct one once,
 * in this process), resolves the tools each system offers (its always-on
 * tools, then its `tools:` list) and starts the hosts those tools run in.
 * `search` is served over the system's retriever by a host in this process
 * (`tools/retrieval_host.ts`); the other built-ins run in the sandbox worker.
 *
 * @module
 */

import {
  type Config,
  DEFAULT_RETRIEVER,
  type RetrieverChoice,
  type ToolRef,
} from "../config/types.ts";
import { retrieverSchema } from "../config/retriever_schema.ts";
import { type RetrieverBuilder, RunRetrievers } from "../retrieval/registry.ts";
import type { Retriever } from "../retrieval/types.ts";
import type { Model } from "../llm/model.ts";
import { createMockModel } from "../llm/mock_model.ts";
import { EMPTY_SCRIPT } from "../llm/mock_script.ts";
import type { PlannedSystem } from "../run/runner.ts";
import type { SummarySystem } from "../report/outputs.ts";
import type { Corpus } from "../types.ts";
import type { EmbedderPool } from "../dense/embedders.ts";
import { callsModel, SYSTEMS } from "../../systems/registry.ts";
import { modelCallsOf, retrievalDepthOf, type SystemInstance } from "../../systems/system.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { createInProcessHost, type ToolHost } from "../../tools/host.ts";
import { createWorkerHost } from "../../tools/sandbox/worker_host.ts";
import type { StartedWorker } from "../../tools/sandbox/early_worker.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { createToolbox, type OfferedTool } from "../../tools/toolbox.ts";
import type { OpenOptions } from "../../tools/mcp/connection.ts";
import type { McpPool } from "../../tools/mcp/pool.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { search } from "../../tools/search.ts";
import type { ToolCacheSetup } from "../../tools/cached_host.ts";
import type { McpToolRef } from "../config/mcp_ref.ts";
import type { RetrievalCacheSetup } from "../retrieval/remote/cached_call.ts";

/** Runnable systems and the hosts to close when the run ends. */
export interface Plan {
  systems: PlannedSystem[];
  /** Name, type and offered tools of each system, for the summaries. */
  summary: SummarySystem[];
  /** The run's retrievers (each built once). */
  retrievers: RunRetrievers;
  close(): Promise<void>;
}

/** How to start the tool hosts. */
export interface PlanOptions {
  /** Questions run at once: the most processes a custom tool may use. */
  concurrency: number;
  /**
   * Each system's model, by system name (see `createModels`; `run` always
   * passes them). Absent, every system gets the scripted mock with an empty
   * script (its default policy), priced as its model config says: enough for
   * callers that only use the tools.
   */
  models?: ReadonlyMap<string, Model>;
  /**
   * Run the built-ins on the calling thread instead of the sandbox worker.
   * Only for measuring the sandbox's overhead; runs always use the worker.
   */
  inProcess?: boolean;
  /** A `--mock` run: MCP tools are offered without starting their servers. */
  mock?: boolean;
  /** How MCP connections are opened (tests set where `${VAR}` values come from). */
  mcp?: OpenOptions;
  /** Hears a line when a custom tool is slow to load. */
  progress?: (text: string) => void;
  /** Builder of each retriever kind (default: every kind this version has). */
  retrieverBuilders?: ReadonlyMap<string, RetrieverBuilder>;
  /** Aborted to stop building indexes (Ctrl-C during start-up). */
  signal?: AbortSignal;
  /** The run's embedders, for vector and hybrid retrievers (lib/dense/embedders.ts). */
  embedders?: EmbedderPool;
  /** Record and replay the results of tools with side effects (`--cache-tools`). */
  toolCache?: ToolCacheSetup | null;
  /** Record and replay the answers of retriever services (rerank, http) under `--cache`. */
  retrievalCache?: RetrievalCacheSetup | null;
  /**
   * The sandbox worker, started ahead (see {@link offersBuiltins}); the plan's
   * built-ins host adopts it instead of starting its own.
   */
  startedWorker?: StartedWorker;
}

/**
 * Builds the plan: builds the retrievers, starts the built-ins' worker, one
 * process per custom tool (reading each custom tool's description and
 * schema) and one connection per MCP server (except in `--mock` runs). The
 * caller must `close()` it on every path; if building fails, what was
 * started is closed.
 *
 * @throws {RagbenchError} when a custom tool cannot be loaded or a retriever cannot be built.
 */
export async function planSystems(
  config: Config,
  corpus: Corpus,
  options: PlanOptions,
): Promise<Plan> {
  const env = { corpus, now: config.evaluation.tools_now };
  const prepare = builtinsOffered(config);
  const workerHost = options.inProcess ? null : createWorkerHost(
    { ...env, prepare },
    options.startedWorker ? { started: options.startedWorker } : {},
  );
  // With built-ins offered, the worker loads and builds its indexes while the retrievers are built
  // here and while the systems that do not use it answer their first questions; with none, it is
  // never started.
  const workerReady = prepare.length > 0 ? workerHost?.ready() : undefined;
  const builtinHost = workerHost ?? createInProcessHost([...BUILTIN_TOOLS.values()], env);
  const hosts: ToolHost[] = [builtinHost];
  const signal = options.signal ?? new AbortController().signal;
  const retrievers = new RunRetrievers(corpus, {
    ...(options.retrieverBuilders ? { builders: options.retrieverBuilders } : {}),
    ...(options.embedders ? { embedders: options.embedders } : {}),
    mock: options.mock ?? false,
    responses: options.retrievalCache ?? null,
    ...(options.progress ? { progress: options.progress } : {}),
  });
  // MCP, custom tools and the tool cache are loaded only by a config that uses them.
  let mcp: McpPool | null = null;
  const mcpPool = async () =>
    mcp ??= (await import("../../tools/mcp/pool.ts")).createMcpPool(options.mcp);
  const instances: SystemInstance[] = [];
  const close = async () => {
    await Promise.all([
      ...hosts.map((h) => h.close()),
      ...instances.map((i) => i.close()),
      mcp?.close(),
    ]);
    await retrievers.close();
  };
  const searchHosts = new Map<string, ToolHost>();
  const searchHostFor = async (choice: RetrieverChoice): Promise<ToolHost> => {
    let host = searchHosts.get(choice.key);
    if (!host) {
      host = createRetrievalHost(await retrievers.get(choice, signal), env);
      searchHosts.set(choice.key, host);
      hosts.push(host);
    }
    return host;
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
      const retriever: Retriever | null = system.retriever
        ? await retrievers.get(system.retriever, signal)
        : null;
      if (def.ranksDocuments) retriever?.prepareDocuments?.();
      const offered: OfferedTool[] = [];
      for (const ref of refs) {
        if (ref.kind === "builtin") {
          const host = ref.name === search.name
            ? await searchHostFor(system.retriever ?? defaultRetrieverChoice(config))
            : builtinHost;
          offered.push(offerBuiltin(ref.name, ref.options, host, config));
          continue;
        }
        if (ref.kind === "mcp") {
          const { offerMcpTools, offerMockMcpTools } = await import("../../tools/mcp/host.ts");
          const tools = options.mock
            ? offerMockMcpTools(ref, config.tools)
            : await offerMcpTools(ref, await mcpPool(), config.tools, system.name);
          const toolCache = options.mock ? null : options.toolCache;
          const { withToolCache } = await import("../../tools/cached_host.ts");
          offered.push(
            ...(toolCache
              ? tools.map((t) => ({
                ...t,
                host: withToolCache(t.host, toolCache, mcpCacheServer(ref.server)),
              }))
              : tools),
          );
          continue;
        }
        let tool = custom.get(ref.name);
        if (!tool) {
          tool = await offerCustom(ref, {
            ...env,
            maxProcesses: options.concurrency,
            ...(options.progress ? { progress: options.progress } : {}),
          }, config);
          hosts.push(tool.host);
          if (options.toolCache && tool.sideEffects !== "none") {
            const server = `custom:${ref.module}#${ref.exportName}`;
            const { withToolCache } = await import("../../tools/cached_host.ts");
            tool = { ...tool, host: withToolCache(tool.host, options.toolCache, server) };
          }
          custom.set(ref.name, tool);
        }
        offered.push(tool);
      }
      // Without run models (tools, tests), and for a system that calls none (retrieval_only, left
      // out of them), a scripted stand-in that is never asked anything.
      const model = options.models?.get(system.name) ??
        (options.models && callsModel(system) ? undefined : createMockModel(
          EMPTY_SCRIPT,
          system.model.name,
          system.model.price ?? null,
        ));
      if (!model) throw new TypeError(`no model was built for system "${system.name}"`);
      // A system with a process of its own (an agent framework) starts it now, loading meanwhile.
      const instance = def.start?.(system.options, { name: system.name });
      if (instance) instances.push(instance);
      const toolsReady = workerReady && offered.some((t) => t.host === builtinHost)
        ? workerReady
        : undefined;
      const ready = instance
        ? Promise.all([instance.ready, toolsReady]).then(() => {})
        : toolsReady;
      ready?.catch(() => {}); // the runner reports it; a plan that fails later never waits for it
      systems.push({
        name: system.name,
        def: instance ? { ...def, run: instance.run } : def,
        options: system.options,
        toolbox: createToolbox(offered, config.tools),
        retriever,
        depth: retrievalDepthOf(
          def,
          system.retriever?.config.top_k ?? null,
          config.evaluation.retrieval_k,
        ),
        model,
        // Its indexes (and its framework) are ready before its first question, not in its timeout.
        ...(ready ? { ready } : {}),
      });
    }
    return {
      systems,
      summary: systems.map((s) => ({
        name: s.name,
        type: s.def.type,
        // A system that makes no model call (retrieval_only) has no model to show.
        model: modelCallsOf(s.def, s.options).max === 0 ? null : s.model.id,
        tools: s.toolbox.tools.map((t) => t.name),
        networkTools: s.toolbox.tools.filter((t) => t.sideEffects === "network").map((t) => t.name),
      })),
      retrievers,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * An MCP server's identity in tool-cache keys: its command line or URL (the
 * config's own text: `${VAR}` placeholders, never the secrets they expand to).
 */
export function mcpCacheServer(server: McpToolRef["server"]): string {
  return server.kind === "url"
    ? `mcp:url:${server.url}`
    : `mcp:command:${JSON.stringify(server.command)}`;
}

/**
 * Whether some system of `config` offers a built-in that runs in the sandbox
 * worker: a plan of this config starts the worker (one without never does).
 */
export function offersBuiltins(config: Config): boolean {
  return builtinsOffered(config).length > 0;
}

/** Names of the built-in tools the worker serves to some system of the config (not `search`). */
function builtinsOffered(config: Config): string[] {
  const names = new Set<string>();
  for (const system of config.systems) {
    for (const name of SYSTEMS.get(system.type)?.alwaysTools ?? []) names.add(name);
    for (const tool of system.tools) if (tool.kind === "builtin") names.add(tool.name);
  }
  names.delete(search.name);
  return [...names];
}

/**
 * The retriever of a system whose type takes no `retriever:` but offers
 * `search` through its tool list: the config's `default` retriever (BM25
 * with every default when there is none).
 */
export function defaultRetrieverChoice(config: Pick<Config, "retrievers">): RetrieverChoice {
  const named = new Map(Object.entries(config.retrievers));
  return {
    key: `named:${DEFAULT_RETRIEVER}`,
    name: DEFAULT_RETRIEVER,
    config: named.get(DEFAULT_RETRIEVER) ?? retrieverSchema.parse({}),
  };
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
  env: { corpus: Corpus; now: string; maxProcesses: number; progress?: (text: string) => void },
  config: { tools: { timeout_s: number } },
): Promise<OfferedTool> {
  const { startCustomTool } = await import("../../tools/sandbox/subprocess_host.ts");
  const host = await startCustomTool({
    name: ref.name,
    module: ref.module,
    exportName: ref.exportName,
    sideEffects: ref.side_effects,
    ...(ref.description === undefined ? {} : { description: ref.description }),
    ...(ref.memory_mb === undefined ? {} : { memoryMb: ref.memory_mb }),
  }, {
    ...env,
    ...(ref.load_timeout_s === undefined ? {} : { loadTimeoutMs: ref.load_timeout_s * 1000 }),
  });
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

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

import type { SavedIndexes } from "../retrieval/saved_indexes.ts";
import { type Config, DEFAULT_RETRIEVER, type RetrieverChoice } from "../config/types.ts";
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
import { callsModel, MOCK_POLICIES, SYSTEMS } from "../../systems/registry.ts";
import {
  modelCallsOf,
  type ResponseCacheSetup,
  retrievalDepthOf,
  type SystemInstance,
} from "../../systems/system.ts";
import { dirname } from "../util/paths.ts";
import { createInProcessHost, type ToolHost } from "../../tools/host.ts";
import { createWorkerHost } from "../../tools/sandbox/worker_host.ts";
import type { StartedWorker } from "../../tools/sandbox/early_worker.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { createToolbox, type OfferedTool } from "../../tools/toolbox.ts";
import type { OpenOptions } from "../../tools/mcp/connection.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { search } from "../../tools/search.ts";
import type { ToolCacheSetup } from "../../tools/cached_host.ts";
import { builtinRef } from "./tool_sources/builtin.ts";
import { sourceOf } from "./tool_sources/registry.ts";
import { type OfferEnv, Shared } from "./tool_sources/source.ts";
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
  /** Where built indexes are saved and loaded from (`--index-cache`); none: every index is built. */
  savedIndexes?: SavedIndexes;
  /** Record and replay the results of tools with side effects (`--cache-tools`). */
  toolCache?: ToolCacheSetup | null;
  /** Record and replay the answers of retriever services (rerank, http) under `--cache`. */
  retrievalCache?: RetrievalCacheSetup | null;
  /**
   * Record and replay the answers of deployed pipelines (`type: http` / `command`): `--cache`
   * in a live run, replay in `--mock` (see run_cache.ts).
   */
  serviceCache?: ResponseCacheSetup | null;
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
  // never started. Each system waits only for its own tools (a calculator is ready at once).
  if (prepare.length > 0) workerHost?.ready().catch(() => {});
  const builtinHost = workerHost ?? createInProcessHost([...BUILTIN_TOOLS.values()], env);
  const hosts: ToolHost[] = [builtinHost];
  const signal = options.signal ?? new AbortController().signal;
  const retrievers = new RunRetrievers(corpus, {
    ...(options.retrieverBuilders ? { builders: options.retrieverBuilders } : {}),
    ...(options.embedders ? { embedders: options.embedders } : {}),
    mock: options.mock ?? false,
    responses: options.retrievalCache ?? null,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.savedIndexes ? { saved: options.savedIndexes } : {}),
  });
  // What references share (a custom tool's processes, the MCP connections), made on first use.
  const shared = new Shared();
  let ids: ReadonlySet<string> | null = null;
  const documentIds = () => ids ??= new Set(corpus.documents.map((d) => d.id));
  const instances: SystemInstance[] = [];
  const close = async () => {
    await Promise.all([
      ...hosts.map((h) => h.close()),
      ...instances.map((i) => i.close()),
      shared.closeAll(),
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
    const systems: PlannedSystem[] = [];
    for (const system of config.systems) {
      const def = SYSTEMS.get(system.type);
      if (!def) {
        throw new TypeError(`system type "${system.type}" passed validation but is not registered`);
      }
      const refs = def.alwaysTools
        .filter((name) => !system.tools.some((t) => t.name === name))
        .map(builtinRef);
      const retriever: Retriever | null = system.retriever
        ? await retrievers.get(system.retriever, signal)
        : null;
      if (def.ranksDocuments) retriever?.prepareDocuments?.();
      const offerEnv: OfferEnv = {
        config,
        system: system.name,
        env,
        maxProcesses: options.concurrency,
        mock: options.mock ?? false,
        ...(options.progress ? { progress: options.progress } : {}),
        builtinHost: () => builtinHost,
        searchHost: () => searchHostFor(system.retriever ?? defaultRetrieverChoice(config)),
        toolCache: options.toolCache ?? null,
        mcp: options.mcp ?? {},
        shared,
      };
      const offered: OfferedTool[] = [];
      for (const ref of [...refs, ...system.tools]) {
        offered.push(...await sourceOf(ref).offer(ref, offerEnv));
      }
      // Without run models (tools, tests), and for a system that calls none (retrieval_only, left
      // out of them), a scripted stand-in that is never asked anything.
      const model = options.models?.get(system.name) ??
        (options.models && callsModel(system) ? undefined : createMockModel(
          EMPTY_SCRIPT,
          system.model.name,
          system.model.price ?? null,
          { policies: MOCK_POLICIES },
        ));
      if (!model) throw new TypeError(`no model was built for system "${system.name}"`);
      // A system with a process of its own (an agent framework) starts it now, loading meanwhile.
      const instance = def.start?.(system.options, {
        name: system.name,
        mock: options.mock ?? false,
        configDir: dirname(config.file),
        documentIds: documentIds(),
        responses: options.serviceCache ?? null,
      });
      if (instance) instances.push(instance);
      // Each system waits only for its own built-ins (a calculator is ready at once).
      const ownBuiltins = offered.filter((t) => t.host === builtinHost).map((t) => t.name);
      const toolsReady = workerHost && prepare.length > 0 && ownBuiltins.length > 0
        ? workerHost.ready(ownBuiltins)
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
        ...(instance?.pending ? { pending: () => instance.pending!() } : {}),
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
    for (const ref of system.tools) {
      for (const name of sourceOf(ref).workerTools(ref)) names.add(name);
    }
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

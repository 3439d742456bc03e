/**
 * The second phase of `ragbench run`, still writing nothing to the run
 * directory: opens the response cache, builds the models (reading their API
 * keys), refuses a run its cost caps cannot cover, then starts the
 * embedders, the saved indexes (`--index-cache`) and the plan (retrievers,
 * the sandbox worker, custom tools' processes, MCP servers). Tools start before the folder is made, so a tool
 * that cannot load leaves nothing behind. Each resource goes on the run's
 * stack; the plan on a phase of its own, which the run lifts above the lock
 * once it holds it (`run_stack.ts`).
 *
 * @module
 */

import { collectAfterBigLoad } from "../util/collect_garbage.ts";
import { resolveCacheDir } from "../cache/cache_dir.ts";
import { createEmbedderPool } from "../dense/embedders.ts";
import type { Model, Pricing } from "../llm/model.ts";
import { createModels, describeModel } from "../llm/select.ts";
import { type Plan, planSystems } from "../plan/plan.ts";
import { checkCostCaps } from "../plan/price_checks.ts";
import { callsModel, MOCK_POLICIES } from "../../systems/registry.ts";
import type { CliIO } from "./io.ts";
import { checkEstimate } from "./preflight.ts";
import { openRunCache, type RunCache } from "./run_cache.ts";
import type { PreparedRun } from "./run_prepare.ts";
import type { RunStack } from "./run_stack.ts";
import { HostLimiters } from "../llm/rate_limiter.ts";
import { type RunShard, runShard } from "./run_shard.ts";

/** The run's models and tools, started. */
export interface StartedRun {
  plan: Plan;
  /** The plan's phase of the stack: disposing of it closes the tool hosts and processes. */
  tools: AsyncDisposableStack;
  /** Each system's model, by system name. */
  models: ReadonlyMap<string, Model>;
  /** Id and price of the run's `model:`. */
  runModel: { id: string; pricing: Pricing | null };
  runCache: RunCache;
  /** Questions run at once. */
  concurrency: number;
  /** When the run started (ISO time; run.json's `started_at`): before its tools started. */
  startedAt: string;
  /** `--shard`: which jobs this process runs (run_shard.ts); null for the whole run. */
  shard: RunShard | null;
}

/**
 * Starts the models and tools of `run`. Resolves `"cancelled"` when a Ctrl-C
 * stopped the tools while they were starting (what had started is closed).
 *
 * @throws {RagbenchError} for a missing API key, a cost cap the run cannot
 *   respect, a tool or retriever that cannot start.
 */
export async function startRun(
  run: PreparedRun,
  ctx: { io: CliIO; stack: RunStack },
): Promise<StartedRun | "cancelled"> {
  const { io, stack } = ctx;
  const { request, config, prices } = run;
  const mock = request.mock;
  const concurrency = request.concurrency ?? config.evaluation.concurrency;
  const runCache = stack.use(openRunCache(config, run.cache, { mock }));
  // A system that calls no model (retrieval_only) gets none: no key is read for it.
  const models = await createModels(config.systems.filter(callsModel), {
    mock,
    script: run.loaded.script,
    prices,
    mockPolicies: MOCK_POLICIES,
    ...(runCache.model === null ? {} : { cache: runCache.model }),
    // model.rate_limit: shard i/n sends 1/n of it, so the n shards together stay under it.
    limiters: new HostLimiters({ share: 1 / (request.shard?.count ?? 1) }),
  });
  const runModel = describeModel(config.model, mock, prices);
  // After the key checks, so a missing key is reported first; before any tool starts. A replay
  // sends nothing and costs nothing, so the cap cannot be at risk; a --mock run's dollars are
  // simulated, so it is never refused over them.
  const replay = run.cache.mode === "replay";
  checkCostCaps(config, run.unpriced, { mock, replay });
  if (!replay && !mock) {
    checkEstimate(run.estimate, config.evaluation.max_cost_usd, request.force);
  }
  const startedAt = new Date().toISOString();
  const embedders = stack.use(createEmbedderPool({
    mock,
    replay,
    price: (embedding) => prices.embedding(embedding).per_mtok,
    cacheDir: () => resolveCacheDir(run.cache.dir).dir,
    onProgress: (line) => io.progress(line),
  }));
  const mode = run.cache.indexMode ?? "off";
  // Its module (and node:crypto, node:zlib) loads only when indexes are saved.
  const savedIndexes = mode === "off"
    ? null
    : new (await import("../retrieval/saved_indexes.ts")).SavedIndexes({
      dir: resolveCacheDir(run.cache.dir).dir,
      mode,
      progress: (line) => io.progress(line),
    });
  const tools = stack.phase();
  let plan: Plan;
  try {
    plan = await planSystems(config, run.loaded.corpus, {
      concurrency,
      mock,
      models,
      progress: io.progress,
      embedders,
      ...(savedIndexes ? { savedIndexes } : {}),
      toolCache: runCache.tools,
      retrievalCache: runCache.retrieval,
      serviceCache: runCache.services,
      // A Ctrl-C during an MCP server's start-up stops it at once, not when its handshake ends.
      mcp: { signal: io.signal },
      ...(run.sandbox ? { startedWorker: run.sandbox } : {}),
    });
  } catch (error) {
    if (!io.signal.aborted) throw error;
    return "cancelled";
  }
  tools.defer(() => plan.close());
  // What a big corpus's load and its index builds left (the JSON text, parse objects, build
  // temporaries) is returned before the questions allocate: 790 -> 621 MB at 100k documents.
  await collectAfterBigLoad(run.corpusChars);
  const shard = request.shard === undefined ? null : runShard(request.shard, {
    systems: plan.systems,
    questions: run.loaded.questions,
    repeats: config.evaluation.repeats,
  });
  return { plan, tools, models, runModel, runCache, concurrency, startedAt, shard };
}

/**
 * The response cache of one `ragbench run`: opened once (when the run uses
 * it, see cache_needs.ts), shared by the model wrapper and the tool-host
 * wrappers, closed when the run ends, and summed up in one progress line.
 *
 * @module
 */

import { resolveCacheDir } from "../cache/cache_dir.ts";
import { openResponseCache, type ResponseCache } from "../cache/response_cache.ts";
import type { Config } from "../config/types.ts";
import { type CacheStats, emptyCacheStats, type ModelCacheSetup } from "../llm/cached_model.ts";
import type { CacheUse } from "../plan/cache_needs.ts";
import { hasReplayingSystems, hasSideEffectTools, usesResponseCache } from "../plan/cache_needs.ts";
import type { ResponseCacheSetup } from "../../systems/system.ts";
import { SERVICE_REPLAY_MISS_PREFIX } from "../../systems/service_system.ts";
import { TOOL_REPLAY_MISS_PREFIX, type ToolCacheSetup } from "../../tools/cached_host.ts";
import { REPLAY_MISS_PREFIX } from "../llm/cached_model.ts";
import { EMBEDDING_REPLAY_MISS_PREFIX } from "../dense/replay_embedder.ts";
import type { QuestionResult } from "../types.ts";
import {
  RETRIEVAL_REPLAY_MISS_PREFIX,
  type RetrievalCacheSetup,
} from "../retrieval/remote/cached_call.ts";
import { plural } from "../util/plural.ts";

/** The cache of a run; `model` / `tools` / `retrieval` are null when that part is not cached. */
export interface RunCache extends Disposable {
  readonly model: ModelCacheSetup | null;
  readonly tools: ToolCacheSetup | null;
  /** Answers of retriever services (rerank, http), under `--cache` like model calls. */
  readonly retrieval: RetrievalCacheSetup | null;
  /**
   * Answers of deployed pipelines (`type: http` / `command`): under `--cache` like model calls
   * in a live run, replayed in `--mock`.
   */
  readonly services: ResponseCacheSetup | null;
  /** One line for the end of the run, or null when the run used no cache. */
  summaryLine(): string | null;
}

/**
 * Reports what a replay could not replay (a model call that is the
 * question's error, a tool call that got the replay-miss error) and returns
 * the exit code: 1 when there was any, else 0. Each is named by system,
 * question, repeat and step (1-based index in the line's `steps`).
 */
export function replayMisses(
  lines: readonly QuestionResult[],
  print: (line: string) => void,
): number {
  const misses: string[] = [];
  for (const line of lines) {
    if (line.error?.message.startsWith(REPLAY_MISS_PREFIX)) {
      misses.push(line.error.message);
    } else if (line.error?.message.includes(`: ${SERVICE_REPLAY_MISS_PREFIX} `)) {
      misses.push(line.error.message);
    }
    const where = `question "${line.question_id}" (system ${line.system}, repeat ${line.repeat})`;
    line.steps.forEach((step, index) => {
      if (step.type === "tool" && step.result.error?.detail?.startsWith(TOOL_REPLAY_MISS_PREFIX)) {
        misses.push(`${step.result.error.detail} — ${where}, step ${index + 1}`);
      }
      // A query embedding not in the embedding cache: a retrieval step's error, or the detail
      // of a search tool's error ("retriever NAME: <message>").
      const embedding = step.type === "retrieval"
        ? step.error?.message
        : step.type === "tool"
        ? step.result.error?.detail
        : undefined;
      for (const prefix of [EMBEDDING_REPLAY_MISS_PREFIX, RETRIEVAL_REPLAY_MISS_PREFIX]) {
        const at = embedding?.indexOf(prefix) ?? -1;
        if (embedding !== undefined && at >= 0) {
          misses.push(`${embedding.slice(at)} — ${where}, step ${index + 1}`);
        }
      }
    });
  }
  if (misses.length === 0) return 0;
  print(`replay: ${plural(misses.length, "call")} had no usable recording:`);
  for (const miss of misses.slice(0, 10)) print(`  ${miss}`);
  if (misses.length > 10) print(`  ... and ${misses.length - 10} more`);
  return 1;
}

/**
 * Opens the run's cache.
 *
 * @throws {RagbenchError} when the cache folder cannot be found or the file opened.
 */
export function openRunCache(config: Config, use: CacheUse, options: { mock: boolean }): RunCache {
  const sideEffectTools = hasSideEffectTools(config);
  let cache: ResponseCache | null = null;
  const services = hasReplayingSystems(config);
  if (usesResponseCache(use, { mock: options.mock, sideEffectTools, services })) {
    cache = openResponseCache(resolveCacheDir(use.dir, use.env).dir);
  }
  const modelStats = emptyCacheStats();
  const toolStats = emptyCacheStats();
  const retrievalStats = emptyCacheStats();
  const serviceStats = emptyCacheStats();
  const model = cache !== null && use.mode !== "off" && !options.mock
    ? { cache, mode: use.mode, stats: modelStats }
    : null;
  const tools = cache !== null && use.toolMode !== "off" && !options.mock
    ? { cache, mode: use.toolMode, stats: toolStats }
    : null;
  const retrieval = cache !== null && use.mode !== "off"
    ? { cache, mode: use.mode, stats: retrievalStats }
    : null;
  const serviceMode = options.mock ? "replay" : use.mode;
  const serviceSetup = cache !== null && services && serviceMode !== "off"
    ? { cache, mode: serviceMode, stats: serviceStats }
    : null;
  return {
    model,
    tools,
    retrieval,
    services: serviceSetup,
    summaryLine() {
      if (cache === null) return null;
      // A part with nothing to say (a retrieval-only run makes no model call) is left out.
      const parts = [];
      if (model && used(modelStats)) parts.push(`model calls ${describe(model.mode, modelStats)}`);
      if (tools && used(toolStats)) parts.push(`tool results ${describe(tools.mode, toolStats)}`);
      if (retrieval && used(retrievalStats)) {
        parts.push(`retrieval calls ${describe(retrieval.mode, retrievalStats)}`);
      }
      if (serviceSetup && used(serviceStats)) {
        parts.push(`service answers ${describe(serviceSetup.mode, serviceStats)}`);
      }
      return parts.length === 0 ? null : `cache: ${parts.join("; ")} (${cache.path})`;
    },
    [Symbol.dispose]() {
      cache?.close();
    },
  };
}

function used(stats: CacheStats): boolean {
  return stats.hits + stats.misses + stats.recorded + stats.writeFailures > 0;
}

function describe(mode: string, stats: CacheStats): string {
  const parts = [`${stats.hits} reused`, `${stats.misses} missed`];
  if (stats.corrupt > 0) parts.push(`${stats.corrupt} unreadable`);
  parts.push(`${stats.recorded} recorded`);
  if (stats.writeFailures > 0) parts.push(`${stats.writeFailures} could not be recorded`);
  return `(${mode}): ${parts.join(", ")}`;
}

/**
 * Record and replay of model calls: a {@link Model} that looks each request
 * up in the response cache (lib/cache/response_cache.ts) before calling the
 * model it wraps, following the run's cache mode (lib/cache/cache_mode.ts).
 * A reply served from the cache has `cached: true`; the trace recorder then
 * bills it $0 and keeps its tokens and cost as `recorded_*`. The request's
 * `repeat` is part of the key (from repeat 2 on), so every repeat of a
 * question is sampled live once and then replayed from its own recording.
 *
 * @module
 */

import { z } from "zod";
import { type CacheMode, readsCache, writesCache } from "../cache/cache_mode.ts";
import { modelKey, type ModelKeyParts, repeatPart } from "../cache/cache_key.ts";
import type { ResponseCache } from "../cache/response_cache.ts";
import { SingleFlight } from "../cache/single_flight.ts";
import type { ModelConfig } from "./model_config.ts";
import { type ChatRequest, type ChatResponse, type Model, ModelCallError } from "./model.ts";

/** Counts of a run's cache use, printed at the end of the run. */
export interface CacheStats {
  hits: number;
  /** Lookups that found nothing usable (corrupt entries included). */
  misses: number;
  /** Entries that were present but unreadable (counted in `misses` too). */
  corrupt: number;
  recorded: number;
  /** Responses that could not be recorded (the run used them anyway). */
  writeFailures: number;
}

/** Fresh zero counts. */
export function emptyCacheStats(): CacheStats {
  return { hits: 0, misses: 0, corrupt: 0, recorded: 0, writeFailures: 0 };
}

/** Options of {@link withResponseCache}. */
export interface CachedModelOptions {
  cache: ResponseCache;
  /** Any mode but `off` (an `off` run does not wrap its model). */
  mode: CacheMode;
  /** Everything in the key but the request itself (its messages, tools and repeat). */
  key: Omit<ModelKeyParts, "messages" | "tools" | "repeat">;
  stats: CacheStats;
}

/** Start of the error message of a question that `--cache replay` could not replay. */
export const REPLAY_MISS_PREFIX = "--cache replay:";

/**
 * `--cache replay` found no usable recording for a model call. The trace
 * recorder sets where (`step`, `call`); the runner names the question.
 */
export class ReplayMissError extends ModelCallError {
  /** 1-based index of the step in the question's trace, once known. */
  step?: number;
  /** 1-based index of the model call in the question, once known. */
  call?: number;

  constructor(readonly corrupt: boolean) {
    super(corrupt ? "the recorded response is unreadable" : "no recorded response");
    this.name = "ReplayMissError";
  }

  /** The message for the results file, naming the question and the step. */
  describe(where: { system: string; question: string; repeat: number }): string {
    const what = this.corrupt
      ? "the recorded response is unreadable (the cache entry is corrupt)"
      : "no recorded response matches this request";
    return `${REPLAY_MISS_PREFIX} ${what} for question "${where.question}" ` +
      `(system ${where.system}, repeat ${where.repeat}), model call ${this.call ?? "?"} ` +
      `(step ${this.step ?? "?"}). Record it first with a live run (--cache read-write, ` +
      "the default), with the same config, questions and model.";
  }
}

const ResponseEntry = z.strictObject({
  content: z.string().nullable(),
  tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
  usage: z.strictObject({
    input_tokens: z.number().nonnegative(),
    output_tokens: z.number().nonnegative(),
  }),
});

/** What a run hands to `createModel` to record and replay its model calls. */
export interface ModelCacheSetup {
  cache: ResponseCache;
  mode: CacheMode;
  stats: CacheStats;
}

/** The API root used when `model.base_url` is null (kept equal to openai_model.ts's). */
const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Wraps the model built from `config`, keyed by its provider, base URL, name and sampling options. */
export function withModelCache(model: Model, config: ModelConfig, setup: ModelCacheSetup): Model {
  return withResponseCache(model, {
    ...setup,
    key: {
      provider: config.provider,
      base_url: config.base_url ?? DEFAULT_BASE_URL,
      model: config.name,
      params: { temperature: config.temperature, max_tokens: config.max_output_tokens },
    },
  });
}

/**
 * Wraps `model` so that its calls are recorded and replayed (see the module docs).
 *
 * A request whose identical twin (same key: two systems that sent the same
 * messages in the same repeat) is already being sent waits for the twin's
 * reply and is served it as a cache hit, as it would be had the twin finished
 * first: what a run records, and so what its replay serves, does not depend
 * on `--concurrency` (`lib/cache/single_flight.ts`).
 */
export function withResponseCache(model: Model, options: CachedModelOptions): Model {
  const { cache, mode, stats } = options;
  const flights = new SingleFlight<ChatResponse>();
  const live = async (key: string, request: ChatRequest, signal: AbortSignal) => {
    const reply = await model.chat(request, signal);
    if (writesCache(mode)) {
      try {
        cache.put(key, "model", {
          content: reply.content,
          tool_calls: reply.tool_calls,
          usage: reply.usage,
        });
        stats.recorded++;
      } catch {
        stats.writeFailures++;
      }
    }
    return reply;
  };
  return {
    id: model.id,
    pricing: model.pricing,
    async chat(request, signal): Promise<ChatResponse> {
      const key = modelKey({
        ...options.key,
        messages: request.messages,
        tools: request.tools,
        ...repeatPart(request.repeat),
      });
      if (readsCache(mode)) {
        // The twin's failure (its own abort, an error) is not this call's: it then goes live.
        const joined = flights.join(key, signal);
        const twin = joined === null ? null : await joined;
        if (twin !== null) {
          stats.hits++;
          // What the cache would have served: the reply, not the twin's retries.
          const { content, tool_calls, usage } = twin.value;
          return { content, tool_calls, usage, cached: true };
        }
        const found = cache.get(key);
        const entry = found.found ? ResponseEntry.safeParse(found.value) : null;
        if (entry?.success) {
          stats.hits++;
          return { ...entry.data, cached: true };
        }
        stats.misses++;
        const corrupt = found.found || found.corrupt;
        if (corrupt) stats.corrupt++;
        if (mode === "replay") throw new ReplayMissError(corrupt);
      }
      if (!readsCache(mode)) return await live(key, request, signal);
      return await flights.lead(key, () => live(key, request, signal));
    },
  };
}

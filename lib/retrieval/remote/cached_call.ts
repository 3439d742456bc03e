/**
 * Record and replay of a retriever service's answers (a reranker's scores,
 * the user's retrieval service's hits) in the run's response cache, under
 * the same `--cache` mode as model calls (lib/cache/cache_mode.ts): a
 * recorded answer is reused and costs nothing, a miss is sent and recorded,
 * and `--cache replay` sends nothing (a miss is the question's error,
 * starting {@link RETRIEVAL_REPLAY_MISS_PREFIX}). An entry that does not fit
 * the answer's schema is a miss, never a crash.
 *
 * @module
 */

import type { z } from "zod";
import { type CacheMode, readsCache, writesCache } from "../../cache/cache_mode.ts";
import { retrievalKey, type RetrievalKeyParts } from "../../cache/cache_key.ts";
import type { ResponseCache } from "../../cache/response_cache.ts";
import type { CacheStats } from "../../llm/cached_model.ts";
import { SingleFlight } from "../../cache/single_flight.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";

/** The run's response cache as retrievers use it (null in a run without one). */
export interface RetrievalCacheSetup {
  cache: ResponseCache;
  mode: CacheMode;
  /** Counts for the run's closing `cache:` line. */
  stats: CacheStats;
}

/** Start of the message of a retrieval that `--cache replay` could not replay. */
export const RETRIEVAL_REPLAY_MISS_PREFIX = "--cache replay: no recorded retrieval";

/**
 * The answers in flight of each run's setup (one setup a run, shared by
 * every retriever of the run, so two retrievers asking the same service the
 * same thing share a flight).
 */
const FLIGHTS = new WeakMap<RetrievalCacheSetup, SingleFlight<unknown>>();

/**
 * The answer for `parts`: from the cache when the mode reads it and an entry
 * fits `schema`, else from `call` (recorded when the mode writes). When the
 * mode reads the cache, an identical request already being sent (another
 * system asking the same query at once) is waited for and its answer served
 * as a hit (`lib/cache/single_flight.ts`); if it fails, this one is sent.
 *
 * @throws {EngineError} on a replay miss, or whatever `call` throws; the
 *   signal's reason when `signal` aborts while waiting for a twin.
 */
export async function cachedCall<T>(
  setup: RetrievalCacheSetup | null,
  site: EngineSite,
  parts: RetrievalKeyParts,
  schema: z.ZodType<T>,
  call: () => Promise<T>,
  signal?: AbortSignal,
): Promise<{ value: T; cached: boolean }> {
  if (setup === null || setup.mode === "off") return { value: await call(), cached: false };
  const { cache, mode, stats } = setup;
  const key = retrievalKey(parts);
  const live = async (): Promise<T> => {
    const value = await call();
    if (writesCache(mode)) {
      try {
        cache.put(key, "retrieval", value);
        stats.recorded++;
      } catch {
        stats.writeFailures++;
      }
    }
    return value;
  };
  if (!readsCache(mode)) return { value: await live(), cached: false };
  let flights = FLIGHTS.get(setup) as SingleFlight<T> | undefined;
  if (flights === undefined) {
    flights = new SingleFlight<T>();
    FLIGHTS.set(setup, flights as SingleFlight<unknown>);
  }
  const joined = flights.join(key, signal);
  const twin = joined === null ? null : await joined;
  if (twin !== null) {
    stats.hits++;
    // A copy, as a hit read from the cache is: the twin's caller owns its value.
    return { value: structuredClone(twin.value), cached: true };
  }
  const found = cache.get(key);
  const entry = found.found ? schema.safeParse(found.value) : null;
  if (entry?.success) {
    stats.hits++;
    return { value: entry.data, cached: true };
  }
  stats.misses++;
  const corrupt = found.found || found.corrupt;
  if (corrupt) stats.corrupt++;
  if (mode === "replay") {
    throw new EngineError(
      site,
      `${RETRIEVAL_REPLAY_MISS_PREFIX} ${
        corrupt ? "(the entry is unreadable)" : "for this query"
      }. Record it first with a live run (--cache read-write, the default).`,
    );
  }
  return { value: await flights.lead(key, live), cached: false };
}

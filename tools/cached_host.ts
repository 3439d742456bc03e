/**
 * Record and replay of tool results: a {@link ToolHost} that looks each call
 * up in the response cache (lib/cache/response_cache.ts) before calling the
 * host it wraps, following `--cache-tools` (lib/cache/cache_mode.ts). Only
 * tools with side effects are wrapped (lib/plan/plan.ts): their results
 * depend on the world, while a side-effect-free tool is recomputed exactly.
 *
 * The key is the tool, its server (where it runs: `custom:<module>#<export>`
 * for a custom tool, the MCP server's identity for an MCP tool), its options
 * and the parsed arguments (cache_key.ts), and the question's repeat from
 * repeat 2 on: a tool whose result depends on the world is called again in
 * each repeat of a live run (as it would be with no cache), and a replay
 * serves each repeat what that repeat saw. A hit is returned as recorded,
 * with `cost_usd` 0 (nothing was spent). Results that say the tool could not
 * run this time (`timeout`, `unavailable`) are not recorded. In `replay`
 * mode a miss is an `unavailable` error whose `detail` starts with
 * {@link TOOL_REPLAY_MISS_PREFIX}, so the run can report it and fail.
 *
 * @module
 */

import { z } from "zod";
import { type CacheMode, readsCache, writesCache } from "../lib/cache/cache_mode.ts";
import { repeatPart, toolKey } from "../lib/cache/cache_key.ts";
import type { ResponseCache } from "../lib/cache/response_cache.ts";
import type { CacheStats } from "../lib/llm/cached_model.ts";
import { TOOL_ERROR_KINDS } from "../lib/types.ts";
import type { ToolHost } from "./host.ts";
import { errorResult, type RawToolResult } from "./invoke.ts";

/** What a run hands to the plan to record and replay tool results. */
export interface ToolCacheSetup {
  cache: ResponseCache;
  /** Any mode but `off`. */
  mode: CacheMode;
  stats: CacheStats;
}

/** Start of the `detail` of a tool call that `--cache-tools replay` could not replay. */
export const TOOL_REPLAY_MISS_PREFIX = "--cache-tools replay:";

const JsonValueSchema: z.ZodType = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ])
);

const ResultEntry = z.strictObject({
  output: z.string(),
  data: JsonValueSchema.optional(),
  error: z.strictObject({
    kind: z.enum(TOOL_ERROR_KINDS),
    message: z.string(),
    detail: z.string().optional(),
  }).nullable(),
  cost_usd: z.number().nonnegative().nullable(),
  result_ends: z.array(z.int().nonnegative()).optional(),
});

/** Wraps `host` (whose tools run at `server`) for record and replay. */
export function withToolCache(host: ToolHost, setup: ToolCacheSetup, server: string): ToolHost {
  const { cache, mode, stats } = setup;
  return {
    async call(call, signal) {
      const key = toolKey({
        tool: call.tool,
        server,
        options: call.options,
        arguments: call.args,
        ...repeatPart(call.repeat),
      });
      if (readsCache(mode)) {
        const found = cache.get(key);
        const entry = found.found ? ResultEntry.safeParse(found.value) : null;
        if (entry?.success) {
          stats.hits++;
          return { ...(entry.data as RawToolResult), cost_usd: 0 };
        }
        stats.misses++;
        const corrupt = found.found || found.corrupt;
        if (corrupt) stats.corrupt++;
        if (mode === "replay") {
          return errorResult(
            "unavailable",
            "The tool is not available in this run. Answer with what you have.",
            `${TOOL_REPLAY_MISS_PREFIX} ${
              corrupt ? "the recorded result is unreadable" : "no recorded result"
            } for tool "${call.tool}" (question ${call.questionKey}). Record it first with a live run and --cache-tools read-write.`,
          );
        }
      }
      const result = await host.call(call, signal);
      const transient = result.error?.kind === "timeout" || result.error?.kind === "unavailable";
      if (writesCache(mode) && !transient) {
        try {
          cache.put(key, "tool", result);
          stats.recorded++;
        } catch {
          stats.writeFailures++;
        }
      }
      return result;
    },
    endQuestion(questionKey) {
      host.endQuestion(questionKey);
    },
    close() {
      return host.close();
    },
  };
}

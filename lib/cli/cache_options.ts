/**
 * The response-cache options of `ragbench run` and `ragbench permissions`:
 * `--cache MODE` (model calls, default read-write), `--cache-tools MODE`
 * (tools with side effects, default off) and `--cache-dir DIR` (the same
 * option, and meaning, as the embedding cache's). The modes are in
 * lib/cache/cache_mode.ts.
 *
 * @module
 */

import {
  CACHE_MODES,
  DEFAULT_MODEL_CACHE_MODE,
  DEFAULT_TOOL_CACHE_MODE,
  parseCacheMode,
} from "../cache/cache_mode.ts";
import type { OptionSpec, ParsedArgs } from "./args.ts";
import { INDEX_CACHE_MODES, type IndexCacheMode } from "../cache/index_cache_mode.ts";
import { UsageError } from "../errors.ts";
import { closestMatch } from "../util/did_you_mean.ts";
import type { CacheUse } from "../plan/cache_needs.ts";

/** The option declarations. */
export const CACHE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "cache",
    value: "MODE",
    description: `Record and replay model calls: ${CACHE_MODES.join(" | ")} ` +
      `(default ${DEFAULT_MODEL_CACHE_MODE}; never with --mock).`,
  },
  {
    name: "cache-tools",
    value: "MODE",
    description: "The same for results of tools with side effects " +
      `(default ${DEFAULT_TOOL_CACHE_MODE}).`,
  },
  {
    name: "index-cache",
    value: "MODE",
    description: "Save built BM25 indexes and passage vectors in the cache folder and load them " +
      "in later runs: off | read | write | read-write (default read-write; off with --mock " +
      "or --cache off).",
  },
  {
    name: "cache-dir",
    value: "DIR",
    description: "Keep the caches in DIR (default $RAGBENCH_CACHE_DIR, " +
      "$XDG_CACHE_HOME/ragbench or ~/.cache/ragbench).",
  },
];

/**
 * Reads the options.
 *
 * @throws {UsageError} for a value that is not a mode.
 */
export function cacheUseFromArgs(args: ParsedArgs): CacheUse {
  const dir = args.options.get("cache-dir");
  return {
    mode: parseCacheMode(args.options.get("cache"), "--cache", DEFAULT_MODEL_CACHE_MODE),
    toolMode: parseCacheMode(
      args.options.get("cache-tools"),
      "--cache-tools",
      DEFAULT_TOOL_CACHE_MODE,
    ),
    indexMode: parseIndexCacheMode(args.options.get("index-cache"), {
      mock: args.options.has("mock"),
      cacheOff: args.options.get("cache") === "off",
    }),
    ...(dir === undefined ? {} : { dir }),
  };
}

/**
 * Reads `--index-cache`: default read-write, but off in a `--mock` run
 * (which then needs no cache folder) and with `--cache off` (a run told not
 * to cache does not start keeping indexes in the cache folder).
 *
 * @throws {UsageError} for a value that is not a mode.
 */
export function parseIndexCacheMode(
  value: string | undefined,
  defaults: { mock: boolean; cacheOff: boolean },
): IndexCacheMode {
  if (value === undefined) return defaults.mock || defaults.cacheOff ? "off" : "read-write";
  const mode = INDEX_CACHE_MODES.find((m) => m === value);
  if (mode !== undefined) return mode;
  const near = closestMatch(value, INDEX_CACHE_MODES);
  throw new UsageError(
    `--index-cache "${value}" is not a mode${near ? ` — did you mean "${near}"?` : ""} ` +
      `Use one of: ${INDEX_CACHE_MODES.join(", ")}.`,
  );
}

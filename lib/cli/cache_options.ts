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
    ...(dir === undefined ? {} : { dir }),
  };
}

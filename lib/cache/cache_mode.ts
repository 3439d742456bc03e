/**
 * The modes of the response cache, chosen with `ragbench run --cache MODE`
 * (model calls; default `read-write`) and `--cache-tools MODE` (results of
 * tools with side effects; default `off`):
 *
 * - `off`: the cache is neither read nor written;
 * - `read`: a recorded response is reused; a miss is sent live and not recorded;
 * - `write`: every call is sent live and its response recorded (replacing an older one);
 * - `read-write`: a recorded response is reused; a miss is sent live and recorded;
 * - `replay`: only recorded responses are used; a miss is the question's error
 *   and nothing is sent (no network, no API key needed).
 *
 * @module
 */

import { UsageError } from "../errors.ts";
import { closestMatch } from "../util/did_you_mean.ts";

/** The cache modes, in the order `--help` lists them. */
export const CACHE_MODES = ["off", "read", "write", "read-write", "replay"] as const;

/** One of {@link CACHE_MODES}. */
export type CacheMode = typeof CACHE_MODES[number];

/** Default of `--cache` (model calls). */
export const DEFAULT_MODEL_CACHE_MODE: CacheMode = "read-write";
/** Default of `--cache-tools` (tools with side effects). */
export const DEFAULT_TOOL_CACHE_MODE: CacheMode = "off";

/** Whether a mode reuses recorded responses. */
export function readsCache(mode: CacheMode): boolean {
  return mode === "read" || mode === "read-write" || mode === "replay";
}

/** Whether a mode records live responses. */
export function writesCache(mode: CacheMode): boolean {
  return mode === "write" || mode === "read-write";
}

/**
 * Reads the value of `--cache` / `--cache-tools` (`flag` names it in the message).
 *
 * @throws {UsageError} for a value that is not a mode.
 */
export function parseCacheMode(
  value: string | undefined,
  flag: string,
  fallback: CacheMode,
): CacheMode {
  if (value === undefined) return fallback;
  const mode = CACHE_MODES.find((m) => m === value);
  if (mode !== undefined) return mode;
  const near = closestMatch(value, CACHE_MODES);
  throw new UsageError(
    `${flag} "${value}" is not a cache mode${near ? ` — did you mean "${near}"?` : ""} ` +
      `Use one of: ${CACHE_MODES.join(", ")}.`,
  );
}

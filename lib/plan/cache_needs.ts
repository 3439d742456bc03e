/**
 * The permissions the response cache of a run needs (permissions.ts adds
 * them to the run's): read and write of the cache folder and env for the
 * variables read to find it (lib/cache/cache_dir.ts), when model calls or
 * tool results are cached. `--mock` runs use it only to replay the
 * recorded answers of deployed pipelines (`type: http` / `command`), so
 * `deno task bench` needs neither.
 *
 * @module
 */

import { CACHE_DIR_VARIABLES, type EnvReader, resolveCacheDir } from "../cache/cache_dir.ts";
import { RagbenchError } from "../errors.ts";
import type { CacheMode } from "../cache/cache_mode.ts";
import type { Config } from "../config/types.ts";
import type { Need } from "./need.ts";
import { sourceOf } from "./tool_sources/registry.ts";
import { SYSTEMS } from "../../systems/registry.ts";

/**
 * Why the variables that locate the cache folder are needed when this process
 * may not read them: the folder is not known yet, so its read and write are
 * missing from the needs until they are granted (`ragbench permissions` says so).
 */
export const UNRESOLVED_CACHE_DIR = "finding the cache folder (or give --cache-dir DIR)";

/**
 * The needs that locate the cache folder when this process may not read the
 * variables that do (see {@link UNRESOLVED_CACHE_DIR}), else null.
 *
 * @throws {RagbenchError} ("usage") when none of the variables is set.
 */
export function unresolvedCacheDir(dir: string | undefined, env?: EnvReader): Need[] | null {
  try {
    resolveCacheDir(dir, env);
    return null;
  } catch (error) {
    if (!(error instanceof RagbenchError) || error.code !== "permission") throw error;
    return CACHE_DIR_VARIABLES.map((variable): Need => ({
      name: "env",
      value: variable,
      why: UNRESOLVED_CACHE_DIR,
    }));
  }
}

/** How a run uses the response cache (`--cache`, `--cache-tools`, `--cache-dir`). */
export interface CacheUse {
  /** `--cache`: model calls. */
  mode: CacheMode;
  /** `--cache-tools`: results of tools with side effects. */
  toolMode: CacheMode;
  /** `--cache-dir`, when given. */
  dir?: string;
  /** Reads the variables that locate the cache (default `Deno.env.get`, checked first). */
  env?: EnvReader;
}

/**
 * Whether some system offers a tool whose results `--cache-tools` records
 * (its source says: a custom tool with side effects, an MCP tool).
 */
export function hasSideEffectTools(config: Config): boolean {
  return config.systems.some((s) => s.tools.some((t) => sourceOf(t).cachesResults(t)));
}

/**
 * Whether some system of `config` is a deployed pipeline whose recorded answers `--mock`
 * replays (`SystemDef.replaysInMock`: `type: http`, `type: command`).
 */
export function hasReplayingSystems(config: Pick<Config, "systems">): boolean {
  return config.systems.some((s) => SYSTEMS.get(s.type)?.replaysInMock === true);
}

/**
 * Whether a run opens the response cache: in `--mock` only to replay the answers of deployed
 * pipelines (`services`); else when either mode is not `off`.
 */
export function usesResponseCache(
  cache: CacheUse,
  options: { mock: boolean; sideEffectTools: boolean; services?: boolean },
): boolean {
  if (options.mock) return options.services === true;
  return cache.mode !== "off" || (cache.toolMode !== "off" && options.sideEffectTools);
}

/**
 * What the response cache needs. When this process may not read the
 * variables that locate the cache folder, the needs are those variables
 * (so a run's permission check lists them beside the others); the folder's
 * read and write show once they are granted.
 *
 * @throws {RagbenchError} ("usage") when none of the variables is set.
 */
export function responseCacheNeeds(
  cache: CacheUse,
  options: { mock: boolean; sideEffectTools: boolean; services?: boolean },
): Need[] {
  if (!usesResponseCache(cache, options)) return [];
  const why = options.mock ? "--mock replays the deployed pipelines' answers" : "--cache";
  const unresolved = unresolvedCacheDir(cache.dir, cache.env);
  if (unresolved !== null) return unresolved;
  const found = resolveCacheDir(cache.dir, cache.env);
  return [
    ...found.variablesRead.map((variable): Need => ({
      name: "env",
      value: variable,
      why: "finding the cache folder",
    })),
    { name: "read", value: found.dir, why: `the response cache (${why})` },
    { name: "write", value: found.dir, why: `the response cache (${why})` },
  ];
}

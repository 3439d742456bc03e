/**
 * The permissions the embedders of a run need (permissions.ts adds them to
 * the run's): for each embedder that calls an endpoint (an `openai` one
 * outside `--mock`), net for its host and env for its API key variable; and,
 * once for them all, read and write of the cache folder and env for the
 * variables read to find it (lib/cache/cache_dir.ts). The `hashing`
 * embedder, and every embedder in `--mock`, needs nothing: `deno task bench`
 * runs with no cache and no environment. With `--cache replay` an `openai`
 * embedder reads only the embedding cache (embedders.ts), so it needs the
 * cache folder but neither its host nor its key.
 *
 * @module
 */

import type { Config, RetrieverChoice } from "../config/types.ts";
import type { EmbeddingConfig } from "../config/retriever_schema.ts";
import { type EnvReader, resolveCacheDir } from "../cache/cache_dir.ts";
import { unresolvedCacheDir } from "./cache_needs.ts";
import { usesEndpoint } from "../dense/embedders.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { search } from "../../tools/search.ts";
import { defaultRetrieverChoice } from "./plan.ts";
import { modelHost, type Need } from "./need.ts";
import { offeredNamesOf } from "./tool_sources/registry.ts";
import { kindOf } from "../retrieval/kinds/registry.ts";

/**
 * The embeddings the retrievers of `config`'s systems call (each kind says
 * which: a vector or hybrid retriever's `embedding:`): a system's own
 * retriever, or the config's default one for a system that offers `search`
 * without naming a retriever (as lib/plan/plan.ts picks them).
 */
export function configEmbeddings(
  config: Pick<Config, "systems" | "retrievers">,
): EmbeddingConfig[] {
  return systemRetrievers(config).flatMap((u) =>
    kindOf(u.retriever.config).embeddings(u.retriever.config)
  );
}

/**
 * The retriever each system of `config` uses, in system order: its own, or
 * the config's default one for a system that offers `search` without naming
 * one; systems that retrieve nothing are left out.
 */
export function systemRetrievers(
  config: Pick<Config, "systems" | "retrievers">,
): Array<{ system: string; retriever: RetrieverChoice }> {
  const used: Array<{ system: string; retriever: RetrieverChoice }> = [];
  for (const system of config.systems) {
    if (system.retriever) {
      used.push({ system: system.name, retriever: system.retriever });
      continue;
    }
    const offersSearch = (SYSTEMS.get(system.type)?.alwaysTools ?? []).includes(search.name) ||
      system.tools.some((t) => offeredNamesOf(t).includes(search.name));
    if (offersSearch) used.push({ system: system.name, retriever: defaultRetrieverChoice(config) });
  }
  return used;
}

/** Options of {@link embeddingNeeds}. */
export interface EmbeddingNeedsOptions {
  mock: boolean;
  /** `--cache replay`: vectors come from the embedding cache only, nothing is sent. */
  replay?: boolean;
  /** `--cache-dir`, when given. */
  cacheDir?: string;
  /** Reads the variables that locate the cache (default `Deno.env.get`, checked first). */
  env?: EnvReader;
}

/**
 * What `embeddings` (every `embedding:` of the retrievers a run uses) need.
 *
 * When this process may not read the variables that locate the cache folder,
 * those variables are the needs in the folder's place (see unresolvedCacheDir).
 *
 * @throws {RagbenchError} ("usage") when none of those variables is set.
 */
export function embeddingNeeds(
  embeddings: readonly EmbeddingConfig[],
  options: EmbeddingNeedsOptions,
): Need[] {
  const remote = embeddings.filter((e) => usesEndpoint(e, options.mock));
  if (remote.length === 0) return [];
  const needs: Need[] = [];
  for (const e of options.replay ? [] : remote) {
    if (e.api_key_env !== null) {
      needs.push({
        name: "env",
        value: e.api_key_env,
        why: `the embedding API key (embedding.api_key_env, model ${e.model})`,
      });
    }
    needs.push({
      name: "net",
      value: modelHost(e.base_url),
      why: `the embedding API (model ${e.model})`,
    });
  }
  // Not readable here: the variables are the need, the folder shows once they are granted.
  const unresolved = unresolvedCacheDir(options.cacheDir, options.env);
  if (unresolved !== null) return [...needs, ...unresolved];
  const cache = resolveCacheDir(options.cacheDir, options.env);
  for (const variable of cache.variablesRead) {
    needs.push({ name: "env", value: variable, why: "finding the cache folder" });
  }
  needs.push(
    { name: "read", value: cache.dir, why: "the embedding cache" },
    { name: "write", value: cache.dir, why: "the embedding cache" },
  );
  return needs;
}

/**
 * What the retrievers of `config`'s systems need besides their embeddings
 * (each kind says: an engine's host or socket, a key's variable, the
 * variables of its `${VAR}` templates; a reranker's base's too). Each
 * retriever counts once.
 */
export function retrieverNeeds(
  config: Pick<Config, "systems" | "retrievers">,
  options: { mock: boolean; env?: (name: string) => string | undefined },
): Need[] {
  const seen = new Set<string>();
  const needs: Need[] = [];
  for (const { retriever } of systemRetrievers(config)) {
    if (seen.has(retriever.key)) continue;
    seen.add(retriever.key);
    needs.push(
      ...kindOf(retriever.config).needs(retriever.config, {
        mock: options.mock,
        name: retriever.name,
        ...(options.env ? { env: options.env } : {}),
      }),
    );
  }
  return needs;
}

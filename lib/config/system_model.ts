/**
 * The model a system uses: its own `model:` keys merged over the run's
 * `model:`. One rule beyond a plain merge: a price belongs to a model name,
 * so a system that names another model without giving its own `price` does
 * not inherit the run's price override (it gets the price catalog's price, see
 * lib/llm/pricing.ts).
 *
 * @module
 */

import type { ModelConfig, ModelOverride } from "./schema.ts";

/** The merged model config of a system (the run's, when the system sets none). */
export function systemModel(run: ModelConfig, own: ModelOverride | undefined): ModelConfig {
  if (own === undefined) return run;
  const merged: ModelConfig = { ...run };
  const renamed = own.name !== undefined && own.name !== run.name;
  if (renamed) delete merged.price;
  for (const [key, value] of Object.entries(own)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * A key identifying a model config: two systems with equal keys share one
 * `Model` (one client, one set of counters).
 */
export function modelKey(config: ModelConfig): string {
  return JSON.stringify([
    config.provider,
    config.name,
    config.base_url,
    config.api_key_env,
    config.temperature,
    config.max_output_tokens,
    config.timeout_s,
    config.max_retries,
    config.max_connection_failures,
    config.price?.input_per_mtok ?? null,
    config.price?.output_per_mtok ?? null,
  ]);
}

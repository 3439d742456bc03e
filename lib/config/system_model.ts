/**
 * The model a system uses: its own `model:` keys merged over the run's
 * `model:`. One rule beyond a plain merge: a price belongs to a model name,
 * so a system that names another model without giving its own `price` does
 * not inherit the run's price override (it gets the price catalog's price, see
 * lib/llm/pricing.ts).
 *
 * @module
 */

import type { ModelConfig, ModelOverride } from "../llm/model_config.ts";

export { modelKey } from "../llm/model_config.ts";

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

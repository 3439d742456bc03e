/**
 * Per-token prices of common OpenAI-compatible models, used to put a dollar
 * figure on every model call.
 *
 * @module
 */

import type { Pricing } from "./model.ts";

/**
 * List prices in US dollars per million tokens (input, output), as published
 * by OpenAI when this table was written. Prices change and discounts (cached
 * input, batch) are not modelled, so a config can override either number; a
 * model that is not listed costs 0 unless the config gives its price.
 */
const PRICES: ReadonlyMap<string, Pricing> = new Map([
  ["gpt-4o-mini", { input_per_mtok: 0.15, output_per_mtok: 0.60 }],
  ["gpt-4o", { input_per_mtok: 2.50, output_per_mtok: 10.00 }],
  ["gpt-4.1", { input_per_mtok: 2.00, output_per_mtok: 8.00 }],
  ["gpt-4.1-mini", { input_per_mtok: 0.40, output_per_mtok: 1.60 }],
  ["gpt-4.1-nano", { input_per_mtok: 0.10, output_per_mtok: 0.40 }],
  ["o4-mini", { input_per_mtok: 1.10, output_per_mtok: 4.40 }],
]);

/**
 * Price of `modelName` in US dollars per million tokens.
 *
 * Known models (exact name, see {@link knownModelNames}) get their list price
 * as of writing: gpt-4o-mini 0.15/0.60, gpt-4o 2.50/10.00, gpt-4.1 2.00/8.00,
 * gpt-4.1-mini 0.40/1.60, gpt-4.1-nano 0.10/0.40, o4-mini 1.10/4.40
 * (input/output). These go stale; `override` (from the config) replaces
 * either number. An unknown model is priced at 0/0 unless overridden, so
 * callers should warn with {@link isKnownModel}.
 *
 * @throws {RangeError} if an override is negative or not a finite number.
 */
export function pricingFor(modelName: string, override: Partial<Pricing> = {}): Pricing {
  const listed = PRICES.get(modelName) ?? { input_per_mtok: 0, output_per_mtok: 0 };
  const pricing = {
    input_per_mtok: override.input_per_mtok ?? listed.input_per_mtok,
    output_per_mtok: override.output_per_mtok ?? listed.output_per_mtok,
  };
  for (const [key, value] of Object.entries(pricing)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`Price ${key} must be a finite number >= 0, got ${value}`);
    }
  }
  return pricing;
}

/** Whether `name` has a price in the built-in table (exact match, case-sensitive). */
export function isKnownModel(name: string): boolean {
  return PRICES.has(name);
}

/** Names of the models in the built-in price table, in table order. */
export function knownModelNames(): string[] {
  return [...PRICES.keys()];
}

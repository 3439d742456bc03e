/**
 * The `model:` section of a config (the run's, and a system's own keys over
 * it), declared beside the models that read it: `select.ts` builds a model
 * from it, `pricing.ts` prices it, `cached_model.ts` keys recordings on it.
 * The config composes it (`lib/config/schema.ts`).
 *
 * @module
 */

import { z } from "zod";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A model's price, US dollars per million tokens; overrides the price catalog's. */
export const priceSchema = z.strictObject({
  input_per_mtok: z.number().nonnegative(),
  output_per_mtok: z.number().nonnegative(),
});

/** The keys of `model:`, each without its default. */
const modelFields = {
  provider: z.enum(["openai"]),
  name: z.string().min(1),
  /** OpenAI-compatible endpoint; null for the provider's default. */
  base_url: z.url({ protocol: /^https?$/ }).nullable(),
  /** Name of the environment variable holding the API key; null when the endpoint needs none. */
  api_key_env: z.string().regex(ENV_NAME, "must be an environment variable name").nullable(),
  temperature: z.number().min(0).max(2),
  max_output_tokens: z.int().positive().nullable(),
  timeout_s: z.number().positive().max(3600),
  max_retries: z.int().min(0).max(10),
  /** Model calls in a row with no response from the host that stop the run calling it. */
  max_connection_failures: z.int().min(1).max(1_000_000),
  price: priceSchema,
  /**
   * The provider's limits for the model's host, per minute; each process throttles itself to
   * its share (rate_limiter.ts). Null: no throttling.
   */
  rate_limit: z.strictObject({
    requests_per_minute: z.number().positive().max(1e9).optional(),
    tokens_per_minute: z.number().positive().max(1e12).optional(),
  }).refine(
    (l) => l.requests_per_minute !== undefined || l.tokens_per_minute !== undefined,
    "give requests_per_minute, tokens_per_minute or both",
  ).nullable(),
};

/** `model:` — the run's model, used by every system that sets no `model:` of its own. */
export const modelSchema = z.strictObject({
  provider: modelFields.provider.default("openai"),
  name: modelFields.name.default("gpt-4o-mini"),
  base_url: modelFields.base_url.default(null),
  api_key_env: modelFields.api_key_env.default("OPENAI_API_KEY"),
  temperature: modelFields.temperature.default(0),
  max_output_tokens: modelFields.max_output_tokens.default(null),
  timeout_s: modelFields.timeout_s.default(60),
  max_retries: modelFields.max_retries.default(2),
  max_connection_failures: modelFields.max_connection_failures.default(5),
  price: modelFields.price.optional(),
  rate_limit: modelFields.rate_limit.default(null),
});

/**
 * A system's own `model:`: any key of the run's `model:`, merged over it
 * (see `lib/config/system_model.ts`).
 */
export const modelOverrideSchema = z.strictObject({
  provider: modelFields.provider.optional(),
  name: modelFields.name.optional(),
  base_url: modelFields.base_url.optional(),
  api_key_env: modelFields.api_key_env.optional(),
  temperature: modelFields.temperature.optional(),
  max_output_tokens: modelFields.max_output_tokens.optional(),
  timeout_s: modelFields.timeout_s.optional(),
  max_retries: modelFields.max_retries.optional(),
  max_connection_failures: modelFields.max_connection_failures.optional(),
  price: modelFields.price.optional(),
  rate_limit: modelFields.rate_limit.optional(),
});

/** `model:` after defaults. */
export type ModelConfig = z.output<typeof modelSchema>;
/** A system's `model:` (only the keys it sets). */
export type ModelOverride = z.output<typeof modelOverrideSchema>;

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

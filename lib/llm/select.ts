/**
 * Chooses the models of a run: the scripted mock with `--mock`, otherwise the
 * OpenAI-compatible client, whose API key is read from the environment
 * variable the config names. Each distinct model config gets one `Model`,
 * shared by the systems that use it. Every key is read and checked before
 * any model is built, so a missing key stops the run before any question.
 *
 * @module
 */

import { type ModelConfig, modelKey } from "./model_config.ts";
import { RagbenchError } from "../errors.ts";
import type { Model, Pricing } from "./model.ts";
import { createMockModel } from "./mock_model.ts";
import type { MockPolicy } from "./mock_policy.ts";
import type { MockScript } from "./mock_script.ts";
import type { RunPrices } from "./pricing.ts";
import { type ModelCacheSetup, withModelCache } from "./cached_model.ts";
import { OPENAI_BASE_URL } from "./endpoint_text.ts";
import { HostBreakers, hostOf } from "./host_breaker.ts";
import { HostLimiters } from "./rate_limiter.ts";

/**
 * Builds one model per distinct model config of `systems`, returned by
 * system name; with `cache`, each is wrapped for record and replay (the
 * cache key holds the model's provider, base URL and name, so systems on
 * different models never share an entry).
 *
 * @throws {RagbenchError} naming every API key variable that cannot be read or is empty.
 */
export async function createModels(
  systems: ReadonlyArray<{ name: string; model: ModelConfig }>,
  options: {
    mock: boolean;
    script: MockScript;
    prices: RunPrices;
    cache?: ModelCacheSetup;
    /** The run's rate limiters (one per host; a shard's take its share); default: whole limits. */
    limiters?: HostLimiters;
    /** The mock's policies of the systems' reply protocols (`mock_model.ts`). */
    mockPolicies?: ReadonlyMap<string, MockPolicy>;
  },
): Promise<Map<string, Model>> {
  // In replay mode nothing is sent, so no key is read (see createModel).
  if (!options.mock && options.cache?.mode !== "replay") {
    const variables = new Set<string>();
    for (const s of systems) if (s.model.api_key_env !== null) variables.add(s.model.api_key_env);
    const problems: string[] = [];
    for (const variable of variables) {
      try {
        readApiKey(variable);
      } catch (error) {
        if (!(error instanceof RagbenchError)) throw error;
        if (variables.size === 1) throw error;
        problems.push(error.message);
      }
    }
    if (problems.length) {
      throw new RagbenchError(
        problems.length && problems.every((p) => p.includes("--allow-env"))
          ? "permission"
          : "config",
        problems.join("\n"),
      );
    }
  }
  const byKey = new Map<string, Model>();
  const bySystem = new Map<string, Model>();
  // One count of connection failures per host, whichever of the run's models call it.
  const breakers = new HostBreakers();
  const limiters = options.limiters ?? new HostLimiters();
  for (const s of systems) {
    const key = modelKey(s.model);
    let model = byKey.get(key);
    if (!model) {
      model = await createModel(s.model, { ...options, breakers, limiters });
      byKey.set(key, model);
    }
    bySystem.set(s.name, model);
  }
  return bySystem;
}

/**
 * The id and price a model config gets, without building the model (no key
 * is read). `pricing` is null when no price is known.
 */
export function describeModel(
  config: ModelConfig,
  mock: boolean,
  prices: RunPrices,
): { id: string; pricing: Pricing | null } {
  return {
    id: `${mock ? "mock" : config.provider}:${config.name}`,
    pricing: prices.model(config).pricing,
  };
}

/**
 * Builds the model. The OpenAI client is imported only when needed, so mock
 * runs never load it. With `cache` the model is wrapped for record and
 * replay (cached_model.ts); the mock never is. In `replay` mode the API key
 * is not read: nothing is sent.
 *
 * @throws {RagbenchError} when the API key variable cannot be read or is empty.
 */
export async function createModel(
  config: ModelConfig,
  options: {
    mock: boolean;
    script: MockScript;
    prices: RunPrices;
    cache?: ModelCacheSetup;
    /** The run's hosts (host_breaker.ts); default: this model's own. */
    breakers?: HostBreakers;
    /** The run's rate limiters (rate_limiter.ts); default: this model's own. */
    limiters?: HostLimiters;
    /** The mock's policies of the systems' reply protocols (`mock_model.ts`). */
    mockPolicies?: ReadonlyMap<string, MockPolicy>;
  },
): Promise<Model> {
  const pricing = options.prices.model(config).pricing;
  if (options.mock) {
    return createMockModel(options.script, config.name, pricing, {
      ...(options.mockPolicies ? { policies: options.mockPolicies } : {}),
    });
  }
  const replay = options.cache?.mode === "replay";
  const apiKey = config.api_key_env === null || replay ? null : readApiKey(config.api_key_env);
  const { createOpenAIModel } = await import("./openai_model.ts");
  const model = createOpenAIModel({
    name: config.name,
    baseUrl: config.base_url,
    apiKey,
    pricing,
    timeoutMs: config.timeout_s * 1000,
    maxRetries: config.max_retries,
    breaker: (options.breakers ?? new HostBreakers()).for(
      config.base_url ?? OPENAI_BASE_URL,
      config.max_connection_failures,
    ),
    temperature: config.temperature,
    ...(config.max_output_tokens === null ? {} : { maxTokens: config.max_output_tokens }),
    // A replay sends nothing: nothing to pace.
    limiter: replay ? null : (options.limiters ?? new HostLimiters()).for(
      hostOf(config.base_url ?? OPENAI_BASE_URL),
      config.rate_limit,
    ),
  });
  return options.cache === undefined ? model : withModelCache(model, config, options.cache);
}

function readApiKey(variable: string): string {
  const permission = Deno.permissions.querySync({ name: "env", variable });
  if (permission.state !== "granted") {
    throw new RagbenchError(
      "permission",
      `Cannot read the model API key: reading ${variable} needs --allow-env=${variable} (or run with --mock for the offline scripted model).`,
    );
  }
  const key = Deno.env.get(variable);
  if (!key) {
    throw new RagbenchError(
      "config",
      `The model API key is missing: set ${variable} in the environment (model.api_key_env names it; set api_key_env: null for an endpoint that needs no key), or run with --mock.`,
    );
  }
  return key;
}

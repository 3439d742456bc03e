/**
 * Chooses the model of a run: the scripted mock with `--mock`, otherwise the
 * OpenAI-compatible client, whose API key is read from the environment
 * variable the config names. A missing key stops the run before any question.
 *
 * @module
 */

import type { ModelConfig } from "../config/schema.ts";
import { RagbenchError } from "../errors.ts";
import type { Model } from "./model.ts";
import { createMockModel } from "./mock_model.ts";
import type { MockScript } from "./mock_script.ts";
import { pricingFor } from "./pricing.ts";
import { type ModelCacheSetup, withModelCache } from "./cached_model.ts";

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
  options: { mock: boolean; script: MockScript; cache?: ModelCacheSetup },
): Promise<Model> {
  const pricing = pricingFor(config.name, config.price);
  if (options.mock) return createMockModel(options.script, config.name, pricing);
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
    temperature: config.temperature,
    ...(config.max_output_tokens === null ? {} : { maxTokens: config.max_output_tokens }),
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

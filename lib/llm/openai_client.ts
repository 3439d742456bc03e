/**
 * The one way ragbench builds an `openai` SDK client, for chat models
 * (openai_model.ts) and embedding endpoints (lib/dense/openai_embedder.ts):
 * nothing read from the environment (`process.env` is hidden while the SDK
 * starts, and every setting it would look up is passed), no SDK retries
 * (ours are recorded), and no `Authorization` header for a keyless server.
 *
 * @module
 */

import OpenAI from "openai";
import { withoutEnvironment } from "../util/node_env.ts";

/** A client for `baseUrl` (the SDK's default when undefined). */
export function openAIClient(options: {
  apiKey: string | null;
  baseUrl: string | undefined;
  timeoutMs: number;
}): OpenAI {
  const { apiKey } = options;
  return withoutEnvironment(() =>
    new OpenAI({
      // The SDK refuses to start without a credential; a keyless server gets a
      // placeholder that the `Authorization: null` header below never sends.
      apiKey: apiKey ?? "no-key",
      baseURL: options.baseUrl,
      // Passed explicitly so the SDK does not look them up in the environment.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      logLevel: "off",
      timeout: options.timeoutMs,
      // Retries are the caller's, so that each one is recorded and Retry-After honoured.
      maxRetries: 0,
      defaultHeaders: apiKey === null ? { Authorization: null } : undefined,
    })
  );
}

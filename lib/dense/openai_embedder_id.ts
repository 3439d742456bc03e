/**
 * The identity of an OpenAI-compatible embedder, computable without loading
 * `npm:openai` (the embedder itself is loaded only when first used).
 *
 * @module
 */

import { OPENAI_BASE_URL, safeUrl } from "../llm/endpoint_text.ts";

/** The identity of an OpenAI-compatible embedder: `openai:<base URL>:<model>@<dimensions|native>`. */
export function openAIEmbedderId(
  model: string,
  baseUrl: string | null,
  dimensions: number | null,
): string {
  return `openai:${safeUrl(baseUrl ?? OPENAI_BASE_URL)}:${model}@${dimensions ?? "native"}`;
}

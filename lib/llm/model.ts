/**
 * The `Model` interface every system talks to, and the chat message shapes.
 * Implementations: the scripted mock (`mock_model.ts`) and the
 * OpenAI-compatible client (`openai_model.ts`).
 *
 * @module
 */

import type { ToolCall, Usage } from "../types.ts";
import type { RetryReport } from "./retry_policy.ts";

/** A message of the conversation, in the OpenAI chat shape. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool the model may call: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One request to the model. With no `tools`, the model must answer in text. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /**
   * The repeat (1-based, `evaluation.repeats`) the request belongs to; absent
   * means 1. Never sent to the model: the response cache keys on it, so each
   * repeat is its own sample and replays its own recording.
   */
  repeat?: number;
  /**
   * The reply format the caller expects, by name: {@link TOOLS_PROTOCOL} (the
   * default when absent: OpenAI function calling, or plain text when `tools`
   * is empty) or a system's own (`grounded`, `react_json`, `code`: the
   * system writes the format into its prompt). Never sent to a model API and
   * not part of a response-cache key; only the scripted mock reads it, to pick
   * the policy that answers (`mock_model.ts`), so a caller that leaves it out
   * (a framework adapter, say) gets the mock's function-calling replies.
   */
  protocol?: string;
}

/** The default {@link ChatRequest.protocol}: function calling, or plain text with no tools. */
export const TOOLS_PROTOCOL = "tools";

/** The model's reply: text, tool calls, or both. */
export interface ChatResponse {
  content: string | null;
  tool_calls: ToolCall[];
  usage: Usage;
  /** Retries of an HTTP model (absent for the scripted mock, which never retries). */
  attempts?: RetryReport;
  /** Served from the response cache (lib/llm/cached_model.ts): `usage` is the recorded one, not billed. */
  cached?: boolean;
}

/** Price of a model in US dollars per million tokens. */
export interface Pricing {
  input_per_mtok: number;
  output_per_mtok: number;
}

/**
 * A chat model. `chat` rejects with a {@link ModelCallError} when the API
 * fails (unreachable host, HTTP error, malformed reply); callers record it
 * as the question's error.
 */
export interface Model {
  /** Provider and model name, e.g. `openai:gpt-4o-mini` or `mock:gpt-4o-mini`. */
  readonly id: string;
  /** Null when no price is known (lib/llm/pricing.ts): the calls' cost is then null, never 0. */
  readonly pricing: Pricing | null;
  chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse>;
}

/** A failed model call. `message` is safe to record (no API key). */
export class ModelCallError extends Error {
  /** The retries made before giving up (HTTP models only). */
  attempts?: RetryReport;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelCallError";
  }
}

/** Cost in US dollars of `usage` at `pricing`; null (unknown) when the price is. */
export function costOf(usage: Usage, pricing: Pricing | null): number | null {
  if (pricing === null) return null;
  return (usage.input_tokens * pricing.input_per_mtok +
    usage.output_tokens * pricing.output_per_mtok) / 1_000_000;
}

/** The sum of two costs in US dollars; unknown (null) when either is. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

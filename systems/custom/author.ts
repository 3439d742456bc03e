/**
 * The author API of a custom system (`{type: custom, path: "./my_system.ts#answer"}`),
 * imported as `ragbench/system`:
 *
 * ```ts
 * import { defineSystem, groundedMessages } from "ragbench/system";
 *
 * export const answer = defineSystem({
 *   description: "Search once, answer from the passages.",
 *   async run(question, ctx) {
 *     const passages = await ctx.retriever!.search(question, 5);
 *     const reply = await ctx.model.chat({
 *       messages: groundedMessages(question, passages),
 *       protocol: "grounded",
 *     });
 *     return { answer: reply.content ?? "", cited: passages.map((p) => p.doc_id) };
 *   },
 * });
 * ```
 *
 * The module runs in a process of its own, under the sandbox rules of custom
 * tools (`tools/sandbox/`): no permission but what its `side_effects` give,
 * no network, a cleared environment, a heap cap. `ctx.model`, `ctx.tools` and
 * `ctx.retriever` are ragbench's own, reached over the process's pipes, so
 * every call is a step of the question's trace (cost, tokens, latency,
 * response cache, `--mock`). `ragbench/system` is mapped to this file in the
 * project's `deno.json`.
 *
 * @module
 */

import type { ChatMessage, ToolSpec } from "../../lib/llm/model.ts";
import type { JsonValue, ToolCall, ToolError, Usage } from "../../lib/types.ts";

export { GROUNDED_INSTRUCTIONS, groundedMessages } from "../../lib/llm/grounded_prompt.ts";
export type { ChatMessage, JsonValue, ToolCall, ToolSpec, Usage };

/** A model request from a custom system. */
export interface SystemChatRequest {
  messages: ChatMessage[];
  /** Names of the system's tools the model may call (default: none, a text answer). */
  tools?: readonly string[];
  /**
   * The reply format, for the scripted mock of `--mock` runs only (never sent
   * to a model): `"grounded"` for {@link groundedMessages} (the mock then
   * answers from the passages, as it does for `rag`); absent: plain text or
   * function calling.
   */
  protocol?: "grounded";
}

/** The model's reply. */
export interface SystemChatReply {
  content: string | null;
  tool_calls: ToolCall[];
  usage: Usage;
}

/** The system's traced model (its `model:`, or the run's). */
export interface SystemModel {
  /** Calls the model; rejects when the call fails (the question then ends with that error). */
  chat(request: SystemChatRequest): Promise<SystemChatReply>;
}

/** What one tool call returned. */
export interface SystemToolResult {
  /** What a model would read (cut to `tools.max_output_chars`). */
  output: string;
  data?: JsonValue;
  /** Set when the call failed (bad arguments, a timeout, ...); the call never throws for it. */
  error: ToolError | null;
}

/** The system's tools (its `tools:` list), run in their sandboxes and traced. */
export interface SystemTools {
  /** What a model is told of each tool. */
  readonly specs: readonly ToolSpec[];
  /** Calls a tool with arguments (an object, or its JSON text). */
  call(name: string, args: Record<string, unknown> | string): Promise<SystemToolResult>;
}

/** One passage the retriever returned, best first. */
export interface SystemPassage {
  doc_id: string;
  passage_id: string;
  text: string;
  score: number;
  /** Its page, for a passage of a PDF. */
  page?: number;
}

/** The system's retriever (its `retriever:`, by default the config's `default` or BM25). */
export interface SystemRetriever {
  readonly name: string;
  /** Passages returned when `search` is given no `k`. */
  readonly topK: number;
  /** The `k` best passages for `query`; rejects when the retrieval fails. */
  search(query: string, k?: number): Promise<SystemPassage[]>;
}

/** What a custom system gets besides the question's text. */
export interface SystemContext {
  /** The question's id in the question set. */
  questionId: string;
  model: SystemModel;
  tools: SystemTools;
  retriever: SystemRetriever | null;
  /** Aborted when the question is stopped (its timeout, Ctrl-C); the process is then killed. */
  signal: AbortSignal;
}

/**
 * What a system returns: the answer's text, or the text and the ids of the
 * documents it cites (each must be a document of the corpus, else the
 * question fails saying which; they are recorded as the result line's
 * `cited`, while retrieval is scored on the system's calls of
 * `ctx.retriever` and of its tools).
 */
export type SystemAnswer = string | { answer: string; cited?: readonly string[] };

/** A system's answering function. */
export type SystemRun = (
  question: string,
  ctx: SystemContext,
) => SystemAnswer | Promise<SystemAnswer>;

/** A custom system, as {@link defineSystem} makes it. */
export interface CustomSystem {
  /** One line saying what it does (shown in `config.resolved.yaml`'s comments and the docs). */
  description?: string;
  run: SystemRun;
}

/**
 * Declares a custom system. Checks its shape at once, so a malformed system
 * fails when it is loaded rather than on its first question.
 *
 * @throws {TypeError} when `run` is not a function or `description` not text.
 */
export function defineSystem(def: CustomSystem): CustomSystem {
  if (def === null || typeof def !== "object" || typeof def.run !== "function") {
    throw new TypeError("a custom system needs a run(question, ctx) function");
  }
  if (def.description !== undefined && typeof def.description !== "string") {
    throw new TypeError("a custom system's description must be text");
  }
  return def;
}

/**
 * What a framework adapter implements, and the helpers adapters share. An
 * adapter runs in the framework's own process (`child_runtime.ts`): it builds
 * the framework's agent around two functions ragbench gives it — `model`,
 * which sends the conversation in ragbench's neutral chat shape to ragbench's
 * own model (mock or live, cached, retried, priced and traced there), and
 * `tool`, which runs a tool call through ragbench's toolbox and returns the
 * text the model reads (errors included: it never throws). The framework
 * never makes an HTTP call and never sees a tool fail.
 *
 * This module imports no framework and nothing with side effects, so tests
 * and ragbench itself may import it.
 *
 * @module
 */

import type { ChatMessage } from "../../lib/llm/model.ts";
import type { AdapterTool, WireToolCall } from "./protocol.ts";

/** The model's reply as the framework gets it. */
export interface ModelReply {
  content: string | null;
  tool_calls: WireToolCall[];
}

/** One question, as an adapter gets it. */
export interface AdapterRun {
  /** The system prompt (agent_search's). */
  system: string;
  /** The question text: the user message. */
  question: string;
  /** The tools to define in the framework (JSON Schema parameters). */
  tools: AdapterTool[];
  /**
   * The framework's own step cap, to set where it has one: a backstop above
   * ragbench's budget, which ends the run first by answering in text.
   */
  maxModelCalls: number;
  /** Aborted when ragbench stops the question. */
  signal: AbortSignal;
  /**
   * Asks ragbench's model. `tools` names the tools the framework offers in
   * this call. Once the question is stopped it answers in text at once.
   */
  model(messages: ChatMessage[], tools: string[]): Promise<ModelReply>;
  /** Runs a tool call; resolves with the text the model reads. Never rejects. */
  tool(call: WireToolCall): Promise<string>;
}

/** A framework's adapter. */
export interface FrameworkAdapter {
  /** Name and version of the framework, e.g. `ai@7.0.173`. */
  framework: string;
  /** Answers one question; resolves with the framework's final answer (null: none). */
  run(run: AdapterRun): Promise<string | null>;
}

/** Parses a tool call's JSON arguments for a framework that wants an object (`{}` if not one). */
export function argsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch { /* not JSON: the framework gets no arguments; ragbench reports them as invalid */ }
  return {};
}

/**
 * The arguments text of a tool call a framework hands back: the model's own
 * text when the framework's object is the same JSON (so the conversation
 * keeps the model's bytes) or when the model's text is not JSON at all (the
 * framework can only have put something in its place; ragbench then reports
 * the model's text as invalid), else the framework's object as JSON.
 */
export function argsText(input: unknown, original: string | undefined): string {
  const text = typeof input === "string" ? input : JSON.stringify(input ?? {});
  if (original === undefined) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(original);
  } catch {
    return original;
  }
  try {
    return canonical(parsed) === canonical(JSON.parse(text)) ? original : text;
  } catch {
    return text;
  }
}

/** JSON with object keys sorted, to compare two values. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

/**
 * Remembers the arguments text of every tool call the model made in one run,
 * by call id, so an adapter can hand back the model's own text.
 */
export class CallArgs {
  readonly #byId = new Map<string, string>();

  /** Notes the calls of a reply. */
  note(reply: ModelReply): void {
    for (const call of reply.tool_calls) this.#byId.set(call.id, call.arguments);
  }

  /** The arguments text for call `id` given the framework's `input` (see {@link argsText}). */
  text(id: string, input: unknown): string {
    return argsText(input, this.#byId.get(id));
  }
}

/** Flattens content a framework may give as a string or as a list of text blocks. */
export function flattenText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    return content === null || content === undefined ? "" : String(content);
  }
  return content.map((part) => {
    if (typeof part === "string") return part;
    if (part && typeof part === "object" && "text" in part && typeof part.text === "string") {
      return part.text;
    }
    return "";
  }).join("");
}

/** An assistant message in the neutral shape: empty text is no text, as the model sent it. */
export function assistantMessage(text: string, calls: WireToolCall[]): ChatMessage {
  return {
    role: "assistant",
    content: text === "" ? null : text,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

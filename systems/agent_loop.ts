/**
 * The function-calling agent loop shared by tool-using systems: the model
 * calls tools until it answers or a limit stops it, and then is asked, with
 * tools withheld, to answer with what it found. That final call is always
 * made, so a question can end slightly over a cost cap by that one call.
 *
 * Limits are checked before each model call, each by a small named function:
 * the step limit (model turns) and the caps on tool calls, cost and tokens.
 * Stopping on any of them flags the answer `best_effort`; stopping on a cap
 * (not the step limit) also flags `budget_exhausted`.
 *
 * @module
 */

import { addCost, type ChatMessage } from "../lib/llm/model.ts";
import type { TraceRecorder } from "../lib/trace/trace_recorder.ts";
import { toolMessageText } from "../tools/toolbox.ts";
import type { AgentTexts } from "./agent_prompts.ts";
import type { SystemContext, SystemOutcome } from "./system.ts";

/** Per-question limits of an agent (null: no cap). */
export interface AgentLimits {
  /** Model turns, the final answer call included. */
  max_steps: number;
  max_tool_calls: number | null;
  max_cost_usd: number | null;
  max_tokens: number | null;
}

/** Why the loop stopped using tools. */
type StopReason = "max_steps" | "max_tool_calls" | "max_cost_usd" | "max_tokens";

/** The message that withholds the tools and asks for the answer. */
export const FINAL_ANSWER_PROMPT =
  "Stop using tools now. Answer the question with what you have found so far; " +
  "if that is not enough to answer, say so.";

/** Only one model turn is left, and it is the final answer call. */
export function stepLimitReached(rec: TraceRecorder, limits: AgentLimits): boolean {
  return rec.modelCalls >= limits.max_steps - 1;
}

/** The tool-call cap is reached. */
export function toolCallCapReached(rec: TraceRecorder, limits: AgentLimits): boolean {
  return limits.max_tool_calls !== null && rec.toolCalls >= limits.max_tool_calls;
}

/**
 * The per-question cost cap is reached. Replayed calls count at their
 * recorded cost, so a replay stops where the recording did.
 */
export function costCapReached(rec: TraceRecorder, limits: AgentLimits): boolean {
  // An unknown cost cannot reach the cap; a live run with a cap and an unknown price is refused
  // before it starts (lib/plan/price_checks.ts).
  const spent = addCost(rec.costUsd, rec.recordedCostUsd);
  return limits.max_cost_usd !== null && spent !== null && spent >= limits.max_cost_usd;
}

/** The per-question token cap is reached (replayed calls count their recorded tokens). */
export function tokenCapReached(rec: TraceRecorder, limits: AgentLimits): boolean {
  const used = rec.usage.input_tokens + rec.usage.output_tokens +
    rec.recordedUsage.input_tokens + rec.recordedUsage.output_tokens;
  return limits.max_tokens !== null && used >= limits.max_tokens;
}

/** The first limit that stops the loop, or null to go on. */
export function stopReason(rec: TraceRecorder, limits: AgentLimits): StopReason | null {
  if (toolCallCapReached(rec, limits)) return "max_tool_calls";
  if (costCapReached(rec, limits)) return "max_cost_usd";
  if (tokenCapReached(rec, limits)) return "max_tokens";
  if (stepLimitReached(rec, limits)) return "max_steps";
  return null;
}

/**
 * Runs the loop for one question.
 *
 * @param prompts the system prompt (the user message is the question text)
 *   and the final-answer message ({@link FINAL_ANSWER_PROMPT} when absent).
 */
export async function runAgentLoop(
  ctx: SystemContext,
  prompts: AgentTexts,
  limits: AgentLimits,
): Promise<SystemOutcome> {
  const { recorder, tools, signal } = ctx;
  const messages: ChatMessage[] = [
    { role: "system", content: prompts.system },
    { role: "user", content: ctx.question.question },
  ];
  let stop: StopReason | null;
  while ((stop = stopReason(recorder, limits)) === null) {
    const reply = await recorder.chat({ messages, tools: [...tools.specs] }, signal);
    messages.push({
      role: "assistant",
      content: reply.content,
      ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
    });
    if (reply.tool_calls.length === 0) {
      return {
        answer: reply.content,
        flags: { best_effort: false, budget_exhausted: false, format_error: false },
      };
    }
    for (const call of reply.tool_calls) {
      const content = toolCallCapReached(recorder, limits)
        ? "Not run: the tool-call limit for this question is reached."
        : toolMessageText(await recorder.tool(tools, call, signal));
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  messages.push({ role: "user", content: prompts.final ?? FINAL_ANSWER_PROMPT });
  const reply = await recorder.chat({ messages, tools: [] }, signal, true);
  return {
    answer: reply.content,
    flags: { best_effort: true, budget_exhausted: stop !== "max_steps", format_error: false },
  };
}

/**
 * Records the steps of one question as a system takes them: every model call
 * (usage, cost, latency, reply) and every tool call (arguments, result). The
 * runner owns the recorder, so the steps taken before a failure are kept.
 *
 * @module
 */

import type { ChatRequest, ChatResponse, Model } from "../llm/model.ts";
import { costOf } from "../llm/model.ts";
import type { Step, ToolCall, ToolResult, Usage } from "../types.ts";
import type { ToolSession } from "../../tools/toolbox.ts";

/** Running totals and the steps of one question. */
export class TraceRecorder {
  readonly steps: Step[] = [];
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0 };
  /** Model and tool cost so far, US dollars. */
  costUsd = 0;
  modelCalls = 0;
  toolCalls = 0;

  constructor(readonly model: Model) {}

  /**
   * Calls the model and records the step. `final` marks the forced answer
   * call (tools withheld). Rejects when the model call fails.
   */
  async chat(request: ChatRequest, signal: AbortSignal, final = false): Promise<ChatResponse> {
    const started = performance.now();
    const reply = await this.model.chat(request, signal);
    const cost = costOf(reply.usage, this.model.pricing);
    this.usage.input_tokens += reply.usage.input_tokens;
    this.usage.output_tokens += reply.usage.output_tokens;
    this.costUsd += cost;
    this.modelCalls++;
    this.steps.push({
      type: "model",
      usage: { ...reply.usage },
      cost_usd: cost,
      latency_ms: elapsed(started),
      content: reply.content,
      tool_calls: reply.tool_calls,
      final,
    });
    return reply;
  }

  /** Executes a tool call through the session and records the step. Never rejects. */
  async tool(session: ToolSession, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const { args, result } = await session.execute(call.name, call.arguments, signal);
    this.costUsd += result.cost_usd;
    this.toolCalls++;
    this.steps.push({ type: "tool", tool: call.name, call_id: call.id, args, result });
    return result;
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

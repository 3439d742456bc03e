/**
 * ragbench's side of one question answered by a framework: the framework
 * drives the loop in its own process, and every model request and tool call
 * it makes comes here, where `agent_search`'s rules apply unchanged
 * (`agent_loop.ts`):
 *
 * - Before each model call the limits are checked (`stopReason`). Once one
 *   is reached, the model is asked for the final answer exactly as
 *   `agent_search` asks it (the conversation plus `FINAL_ANSWER_PROMPT`,
 *   tools withheld), and that text is the framework's model reply, so every
 *   framework — one with no cap of its own included — ends there. The flags
 *   are set as `agent_search` sets them.
 * - Each call goes through the trace recorder: steps, usage, cost, the
 *   response cache and retries are ragbench's. The tools offered are
 *   ragbench's own specs (in its order), named by the framework.
 * - Each tool call runs through ragbench's toolbox; its result, failures
 *   included, is the canonical text `agent_search` shows, and it is what the
 *   model reads: where the conversation the framework sends holds another
 *   text for a call (LlamaIndex re-quotes results; frameworks word an
 *   unknown tool or unparsable arguments their own way, without calling the
 *   tool — ragbench then runs the call through its toolbox, as agent_search
 *   would have), ragbench's text is put back and the framework's is
 *   recorded on the model step (`restored`).
 *
 * Failures of the framework — it throws, it gives no answer after a text
 * reply, it asks the model again after the final answer, it offers a tool it
 * was not given — end the question with a `system` error.
 *
 * @module
 */

import type { ChatMessage, ChatRequest, ChatResponse, ToolSpec } from "../../lib/llm/model.ts";
import { toolMessageText } from "../../tools/toolbox.ts";
import {
  type AgentLimits,
  FINAL_ANSWER_PROMPT,
  stopReason,
  toolCallCapReached,
} from "../agent_loop.ts";
import { type SystemContext, SystemFailedError, type SystemOutcome } from "../system.ts";
import type { ModelReply } from "./adapter.ts";
import type { FrameworkHost } from "./host.ts";
import type { WireToolCall } from "./protocol.ts";

/** What a tool call past the tool-call cap reads (as in agent_search). */
const NOT_RUN = "Not run: the tool-call limit for this question is reached.";
/** The most characters of a framework's own text kept in `ModelStep.restored`. */
const MAX_NOTED_CHARS = 500;

/** Answers one question through `host`'s framework. */
export async function runFrameworkLoop(
  host: FrameworkHost,
  ctx: SystemContext,
  options: { type: string; system: string; final?: string; limits: AgentLimits },
): Promise<SystemOutcome> {
  const { recorder, tools, signal } = ctx;
  const { type, limits } = options;
  /** Text the model read for each call ragbench ran, by call id. */
  const ran = new Map<string, string>();
  /** Each call the model made, by id, with the reply that made it. */
  const made = new Map<string, { call: WireToolCall; reply: ChatResponse }>();
  let final: { stop: string } | null = null;
  let last: ChatResponse | null = null;

  const runTool = async (call: WireToolCall): Promise<string> => {
    const text = toolCallCapReached(recorder, limits)
      ? NOT_RUN
      : toolMessageText(await recorder.tool(tools, call, signal));
    ran.set(call.id, text);
    return text;
  };

  /** Framework texts restored since the last model call (see `ModelStep.restored`). */
  let restored: { tool_call_id: string; framework_text: string }[] = [];
  const noted = new Set<string>();
  const restore = (id: string, text: string) => {
    if (noted.has(id)) return;
    noted.add(id);
    restored.push({ tool_call_id: id, framework_text: text.slice(0, MAX_NOTED_CHARS) });
  };

  /** The framework's conversation with ragbench's own texts where the framework put its own. */
  const normalise = async (messages: ChatMessage[]): Promise<ChatMessage[]> => {
    const out: ChatMessage[] = [];
    for (const message of messages) {
      if (message.role === "assistant") {
        const first = message.tool_calls?.[0];
        const reply = first ? made.get(first.id)?.reply : undefined;
        // Empty text is empty text: keep what the model sent (null or "").
        if (reply && !message.content && !reply.content) {
          out.push({ ...message, content: reply.content });
          continue;
        }
      }
      if (message.role === "tool") {
        let text = ran.get(message.tool_call_id);
        if (text === undefined) {
          // A call the framework answered itself: ragbench runs it and the model reads its text.
          const call = made.get(message.tool_call_id)?.call;
          if (call) text = await runTool(call);
        }
        if (text !== undefined && text !== message.content) {
          restore(message.tool_call_id, message.content);
          out.push({ ...message, content: text });
          continue;
        }
      }
      out.push(message);
    }
    return out;
  };

  /** Calls the model through the recorder and notes on its step what was restored. */
  const chat = async (request: ChatRequest, final: boolean): Promise<ChatResponse> => {
    const reply = await recorder.chat(request, signal, final);
    const step = recorder.steps.at(-1);
    if (restored.length && step?.type === "model") step.restored = restored;
    restored = [];
    return reply;
  };

  const model = async (framework: ChatMessage[], names: string[]): Promise<ModelReply> => {
    if (final) {
      throw new SystemFailedError(`${type} asked the model again after its final answer`);
    }
    const messages = await normalise(framework);
    const stop = stopReason(recorder, limits);
    if (stop !== null) {
      final = { stop };
      const reply = await chat(
        {
          messages: [...messages, { role: "user", content: options.final ?? FINAL_ANSWER_PROMPT }],
          tools: [],
        },
        true,
      );
      last = reply;
      return { content: reply.content, tool_calls: [] };
    }
    const reply = await chat({ messages, tools: offered(tools.specs, names, type) }, false);
    last = reply;
    for (const call of reply.tool_calls) made.set(call.id, { call, reply });
    return { content: reply.content, tool_calls: reply.tool_calls };
  };

  const answer = await host.run(
    {
      system: options.system,
      question: ctx.question.question,
      tools: tools.specs.map((s) => ({ ...s })),
      // A backstop: ragbench's own limit ends the run first.
      maxModelCalls: limits.max_steps + 1,
    },
    { model, tool: runTool },
    signal,
  );
  const lastReply = last as ChatResponse | null;
  if (!answer && lastReply !== null && (lastReply.content || lastReply.tool_calls.length)) {
    throw new SystemFailedError(
      lastReply.content
        ? `${type} gave no answer although the model's last reply was text`
        : `${type} ended without an answer after a reply with tool calls (its own step cap?)`,
    );
  }
  const stopped = final as { stop: string } | null;
  return {
    answer,
    flags: {
      best_effort: stopped !== null,
      budget_exhausted: stopped !== null && stopped.stop !== "max_steps",
      format_error: false,
    },
  };
}

/** ragbench's specs of the tools the framework offers, in ragbench's order. */
function offered(specs: readonly ToolSpec[], names: readonly string[], type: string): ToolSpec[] {
  const known = new Set(specs.map((s) => s.name));
  const unknown = names.find((n) => !known.has(n));
  if (unknown !== undefined) {
    throw new SystemFailedError(
      `${type} offered the model a tool it was not given: ${JSON.stringify(unknown.slice(0, 100))}`,
    );
  }
  const wanted = new Set(names);
  return specs.filter((s) => wanted.has(s.name));
}

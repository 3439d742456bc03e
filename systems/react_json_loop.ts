/**
 * The react_json agent loop (`agent_mode: react_json`): the same limits and
 * final answer call as the function-calling loop (`agent_loop.ts`), but the
 * tools are described in the system prompt, the model is called with no
 * tools, and each reply must be one JSON action (`lib/llm/react_json.ts`).
 *
 * A reply that is not a valid action is counted (`TraceRecorder.formatError`)
 * and answered with a message saying what was wrong, and the loop goes on; it
 * uses up a model turn like any other reply. When the final answer call
 * (tools withdrawn) does not give a valid `{"answer": ...}` either, the
 * question has no answer and is flagged `format_error`.
 *
 * @module
 */

import type { ChatMessage } from "../lib/llm/model.ts";
import {
  invalidActionMessage,
  OBSERVATION_PREFIX,
  parseAction,
  REACT_FINAL_FORMAT,
  REACT_FINAL_PROMPT,
  reactJsonSystemPrompt,
} from "../lib/llm/react_json.ts";
import type { AgentTexts } from "./agent_prompts.ts";
import { toolMessageText } from "../tools/toolbox.ts";
import { type AgentLimits, stopReason, toolCallCapReached } from "./agent_loop.ts";
import { REACT_JSON_PROTOCOL } from "./react_json_mock.ts";
import type { SystemContext, SystemOutcome } from "./system.ts";

/**
 * Characters of a reply kept in the conversation sent back to the model; the
 * trace keeps the whole reply. A 5 MB reply must not be re-sent every turn.
 */
export const MAX_ECHOED_REPLY_CHARS = 20_000;

/**
 * Runs the react_json loop for one question. The final call's message is
 * {@link REACT_FINAL_PROMPT}, or the configured `prompts.final` followed by
 * the protocol's answer format ({@link REACT_FINAL_FORMAT}).
 */
export async function runReactJsonLoop(
  ctx: SystemContext,
  prompts: AgentTexts,
  limits: AgentLimits,
): Promise<SystemOutcome> {
  const { recorder, tools, signal } = ctx;
  const names = new Set(tools.specs.map((t) => t.name));
  const messages: ChatMessage[] = [
    { role: "system", content: reactJsonSystemPrompt(prompts.system, tools.specs) },
    { role: "user", content: ctx.question.question },
  ];
  let stop: ReturnType<typeof stopReason>;
  let calls = 0;
  while ((stop = stopReason(recorder, limits)) === null) {
    const reply = await recorder.chat(
      { messages, tools: [], protocol: REACT_JSON_PROTOCOL },
      signal,
    );
    messages.push({ role: "assistant", content: echoed(reply.content) });
    const action = parseAction(reply.content, names);
    if (action.kind === "invalid") {
      recorder.formatError();
      messages.push({ role: "user", content: invalidActionMessage(action.message) });
      continue;
    }
    if (action.kind === "answer") {
      return {
        answer: action.answer,
        flags: { best_effort: false, budget_exhausted: false, format_error: false },
      };
    }
    const content = toolCallCapReached(recorder, limits)
      ? "Not run: the tool-call limit for this question is reached."
      : toolMessageText(
        await recorder.tool(tools, {
          id: `react_${++calls}`,
          name: action.tool,
          arguments: JSON.stringify(action.args),
        }, signal),
      );
    messages.push({ role: "user", content: `${OBSERVATION_PREFIX}${content}` });
  }
  messages.push({
    role: "user",
    content: prompts.final === undefined
      ? REACT_FINAL_PROMPT
      : `${prompts.final}\n\n${REACT_FINAL_FORMAT}`,
  });
  const reply = await recorder.chat(
    { messages, tools: [], protocol: REACT_JSON_PROTOCOL },
    signal,
    true,
  );
  const action = parseAction(reply.content, new Set());
  const budget_exhausted = stop !== "max_steps";
  if (action.kind === "answer") {
    return {
      answer: action.answer,
      flags: { best_effort: true, budget_exhausted, format_error: false },
    };
  }
  recorder.formatError();
  return { answer: null, flags: { best_effort: true, budget_exhausted, format_error: true } };
}

function echoed(content: string | null): string {
  const text = content ?? "";
  return text.length > MAX_ECHOED_REPLY_CHARS
    ? `${
      text.slice(0, MAX_ECHOED_REPLY_CHARS)
    }\n[reply cut at ${MAX_ECHOED_REPLY_CHARS} characters]`
    : text;
}

/**
 * How the scripted mock model (`--mock`) answers a react_json agent (the
 * `react_json` protocol of `agent_mode: react_json`, `lib/llm/react_json.ts`):
 * as it answers function calling (`lib/llm/mock_policy.ts`), with the tools
 * the prompt lists, the observations as tool results and the forced final
 * call read from the conversation, and each reply written as one JSON action
 * (a script's `raw` turn is sent as it is).
 *
 * @module
 */

import type { ChatMessage } from "../lib/llm/model.ts";
import {
  defaultPolicy,
  type MockPolicy,
  type MockReply,
  type Planned,
  scripted,
  type Situation,
  text,
} from "../lib/llm/mock_policy.ts";
import {
  INVALID_ACTION_PREFIX,
  OBSERVATION_PREFIX,
  parseAction,
  reactJsonToolNames,
} from "../lib/llm/react_json.ts";
import { documentsShown } from "../lib/llm/shown_documents.ts";

/** The `ChatRequest.protocol` of a react_json agent's calls. */
export const REACT_JSON_PROTOCOL = "react_json";

/** The mock's policy for react_json requests. */
export const reactJsonMock: MockPolicy = {
  protocol: REACT_JSON_PROTOCOL,
  reply(request, ctx) {
    const system = request.messages.find((m) => m.role === "system")?.content ?? "";
    const situation = reactSituation(request.messages, reactJsonToolNames(system) ?? []);
    const entry = ctx.entryFor(situation.question);
    return renderAction(
      entry
        ? scripted(entry, situation, ctx.evidenceOf(situation.question))
        : defaultPolicy(situation),
    );
  },
};

function reactSituation(messages: ChatMessage[], tools: string[]): Situation {
  const offered = new Set(tools);
  const users = messages.filter((m) => m.role === "user").map((m) => m.content);
  const results = users.slice(1).filter((c) => c.startsWith(OBSERVATION_PREFIX));
  const called = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    const action = parseAction(m.content, offered);
    if (action.kind === "tool") called.add(action.tool);
  }
  const last = results.at(-1);
  return {
    question: users[0] ?? "",
    turn: messages.filter((m) => m.role === "assistant").length,
    offered,
    called,
    sawToolResult: last !== undefined,
    lastResult: last === undefined ? null : last.slice(OBSERVATION_PREFIX.length),
    shown: results.flatMap((r) => documentsShown(r.slice(OBSERVATION_PREFIX.length))),
    final: isReactFinal(users),
  };
}

/**
 * Whether the last user message is the forced final call's: not the
 * question, a tool result or an invalid-action message. Told by the
 * protocol's own prefixes, not by the final message's words, which a system's
 * `prompts.final_answer` may change.
 */
function isReactFinal(users: readonly string[]): boolean {
  const last = users.at(-1);
  return users.length > 1 && last !== undefined && !last.startsWith(OBSERVATION_PREFIX) &&
    !last.startsWith(INVALID_ACTION_PREFIX);
}

/** A planned reply as one react_json action (raw replies are sent as they are). */
function renderAction(planned: Planned): MockReply {
  if (planned.raw) return text(planned.content ?? "");
  const call = planned.tool_calls[0];
  if (call) return text(JSON.stringify({ tool: call.name, args: JSON.parse(call.arguments) }));
  return text(JSON.stringify({ answer: planned.content ?? "" }));
}

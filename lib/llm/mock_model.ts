/**
 * The scripted mock model used by `--mock`: no network, no API key, the same
 * reply to the same conversation every time.
 *
 * How it picks a reply (the turn number is how many assistant messages the
 * conversation already has):
 * - A question with a script entry (see `mock_script.ts`) replays the entry's
 *   calls in order, skipping calls to tools the request does not offer, then
 *   gives the entry's answer. When the request offers no tools: before any
 *   tool result it gives the entry's `recall` (or "I don't know."), after
 *   tool results it gives the answer.
 * - A grounded request (a `rag` system's, see `grounded_prompt.ts`: the
 *   passages are in the system message, no tools): the retrieval stands for
 *   the entry's `search` calls, so the entry's `answer`, or its `without`
 *   answer for the first other tool it would have called; without an entry
 *   (or an entry with no answer), the start of the first passage with its
 *   document id cited, or "I don't know." when no passage was retrieved.
 * - Default policy for a question the script does not name: with `search`
 *   offered and no tool called yet, it searches for the question text; once
 *   it has a tool result it answers with the start of the last one; with no
 *   tools and no tool result it answers "I don't know."
 *
 * - A code agent (its system prompt carries `CODE_AGENT_MARKER`) gets
 *   programs instead (see `mock_code.ts`).
 *
 * Token usage is estimated as one token per four characters (requests count
 * every message and tool schema), so cost and token columns are exercised.
 *
 * @module
 */

import type { ToolCall, Usage } from "../types.ts";
import type { ChatMessage, ChatRequest, ChatResponse, Model, Pricing } from "./model.ts";
import { groundingPassages } from "./grounded_prompt.ts";
import { codeFunctionNames, isCodeAgentPrompt } from "./code_prompt.ts";
import { mockCodeReply } from "./mock_code.ts";
import { entryFor, type MockEntry, type MockScript } from "./mock_script.ts";

/** The closed-book answer when the script gives no `recall`. */
export const UNKNOWN_ANSWER = "I don't know.";

/** Characters of the last tool result the default policy quotes. */
const QUOTE_CHARS = 300;

/** Builds the mock model for `script`; `name` is the configured model name (for pricing and the id). */
export function createMockModel(script: MockScript, name: string, pricing: Pricing): Model {
  return {
    id: `mock:${name}`,
    pricing,
    // deno-lint-ignore require-await
    async chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      signal.throwIfAborted();
      const reply = replyTo(script, request);
      return { ...reply, usage: estimateUsage(request, reply) };
    },
  };
}

type Reply = { content: string | null; tool_calls: ToolCall[] };

function replyTo(script: MockScript, request: ChatRequest): Reply {
  const question = request.messages.find((m) => m.role === "user")?.content ?? "";
  const turn = request.messages.filter((m) => m.role === "assistant").length;
  const sawToolResult = request.messages.some((m) => m.role === "tool");
  const offered = new Set(request.tools.map((t) => t.name));
  const entry = entryFor(script, question);
  const passages = groundingPassages(request.messages);
  if (passages !== null) {
    // The retrieval stands for the entry's searches; any other tool it calls was not offered.
    const missing = entry?.calls.find((c) => c.tool !== "search" && entry.without.has(c.tool));
    if (entry && missing) return text(entry.without.get(missing.tool)!);
    if (entry?.answer != null) return text(entry.answer);
    const first = passages[0];
    if (!first) return text(UNKNOWN_ANSWER);
    return text(`From the documents: ${first.text.slice(0, QUOTE_CHARS)} [${first.doc_id}]`);
  }
  const system = request.messages.find((m) => m.role === "system")?.content ?? "";
  if (isCodeAgentPrompt(system)) {
    return text(
      mockCodeReply(entry, { question, turn, offered: new Set(codeFunctionNames(system)) }),
    );
  }
  if (entry) return scripted(entry, turn, offered, request.messages);
  return defaultPolicy(question, request.messages, turn, offered, sawToolResult);
}

function scripted(
  entry: MockEntry,
  turn: number,
  offered: Set<string>,
  messages: ChatMessage[],
): Reply {
  const sawTool = messages.some((m) => m.role === "tool");
  if (offered.size === 0 && !sawTool) return text(entry.recall ?? UNKNOWN_ANSWER);
  const calls = offered.size ? entry.calls.filter((c) => offered.has(c.tool)) : [];
  if (turn < calls.length) {
    const call = calls[turn];
    return {
      content: null,
      tool_calls: [{
        id: `call_${turn + 1}`,
        name: call.tool,
        arguments: JSON.stringify(call.args),
      }],
    };
  }
  // A scripted call that never happened means its tool was not offered.
  const called = new Set(
    messages.flatMap((m) => (m.role === "assistant" ? m.tool_calls ?? [] : []).map((c) => c.name)),
  );
  const missing = entry.calls.find((c) => !called.has(c.tool) && entry.without.has(c.tool));
  if (missing) return text(entry.without.get(missing.tool)!);
  return text(entry.answer ?? UNKNOWN_ANSWER);
}

function defaultPolicy(
  question: string,
  messages: ChatMessage[],
  turn: number,
  offered: Set<string>,
  sawTool: boolean,
): Reply {
  if (!sawTool) {
    if (turn === 0 && offered.has("search")) {
      return {
        content: null,
        tool_calls: [{
          id: "call_1",
          name: "search",
          arguments: JSON.stringify({ query: question.slice(0, 200) }),
        }],
      };
    }
    return text(UNKNOWN_ANSWER);
  }
  const last = messages.findLast((m) => m.role === "tool");
  const quote = (last?.content ?? "").replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS);
  return text(`From the documents: ${quote}`);
}

function text(content: string): Reply {
  return { content, tool_calls: [] };
}

/** One token per four characters of everything sent and received. */
export function estimateUsage(request: ChatRequest, reply: Reply): Usage {
  let sent = 0;
  for (const m of request.messages) {
    sent += (m.content ?? "").length + 4;
    if (m.role === "assistant" && m.tool_calls) {
      for (const c of m.tool_calls) sent += c.name.length + c.arguments.length;
    }
  }
  for (const t of request.tools) {
    sent += t.name.length + t.description.length + JSON.stringify(t.parameters).length;
  }
  let received = (reply.content ?? "").length;
  for (const c of reply.tool_calls) received += c.name.length + c.arguments.length;
  return { input_tokens: Math.ceil(sent / 4), output_tokens: Math.max(1, Math.ceil(received / 4)) };
}

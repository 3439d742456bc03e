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
 * - Retrieval decides: a scripted answer (or `without` answer) to a question
 *   with evidence (`MockScript.evidence`) is given only when an evidence
 *   document was in what the model was shown — the grounded prompt's
 *   passages, or a tool result of the conversation (`shown_documents.ts`) —
 *   unless the answer turn says `from_memory: true`. Otherwise the model
 *   answers as the default policy does with what it was shown: the start of
 *   the last tool result (the first passage, for a grounded request), or
 *   "I don't know.". The scripted calls are made either way; `recall` (the
 *   closed-book answer) is never held back."
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
import { documentsShown } from "./shown_documents.ts";
import { codeFunctionNames, isCodeAgentPrompt } from "./code_prompt.ts";
import { mockCodeReply } from "./mock_code.ts";
import { entryFor, type MockEntry, type MockScript } from "./mock_script.ts";
import {
  OBSERVATION_PREFIX,
  parseAction,
  REACT_FINAL_PROMPT,
  reactJsonToolNames,
} from "./react_json.ts";

/** The closed-book answer when the script gives no `recall`. */
export const UNKNOWN_ANSWER = "I don't know.";

/** Characters of the last tool result the default policy quotes. */
const QUOTE_CHARS = 300;

const NO_EVIDENCE: readonly string[] = [];

/** Builds the mock model for `script`; `name` is the configured model name (for pricing, the id and model-keyed script entries). */
export function createMockModel(
  script: MockScript,
  name: string,
  pricing: Pricing | null,
): Model {
  return {
    id: `mock:${name}`,
    pricing,
    // deno-lint-ignore require-await
    async chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      signal.throwIfAborted();
      const reply = replyTo(script, name, request);
      return { ...reply, usage: estimateUsage(request, reply) };
    },
  };
}

type Reply = { content: string | null; tool_calls: ToolCall[] };
/** A reply before rendering; `raw` text is sent verbatim in either protocol. */
type Planned = Reply & { raw?: true };

/** What the conversation so far says, in either protocol. */
interface Situation {
  question: string;
  /** Assistant messages so far. */
  turn: number;
  /** Tools the request offers (react_json: those its prompt lists). */
  offered: Set<string>;
  /** Tools the mock has already called in this conversation. */
  called: Set<string>;
  sawToolResult: boolean;
  /** The text of the last tool result, if any. */
  lastResult: string | null;
  /** Documents the tool results so far showed (`shown_documents.ts`). */
  shown: readonly string[];
  /** react_json: the forced final call. */
  final: boolean;
}

function replyTo(script: MockScript, model: string, request: ChatRequest): Reply {
  const system = request.messages.find((m) => m.role === "system")?.content ?? "";
  const reactTools = request.tools.length === 0 ? reactJsonToolNames(system) : null;
  const situation = reactTools === null
    ? nativeSituation(request)
    : reactSituation(request.messages, reactTools);
  const entry = entryFor(script, situation.question, model);
  const evidence = script.evidence?.get(situation.question) ?? NO_EVIDENCE;
  const passages = groundingPassages(request.messages);
  if (passages !== null) {
    // The retrieval stands for the entry's searches; any other tool it calls was not offered.
    const shown = passages.map((p) => p.doc_id);
    if (entry && answersFrom(entry, evidence, shown)) {
      const missing = entry.calls.find((c) =>
        c.tool !== "search" && c.instead_of === undefined && entry.without.has(c.tool)
      );
      if (missing) return text(entry.without.get(missing.tool)!);
      if (entry.answer !== null) return text(entry.answer);
    }
    const first = passages[0];
    if (!first) return text(UNKNOWN_ANSWER);
    const quoted = first.text.replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS);
    return text(`From the documents: ${quoted} [${first.doc_id}]`);
  }
  if (isCodeAgentPrompt(system)) {
    return text(
      mockCodeReply(entry, {
        question: situation.question,
        turn: situation.turn,
        offered: new Set(codeFunctionNames(system)),
        evidence: entry?.fromMemory ? NO_EVIDENCE : evidence,
        observations: request.messages.slice(2).filter((m) => m.role === "user").map((m) =>
          m.content
        ),
      }),
    );
  }
  const planned = entry ? scripted(entry, situation, evidence) : defaultPolicy(situation);
  return reactTools === null ? planned : renderAction(planned);
}

function nativeSituation(request: ChatRequest): Situation {
  const { messages } = request;
  const last = messages.findLast((m) => m.role === "tool");
  const results = messages.filter((m) => m.role === "tool").map((m) => m.content);
  return {
    question: messages.find((m) => m.role === "user")?.content ?? "",
    turn: messages.filter((m) => m.role === "assistant").length,
    offered: new Set(request.tools.map((t) => t.name)),
    called: new Set(
      messages.flatMap((m) =>
        (m.role === "assistant" ? m.tool_calls ?? [] : []).map((c) => c.name)
      ),
    ),
    sawToolResult: last !== undefined,
    lastResult: last?.content ?? null,
    shown: results.flatMap(documentsShown),
    final: false,
  };
}

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
    final: users.at(-1) === REACT_FINAL_PROMPT,
  };
}

/** A planned reply as one react_json action (raw replies are sent as they are). */
function renderAction(planned: Planned): Reply {
  if (planned.raw) return text(planned.content ?? "");
  const call = planned.tool_calls[0];
  if (call) return text(JSON.stringify({ tool: call.name, args: JSON.parse(call.arguments) }));
  return text(JSON.stringify({ answer: planned.content ?? "" }));
}

function scripted(entry: MockEntry, at: Situation, evidence: readonly string[]): Planned {
  if (at.offered.size === 0 && !at.sawToolResult) return text(entry.recall ?? UNKNOWN_ANSWER);
  const answers = answersFrom(entry, evidence, at.shown);
  const actions = at.offered.size
    ? entry.actions.filter((a) =>
      a.kind === "raw" ||
      (at.offered.has(a.call.tool) &&
        (a.call.instead_of === undefined || !at.offered.has(a.call.instead_of)))
    )
    : [];
  if (at.turn < actions.length) {
    const action = actions[at.turn];
    if (action.kind === "raw") return { ...text(action.text), raw: true };
    // The forced final call (react_json) answers unless a raw reply is still due.
    if (at.final) return answers ? text(entry.answer ?? UNKNOWN_ANSWER) : unscripted(at);
    return {
      content: null,
      tool_calls: [{
        id: `call_${at.turn + 1}`,
        name: action.call.tool,
        arguments: JSON.stringify(action.call.args),
      }],
    };
  }
  if (!answers) return unscripted(at);
  // A scripted call that never happened means its tool was not offered.
  const missing = entry.calls.find((c) =>
    !at.called.has(c.tool) && c.instead_of === undefined && entry.without.has(c.tool)
  );
  if (missing) return text(entry.without.get(missing.tool)!);
  return text(entry.answer ?? UNKNOWN_ANSWER);
}

/**
 * Whether the entry's scripted answer is due: it comes from memory, the
 * question has no evidence, or the model was shown an evidence document.
 */
function answersFrom(
  entry: MockEntry,
  evidence: readonly string[],
  shown: readonly string[],
): boolean {
  return entry.fromMemory || evidence.length === 0 || evidence.some((id) => shown.includes(id));
}

/** The default policy's answer with what the model was shown (its calls are all made). */
function unscripted(at: Situation): Planned {
  return at.sawToolResult ? text(quoteOf(at.lastResult)) : text(UNKNOWN_ANSWER);
}

function quoteOf(result: string | null): string {
  return `From the documents: ${(result ?? "").replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS)}`;
}

function defaultPolicy(at: Situation): Planned {
  if (!at.sawToolResult) {
    if (at.turn === 0 && at.offered.has("search") && !at.final) {
      return {
        content: null,
        tool_calls: [{
          id: "call_1",
          name: "search",
          arguments: JSON.stringify({ query: at.question.slice(0, 200) }),
        }],
      };
    }
    return text(UNKNOWN_ANSWER);
  }
  return text(quoteOf(at.lastResult));
}

function text(content: string): Reply {
  return { content, tool_calls: [] };
}

/** Length of each tool's parameters as JSON: the same schema objects are sent on every call. */
const schemaChars = new WeakMap<object, number>();

function parametersChars(parameters: Record<string, unknown>): number {
  let chars = schemaChars.get(parameters);
  if (chars === undefined) {
    chars = JSON.stringify(parameters).length;
    schemaChars.set(parameters, chars);
  }
  return chars;
}

/**
 * One token per four characters of everything sent and received. A tool's
 * parameters are measured once per schema object: callers must not change a
 * schema after sending it (toolboxes build their specs once).
 */
export function estimateUsage(request: ChatRequest, reply: Reply): Usage {
  let sent = 0;
  for (const m of request.messages) {
    sent += (m.content ?? "").length + 4;
    if (m.role === "assistant" && m.tool_calls) {
      for (const c of m.tool_calls) sent += c.name.length + c.arguments.length;
    }
  }
  for (const t of request.tools) {
    sent += t.name.length + t.description.length + parametersChars(t.parameters);
  }
  let received = (reply.content ?? "").length;
  for (const c of reply.tool_calls) received += c.name.length + c.arguments.length;
  return { input_tokens: Math.ceil(sent / 4), output_tokens: Math.max(1, Math.ceil(received / 4)) };
}

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
 *   passages are in the system message, no tools; its policy is the
 *   system's): the retrieval stands for
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
 * Which of these applies is not guessed from the prompt: the request names
 * its protocol (`ChatRequest.protocol`). The mock answers the default one,
 * `tools` (function calling, or plain text without tools), itself; every
 * other protocol is answered by a policy its system declares beside itself
 * (`SystemDef.mock`: `grounded` in `systems/rag_mock.ts`, `react_json` in
 * `systems/react_json_mock.ts`, a code agent's programs in
 * `systems/code_agent_mock.ts`), handed to {@link createMockModel}. A
 * request of a protocol no policy answers is a failed model call naming it.
 *
 * Token usage is estimated as one token per four characters (requests count
 * every message and tool schema), so cost and token columns are exercised.
 *
 * @module
 */

import type { Usage } from "../types.ts";
import {
  type ChatRequest,
  type ChatResponse,
  type Model,
  ModelCallError,
  type Pricing,
  TOOLS_PROTOCOL,
} from "./model.ts";
import { documentsShown } from "./shown_documents.ts";
import { entryFor, type MockScript } from "./mock_script.ts";
import {
  defaultPolicy,
  type MockContext,
  type MockPolicy,
  type MockReply,
  scripted,
  type Situation,
} from "./mock_policy.ts";

export { UNKNOWN_ANSWER } from "./mock_policy.ts";

const NO_EVIDENCE: readonly string[] = [];
const NO_POLICIES: ReadonlyMap<string, MockPolicy> = new Map();

/** Options of {@link createMockModel}. */
export interface MockModelOptions {
  /**
   * The policies of the protocols besides `tools`, by protocol (a run passes
   * `systems/registry.ts` `MOCK_POLICIES`). Default: none.
   */
  policies?: ReadonlyMap<string, MockPolicy>;
}

/** Builds the mock model for `script`; `name` is the configured model name (for pricing, the id and model-keyed script entries). */
export function createMockModel(
  script: MockScript,
  name: string,
  pricing: Pricing | null,
  options: MockModelOptions = {},
): Model {
  const policies = options.policies ?? NO_POLICIES;
  const ctx: MockContext = {
    entryFor: (question) => entryFor(script, question, name),
    evidenceOf: (question) => script.evidence?.get(question) ?? NO_EVIDENCE,
  };
  return {
    id: `mock:${name}`,
    pricing,
    // deno-lint-ignore require-await
    async chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      signal.throwIfAborted();
      const protocol = request.protocol ?? TOOLS_PROTOCOL;
      let reply: MockReply;
      if (protocol === TOOLS_PROTOCOL) reply = toolsReply(request, ctx);
      else {
        const policy = policies.get(protocol);
        if (policy === undefined) {
          throw new ModelCallError(
            `the scripted mock model has no policy for the reply protocol "${protocol}" (a system sending it declares one beside itself: SystemDef.mock)`,
          );
        }
        reply = policy.reply(request, ctx);
      }
      return { ...reply, usage: estimateUsage(request, reply) };
    },
  };
}

/** The `tools` protocol: function calling, or plain text when no tool is offered. */
function toolsReply(request: ChatRequest, ctx: MockContext): MockReply {
  const situation = nativeSituation(request);
  const entry = ctx.entryFor(situation.question);
  return entry
    ? scripted(entry, situation, ctx.evidenceOf(situation.question))
    : defaultPolicy(situation);
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
export function estimateUsage(request: ChatRequest, reply: MockReply): Usage {
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

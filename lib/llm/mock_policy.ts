/**
 * How the scripted mock model answers one reply protocol
 * (`ChatRequest.protocol`), and the script logic every policy shares. The
 * mock answers the default protocol, function calling, itself
 * (`mock_model.ts`); a system whose requests name another protocol declares
 * the policy beside itself (`SystemDef.mock`, e.g. `systems/rag_mock.ts`),
 * and the run hands the mock every declared policy (`systems/registry.ts`
 * `MOCK_POLICIES`). The mock never reads a prompt to find out whose request
 * it answers: the request says.
 *
 * The shared logic, for a question with a script entry: the entry's calls are
 * replayed in order (those to tools the request offers), then its answer is
 * given, but only once the model was shown one of the question's evidence
 * documents (unless the answer comes `from_memory`); otherwise, and for a
 * question without an entry, the default policy: search for the question
 * text, then quote the last tool result. See `mock_model.ts` for the whole
 * behaviour.
 *
 * @module
 */

import type { ToolCall } from "../types.ts";
import type { ChatRequest } from "./model.ts";
import type { MockEntry } from "./mock_script.ts";

/** The closed-book answer when the script gives no `recall`. */
export const UNKNOWN_ANSWER = "I don't know.";

/** Characters of the last tool result the default policy quotes. */
export const QUOTE_CHARS = 300;

/** A reply of the mock: text, tool calls, or both (usage is added by the model). */
export interface MockReply {
  content: string | null;
  tool_calls: ToolCall[];
}

/** What a policy may ask about the question it answers. */
export interface MockContext {
  /** The script's entry for `question` (for this model), if any. */
  entryFor(question: string): MockEntry | undefined;
  /** The evidence document ids of `question` (empty when it has none). */
  evidenceOf(question: string): readonly string[];
}

/** How the scripted mock answers the requests of one protocol. */
export interface MockPolicy {
  /** The {@link ChatRequest.protocol} it answers. */
  readonly protocol: string;
  /** The reply to `request` (deterministic: the same request gets the same reply). */
  reply(request: ChatRequest, ctx: MockContext): MockReply;
}

/** What the conversation so far says, in any protocol that makes tool calls. */
export interface Situation {
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

/** A reply before rendering in a protocol; `raw` text is sent verbatim in any. */
export type Planned = MockReply & { raw?: true };

/** The scripted reply of `entry` at `at`. */
export function scripted(entry: MockEntry, at: Situation, evidence: readonly string[]): Planned {
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

/** The default policy, for a question the script does not name. */
export function defaultPolicy(at: Situation): Planned {
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

/**
 * Whether the entry's scripted answer is due: it comes from memory, the
 * question has no evidence, or the model was shown an evidence document.
 */
export function answersFrom(
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

/** A text reply. */
export function text(content: string): MockReply {
  return { content, tool_calls: [] };
}

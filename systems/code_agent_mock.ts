/**
 * The scripted mock model's replies to a code agent (the `code` protocol:
 * `systems/code_agent.ts`): JavaScript programs.
 *
 * An entry's `code` turns are sent in order, one a reply (each in a ```js
 * block); after them, and for an entry with no `code` turns after its first
 * reply, the mock answers with `final_answer(ANSWER)`. An entry with no
 * `code` turns gets one program derived from its `call` and `answer` turns:
 * each call to an offered tool becomes `await TOOL(args);`, then
 * `final_answer(ANSWER);` — so the bundled arenas' scripts drive the code
 * agent through the same tool calls as the function-calling agent. A
 * question with no entry searches for its text and quotes the result, as the
 * default policy does for function calling.
 *
 * For a question with evidence (and an answer not marked `from_memory`), the
 * answer is given only when an evidence document was shown, as for function
 * calling: the derived program keeps each call's output and carries the
 * source of `documentsShown` (`shown_documents.ts`) to test them, answering
 * otherwise with the start of the last output (or "I don't know." without
 * calls); after `code` turns, the test reads what the earlier programs
 * printed.
 *
 * @module
 */

import { codeFunctionNames } from "../lib/llm/code_prompt.ts";
import { type MockPolicy, text } from "../lib/llm/mock_policy.ts";
import type { MockEntry } from "../lib/llm/mock_script.ts";
import { documentsShown } from "../lib/llm/shown_documents.ts";

/** The `ChatRequest.protocol` of a code agent's calls. */
export const CODE_PROTOCOL = "code";

const NO_EVIDENCE: readonly string[] = [];

/**
 * The mock's policy for a code agent: the question is the first user
 * message, the offered functions are those the system prompt lists, and what
 * the earlier programs did is in the user messages after the question.
 */
export const codeMock: MockPolicy = {
  protocol: CODE_PROTOCOL,
  reply(request, ctx) {
    const system = request.messages.find((m) => m.role === "system")?.content ?? "";
    const question = request.messages.find((m) => m.role === "user")?.content ?? "";
    const entry = ctx.entryFor(question);
    return text(mockCodeReply(entry, {
      question,
      turn: request.messages.filter((m) => m.role === "assistant").length,
      offered: new Set(codeFunctionNames(system)),
      evidence: entry?.fromMemory ? NO_EVIDENCE : ctx.evidenceOf(question),
      observations: request.messages.slice(2).filter((m) => m.role === "user").map((m) =>
        m.content
      ),
    }));
  },
};

/** What the mock needs to know about the conversation. */
export interface CodeSituation {
  question: string;
  /** Assistant replies so far. */
  turn: number;
  /** The tool functions the prompt lists. */
  offered: ReadonlySet<string>;
  /**
   * Evidence document ids of the question (empty: none, or the entry's answer comes from
   * memory): the answer is given only once one of them was shown (see below).
   */
  evidence?: readonly string[];
  /** The user messages after the question: what the earlier programs did and printed. */
  observations?: readonly string[];
}

/** The closed-book answer when the script gives none (same as the function-calling mock). */
const UNKNOWN = "I don't know.";
const QUOTE_CHARS = 300;

/** The mock's reply text (a fenced program) for a code agent. */
export function mockCodeReply(entry: MockEntry | undefined, at: CodeSituation): string {
  return fence(programFor(entry, at));
}

function programFor(entry: MockEntry | undefined, at: CodeSituation): string {
  const evidence = at.evidence ?? [];
  if (entry === undefined) {
    if (at.turn > 0 || !at.offered.has("search")) return finalAnswer(UNKNOWN);
    return [
      `const found = await search(${JSON.stringify({ query: at.question.slice(0, 200) })});`,
      `final_answer("From the documents: " + found.replace(/\\s+/g, " ").trim().slice(0, ${QUOTE_CHARS}));`,
    ].join("\n");
  }
  if (entry.code.length > 0 && at.turn < entry.code.length) return entry.code[at.turn];
  if (entry.code.length > 0 || at.turn > 0) {
    // What the earlier programs printed is what the model was shown.
    const observations = at.observations ?? [];
    const shown = observations.flatMap(documentsShown);
    if (evidence.length === 0 || evidence.some((id) => shown.includes(id))) {
      return finalAnswer(answerOf(entry, at));
    }
    const last = observations.at(-1);
    return finalAnswer(last === undefined ? UNKNOWN : quote(last));
  }
  // A call `instead_of` an offered tool is a fallback for systems without it: not made here.
  const calls = entry.calls.filter((c) =>
    at.offered.has(c.tool) && (c.instead_of === undefined || !at.offered.has(c.instead_of))
  );
  if (evidence.length === 0) {
    const lines = calls.map((c) => `await ${c.tool}(${JSON.stringify(c.args)});`);
    lines.push(finalAnswer(answerOf(entry, at)));
    return lines.join("\n");
  }
  // The program answers only if a tool output it got showed an evidence document, as the
  // function-calling mock does; it carries the reader of shown_documents.ts to tell.
  const lines = calls.map((c, i) => `const r${i} = await ${c.tool}(${JSON.stringify(c.args)});`);
  const results = calls.map((_, i) => `r${i}`).join(", ");
  const fallback = calls.length
    ? `${JSON.stringify("From the documents: ")} + String(r${calls.length - 1})` +
      `.replace(/\\s+/g, " ").trim().slice(0, ${QUOTE_CHARS})`
    : JSON.stringify(UNKNOWN);
  lines.push(
    `const shown = (${documentsShown.toString()})([${results}].join("\\n"));`,
    `final_answer(${JSON.stringify(evidence)}.some((id) => shown.includes(id)) ? ${
      JSON.stringify(answerOf(entry, at))
    } : ${fallback});`,
  );
  return lines.join("\n");
}

function quote(text: string): string {
  return `From the documents: ${text.replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS)}`;
}

/** The entry's answer, or what it answers instead when a tool it calls is not offered. */
function answerOf(entry: MockEntry, at: CodeSituation): string {
  const missing = entry.calls.find((c) => !at.offered.has(c.tool) && entry.without.has(c.tool));
  if (missing) return entry.without.get(missing.tool)!;
  return entry.answer ?? UNKNOWN;
}

function finalAnswer(text: string): string {
  return `final_answer(${JSON.stringify(text)});`;
}

function fence(program: string): string {
  return "```js\n" + program + "\n```";
}

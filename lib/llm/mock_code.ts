/**
 * The scripted mock model's replies to a code agent: JavaScript programs.
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
 * @module
 */

import type { MockEntry } from "./mock_script.ts";

/** What the mock needs to know about the conversation. */
export interface CodeSituation {
  question: string;
  /** Assistant replies so far. */
  turn: number;
  /** The tool functions the prompt lists. */
  offered: ReadonlySet<string>;
}

/** The closed-book answer when the script gives none (same as the function-calling mock). */
const UNKNOWN = "I don't know.";
const QUOTE_CHARS = 300;

/** The mock's reply text (a fenced program) for a code agent. */
export function mockCodeReply(entry: MockEntry | undefined, at: CodeSituation): string {
  return fence(programFor(entry, at));
}

function programFor(entry: MockEntry | undefined, at: CodeSituation): string {
  if (entry === undefined) {
    if (at.turn > 0 || !at.offered.has("search")) return finalAnswer(UNKNOWN);
    return [
      `const found = await search(${JSON.stringify({ query: at.question.slice(0, 200) })});`,
      `final_answer("From the documents: " + found.replace(/\\s+/g, " ").trim().slice(0, ${QUOTE_CHARS}));`,
    ].join("\n");
  }
  if (entry.code.length > 0) {
    return at.turn < entry.code.length ? entry.code[at.turn] : finalAnswer(answerOf(entry, at));
  }
  if (at.turn > 0) return finalAnswer(answerOf(entry, at));
  // A call `instead_of` an offered tool is a fallback for systems without it: not made here.
  const lines = entry.calls.filter((c) =>
    at.offered.has(c.tool) && (c.instead_of === undefined || !at.offered.has(c.instead_of))
  ).map((c) => `await ${c.tool}(${JSON.stringify(c.args)});`);
  lines.push(finalAnswer(answerOf(entry, at)));
  return lines.join("\n");
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

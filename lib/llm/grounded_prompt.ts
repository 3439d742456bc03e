/**
 * The prompt of a system that answers from passages it retrieved itself
 * (`rag`): the instructions and the passages in the system message, the
 * question alone in the user message. One module owns the format, so the
 * `grounded` mock policy (`systems/rag_mock.ts`) can read the passages back
 * (it answers `rag` questions from them) without guessing at another file's
 * prompt.
 *
 * Each passage is a block `[n] doc_id: ID | passage: PASSAGE_ID`, then its
 * text with whitespace runs shown as single spaces, blocks separated by a
 * blank line: the layout the `search` tool's output uses, so a model reads
 * retrieved text the same way whichever system fetched it.
 *
 * @module
 */

import type { ChatMessage } from "./model.ts";

/** What a grounded answer is asked to do. */
export const GROUNDED_INSTRUCTIONS = "You answer questions about a document collection " +
  "using only the passages below. Answer briefly and cite the id of every document you " +
  "use in square brackets, like [doc_id]. If the passages do not contain the answer, say " +
  "that you cannot find it in the documents; do not answer from memory.";

/** The line that starts the passages in the system message. */
export const PASSAGES_HEADER = "Passages:";

/** A passage as a grounded prompt shows it. */
export interface GroundingPassage {
  doc_id: string;
  passage_id: string;
  text: string;
}

/** The messages of a grounded answer: instructions and passages, then the question. */
export function groundedMessages(
  question: string,
  passages: readonly GroundingPassage[],
): ChatMessage[] {
  const blocks = passages.map((p, i) =>
    `[${i + 1}] doc_id: ${p.doc_id} | passage: ${p.passage_id}\n` +
    p.text.replace(/\s+/g, " ").trim()
  );
  const shown = blocks.length ? blocks.join("\n\n") : "(no passage was found)";
  return [
    { role: "system", content: `${GROUNDED_INSTRUCTIONS}\n\n${PASSAGES_HEADER}\n\n${shown}` },
    { role: "user", content: question },
  ];
}

const BLOCK_HEAD = /^\[(\d+)\] doc_id: (.*) \| passage: (.*)$/;

/**
 * The passages of a grounded request, in order; null when the request is not
 * one (its first message is not {@link groundedMessages}'s system message).
 */
export function groundingPassages(messages: readonly ChatMessage[]): GroundingPassage[] | null {
  const first = messages[0];
  const prefix = `${GROUNDED_INSTRUCTIONS}\n\n${PASSAGES_HEADER}\n\n`;
  if (first?.role !== "system" || !first.content.startsWith(prefix)) return null;
  const lines = first.content.slice(prefix.length).split("\n");
  const passages: GroundingPassage[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = BLOCK_HEAD.exec(lines[i]);
    if (head && Number(head[1]) === passages.length + 1) {
      passages.push({ doc_id: head[2], passage_id: head[3], text: lines[i + 1] });
      i++;
    }
  }
  return passages;
}

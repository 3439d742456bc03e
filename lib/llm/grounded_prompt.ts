/**
 * The prompt of a system that answers from passages it retrieved itself
 * (`rag`): the instructions and the passages in the system message, the
 * question alone in the user message. One module owns the format, so the
 * `grounded` mock policy (`systems/rag_mock.ts`) can read the passages back
 * (it answers `rag` questions from them) without guessing at another file's
 * prompt.
 *
 * Each passage is a block `[n] doc_id: ID | passage: PASSAGE_ID` (then
 * ` | page: N` for a passage of a PDF), then its text with its lines kept
 * (`lib/util/shown_text.ts`), blocks separated by a blank line: the layout
 * the `search` tool's output uses, so a model reads retrieved text the same
 * way whichever system fetched it.
 *
 * @module
 */

import type { ChatMessage } from "./model.ts";
import { shownText } from "../util/shown_text.ts";

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
  /** The page it is on, for a passage of a document of pages. */
  page?: number;
  text: string;
}

/** The text shown in place of the passages when the retrieval found none. */
export const NO_PASSAGE = "(no passage was found)";

/**
 * The messages of a grounded answer: instructions and passages, then the
 * question. `options.instructions` replaces {@link GROUNDED_INSTRUCTIONS}
 * (a system's configured prompt); the passages block after it is fixed.
 */
export function groundedMessages(
  question: string,
  passages: readonly GroundingPassage[],
  options: { instructions?: string } = {},
): ChatMessage[] {
  const blocks = passages.map((p, i) =>
    `[${i + 1}] doc_id: ${p.doc_id} | passage: ${p.passage_id}${
      p.page === undefined ? "" : ` | page: ${p.page}`
    }\n` + shownText(p.text)
  );
  const shown = blocks.length ? blocks.join("\n\n") : NO_PASSAGE;
  const instructions = options.instructions ?? GROUNDED_INSTRUCTIONS;
  return [
    { role: "system", content: `${instructions}\n\n${PASSAGES_HEADER}\n\n${shown}` },
    { role: "user", content: question },
  ];
}

const BLOCK_HEAD = /^\[(\d+)\] doc_id: (.*) \| passage: (.*?)(?: \| page: (\d+))?$/;

/**
 * The passages of a grounded request, in order; null when the request is not
 * one (its first message is not {@link groundedMessages}'s system message).
 * The passages are found by their fixed header, not by the instructions
 * before it, which a config may change: the first `Passages:` line, after a
 * blank line, that is followed by a blank line and the first block's head
 * (or by {@link NO_PASSAGE}).
 * A block's text is every line up to the blank line before the next block's
 * head (a passage line that looks like the next head ends it early: only the
 * scripted mock reads prompts back).
 */
export function groundingPassages(messages: readonly ChatMessage[]): GroundingPassage[] | null {
  const first = messages[0];
  if (first?.role !== "system") return null;
  const start = passagesStart(first.content);
  if (start < 0) return null;
  const lines = first.content.slice(start).split("\n");
  const passages: GroundingPassage[] = [];
  let text: string[] | null = null;
  const close = () => {
    if (text === null) return;
    while (text.length > 0 && text[text.length - 1] === "") text.pop();
    passages[passages.length - 1].text = text.join("\n");
    text = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const head = (i === 0 || lines[i - 1] === "") && lines[i].startsWith("[")
      ? BLOCK_HEAD.exec(lines[i])
      : null;
    if (head && Number(head[1]) === passages.length + 1) {
      close();
      passages.push({
        doc_id: head[2],
        passage_id: head[3],
        ...(head[4] === undefined ? {} : { page: Number(head[4]) }),
        text: "",
      });
      text = [];
    } else if (text !== null) text.push(lines[i]);
  }
  close();
  return passages;
}

/** Offset of the first passage block (or of {@link NO_PASSAGE}) in a grounded system message; -1 when none. */
function passagesStart(system: string): number {
  const header = `\n\n${PASSAGES_HEADER}\n\n`;
  for (let at = system.indexOf(header); at >= 0; at = system.indexOf(header, at + 1)) {
    const start = at + header.length;
    if (system.startsWith("[1] doc_id: ", start) || system.startsWith(NO_PASSAGE, start)) {
      return start;
    }
  }
  return -1;
}

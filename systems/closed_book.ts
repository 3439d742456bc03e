/**
 * `closed_book`: the model alone, no retrieval and no tools. The baseline
 * that shows what the model knows (or invents) without the corpus.
 *
 * @module
 */

import { systemBaseSchema } from "../lib/config/schema.ts";
import { defineSystem, NO_FLAGS } from "./system.ts";

/** The instructions the model gets. */
export const CLOSED_BOOK_PROMPT = "Answer the question from your own knowledge, briefly. " +
  "If you do not know the answer, say that you do not know.";

/** The closed-book system. */
export const closedBook = defineSystem({
  type: "closed_book",
  description: "The model alone: no retrieval, no tools (the baseline).",
  acceptsTools: false,
  alwaysTools: [],
  prompts: [CLOSED_BOOK_PROMPT],
  options: systemBaseSchema,
  async run(_options, ctx) {
    const reply = await ctx.recorder.chat({
      messages: [
        { role: "system", content: CLOSED_BOOK_PROMPT },
        { role: "user", content: ctx.question.question },
      ],
      tools: [],
    }, ctx.signal);
    return { answer: reply.content, flags: { ...NO_FLAGS } };
  },
});

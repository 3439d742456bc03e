/**
 * `closed_book`: the model alone, no retrieval and no tools. The baseline
 * that shows what the model knows (or invents) without the corpus.
 *
 * @module
 */

import { systemBaseSchema } from "../lib/config/schema.ts";
import { definePrompts, promptText } from "../lib/prompts/prompt_set.ts";
import { renderPrompt } from "../lib/prompts/template.ts";
import { defineSystem, NO_FLAGS } from "./system.ts";

/** The instructions the model gets. */
export const CLOSED_BOOK_PROMPT = "Answer the question from your own knowledge, briefly. " +
  "If you do not know the answer, say that you do not know.";

/** Its prompt: `system`, which may use `{{question}}`. */
export const CLOSED_BOOK_PROMPTS = definePrompts({
  system: {
    about: "the instructions, sent as the system message before the question",
    default: CLOSED_BOOK_PROMPT,
    placeholders: ["question"],
  },
});

/** The closed-book system. */
export const closedBook = defineSystem({
  type: "closed_book",
  description: "The model alone: no retrieval, no tools (the baseline).",
  acceptsTools: false,
  alwaysTools: [],
  prompts: CLOSED_BOOK_PROMPTS,
  options: systemBaseSchema.extend({ prompts: CLOSED_BOOK_PROMPTS.schema.optional() }),
  async run(options, ctx) {
    const system = renderPrompt(
      promptText(CLOSED_BOOK_PROMPTS, options, "system"),
      new Map([["question", ctx.question.question]]),
    );
    const reply = await ctx.recorder.chat({
      messages: [
        { role: "system", content: system },
        { role: "user", content: ctx.question.question },
      ],
      tools: [],
    }, ctx.signal);
    return { answer: reply.content, flags: { ...NO_FLAGS } };
  },
});

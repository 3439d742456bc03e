/**
 * `rag`: retrieve-then-read. The system's retriever (its `retriever:`
 * option, by default BM25) returns its `top_k` passages (5 when the
 * retriever sets none) for the question
 * (recorded as a retrieval step), then one model call answers from those
 * passages and cites their document ids in square brackets. No tools.
 *
 * The question is searched as written, whatever its length (the 1,000-
 * character limit applies only to queries a model sends to the `search`
 * tool). When the retrieval fails (an embedding endpoint down, say), the
 * question ends as a `retrieval` error and the run goes on.
 *
 * @module
 */

import { DEFAULT_TOP_K } from "../lib/config/retriever_schema.ts";
import { retrievingSystemBaseSchema } from "../lib/config/schema.ts";
import { GROUNDED_INSTRUCTIONS, groundedMessages } from "../lib/llm/grounded_prompt.ts";
import { definePrompts, promptText } from "../lib/prompts/prompt_set.ts";
import { renderPrompt } from "../lib/prompts/template.ts";
import { RetrievalFailedError } from "../lib/trace/trace_recorder.ts";
import { GROUNDED_PROTOCOL, groundedMock } from "./rag_mock.ts";
import { defineSystem, NO_FLAGS } from "./system.ts";

/**
 * Its prompt: `system`, the instructions the passages follow in the system
 * message (the passages block itself is fixed: the model and the mock read
 * it). It may use `{{question}}`.
 */
export const RAG_PROMPTS = definePrompts({
  system: {
    about: "the instructions, followed in the system message by the retrieved passages",
    default: GROUNDED_INSTRUCTIONS,
    placeholders: ["question"],
  },
});

/** The rag system. */
export const rag = defineSystem({
  type: "rag",
  description: "Retrieve the retriever's top_k passages, then one model call answers citing them.",
  acceptsTools: false,
  alwaysTools: [],
  options: retrievingSystemBaseSchema.extend({ prompts: RAG_PROMPTS.schema.optional() }),
  prompts: RAG_PROMPTS,
  mock: [groundedMock],
  // The passages the model reads: top_k of them, 5 by default.
  retrievalDepth: (topK) => ({ count: topK ?? DEFAULT_TOP_K, unit: "passages" }),
  async run(options, ctx) {
    if (ctx.retriever === null) throw new TypeError("rag runs with a retriever (see plan.ts)");
    const question = ctx.question.question;
    const { step, hits } = await ctx.recorder.retrieve(
      ctx.retriever,
      question,
      ctx.depth?.count ?? ctx.retriever.topK,
      ctx.signal,
    );
    if (step.error) throw new RetrievalFailedError(step);
    const passages = hits.map((h) => ({
      doc_id: h.passage.doc_id,
      passage_id: h.passage.id,
      ...(h.passage.page === undefined ? {} : { page: h.passage.page }),
      text: h.passage.text,
    }));
    const reply = await ctx.recorder.chat(
      {
        messages: groundedMessages(question, passages, {
          instructions: renderPrompt(
            promptText(RAG_PROMPTS, options, "system"),
            new Map([["question", question]]),
          ),
        }),
        tools: [],
        protocol: GROUNDED_PROTOCOL,
      },
      ctx.signal,
    );
    return { answer: reply.content, flags: { ...NO_FLAGS } };
  },
});

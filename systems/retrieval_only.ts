/**
 * `retrieval_only`: the retriever alone. It ranks the retriever's `top_k`
 * passages for each question (recorded as a retrieval step) and makes no
 * model call: the answer is null and the cost is zero unless embedding the
 * question costs money. Its score is the retrieval metrics, which makes it
 * the system for evaluating retrievers on an IR collection (set a large
 * `top_k`, e.g. 1000, for MAP and recall@100).
 *
 * Questions are searched as written, whatever their length. A failed
 * retrieval ends the question as a `retrieval` error. A BM25 retriever with
 * `document_ranking: whole` (the default) ranks whole documents here
 * (`top_k` documents); other retrievers rank passages, and the scorer ranks
 * each document by its best passage.
 *
 * @module
 */

import { retrievingSystemBaseSchema } from "../lib/config/schema.ts";
import { RetrievalFailedError } from "../lib/run/trace_recorder.ts";
import { defineSystem, NO_FLAGS } from "./system.ts";

/** The retrieval_only system. */
export const retrievalOnly = defineSystem({
  type: "retrieval_only",
  description:
    "The retriever alone: its top_k documents (BM25) or passages per question, no model call, no answer.",
  acceptsTools: false,
  alwaysTools: [],
  options: retrievingSystemBaseSchema,
  // No model call at all: the pre-flight estimate counts none.
  modelCalls: () => ({ min: 0, max: 0 }),
  ranksDocuments: true,
  async run(_options, ctx) {
    if (ctx.retriever === null) {
      throw new TypeError("retrieval_only runs with a retriever (see plan.ts)");
    }
    const { step } = await ctx.recorder.retrieve(
      ctx.retriever,
      ctx.question.question,
      ctx.retriever.topK,
      ctx.signal,
      { documents: true },
    );
    if (step.error) throw new RetrievalFailedError(step);
    return { answer: null, flags: { ...NO_FLAGS } };
  },
});

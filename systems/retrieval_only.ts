/**
 * `retrieval_only`: the retriever alone. It ranks passages for each question
 * (recorded as a retrieval step) and makes no model call: the answer is null
 * and the cost is zero unless embedding the question costs money. Its score
 * is the retrieval metrics, which makes it the system for evaluating
 * retrievers on an IR collection.
 *
 * How deep: the retriever's `top_k` passages when the config sets one;
 * otherwise as many passages as it takes to rank the largest cut-off of
 * `evaluation.retrieval_k` in documents (100 by default), so that nDCG@10
 * and R@100 are computed on the depth they name. A `top_k` below a cut-off
 * is warned about by `validate`, and the metrics past it are marked.
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
import { RetrievalFailedError } from "../lib/trace/trace_recorder.ts";
import { defineSystem, NO_FLAGS } from "./system.ts";

/** The retrieval_only system. */
export const retrievalOnly = defineSystem({
  type: "retrieval_only",
  description:
    "The retriever alone: a ranking per question (top_k documents for BM25, else passages; by default as deep as the largest metric cut-off), no model call, no answer.",
  acceptsTools: false,
  alwaysTools: [],
  options: retrievingSystemBaseSchema,
  // No model call at all: the pre-flight estimate counts none.
  modelCalls: () => ({ min: 0, max: 0 }),
  retrievalDepth: (topK, cutoffs) =>
    topK === null
      ? { count: Math.max(...cutoffs), unit: "documents" }
      : { count: topK, unit: "passages" },
  ranksDocuments: true,
  async run(_options, ctx) {
    if (ctx.retriever === null) {
      throw new TypeError("retrieval_only runs with a retriever (see plan.ts)");
    }
    const depth = ctx.depth ?? { count: ctx.retriever.topK, unit: "passages" };
    const { step } = await ctx.recorder.retrieve(
      ctx.retriever,
      ctx.question.question,
      depth.count,
      ctx.signal,
      // A retriever that ranks whole documents gives `top_k` documents; any
      // other gives `top_k` passages, or is deepened to the default depth in documents.
      depth.unit === "documents" || ctx.retriever.searchDocuments !== undefined
        ? { documents: depth.count }
        : {},
    );
    if (step.error) throw new RetrievalFailedError(step);
    return { answer: null, flags: { ...NO_FLAGS } };
  },
});

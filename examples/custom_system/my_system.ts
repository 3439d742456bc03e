/**
 * A custom system, the worked example of `ragbench/system`
 * (configs/custom_system.yaml runs it beside `rag`): it searches the
 * question, asks the model to answer from the passages it found, and
 * reports the documents the answer cites. Every call goes through ragbench,
 * so the model, the retriever and their costs are those of the run, and
 * `--mock` answers it offline.
 *
 * @module
 */

import { defineSystem, groundedMessages } from "ragbench/system";

/** Citations in the answer's text: `[doc_id]`. */
const CITATION = /\[([^\][\s]+)\]/g;

export const answer = defineSystem({
  description: "Search the question, answer from the passages, cite what the answer uses.",
  async run(question, ctx) {
    if (ctx.retriever === null) throw new Error("this system needs a retriever");
    const passages = await ctx.retriever.search(question, 5);
    const reply = await ctx.model.chat({
      messages: groundedMessages(question, passages),
      // Tells --mock runs to answer from the passages, as they answer rag.
      protocol: "grounded",
    });
    const text = reply.content ?? "";
    // Cite only documents the retriever returned: a model can invent an id.
    const found = new Set(passages.map((p) => p.doc_id));
    const cited = [...text.matchAll(CITATION)].map((m) => m[1]).filter((id) => found.has(id));
    return { answer: text, cited };
  },
});

/**
 * How the scripted mock model (`--mock`) answers a `rag` system's grounded
 * request (the `grounded` protocol: instructions and passages in the system
 * message, `lib/llm/grounded_prompt.ts`; no tools). The retrieval stands for
 * the script entry's `search` calls: the entry's `answer` when a passage
 * showed one of the question's evidence documents (or the answer comes
 * `from_memory`), its `without` answer for the first other tool it would have
 * called; otherwise the start of the first passage with its document id
 * cited, or "I don't know." when no passage was retrieved.
 *
 * @module
 */

import { groundingPassages } from "../lib/llm/grounded_prompt.ts";
import { answersFrom, QUOTE_CHARS, text, UNKNOWN_ANSWER } from "../lib/llm/mock_policy.ts";
import type { MockPolicy } from "../lib/llm/mock_policy.ts";

/** The `ChatRequest.protocol` of a grounded answer. */
export const GROUNDED_PROTOCOL = "grounded";

/** The mock's policy for grounded requests. */
export const groundedMock: MockPolicy = {
  protocol: GROUNDED_PROTOCOL,
  reply(request, ctx) {
    const passages = groundingPassages(request.messages) ?? [];
    const question = request.messages.find((m) => m.role === "user")?.content ?? "";
    const entry = ctx.entryFor(question);
    const shown = passages.map((p) => p.doc_id);
    if (entry && answersFrom(entry, ctx.evidenceOf(question), shown)) {
      const missing = entry.calls.find((c) =>
        c.tool !== "search" && c.instead_of === undefined && entry.without.has(c.tool)
      );
      if (missing) return text(entry.without.get(missing.tool)!);
      if (entry.answer !== null) return text(entry.answer);
    }
    const first = passages[0];
    if (!first) return text(UNKNOWN_ANSWER);
    const quoted = first.text.replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS);
    return text(`From the documents: ${quoted} [${first.doc_id}]`);
  },
};

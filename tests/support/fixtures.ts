/**
 * Small building blocks for system and runner tests: test tools, a toolbox
 * over them, and models that misbehave on purpose.
 *
 * @module
 */

import { z } from "zod";
import type { Question } from "../../lib/data/question_schema.ts";
import type { ChatRequest, ChatResponse, Model } from "../../lib/llm/model.ts";
import { ModelCallError } from "../../lib/llm/model.ts";
import type { Corpus } from "../../lib/types.ts";
import {
  defineTool,
  parametersJsonSchema,
  type ToolDef,
  toolResult,
} from "../../tools/define_tool.ts";
import { createInProcessHost } from "../../tools/host.ts";
import { createToolbox, type Toolbox } from "../../tools/toolbox.ts";

/** A tiny corpus. */
export const TINY_CORPUS: Corpus = {
  documents: [
    {
      id: "eiffel",
      title: "Eiffel",
      text: "The Eiffel Tower is 330 metres tall.",
      source: "e.txt",
    },
    {
      id: "tokyo",
      title: "Tokyo",
      text: "Tokyo Tower was inspired by the Eiffel Tower.",
      source: "t.txt",
    },
  ],
  tables: [],
};

/** `search` stand-in: returns every document whose text contains the query's first word. */
export const fakeSearch = defineTool({
  name: "search",
  description: "Find documents.",
  parameters: z.strictObject({ query: z.string().describe("words") }),
  sideEffects: "none",
  run({ query }, ctx) {
    const word = query.split(" ")[0].toLowerCase();
    const hits = ctx.corpus.documents.filter((d) => d.text.toLowerCase().includes(word));
    return toolResult({
      output: hits.map((d) => `${d.id}: ${d.text}`).join("\n") || "no match",
      data: { results: hits.map((d) => ({ doc_id: d.id })) },
    });
  },
});

/** Always throws. */
export const brokenTool = defineTool({
  name: "broken",
  description: "Fails.",
  parameters: z.strictObject({}),
  sideEffects: "none",
  run() {
    throw new Error("secret path /home/me/.key");
  },
});

/** A toolbox over `defs` (in-process), with 4000-character output cap. */
export function toolboxOf(defs: ToolDef[], corpus: Corpus = TINY_CORPUS): Toolbox {
  const host = createInProcessHost(defs, { corpus, now: "2026-01-01" });
  return createToolbox(
    defs.map((d) => ({
      name: d.name,
      description: d.description,
      sideEffects: d.sideEffects,
      parameters: parametersJsonSchema(d),
      options: {},
      timeoutMs: 1000,
      host,
    })),
    { max_output_chars: 4000 },
  );
}

/** A question with one `contains` check. */
export function question(id: string, text: string, extra: Partial<Question> = {}): Question {
  return { id, question: text, checks: [{ type: "contains", value: "330" }], ...extra };
}

/** A model answering from a function of the request (usage 10/5, price 1$/Mtok in and out). */
export function modelOf(
  reply: (
    request: ChatRequest,
    signal: AbortSignal,
  ) => Promise<Partial<ChatResponse>> | Partial<ChatResponse>,
): Model {
  return {
    id: "test:model",
    pricing: { input_per_mtok: 1, output_per_mtok: 1 },
    async chat(request, signal) {
      const r = await reply(request, signal);
      return {
        content: r.content ?? null,
        tool_calls: r.tool_calls ?? [],
        usage: r.usage ?? { input_tokens: 10, output_tokens: 5 },
      };
    },
  };
}

/** A model whose every call fails like an unreachable API. */
export const unreachableModel: Model = modelOf(() => {
  throw new ModelCallError("Model API at http://127.0.0.1:9/v1 could not be reached");
});

/** A model that waits until aborted. */
export const hangingModel: Model = modelOf((_r, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
);

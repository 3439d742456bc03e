import assert from "node:assert/strict";
import type { Retriever } from "../../lib/retrieval/types.ts";
import { retrieverFor } from "../../lib/retrieval/retriever.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { MAX_QUERY_CHARS, search } from "../../tools/search.ts";
import { invokeTool } from "../../tools/invoke.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const corpus = corpusOf([
  { id: "eiffel", text: "The Eiffel Tower in Paris is 330 metres tall." },
  { id: "burj", text: "The Burj Khalifa in Dubai is 828 m tall." },
]);
const env = { corpus, now: "2026-01-01" };
const signal = new AbortController().signal;

function callOf(args: unknown, tool = "search") {
  return { tool, args, options: {}, questionKey: "q", timeoutMs: 1000 };
}

Deno.test("retrieval host answers search exactly as the search tool does", async () => {
  const host = createRetrievalHost(retrieverFor(corpus), env);
  try {
    const args = { query: "Eiffel Tower height", top_k: 2 };
    const hosted = await host.call(callOf(args), signal);
    const direct = await invokeTool(search as unknown as ToolDef, args, contextFor(corpus));
    assert.deepEqual(hosted, direct);
    assert.match(hosted.output, /^\[1\] doc_id: eiffel \| passage: eiffel#0 \| score: /);
  } finally {
    await host.close();
  }
});

Deno.test("retrieval host validates arguments with the search schema (model queries stay capped)", async () => {
  const host = createRetrievalHost(retrieverFor(corpus), env);
  try {
    const long = await host.call(callOf({ query: "x".repeat(MAX_QUERY_CHARS + 1) }), signal);
    assert.equal(long.error?.kind, "invalid_args");
    assert.equal(
      long.error?.message,
      `Invalid arguments for search: "query": must be at most ${MAX_QUERY_CHARS} characters.`,
    );
    const extra = await host.call(callOf({ query: "x", __proto__: 1, k: 3 }), signal);
    assert.equal(extra.error?.kind, "invalid_args");
    const stop = await host.call(callOf({ query: "the of what" }), signal);
    assert.equal(stop.error?.kind, "invalid_args");
    assert.match(stop.error?.message ?? "", /has no searchable words/);
    const other = await host.call(callOf({}, "calculator"), signal);
    assert.equal(other.error?.kind, "unknown_tool");
  } finally {
    await host.close();
  }
});

Deno.test("retrieval host turns a failing retriever into an unavailable result and passes its cost", async () => {
  const failing: Retriever = {
    name: "dense",
    kind: "vector",
    topK: 5,
    passages: [],
    search: () => Promise.reject(new Error("HTTP 503 from http://127.0.0.1:9/v1/embeddings")),
  };
  const costly: Retriever = {
    ...failing,
    search: (_q, k) =>
      Promise.resolve({
        hits: retrieverFor(corpus).passages.slice(0, k).map((passage) => ({ passage, score: 0.9 })),
        embedding_tokens: 4,
        cost_usd: 0.001,
      }),
  };
  const down = createRetrievalHost(failing, env);
  const paid = createRetrievalHost(costly, env);
  try {
    const result = await down.call(callOf({ query: "the tower" }), signal);
    assert.equal(result.error?.kind, "unavailable");
    assert.equal(
      result.error?.message,
      "Search is unavailable right now (the retriever failed). Try again, or answer with what you have.",
    );
    assert.equal(
      result.error?.detail,
      'retriever "dense": HTTP 503 from http://127.0.0.1:9/v1/embeddings',
    );
    const ok = await paid.call(callOf({ query: "the", top_k: 1 }), signal);
    assert.equal(ok.error, null);
    assert.equal(ok.cost_usd, 0.001);
    assert.match(ok.output, /doc_id: eiffel/);
  } finally {
    await down.close();
    await paid.close();
  }
});

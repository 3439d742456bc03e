import assert from "node:assert/strict";
import { retrieverFor } from "../../../lib/retrieval/retriever.ts";
import { corpusOf } from "../../support/tool_context.ts";

Deno.test("retrieverFor builds one index per corpus object and reuses it", () => {
  const corpus = corpusOf([{ id: "a", text: "apple pear" }, { id: "b", text: "plum" }]);
  const first = retrieverFor(corpus);
  assert.equal(retrieverFor(corpus), first);
  const copy = corpusOf([{ id: "a", text: "apple pear" }, { id: "b", text: "plum" }]);
  assert.notEqual(retrieverFor(copy), first);
});

const signal = new AbortController().signal;

Deno.test("retrieverFor searches the corpus's passages in corpus order", async () => {
  const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ") + " apple.";
  const corpus = corpusOf([{ id: "long", text: long }, { id: "short", text: "apple pie" }]);
  const retriever = retrieverFor(corpus);
  assert.deepEqual(retriever.passages.map((p) => p.id), ["long#0", "long#1", "short#0"]);
  const { hits } = await retriever.search("apple", 5, signal);
  assert.deepEqual(hits.map((h) => h.passage.id), ["short#0", "long#1"]);
  assert.equal(retriever.kind, "bm25");
  assert.equal(retriever.topK, 5);
});

Deno.test("retrieverFor works on an empty corpus", async () => {
  const retriever = retrieverFor(corpusOf([]));
  assert.deepEqual(retriever.passages, []);
  assert.deepEqual(await retriever.search("apple", 5, signal), {
    hits: [],
    embedding_tokens: 0,
    cost_usd: 0,
  });
});

Deno.test("retrieverFor stems with Snowball by default", async () => {
  const corpus = corpusOf([{ id: "a", text: "the rivers were flowing" }, { id: "b", text: "dry" }]);
  const { hits } = await retrieverFor(corpus).search("flows", 5, signal);
  assert.deepEqual(hits.map((h) => h.passage.doc_id), ["a"]);
  assert.deepEqual(retrieverFor(corpus).queryTerms?.("The flows"), ["flow"]);
});

Deno.test("a retriever's search rejects once its signal is aborted", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(
    retrieverFor(corpusOf([{ id: "a", text: "x" }])).search("x", 1, controller.signal),
    /stop/,
  );
});

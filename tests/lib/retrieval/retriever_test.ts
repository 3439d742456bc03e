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

Deno.test("retrieverFor searches the corpus's passages in corpus order", () => {
  const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ") + " apple.";
  const corpus = corpusOf([{ id: "long", text: long }, { id: "short", text: "apple pie" }]);
  const retriever = retrieverFor(corpus);
  assert.deepEqual(retriever.passages.map((p) => p.id), ["long#0", "long#1", "short#0"]);
  assert.deepEqual(retriever.search("apple", 5).map((h) => h.passage.id), ["short#0", "long#1"]);
});

Deno.test("retrieverFor works on an empty corpus", () => {
  const retriever = retrieverFor(corpusOf([]));
  assert.deepEqual(retriever.passages, []);
  assert.deepEqual(retriever.search("apple", 5), []);
});

import assert from "node:assert/strict";
import { retrieverSchema } from "../../../lib/config/retriever_schema.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import {
  buildBm25Retriever,
  type RetrieverBuilder,
  RunRetrievers,
} from "../../../lib/retrieval/registry.ts";
import { corpusOf } from "../../support/tool_context.ts";

const signal = new AbortController().signal;
const corpus = corpusOf([
  { id: "a", text: Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ") + " apple" },
  { id: "b", text: "apple pie and pears" },
]);

Deno.test("RunRetrievers builds each setting once, however many systems ask", async () => {
  const retrievers = new RunRetrievers(corpus);
  const config = retrieverSchema.parse({ top_k: 3 });
  const [first, second] = await Promise.all([
    retrievers.get({ key: "named:small", name: "small", config }, signal),
    retrievers.get({ key: "named:small", name: "small", config }, signal),
  ]);
  assert.equal(first, second);
  assert.equal(retrievers.builds, 1);
  assert.equal(first.name, "small");
  assert.equal(first.topK, 3);
  // Equal settings under another key share the build, under their own name.
  const copy = await retrievers.get({
    key: "inline:rag",
    name: "rag",
    config: retrieverSchema.parse({ top_k: 3 }),
  }, signal);
  assert.equal(retrievers.builds, 1);
  assert.equal(copy.name, "rag");
  assert.deepEqual(
    (await copy.search("apple", 5, signal)).hits,
    (await first.search("apple", 5, signal)).hits,
  );
  assert.deepEqual(copy.queryTerms?.("The apples"), ["appl"]);
  const other = await retrievers.get({
    key: "named:plural",
    name: "plural",
    config: retrieverSchema.parse({ top_k: 3, bm25: { stemmer: "plural" } }),
  }, signal);
  assert.equal(retrievers.builds, 2);
  // Equal chunk settings share one passage array.
  assert.equal(other.passages, first.passages);
});

Deno.test("RunRetrievers cuts passages as each retriever's chunk settings say", async () => {
  const retrievers = new RunRetrievers(corpus);
  const config = retrieverSchema.parse({ chunk: { size: 16, overlap: 4 } });
  const retriever = await retrievers.get({ key: "k", name: "k", config }, signal);
  assert.deepEqual(retriever.passages.map((p) => p.id), [
    "a#0",
    "a#1",
    "a#2",
    "a#3",
    "a#4",
    "b#0",
  ]);
  const { hits } = await retriever.search("apple", 10, signal);
  assert.deepEqual(hits.map((h) => h.passage.id), ["b#0", "a#4"]);
});

Deno.test("RunRetrievers passes the bm25 settings to the index", async () => {
  const retrievers = new RunRetrievers(corpusOf([{ id: "a", text: "flowing" }]));
  const plural = retrieverSchema.parse({ bm25: { stemmer: "plural" } });
  const retriever = await retrievers.get({ key: "p", name: "p", config: plural }, signal);
  assert.deepEqual((await retriever.search("flows", 5, signal)).hits, []);
  assert.deepEqual(retriever.queryTerms?.("flows"), ["flow"]);
});

Deno.test("RunRetrievers refuses a kind without a builder, naming the retriever", async () => {
  const builders = new Map<string, RetrieverBuilder>([["bm25", buildBm25Retriever]]);
  const retrievers = new RunRetrievers(corpus, builders);
  const config = retrieverSchema.parse({ kind: "vector" });
  await assert.rejects(
    retrievers.get({ key: "v", name: "dense", config }, signal),
    (error: unknown) =>
      error instanceof RagbenchError && error.code === "config" &&
      error.message ===
        `Cannot build retriever "dense": kind "vector" is not available in this version of ragbench — use one of "bm25".`,
  );
});

Deno.test("RunRetrievers hands a builder the request it needs", async () => {
  const seen: string[] = [];
  const builder: RetrieverBuilder = (request) => {
    seen.push(`${request.name}:${request.config.kind}:${request.passages.length}`);
    return buildBm25Retriever(request);
  };
  const retrievers = new RunRetrievers(corpus, new Map([["hybrid", builder]]));
  await retrievers.get({
    key: "h",
    name: "mix",
    config: retrieverSchema.parse({ kind: "hybrid" }),
  }, signal);
  assert.deepEqual(seen, ["mix:hybrid:2"]);
});

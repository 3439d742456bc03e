import assert from "node:assert/strict";
import { retrieverSchema } from "../../../lib/config/retriever_schema.ts";
import {
  buildBm25Retriever,
  type RetrieverBuilder,
  RunRetrievers,
} from "../../../lib/retrieval/registry.ts";
import { createEmbedderPool } from "../../../lib/dense/embedders.ts";
import { corpusOf } from "../../support/tool_context.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { tempTree } from "../../support/temp.ts";

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

Deno.test("RunRetrievers builds vector and hybrid retrievers, the hybrid sharing its parts", async () => {
  const retrievers = new RunRetrievers(corpus);
  const embedding = { provider: "hashing", dimensions: 64 };
  const lexical = await retrievers.get({
    key: "l",
    name: "lexical",
    config: retrieverSchema.parse({ embedding }),
  }, signal);
  const dense = await retrievers.get({
    key: "d",
    name: "dense",
    config: retrieverSchema.parse({ kind: "vector", embedding, top_k: 1 }),
  }, signal);
  assert.equal(retrievers.builds, 2);
  const mix = await retrievers.get({
    key: "m",
    name: "mix",
    config: retrieverSchema.parse({ kind: "hybrid", embedding }),
  }, signal);
  // Only the fusion is new: its BM25 and vector parts are the builds above.
  assert.equal(retrievers.builds, 3);
  assert.equal(dense.kind, "vector");
  assert.equal(dense.topK, 1);
  assert.equal(mix.kind, "hybrid");
  assert.equal(mix.passages, lexical.passages);
  assert.equal((await dense.search("apple pie", 1, signal)).hits[0].passage.doc_id, "b");
  const fused = await mix.search("apple pie", 2, signal);
  assert.deepEqual(fused.hits.map((h) => h.passage.doc_id), ["b", "a"]);
  // RRF: b is first in both rankings, so 1/61 + 1/61.
  assert.equal(fused.hits[0].score, 2 / 61);
});

Deno.test("RunRetrievers shares a build between retrievers that differ only in top_k or unused keys", async () => {
  const retrievers = new RunRetrievers(corpus);
  const five = await retrievers.get({
    key: "a",
    name: "a",
    config: retrieverSchema.parse({ top_k: 5, fusion: { k: 1 } }),
  }, signal);
  const one = await retrievers.get({
    key: "b",
    name: "b",
    config: retrieverSchema.parse({ top_k: 1, embedding: { provider: "hashing" } }),
  }, signal);
  assert.equal(retrievers.builds, 1);
  assert.equal(five.topK, 5);
  assert.equal(one.topK, 1);
});

Deno.test("RunRetrievers in --mock builds an openai vector retriever with the hashing embedder", async () => {
  const lines: string[] = [];
  const retrievers = new RunRetrievers(corpus, { mock: true, progress: (l) => lines.push(l) });
  const openai = retrieverSchema.parse({ kind: "vector", embedding: { dimensions: 64 } });
  const hashing = retrieverSchema.parse({
    kind: "vector",
    embedding: { provider: "hashing", dimensions: 64 },
  });
  const [a, b] = await Promise.all([
    retrievers.get({ key: "a", name: "a", config: openai }, signal),
    retrievers.get({ key: "b", name: "b", config: hashing }, signal),
  ]);
  // After the substitution both use hashing:64, so they share one build.
  assert.equal(retrievers.builds, 1);
  assert.deepEqual(
    (await a.search("apple", 2, signal)).hits,
    (await b.search("apple", 2, signal)).hits,
  );
  assert.equal(
    lines.filter((l) => l.startsWith("--mock: openai embedders are replaced")).length,
    1,
  );
  retrievers.close();
});

Deno.test("RunRetrievers hands a builder the request it needs", async () => {
  const seen: string[] = [];
  const builder: RetrieverBuilder = (request) => {
    seen.push(`${request.name}:${request.config.kind}:${request.passages.length}`);
    return buildBm25Retriever(request);
  };
  const retrievers = new RunRetrievers(corpus, { builders: new Map([["hybrid", builder]]) });
  await retrievers.get({
    key: "h",
    name: "mix",
    config: retrieverSchema.parse({ kind: "hybrid" }),
  }, signal);
  assert.deepEqual(seen, ["mix:hybrid:2"]);
});

Deno.test("RunRetrievers reports what embedding the passages cost, once per embedding build", async () => {
  await using tree = await tempTree();
  await using server = startFakeEmbeddingsServer(() => "default");
  const embedding = {
    model: "m",
    base_url: server.baseUrl,
    api_key_env: null,
    price_per_mtok: 2,
  };
  const run = async () => {
    using pool = createEmbedderPool({ mock: false, cacheDir: () => tree.dir });
    const retrievers = new RunRetrievers(corpus, { embedders: pool });
    // A vector and a hybrid retriever with the same embedding share one build; BM25 embeds nothing.
    for (const [name, kind] of [["dense", "vector"], ["mix", "hybrid"], ["words", "bm25"]]) {
      await retrievers.get(
        { key: name, name, config: retrieverSchema.parse({ kind, embedding }) },
        signal,
      );
    }
    return await retrievers.indexing();
  };
  const first = await run();
  assert.equal(first.length, 1);
  const [record] = first;
  assert.equal(record.retriever, "dense");
  assert.equal(record.passages, 2);
  assert.match(record.embedder, /m/);
  assert.equal(record.cached, 0);
  assert.ok(record.tokens > 0);
  assert.equal(record.cost_usd, record.tokens * 2 / 1e6);
  // A second run finds every passage in the cache: nothing embedded, nothing paid.
  const second = await run();
  assert.deepEqual(second, [{ ...record, tokens: 0, cost_usd: 0, cached: 2 }]);
});

import assert from "node:assert/strict";
import { parseOwnRetriever } from "../../../lib/config/retriever_schema.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { ModelCallError } from "../../../lib/llm/model.ts";
import { Bm25Index } from "../../../lib/lexical/bm25.ts";
import { createEmbedderPool } from "../../../lib/dense/embedders.ts";
import { buildHybridRetriever, HYBRID_DEPTH } from "../../../lib/retrieval/hybrid_retriever.ts";
import { passagesOf } from "../../../lib/lexical/passages.ts";
import { reciprocalRankFusion } from "../../../lib/dense/fusion.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import { buildVectorRetriever } from "../../../lib/retrieval/vector_retriever.ts";
import { createOpenAIEmbedder } from "../../../lib/dense/openai_embedder.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { unusedPort } from "../../support/fake_openai_server.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;

const DOCS = [
  ["wing", "Wing", "Lift on a swept wing at supersonic speed."],
  ["heat", "Heating", "Aerodynamic heating of blunt bodies in hypersonic flow."],
  ["plate", "Plate", "Boundary layer transition on a flat plate."],
  ["bread", "Bread", "The price of bread in medieval towns."],
].map(([id, title, text]) => ({ id, title, text, source: `${id}.txt` }));
const PASSAGES = passagesOf(DOCS);

function bm25Retriever(): Retriever {
  const index = new Bm25Index(PASSAGES);
  return {
    name: "lexical",
    kind: "bm25",
    topK: 5,
    passages: PASSAGES,
    search: (query, k) =>
      Promise.resolve({ hits: index.search(query, k), embedding_tokens: 0, cost_usd: 0 }),
  };
}

Deno.test("a vector retriever over the hashing embedder ranks the matching passage first", async () => {
  using pool = createEmbedderPool({ mock: false, cacheDir: () => assert.fail("no cache") });
  const config = parseOwnRetriever({ kind: "vector", embedding: { provider: "hashing" } });
  const lines: string[] = [];
  const retriever = await buildVectorRetriever("dense", config, PASSAGES, {
    embedderFor: pool.embedderFor,
    signal,
    onProgress: (l) => lines.push(l),
  });
  assert.equal(retriever.kind, "vector");
  assert.equal(retriever.topK, 5);
  const outcome = await retriever.search("boundary layers on flat plates", 2, signal);
  assert.equal(outcome.hits.length, 2);
  assert.equal(outcome.hits[0].passage.id, "plate#0");
  assert.ok(outcome.hits[0].score > outcome.hits[1].score);
  assert.equal(outcome.embedding_tokens, 0);
  assert.match(lines.at(-1) ?? "", /retriever dense: 4 passages embedded with hashing:v1:384/);
});

Deno.test("an embedding endpoint that is down stops the index build naming the retriever, server and fix", async () => {
  const baseUrl = `http://127.0.0.1:${unusedPort()}/v1`;
  const config = parseOwnRetriever({
    kind: "vector",
    embedding: { base_url: baseUrl, model: "e5", max_retries: 0 },
  });
  const embedder = createOpenAIEmbedder({
    model: "e5",
    baseUrl,
    apiKey: "sk-secret-do-not-print",
    dimensions: null,
    batchSize: 8,
    maxRetries: 0,
    timeoutMs: 2000,
    queryPrefix: "",
    passagePrefix: "",
    pricePerMtok: null,
    cache: null,
  });
  const error = await buildVectorRetriever("dense", config, PASSAGES, {
    embedderFor: () => embedder,
    signal,
  }).catch((e) => e);
  assert.ok(error instanceof RagbenchError);
  assert.equal(error.code, "model");
  assert.match(
    error.message,
    new RegExp(
      `Cannot build retriever "dense" \\(kind vector\\): embedding its 4 passages failed\\. ` +
        `Embedding API at ${baseUrl} \\(model "e5"\\) could not be reached: connection refused\\. ` +
        "Check embedding\\.base_url",
    ),
  );
  assert.ok(!error.message.includes("sk-secret"));
});

Deno.test("a query embedding failure is a per-question model error, not a crash", async () => {
  let down = false;
  await using server = startFakeEmbeddingsServer(() =>
    down ? { status: 503, json: { error: { message: "overloaded" } } } : "default"
  );
  const embedder = createOpenAIEmbedder({
    model: "m",
    baseUrl: server.baseUrl,
    apiKey: null,
    dimensions: null,
    batchSize: 8,
    maxRetries: 0,
    timeoutMs: 2000,
    queryPrefix: "",
    passagePrefix: "",
    pricePerMtok: null,
    cache: null,
  });
  const config = parseOwnRetriever({ kind: "vector" });
  const retriever = await buildVectorRetriever("dense", config, PASSAGES, {
    embedderFor: () => embedder,
    signal,
  });
  const ok = await retriever.search("supersonic wing lift", 1, signal);
  assert.equal(ok.hits[0].passage.id, "wing#0");
  assert.equal(ok.embedding_tokens, 3);
  down = true;
  const error = await retriever.search("wing", 1, signal).catch((e) => e);
  assert.ok(error instanceof ModelCallError, "the runner records ModelCallError as kind model");
  assert.match(
    error.message,
    new RegExp(
      `Embedding API at ${server.baseUrl} \\(model "m"\\) failed \\(HTTP 503: overloaded\\)`,
    ),
  );
});

Deno.test("a hybrid retriever returns the RRF fusion of the BM25 and vector rankings", async () => {
  using pool = createEmbedderPool({ mock: true, cacheDir: () => assert.fail("no cache") });
  const config = parseOwnRetriever({
    kind: "hybrid",
    fusion: { k: 10, weights: { bm25: 2, vector: 1 } },
  });
  const bm25 = bm25Retriever();
  const hybrid = await buildHybridRetriever("mix", config, PASSAGES, {
    embedderFor: pool.embedderFor,
    signal,
    bm25,
  });
  const vector = await buildVectorRetriever("v", config, PASSAGES, {
    embedderFor: pool.embedderFor,
    signal,
  });
  const query = "supersonic heating of flat plates";
  const lexical = await bm25.search(query, HYBRID_DEPTH, signal);
  const dense = await vector.search(query, HYBRID_DEPTH, signal);
  const number = (id: string) => PASSAGES.findIndex((p) => p.id === id);
  const want = reciprocalRankFusion(
    [
      { items: lexical.hits.map((h) => number(h.passage.id)), weight: 2 },
      { items: dense.hits.map((h) => number(h.passage.id)), weight: 1 },
    ],
    10,
    3,
  );
  const got = await hybrid.search(query, 3, signal);
  assert.equal(hybrid.kind, "hybrid");
  assert.deepEqual(
    got.hits.map((h) => [h.passage.id, h.score]),
    want.map((w) => [PASSAGES[w.index].id, w.score]),
  );
  assert.equal(got.hits.length, 3);
});

Deno.test("a hybrid retriever refuses a BM25 retriever over other passages", async () => {
  using pool = createEmbedderPool({ mock: true, cacheDir: () => "" });
  const bm25 = { ...bm25Retriever(), passages: PASSAGES.slice(1) };
  await assert.rejects(
    buildHybridRetriever("mix", parseOwnRetriever({ kind: "hybrid" }), PASSAGES, {
      embedderFor: pool.embedderFor,
      signal,
      bm25,
    }),
    /hybrid retriever mix: the BM25 retriever ranks other passages/,
  );
});

Deno.test("a hybrid retriever can share an already built vector retriever", async () => {
  using pool = createEmbedderPool({ mock: true, cacheDir: () => "" });
  const config = parseOwnRetriever({ kind: "hybrid" });
  const deps = { embedderFor: pool.embedderFor, signal };
  const vector = await buildVectorRetriever("v", config, PASSAGES, deps);
  const hybrid = await buildHybridRetriever("mix", config, PASSAGES, {
    ...deps,
    bm25: bm25Retriever(),
    vector,
  });
  assert.equal((await hybrid.search("flat plate", 1, signal)).hits[0].passage.id, "plate#0");
  const other = await buildVectorRetriever(
    "v2",
    parseOwnRetriever({ embedding: { provider: "hashing", dimensions: 64 } }),
    PASSAGES,
    deps,
  );
  await assert.rejects(
    buildHybridRetriever("mix", config, PASSAGES, {
      ...deps,
      bm25: bm25Retriever(),
      vector: other,
    }),
    /the shared vector retriever differs/,
  );
});

Deno.test("re-building a vector retriever in a new run over the same corpus makes zero requests", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer();
  const config = parseOwnRetriever({
    kind: "vector",
    embedding: { base_url: server.baseUrl, model: "m", api_key_env: null, batch_size: 3 },
  });
  const build = async () => {
    using pool = createEmbedderPool({ mock: false, cacheDir: () => tmp.dir });
    const retriever = await buildVectorRetriever("dense", config, PASSAGES, {
      embedderFor: pool.embedderFor,
      signal,
    });
    return retriever.indexing;
  };
  const first = await build();
  assert.equal(server.requests.length, 2, "4 passages in batches of 3");
  assert.equal(first.cached, 0);
  const second = await build();
  assert.equal(server.requests.length, 2, "no request on the re-run");
  assert.deepEqual(second, { tokens: 0, cost_usd: 0, cached: 4 });
});

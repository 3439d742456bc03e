import assert from "node:assert/strict";
import { createRerankRetriever, type RerankSpec } from "../../../lib/retrieval/rerank_retriever.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import type { Passage } from "../../../lib/lexical/passages.ts";
import { Secrets } from "../../../lib/util/secrets.ts";
import { openResponseCache } from "../../../lib/cache/response_cache.ts";
import { emptyCacheStats } from "../../../lib/llm/cached_model.ts";
import { type RerankFlavour, type RerankMode, rerankServer } from "../../support/rerank_server.ts";
import { stallingServer } from "../../support/stalling_server.ts";

const signal = new AbortController().signal;

/** Six passages; the base ranks them p0..p5 and the reranker by words shared with the query. */
const PASSAGES: Passage[] = [
  "bridges of steel",
  "wind tunnel tests of wings",
  "history of rome",
  "wings and wind loads on bridges",
  "ceramics",
  "wind",
].map((text, i) => ({ id: `p${i}#0`, doc_id: `p${i}`, index: 0, title: "", text }));

function base(): Retriever & { asked: number[] } {
  const asked: number[] = [];
  return {
    name: "bm25",
    kind: "bm25",
    topK: 5,
    passages: PASSAGES,
    asked,
    search(_query, k) {
      asked.push(k);
      const hits = PASSAGES.slice(0, k).map((passage, i) => ({ passage, score: 10 - i }));
      return Promise.resolve({ hits, embedding_tokens: 0, cost_usd: 0 });
    },
  };
}

function reranker(url: string, over: Partial<RerankSpec> = {}, timeoutMs = 5000) {
  const b = base();
  const endpoint = `${url}/v1/rerank`;
  const retriever = createRerankRetriever({
    name: "reranked",
    topK: 5,
    base: b,
    topN: 4,
    call: {
      url: endpoint,
      model: "rerank-test",
      site: { retriever: "reranked", kind: "rerank", host: endpoint },
      headers: {},
      timeoutMs,
      maxRetries: 1,
      maxBytes: 1_048_576,
      secrets: new Secrets(),
      clock: { now: () => 0, random: () => 0, sleep: () => Promise.resolve() },
    },
    endpoint,
    pricePerMtok: null,
    pricePerSearchUnit: null,
    cache: null,
    mock: false,
    ...over,
  });
  return { retriever, base: b };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

for (const flavour of ["cohere", "jina", "voyage", "tei"] as RerankFlavour[]) {
  Deno.test(`rerank (${flavour} replies) reorders the base's first top_n and keeps the rest below`, async () => {
    await using server = rerankServer(flavour, { value: "ok" });
    const { retriever, base: b } = reranker(server.url);
    const outcome = await retriever.search("wind loads on wings", 6, signal);
    const sent = JSON.parse(server.received[0].body);
    assert.deepEqual(sent, {
      model: "rerank-test",
      query: "wind loads on wings",
      documents: PASSAGES.slice(0, 4).map((p) => p.text),
    });
    assert.deepEqual(b.asked, [6]);
    // p3 shares 4 words, p1 2, p0 and p2 none (base order kept); then p4, p5 in base order,
    // scored below the last reranked one.
    assert.deepEqual(outcome.hits.map((h) => [h.passage.id, h.score]), [
      ["p3#0", 0.4],
      ["p1#0", 0.2],
      ["p0#0", 0],
      ["p2#0", 0],
      ["p4#0", -1],
      ["p5#0", -2],
    ]);
    // No price set: the cost is unknown, never 0.
    assert.equal(outcome.cost_usd, null);
  });
}

Deno.test("rerank asks the base for top_n when fewer are wanted, and cuts to k", async () => {
  await using server = rerankServer("jina", { value: "ok" });
  const { retriever, base: b } = reranker(server.url);
  const outcome = await retriever.search("wind loads on wings", 2, signal);
  assert.deepEqual(b.asked, [4]);
  assert.deepEqual(outcome.hits.map((h) => h.passage.id), ["p3#0", "p1#0"]);
});

Deno.test("rerank cost: tokens at price_per_mtok, search units at price_per_search_unit", async () => {
  await using jina = rerankServer("jina", { value: "ok" });
  const byTokens = await reranker(jina.url, { pricePerMtok: 2 }).retriever.search(
    "wind",
    3,
    signal,
  );
  const sent = JSON.parse(jina.received[0].body) as { query: string; documents: string[] };
  const tokens = Math.ceil((sent.query.length + sent.documents.join("").length) / 4);
  assert.equal(byTokens.cost_usd, tokens * 2 / 1_000_000);
  await using cohere = rerankServer("cohere", { value: "ok" });
  const bySearch = await reranker(cohere.url, { pricePerSearchUnit: 0.002 }).retriever
    .search("wind", 3, signal);
  assert.equal(bySearch.cost_usd, 0.002);
});

Deno.test("rerank: fewer scores than documents is an error, not a silent reorder", async () => {
  const cases: Array<[RerankMode, RegExp]> = [
    [
      "fewer",
      /sent an unusable rerank reply: 2 scores for 4 documents \(every document must be scored/,
    ],
    ["repeated", /index \d is scored twice/],
    ["nan", /has no finite relevance_score/],
  ];
  for (const [mode, message] of cases) {
    await using server = rerankServer("cohere", { value: mode });
    const error = await failure(reranker(server.url).retriever.search("wind loads", 5, signal));
    assert.match(
      error.message,
      /^Retriever "reranked" \(rerank\) at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank: /,
    );
    assert.match(error.message, message);
  }
});

Deno.test("rerank: a failing service is retried and then an error with its retries", async () => {
  await using server = rerankServer("jina", { value: "500" });
  const error = await failure(reranker(server.url).retriever.search("wind", 5, signal)) as
    & Error
    & { attempts?: unknown };
  assert.equal(server.received.length, 2);
  assert.match(error.message, /answered HTTP 500: .*overloaded.*\(Gave up after 1 retry\.\)/);
  assert.deepEqual((error.attempts as { http_statuses: number[] }).http_statuses, [500, 500]);
});

Deno.test("rerank: a service that stalls part-way through its reply is the question's timeout error", async () => {
  await using server = stallingServer("mid_body");
  const error = await failure(
    reranker(server.url, {}, 300).retriever.search("wind", 5, signal),
  );
  assert.match(
    error.message,
    /^Retriever "reranked" \(rerank\) at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank: did not answer within 0\.3 s\. .*\(Gave up after 1 retry\.\)/,
  );
  assert.equal(server.requests, 2);
});

Deno.test("rerank under --mock sends nothing and keeps the base ranking", async () => {
  await using server = rerankServer("jina", { value: "ok" });
  const outcome = await reranker(server.url, { mock: true }).retriever.search("wind", 3, signal);
  assert.equal(server.received.length, 0);
  assert.deepEqual(outcome.hits.map((h) => [h.passage.id, h.score]), [
    ["p0#0", 10],
    ["p1#0", 9],
    ["p2#0", 8],
  ]);
});

Deno.test("rerank replays recorded scores at no cost", async () => {
  const dir = await Deno.makeTempDir();
  const cache = openResponseCache(dir);
  try {
    await using server = rerankServer("jina", { value: "ok" });
    const live = { cache, mode: "read-write" as const, stats: emptyCacheStats() };
    const first = await reranker(server.url, { cache: live, pricePerMtok: 1 }).retriever
      .search("wind loads", 5, signal);
    assert.ok(first.cost_usd! > 0);
    const again = await reranker(server.url, { cache: live, pricePerMtok: 1 }).retriever
      .search("wind loads", 5, signal);
    assert.equal(server.received.length, 1);
    assert.deepEqual(again.hits, first.hits);
    assert.equal(again.cost_usd, 0);
    assert.deepEqual(live.stats, { hits: 1, misses: 1, corrupt: 0, recorded: 1, writeFailures: 0 });
  } finally {
    cache.close();
    await Deno.remove(dir, { recursive: true });
  }
});

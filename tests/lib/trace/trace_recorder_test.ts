import assert from "node:assert/strict";
import type { Passage } from "../../../lib/lexical/passages.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import { TraceRecorder } from "../../../lib/trace/trace_recorder.ts";
import type { RetrievalStep } from "../../../lib/types.ts";
import { modelOf } from "../../support/fixtures.ts";

const passage: Passage = { id: "a#1", doc_id: "a", index: 1, title: "A", text: "text" };

function retrieverOf(search: Retriever["search"]): Retriever {
  return { name: "dense", kind: "vector", topK: 5, passages: [passage], search };
}

Deno.test("recorder.retrieve records the step and adds the embedding cost", async () => {
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  const seen: Array<[string, number]> = [];
  const { step, hits } = await recorder.retrieve(
    retrieverOf((query, k) => {
      seen.push([query, k]);
      return Promise.resolve({
        hits: [{ passage, score: 0.5 }],
        embedding_tokens: 12,
        cost_usd: 0.002,
      });
    }),
    "query text",
    7,
    new AbortController().signal,
  );
  assert.deepEqual(seen, [["query text", 7]]);
  assert.deepEqual(hits, [{ passage, score: 0.5 }]);
  assert.equal(recorder.steps[0], step);
  assert.deepEqual({ ...step, latency_ms: 0 }, {
    type: "retrieval",
    retriever: "dense",
    query: "query text",
    k: 7,
    results: [{ passage_id: "a#1", doc_id: "a", score: 0.5 }],
    latency_ms: 0,
    embedding_tokens: 12,
    cost_usd: 0.002,
    error: null,
  });
  assert.ok(step.latency_ms >= 0);
  assert.equal(recorder.costUsd, 0.002);
  assert.equal(recorder.embeddingTokens, 12);
  assert.equal(recorder.modelCalls, 0);
});

Deno.test("recorder.retrieve never rejects: a failure or an abort is recorded on the step", async () => {
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  const failed = await recorder.retrieve(
    retrieverOf(() => Promise.reject(new Error("endpoint down"))),
    "q",
    3,
    new AbortController().signal,
  );
  assert.deepEqual(failed.step.error, { kind: "retrieval", message: "endpoint down" });
  assert.deepEqual(failed.hits, []);
  const controller = new AbortController();
  controller.abort(new Error("question timed out"));
  const aborted = await recorder.retrieve(
    retrieverOf((_q, _k, signal) => Promise.reject(signal.reason)),
    "q",
    3,
    controller.signal,
  );
  assert.deepEqual(aborted.step.error, { kind: "timeout", message: "question timed out" });
  assert.equal(recorder.steps.length, 2);
  assert.equal(recorder.costUsd, 0);
  assert.ok(recorder.steps.every((s) => (s as RetrievalStep).results.length === 0));
});

Deno.test("recorder.retrieve with a depth in documents asks again for twice as many passages until it has them", async () => {
  // Ten documents of three passages each, ranked document by document.
  const passages: Passage[] = Array.from({ length: 30 }, (_, i) => ({
    id: `d${Math.floor(i / 3)}#${i % 3}`,
    doc_id: `d${Math.floor(i / 3)}`,
    index: i % 3,
    title: "",
    text: "t",
  }));
  const asked: number[] = [];
  const retriever: Retriever = {
    name: "bm25",
    kind: "bm25",
    topK: 5,
    passages,
    search(_query, k) {
      asked.push(k);
      const hits = passages.slice(0, k).map((passage, i) => ({ passage, score: 30 - i }));
      return Promise.resolve({ hits, embedding_tokens: 1, cost_usd: 0.001 });
    },
  };
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  const { step } = await recorder.retrieve(retriever, "q", 4, new AbortController().signal, {
    documents: 4,
  });
  // 4 passages hold 2 documents, 8 hold 3, 16 hold 6: done.
  assert.deepEqual(asked, [4, 8, 16]);
  assert.equal(step.k, 16);
  assert.equal(step.results.length, 16);
  assert.equal(recorder.embeddingTokens, 3);
  assert.equal(Math.round(recorder.costUsd! * 1000), 3);
  // A retriever that has fewer passages than asked for stops the deepening.
  asked.length = 0;
  const all = await recorder.retrieve(retriever, "q", 20, new AbortController().signal, {
    documents: 100,
  });
  assert.deepEqual(asked, [20, 30]);
  assert.equal(all.step.results.length, 30);
});
